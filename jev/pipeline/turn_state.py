"""The turn row the orchestrator keeps in the store (design.md §8, §11): the loop state
with the turn's count of real judge calls beside it, and the stored decision.

Pure helpers of :mod:`jev.pipeline.audit` over :class:`jev.store.TurnRow`; no I/O.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from jev.base.domain import Settings
from jev.base.loop_state import LoopState
from jev.pipeline.decide import Decision, ui_language
from jev.pipeline.texts import incomplete_notice
from jev.store import TurnKey, TurnRow

__all__ = [
    "JUDGE_CALLS_KEY",
    "cap_reached",
    "decision_from_json",
    "judge_call_cap",
    "judge_calls",
    "state_of",
    "turn_row",
    "with_calls",
]

#: Key of the per-turn count of real judge calls, kept next to the loop state in the
#: store's turn row (not part of :class:`jev.base.loop_state.LoopState`; see :func:`judge_call_cap`).
JUDGE_CALLS_KEY = "judge_calls"


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
