"""Turns read from files: format detection and dispatch to the readers.

:class:`Turn` and what the readers share live in :mod:`jev.hosts.turns` (re-exported
here).

Jev reads a turn's material (design.md §3) from the generic turn JSON (``turn``:
``schemas/turn.schema.json``, :mod:`jev.hosts.turnfile`) and from the transcript of
every registered host (:mod:`jev.hosts.registry`): each host package's ``fileformat``
module (:class:`jev.hosts.base.TranscriptFormat`) says how its files are recognised
and read. This module names no host; it loops over the registry.

Stdlib only: the Stop hook imports this module on its fast path (common brief).
The readers are imported lazily (by each ``fileformat``) so that a hook for one host
never pays for the other readers.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from jev.base.errors import UsageError
from jev.hosts import registry
from jev.hosts.turns import (
    REASON_INTERRUPT,
    REASON_NO_OPENING,
    REASON_NO_TODO,
    REASON_RUNNING,
    LineStats,
    Turn,
    iter_records,
    iter_records_backward,
    no_turn_error,
    scrubbed,
    skip_running,
)

if TYPE_CHECKING:
    from jev.hosts.base import TranscriptFormat

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
    "formats",
    "iter_records",
    "iter_records_backward",
    "no_turn_error",
    "read_current_turn",
    "read_turns",
    "skip_running",
    "unrecognised_message",
    "where_read",
]

#: A format name: ``turn`` or a registered host's name.
TurnFormat = str
#: The file formats of the built-in hosts, ``turn`` first (:func:`formats` adds the
#: hosts registered later).
FORMATS: tuple[str, ...] = ("turn", *registry.host_names())


def formats() -> tuple[str, ...]:
    """Every format Jev reads: ``turn``, then each registered host's, in registry order
    (third-party hosts of the ``jev.hosts`` entry points included)."""
    return ("turn", *registry.discover())


def _by_rank() -> list[tuple[str, TranscriptFormat]]:
    """``(host, format)`` of every registered host, in sniffing order."""
    found = [(host, registry.file_format(host)) for host in formats()[1:]]
    return sorted(found, key=lambda pair: pair[1].SNIFF_RANK)


#: Lines read from the head of a file to sniff its format (each read whole).
_SNIFF_LINES = 20
#: Largest whole-file JSON document tried as a generic turn file while sniffing (bytes).
_SNIFF_WHOLE_MAX = 64 << 20


def _check_path(path: Path) -> None:
    if not path.exists():
        raise UsageError(f"{path}: no such file; pass the path of a turn file or transcript.")
    if not path.is_file():
        raise UsageError(f"{path}: not a regular file; pass the path of a turn file or transcript.")


def detect_format(path: str | Path) -> TurnFormat:
    """Tell which of :data:`FORMATS` a file is, by sniffing its first lines.

    Up to 20 lines are read whole (a first line of 64 KiB or more is fine). Each
    registered host's ``fileformat`` is asked, in ``SNIFF_RANK`` order, about the head
    (``sniff_head``), then each JSON object line (``sniff_record``; a line with
    ``request`` after every host is ``turn``), then the whole file as one document
    (``request`` is ``turn``, else ``sniff_document``).

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
    hosts = _by_rank()
    head = b"".join(lines)
    for host, fmt in hosts:
        if fmt.sniff_head(head):
            return host
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
        for host, fmt in hosts:
            if fmt.sniff_record(rec):
                return host
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
        for host, fmt in hosts:
            if fmt.sniff_document(doc):
                return host
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
    known = formats()
    expected = f"a Jev turn file or a transcript of {', '.join(known[1:])}"
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
        f"format with --from ({', '.join(known)})."
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


def _resolve(path: Path, fmt: str) -> str:
    if fmt == "auto":
        return detect_format(path)
    # a registered host's format needs no scan of the entry points (the hook's path)
    if fmt != "turn" and fmt not in registry.host_names() and fmt not in formats():
        raise UsageError(f"unknown turn format {fmt!r}; use one of auto, {', '.join(formats())}.")
    _check_path(path)
    return fmt


def where_read(kind: str) -> str:
    """What a file of format ``kind`` is called in an input note: ``"the turn file"``,
    or the host format's ``LABEL`` (``"the rollout"`` for Codex, ``"the transcript"``)."""
    if kind == "turn":
        return "the turn file"
    if kind in registry.host_names():
        return registry.file_format(kind).LABEL
    return "the transcript"


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
    else:
        turns = registry.file_format(kind).read_turns(path, stats)
    return scrubbed(turns, stats.surrogates, where_read(kind))


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
    else:
        turn = registry.file_format(kind).read_current_turn(path, stats)
    turn = scrubbed([turn], stats.surrogates, where_read(kind))[0]
    if last_assistant_message is not None and turn.material is not None:
        turn = replace(turn, material=replace(turn.material, final_answer=last_assistant_message))
    return turn
