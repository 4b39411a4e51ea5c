"""Jev's hook commands: the command line a host runs, and how Jev recognises its own
handlers in a host's hook configuration (design.md §12).

A handler is Jev's when its command runs ``… jev hook <name> …`` with ``<name>`` one of
Jev's hook names (:data:`HOOK_NAMES`), in shell form (one command string, in any of
:data:`COMMAND_FIELDS`) or exec form (``command`` = the ``jev`` executable, ``args`` =
``["hook", name, …]``); handlers of other tools are never touched. Host-neutral: the
adapters describe their handler shapes and call :func:`hook_command`.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from jev.base.errors import UsageError
from jev.hosts.registry import hook_names

__all__ = [
    "COMMAND_FIELDS",
    "HOOK_NAMES",
    "SESSION_START_TIMEOUT_S",
    "STATUS_MESSAGE",
    "handler_command",
    "hook_command",
    "is_jev_handler",
    "jev_executable",
    "jev_handlers",
]

#: Every hook name ``jev hook`` accepts (longest first for the command pattern).
HOOK_NAMES: tuple[str, ...] = tuple(sorted(hook_names(), key=len, reverse=True))

_JEV_COMMAND_RE = re.compile(
    r"(?:^|[\s/\\\"'])jev(?:\.exe)?[\"']?\s+hook\s+(?P<name>"
    + "|".join(re.escape(n) for n in HOOK_NAMES)
    + r")(?=$|[\s\"';&|])"
)

#: Timeout of the SessionStart handler (renders one short template), seconds.
SESSION_START_TIMEOUT_S = 30
#: The status line a host shows while the Stop hook runs (handler field ``statusMessage``).
STATUS_MESSAGE = "Jev: checking the completion report"


def jev_executable() -> Path:
    """Absolute path of the ``jev`` console script, so hooks work from any cwd.

    Order: the running program when it is ``jev`` itself, ``jev`` next to the running
    Python (a virtual environment's ``bin``), then ``jev`` on ``PATH``.

    Raises:
        UsageError: no ``jev`` executable can be found.
    """
    names = ("jev.exe", "jev") if sys.platform == "win32" else ("jev",)
    argv0 = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if argv0 is not None and argv0.name in names and argv0.is_file():
        return argv0.absolute()
    scripts = Path(sys.executable).parent
    for name in names:
        candidate = scripts / name
        if candidate.is_file():
            return candidate.absolute()
    found = shutil.which("jev")
    if found:
        return Path(found).absolute()
    raise UsageError(
        "cannot find the `jev` executable to write into the hook command; install Jev "
        "with pip so that `jev` is on PATH, then run the installer again."
    )


def _quote(text: str) -> str:
    if sys.platform == "win32":
        return subprocess.list2cmdline([text])
    return shlex.quote(text)


def hook_command(name: str, profile: str | None = None, executable: Path | None = None) -> str:
    """The shell command a host runs for Jev's hook ``name``.

    ``<abs path of jev> hook <name>`` plus ``--profile P`` when a profile is named: an
    argument, not a ``JEV_PROFILE=…`` prefix, so it works in every shell a host uses.

    Raises:
        UsageError: unknown hook name, or no ``jev`` executable (see :func:`jev_executable`).
    """
    if name not in HOOK_NAMES:
        raise UsageError(f"unknown hook {name!r}; expected one of: {', '.join(HOOK_NAMES)}")
    exe = executable or jev_executable()
    parts = [_quote(str(exe)), "hook", name]
    if profile:
        parts += ["--profile", _quote(profile)]
    return " ".join(parts)


#: Handler fields that hold a command: ``command`` (most hosts); ``bash`` and
#: ``powershell`` (GitHub Copilot CLI, hosts.md (other hosts)).
COMMAND_FIELDS: tuple[str, ...] = ("command", "bash", "powershell")


def handler_command(handler: Mapping[str, Any]) -> str:
    """The first command field of ``handler`` (:data:`COMMAND_FIELDS`), or ""."""
    for key in COMMAND_FIELDS:
        value = handler.get(key)
        if isinstance(value, str) and value:
            return value
    return ""


def is_jev_handler(handler: object, names: tuple[str, ...] = HOOK_NAMES) -> bool:
    """True when ``handler`` is a command handler running ``jev hook <one of names>``,
    in shell form (one command string, in any of :data:`COMMAND_FIELDS`) or exec form
    (``command`` = the ``jev`` executable, ``args`` = ``["hook", name, …]``, Claude Code
    ≥ 2.1.139)."""
    if not isinstance(handler, Mapping):
        return False
    command = handler.get("command")
    args = handler.get("args")
    if isinstance(command, str) and isinstance(args, list):
        exe = command.replace("\\", "/").rsplit("/", 1)[-1].lower()
        return (
            exe in ("jev", "jev.exe") and len(args) >= 2 and args[0] == "hook" and args[1] in names
        )
    for key in COMMAND_FIELDS:
        text = handler.get(key)
        if isinstance(text, str):
            match = _JEV_COMMAND_RE.search(text)
            if match and match.group("name") in names:
                return True
    return False


def jev_handlers(data: Mapping[str, Any], names: tuple[str, ...]) -> list[dict[str, Any]]:
    """Jev's handlers running one of ``names`` in a parsed hook file, in either layout."""
    hooks = data.get("hooks")
    found: list[dict[str, Any]] = []
    if not isinstance(hooks, Mapping):
        return found
    for items in hooks.values():
        for item in items if isinstance(items, list) else ():
            inner = item.get("hooks") if isinstance(item, dict) else None
            for handler in inner if isinstance(inner, list) else [item]:
                if is_jev_handler(handler, names):
                    found.append(dict(handler))
    return found
