"""The turn row the orchestrator keeps in the store (design.md §8, §11): the loop state
with the turn's count of real judge calls beside it, and the stored decision.

Helpers of :mod:`jev.pipeline.audit` over :class:`jev.store.TurnRow`; no I/O of their
own. :func:`claim_turn` is the claim of a turn before its audit: a lease, or the stop's
answer without an audit (busy, a duplicate stop, exhausted or cancelled, the call cap);
:func:`judge_for_turn` picks the judge of the audit within the turn's call cap.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from jev.base.domain import AuditOutcome, Settings
from jev.base.loop_state import LoopState
from jev.pipeline.decide import Decision, decide, notice_for, ui_language
from jev.pipeline.gate import should_audit
from jev.pipeline.texts import incomplete_notice
from jev.store import TurnKey, TurnRow

if TYPE_CHECKING:
    from jev.judges import Judge

__all__ = [
    "DUPLICATE_WINDOW_S",
    "JUDGE_CALLS_KEY",
    "LEASE_MARGIN_S",
    "REPLY_KEY",
    "STOP_KEY",
    "cap_reached",
    "claim_turn",
    "decision_from_json",
    "judge_call_cap",
    "judge_calls",
    "judge_for_turn",
    "lease_seconds",
    "state_of",
    "turn_row",
    "with_calls",
]

#: Key of the per-turn count of real judge calls, kept next to the loop state in the
#: store's turn row (not part of :class:`jev.base.loop_state.LoopState`; see
#: :func:`judge_call_cap`).
JUDGE_CALLS_KEY = "judge_calls"
#: Extra seconds on top of the worst-case judge time before a claim lease expires.
LEASE_MARGIN_S = 30.0
#: A stop with material identical to the last decided stop of the turn, within this
#: many seconds of that decision, repeats that stop: a non-block answer is given back
#: as it was and counts nothing; a block reuses the stored verdict (no judge call) and
#: is decided and counted again, so every block that leaves Jev is counted (issue 8).
#: Later, an identical stop is a new audit, counted as usual.
DUPLICATE_WINDOW_S = 15.0
#: Key of the last valid judge reply of the turn, kept in the stored decision, so an
#: identical re-stop reuses the verdict without a judge call and is still counted.
REPLY_KEY = "judge_reply"
#: Key of the identity of the host stop that got the turn's last block (issue 23).
STOP_KEY = "stop"


def judge_call_cap(settings: Settings) -> int:
    """Most real judge calls one turn may make from host stops (design.md §8; issue 8).

    ``max_supplements + 1 + judge.technical_retries``: N+1 normal audits plus the
    technical retries, shared by the whole turn whatever the host does (re-stops at
    any speed, ``needs-user`` continuations, failing judges). An explicit retry
    (``jev retry``) is not limited.
    """
    return settings.max_supplements + 1 + max(0, settings.judge.technical_retries)


def state_of(row: TurnRow | None) -> LoopState:
    """The loop state stored in ``row`` (a fresh one for a new turn)."""
    if row is None or not row.state:
        return LoopState()
    return LoopState.from_json(row.state)


def turn_row(
    key: TurnKey,
    row: TurnRow | None,
    state: LoopState,
    decision: Decision | None,
    *,
    lease: float | None,
    material_hash: str | None = None,
) -> TurnRow:
    """The row to store: ``state`` with the turn's judge-call count kept, ``decision``
    (or none), the lease end (epoch seconds, or None) and the material hash (``row``'s
    when not given)."""
    return TurnRow(
        key=key,
        state={**state.to_json(), JUDGE_CALLS_KEY: judge_calls(row)},
        material_hash=material_hash
        if material_hash is not None
        else (row.material_hash if row else None),
        decision=decision.to_json() if decision is not None else None,
        lease_until=lease,
        updated_at=row.updated_at if row is not None else None,
    )


def judge_calls(row: TurnRow | None) -> int:
    """Real judge calls made in the turn so far (0 for a new turn or an old row)."""
    if row is None or not row.state:
        return 0
    value = row.state.get(JUDGE_CALLS_KEY, 0)
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def with_calls(row: TurnRow | None, calls: int) -> TurnRow | None:
    """``row`` with its turn's judge-call count set to ``calls``."""
    if row is None:
        return None
    return replace(row, state={**row.state, JUDGE_CALLS_KEY: calls})


def cap_reached(state: LoopState, settings: Settings) -> Decision:
    """The turn used its judge-call cap: nothing is audited or sent any more."""
    reason = (
        f"this turn already made {judge_call_cap(settings)} judge calls "
        "(max_supplements + 1 + technical_retries); no further audit runs in it"
    )
    return Decision(
        action="exhausted" if state.supplements_used else "incomplete",
        notice=incomplete_notice(reason, ui_language(settings)),
        state=state,
    )


def decision_from_json(data: dict[str, Any], state: LoopState) -> Decision:
    """A stored decision (``Decision.to_json``) read back with the turn's ``state``."""
    return Decision(
        action=str(data.get("action", "finish")),
        supplement=data.get("supplement"),
        notice=str(data.get("notice") or ""),
        state=state,
        record_id=data.get("record_id"),
    )


def lease_seconds(settings: Settings, *, checks: bool) -> float:
    """How long a claim holds the turn: the worst-case judge time (every technical
    retry timing out), the user's checks when they run too, and :data:`LEASE_MARGIN_S`."""
    judge_time = settings.judge.timeout_s * (1 + settings.judge.technical_retries)
    lease_s = judge_time + LEASE_MARGIN_S
    if checks:
        lease_s += settings.evidence.check_timeout_s * len(settings.evidence.checks)
    return lease_s


def claim_turn(
    row: TurnRow | None,
    key: TurnKey,
    settings: Settings,
    *,
    digest: str,
    now: float,
    lease_s: float,
    force: bool,
    stop: str,
    duplicate_window_s: float,
) -> tuple[TurnRow | None, Decision | None, str | None]:
    """Claim the turn's row for an audit, inside the store transaction (design.md §8, §14).

    Args:
        row: the turn's stored row (``None`` for a new turn).
        key: the turn's key.
        settings: the profile (``max_supplements``, the judge-call cap).
        digest: ``Material.digest()`` of this stop's material.
        now: epoch seconds now; the lease runs ``lease_s`` seconds from it.
        force: an explicit audit or retry (no duplicate shortcut, no call cap; a
            cancelled turn is reopened).
        stop: the host stop's identity ("" when unknown).
        duplicate_window_s: seconds within which an identical stop is a duplicate.

    Returns:
        ``(new_row, answer, reused)``: the leased row to store and ``None`` to audit
        now, or ``None`` and the stop's answer without an audit (``busy``, a repeated
        answer, exhausted or cancelled, the call cap); ``reused`` is the stored judge
        reply an identical re-stop after a block decides again (no judge call).
    """
    reused: str | None = None
    state = state_of(row)
    if row is not None and row.lease_until is not None and row.lease_until > now:
        return None, Decision(action="busy", notice="", state=state), reused
    if stop and row is not None and (row.decision or {}).get(STOP_KEY) == stop:
        # A duplicate invocation of the stop that got the last block: it is
        # delivered by that invocation; this one says nothing, counts nothing.
        return None, Decision(action="busy", notice="", state=state), reused
    if (
        not force
        and row is not None
        and row.material_hash == digest
        and row.decision is not None
        and row.updated_at is not None
        and now - row.updated_at < duplicate_window_s
    ):
        if row.decision.get("action") != "supplement":
            # The same stop again with a non-block answer: same answer, no count.
            return None, decision_from_json(row.decision, state), reused
        # The same report again after a block: the stored verdict is reused (no
        # judge call) and decided again, so a repeated block is a counted block.
        reused = row.decision.get(REPLY_KEY)
    if force and state.status == "cancelled":
        state = replace(state, status="auditing")
    if not should_audit(state, settings.max_supplements):
        # Exhausted or cancelled: show where the turn stands, audit nothing.
        _, action = decide(state, AuditOutcome("skipped"), settings.max_supplements)
        kind = "exhausted" if state.status == "exhausted" else state.status
        action = replace(action, kind=kind)
        notice = notice_for(state, action, None, settings)
        return None, Decision(action=kind, notice=notice, state=state), reused
    if not force and reused is None and judge_calls(row) >= judge_call_cap(settings):
        return None, cap_reached(state, settings), reused
    new_row = turn_row(key, row, state, None, lease=now + lease_s, material_hash=digest)
    return new_row, None, reused


def judge_for_turn(
    real: Judge,
    settings: Settings,
    reused: str | None,
    *,
    force: bool,
    row: Callable[[], TurnRow | None],
) -> tuple[Judge, Settings]:
    """The judge and settings of this audit: the stored reply played back when an
    identical re-stop reuses the verdict (``reused``); otherwise the ``real`` judge,
    with technical retries cut so the turn stays within :func:`judge_call_cap`
    (``row`` reads the turn's row, only then)."""
    if reused is not None:
        # lazy: the scripted judge only for a reused verdict (start-up of jev audit)
        from jev.judges.scripted import ScriptedJudge

        info = real.info
        judge = ScriptedJudge(
            [reused], provider=info.provider, model=info.model, heuristic=info.heuristic
        )
        return judge, replace(settings, judge=replace(settings.judge, technical_retries=0))
    if force:
        return real, settings
    left = judge_call_cap(settings) - judge_calls(row())
    retries = max(0, min(settings.judge.technical_retries, left - 1))
    if retries == settings.judge.technical_retries:
        return real, settings
    return real, replace(settings, judge=replace(settings.judge, technical_retries=retries))
