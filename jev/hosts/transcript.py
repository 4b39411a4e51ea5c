"""Turns read from files: format detection and dispatch to the readers.

:class:`Turn` and what the readers share live in :mod:`jev.hosts.turns` (re-exported
here).

Jev reads a turn's material (design.md §3) from these kinds of file:

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

import importlib
import json
from dataclasses import replace
from pathlib import Path
from typing import Any, BinaryIO, Literal

from jev.errors import UsageError
from jev.hosts.turns import (
    REASON_INTERRUPT,
    REASON_NO_OPENING,
    REASON_NO_TODO,
    REASON_RUNNING,
    LineStats,
    Turn,
    counting,
    iter_records,
    iter_records_backward,
    no_turn_error,
    scrubbed,
    skip_running,
)

__all__ = [
    "FORMATS",
    "REASON_INTERRUPT",
    "REASON_NO_OPENING",
    "REASON_NO_TODO",
    "REASON_RUNNING",
    "LineStats",
    "Turn",
    "TurnFormat",
    "detect_format",
    "iter_records",
    "iter_records_backward",
    "no_turn_error",
    "read_current_turn",
    "read_turns",
    "skip_running",
    "unrecognised_message",
    "where_read",
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

#: Lines read from the head of a file to sniff its format (each read whole).
_SNIFF_LINES = 20
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

    Up to 20 lines are read whole (a first line of 64 KiB or more is fine). A
    first JSON line with ``type`` in the Codex rollout item types and a
    ``payload`` is ``codex`` (hosts.md (Codex CLI)); one with a Claude Code record type,
    ``sessionId`` or ``uuid`` is ``claude-code`` (hosts.md (Claude Code)); a whole-file JSON
    object with ``request`` is ``turn``.

    Raises:
        UsageError: the file is missing, unreadable, empty or of no known format;
            the message says why (:func:`unrecognised_message`).
    """
    path = Path(path)
    _check_path(path)
    try:
        with path.open("rb") as handle:
            lines = _head_lines(handle)
            size = handle.seek(0, 2)
    except OSError as exc:
        raise UsageError(f"{path}: cannot be read ({exc.strerror}).") from None
    if not any(raw.strip() for raw in lines):
        raise UsageError(f"{path}: the file is empty; there is no turn to read.")
    lines[0] = lines[0].removeprefix(b"\xef\xbb\xbf")
    if b"".join(lines).lstrip().startswith((b"user:", b"assistant:")):
        return "cursor"  # the older Cursor .txt transcript (its reader says so)
    first_error: tuple[int, ValueError] | None = None
    first_kind = ""
    for lineno, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            rec = json.loads(raw.decode("utf-8", errors="replace"))
        except (ValueError, RecursionError) as exc:
            if first_error is None:
                first_error = (lineno, _too_deep(exc))
            continue
        if not isinstance(rec, dict):
            first_kind = first_kind or _json_kind(rec)
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
        first_kind = first_kind or "a JSON object without the fields of a known format"
    doc: object = None
    whole_error: ValueError | None = None
    if size <= _SNIFF_WHOLE_MAX:
        try:
            doc = json.loads(path.read_bytes().decode("utf-8", errors="replace"))
        except (ValueError, RecursionError) as exc:
            whole_error = _too_deep(exc)
        except OSError:
            doc = None
        if isinstance(doc, dict) and "request" in doc:
            return "turn"
        if isinstance(doc, dict) and "projectHash" in doc and "messages" in doc:
            return "gemini"
        if doc is not None:
            first_kind = _json_kind(doc)
    raise UsageError(unrecognised_message(path, first_error, first_kind, whole_error))


def _head_lines(handle: BinaryIO) -> list[bytes]:
    """The first :data:`_SNIFF_LINES` lines, whole, up to :data:`_SNIFF_WHOLE_MAX` bytes.

    Lines are read whole (a 64 KiB+ first line, e.g. a Codex ``session_meta`` with
    long instructions, must still be recognised); a line longer than the cap is
    returned cut, and fails to parse like any broken line.
    """
    lines: list[bytes] = []
    budget = _SNIFF_WHOLE_MAX
    while len(lines) < _SNIFF_LINES and budget > 0:
        raw = handle.readline(budget)
        if not raw:
            break
        budget -= len(raw)
        lines.append(raw)
    return lines


def _json_kind(value: object) -> str:
    if isinstance(value, list):
        return "a JSON array"
    if isinstance(value, dict):
        return "a JSON object without the fields of a known format"
    return f"a JSON {type(value).__name__ if value is not None else 'null'}"


def unrecognised_message(
    path: str | Path,
    line_error: tuple[int, ValueError] | None = None,
    kind: str = "",
    whole_error: ValueError | None = None,
) -> str:
    """The one message for a file Jev cannot read as a turn file or transcript.

    Shared so that every reader says the same thing (issue 10 item 5): it says *why*
    — which line and column is not JSON, or what the JSON is instead — and what to do.

    Args:
        path: the file as named to the user (``<stdin>`` for standard input).
        line_error: ``(1-based line, the JSON error)`` of the first line that is not JSON.
        kind: what the parsed JSON is when it is JSON of no known shape
            (e.g. "a JSON array").
        whole_error: the error of reading the whole file as one JSON document.
    """
    expected = f"a Jev turn file or a transcript of {', '.join(FORMATS[1:])}"
    if kind:
        why = f"it is {kind}, not {expected}"
    elif line_error is not None:
        lineno, exc = line_error
        detail = _json_error_text(exc)
        why = f"not valid JSON at line {lineno}{detail}"
        if lineno == 1 and whole_error is not None:
            why = f"not valid JSON at line {lineno}{_json_error_text(whole_error)}"
    else:
        why = f"not {expected}"
    return (
        f"{path}: cannot tell the format: {why}. Pass a turn file "
        "(schemas/turn.schema.json) or a session transcript; if it is one, name its "
        f"format with --from ({', '.join(FORMATS)})."
    )


def _too_deep(exc: ValueError | RecursionError) -> ValueError:
    """``exc`` as a ``ValueError`` (a JSON text nested too deep for the parser raises
    ``RecursionError``; the message then says so, issue 23)."""
    if isinstance(exc, ValueError):
        return exc
    return ValueError("nested too deeply to read; a turn file nests a few levels only")


def _json_error_text(exc: ValueError) -> str:
    if isinstance(exc, json.JSONDecodeError):
        return f" column {exc.colno} ({exc.msg})"
    return f" ({exc})"


def _sniff_other(rec: dict[str, object]) -> TurnFormat | None:
    """The format of one JSONL record of the newer hosts, or ``None`` (hosts.md)."""
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


def where_read(kind: str) -> str:
    """What a file of format ``kind`` is called in an input note: ``"the turn file"``,
    ``"the rollout"`` (Codex) or ``"the transcript"``."""
    return {"turn": "the turn file", "codex": "the rollout"}.get(kind, "the transcript")


def read_turns(path: str | Path, fmt: str = "auto") -> list[Turn]:
    """Read every turn of a file, in order (numbers 1, 2, …).

    Lone surrogates anywhere in the file become U+FFFD; every turn then carries one
    note with their count over the whole file (:attr:`Turn.notes`, design.md §11).

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
    stats = LineStats()
    turns: list[Turn]
    if kind == "turn":
        # lazy: only the detected format's reader loads (start-up of `jev audit`)
        from jev.hosts.turnfile import read_turn_file

        turns = [read_turn_file(path, stats)]
    elif kind == "claude-code":
        # lazy: only the detected format's reader loads (start-up of `jev audit`)
        from jev.hosts.claude_code import read_turns as read_claude_turns

        turns = read_claude_turns(path, stats)
    elif kind in _OTHER_READERS:
        with counting() as stats:
            turns = list(_reader(kind).read_turns(path))
    else:
        # lazy: only the detected format's reader loads (start-up of `jev audit`)
        from jev.hosts.codex import read_turns as read_codex_turns

        turns = read_codex_turns(path, stats)
    return scrubbed(turns, stats.surrogates, where_read(kind))


def _reader(kind: str) -> Any:
    return importlib.import_module(_OTHER_READERS[kind])


def read_current_turn(
    path: str | Path, fmt: str = "auto", *, last_assistant_message: str | None = None
) -> Turn:
    """Read the current (last) turn of a file, the Stop hook's question.

    Transcripts are read backwards from the end only as far as the current turn's
    opening record, so the cost follows the turn, not the file (see the readers for
    the documented exceptions). The result equals the last element of
    :func:`read_turns` except that ``number`` is ``0`` (not counted), and that its
    note (:attr:`Turn.notes`) counts the lone surrogates of the part of the file read.

    Args:
        path: the file.
        fmt: ``auto`` or one of :data:`FORMATS`.
        last_assistant_message: the final answer the host passed to its Stop hook
            (hosts.md (Claude Code), §3.3); preferred over the transcript, which may lag.

    Raises:
        UsageError: missing/unreadable file, unknown format, invalid turn file.
        MaterialMissing: the file holds no turn at all.
    """
    path = Path(path)
    kind = _resolve(path, fmt)
    stats = LineStats()
    if kind == "turn":
        # lazy: only the detected format's reader loads (start-up of `jev audit`)
        from jev.hosts.turnfile import read_turn_file

        turn = read_turn_file(path, stats)
    elif kind == "claude-code":
        # lazy: only the detected format's reader loads (start-up of `jev audit`)
        from jev.hosts.claude_code import read_current_turn as read_claude_current

        turn = read_claude_current(path, stats)
    elif kind in _OTHER_READERS:
        with counting() as stats:
            turn = _reader(kind).read_current_turn(path)
    else:
        # lazy: only the detected format's reader loads (start-up of `jev audit`)
        from jev.hosts.codex import read_current_turn as read_codex_current

        turn = read_codex_current(path, stats)
    turn = scrubbed([turn], stats.surrogates, where_read(kind))[0]
    if last_assistant_message is not None and turn.material is not None:
        turn = replace(turn, material=replace(turn.material, final_answer=last_assistant_message))
    return turn
