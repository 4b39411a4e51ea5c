"""Codex hook trust and the newest rollout, for ``jev doctor`` (hosts.md (Codex CLI);
issue 19 item 4).

Not on the hook's fast path (only :class:`jev.hosts.codex.adapter.CodexInstaller`'s
doctor methods import it), but stdlib only all the same.

**Trust** (measured with the real Codex 0.169.0 and read in ``openai/codex``
``codex-rs/hooks/src/engine/discovery.rs`` ``command_hook_hash`` and
``codex-rs/config/src/fingerprint.rs`` ``version_for_toml``): Codex runs a hook of
``hooks.json`` only when the user ``config.toml`` holds
``[hooks.state."<hooks.json path>:<event>:<group index>:<handler index>"]`` with
``trusted_hash`` equal to the hook's current hash (``codex exec`` skips it silently
otherwise), and ``enabled`` is not ``false``. The hash is ``"sha256:" +`` the hex
SHA-256 of the compact, key-sorted JSON of ``{"event_name": "stop", "hooks":
[<handler>]}`` (plus ``matcher`` when the event has one; Stop has none), where the
handler is normalised: ``type`` ``command``, ``command``, ``timeout`` (seconds,
default 600, at least 1), ``async`` (default false), and ``statusMessage`` only when
set. A project-scope ``hooks.json`` is loaded only in a trusted project
(``[projects."<path>"] trust_level = "trusted"``).
"""

from __future__ import annotations

import hashlib
import json
import os
import tomllib
from pathlib import Path
from typing import Any

from jev.hosts.hook_commands import is_jev_handler

__all__ = ["hook_trust_hash", "hook_trust_key", "newest_rollout", "trust_problems"]

#: Codex's ``hook_event_key_label`` of the Stop event.
_STOP_LABEL = "stop"
#: Codex's default hook timeout, seconds (``discovery.rs``).
_DEFAULT_TIMEOUT_S = 600


def hook_trust_hash(handler: dict[str, Any], event: str = _STOP_LABEL) -> str:
    """The ``trusted_hash`` Codex expects for ``handler`` (a ``hooks.json`` command
    handler object) of ``event`` (see the module docstring). Pure.

    Returns:
        ``"sha256:<64 hex digits>"``.
    """
    timeout = handler.get("timeout", handler.get("timeoutSec"))
    seconds = timeout if isinstance(timeout, int) and not isinstance(timeout, bool) else None
    normal: dict[str, Any] = {
        "type": "command",
        "command": str(handler.get("command", "")),
        "timeout": max(1, seconds if seconds is not None else _DEFAULT_TIMEOUT_S),
        "async": bool(handler.get("async", False)),
    }
    status = handler.get("statusMessage")
    if isinstance(status, str):
        normal["statusMessage"] = status
    identity = {"event_name": event, "hooks": [normal]}
    text = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def hook_trust_key(hooks_json: Path, group: int, index: int, event: str = _STOP_LABEL) -> str:
    """The ``[hooks.state]`` key of handler ``index`` of matcher group ``group``."""
    return f"{hooks_json}:{event}:{group}:{index}"


def _jev_stop_handlers(path: Path) -> list[tuple[int, int, dict[str, Any]]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    hooks = data.get("hooks") if isinstance(data, dict) else None
    groups = hooks.get("Stop") if isinstance(hooks, dict) else None
    found: list[tuple[int, int, dict[str, Any]]] = []
    for g, group in enumerate(groups if isinstance(groups, list) else ()):
        handlers = group.get("hooks") if isinstance(group, dict) else None
        for h, handler in enumerate(handlers if isinstance(handlers, list) else ()):
            if is_jev_handler(handler, ("codex",)):
                found.append((g, h, handler))
    return found


def _toml(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def _table(node: Any, *keys: str) -> dict[str, Any]:
    for key in keys:
        node = node.get(key) if isinstance(node, dict) else None
    return node if isinstance(node, dict) else {}


def trust_problems(scope: str, hooks_json: Path, user_hooks_json: Path) -> tuple[str, ...]:
    """What keeps Codex from running Jev's Stop hook in ``hooks_json`` (scope
    ``scope``), read from the user ``config.toml`` beside ``user_hooks_json``.

    Returns:
        One line per problem, each saying what to do: the hook is untrusted (no
        ``trusted_hash``), was changed since it was trusted (hash differs), is disabled
        (``enabled = false``), or, for ``project`` scope, the project is not trusted.
    """
    config_path = user_hooks_json.parent / "config.toml"
    config = _toml(config_path)
    absolute = Path(os.path.abspath(hooks_json))
    states = dict(_table(_toml(absolute.parent / "config.toml"), "hooks", "state"))
    states.update(_table(config, "hooks", "state"))  # the TUI writes the user file
    fix = (
        'start `codex` once and choose "Trust all and continue" on its "Hooks need '
        'review" screen (or trust it in /hooks), or run `codex exec '
        "--dangerously-bypass-hook-trust`"
    )
    out: list[str] = []
    for group, index, handler in _jev_stop_handlers(hooks_json):
        key = hook_trust_key(absolute, group, index)
        state = _table(states, key)
        trusted = state.get("trusted_hash")
        if state.get("enabled") is False:
            out.append(
                f"codex: Jev's Stop hook in {hooks_json} is disabled in Codex "
                f'(enabled = false under [hooks.state."{key}"] in {config_path}); '
                "enable it in /hooks in Codex"
            )
        elif not isinstance(trusted, str):
            out.append(
                f"codex: Jev's Stop hook in {hooks_json} is untrusted (no trusted_hash for "
                f"{key} in {config_path}), so Codex skips it and nothing is audited; {fix}"
            )
        elif trusted != hook_trust_hash(handler):
            out.append(
                f"codex: Jev's Stop hook in {hooks_json} changed since it was trusted, so it "
                f"is untrusted again (the trusted_hash in {config_path} is of an older "
                f"hook) and Codex skips it; {fix}"
            )
    if scope == "project" and _jev_stop_handlers(hooks_json):
        project = absolute.parent.parent
        level = _table(config, "projects", str(project)).get("trust_level")
        if level != "trusted":
            out.append(
                f"codex: the project {project} is not trusted in {config_path}, so Codex "
                f"does not load {hooks_json}; trust the folder when `codex` asks, or run "
                "`codex exec --trust …` once in it"
            )
    return tuple(out)


def newest_rollout(sessions: Path) -> Path | None:
    """The most recently written ``rollout-*.jsonl`` under ``sessions`` (any depth;
    Codex lays them out ``YYYY/MM/DD``), by modification time: a resumed session
    appends to its old file in an older day folder, so the folder names do not say
    which file Codex wrote last. ``None`` when there is none."""
    # lazy: the generic glob-by-mtime helper (adapter_kit loads the base protocol)
    from jev.hosts.adapter_kit import newest_file

    return newest_file(sessions, "**/rollout-*.jsonl")
