"""Claude Code facts measured in the real CLI (2.1.328; hosts.md (Claude Code)): the
Stop block cap, how the Todo tools are offered, the row of blocks at the end of a turn,
the settings files, the newest session and the installed plugin.

Stdlib only at import time (the adapter imports this module on the hook's fast path).
"""

from __future__ import annotations

import json
import os

from jev.hosts.backread import LineTooLong, lines_backward
from jev.hosts.ccformat.records import classify_user

TYPE_CHECKING = False  # no ``typing`` import on the fast path
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping
    from pathlib import Path
    from typing import Any

__all__ = [
    "BLOCK_CAP_ENV",
    "DEFAULT_BLOCK_CAP",
    "block_cap",
    "blocks_in_a_row",
    "is_jev",
    "newest_session",
    "plugin_hooks",
    "settings_env",
    "settings_file",
    "todo_offer",
]

#: A line longer than this (bytes) is not read.
_MAX_LINE = 4 << 20

#: The host's limit of Stop blocks in a row (2.1.328 names it in its override message).
BLOCK_CAP_ENV = "CLAUDE_CODE_STOP_HOOK_BLOCK_CAP"
#: Blocks in a row the host delivers when :data:`BLOCK_CAP_ENV` is unset (measured, 2.1.328).
DEFAULT_BLOCK_CAP = 8
_OFF = frozenset({"0", "false", "no", "off"})


def block_cap(env: Mapping[str, str]) -> int:
    """Stop blocks in a row Claude Code delivers: :data:`BLOCK_CAP_ENV` when it is a
    positive integer, else :data:`DEFAULT_BLOCK_CAP`. Measured on 2.1.328: 8 blocks in
    a row reach the model, the 9th is overridden ("A hook blocked the turn from ending
    9 consecutive times—overriding and ending turn"); a tool call in between resets
    the count (hosts.md (Claude Code))."""
    raw = str(env.get(BLOCK_CAP_ENV, "")).strip()
    return int(raw) if raw.isdigit() and int(raw) > 0 else DEFAULT_BLOCK_CAP


def todo_offer(env: Mapping[str, str]) -> tuple[str, str]:
    """``(Todo tool names, ToolSearch query)`` the host offers under ``env``.

    On 2.1.328 the tools are ``TaskCreate``/``TaskUpdate`` (``TodoWrite`` with
    ``CLAUDE_CODE_ENABLE_TASKS=0``) and come only as *deferred* tools, loaded with
    ``ToolSearch`` ``select:…``; ``ENABLE_TOOL_SEARCH=false`` makes them top-level
    (query ""). Measured in the real CLI (hosts.md (Claude Code))."""
    tasks_off = str(env.get("CLAUDE_CODE_ENABLE_TASKS", "")).strip().lower() in _OFF
    names = ("TodoWrite",) if tasks_off else ("TaskCreate", "TaskUpdate")
    search_off = str(env.get("ENABLE_TOOL_SEARCH", "")).strip().lower() in _OFF
    return "/".join(names), "" if search_off else "select:" + ",".join(names)


def settings_file(path: Path) -> dict[str, Any]:
    """The JSON object of a settings file ({} when missing or unreadable)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def settings_env(path: Path) -> dict[str, str]:
    """The ``env`` block of the settings file ``path``, values as strings ({} if none)."""
    env = settings_file(path).get("env")
    return {str(k): str(v) for k, v in env.items()} if isinstance(env, dict) else {}


#: A line without any of these cannot end or extend a row of Stop blocks.
_ROW_MARKERS = (b"stop_hook_summary", b"tool_use", b'"user"')


def blocks_in_a_row(path: str) -> tuple[int, bool]:
    """``(blocks, foreign)``: the Stop blocks the host delivered in a row at the end of
    the current turn, and whether any of them came from a hook other than Jev's (its
    text does not start with Jev's ``[Jev`` header). Read backwards to the last typed
    prompt: one per ``stop_hook_summary`` with ``hookAdditionalContext`` and one per
    "Stop hook feedback" user record, up to the newest assistant tool call (which
    resets the host's count). ``(0, False)`` on any read error."""
    count, foreign = 0, False
    try:
        start = os.path.getsize(path) - _MAX_LINE
        for offset, raw in lines_backward(path, max_line=_MAX_LINE):
            if offset < start:
                break
            if not any(marker in raw for marker in _ROW_MARKERS):
                continue
            try:
                rec = json.loads(raw)
            except ValueError:
                continue
            if not isinstance(rec, dict) or rec.get("isSidechain") is True:
                continue
            kind = rec.get("type")
            message = rec.get("message")
            blocks = message.get("content") if isinstance(message, dict) else None
            if kind == "system" and rec.get("subtype") == "stop_hook_summary":
                contexts = rec.get("hookAdditionalContext")
                if isinstance(contexts, list) and contexts:
                    count += 1
                    foreign = foreign or any(not is_jev(str(c)) for c in contexts)
            elif kind == "assistant" and any(
                isinstance(b, dict) and b.get("type") == "tool_use" for b in blocks or ()
            ):
                break
            elif kind == "user":
                what, _ = classify_user(rec)
                if what == "prompt":
                    break
                text = blocks if isinstance(blocks, str) else ""
                if isinstance(blocks, list):
                    text = " ".join(str(b.get("text", "")) for b in blocks if isinstance(b, dict))
                if text.lstrip().startswith("Stop hook feedback"):
                    count += 1
                    reason = text.lstrip()[len("Stop hook feedback") :].lstrip(":").strip()
                    foreign = foreign or not is_jev(reason)
    except (OSError, LineTooLong):
        return 0, False
    return count, foreign


def is_jev(text: str) -> bool:
    """True for a supplement Jev wrote (its header starts ``[Jev``, en and zh)."""
    return text.lstrip().startswith("[Jev")


def newest_session(config_dir: Path) -> Path | None:
    """The newest ``<session>.jsonl`` under ``<config_dir>/projects`` (one folder per
    project; ``subagents/`` files lie deeper and are skipped), or None when there is
    none."""
    # lazy: the generic glob-by-mtime helper (adapter_kit loads the base protocol)
    from jev.hosts.adapter_kit import newest_file

    return newest_file(config_dir / "projects", "*/*.jsonl")


def plugin_hooks(config_dir: Path, settings: Iterable[Path]) -> Path | None:
    """The ``hooks/hooks.json`` of the Jev plugin when it is installed and enabled
    (``claude plugin install jev@<marketplace>``: ``enabledPlugins`` in one of the
    ``settings`` files, the install path in ``<config_dir>/plugins/installed_plugins.json``),
    else None."""
    # lazy: Path is needed at run time here only (TYPE_CHECKING import above)
    from pathlib import Path

    enabled: set[str] = set()
    for path in settings:
        plugins = settings_file(path).get("enabledPlugins")
        if isinstance(plugins, dict):
            enabled |= {str(k) for k, v in plugins.items() if v is True}
    entries = settings_file(config_dir / "plugins" / "installed_plugins.json").get("plugins")
    for key, copies in (entries if isinstance(entries, dict) else {}).items():
        if not str(key).startswith("jev@") or key not in enabled:
            continue
        for copy in copies if isinstance(copies, list) else ():
            where = copy.get("installPath") if isinstance(copy, dict) else None
            hooks = Path(str(where)) / "hooks" / "hooks.json" if where else None
            if hooks is not None and hooks.is_file():
                return hooks
    return None
