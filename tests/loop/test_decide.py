"""Table-driven tests of the supplement loop (design.md §8, seed "行为示例" / "怎样补充与复核")."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jev.base.domain import PROBLEM_ASSESSMENTS, AuditOutcome
from jev.base.loop_state import MAX_SUPPLEMENTS_LIMIT, Action, LoopState, end_reason
from jev.pipeline.decide import cancel, decide
from jev.pipeline.gate import should_audit

from .helpers import incomplete, skipped, verdict


def outcome_for(step: str) -> AuditOutcome:
    if step == "incomplete":
        return incomplete()
    if step == "skipped":
        return skipped()
    return verdict(step)


def run(steps: list[str], n: int) -> tuple[LoopState, list[str]]:
    """Feed ``steps`` through decide/cancel; return the final state and the actions as
    ``kind:round`` strings."""
    state = LoopState()
    actions: list[str] = []
    for step in steps:
        if step == "cancel":
            state, action = cancel(state, n)
        else:
            state, action = decide(state, outcome_for(step), n)
        assert action.max_supplements == n
        actions.append(f"{action.kind}:{action.round}")
    return state, actions


@dataclass(frozen=True)
class Row:
    name: str
    n: int
    steps: list[str]
    actions: list[str]
    status: str
    audits: int
    used: int


ROWS = [
    # design.md §8 table, one row each.
    Row("complete ends normally", 3, ["complete"], ["finish:0"], "done", 1, 0),
    Row(
        "omission with budget left", 3, ["omission"], ["supplement:1"], "awaiting-supplement", 1, 1
    ),
    Row(
        "contradiction with budget left",
        3,
        ["contradiction"],
        ["supplement:1"],
        "awaiting-supplement",
        1,
        1,
    ),
    Row("unknown with budget left", 3, ["unknown"], ["supplement:1"], "awaiting-supplement", 1, 1),
    Row(
        "needs-user hands over, no supplement",
        3,
        ["needs-user"],
        ["hand-to-user:0"],
        "needs-user",
        1,
        0,
    ),
    Row(
        "stop again after a supplement is audited again",
        3,
        ["omission", "complete"],
        ["supplement:1", "finish:1"],
        "done",
        2,
        1,
    ),
    Row(
        "budget used up, problem remains",
        3,
        ["omission"] * 4,
        ["supplement:1", "supplement:2", "supplement:3", "exhausted:3"],
        "exhausted",
        4,
        3,
    ),
    Row(
        "cancel ends the audit",
        3,
        ["omission", "cancel"],
        ["supplement:1", "cancelled:1"],
        "cancelled",
        1,
        1,
    ),
    # Seed behaviour table rows that concern the loop.
    Row(
        "pending items are still audited (decide is called)",
        3,
        ["omission"],
        ["supplement:1"],
        "awaiting-supplement",
        1,
        1,
    ),
    Row("run tests and report honestly: complete", 3, ["complete"], ["finish:0"], "done", 1, 0),
    Row(
        "only 'all done': unknown, supplement within budget",
        3,
        ["unknown", "complete"],
        ["supplement:1", "finish:1"],
        "done",
        2,
        1,
    ),
    Row(
        "three supplements then problem: last verdict shown",
        3,
        ["unknown", "unknown", "omission", "contradiction"],
        ["supplement:1", "supplement:2", "supplement:3", "exhausted:3"],
        "exhausted",
        4,
        3,
    ),
    Row(
        "over budget or call failure: incomplete, nothing counted",
        3,
        ["incomplete"],
        ["incomplete:0"],
        "incomplete",
        0,
        0,
    ),
    # N = 1, 2, 5.
    Row(
        "N=1: one supplement then exhausted",
        1,
        ["omission", "omission"],
        ["supplement:1", "exhausted:1"],
        "exhausted",
        2,
        1,
    ),
    Row(
        "N=1: fixed after the only supplement",
        1,
        ["contradiction", "complete"],
        ["supplement:1", "finish:1"],
        "done",
        2,
        1,
    ),
    Row(
        "N=2: at most three normal audits",
        2,
        ["unknown", "omission", "omission"],
        ["supplement:1", "supplement:2", "exhausted:2"],
        "exhausted",
        3,
        2,
    ),
    Row(
        "N=5: six normal audits at most",
        5,
        ["omission"] * 6,
        [*(f"supplement:{k}" for k in range(1, 6)), "exhausted:5"],
        "exhausted",
        6,
        5,
    ),
    Row(
        "N=5: budget need not be used up",
        5,
        ["omission", "omission", "complete"],
        ["supplement:1", "supplement:2", "finish:2"],
        "done",
        3,
        2,
    ),
    # Verdict changes never reset the count.
    Row(
        "omission → contradiction → unknown → omission at N=3",
        3,
        ["omission", "contradiction", "unknown", "omission"],
        ["supplement:1", "supplement:2", "supplement:3", "exhausted:3"],
        "exhausted",
        4,
        3,
    ),
    # Incomplete audits in the middle of a chain count nothing.
    Row(
        "incomplete mid-chain",
        3,
        ["omission", "incomplete", "incomplete", "contradiction", "complete"],
        ["supplement:1", "incomplete:1", "incomplete:1", "supplement:2", "finish:2"],
        "done",
        3,
        2,
    ),
    Row(
        "retry after raising the budget uses no supplement",
        3,
        ["incomplete", "complete"],
        ["incomplete:0", "finish:0"],
        "done",
        1,
        0,
    ),
    Row(
        "retry after raising the budget finds a problem: first supplement",
        3,
        ["incomplete", "omission"],
        ["incomplete:0", "supplement:1"],
        "awaiting-supplement",
        1,
        1,
    ),
    Row(
        "skipped leaves everything as it was",
        3,
        ["omission", "skipped"],
        ["supplement:1", "skip:1"],
        "awaiting-supplement",
        1,
        1,
    ),
    Row(
        "cancel mid-chain keeps the chain",
        3,
        ["omission", "unknown", "cancel"],
        ["supplement:1", "supplement:2", "cancelled:2"],
        "cancelled",
        2,
        2,
    ),
    Row(
        "cancel after incomplete",
        3,
        ["incomplete", "cancel"],
        ["incomplete:0", "cancelled:0"],
        "cancelled",
        0,
        0,
    ),
    Row(
        "needs-user after two supplements",
        3,
        ["omission", "unknown", "needs-user"],
        ["supplement:1", "supplement:2", "hand-to-user:2"],
        "needs-user",
        3,
        2,
    ),
    Row(
        "needs-user with budget used up is still a hand-over",
        1,
        ["omission", "needs-user"],
        ["supplement:1", "hand-to-user:1"],
        "needs-user",
        2,
        1,
    ),
    # Final states receiving more outcomes (module docstring).
    Row(
        "exhausted stays exhausted",
        1,
        ["omission", "omission", "complete", "incomplete"],
        ["supplement:1", "exhausted:1", "exhausted:1", "exhausted:1"],
        "exhausted",
        2,
        1,
    ),
    Row(
        "cancelled stays cancelled",
        3,
        ["cancel", "omission", "complete"],
        ["cancelled:0", "cancelled:0", "cancelled:0"],
        "cancelled",
        0,
        0,
    ),
    Row(
        "continuation after complete keeps the budget",
        2,
        ["omission", "complete", "omission", "omission"],
        ["supplement:1", "finish:1", "supplement:2", "exhausted:2"],
        "exhausted",
        4,
        2,
    ),
    Row(
        "continuation after needs-user is audited again",
        3,
        ["needs-user", "complete"],
        ["hand-to-user:0", "finish:0"],
        "done",
        2,
        0,
    ),
]


@pytest.mark.parametrize("row", ROWS, ids=[r.name for r in ROWS])
def test_loop_table(row: Row) -> None:
    state, actions = run(row.steps, row.n)
    assert actions == row.actions
    assert state.status == row.status
    assert state.audits == row.audits
    assert state.supplements_used == row.used
    verdicts = [s for s in row.steps if s not in ("incomplete", "skipped", "cancel")]
    assert list(state.chain) == verdicts[: row.audits]


def test_exhausted_shows_the_last_verdict_and_focus() -> None:
    state, _ = run(["omission", "contradiction"], 1)
    assert state.status == "exhausted"
    assert state.last_verdict == "contradiction"
    assert state.last_focus_id == "T1"
    assert end_reason(state, 1) == "supplement budget used up (1/1)"


def test_incomplete_keeps_counts_and_records_reason() -> None:
    state, _ = decide(LoopState(), verdict("omission", "R3"), 3)
    after, action = decide(state, incomplete("over budget: 30,000 > 24,000"), 3)
    assert action.kind == "incomplete"
    assert action.reason == "over budget: 30,000 > 24,000"
    assert after.last_error == "over budget: 30,000 > 24,000"
    assert (after.audits, after.supplements_used, after.chain) == (1, 1, ("omission",))
    assert after.last_focus_id == "R3"
    assert end_reason(after) == "audit incomplete: over budget: 30,000 > 24,000"
    fixed, _ = decide(after, verdict("complete"), 3)
    assert fixed.last_error is None
    assert fixed.last_focus_id == "none"


def test_supplement_action_reason_names_verdict_and_round() -> None:
    _, action = decide(LoopState(), verdict("unknown"), 7)
    assert action == Action("supplement", 1, 7, "unknown: supplement 1/7")


def test_huge_budget_works() -> None:
    n = MAX_SUPPLEMENTS_LIMIT
    state = LoopState(
        status="awaiting-supplement", audits=1, supplements_used=n - 1, chain=("omission",)
    )
    state = LoopState.from_json({**state.to_json(), "chain": ["omission"], "audits": 1})
    state, action = decide(state, verdict("omission"), n)
    assert action.kind == "supplement" and action.round == n
    state, action = decide(state, verdict("unknown"), n)
    assert action.kind == "exhausted"
    assert end_reason(state, n) == f"supplement budget used up ({n}/{n})"
    assert not should_audit(state, n)
    _, first = decide(LoopState(), verdict("omission"), n)
    assert first.round == 1 and first.max_supplements == n


@pytest.mark.parametrize("bad", [0, -1, MAX_SUPPLEMENTS_LIMIT + 1, True, False, 3.0, "3", None])
def test_max_supplements_validated(bad: object) -> None:
    with pytest.raises(ValueError, match="max_supplements"):
        decide(LoopState(), verdict("complete"), bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="max_supplements"):
        cancel(LoopState(), bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="max_supplements"):
        should_audit(LoopState(), bad)  # type: ignore[arg-type]


def test_bad_outcomes_refused() -> None:
    with pytest.raises(ValueError, match="must carry a verdict"):
        decide(LoopState(), AuditOutcome(status="verdict"), 3)
    with pytest.raises(ValueError, match="unknown audit outcome status"):
        decide(LoopState(), AuditOutcome(status="stale"), 3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown assessment"):
        decide(LoopState(), verdict_with("success"), 3)


def verdict_with(assessment: str) -> AuditOutcome:
    base = verdict("complete")
    assert base.verdict is not None
    from dataclasses import replace

    return replace(base, verdict=replace(base.verdict, assessment=assessment))


@pytest.mark.parametrize(
    ("status", "expected"),
    [
        ("auditing", True),
        ("awaiting-supplement", True),
        ("incomplete", True),
        ("done", True),
        ("needs-user", True),
        ("exhausted", False),
        ("cancelled", False),
    ],
)
def test_should_audit(status: str, expected: bool) -> None:
    assert should_audit(LoopState(status=status), 3) is expected


def test_end_reasons() -> None:
    assert end_reason(LoopState()) == "not audited yet"
    assert end_reason(run(["complete"], 3)[0]) == "complete"
    assert end_reason(run(["needs-user"], 3)[0]) == "needs user"
    assert end_reason(run(["omission", "cancel"], 3)[0]) == "cancelled"
    assert end_reason(run(["omission"], 3)[0], 3) == "awaiting the agent after supplement 1/3"
    assert end_reason(run(["omission"] * 4, 3)[0], 3) == "supplement budget used up (3/3)"


def test_cancel_is_idempotent() -> None:
    state, _ = run(["omission", "cancel"], 3)
    again, action = cancel(state, 3)
    assert again == state
    assert action.kind == "cancelled"


def test_state_and_action_json_round_trip() -> None:
    state, action = run(["omission", "incomplete"], 3)[0], Action("supplement", 2, 3, "x")
    assert LoopState.from_json(state.to_json()) == state
    assert Action.from_json(action.to_json()) == action
    assert LoopState.from_json({}) == LoopState()


@pytest.mark.parametrize(
    "data",
    [
        {"status": "finished"},
        {"audits": -1, "chain": []},
        {"audits": 1, "chain": []},
        {"audits": 1, "chain": ["great"]},
        {"chain": "omission"},
        {"audits": True, "chain": ["omission"]},
        {"last_error": 5},
        {"status": 3},
    ],
)
def test_state_from_json_refuses_bad_data(data: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        LoopState.from_json(data)


@pytest.mark.parametrize(
    "data",
    [
        {"kind": "retry", "round": 0, "max_supplements": 3},
        {"kind": "finish", "round": -1, "max_supplements": 3},
        {"kind": "finish", "round": 0, "max_supplements": 0},
        {"kind": "finish", "round": 0},
        {"kind": 1, "round": 0, "max_supplements": 3},
    ],
)
def test_action_from_json_refuses_bad_data(data: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        Action.from_json(data)


STEPS = st.sampled_from(
    ["complete", "omission", "contradiction", "needs-user", "unknown", "incomplete", "skipped"]
)


@given(n=st.integers(1, 6), steps=st.lists(STEPS, max_size=25))
def test_invariants(n: int, steps: list[str]) -> None:
    """Never more than N supplements; problems after the budget is used never get one;
    incomplete/skipped never move the counts; normal audits = 1 + supplements +
    continuations (stops after a final done/needs-user), so a chain driven only by
    Jev's own supplements has at most N+1 normal audits."""
    state = LoopState()
    sent = 0
    continuations = 0
    after_final = False  # the latest verdict ended the stop with done/needs-user
    for step in steps:
        before = state
        state, action = decide(state, outcome_for(step), n)
        counted = state.audits > before.audits
        if action.kind == "supplement":
            sent += 1
            assert action.round == sent == state.supplements_used
            assert step in PROBLEM_ASSESSMENTS
        if step in ("incomplete", "skipped") or before.status == "exhausted":
            assert not counted
            assert state.supplements_used == before.supplements_used
        if step == "needs-user" and before.status != "exhausted":
            assert action.kind == "hand-to-user"
        if counted:
            continuations += after_final
            after_final = state.status in ("done", "needs-user")
        assert state.supplements_used <= n
        assert len(state.chain) == state.audits
        assert state.audits <= 1 + state.supplements_used + continuations
        if continuations == 0:
            assert state.audits <= n + 1
    assert sent <= n


def test_cancel_default_max_and_stale_action_kind() -> None:
    _, action = cancel(LoopState())
    assert action.max_supplements == 3
    stale = Action("stale", 1, 3, "the turn moved on before the verdict was acted upon")
    assert Action.from_json(stale.to_json()) == stale


def test_final_property() -> None:
    assert run(["complete"], 3)[0].final
    assert run(["needs-user"], 3)[0].final
    assert not run(["omission"], 3)[0].final
    assert not run(["incomplete"], 3)[0].final
