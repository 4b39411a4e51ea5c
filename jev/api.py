"""The Python API any host drives when an agent turn is about to stop (SPEC §2, §8, §11, §14).

A host — a Claude Code Stop hook, a Codex hook, or your own agent loop — calls
:meth:`Auditor.on_stop` with the turn's current material and its ids. The auditor

1. applies the trigger rules (profile enabled, Todo used in this turn; SPEC §2),
2. claims the turn in the state store (a lease, so concurrent stop invocations of the
   same turn never double count; an identical repeat returns the stored decision),
3. runs one audit (:func:`jev.audit.run_audit`: one judge call plus technical retries),
4. applies the supplement loop (:func:`jev.loop.decide`), renders the supplement or
   notice text, and writes one record — state and record in one transaction.

It returns a :class:`Decision`: what the host should do next.

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

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from jev import __version__
from jev.domain import AuditOutcome, Material, Settings
from jev.loop import Action, LoopState

if TYPE_CHECKING:
    from jev.judges import Judge
    from jev.store import Record, Store, TurnKey, TurnRow

__all__ = ["Auditor", "Decision", "build_record"]

#: Decision actions (SPEC §8 plus host-side outcomes).
ACTIONS = (
    "finish",
    "supplement",
    "hand-to-user",
    "exhausted",
    "incomplete",
    "skip",
    "cancelled",
    "busy",
    "stale",
)

#: Extra seconds on top of the worst-case judge time before a claim lease expires.
LEASE_MARGIN_S = 30.0
#: A stop with material identical to the last decided stop of the turn, within this
#: many seconds of that decision, is a duplicate invocation of the same stop (e.g. the
#: hook installed twice): it gets the stored answer and counts nothing. Later, it is a
#: new stop of an agent that changed nothing: it is audited and counted again, so a
#: host that keeps re-stopping without progress still runs out of supplements.
DUPLICATE_WINDOW_S = 15.0


@dataclass(frozen=True, slots=True)
class Decision:
    """What the host should do after an audit (or after deciding not to audit).

    Attributes:
        action: one of ``finish`` (turn ends normally), ``supplement`` (send
            :attr:`supplement` back into the same turn), ``hand-to-user`` (needs-user),
            ``exhausted`` (budget used up; show the last verdict), ``incomplete`` (the
            audit did not complete; the user may retry or cancel), ``skip`` (no audit
            was due), ``cancelled``, ``busy`` (another process is auditing this turn
            right now) or ``stale`` (the turn moved on before the verdict was acted on;
            nothing is sent, SPEC §14).
        supplement: the supplement text for ``supplement``, else ``None``.
        notice: one short line for the user ("" when there is nothing to say).
        outcome: the audit outcome when an audit ran, else ``None``.
        state: the turn's loop state after the decision (``None`` for skip).
        record_id: id of the record written, if any.
    """

    action: str
    supplement: str | None = None
    notice: str = ""
    outcome: AuditOutcome | None = None
    state: LoopState | None = None
    record_id: int | None = None

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready summary (used as the stored decision of a turn)."""
        return {
            "action": self.action,
            "supplement": self.supplement,
            "notice": self.notice,
            "record_id": self.record_id,
        }


class Auditor:
    """Audit turns for one host and apply the per-turn supplement loop (SPEC §8).

    Args:
        profile: profile name (``None``: ``JEV_PROFILE`` or ``default``). Settings are
            re-read from disk at every call, so a saved change applies at once.
        settings: fixed settings instead of reading the profile (tests, embedding).
        judge: the judge to ask; ``None`` creates one from the settings' ``[judge]``.
        store: the records/state store; ``None`` opens ``$JEV_HOME/jev.sqlite3``.
        host: host name written to records and part of the turn key.
        honour_enabled: when True (hooks), a disabled profile skips every turn. The
            ``jev audit`` command passes False: an explicit request runs regardless.
        sleep: called with seconds to wait before a technical retry.
        now: clock in epoch seconds (leases, record times).
        duplicate_window_s: seconds within which an identical stop is a duplicate
            (see :data:`DUPLICATE_WINDOW_S`).

    Raises:
        jev.errors.SettingsError: the profile file is invalid (from the first call).
        jev.errors.StoreError: the store cannot be opened.
    """

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
        self.host = host
        self.honour_enabled = honour_enabled
        self._sleep = sleep
        self._now = now

    # -- helpers -------------------------------------------------------------------

    def settings(self) -> Settings:
        """The effective settings for this call (re-read from the profile each time)."""
        if self._fixed_settings is not None:
            return self._fixed_settings
        from jev.settings import load_settings

        return load_settings(self._profile)

    def _judge_for(self, settings: Settings) -> Judge:
        if self._judge is None:
            from jev.judges import create_judge

            self._judge = create_judge(settings.judge)
        return self._judge

    @property
    def store(self) -> Store:
        """The records/state store (opened on first use)."""
        if self._store is None:
            from jev.store import Store

            self._store = Store()
        return self._store

    def close(self) -> None:
        """Close the judge this auditor created (HTTP clients)."""
        if self._own_judge and self._judge is not None:
            self._judge.close()
            self._judge = None

    def __enter__(self) -> Auditor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _key(self, session: str, turn: str) -> TurnKey:
        from jev.store import TurnKey

        return TurnKey(self.host, session, turn)

    # -- the three calls -----------------------------------------------------------

    def on_stop(
        self, session: str, turn: str, material: Material, *, turn_number: int | None = None
    ) -> Decision:
        """The turn is about to stop: audit it if due and decide what happens next.

        Args:
            session: the host's session id.
            turn: the turn key (stable across Jev's own supplements within the turn).
            material: the complete current material of the turn (SPEC §3).
            turn_number: the turn's 1-based number in the session, for records.

        Returns:
            A :class:`Decision`. Judge and budget failures come back as
            ``incomplete`` decisions, never as exceptions.

        Raises:
            jev.errors.SettingsError, jev.errors.StoreError: configuration or storage
                is unusable (hosts fail open on these).
        """
        return self._audit_turn(
            session, turn, material, turn_number=turn_number, force=False, steer=True
        )

    def retry(
        self,
        session: str,
        turn: str,
        material: Material,
        *,
        turn_number: int | None = None,
        can_steer: bool = False,
    ) -> Decision:
        """Audit the turn again with the complete current material and saved settings.

        Used after an incomplete audit (e.g. after raising ``evidence_chars``, SPEC §7).
        The identical-material shortcut is bypassed; a cancelled turn is reopened;
        earlier counts are kept.

        Args:
            can_steer: whether the caller can send a supplement into the turn right
                now (an agent loop that is still running). False (the default, e.g.
                ``jev retry`` from a shell after the turn stopped): the retry uses no
                supplement — a problem verdict is handed to the user instead (SPEC §7).
        """
        return self._audit_turn(
            session, turn, material, turn_number=turn_number, force=True, steer=can_steer
        )

    def cancel(self, session: str, turn: str) -> Decision:
        """End the turn's audit without rewriting its outcome (SPEC §8 "cancel")."""
        from jev.loop import cancel

        key = self._key(session, turn)
        settings = self.settings()

        def apply(row: TurnRow | None) -> tuple[TurnRow | None, list[Record], Decision]:
            before = _state_of(row)
            after, action = cancel(before, settings.max_supplements)
            decision = Decision(
                action="cancelled", notice=self._notice(after, action, None, settings), state=after
            )
            record = build_record(
                key,
                settings,
                before,
                after,
                action,
                None,
                Material(()),
                None,
                status="cancelled",
                now=self._now,
            )
            return _row(key, row, after, decision, lease=None), [record], decision

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
    ) -> Decision:
        from jev.audit import SKIP_NO_TODO, run_audit
        from jev.loop import should_audit

        settings = self.settings()
        if self.honour_enabled and not settings.enabled:
            return Decision(action="skip", notice="")
        if not material.todo_used:
            return Decision(
                action="skip", notice="", outcome=AuditOutcome("skipped", reason=SKIP_NO_TODO)
            )

        key = self._key(session, turn)
        digest = material.digest()
        judge_time = settings.judge.timeout_s * (1 + settings.judge.technical_retries)
        lease_s = judge_time + LEASE_MARGIN_S

        def claim(row: TurnRow | None) -> tuple[TurnRow | None, list[Record], Decision | None]:
            now = self._now()
            state = _state_of(row)
            if row is not None and row.lease_until is not None and row.lease_until > now:
                return None, [], Decision(action="busy", notice="", state=state)
            if (
                not force
                and row is not None
                and row.material_hash == digest
                and row.decision is not None
                and row.updated_at is not None
                and now - row.updated_at < self.duplicate_window_s
            ):
                # The same stop again (duplicate hook invocation): same answer, no count.
                return None, [], _decision_from_json(row.decision, state)
            if force and state.status == "cancelled":
                state = replace(state, status="auditing")
            if not should_audit(state, settings.max_supplements):
                from jev.loop import decide

                # Exhausted or cancelled: show where the turn stands, audit nothing.
                _, action = decide(state, AuditOutcome("skipped"), settings.max_supplements)
                action = replace(
                    action, kind="exhausted" if state.status == "exhausted" else state.status
                )
                return (
                    None,
                    [],
                    Decision(
                        action=action.kind,
                        notice=self._notice(state, action, None, settings),
                        state=state,
                    ),
                )
            new_row = _row(key, row, state, None, lease=now + lease_s, material_hash=digest)
            return new_row, [], None

        claimed = self._transact(key, claim)
        if claimed is not None:
            return claimed

        judge = self._judge_for(settings)
        outcome = run_audit(material, settings, judge, sleep=self._sleep)

        def finish(row: TurnRow | None) -> tuple[TurnRow | None, list[Record], Decision]:
            from jev.loop import decide

            before = _state_of(row)
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
                    now=self._now,
                )
                return None, [rec], Decision(action="stale", outcome=outcome, state=before)
            after, action = decide(before, outcome, settings.max_supplements, steer=steer)
            supplement = None
            if action.kind == "supplement" and outcome.verdict is not None:
                from jev.texts import supplement_text

                supplement = supplement_text(outcome.verdict, action, outcome.language or "en")
            focus = outcome.verdict.focus if outcome.verdict is not None else None
            notice = self._notice(after, action, focus, settings, outcome=outcome)
            decision = Decision(
                action=action.kind,
                supplement=supplement,
                notice=notice,
                outcome=outcome,
                state=after,
            )
            rec = build_record(
                key,
                settings,
                before,
                after,
                action,
                outcome,
                material,
                turn_number,
                status=outcome.status,
                supplement=supplement,
                now=self._now,
                steer=steer,
            )
            return (
                _row(key, row, after, decision, lease=None, material_hash=digest),
                [rec],
                decision,
            )

        decision = self._transact(key, finish, settings.records_days)
        assert decision is not None
        return decision

    def _transact(
        self, key: TurnKey, fn: Callable[..., Any], records_days: int = 30
    ) -> Decision | None:
        """Run ``fn(row) -> (new_row|None, records, result)`` in one store transaction.

        When ``result`` is a :class:`Decision` and a record was written, the decision
        carries the new record's id.
        """
        result, ids = self.store.update_turn_and_record(
            key, fn, now=self._now, records_days=records_days
        )
        if result is None:
            return None
        if not isinstance(result, Decision):  # pragma: no cover - programming error
            raise TypeError(f"turn transaction returned {type(result).__name__}")
        return replace(result, record_id=ids[-1]) if ids else result

    def _notice(
        self,
        state: LoopState,
        action: Action,
        focus: Any,
        settings: Settings,
        *,
        outcome: AuditOutcome | None = None,
    ) -> str:
        from jev.texts import incomplete_notice, report_line

        language = (outcome.language if outcome is not None else "") or _ui_language(settings)
        if action.kind == "incomplete":
            reason = outcome.reason if outcome is not None else action.reason
            return incomplete_notice(reason, language)
        return report_line(state, action, focus, language)


def build_record(
    key: TurnKey,
    settings: Settings,
    before: LoopState,
    after: LoopState,
    action: Action,
    outcome: AuditOutcome | None,
    material: Material,
    turn_number: int | None,
    *,
    status: str,
    supplement: str | None = None,
    now: Callable[[], float] = time.time,
    steer: bool = True,
) -> Record:
    """Build the audit record of SPEC §11 (shared by :class:`Auditor` and ``jev audit``).

    Args:
        key: host + session + turn ids.
        settings: the settings in force (snapshot; holds the key's variable NAME only).
        before, after: loop state before and after the decision.
        action: the loop's action.
        outcome: the audit outcome (``None`` for cancel).
        material: the full material judged.
        turn_number: 1-based turn number in the session, if known.
        status: ``verdict`` | ``skipped`` | ``incomplete`` | ``stale`` | ``cancelled``.
        supplement: the supplement text sent, if any.
        now: clock in epoch seconds.
        steer: whether a supplement could be sent (False for a shell retry).
    """
    from datetime import UTC, datetime

    from jev.store import Record

    verdict = outcome.verdict if outcome is not None else None
    focus = None
    if verdict is not None:
        f = verdict.focus
        focus = {"id": f.id, "kind": f.kind, "index": f.index, "quote": f.text, "status": f.status}
    usage = outcome.usage.to_json() if outcome is not None and outcome.usage is not None else None
    created = datetime.fromtimestamp(now(), tz=UTC).isoformat(timespec="milliseconds")
    return Record(
        id=None,
        created_at=created,
        profile=settings.profile,
        host=key.host,
        session=key.session,
        turn=key.turn,
        turn_number=turn_number,
        round=after.audits if status == "verdict" else before.audits + 1,
        status=status,
        material=material.to_json(),
        material_hash=outcome.material_hash if outcome is not None else material.digest(),
        input_chars=outcome.input_chars if outcome is not None else None,
        budget_chars=settings.evidence_chars,
        judge=(
            outcome.judge.to_json()
            if outcome is not None and outcome.judge is not None
            else {
                "provider": settings.judge.provider,
                "model": settings.judge.model,
                "heuristic": settings.judge.provider == "rules",
            }
        ),
        raw_replies=list(outcome.raw_replies) if outcome is not None else [],
        assessment=verdict.assessment if verdict is not None else None,
        focus=focus,
        confidence=verdict.confidence if verdict is not None else None,
        loop_before=before.to_json(),
        loop_after=after.to_json(),
        action=action.to_json(),
        supplement_text=supplement,
        supplements_used=after.supplements_used,
        max_supplements=settings.max_supplements,
        error_kind=outcome.error_kind if outcome is not None else None,
        reason=(outcome.reason if outcome is not None else action.reason),
        latency_ms=outcome.latency_ms if outcome is not None else 0.0,
        usage=usage,
        attempts=outcome.attempts if outcome is not None else 0,
        settings=settings.to_json(),
        jev_version=__version__,
        template_hash=outcome.template_hash if outcome is not None else "",
        language=outcome.language if outcome is not None else "",
        steer=steer,
    )


def _ui_language(settings: Settings) -> str:
    return settings.language if settings.language in ("en", "zh") else "en"


def _state_of(row: TurnRow | None) -> LoopState:
    if row is None or not row.state:
        return LoopState()
    return LoopState.from_json(row.state)


def _row(
    key: TurnKey,
    row: TurnRow | None,
    state: LoopState,
    decision: Decision | None,
    *,
    lease: float | None,
    material_hash: str | None = None,
) -> TurnRow:
    from jev.store import TurnRow

    return TurnRow(
        key=key,
        state=state.to_json(),
        material_hash=material_hash
        if material_hash is not None
        else (row.material_hash if row else None),
        decision=decision.to_json() if decision is not None else None,
        lease_until=lease,
        updated_at=row.updated_at if row is not None else None,
    )


def _decision_from_json(data: dict[str, Any], state: LoopState) -> Decision:
    return Decision(
        action=str(data.get("action", "finish")),
        supplement=data.get("supplement"),
        notice=str(data.get("notice") or ""),
        state=state,
        record_id=data.get("record_id"),
    )
