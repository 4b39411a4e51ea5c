"""What Jev did (design.md §8, §11): turns, one turn's rounds, and the overview's counts.

Everything is read through the store's public reading methods
(:meth:`jev.store.Store.iter_records` and :meth:`~jev.store.Store.records_for_turn`),
so these pages work on any store backend; the counting happens here, in one pass
over the records.

Definitions used by the overview (each over the records that pass the filters):

* a *normal audit* is a record with status ``verdict``; verdicts per day count them
  by UTC day and assessment;
* a *block sent* is a record whose action is ``supplement`` (the agent was sent back);
* a *catch* is a turn in which a ``complete`` verdict follows a supplement;
* a *needs-user hand-off* is a ``needs-user`` verdict whose action is
  ``hand-to-user``; any other verdict handed to the user instead of sent back
  (``jev audit``, a stop the host could not steer) is *handed over*, counted apart;
* an *incomplete audit* is a record with status ``incomplete``, grouped by its
  error kind (``over-budget``, ``transport``, …);
* latency percentiles are over normal audits (nearest rank), the judge time of the
  calls that gave the verdict;
* tokens are the sums of the reported input and output tokens.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import TYPE_CHECKING, Any

from jev.base.domain import Material
from jev.base.record import Record, parse_iso_utc
from jev.base.segments import segment
from jev.store import TurnKey

if TYPE_CHECKING:
    from jev.ui.app import Request, Response, UiApp

__all__ = [
    "ASSESSMENT_ORDER",
    "Filters",
    "Overview",
    "TurnSummary",
    "overview",
    "overview_page",
    "percentile",
    "summarize_turns",
    "turn_page",
    "turns_page",
]

#: Display order of the five assessments (design.md §5).
ASSESSMENT_ORDER: tuple[str, ...] = (
    "complete",
    "omission",
    "contradiction",
    "needs-user",
    "unknown",
)
#: Most turn rows shown on one page (newest first).
MAX_ROWS = 500


@dataclass(frozen=True, slots=True)
class Filters:
    """The filters of the turns and overview pages (all optional).

    Attributes:
        verdict: an assessment (the turn's chain contains it) or ``incomplete``.
        host / profile: exact names.
        session: a session id or its start.
        start / end: UTC days, inclusive (``YYYY-MM-DD``).
        errors: messages for filter texts that could not be read (those filters are
            ignored).
    """

    verdict: str = ""
    host: str = ""
    profile: str = ""
    session: str = ""
    start: date | None = None
    end: date | None = None
    errors: tuple[str, ...] = ()

    @classmethod
    def from_query(cls, query: Mapping[str, str]) -> Filters:
        """Read ``verdict``, ``host``, ``profile``, ``session``, ``from``, ``to``."""
        errors: list[str] = []
        days: dict[str, date | None] = {"from": None, "to": None}
        for name in days:
            text = query.get(name, "").strip()
            if text:
                try:
                    days[name] = date.fromisoformat(text)
                except ValueError:
                    errors.append(f"'{name}' must be a day such as 2026-05-09; ignored.")
        verdict = query.get("verdict", "").strip()
        if verdict and verdict not in (*ASSESSMENT_ORDER, "incomplete"):
            errors.append(f"unknown verdict {verdict!r}; ignored.")
            verdict = ""
        return cls(
            verdict=verdict,
            host=query.get("host", "").strip(),
            profile=query.get("profile", "").strip(),
            session=query.get("session", "").strip(),
            start=days["from"],
            end=days["to"],
            errors=tuple(errors),
        )

    def query(self) -> dict[str, str]:
        """The filters as query parameters (for links that keep them)."""
        return {
            "verdict": self.verdict,
            "host": self.host,
            "profile": self.profile,
            "session": self.session,
            "from": self.start.isoformat() if self.start else "",
            "to": self.end.isoformat() if self.end else "",
        }

    def since(self) -> float | None:
        """Epoch seconds of the start day's midnight UTC (``None`` without a start)."""
        if self.start is None:
            return None
        return datetime(self.start.year, self.start.month, self.start.day, tzinfo=UTC).timestamp()

    def record_ok(self, record: Record) -> bool:
        """Whether a record passes the host, profile, session and day filters."""
        if self.host and record.host != self.host:
            return False
        if self.profile and record.profile != self.profile:
            return False
        if self.session and not record.session.startswith(self.session):
            return False
        if self.start or self.end:
            day = _day(record)
            if self.start and day < self.start:
                return False
            if self.end and day > self.end:
                return False
        return True


def _day(record: Record) -> date:
    return datetime.fromtimestamp(parse_iso_utc(record.created_at), UTC).date()


# ---------------------------------------------------------------------------- turns


@dataclass(slots=True)
class TurnSummary:
    """One turn as a row of the turns page.

    Attributes:
        host / session / turn: the turn's key; ``turn_number`` when known.
        first_at / last_at: ISO-8601 UTC times of its first and last record.
        profile: the profile of its last record.
        chain: assessments of its normal audits, in order.
        statuses: every record's status, in order.
        supplements_used / max_supplements: from its last record.
        end: where the turn ended (:func:`end_reason`).
        records: how many records it has.
        tokens: summed reported tokens (input + output).
    """

    host: str
    session: str
    turn: str
    first_at: str
    last_at: str = ""
    turn_number: int | None = None
    profile: str = ""
    chain: list[str] = field(default_factory=list)
    statuses: list[str] = field(default_factory=list)
    supplements_used: int = 0
    max_supplements: int = 0
    end: str = ""
    records: int = 0
    tokens: int = 0

    def add(self, record: Record) -> None:
        """Fold one more record of this turn (records arrive oldest first)."""
        self.records += 1
        self.last_at = record.created_at
        self.profile = record.profile
        self.statuses.append(record.status)
        if record.status == "verdict" and record.assessment:
            self.chain.append(record.assessment)
        self.supplements_used = record.supplements_used
        self.max_supplements = record.max_supplements
        self.end = end_reason(record)
        self.tokens += _tokens(record)[0] + _tokens(record)[1]

    def matches(self, verdict: str) -> bool:
        """Whether the turn's chain holds ``verdict`` (``incomplete``: any incomplete)."""
        if not verdict:
            return True
        if verdict == "incomplete":
            return "incomplete" in self.statuses
        return verdict in self.chain


def end_reason(last: Record) -> str:
    """Where a turn stands after its last record, in a few words (design.md §8)."""
    kind = (last.action or {}).get("kind")
    used, maximum = last.supplements_used, last.max_supplements
    if last.status == "stale":
        return "stale verdict; nothing sent"
    if last.status == "cancelled" or kind == "cancelled":
        return "cancelled"
    if kind == "finish":
        return "complete"
    if kind == "hand-to-user":
        return "handed to the user"
    if kind == "exhausted":
        return f"budget used up ({used}/{maximum})"
    if kind == "supplement":
        return f"supplement {used}/{maximum} sent"
    if last.status == "incomplete" or kind == "incomplete":
        return f"incomplete: {last.error_kind or last.reason or 'unknown reason'}"
    if last.status == "skipped" or kind == "skip":
        return "skipped"
    return str(kind or last.status)


def _tokens(record: Record) -> tuple[int, int]:
    usage = record.usage or {}
    return int(usage.get("input_tokens") or 0), int(usage.get("output_tokens") or 0)


def summarize_turns(records: Iterable[Record], filters: Filters) -> list[TurnSummary]:
    """Group records into turns (records of one turn must come oldest first).

    A turn is listed when any of its records passes ``filters`` (host, profile,
    session, days) and its chain passes the verdict filter. Newest turn first.
    """
    turns: dict[tuple[str, str, str], TurnSummary] = {}
    keep: set[tuple[str, str, str]] = set()
    for record in records:
        key = record.turn_key()
        summary = turns.get(key)
        if summary is None:
            summary = TurnSummary(
                record.host,
                record.session,
                record.turn,
                first_at=record.created_at,
                turn_number=record.turn_number,
            )
            turns[key] = summary
        summary.add(record)
        if filters.record_ok(record):
            keep.add(key)
    rows = [t for k, t in turns.items() if k in keep and t.matches(filters.verdict)]
    rows.sort(key=lambda t: (t.last_at, t.first_at), reverse=True)
    return rows


def _records(app: UiApp, filters: Filters) -> Iterable[Record]:
    # The store streams oldest first; a turn's records stay in order.
    return app.store().iter_records(since=filters.since())  # type: ignore[no-any-return]


def _choices(app: UiApp) -> tuple[list[str], list[str]]:
    """The host names and profile names found in the store (for the filter menus)."""
    hosts: set[str] = set()
    profiles: set[str] = set()
    for record in app.store().iter_records():
        hosts.add(record.host)
        profiles.add(record.profile)
    return sorted(hosts), sorted(profiles)


def turns_page(app: UiApp, req: Request) -> Response:
    """GET ``/turns``: one row per audited turn, newest first, with filters."""
    filters = Filters.from_query(req.query)
    rows = summarize_turns(_records(app, filters), filters)
    hosts, profiles = _choices(app)
    return app.render(
        "turns.html",
        active="turns",
        filters=filters,
        rows=rows[:MAX_ROWS],
        total=len(rows),
        max_rows=MAX_ROWS,
        verdicts=(*ASSESSMENT_ORDER, "incomplete"),
        hosts=hosts,
        profiles=profiles,
    )


# ---------------------------------------------------------------------------- one turn


@dataclass(frozen=True, slots=True)
class Piece:
    """One piece of rendered material text: plain text, or a numbered position."""

    text: str
    pos_id: str = ""
    focus: bool = False


def material_view(material: Mapping[str, Any] | None, focus_id: str) -> dict[str, Any] | None:
    """The material of one record, numbered as the judge saw it, focus marked.

    Returns ``{"request": [[Piece…] per message], "todos": [{id, content, status,
    focus}], "answer": [Piece…], "all": bool}`` or ``None`` without material. The
    numbering is :func:`jev.pipeline.material.number`'s; the text around the positions is kept
    exactly, so the focus is shown in its context.
    """
    if material is None:
        return None
    value = Material.from_json(material)

    def pieces(text: str, prefix: str, start: int) -> tuple[list[Piece], int]:
        out: list[Piece] = []
        n = start
        for seg in segment(text):
            core = seg.strip()
            if not core:
                out.append(Piece(seg))
                continue
            n += 1
            lead = seg[: len(seg) - len(seg.lstrip())]
            trail = seg[len(seg.rstrip()) :]
            if lead:
                out.append(Piece(lead))
            pid = f"{prefix}{n}"
            out.append(Piece(core, pid, pid == focus_id))
            if trail:
                out.append(Piece(trail))
        return out, n

    request: list[list[Piece]] = []
    n = 0
    for message in value.request:
        parts, n = pieces(message, "R", n)
        request.append(parts)
    answer, _ = pieces(value.final_answer, "A", 0)
    todos = [
        {"id": f"T{i}", "content": t.content, "status": t.status, "focus": f"T{i}" == focus_id}
        for i, t in enumerate(value.todos, start=1)
    ]
    return {"request": request, "todos": todos, "answer": answer, "all": focus_id == "all"}


def turn_page(app: UiApp, req: Request) -> Response:
    """GET ``/turn?host=H&session=S&turn=T``: every round of one turn."""
    q = req.query
    key = TurnKey(q.get("host", ""), q.get("session", ""), q.get("turn", ""))
    records: list[Record] = app.store().records_for_turn(key)
    if not records:
        return app.render(
            "turn.html", status=404, active="turns", records=[], key=key, summary=None, rounds=[]
        )
    summary = summarize_turns(records, Filters())[0]
    rounds = []
    for record in records:
        focus = record.focus or {}
        usage_in, usage_out = _tokens(record)
        rounds.append(
            {
                "r": record,
                "material": material_view(record.material, str(focus.get("id") or "")),
                "focus": focus,
                "tokens": None if record.usage is None else (usage_in, usage_out),
                "action": _action_text(record.action),
            }
        )
    return app.render(
        "turn.html", active="turns", records=records, key=key, summary=summary, rounds=rounds
    )


def _action_text(action: Mapping[str, Any] | None) -> str:
    if not action:
        return "-"
    kind = str(action.get("kind", "?"))
    if kind == "supplement":
        return f"supplement {action.get('round')}/{action.get('max_supplements')} sent"
    return {"finish": "finish (complete)", "hand-to-user": "hand to the user"}.get(kind, kind)


# ---------------------------------------------------------------------------- overview


def percentile(values: list[float], p: float) -> float | None:
    """Nearest-rank percentile ``p`` (0 < p <= 100) of ``values``; ``None`` if empty."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(p / 100 * len(ordered)))
    return ordered[rank - 1]


@dataclass(slots=True)
class Overview:
    """The overview's counts (see the module docstring for each definition).

    Attributes:
        records: records counted; ``turns`` turns they belong to.
        audits: normal audits (status ``verdict``).
        per_day: ``{day: {assessment: count}}`` of normal audits, days ascending.
        verdicts: ``{assessment: count}`` over all days.
        blocks: supplements sent. ``catches``: turns where complete followed a supplement.
        handoffs: needs-user hand-offs. ``handed_over``: other verdicts handed to the
            user instead of sent back. ``incomplete``: incomplete audits;
            ``incomplete_why``: ``{error kind: count}``.
        stale: verdicts recorded as stale.
        latency_p50_ms / latency_p95_ms: judge latency percentiles (ms), ``None`` if no call.
        latencies: every latency counted (ms).
        input_tokens / output_tokens: sums of reported tokens.
        tokens_per_day: ``{day: (input, output)}``.
    """

    records: int = 0
    turns: int = 0
    audits: int = 0
    per_day: dict[str, dict[str, int]] = field(default_factory=dict)
    verdicts: dict[str, int] = field(default_factory=dict)
    blocks: int = 0
    catches: int = 0
    handoffs: int = 0
    handed_over: int = 0
    incomplete: int = 0
    incomplete_why: dict[str, int] = field(default_factory=dict)
    stale: int = 0
    latency_p50_ms: float | None = None
    latency_p95_ms: float | None = None
    latencies: list[float] = field(default_factory=list)
    input_tokens: int = 0
    output_tokens: int = 0
    tokens_per_day: dict[str, tuple[int, int]] = field(default_factory=dict)


def overview(records: Iterable[Record], filters: Filters) -> Overview:
    """Count what Jev did over the records that pass ``filters`` (one pass)."""
    result = Overview()
    per_day: dict[str, Counter[str]] = defaultdict(Counter)
    tokens_day: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    why: Counter[str] = Counter()
    supplemented: set[tuple[str, str, str]] = set()
    caught: set[tuple[str, str, str]] = set()
    turns: set[tuple[str, str, str]] = set()
    for record in records:
        if not filters.record_ok(record):
            continue
        result.records += 1
        key = record.turn_key()
        turns.add(key)
        day = _day(record).isoformat()
        kind = (record.action or {}).get("kind")
        if record.status == "verdict" and record.assessment:
            result.audits += 1
            per_day[day][record.assessment] += 1
            if record.assessment == "complete" and key in supplemented:
                caught.add(key)
        if kind == "supplement" and record.status == "verdict":
            result.blocks += 1
            supplemented.add(key)
        if kind == "hand-to-user" and record.assessment == "needs-user":
            result.handoffs += 1
        elif kind == "hand-to-user":
            result.handed_over += 1
        if record.status == "incomplete":
            result.incomplete += 1
            why[record.error_kind or "unknown"] += 1
        if record.status == "stale":
            result.stale += 1
        if record.status == "verdict" and record.attempts > 0:
            result.latencies.append(record.latency_ms)
        tin, tout = _tokens(record)
        result.input_tokens += tin
        result.output_tokens += tout
        tokens_day[day][0] += tin
        tokens_day[day][1] += tout
    result.turns = len(turns)
    result.catches = len(caught)
    result.per_day = {d: dict(per_day[d]) for d in sorted(per_day)}
    result.verdicts = {a: sum(c.get(a, 0) for c in per_day.values()) for a in ASSESSMENT_ORDER}
    result.incomplete_why = dict(why.most_common())
    result.latency_p50_ms = percentile(result.latencies, 50)
    result.latency_p95_ms = percentile(result.latencies, 95)
    result.tokens_per_day = {d: (v[0], v[1]) for d, v in sorted(tokens_day.items())}
    return result


def _fill_days(days: list[str]) -> list[str]:
    """Every day from the first to the last of ``days`` (at most 92, the latest kept)."""
    if not days:
        return []
    first, last = date.fromisoformat(days[0]), date.fromisoformat(days[-1])
    span = min((last - first).days, 91)
    return [(last - timedelta(days=span - i)).isoformat() for i in range(span + 1)]


def overview_page(app: UiApp, req: Request) -> Response:
    """GET ``/overview``: counts and small SVG charts over the filtered records."""
    # lazy: import cycle: jev.ui imports this module
    from jev.ui import charts

    filters = Filters.from_query(req.query)
    data = overview(_records(app, filters), filters)
    hosts, profiles = _choices(app)
    days = _fill_days(list(data.per_day) + list(data.tokens_per_day))
    verdict_chart = charts.stacked_bars(
        days,
        [(a, [data.per_day.get(d, {}).get(a, 0) for d in days]) for a in ASSESSMENT_ORDER],
        title="Normal audits per day by verdict",
    )
    token_chart = charts.stacked_bars(
        days,
        [
            ("plain", [data.tokens_per_day.get(d, (0, 0))[0] for d in days]),
            ("out", [data.tokens_per_day.get(d, (0, 0))[1] for d in days]),
        ],
        title="Tokens per day (input, output)",
    )
    latency_chart = charts.histogram(
        data.latencies,
        marks=[("p50", data.latency_p50_ms), ("p95", data.latency_p95_ms)],
        title="Judge latency (ms)",
    )
    return app.render(
        "overview.html",
        active="overview",
        filters=filters,
        o=data,
        verdict_chart=verdict_chart,
        token_chart=token_chart,
        latency_chart=latency_chart,
        assessments=ASSESSMENT_ORDER,
        hosts=hosts,
        profiles=profiles,
    )
