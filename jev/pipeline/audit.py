"""The orchestrator: one audit, in the order of its steps (design.md §2–§8, §11, §14).

Every audit — a host's Stop hook, an agent loop using the API, ``jev audit``,
``jev retry``, ``jev eval`` and replay — runs through this module. :func:`run_audit` is
one audit of a turn's material, the steps of :mod:`jev.pipeline` in order:

1. **gate** (:func:`~jev.pipeline.gate.gate`) — no Todo use: ``skipped``, no judge call;
2. **material** (:func:`~jev.pipeline.material.number`) — numbered into positions;
3. **render** (:func:`~jev.pipeline.render.render_audit`) — the whole judge input; then,
   given the turn's runs, :func:`jev.evidence.step.before_judge` may decide alone;
4. **budget** (:func:`~jev.pipeline.budget.budget_refusal`) — input over
   ``evidence_chars`` is refused: ``incomplete``, nothing truncated;
5. **ask and parse** (:func:`~jev.pipeline.ask.ask`) — the reply parsed
   (:mod:`jev.pipeline.parse`), technical retries; then the user's checks, if asked for.

:class:`Auditor` runs it inside the turn's loop: it claims the turn in the store (a
lease, so concurrent stops never double count: :mod:`jev.pipeline.turn_state`), runs
:func:`run_audit`, then in one transaction

6. **decide** (:func:`~jev.pipeline.decide.conclude`) — folds the outcome into the turn's
   loop state and renders the supplement or notice (:mod:`jev.pipeline.texts`);
7. **record** (:func:`~jev.pipeline.record.build_record`) — one record, with the new state.

The judge, the store, the clock and the sleep function are arguments, so tests,
``jev audit --no-record`` (an in-memory store), eval and replay swap them without
patching.

Example (a plain agent loop; runs in the tests with a scripted judge)::

    auditor = Auditor(judge=my_judge, host="my-loop")
    while True:
        answer, todos = agent.run(request_messages)
        material = Material(tuple(request_messages), todos, answer, todo_used=True)
        decision = auditor.on_stop("session-1", "turn-1", material)
        if decision.action != "supplement":
            print(decision.notice)
            break
        agent.steer(decision.supplement)   # same turn, same Todo list
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from jev import log
from jev.base.domain import AuditOutcome, InputNote, Material, Settings, merge_notes
from jev.base.loop_state import Action
from jev.base.record import Record
from jev.judges import create_judge
from jev.pipeline.ask import ask
from jev.pipeline.budget import budget_refusal
from jev.pipeline.decide import Decision, cancel, conclude, notice_for, ui_language
from jev.pipeline.gate import SKIP_NO_TODO, gate
from jev.pipeline.material import number
from jev.pipeline.record import build_record
from jev.pipeline.render import render_audit
from jev.pipeline.texts import incomplete_notice
from jev.pipeline.turn_state import (
    DUPLICATE_WINDOW_S,
    JUDGE_CALLS_KEY,
    REPLY_KEY,
    STOP_KEY,
    claim_turn,
    judge_calls,
    judge_for_turn,
    lease_seconds,
    state_of,
    turn_row,
    with_calls,
)
from jev.settings.profiles import load_settings
from jev.store import Store, TurnKey, TurnRow

if TYPE_CHECKING:
    from jev.evidence.step import EvidenceInput
    from jev.judges import Judge

__all__ = ["Auditor", "run_audit"]


def run_audit(
    material: Material,
    settings: Settings,
    judge: Judge,
    *,
    language: str | None = None,
    sleep: Callable[[float], None] = time.sleep,
    evidence: EvidenceInput | None = None,
) -> AuditOutcome:
    """Run one audit attempt of a turn's material: steps 1–5 (design.md §2–§7).

    Args:
        material: the turn's request, latest Todo list and final answer.
        settings: the effective profile (budget, language, judge retries).
        judge: any :class:`jev.judges.Judge`; asked once, plus at most
            ``settings.judge.technical_retries`` technical retries.
        language: overrides ``settings.language`` (``auto``/``en``/``zh``).
        sleep: called with the seconds to wait before a technical retry.
        evidence: the turn's runs and whether checks may run (issue 21,
            :mod:`jev.evidence.step`): a claim the turn's last matching run
            contradicts is ``contradiction`` with no judge call; a ``complete``
            verdict followed by a failed check is ``omission``. ``None``: no evidence
            step.

    Returns:
        ``skipped`` (no Todo use), ``verdict`` (a normal audit) or ``incomplete``
        (over budget: no judge call; or judge failure after the retries). Never raises
        for judge or budget problems; :class:`jev.base.errors.JevError` from rendering
        (e.g. a broken installation) propagates.
    """
    # 1. gate: a turn without Todo use is skipped
    skipped = gate(material, settings, judge.info)
    if skipped is not None:
        return skipped
    # 2. material: numbered into positions; 3. render: the whole judge input
    with log.timed("render"):
        prepared = render_audit(number(material), settings, language=language)
    if evidence is not None:
        # lazy: the evidence step only when the caller passed the turn's runs or checks
        from jev.evidence.step import before_judge

        with log.timed("evidence"):
            decided = before_judge(
                prepared.numbering,
                settings,
                evidence,
                language=prepared.language,
                material_hash=material.digest(),
                template_hash=prepared.judge_input.template_hash,
            )
        if decided is not None:
            return replace(decided, input_chars=prepared.judge_input.chars)
    # 4. budget: refused when too large, never truncated
    with log.timed("budget"):
        refused = budget_refusal(prepared, settings, judge.info)
    if refused is not None:
        return refused
    # 5. ask and parse, with the technical retries
    with log.timed("judge"):
        outcome = ask(judge, prepared, settings, sleep)
    if evidence is None:
        return outcome
    # lazy: as for before_judge
    from jev.evidence.step import after_judge

    with log.timed("checks"):
        return after_judge(outcome, prepared.numbering, settings, evidence)


class Auditor:
    """Audit turns for one host and apply the per-turn supplement loop (design.md §8).

    Args:
        profile: profile name (``None``: ``JEV_PROFILE`` or ``default``). Settings are
            re-read from disk at every call, so a saved change applies at once.
        settings: fixed settings instead of reading the profile (tests, embedding).
        judge: the judge to ask; ``None`` creates one from the settings' ``[judge]``
            (once, and reused for every call; closed by :meth:`close`).
        store: the records/state store; ``None`` opens ``$JEV_HOME/jev.sqlite3``. Pass
            ``Store(":memory:")`` to keep nothing (``jev audit --no-record``).
        host: host name written to records and part of the turn key.
        honour_enabled: when True (hooks), a disabled profile skips every turn. The
            ``jev audit`` and ``jev retry`` commands pass False: an explicit request
            runs regardless.
        sleep: called with seconds to wait before a technical retry.
        now: clock in epoch seconds (leases, record times).
        duplicate_window_s: seconds within which an identical stop is a duplicate
            (see :data:`jev.pipeline.turn_state.DUPLICATE_WINDOW_S`).

    Raises:
        jev.base.errors.SettingsError: the profile file is invalid (from the first call).
        jev.base.errors.StoreError: the store cannot be opened.
    """

    #: The evidence of the next audit (issue 21, :mod:`jev.evidence.step`): the turn's
    #: runs and whether the user's checks may run. ``None``: no evidence step. The
    #: caller sets it before :meth:`on_stop`/:meth:`audit` (the hook, ``jev audit``).
    evidence: EvidenceInput | None = None

    def __init__(
        self,
        *,
        profile: str | None = None,
        settings: Settings | None = None,
        judge: Judge | None = None,
        store: Store | None = None,
        host: str = "api",
        honour_enabled: bool = True,
        sleep: Callable[[float], None] = time.sleep,
        now: Callable[[], float] = time.time,
        duplicate_window_s: float = DUPLICATE_WINDOW_S,
    ) -> None:
        self._profile = profile
        self.duplicate_window_s = duplicate_window_s
        self._fixed_settings = settings
        self._judge = judge
        self._own_judge = judge is None
        self._store = store
        self._own_store = store is None
        self.host = host
        #: ``None``: committed records are exported at once (:mod:`jev.telemetry.export`); a
        #: list (the Stop hook sets one): they are collected here, for the caller to
        #: export after its answer is delivered (issue 23).
        self.unexported: list[Record] | None = None
        self.honour_enabled = honour_enabled
        self._sleep = sleep
        self._now = now

    # -- helpers -------------------------------------------------------------------

    def settings(self) -> Settings:
        """The effective settings for this call (re-read from the profile each time)."""
        if self._fixed_settings is not None:
            return self._fixed_settings
        return load_settings(self._profile)

    def judge(self, settings: Settings | None = None) -> Judge:
        """The judge asked (created from ``settings.judge`` on first use)."""
        if self._judge is None:
            self._judge = create_judge((settings or self.settings()).judge)
        return self._judge

    @property
    def store(self) -> Store:
        """The records/state store (opened on first use)."""
        if self._store is None:
            self._store = Store()
        return self._store

    def close(self) -> None:
        """Close the judge and store this auditor created (HTTP clients, database)."""
        if self._own_judge and self._judge is not None:
            self._judge.close()
            self._judge = None
        if self._own_store and self._store is not None:
            self._store.close()
            self._store = None

    def __enter__(self) -> Auditor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _key(self, session: str, turn: str) -> TurnKey:
        return TurnKey(self.host, session, turn)

    # -- the calls -----------------------------------------------------------------

    def on_stop(
        self,
        session: str,
        turn: str,
        material: Material,
        *,
        turn_number: int | None = None,
        notes: Sequence[InputNote] = (),
        stop: str = "",
    ) -> Decision:
        """The turn is about to stop: audit it if due and decide what happens next.

        Args:
            session: the host's session id.
            turn: the turn key (stable across Jev's own supplements within the turn).
            material: the complete current material of the turn (design.md §3).
            turn_number: the turn's 1-based number in the session, for records.
            notes: what was changed in the input to read the material (lone
                surrogates replaced by U+FFFD, :class:`jev.base.domain.InputNote`); kept in
                the record's ``input_notes`` (design.md §11). Lone surrogates still in
                ``material`` are replaced here and noted ("the material").
            stop: the identity of this host stop ("" when unknown): a digest of the
                hook's stdin and the transcript's size (:func:`jev.hosts.stopkit.stop_identity`). A
                stop whose identity is that of the stop which got the turn's last
                supplement is a duplicate invocation of it (a hook registered twice,
                issue 23): it answers nothing (``busy``) and counts nothing, since
                the first invocation delivers the block (design.md §8).

        Returns:
            A :class:`Decision`. Judge and budget failures come back as
            ``incomplete`` decisions, never as exceptions.

        Raises:
            jev.base.errors.SettingsError, jev.base.errors.StoreError: configuration or storage
                is unusable (hosts fail open on these).
        """
        return self._audit_turn(
            session,
            turn,
            material,
            turn_number=turn_number,
            force=False,
            steer=True,
            notes=notes,
            stop=stop,
        )

    def audit(
        self,
        session: str,
        turn: str,
        material: Material,
        *,
        turn_number: int | None = None,
        notes: Sequence[InputNote] = (),
    ) -> Decision:
        """An explicit audit that steers nothing (``jev audit``; design.md §7).

        Like :meth:`on_stop`, but the identical-material shortcut is bypassed and no
        supplement is sent: a problem verdict is handed to the user. Same returns and
        errors as :meth:`on_stop`.
        """
        return self._audit_turn(
            session, turn, material, turn_number=turn_number, force=True, steer=False, notes=notes
        )

    def retry(
        self,
        session: str,
        turn: str,
        material: Material,
        *,
        turn_number: int | None = None,
        can_steer: bool = False,
        notes: Sequence[InputNote] = (),
    ) -> Decision:
        """Audit the turn again with the complete current material and saved settings.

        Used after an incomplete audit (e.g. after raising ``evidence_chars``, design.md §7).
        The identical-material shortcut is bypassed; a cancelled turn is reopened;
        earlier counts are kept.

        Args:
            can_steer: whether the caller can send a supplement into the turn right
                now (an agent loop that is still running). False (the default, e.g.
                ``jev retry`` from a shell after the turn stopped): the retry uses no
                supplement — a problem verdict is handed to the user instead (design.md §7).
        """
        return self._audit_turn(
            session,
            turn,
            material,
            turn_number=turn_number,
            force=True,
            steer=can_steer,
            notes=notes,
        )

    def cancel(self, session: str, turn: str) -> Decision:
        """End the turn's audit without rewriting its outcome (design.md §8 "cancel")."""
        key = self._key(session, turn)
        settings = self.settings()

        def apply(row: TurnRow | None) -> tuple[TurnRow | None, list[Record], Decision]:
            before = state_of(row)
            after, action = cancel(before, settings.max_supplements)
            notice = notice_for(after, action, None, settings)
            decision = Decision(action="cancelled", notice=notice, state=after)
            record = build_record(
                key,
                settings,
                before,
                after,
                action,
                None,
                None,
                status="cancelled",
                now=self._now(),
            )
            return turn_row(key, row, after, decision, lease=None), [record], decision

        decision = self._transact(key, apply, settings.records_days)
        assert decision is not None
        return decision

    def undelivered(self, session: str, turn: str, reason: str) -> Decision:
        """A supplement Jev counted could not be written to the host: take it back.

        "Deliver, then count — or count, and always deliver" (issue 8): when the hook's
        answer cannot be written (closed pipe, host gone), the supplement counted by the
        last :meth:`on_stop` of the turn is returned to the budget, the turn's state
        becomes ``incomplete`` with ``reason``, and an ``incomplete`` record says so, so
        ``jev records show`` tells the truth. A turn whose last decision was not a
        supplement is left unchanged (the returned decision is then ``skip``).

        Raises:
            jev.base.errors.SettingsError, jev.base.errors.StoreError: as :meth:`on_stop`.
        """
        key = self._key(session, turn)
        settings = self.settings()

        def apply(row: TurnRow | None) -> tuple[TurnRow | None, list[Record], Decision]:
            before = state_of(row)
            sent = row is not None and (row.decision or {}).get("action") == "supplement"
            if not sent or before.status != "awaiting-supplement" or not before.supplements_used:
                return None, [], Decision(action="skip", state=before)
            after = replace(
                before,
                status="incomplete",
                supplements_used=before.supplements_used - 1,
                last_error=reason,
            )
            action = Action("incomplete", after.supplements_used, settings.max_supplements, reason)
            notice = incomplete_notice(reason, ui_language(settings))
            decision = Decision(action="incomplete", notice=notice, state=after)
            record = build_record(
                key,
                settings,
                before,
                after,
                action,
                None,
                None,
                status="incomplete",
                now=self._now(),
            )
            return turn_row(key, row, after, decision, lease=None), [record], decision

        decision = self._transact(key, apply, settings.records_days)
        assert decision is not None
        return decision

    # -- internals -----------------------------------------------------------------

    def _audit_turn(
        self,
        session: str,
        turn: str,
        material: Material,
        *,
        turn_number: int | None,
        force: bool,
        steer: bool,
        notes: Sequence[InputNote] = (),
        stop: str = "",
    ) -> Decision:
        settings = self.settings()
        material, replaced = material.scrubbed()
        if replaced:
            notes = merge_notes(notes, (InputNote("lone-surrogates", replaced, "the material"),))
        # 1. gate, for the turn: a disabled profile (hooks), no Todo use
        if self.honour_enabled and not settings.enabled:
            return Decision(action="skip", notice="")
        if not material.todo_used:
            return Decision(
                action="skip", notice="", outcome=AuditOutcome("skipped", reason=SKIP_NO_TODO)
            )

        key = self._key(session, turn)
        digest = material.digest()
        checks = self.evidence is not None and self.evidence.checks  # the user's checks run too
        lease_s = lease_seconds(settings, checks=bool(checks))

        reused: list[str | None] = [None]

        def claim(row: TurnRow | None) -> tuple[TurnRow | None, list[Record], Decision | None]:
            new_row, answer, reused[0] = claim_turn(
                row,
                key,
                settings,
                digest=digest,
                now=self._now(),
                lease_s=lease_s,
                force=force,
                stop=stop,
                duplicate_window_s=self.duplicate_window_s,
            )
            return new_row, [], answer

        # the claim of the turn's row: a lease, or the answer without an audit
        with log.timed("claim"):
            claimed = self._transact(key, claim)
        if claimed is not None:
            return claimed

        # steps 1-5 on the material, with the judge the turn's call cap allows
        judge, audit_settings = judge_for_turn(
            self.judge(settings),
            settings,
            reused[0],
            force=force,
            row=lambda: self.store.get_turn(key),
        )
        outcome = run_audit(
            material, audit_settings, judge, sleep=self._sleep, evidence=self.evidence
        )
        real_calls = 0 if reused[0] is not None else outcome.attempts
        reply = None
        if outcome.verdict is not None and outcome.raw_replies and outcome.evidence is None:
            # An evidence verdict is not replayed on an identical re-stop: the turn's runs
            # may have changed while the report did not; the step decides again.
            reply = outcome.raw_replies[-1]
        decide_ms = [0.0]  # for the log's decide and record steps (jev.log)

        # 6. decide and 7. record, with the turn's new row, in one transaction
        def finish(row: TurnRow | None) -> tuple[TurnRow | None, list[Record], Decision]:
            before = state_of(row)
            if row is not None and row.material_hash not in (None, digest):
                # A newer stop of this turn claimed it meanwhile: this verdict is stale.
                stale = Action(
                    kind="stale",
                    round=before.supplements_used,
                    max_supplements=settings.max_supplements,
                    reason="the turn moved on before the verdict was acted upon",
                )
                rec = build_record(
                    key,
                    settings,
                    before,
                    before,
                    stale,
                    outcome,
                    material,
                    turn_number,
                    status="stale",
                    now=self._now(),
                    steer=steer,
                    input_notes=notes,
                )
                counted = with_calls(row, judge_calls(row) + real_calls)
                return counted, [rec], Decision(action="stale", outcome=outcome, state=before)
            began = time.perf_counter()
            done = conclude(before, outcome, settings, steer=steer)
            decide_ms[0] = (time.perf_counter() - began) * 1000.0
            decision = Decision(
                action=done.action.kind,
                supplement=done.supplement,
                notice=done.notice,
                outcome=outcome,
                state=done.after,
            )
            rec = build_record(
                key,
                settings,
                before,
                done.after,
                done.action,
                outcome,
                material,
                turn_number,
                status=outcome.status,
                supplement=done.supplement,
                now=self._now(),
                steer=steer,
                input_notes=notes,
            )
            new_row = turn_row(key, row, done.after, decision, lease=None, material_hash=digest)
            new_row = replace(
                new_row, state={**new_row.state, JUDGE_CALLS_KEY: judge_calls(row) + real_calls}
            )
            if reply is not None and new_row.decision is not None:
                new_row.decision[REPLY_KEY] = reply
            if stop and new_row.decision is not None and decision.action == "supplement":
                new_row.decision[STOP_KEY] = stop
            return new_row, [rec], decision

        began = time.perf_counter()
        decision = self._transact(key, finish, settings.records_days)
        log.step("decide", decide_ms[0])
        log.step("record", (time.perf_counter() - began) * 1000.0 - decide_ms[0])
        assert decision is not None
        return decision

    def _transact(
        self, key: TurnKey, fn: Callable[..., Any], records_days: int = 30
    ) -> Decision | None:
        """Run ``fn(row) -> (new_row|None, records, result)`` in one store transaction.

        When ``result`` is a :class:`Decision` and a record was written, the decision
        carries the new record's id.
        """
        written: list[Any] = []

        def keep(row: Any) -> Any:
            new_row, records, result = fn(row)
            written[:] = list(records)
            return new_row, records, result

        result, ids = self.store.update_turn_and_record(
            key, keep, now=self._now, records_days=records_days
        )
        if ids and self.unexported is not None:  # the hook exports after its answer
            self.unexported.extend(written)
        elif ids:  # committed: export the audits (a no-op unless an OTLP endpoint is set)
            # lazy: logging and the exporter only once records are committed (not --no-record)
            from jev.telemetry.export import export_records

            notice = export_records(written)
            if notice:
                print(notice, file=sys.stderr)
        if result is None:
            return None
        if not isinstance(result, Decision):  # pragma: no cover - programming error
            raise TypeError(f"turn transaction returned {type(result).__name__}")
        return replace(result, record_id=ids[-1]) if ids else result
