"""The Stop hook's fast path: prove, with almost no imports, that a stop needs nothing.

Most stops need no audit: Jev is disabled in the profile, the stop is a subagent's,
the session is in plan mode, or the agent did not use its Todo tool in this turn
(SPEC §2). For those the full hook (:mod:`jev.hosts.hook`) would print nothing and
exit 0; :func:`quick_skip` reaches the same answer while importing only ``os`` and
``json`` — no dataclasses, no settings parser, no transcript reader — so a hook on
such a turn costs about one interpreter start-up (``bench/hook_fast_path.py``).

It is conservative: it answers True only when it is certain the full hook would stay
silent, and False ("run the full hook") in every other case, including anything it
does not understand. The full hook re-decides from scratch, so a False costs time,
never correctness. Certainty rules:

* ``hook_event_name`` ``SubagentStop`` or an ``agent_id`` (subagent stops are never
  audited, SPEC §14; HOSTS.md §1.3);
* the profile's ``enabled`` is certainly false: the user's profile file, read as text,
  has a plain top-level ``enabled = false`` line, or has no ``enabled`` key and the
  shipped default has ``enabled = false`` (anything unusual → full path; a profile
  file broken elsewhere is then not reported by this stop);
* ``permission_mode`` ``plan`` (a plan awaiting approval is the user's call);
* Claude Code only: reading the transcript backwards from its end to the last real
  typed prompt (classified by :func:`jev.hosts.cc_records.classify_user`, the
  reader's own rule), no line names a Todo tool (``"TodoWrite"``, ``"TaskCreate"``,
  ``"TaskUpdate"``). A turn starts at or after the last typed prompt (slash-command
  expansions and notifications open turns only after it), so the current turn has no
  Todo use and would be skipped.
"""

from __future__ import annotations

import json
import os

from jev.hosts.cc_records import TODO_TOOLS, classify_user
from jev.paths import jev_home_str, profile_name_ok

__all__ = ["quick_skip"]

_MARKERS = tuple(f'"{name}"'.encode() for name in sorted(TODO_TOOLS))
_BLOCK = 1 << 16
_ABSENT = "absent"
#: A line longer than this (bytes) is left to the full reader.
_MAX_LINE = 4 << 20


def quick_skip(host: str, stdin_text: str, profile: str | None) -> bool:
    """True when the ``host`` stop described by ``stdin_text`` certainly needs nothing.

    Args:
        host: the hook name (``claude-code``, ``codex``, …); only Claude Code and Codex
            stops are considered, and only Claude Code transcripts are read.
        stdin_text: the hook JSON the host wrote to stdin.
        profile: ``--profile`` of the hook command, or ``None``.

    Returns:
        True: print nothing, exit 0. False: run the full hook. Never raises.
    """
    if host not in ("claude-code", "codex"):
        return False
    try:
        data = json.loads(stdin_text)
    except ValueError:
        return False
    if not isinstance(data, dict):
        return False
    event = data.get("hook_event_name")
    if not isinstance(event, str):
        return False
    agent_id = data.get("agent_id")
    if event.lower() == "subagentstop" or (isinstance(agent_id, str) and agent_id):
        return True
    if event.lower() != "stop":
        return False
    try:
        enabled = _profile_enabled(profile)
    except OSError:
        return False
    if enabled is False:
        return True
    if enabled is None:
        return False
    if data.get("permission_mode") == "plan":
        return True
    path = data.get("transcript_path")
    if host != "claude-code" or data.get("background_tasks") or not isinstance(path, str):
        return False
    try:
        return _no_todo_since_last_prompt(path)
    except OSError:
        return False


def _profile_enabled(profile: str | None) -> bool | None:
    """``enabled`` of the active profile when it is certain from the files, else None."""
    name = profile if profile is not None else (os.environ.get("JEV_PROFILE") or "default")
    if not profile_name_ok(name):
        return None
    user = _scan_enabled(os.path.join(jev_home_str(), "profiles", name + ".toml"))
    if user != _ABSENT:
        return user if isinstance(user, bool) else None
    here = os.path.dirname(os.path.abspath(__file__))
    for folder in (
        os.path.join(here, "..", "settings"),
        os.path.join(here, "..", "..", "settings"),
    ):
        shipped = _scan_enabled(os.path.join(folder, "default.toml"))
        if shipped != _ABSENT:
            return shipped if isinstance(shipped, bool) else None
    return None


def _scan_enabled(path: str) -> bool | str | None:
    """Top-level ``enabled`` of a TOML file read as text: True/False, ``"absent"``
    (no file, or no such key), or None when the text is not plainly one of those."""
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except FileNotFoundError:
        return _ABSENT
    except (OSError, UnicodeDecodeError):
        return None
    found: bool | None = None
    seen = False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("["):
            break  # tables begin: the top-level keys are over
        if "enabled" not in stripped or stripped.startswith("#"):
            continue
        key, sep, value = stripped.partition("=")
        value = value.split("#", 1)[0].strip()
        if seen or not sep or key.strip() != "enabled" or value not in ("true", "false"):
            return None
        seen, found = True, value == "true"
    return found if seen else _ABSENT


def _no_todo_since_last_prompt(path: str) -> bool:
    """True when no Todo-tool name appears after (and in) the last typed-prompt record."""
    with open(path, "rb") as handle:
        pos = handle.seek(0, 2)
        tail = b""  # start of the line that continues into the block read before
        while pos > 0:
            size = min(_BLOCK, pos)
            pos -= size
            handle.seek(pos)
            chunk = handle.read(size) + tail
            lines = chunk.split(b"\n")
            tail = lines[0] if pos > 0 else b""
            for raw in reversed(lines if pos == 0 else lines[1:]):
                verdict = _line_verdict(raw)
                if verdict is not None:
                    return verdict
            if len(tail) > _MAX_LINE:
                return False  # a pathological line: let the full reader deal with it
    return False  # no typed prompt at all: the full hook decides (material missing, …)


def _line_verdict(raw: bytes) -> bool | None:
    """False at a Todo-tool mention, True at a typed prompt, None to keep reading."""
    if any(marker in raw for marker in _MARKERS):
        return False
    if b'"user"' not in raw:
        return None
    try:
        rec = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(rec, dict) or rec.get("type") != "user" or rec.get("isSidechain") is True:
        return None
    kind, _ = classify_user(rec)
    return True if kind == "prompt" else None
