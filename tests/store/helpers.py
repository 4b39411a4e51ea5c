"""Builders for realistic records (shared by the store tests)."""

from __future__ import annotations

import json
from typing import Any

from jev.domain import (
    AuditOutcome,
    JudgeInfo,
    JudgeSettings,
    Material,
    Position,
    Settings,
    TodoItem,
    Usage,
    Verdict,
)
from jev.records import Record, record_from_outcome
from tests.conftest import FIXTURES

#: 2026-01-01T00:00:00Z in epoch seconds.
T0 = 1_767_225_600.0
DAY = 86_400.0


def case_material(name: str = "omission-no-tests-en-08") -> Material:
    """The material of one labelled case fixture."""
    data = json.loads((FIXTURES / "cases" / f"{name}.json").read_text("utf-8"))
    return Material(
        request=tuple(data["request"]),
        todos=tuple(TodoItem(t["content"], t["status"]) for t in data["todos"]),
        final_answer=data["final_answer"],
    )


def settings(api_key_env: str = "") -> Settings:
    return Settings(
        enabled=True,
        judge=JudgeSettings(provider="openai", model="deepseek-chat", api_key_env=api_key_env),
    )


def loop_state(audits: int, used: int, chain: tuple[str, ...], status: str) -> dict[str, Any]:
    return {
        "status": status,
        "audits": audits,
        "supplements_used": used,
        "chain": list(chain),
        "last_focus_id": None,
        "last_error": None,
    }


def verdict_record(
    *,
    now: float,
    round: int,
    assessment: str,
    focus: Position,
    material: Material,
    action: dict[str, Any],
    chain_before: tuple[str, ...],
    used_after: int,
    session: str = "sess-A",
    turn: str = "turn-4f2a9c",
    raw: str | None = None,
    supplement: str | None = None,
    cfg: Settings | None = None,
) -> Record:
    """A normal-audit record built the way the orchestrator builds one."""
    raw_reply = raw or json.dumps({"assessment": assessment, "focus": focus.id, "confidence": 0.8})
    outcome = AuditOutcome(
        status="verdict",
        verdict=Verdict(assessment, focus, 0.8),
        judge=JudgeInfo("openai", "deepseek-chat"),
        input_chars=3_210 + round,
        budget_chars=24_000,
        raw_replies=(raw_reply,),
        usage=Usage(900 + round, 12),
        latency_ms=412.5,
        attempts=1,
        material_hash=material.digest(),
        template_hash="ab" * 32,
        language="en",
    )
    used_before = used_after - (1 if action["kind"] == "supplement" else 0)
    status_after = {
        "supplement": "awaiting-supplement",
        "finish": "done",
        "hand-to-user": "needs-user",
        "exhausted": "exhausted",
    }[action["kind"]]
    return record_from_outcome(
        outcome,
        now=now,
        profile="default",
        host="claude-code",
        session=session,
        turn=turn,
        turn_number=3,
        round=round,
        material=material,
        loop_before=loop_state(round - 1, used_before, chain_before, "auditing"),
        loop_after=loop_state(round, used_after, (*chain_before, assessment), status_after),
        action=action,
        supplements_used=used_after,
        max_supplements=3,
        settings=cfg or settings(),
        supplement_text=supplement,
    )


def three_round_turn(
    now: float = T0, session: str = "sess-A", turn: str = "turn-4f2a9c"
) -> list[Record]:
    """omission (R1) -> contradiction (T2) -> complete (none), one turn."""
    m1 = case_material()
    r1 = Position("R1", "request", 1, m1.request[0], message=1)
    m2 = Material(
        m1.request,
        (*m1.todos, TodoItem("Add unit tests for slugify", "pending")),
        m1.final_answer + "\n\nAdded unit tests in `src/lib/text.test.ts`; all 9 pass.",
    )
    t3 = Position("T3", "todo", 3, "Add unit tests for slugify", status="pending")
    m3 = Material(
        m1.request,
        (*m1.todos, TodoItem("Add unit tests for slugify", "completed")),
        m2.final_answer,
    )
    none = Position("none", "none", 0, "")
    return [
        verdict_record(
            now=now,
            round=1,
            assessment="omission",
            focus=r1,
            material=m1,
            action={"kind": "supplement", "round": 1, "max_supplements": 3, "reason": ""},
            chain_before=(),
            used_after=1,
            session=session,
            turn=turn,
            supplement="[Jev automatic completion audit, round 1/3] omission: R1 ...",
        ),
        verdict_record(
            now=now + 60,
            round=2,
            assessment="contradiction",
            focus=t3,
            material=m2,
            action={"kind": "supplement", "round": 2, "max_supplements": 3, "reason": ""},
            chain_before=("omission",),
            used_after=2,
            session=session,
            turn=turn,
            supplement="[Jev automatic completion audit, round 2/3] contradiction: T3 ...",
        ),
        verdict_record(
            now=now + 120,
            round=3,
            assessment="complete",
            focus=none,
            material=m3,
            action={"kind": "finish", "round": 2, "max_supplements": 3, "reason": ""},
            chain_before=("omission", "contradiction"),
            used_after=2,
            session=session,
            turn=turn,
        ),
    ]
