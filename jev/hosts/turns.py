"""What every transcript reader shares: the :class:`Turn` type, the reasons, and reading
JSON lines forwards or backwards with :class:`LineStats`.

The readers (:mod:`jev.hosts.claude_code`, :mod:`jev.hosts.codex`,
:mod:`jev.hosts.turnfile`, the other ``*_transcript`` modules) build on this module;
:mod:`jev.hosts.transcript` detects a file's format and dispatches to them, so no
reader imports the dispatcher (no import cycle). Stdlib only: the Stop hook imports
it on its fast path.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from jev import safejson
from jev.backread import BLOCK, lines_backward
from jev.domain import Material
from jev.errors import MaterialMissing, UsageError

__all__ = [
    "REASON_INTERRUPT",
    "REASON_NO_OPENING",
    "REASON_NO_TODO",
    "REASON_RUNNING",
    "LineStats",
    "Turn",
    "iter_records",
    "iter_records_backward",
    "no_turn_error",
    "skip_running",
]

#: Reasons shared by the readers (design.md §2, §3, §14), so callers can compare them.
REASON_NO_TODO = "no Todo use in this turn"
REASON_INTERRUPT = "ended by a user interrupt"
REASON_RUNNING = "the turn has not ended"
REASON_NO_OPENING = (
    "material missing: the turn's original request is not in the transcript "
    "(compacted away, or written before this file begins)"
)


@dataclass(frozen=True, slots=True)
class Turn:
    """One turn of a session as read from a file (design.md §1 "turn", §2, §3).

    Attributes:
        number: 1-based turn number in the file. ``0`` when the reader did not count
            earlier turns (:func:`read_current_turn`'s fast path reads backwards only
            as far as the current turn's opening record).
        key: stable turn key (design.md §14): the ``uuid`` of the opening record (Claude
            Code; its timestamp, or ``offset:<byte>`` when it has none), the
            ``turn_id`` (Codex; else the opening user message's timestamp), or the
            turn file's ``id``/request digest.
        material: the turn's material, or ``None`` when it cannot be obtained
            (status ``missing``). For a turn without Todo use the Todo list is empty:
            a previous turn's Todos never count for this one (design.md §2).
        todo_used: whether the Todo tool was used at least once in this turn (§2.3).
        status: ``ready`` (auditable), ``skipped`` (no audit due: no Todo use, user
            interrupt) or ``missing`` (material missing, design.md §3).
        reason: ``""`` when ready; otherwise a short human reason.
        ended_by_interrupt: the turn ended with a user interrupt (no Stop hook runs,
            design.md §14 "turns stopped by the user are out of scope").
        opening: what opened the turn: ``prompt``, ``slash-command``,
            ``task-notification``, ``subagent`` (a subagent's transcript, skipped) or
            ``missing`` (opening not in the file).
        ended: the file shows the turn's end (the host's turn-end record, the next
            prompt, or a final message that ends the turn). ``False`` for a turn
            still running when the file was written: ``jev audit`` skips it ("the
            turn has not ended") unless ``--include-running`` (issue 10). A Stop
            hook's own event is the end signal, so hooks ignore this field.
    """

    number: int
    key: str
    material: Material | None
    todo_used: bool
    status: str
    reason: str
    ended_by_interrupt: bool
    opening: str
    ended: bool = True


def skip_running(turns: list[Turn]) -> list[Turn]:
    """Mark turns that have not ended (``Turn.ended`` false) as skipped (issue 10).

    A turn already skipped keeps its own reason; a ready or missing turn that is
    still running becomes ``skipped`` with :data:`REASON_RUNNING`, because its final
    answer may not be written yet (``jev audit`` without ``--include-running``).
    """
    from dataclasses import replace

    return [
        replace(t, status="skipped", reason=REASON_RUNNING)
        if not t.ended and t.status != "skipped"
        else t
        for t in turns
    ]


def no_turn_error(path: Path) -> MaterialMissing:
    """The error for a transcript that holds no turn yet (shared by the readers)."""
    return MaterialMissing(
        f"{path}: the transcript holds no user turn yet, so there is no material to "
        "audit; retry after the agent has answered a request."
    )


#: Longest transcript line read (bytes, 64 MiB); a longer one is skipped unread, so
#: junk (a NUL-filled tail, a line without end) costs at most this much memory.
MAX_LINE_BYTES = 64 << 20
_SKIP_BLOCK = 1 << 20


class LineStats:
    """Counts of JSONL lines a reader had to skip (robustness, not an error).

    Attributes:
        bad_lines: lines that are not JSON (half-written last line, garbage).
        non_objects: JSON lines that are not objects (skipped).
        surrogates: lone UTF-16 surrogates replaced by U+FFFD (kept, with this note).
    """

    __slots__ = ("bad_lines", "non_objects", "surrogates")

    def __init__(self) -> None:
        self.bad_lines = 0
        self.non_objects = 0
        self.surrogates = 0


def _parse_line(raw: bytes, stats: LineStats) -> dict[str, object] | None:
    """One JSONL line -> a record object, or ``None`` (blank, bad or not an object).

    Bytes are decoded as UTF-8 with ``errors="replace"``, so non-UTF-8 bytes never
    abort a read; a line that is not JSON (or nested deeper than 200 levels) is
    counted and skipped; lone surrogates become U+FFFD (:mod:`jev.safejson`).
    """
    if not raw.strip():
        return None
    try:
        parsed = safejson.parse(raw.decode("utf-8", errors="replace"))
    except safejson.JsonInputError:  # not JSON, nested > 200, digit limit
        stats.bad_lines += 1
        return None
    rec = parsed.value
    if not isinstance(rec, dict):
        stats.non_objects += 1
        return None
    stats.surrogates += parsed.replaced
    return rec


def iter_records(path: Path, stats: LineStats) -> Iterator[tuple[int, dict[str, object]]]:
    """Yield ``(byte offset, record)`` for each JSON-object line, first to last.

    Reads line by line in binary (a 50 MB line costs one 50 MB buffer).

    Raises:
        UsageError: the file cannot be opened or read.
    """
    try:
        with path.open("rb") as handle:
            offset = 0
            while raw := handle.readline(MAX_LINE_BYTES + 1):
                length = len(raw)
                if length > MAX_LINE_BYTES and not raw.endswith(b"\n"):
                    # An over-long line (junk, NULs): skip it without holding it.
                    while (rest := handle.readline(_SKIP_BLOCK)) and not rest.endswith(b"\n"):
                        length += len(rest)
                    length += len(rest)
                    stats.bad_lines += 1
                else:
                    rec = _parse_line(raw, stats)
                    if rec is not None:
                        yield offset, rec
                offset += length
    except OSError as exc:
        raise UsageError(f"{path}: cannot be read ({exc.strerror}).") from None


def iter_records_backward(
    path: Path, stats: LineStats, block: int = BLOCK
) -> Iterator[tuple[int, dict[str, object]]]:
    """Yield ``(byte offset, record)`` for each JSON-object line, last to first
    (:func:`jev.backread.lines_backward`: stopping early costs only the bytes after
    the stopping point).

    Raises:
        UsageError: the file cannot be opened or read.
    """
    try:
        for offset, raw in lines_backward(
            path, block=block, max_line=MAX_LINE_BYTES, skip_long=True
        ):
            rec = _parse_line(raw, stats)
            if rec is not None:
                yield offset, rec
    except OSError as exc:
        raise UsageError(f"{path}: cannot be read ({exc.strerror}).") from None
