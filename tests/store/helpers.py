"""Builders for realistic records (shared by the store tests)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from jev.base.domain import (
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
from jev.base.loop_state import LoopState
from jev.base.record import Record
from jev.pipeline.decide import conclude
from jev.pipeline.record import build_record
from jev.store import TurnKey
from tests.conftest import FIXTURES

#: The ``db`` fixture (tests/conftest.py): a file path -> where that store lives.
DbTarget = Callable[[Path | str], str]

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


def verdict_record(
    *,
    now: float,
    round: int,
    assessment: str,
    focus: Position,
    material: Material,
    chain_before: tuple[str, ...],
    used_before: int,
    session: str = "sess-A",
    turn: str = "turn-4f2a9c",
    raw: str | None = None,
    cfg: Settings | None = None,
) -> Record:
    """A normal-audit record built by the orchestrator's own steps: the loop decision
    and texts of :func:`jev.pipeline.decide.conclude` and the one record builder."""
    cfg = cfg or settings()
    raw_reply = raw or json.dumps({"assessment": assessment, "focus": focus.id, "confidence": 0.8})
    outcome = AuditOutcome(
        status="verdict",
        verdict=Verdict(assessment, focus, 0.8),
        judge=JudgeInfo("openai", "deepseek-chat"),
        input_chars=3_210 + round,
        budget_chars=cfg.evidence_chars,
        raw_replies=(raw_reply,),
        usage=Usage(900 + round, 12),
        latency_ms=412.5,
        attempts=1,
        material_hash=material.digest(),
        template_hash="ab" * 32,
        language="en",
    )
    before = LoopState(
        status="awaiting-supplement" if round > 1 else "auditing",
        audits=round - 1,
        supplements_used=used_before,
        chain=chain_before,
    )
    done = conclude(before, outcome, cfg)
    return build_record(
        TurnKey("claude-code", session, turn),
        cfg,
        before,
        done.after,
        done.action,
        outcome,
        material,
        3,
        status="verdict",
        supplement=done.supplement,
        now=now,
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
            chain_before=(),
            used_before=0,
            session=session,
            turn=turn,
        ),
        verdict_record(
            now=now + 60,
            round=2,
            assessment="contradiction",
            focus=t3,
            material=m2,
            chain_before=("omission",),
            used_before=1,
            session=session,
            turn=turn,
        ),
        verdict_record(
            now=now + 120,
            round=3,
            assessment="complete",
            focus=none,
            material=m3,
            chain_before=("omission", "contradiction"),
            used_before=2,
            session=session,
            turn=turn,
        ),
    ]
