"""Replay stored audit records: offline regression checks and live re-asking (design.md §11).

**Offline** (:func:`replay_record`, :func:`replay`): each record's stored data goes
again through the *current* code of the live path — the same functions, imported, not
copied:

1. ``Material.from_json(record.material)`` → :func:`jev.pipeline.material.number`;
2. the stored raw replies, in order, through :func:`jev.pipeline.parse.parse_reply` exactly as
   :func:`jev.pipeline.audit.run_audit` treats them: the first valid reply wins; when none is
   valid the audit is ``incomplete`` with the last response-error kind (a stored
   transport failure, which no stored text can reproduce, keeps its stored kind);
   an over-budget record is re-rendered with the current templates
   (:func:`jev.pipeline.render.render_audit`) and re-checked against its stored ``budget_chars``
   (:func:`jev.pipeline.budget.check_budget`); a skipped record goes through the Todo gate;
3. :func:`jev.pipeline.decide.decide` from the stored ``loop_before`` with the stored
   ``max_supplements`` (:func:`jev.pipeline.decide.cancel` for a cancelled record);
4. :func:`jev.pipeline.texts.supplement_text` when the action is a supplement (compared when
   the record stored the text it sent; ``jev audit`` decides a supplement but has no
   agent to send it to and stores none).

The result is compared with the stored status, assessment, focus id and quote, error
kind, action kind and round, loop state after the decision, and supplement text;
every mismatch is a :class:`Difference` with both sides. Records are read as a
stream (one JSONL line at a time, or the store in pages), so memory stays flat
whatever the export's size; only the records that changed are kept.

**Live** (:func:`jev.measure.live.live_replay`): re-ask a judge for each stored material through
:func:`jev.pipeline.audit.run_audit` (current rendering, technical retries honouring
``Retry-After``) on a bounded pool of worker threads, append one JSON line per
answered record to an output file (resumable: answered records are skipped), and
build an :class:`~jev.measure.live.Agreement` report (per-class counts, confusion
matrix, Cohen's κ, focus agreement) against the stored verdicts.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from jev.base.domain import AuditOutcome, JudgeAnswer, JudgeSettings, Material, Settings
from jev.base.errors import ResponseError, TransportError
from jev.base.loop_state import LoopState, validate_max_supplements
from jev.base.record import Record
from jev.measure.replay_source import Entry, record_label
from jev.pipeline.ask import Attempts, ask_until_verdict
from jev.pipeline.budget import budget_refusal
from jev.pipeline.decide import cancel, conclude
from jev.pipeline.material import number
from jev.pipeline.render import render_audit

if TYPE_CHECKING:
    from jev.base.domain import Numbering

__all__ = [
    "LOOP_FIELDS",
    "Difference",
    "RecordReplay",
    "ReplayError",
    "ReplaySummary",
    "outcome_from_replies",
    "replay",
    "replay_entry",
    "replay_record",
    "settings_of",
]

#: Loop-state fields compared after the decision (``last_error`` is free text and is not).
LOOP_FIELDS: tuple[str, ...] = ("status", "audits", "supplements_used", "chain", "last_focus_id")
#: Record statuses that asked (or would have asked) a judge: the ones live replay re-asks.
AUDITED_STATUSES: frozenset[str] = frozenset({"verdict", "incomplete", "stale"})


class ReplayError(Exception):
    """A record cannot be replayed (no material, invalid loop state, bad line …)."""


# ---------------------------------------------------------------------------- offline


@dataclass(frozen=True, slots=True)
class Difference:
    """One field whose replayed value differs from the stored one."""

    field: str
    stored: Any
    replayed: Any

    def to_json(self) -> dict[str, Any]:
        return {"field": self.field, "stored": self.stored, "replayed": self.replayed}


@dataclass(frozen=True, slots=True)
class RecordReplay:
    """The replay of one entry: ``same``, ``changed`` (with differences) or ``error``.

    Attributes:
        entry: where the record came from.
        differences: the mismatches (empty when the same).
        error: why the record could not be replayed ("" otherwise).
    """

    entry: Entry
    differences: tuple[Difference, ...] = ()
    error: str = ""

    @property
    def result(self) -> str:
        """``same``, ``changed`` or ``error``."""
        if self.error:
            return "error"
        return "changed" if self.differences else "same"

    @property
    def label(self) -> str:
        """``session/turn/round N`` (or ``source:line`` for an unreadable line)."""
        if self.entry.record is not None:
            return record_label(self.entry.record)
        return f"{self.entry.source}:{self.entry.line}"

    def where(self) -> str:
        """``file:line`` or ``store:path#id``."""
        rec = self.entry.record
        if self.entry.line is not None:
            return f"{self.entry.source}:{self.entry.line}"
        return f"{self.entry.source}#{rec.id if rec is not None else '?'}"

    def to_json(self) -> dict[str, Any]:
        rec = self.entry.record
        return {
            "result": self.result,
            "where": self.where(),
            "record_id": None if rec is None else rec.id,
            "session": None if rec is None else rec.session,
            "turn": None if rec is None else rec.turn,
            "round": None if rec is None else rec.round,
            "status": None if rec is None else rec.status,
            "differences": [d.to_json() for d in self.differences],
            "error": self.error,
        }

    def describe(self) -> str:
        """Human text: the label, where, and each difference with both sides."""
        if self.entry.record is None:
            return f"ERROR {self.where()}: {self.error}"
        head = f"{self.result.upper()} {self.label} ({self.where()})"
        if self.error:
            return f"{head}: {self.error}"
        lines = [head]
        for d in self.differences:
            stored, replayed = _show(d.stored), _show(d.replayed)
            if len(stored) + len(replayed) > 2 * _INLINE_AT:
                lines.append(f"  {d.field}: {inline_diff(stored, replayed)}")
                continue
            lines.append(f"  {d.field}:")
            lines.append(f"    stored:   {stored}")
            lines.append(f"    replayed: {replayed}")
        return "\n".join(lines)


#: Longer differences are shown as one inline diff of the changed part (characters).
_INLINE_AT = 80
#: Unchanged characters kept on each side of the changed part.
_CONTEXT = 30


def inline_diff(old: str, new: str, context: int = _CONTEXT) -> str:
    """One line showing only what changed: ``…same[-old part-]{+new part+}same…``.

    The common prefix and suffix are cut to ``context`` characters each (issue 10
    item 11: a changed supplement is not shown as two 900-character strings).
    """
    limit = min(len(old), len(new))
    start = 0
    while start < limit and old[start] == new[start]:
        start += 1
    end = 0
    while end < limit - start and old[len(old) - 1 - end] == new[len(new) - 1 - end]:
        end += 1
    before = old[max(0, start - context) : start]
    after = old[len(old) - end : len(old) - end + context]
    return (
        ("…" if start > context else "")
        + before
        + f"[-{old[start : len(old) - end]}-]{{+{new[start : len(new) - end]}+}}"
        + after
        + ("…" if end > context else "")
    )


def _show(value: Any) -> str:
    if isinstance(value, str) and "\n" in value:
        return json.dumps(value, ensure_ascii=False)
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def settings_of(record: Record) -> Settings:
    """The settings a record was made under: its ``settings`` snapshot (defaults for
    missing keys), with ``evidence_chars`` = its ``budget_chars`` when stored."""
    data = record.settings or {}
    judge = data.get("judge") or {}
    known = JudgeSettings.__dataclass_fields__
    base = Settings(
        profile=record.profile,
        enabled=bool(data.get("enabled", False)),
        max_supplements=int(data.get("max_supplements", record.max_supplements or 3)),
        evidence_chars=int(data.get("evidence_chars", 24_000)),
        language=str(data.get("language", "auto")),
        judge=JudgeSettings(**{k: v for k, v in judge.items() if k in known}),
        records_days=int(data.get("records_days", 30)),
    )
    if record.budget_chars is not None:
        base = replace(base, evidence_chars=int(record.budget_chars))
    return base


def outcome_from_replies(
    record: Record, numbering: Numbering, settings: Settings | None = None
) -> AuditOutcome:
    """Rebuild a record's audit outcome from its stored raw replies, through the live
    path's own call loop (:func:`jev.pipeline.ask.ask_until_verdict`): the stored replies
    are the judge's answers, in order, so the first valid reply wins exactly as live.

    ``settings`` is the record's :func:`settings_of` snapshot when the caller has it.

    When no reply is valid the outcome is ``incomplete``: its error kind is the last
    reply's response-error kind, unless the stored kind is a transport failure (which
    happened after the last reply and cannot be replayed), which is kept.
    """
    replies = list(record.raw_replies)
    stored = record.error_kind
    failure = None
    if stored is not None and (stored not in ResponseError.KINDS or not replies):
        failure = stored
    settings = settings or settings_of(record)
    calls = len(replies) + (1 if failure is not None or not replies else 0)
    judge = replace(settings.judge, technical_retries=max(0, calls - 1))
    attempts = Attempts(
        numbering=numbering,
        input_chars=record.input_chars,
        template_hash=record.template_hash,
        language=record.language,
        material_hash=record.material_hash,
        settings=replace(settings, judge=judge),
        judge=None,
    )

    def ask() -> JudgeAnswer:
        if replies:
            return JudgeAnswer(text=replies.pop(0))
        message = record.reason or "the stored audit ended here"
        if failure is None or failure in ResponseError.KINDS:
            raise ResponseError(failure or "reply-missing", message)
        raise TransportError(message, kind=failure, retryable=False)

    outcome = ask_until_verdict(attempts, ask, lambda _s: None)
    if outcome.status == "verdict":
        return outcome
    kind = outcome.error_kind or "reply-missing"
    return replace(outcome, reason=record.reason or f"judge failure ({kind})")


def _compare(diffs: list[Difference], name: str, stored: Any, replayed: Any) -> None:
    if stored != replayed:
        diffs.append(Difference(name, stored, replayed))


def _loop_view(state: dict[str, Any] | None) -> dict[str, Any] | None:
    if state is None:
        return None
    view = {k: state.get(k) for k in LOOP_FIELDS}
    view["chain"] = list(view["chain"] or [])
    return view


def _loop_state(data: dict[str, Any] | None) -> LoopState:
    try:
        return LoopState.from_json(data or {})
    except ValueError as exc:
        raise ReplayError(f"its loop_before is not a valid loop state ({exc})") from None


def _compare_action(diffs: list[Difference], record: Record, action: Any, after: LoopState) -> None:
    stored = record.action or {}
    _compare(diffs, "action.kind", stored.get("kind"), action.kind)
    _compare(diffs, "action.round", stored.get("round"), action.round)
    if record.loop_after is not None:
        _compare(diffs, "loop_after", _loop_view(record.loop_after), _loop_view(after.to_json()))


def _replay_cancelled(record: Record) -> list[Difference]:
    before = _loop_state(record.loop_before)
    after, action = cancel(before, _max_supplements(record))
    diffs: list[Difference] = []
    _compare_action(diffs, record, action, after)
    return diffs


def _max_supplements(record: Record) -> int:
    try:
        return validate_max_supplements(record.max_supplements)
    except ValueError as exc:
        raise ReplayError(str(exc)) from None


def _over_budget_outcome(record: Record, material: Material) -> AuditOutcome | None:
    """Re-render with the current templates and re-check the stored budget: the
    over-budget outcome, or ``None`` when the material now fits."""
    settings = settings_of(record)
    prepared = render_audit(number(material), settings, language=record.language or None)
    return budget_refusal(prepared, settings)


def _with_evidence(
    record: Record, outcome: AuditOutcome, numbering: Numbering, diffs: list[Difference]
) -> AuditOutcome:
    """The outcome of a verdict the evidence step decided (issue 21): the stored note
    goes back on it (the supplement quotes it), and today's claim and outcome reading
    must decide it again (:func:`jev.evidence.finding.recheck`)."""
    # lazy: the evidence package only for records it decided
    from jev.base.domain import EvidenceNote
    from jev.evidence.finding import recheck

    assert record.evidence is not None
    try:
        note = EvidenceNote.from_json(record.evidence)
    except (KeyError, TypeError, ValueError) as exc:
        raise ReplayError(f"its evidence is not readable ({exc})") from None
    why = recheck(note, numbering, str((record.focus or {}).get("id") or ""))
    if why:
        diffs.append(Difference("evidence", f"{note.rule}: {note.quote}", why))
    return replace(outcome, evidence=note)


def replay_record(record: Record) -> tuple[Difference, ...]:
    """Run one stored record through the current parsing, loop and supplement code and
    return every difference from what it stored (empty: the same). See the module
    docstring for the steps.

    Raises:
        ReplayError: the record cannot be replayed (no material for an audit record,
            an invalid loop state or ``max_supplements``).
    """
    if record.status == "cancelled":
        return tuple(_replay_cancelled(record))
    if record.material is None:
        raise ReplayError(f"a {record.status} record without material cannot be replayed")
    material = Material.from_json(record.material)
    snapshot = settings_of(record)
    diffs: list[Difference] = []

    if record.status == "skipped" or not material.todo_used:
        # The Todo gate of design.md §2 (jev.pipeline.audit): no Todo use -> skipped, no judge call.
        outcome = AuditOutcome(status="skipped", reason=record.reason)
        replayed_status = "skipped" if not material.todo_used else "audit due (Todo used)"
        _compare(diffs, "status", record.status, replayed_status)
        if diffs:
            return tuple(diffs)
    elif record.error_kind == "over-budget":
        refused = _over_budget_outcome(record, material)
        if refused is None:
            diffs.append(
                Difference(
                    "status",
                    f"incomplete (over-budget: {record.input_chars} > {record.budget_chars} chars)",
                    f"within budget with the current templates ({record.budget_chars} chars)",
                )
            )
            return tuple(diffs)
        outcome = refused
    else:
        numbering = number(material)
        outcome = outcome_from_replies(record, numbering, snapshot)
        if record.evidence is not None:
            outcome = _with_evidence(record, outcome, numbering, diffs)

    if outcome.status != "skipped":
        stored_status = record.status
        if record.status == "stale":  # a verdict (or failure) the turn outran
            stored_status = "verdict" if record.assessment is not None else "incomplete"
        _compare(diffs, "status", stored_status, outcome.status)
        verdict = outcome.verdict
        _compare(diffs, "assessment", record.assessment, verdict.assessment if verdict else None)
        focus = record.focus or {}
        _compare(diffs, "focus.id", focus.get("id"), verdict.focus.id if verdict else None)
        _compare(diffs, "focus.quote", focus.get("quote"), verdict.focus.text if verdict else None)
        _compare(diffs, "error_kind", record.error_kind, outcome.error_kind)

    if record.status == "stale":
        return tuple(diffs)  # the verdict was never acted upon: no loop decision

    before = _loop_state(record.loop_before)
    settings = replace(snapshot, max_supplements=_max_supplements(record))
    if not outcome.language:
        outcome = replace(outcome, language=record.language)
    try:
        done = conclude(before, outcome, settings, steer=record.steer, with_notice=False)
    except ValueError as exc:
        raise ReplayError(f"the loop refused the outcome ({exc})") from None
    _compare_action(diffs, record, done.action, done.after)
    if record.supplement_text is not None or done.action.kind != "supplement":
        # A supplement decided but never sent (``jev audit`` has no agent to send it
        # to) stored no text: only its action is compared.
        _compare(diffs, "supplement_text", record.supplement_text, done.supplement)
    return tuple(diffs)


def replay_entry(entry: Entry) -> RecordReplay:
    """Replay one entry; never raises for a bad record (it becomes an ``error`` result)."""
    if entry.record is None:
        return RecordReplay(entry, error=entry.error or "not a record")
    try:
        return RecordReplay(entry, replay_record(entry.record))
    except ReplayError as exc:
        return RecordReplay(entry, error=f"cannot replay: {exc}")


@dataclass(slots=True)
class ReplaySummary:
    """Counts of an offline replay and the records that did not replay the same.

    Attributes:
        records: entries read.
        same, changed, errors: how they replayed.
        problems: the ``changed`` and ``error`` replays, in source order.
    """

    records: int = 0
    same: int = 0
    changed: int = 0
    errors: int = 0
    problems: list[RecordReplay] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when every record replayed the same."""
        return self.changed == 0 and self.errors == 0

    def add(self, result: RecordReplay, *, keep: bool = True) -> None:
        """Count one replay; keep it in :attr:`problems` when not the same and ``keep``."""
        self.records += 1
        if result.result == "same":
            self.same += 1
            return
        if result.result == "changed":
            self.changed += 1
        else:
            self.errors += 1
        if keep:
            self.problems.append(result)

    def to_json(self) -> dict[str, Any]:
        return {
            "records": self.records,
            "same": self.same,
            "changed": self.changed,
            "errors": self.errors,
            "problems": [p.to_json() for p in self.problems],
        }

    def line(self) -> str:
        """The one-line summary: records, same, changed, errors."""
        return (
            f"jev replay: {self.records} records · {self.same} same · {self.changed} changed · "
            f"{self.errors} errors"
        )

    def describe(self) -> str:
        """Every kept problem with both sides, then the one-line summary."""
        return "\n".join([*(p.describe() for p in self.problems), self.line()])


def replay(
    entries: Iterable[Entry],
    *,
    on_result: Callable[[RecordReplay], None] | None = None,
    keep_problems: bool = True,
) -> ReplaySummary:
    """Replay every entry offline, streaming.

    Args:
        entries: the records (read lazily).
        on_result: called with each replay as it is made (e.g. to print problems).
        keep_problems: keep the changed/error replays in :attr:`ReplaySummary.problems`;
            pass ``False`` (and print them from ``on_result``) to keep memory flat even
            when every record changed.
    """
    summary = ReplaySummary()
    for entry in entries:
        result = replay_entry(entry)
        summary.add(result, keep=keep_problems)
        if on_result is not None:
            on_result(result)
    return summary
