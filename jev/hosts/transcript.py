"""Turns read from files: format detection and dispatch to the readers.

:class:`Turn` and what the readers share live in :mod:`jev.hosts.turns` (re-exported
here).

Jev reads a turn's material (SPEC §3) from these kinds of file:

* ``turn``: the generic turn JSON (``schemas/turn.schema.json``, :mod:`jev.hosts.turnfile`);
* ``claude-code``: a Claude Code session transcript (JSONL, :mod:`jev.hosts.claude_code`);
* ``codex``: a Codex CLI rollout (JSONL, :mod:`jev.hosts.codex`);
* ``gemini``: a Gemini CLI chat (JSONL record stream or legacy ``.json``,
  :mod:`jev.hosts.gemini_transcript`);
* ``cursor``: a Cursor agent transcript (JSONL, :mod:`jev.hosts.cursor_transcript`);
* ``copilot``: a GitHub Copilot CLI ``events.jsonl`` (:mod:`jev.hosts.copilot_transcript`);
* ``qwen``: a Qwen Code session (JSONL, :mod:`jev.hosts.qwen_transcript`);
* ``droid``: a Factory Droid session (JSONL, :mod:`jev.hosts.droid_transcript`).

Stdlib only: the Stop hook imports this module on its fast path (common brief).
The readers are imported lazily inside the functions so that a hook for one host
never pays for the other readers.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from jev.errors import UsageError
from jev.hosts.turns import (
    REASON_INTERRUPT,
    REASON_NO_OPENING,
    REASON_NO_TODO,
    LineStats,
    Turn,
    iter_records,
    iter_records_backward,
    no_turn_error,
)

__all__ = [
    "FORMATS",
    "REASON_INTERRUPT",
    "REASON_NO_OPENING",
    "REASON_NO_TODO",
    "LineStats",
    "Turn",
    "TurnFormat",
    "detect_format",
    "iter_records",
    "iter_records_backward",
    "no_turn_error",
    "read_current_turn",
    "read_turns",
]

TurnFormat = Literal["turn", "claude-code", "codex", "gemini", "cursor", "copilot", "qwen", "droid"]
#: The file formats Jev reads turns from.
FORMATS: tuple[str, ...] = (
    "turn",
    "claude-code",
    "codex",
    "gemini",
    "cursor",
    "copilot",
    "qwen",
    "droid",
)
#: Readers of the formats beyond the generic/Claude Code/Codex ones: module path.
_OTHER_READERS: dict[str, str] = {
    "gemini": "jev.hosts.gemini_transcript",
    "cursor": "jev.hosts.cursor_transcript",
    "copilot": "jev.hosts.copilot_transcript",
    "qwen": "jev.hosts.qwen_transcript",
    "droid": "jev.hosts.droid_transcript",
}

#: Bytes read from the head of a file to sniff its format.
_SNIFF_BYTES = 1 << 16
#: Largest whole-file JSON document tried as a generic turn file while sniffing (bytes).
_SNIFF_WHOLE_MAX = 64 << 20

_CODEX_TYPES = frozenset(
    {"session_meta", "response_item", "event_msg", "turn_context", "compacted"}
)
_CLAUDE_TYPES = frozenset(
    {
        "user",
        "assistant",
        "system",
        "summary",
        "file-history-snapshot",
        "queue-operation",
        "progress",
        "attachment",
        "pr-link",
        "agent-name",
        "custom-title",
        "last-prompt",
        "permission-mode",
        "ai-title",
        "agent-setting",
        "bridge-session",
        "worktree-state",
    }
)


def _check_path(path: Path) -> None:
    if not path.exists():
        raise UsageError(f"{path}: no such file; pass the path of a turn file or transcript.")
    if not path.is_file():
        raise UsageError(f"{path}: not a regular file; pass the path of a turn file or transcript.")


def detect_format(path: str | Path) -> TurnFormat:
    """Tell which of :data:`FORMATS` a file is, by sniffing its first lines.

    A first JSON line with ``type`` in the Codex rollout item types and a
    ``payload`` is ``codex`` (HOSTS.md §3.1); one with a Claude Code record type,
    ``sessionId`` or ``uuid`` is ``claude-code`` (HOSTS.md §2.2); a whole-file JSON
    object with ``request`` is ``turn``.

    Raises:
        UsageError: the file is missing, unreadable, empty or of no known format.
    """
    path = Path(path)
    _check_path(path)
    try:
        with path.open("rb") as handle:
            head = handle.read(_SNIFF_BYTES)
            size = handle.seek(0, 2)
    except OSError as exc:
        raise UsageError(f"{path}: cannot be read ({exc.strerror}).") from None
    if not head.strip():
        raise UsageError(f"{path}: the file is empty; there is no turn to read.")
    head = head.removeprefix(b"\xef\xbb\xbf")
    if head.lstrip().startswith((b"user:", b"assistant:")):
        return "cursor"  # the older Cursor .txt transcript (its reader says so)
    for raw in head.splitlines()[:20]:
        try:
            rec = json.loads(raw.decode("utf-8", errors="replace"))
        except (ValueError, RecursionError):
            continue
        if not isinstance(rec, dict):
            continue
        found = _sniff_other(rec)
        if found is not None:
            return found
        rtype = rec.get("type")
        if rtype in _CODEX_TYPES and "payload" in rec:
            return "codex"
        if rtype in _CLAUDE_TYPES or "sessionId" in rec or "parentUuid" in rec:
            return "claude-code"
        if "request" in rec:
            return "turn"
    if size <= _SNIFF_WHOLE_MAX:
        try:
            doc = json.loads(path.read_bytes().decode("utf-8", errors="replace"))
        except (ValueError, RecursionError, OSError):
            doc = None
        if isinstance(doc, dict) and "request" in doc:
            return "turn"
        if isinstance(doc, dict) and "projectHash" in doc and "messages" in doc:
            return "gemini"
    raise UsageError(
        f"{path}: cannot tell the format (not a Jev turn file or a transcript of "
        f"{', '.join(FORMATS[1:])}); pass the format explicitly."
    )


def _sniff_other(rec: dict[str, object]) -> TurnFormat | None:
    """The format of one JSONL record of the newer hosts, or ``None`` (HOSTS.md §4, §5)."""
    rtype = rec.get("type")
    if isinstance(rtype, str) and "." in rtype and isinstance(rec.get("data"), dict):
        return "copilot"  # events.jsonl: {type: "session.start", data: {…}}
    if "projectHash" in rec or "$rewindTo" in rec or "$set" in rec:
        return "gemini"
    if rtype in ("user", "gemini") and "id" in rec and "uuid" not in rec and "content" in rec:
        return "gemini"
    message = rec.get("message")
    if (
        "systemPayload" in rec
        or rtype == "tool_result"
        or (isinstance(message, dict) and isinstance(message.get("parts"), list))
    ):
        return "qwen"
    if rtype in ("session_start", "message") and "uuid" not in rec:
        return "droid"
    if rtype == "turn_ended" or (rtype is None and "role" in rec and isinstance(message, dict)):
        return "cursor"
    return None


def _resolve(path: Path, fmt: str) -> str:
    if fmt == "auto":
        return detect_format(path)
    if fmt not in FORMATS:
        raise UsageError(f"unknown turn format {fmt!r}; use one of auto, {', '.join(FORMATS)}.")
    _check_path(path)
    return fmt


def read_turns(path: str | Path, fmt: str = "auto") -> list[Turn]:
    """Read every turn of a file, in order (numbers 1, 2, …).

    Args:
        path: the file.
        fmt: ``auto`` (sniff with :func:`detect_format`) or one of :data:`FORMATS`.

    Returns:
        The turns; an empty list for a transcript without any turn yet. A generic
        turn file yields exactly one turn.

    Raises:
        UsageError: missing/unreadable file, unknown format, invalid turn file.
    """
    path = Path(path)
    kind = _resolve(path, fmt)
    if kind == "turn":
        from jev.hosts.turnfile import read_turn_file

        return [read_turn_file(path)]
    if kind == "claude-code":
        from jev.hosts.claude_code import read_turns as read_claude_turns

        return read_claude_turns(path)
    if kind in _OTHER_READERS:
        return list(_reader(kind).read_turns(path))
    from jev.hosts.codex import read_turns as read_codex_turns

    return read_codex_turns(path)


def _reader(kind: str) -> Any:
    import importlib

    return importlib.import_module(_OTHER_READERS[kind])


def read_current_turn(
    path: str | Path, fmt: str = "auto", *, last_assistant_message: str | None = None
) -> Turn:
    """Read the current (last) turn of a file, the Stop hook's question.

    Transcripts are read backwards from the end only as far as the current turn's
    opening record, so the cost follows the turn, not the file (see the readers for
    the documented exceptions). The result equals the last element of
    :func:`read_turns` except that ``number`` is ``0`` (not counted).

    Args:
        path: the file.
        fmt: ``auto`` or one of :data:`FORMATS`.
        last_assistant_message: the final answer the host passed to its Stop hook
            (HOSTS.md §1.3, §3.3); preferred over the transcript, which may lag.

    Raises:
        UsageError: missing/unreadable file, unknown format, invalid turn file.
        MaterialMissing: the file holds no turn at all.
    """
    path = Path(path)
    kind = _resolve(path, fmt)
    if kind == "turn":
        from jev.hosts.turnfile import read_turn_file

        turn = read_turn_file(path)
    elif kind == "claude-code":
        from jev.hosts.claude_code import read_current_turn as read_claude_current

        turn = read_claude_current(path)
    elif kind in _OTHER_READERS:
        turn = _reader(kind).read_current_turn(path)
    else:
        from jev.hosts.codex import read_current_turn as read_codex_current

        turn = read_codex_current(path)
    if last_assistant_message is not None and turn.material is not None:
        from dataclasses import replace

        turn = replace(turn, material=replace(turn.material, final_answer=last_assistant_message))
    return turn
