"""Installers: merge Jev's hook entries into a host's hook configuration (design.md §12).

The generic part: each host's adapter describes its files, scopes, handler shape and
timeout unit (:class:`jev.hosts.base.Installer`, e.g.
:class:`jev.hosts.adapters.claude_code.ClaudeCodeInstaller`); this module merges,
diffs, backs up and writes. The hosts with an installer are
:func:`installable_hosts`.

The hook configuration files share the three-level shape event → matcher group →
handlers::

    {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "…", "timeout": 210}]}]}}

Rules (issue 4 item 4): the merge is idempotent (a second install changes nothing and
writes nothing), every other key, event and handler stays as it was (same order), a
Jev handler already present is updated in place, a file that is not valid JSON is
refused without writing, a backup of the previous file is written before any change,
the write is atomic (temporary file + ``os.replace``), and a dry run produces the
unified diff and writes nothing.

Jev recognises its own handlers by their command: ``… jev hook <name> …`` where
``<name>`` is one of Jev's hook names; handlers of other tools are never touched.
"""

from __future__ import annotations

import copy
import difflib
import json
import math
import re
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jev import safejson
from jev.errors import UsageError
from jev.files import write_atomic
from jev.hosts.config_edit import Ledger, json_set, json_unset, note_setting, show_setting

if TYPE_CHECKING:
    from jev.hosts.base import ConfigSetting, Installer

__all__ = [
    "COMMAND_FIELDS",
    "HOOK_NAMES",
    "InstallPlan",
    "apply_plan",
    "config_path",
    "handler_command",
    "hook_command",
    "hook_timeout_s",
    "installable_hosts",
    "is_jev_handler",
    "jev_executable",
    "jev_handlers",
    "plan_install",
    "plan_uninstall",
]


def installable_hosts() -> tuple[str, ...]:
    """The registered hosts whose adapter has an installer."""
    from jev.hosts.registry import adapter, host_names

    return tuple(h for h in host_names() if adapter(h).installer is not None)


def _installer(host: str) -> Installer:
    from jev.hosts.registry import adapter, host_names

    if host not in host_names():
        raise UsageError(
            f"no installer for host {host!r}; available: {', '.join(installable_hosts())}."
        )
    found = adapter(host).installer
    if found is None:
        raise UsageError(
            f"no installer for host {host!r}; available: {', '.join(installable_hosts())}. "
            "Its hooks are configured by hand (see README)."
        )
    return found


def _hook_names() -> tuple[str, ...]:
    from jev.hosts.registry import hook_names

    return tuple(sorted(hook_names(), key=len, reverse=True))


#: Every hook name ``jev hook`` accepts (longest first for the command pattern).
HOOK_NAMES: tuple[str, ...] = _hook_names()

_JEV_COMMAND_RE = re.compile(
    r"(?:^|[\s/\\\"'])jev(?:\.exe)?[\"']?\s+hook\s+(?P<name>"
    + "|".join(re.escape(n) for n in HOOK_NAMES)
    + r")(?=$|[\s\"';&|])"
)

#: Seconds added to the worst-case judge time for reading, storing and start-up.
TIMEOUT_MARGIN_S = 30
#: Timeout of the SessionStart handler (renders one short template), seconds.
SESSION_START_TIMEOUT_S = 30
#: Shown by Claude Code while the Stop hook runs (handler field ``statusMessage``).
STATUS_MESSAGE = "Jev: checking the completion report"


@dataclass(frozen=True, slots=True)
class InstallPlan:
    """A computed change of one host configuration file, not yet written.

    Attributes:
        host: ``claude-code`` or ``codex``.
        scope: ``user``, ``project`` or ``local``.
        path: the configuration file.
        before: the file's text before the change (``None``: the file does not exist).
        after: the text that would be written (equal to ``before`` when unchanged).
        changes: one human line per change ("added Stop hook: …"); empty when unchanged.
        added: key paths of settings Jev adds to the file (remembered in the ledger,
            :class:`jev.hosts.config_edit.Ledger`, when the plan is applied).
        removed: key paths of settings Jev takes back (forgotten by the ledger).
        notes: lines for the user about settings Jev left alone.
    """

    host: str
    scope: str
    path: Path
    before: str | None
    after: str
    changes: tuple[str, ...]
    added: tuple[tuple[str, ...], ...] = ()
    removed: tuple[tuple[str, ...], ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def changed(self) -> bool:
        """True when writing the plan would change the file."""
        return bool(self.changes)

    def diff(self) -> str:
        """Unified diff from the current file to the planned one ("" when unchanged)."""
        if not self.changed:
            return ""
        old = (self.before or "").splitlines(keepends=True)
        new = self.after.splitlines(keepends=True)
        label = str(self.path)
        return "".join(
            difflib.unified_diff(
                old,
                new,
                fromfile=label if self.before is not None else "/dev/null",
                tofile=label,
            )
        )


# ------------------------------------------------------------------ paths and commands


def config_path(host: str, scope: str, project_dir: Path | None = None) -> Path:
    """The hook configuration file of ``host`` at ``scope`` (from the host's adapter).

    Args:
        host: a host with an installer (:func:`installable_hosts`).
        scope: one of the installer's scopes.
        project_dir: the project root for project scopes (default: :func:`project_root`).

    Raises:
        UsageError: unknown host or a scope the host does not have; no project found
            for ``project``/``local`` (:func:`project_root`).
    """
    installer = _installer(host)
    if scope not in installer.scopes:
        raise UsageError(
            f"scope {scope!r} is not available for {host}; use one of: "
            f"{', '.join(installer.scopes)}"
        )
    if project_dir is not None and not Path(project_dir).is_dir():
        raise UsageError(f"--project-dir {project_dir}: no such folder; give the project's root")
    if project_dir is not None:
        project = Path(project_dir).absolute()
    elif scope == "user":
        project = Path.cwd().absolute()  # a user-scope file does not depend on it
    else:
        found = find_project_root()
        if found is None:
            raise UsageError(_NO_PROJECT.format(here=Path.cwd().absolute()))
        project = found
    return installer.config_path(scope, project)


#: Folders that mark a project root for ``project``/``local`` installs.
PROJECT_MARKERS = (".git", ".claude", ".codex")


_NO_PROJECT = (
    "no project found at {here} or above it (below your home folder): none of "
    ".git, .claude or .codex exists there. Pass --project-dir DIR, or use "
    "--scope user to install for every project."
)


def find_project_root(start: Path | None = None) -> Path | None:
    """The nearest folder from ``start`` (default: the cwd) upwards that holds
    ``.git``, ``.claude`` or ``.codex``, searched only below ``$HOME`` (issue 10 item
    6): the home folder holds the user-wide ``~/.claude``, so a project scope there
    would edit the user's global settings. ``None`` when there is none."""
    here = (start or Path.cwd()).absolute()
    home = Path.home().absolute()
    for folder in (here, *here.parents):
        if folder == home or folder in home.parents:
            break
        if any((folder / marker).exists() for marker in PROJECT_MARKERS):
            return folder
    return None


def project_root(start: Path | None = None) -> Path:
    """The project folder for reports (:func:`find_project_root`, else the cwd).

    Installs never fall back to the cwd: :func:`config_path` refuses a project scope
    without a project (``UsageError`` naming ``--project-dir`` and ``--scope user``).
    """
    return find_project_root(start) or (start or Path.cwd()).absolute()


_LOCAL_IGNORE = ".claude/settings.local.json"
_IGNORED_BY = frozenset(
    {
        _LOCAL_IGNORE,
        "/" + _LOCAL_IGNORE,
        "settings.local.json",
        "**/settings.local.json",
        ".claude",
        ".claude/",
        "/.claude",
        "/.claude/",
        ".claude/*",
    }
)


def ignore_local_settings(project: Path, *, dry_run: bool = False) -> str:
    """Make git ignore ``.claude/settings.local.json`` (a ``local`` install creates it).

    Claude Code keeps personal settings in that file and expects git to ignore it; Jev
    adds the line to ``<project>/.gitignore`` (created if missing) unless a line there
    already covers it. Nothing is written with ``dry_run`` or outside a git repository.

    Returns:
        One line for the user saying what was done, or why nothing was.

    Raises:
        UsageError: ``.gitignore`` cannot be read or written.
    """
    gitignore = project / ".gitignore"
    if not (project / ".git").exists():
        return f"note: {project} is not a git repository; .gitignore was not changed."
    try:
        text = gitignore.read_text(encoding="utf-8") if gitignore.exists() else ""
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read {gitignore}: {exc}; add {_LOCAL_IGNORE} by hand.") from None
    if any(line.strip() in _IGNORED_BY for line in text.splitlines()):
        return f"{gitignore} already ignores {_LOCAL_IGNORE}."
    if dry_run:
        return f"dry run: would add {_LOCAL_IGNORE} to {gitignore}."
    sep = "" if not text or text.endswith("\n") else "\n"
    try:
        with gitignore.open("a", encoding="utf-8") as handle:
            handle.write(f"{sep}{_LOCAL_IGNORE}\n")
    except OSError as exc:
        raise UsageError(
            f"cannot write {gitignore}: {exc.strerror or exc}; add {_LOCAL_IGNORE} by hand."
        ) from None
    return f"added {_LOCAL_IGNORE} to {gitignore}."


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


def hook_timeout_s(profile: str | None = None) -> int:
    """The Stop handler's timeout in whole seconds for the profile's judge settings.

    ``timeout_s × (technical_retries + 1)`` (every judge call may take its full time)
    plus one capped ``Retry-After`` wait per retry (:data:`jev.attempts.MAX_RETRY_WAIT_S`)
    plus :data:`TIMEOUT_MARGIN_S`. With the shipped defaults (60 s, 1 retry): 210 s.

    Raises:
        jev.errors.SettingsError: the profile file is invalid.
    """
    from jev.attempts import MAX_RETRY_WAIT_S
    from jev.settings import load_settings

    judge = load_settings(profile).judge
    retries = judge.technical_retries
    total = judge.timeout_s * (retries + 1) + MAX_RETRY_WAIT_S * retries + TIMEOUT_MARGIN_S
    return math.ceil(total)


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


def _layout(installer: Installer) -> str:
    """``grouped`` (event → matcher groups → handlers, the default) or ``flat`` (event →
    handlers: Cursor, Copilot CLI), from the installer's optional ``layout``."""
    return str(getattr(installer, "layout", "grouped"))


def _merge_flat(
    handlers: list[Any], name: str, handler: dict[str, Any]
) -> tuple[list[Any], list[str]]:
    """Like :func:`_merge_event` for the flat layout (handlers directly under the event)."""
    result: list[Any] = []
    placed = False
    what: list[str] = []
    for existing in handlers:
        if is_jev_handler(existing, (name,)):
            if placed:
                what.append("removed a duplicate")
                continue
            merged = {**existing, **handler}
            if merged != existing:
                what.append("updated")
            result.append(merged)
            placed = True
        else:
            result.append(existing)
    if not placed:
        result.append(handler)
        what.append("added")
    return result, what


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


# ------------------------------------------------------------------ reading and writing


def _read(path: Path) -> tuple[str | None, dict[str, Any]]:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None, {}
    except OSError as exc:
        raise UsageError(
            f"cannot read {path}: {exc.strerror or exc}; nothing was written."
        ) from None
    try:
        text = safejson.decode_utf8(raw)
        if not text.strip():
            return text, {}
        data = safejson.loads(text)
    except safejson.JsonInputError as exc:
        raise UsageError(
            f"{safejson.describe(str(path), exc)}; nothing was written. Fix the file (or "
            "move it away) and run the command again."
        ) from None
    if not isinstance(data, dict):
        raise UsageError(
            f"{path} holds JSON but not an object at the top level; nothing was written. "
            "Fix the file and run the command again."
        )
    return text, data


def _indent_of(text: str | None) -> int | str:
    if text:
        for line in text.splitlines()[1:]:
            stripped = line.lstrip(" \t")
            if stripped and stripped != line:
                lead = line[: len(line) - len(stripped)]
                return "\t" if lead.startswith("\t") else max(1, min(len(lead), 8))
    return 2


def _dump(data: Mapping[str, Any], like: str | None) -> str:
    return json.dumps(data, indent=_indent_of(like), ensure_ascii=False) + "\n"


def _hooks_table(path: Path, data: dict[str, Any]) -> dict[str, Any]:
    hooks = data.get("hooks")
    if hooks is None:
        return {}
    if not isinstance(hooks, dict):
        raise UsageError(
            f'{path}: "hooks" is not an object; nothing was written. Fix the file and run '
            "the command again."
        )
    return hooks


def _groups(path: Path, hooks: Mapping[str, Any], event: str) -> list[Any]:
    groups = hooks.get(event, [])
    if not isinstance(groups, list):
        raise UsageError(
            f'{path}: "hooks.{event}" is not a list; nothing was written. Fix the file and '
            "run the command again."
        )
    return groups


def _merge_event(
    groups: list[Any], name: str, handler: dict[str, Any]
) -> tuple[list[Any], list[str]]:
    """Put ``handler`` into ``groups`` (in place of an existing Jev handler of ``name``).

    Returns the new groups and what was done (``added``/``updated``/``removed a
    duplicate``; empty when nothing changed).
    """
    result: list[Any] = []
    placed = False
    what: list[str] = []
    for group in groups:
        if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
            result.append(group)
            continue
        kept: list[Any] = []
        had_ours = False
        for existing in group["hooks"]:
            if is_jev_handler(existing, (name,)):
                had_ours = True
                if placed:
                    what.append("removed a duplicate")
                    continue
                merged = {**existing, **handler}
                if "args" not in handler:
                    merged.pop("args", None)  # exec form back to shell form
                if merged != existing:
                    what.append("updated")
                kept.append(merged)
                placed = True
            else:
                kept.append(existing)
        if had_ours and not kept:
            continue  # a group that only held duplicates of ours
        result.append({**group, "hooks": kept} if had_ours else group)
    if not placed:
        result.append({"hooks": [handler]})
        what.append("added")
    return result, what


def plan_install(
    host: str,
    scope: str,
    *,
    profile: str | None = None,
    project_dir: Path | None = None,
    todo_tools: bool = True,
) -> InstallPlan:
    """Compute the change of the hook configuration file that installs Jev for ``host``.

    The host's installer names the handlers (Claude Code: ``Stop`` and
    ``SessionStart``; Codex: ``Stop``); the Stop timeout is :func:`hook_timeout_s`.
    With ``todo_tools``, the host's Todo-tool settings that live in the same file are
    added too (Claude Code: ``env.CLAUDE_CODE_ENABLE_TODO_TOOLS``); those in other files
    are planned by :func:`plan_install_all`.

    Raises:
        UsageError: unknown host/scope, unreadable or invalid JSON file, a ``hooks``
            value of the wrong type, or no ``jev`` executable.
        jev.errors.SettingsError: the profile is invalid.
    """
    path = config_path(host, scope, project_dir)
    before, data = _read(path)
    hooks = dict(_hooks_table(path, data))
    timeout = hook_timeout_s(profile)
    changes: list[str] = []
    installer = _installer(host)
    exe = jev_executable()
    merge = _merge_flat if _layout(installer) == "flat" else _merge_event
    for event, name in installer.entries:
        handler = installer.handler(event, name, exe, profile, timeout)
        groups, done = merge(_groups(path, hooks, event), name, handler)
        hooks[event] = groups
        changes += [f"{what} {event} hook: {handler_command(handler)}" for what in done]
    new = copy.deepcopy(data)
    version = getattr(installer, "version", None)
    if isinstance(version, int) and "version" not in new:
        new = {"version": version, **new}  # flat hook files carry a schema version
        changes.append(f"set version: {version}")
    new["hooks"] = hooks
    added: list[tuple[str, ...]] = []
    notes: list[str] = []
    if todo_tools:
        for setting in todo_settings(host, scope, project_dir):
            if setting.path != path:
                continue
            status = json_set(path, new, setting.keys, setting.value)
            note_setting(setting, status, changes, added, notes)
    if new == data:
        return InstallPlan(host, scope, path, before, before or "", (), notes=tuple(notes))
    return InstallPlan(
        host,
        scope,
        path,
        before,
        _dump(new, before),
        tuple(changes),
        added=tuple(added),
        notes=tuple(notes),
    )


def todo_settings(host: str, scope: str, project_dir: Path | None) -> tuple[ConfigSetting, ...]:
    """The Todo-tool settings of ``host`` at ``scope`` (its installer's list).

    Raises:
        UsageError: a host without an installer.
    """
    project = (Path(project_dir) if project_dir is not None else project_root()).absolute()
    return _installer(host).todo_tool_settings(scope, project)


def plan_uninstall(host: str, scope: str, *, project_dir: Path | None = None) -> InstallPlan:
    """Compute the change that removes every Jev handler of ``host`` at ``scope``, and
    the settings in the same file that Jev added (per the ledger, and only while they
    still hold Jev's value).

    Matcher groups left empty by the removal are dropped, then events left empty, then
    a ``hooks`` object left empty; nothing else changes. Idempotent.

    Raises:
        UsageError: as :func:`plan_install` (except the executable lookup).
    """
    path = config_path(host, scope, project_dir)
    before, data = _read(path)
    hooks = _hooks_table(path, data) if "hooks" in data else {}
    names = tuple(name for _, name in _installer(host).entries)
    new_hooks: dict[str, Any] = {}
    changes: list[str] = []
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            new_hooks[event] = groups
            continue
        new_groups: list[Any] = []
        touched = False
        for group in groups:
            if is_jev_handler(group, names):  # flat layout: the handler itself
                touched = True
                changes.append(f"removed {event} hook: {handler_command(group)}")
                continue
            if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
                new_groups.append(group)
                continue
            kept = [h for h in group["hooks"] if not is_jev_handler(h, names)]
            if len(kept) == len(group["hooks"]):
                new_groups.append(group)
                continue
            touched = True
            for removed in group["hooks"]:
                if is_jev_handler(removed, names):
                    changes.append(f"removed {event} hook: {handler_command(removed)}")
            if kept:
                new_groups.append({**group, "hooks": kept})
        if new_groups or not touched:
            new_hooks[event] = new_groups
    new = copy.deepcopy(data)
    if new_hooks:
        new["hooks"] = new_hooks
    else:
        new.pop("hooks", None)
    owned = Ledger().owned(path)
    dropped: list[tuple[str, ...]] = []
    for setting in todo_settings(host, scope, project_dir):
        if setting.path == path and setting.keys in owned:
            dropped.append(setting.keys)
            if json_unset(new, setting.keys, setting.value):
                changes.append(f"removed {show_setting(setting)}")
    if not changes and not dropped:
        return InstallPlan(host, scope, path, before, before or "", ())
    if not changes:
        return InstallPlan(
            host,
            scope,
            path,
            before,
            before or "",
            ("forgot a setting no longer set",),
            removed=tuple(dropped),
        )
    return InstallPlan(
        host, scope, path, before, _dump(new, before), tuple(changes), removed=tuple(dropped)
    )


def _backup_path(path: Path) -> Path:
    stamp = time.strftime("%Y%m%dT%H%M%S")
    candidate = path.with_name(f"{path.name}.jev-backup-{stamp}")
    counter = 1
    while candidate.exists():
        candidate = path.with_name(f"{path.name}.jev-backup-{stamp}-{counter}")
        counter += 1
    return candidate


def apply_plan(plan: InstallPlan) -> Path | None:
    """Write a plan: backup of the old file (if any), then an atomic replace.

    Returns the backup's path, or ``None`` (no previous file, or nothing to change —
    then nothing at all is written).

    Raises:
        UsageError: the file changed on disk since the plan was made, or it cannot be
            written (message names the path; the old file stays intact).
    """
    if not plan.changed:
        return None
    if plan.after == (plan.before or ""):
        Ledger().update(plan.path, list(plan.added), list(plan.removed))
        return None
    path = plan.path
    try:
        current: str | None = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        current = None
    except OSError as exc:
        raise UsageError(
            f"cannot read {path}: {exc.strerror or exc}; nothing was written."
        ) from None
    if current != plan.before:
        raise UsageError(
            f"{path} changed while Jev was preparing its edit; nothing was written. "
            "Run the command again."
        )
    backup: Path | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if current is not None:
            backup = _backup_path(path)
            shutil.copy2(path, backup)
        write_atomic(path, plan.after.encode("utf-8"))
    except OSError as exc:
        raise UsageError(
            f"cannot write {path}: {exc.strerror or exc}; the previous file is unchanged."
        ) from None
    try:
        Ledger().update(plan.path, list(plan.added), list(plan.removed))
    except OSError as exc:
        raise UsageError(
            f"{path} was written, but Jev could not remember what it added "
            f"({exc.strerror or exc}); `jev uninstall` will leave those settings in place."
        ) from None
    return backup
