"""What every transcript reader shares: the :class:`Turn` type, the reasons, and reading
JSON lines forwards or backwards with :class:`LineStats`.

The readers (:mod:`jev.hosts.claude_code.transcript`, :mod:`jev.hosts.codex.transcript`,
:mod:`jev.hosts.turnfile`, the other ``*_transcript`` modules) build on this module;
:mod:`jev.hosts.transcript` detects a file's format and dispatches to them, so no
reader imports the dispatcher (no import cycle). Stdlib only: the Stop hook imports
it on its fast path.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from pathlib import Path

from jev.base import safejson
from jev.base.domain import InputNote, Material, TodoItem, merge_notes
from jev.base.errors import MaterialMissing, UsageError
from jev.evidence.runs import Run
from jev.hosts.backread import BLOCK, lines_backward

__all__ = [
    "REASON_INTERRUPT",
    "REASON_NO_OPENING",
    "REASON_NO_TODO",
    "REASON_RUNNING",
    "SURROGATES",
    "LineStats",
    "Turn",
    "TurnDraft",
    "build_turn",
    "count_replaced",
    "counting",
    "iter_records",
    "iter_records_backward",
    "json_lines",
    "last_turn",
    "load_counted",
    "no_turn_error",
    "noted",
    "scrub_turn",
    "scrubbed",
    "skip_running",
]

#: :attr:`jev.base.domain.InputNote.kind` of lone surrogates replaced by U+FFFD.
SURROGATES = "lone-surrogates"

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
        notes: what Jev changed in the input this turn was read from to read it
            (:class:`jev.base.domain.InputNote`: lone surrogates replaced by U+FFFD in the
            file, counted over what was read), said to the user and kept in the record
            (design.md §11).
        runs: the shell commands the agent ran in this turn, in order, with exit code
            and output tail (:class:`jev.evidence.runs.Run`; issue 21). Evidence only:
            never part of the material or the judge's input (design.md §3). Empty
            when the reader does not read runs.
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
    notes: tuple[InputNote, ...] = ()
    runs: tuple[Run, ...] = ()


def skip_running(turns: list[Turn]) -> list[Turn]:
    """Mark turns that have not ended (``Turn.ended`` false) as skipped (issue 10).

    A turn already skipped keeps its own reason; a ready or missing turn that is
    still running becomes ``skipped`` with :data:`REASON_RUNNING`, because its final
    answer may not be written yet (``jev audit`` without ``--include-running``).
    """
    return [
        replace(t, status="skipped", reason=REASON_RUNNING)
        if not t.ended and t.status != "skipped"
        else t
        for t in turns
    ]


def build_turn(
    number: int,
    key: str,
    opening: str,
    *,
    request: Sequence[str],
    todos: tuple[TodoItem, ...],
    final_answer: str,
    todo_used: bool,
    no_opening: str = "",
    no_request: str = "",
    interrupted: bool = False,
    ended: bool = True,
    runs: Sequence[Run] = (),
) -> Turn:
    """The :class:`Turn` of a turn a reader has assembled (design.md §2, §3).

    The status, by the rule every reader shares, first match wins:

    1. ``interrupted`` (ended by a user interrupt): ``skipped``, :data:`REASON_INTERRUPT`;
    2. ``no_opening`` (the reason, "" when the opening is in the file): ``missing``;
    3. no Todo use in the turn: ``skipped``, :data:`REASON_NO_TODO`;
    4. ``no_request`` (the reason the material of a turn with Todo use cannot be
       obtained, "" when it can): ``missing``;
    5. else ``ready``.

    A ``missing`` turn has no material; otherwise the material carries ``request``,
    ``final_answer`` and, only when the Todo tool was used in this turn, ``todos``.
    """
    material: Material | None = Material(
        request=tuple(request),
        todos=todos if todo_used else (),
        final_answer=final_answer,
        todo_used=todo_used,
    )
    if interrupted:
        status, reason = "skipped", REASON_INTERRUPT
    elif no_opening:
        status, reason, material = "missing", no_opening, None
    elif not todo_used:
        status, reason = "skipped", REASON_NO_TODO
    elif no_request:
        status, reason, material = "missing", no_request, None
    else:
        status, reason = "ready", ""
    return Turn(
        number=number,
        key=key,
        material=material,
        todo_used=todo_used,
        status=status,
        reason=reason,
        ended_by_interrupt=interrupted,
        opening=opening,
        ended=ended,
        runs=tuple(runs),
    )


@dataclass
class TurnDraft:
    """One turn being assembled by a reader, with the fields most readers keep.

    Attributes:
        key: the turn key (design.md §14).
        opening: what opened it (``prompt``, ``missing``, … as :attr:`Turn.opening`).
        request: the user's request messages (the request, then adjustments).
        todo_used: the Todo tool was used in this turn.
        todos: the latest Todo list.
        answer: the final answer so far.
        runs: the shell runs of the turn so far (issue 21).
    """

    key: str
    opening: str
    request: list[str] = field(default_factory=list)
    todo_used: bool = False
    todos: tuple[TodoItem, ...] = ()
    answer: str = ""
    runs: list[Run] = field(default_factory=list)

    def turn(
        self,
        number: int,
        *,
        no_opening: str,
        no_request: str = "",
        todos: tuple[TodoItem, ...] | None = None,
    ) -> Turn:
        """The :class:`Turn` numbered ``number`` (:func:`build_turn`).

        Args:
            number: 1-based, or 0 for a current turn read alone.
            no_opening: the reason the material is missing when :attr:`opening` is
                ``missing``.
            no_request: the reason the material is missing when a turn with Todo use
                has no request ("": such a turn is ready).
            todos: the Todo list to use instead of :attr:`todos` (the host's own
                current state), or ``None``.
        """
        return build_turn(
            number,
            self.key,
            self.opening,
            request=self.request,
            todos=self.todos if todos is None else todos,
            final_answer=self.answer,
            todo_used=self.todo_used,
            no_opening=no_opening if self.opening == "missing" else "",
            no_request=no_request if not self.request else "",
            runs=self.runs,
        )


def last_turn(turns: list[Turn], path: str | Path) -> Turn:
    """The last of ``turns`` with ``number`` 0 (the current turn of a file read whole).

    Raises:
        MaterialMissing: ``turns`` is empty (:func:`no_turn_error` for ``path``).
    """
    if not turns:
        raise no_turn_error(Path(path))
    return replace(turns[-1], number=0)


def noted(turns: list[Turn], count: int, where: str) -> list[Turn]:
    """``turns``, each with a note of ``count`` lone surrogates replaced in ``where``
    (the file they were read from; nothing changes for ``count`` 0)."""
    if not count:
        return turns
    note = (InputNote(SURROGATES, count, where),)
    return [replace(t, notes=merge_notes(t.notes, note)) for t in turns]


def _scrub(text: str) -> tuple[str, int]:
    return safejson.scrub_surrogates(text)


def scrub_turn(turn: Turn) -> tuple[Turn, int]:
    """``turn`` with no lone surrogate left in its key or material, and how many were
    replaced by U+FFFD (a reader that parsed with plain ``json`` leaves them; they
    would make :meth:`jev.base.domain.Material.digest` and the store raise).

    Returns ``(turn, count)``; the caller notes the count (:func:`scrubbed`).
    """
    key, count = _scrub(turn.key)
    material = turn.material
    if material is not None:
        material, n = material.scrubbed()
        count += n
    if not count:
        return turn, 0
    return replace(turn, key=key, material=material), count


def scrubbed(turns: Sequence[Turn], count: int, where: str) -> list[Turn]:
    """Every turn of one read made surrogate-free (:func:`scrub_turn`), each noting
    the whole read's count on ``where``: ``count`` (replaced while parsing) plus those
    the scrub replaced (merged with a note the turn already has)."""
    fixed = [scrub_turn(t) for t in turns]
    return noted([t for t, _ in fixed], count + sum(n for _, n in fixed), where)


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
    counted and skipped; lone surrogates become U+FFFD (:mod:`jev.base.safejson`).
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
    (:func:`jev.hosts.backread.lines_backward`: stopping early costs only the bytes after
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


#: The :class:`LineStats` of the read in progress in this thread/context, for readers
#: that take no ``stats`` argument (:func:`json_lines`); set by :func:`counting`.
_COUNTING: ContextVar[LineStats | None] = ContextVar("jev_line_stats", default=None)


@contextmanager
def counting() -> Iterator[LineStats]:
    """Collect the counts of :func:`json_lines` reads done inside the block (the
    dispatcher and the hook wrap readers that take no ``stats`` this way), so lone
    surrogates those readers replaced are noted too (design.md §11)."""
    stats = LineStats()
    token = _COUNTING.set(stats)
    try:
        yield stats
    finally:
        _COUNTING.reset(token)


def count_replaced(count: int) -> None:
    """Add ``count`` lone surrogates replaced to the :func:`counting` block, if any."""
    stats = _COUNTING.get()
    if stats is not None:
        stats.surrogates += count


def load_counted(text: str) -> object:
    """One JSON text of a transcript: :func:`jev.base.safejson.parse`, lone surrogates
    replaced and counted in the :func:`counting` block around the read.

    Raises:
        jev.base.safejson.JsonInputError: (a ``ValueError``) the text cannot be used.
    """
    parsed = safejson.parse(text)
    count_replaced(parsed.replaced)
    return parsed.value


def json_lines(path: Path) -> Iterator[tuple[int, dict[str, object]]]:
    """Yield ``(1-based line number, record)`` for each JSON-object line, leniently:
    a leading BOM is stripped, undecodable bytes are replaced, and blank lines, lines
    that are not JSON (or nested over 200 levels) and JSON values that are not objects
    are skipped (their numbers are kept). Lone surrogates become U+FFFD
    (:mod:`jev.base.safejson`), counted in the :func:`counting` block around the read. Used
    by the readers of the hosts whose files are read whole.

    Raises:
        UsageError: the file cannot be opened or read.
    """
    stats = _COUNTING.get()
    try:
        with path.open("rb") as handle:
            for number, raw in enumerate(handle, start=1):
                text = raw.decode("utf-8", errors="replace").lstrip("\ufeff").strip()
                if not text:
                    continue
                try:
                    parsed = safejson.parse(text)
                except safejson.JsonInputError:
                    continue
                rec = parsed.value
                if isinstance(rec, dict):
                    if stats is not None:
                        stats.surrogates += parsed.replaced
                    yield number, rec
    except OSError as exc:
        raise UsageError(f"{path}: cannot be read ({exc.strerror}).") from None
