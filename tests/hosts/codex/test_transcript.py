"""Codex rollout reader on the real rollouts and a hand-built one (design.md §2, §3; HOSTS §3)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from jev.base.domain import TodoItem
from jev.base.errors import MaterialMissing
from jev.hosts.codex import transcript as codex
from jev.hosts.transcript import read_current_turn, read_turns
from tests.conftest import SHARED

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
REAL = FIXTURES / "real"
HAND = FIXTURES / "hand"
OLD = REAL / "codex-0.58.0_AcidicSoil-codex-session-view_019a93b9.jsonl"
NEW = REAL / "codex-0.104.0-alpha.1_madshn-localpush_019c8a59.jsonl"
PLAN = HAND / "codex-plan.jsonl"
#: The Codex >= 0.169 layout (item_completed UserMessage/AgentMessage/HookPrompt, ordinal).
ITEMS = HAND / "codex-0169-items.jsonl"
#: Written by the real Codex 0.169.0 against a scripted model (issue 19), when present.
REAL_0169 = SHARED / "real" / "codex-0.169.0_scripted-model_blocked-turn.jsonl"


def test_058_single_turn_plan_without_final_answer() -> None:
    (turn,) = read_turns(OLD)
    assert turn.status == "ready" and turn.material is not None
    assert turn.material.request[0].startswith("finish up the users work")
    assert len(turn.material.request) == 1  # not the response_item copy with context
    assert [i.status for i in turn.material.todos] == ["completed", "in_progress", "pending"]
    assert turn.material.todos[0].content.startswith("Inspect existing LM Studio")
    assert turn.material.final_answer == ""  # recording stops mid-turn (design.md §3: may be empty)


def test_0104_turns_and_redacted_plans() -> None:
    turns = read_turns(NEW)
    assert len(turns) == 33
    missing = [t.number for t in turns if t.status == "missing"]
    assert missing == [10, 12]
    for n in missing:
        turn = turns[n - 1]
        assert turn.material is None and turn.todo_used
        assert turn.reason.startswith("material missing:") and "update_plan" in turn.reason
    others = [t for t in turns if t.number not in missing]
    assert all(t.status == "skipped" and t.reason == "no Todo use in this turn" for t in others)
    # Extra user messages while the turn runs are adjustments of that turn.
    counts = {t.number: len(t.material.request) for t in others if t.material}
    assert counts[11] == 3 and counts[14] == 2 and counts[26] == 2 and counts[33] == 2
    assert turns[0].key == "019c8a5a-2f22-7500-86a3-35cefafbe84e"


def test_hand_plan_rollout() -> None:
    t1, t2, t3 = read_turns(PLAN)
    assert t1.key == "turn-a" and t1.status == "ready" and t1.material is not None
    assert t1.material.request == (
        "Fix the off-by-one in the parser and run the tests.",
        "Keep the public API unchanged.",
    )
    assert [(i.content, i.status) for i in t1.material.todos] == [
        ("Read the parser", "completed"),
        ("Fix the off-by-one", "completed"),
        ("Run the tests", "completed"),
    ]
    assert t1.material.final_answer == "Fixed the off-by-one; all 42 tests pass."
    assert t2.ended_by_interrupt and t2.status == "skipped"
    assert t3.material is not None and t3.material.final_answer == "Two fixes so far."


def test_0169_items_request_answer_and_hook_prompt() -> None:
    t1, t2 = read_turns(ITEMS)
    assert t1.key == "turn-169-a" and t1.status == "ready" and t1.material is not None
    # UserMessage is the request (its response_item copy with context is not), said once
    # although a user_message-like copy precedes it; a mid-turn UserMessage adjusts it;
    # Jev's HookPrompt is never a request; the image block is left out.
    assert t1.material.request == (
        "Add the signup form and update the README.",
        "Keep the old form's CSS.",
    )
    assert [i.status for i in t1.material.todos] == ["completed", "completed"]
    # task_complete.last_agent_message is null: the last AgentMessage is the answer.
    assert t1.material.final_answer == "Form added and README updated."
    assert t2.status == "skipped" and t2.material is not None
    assert t2.material.request == ("What does the form validate?",)


def test_0169_backward_stops_at_the_turn(tmp_path: Path) -> None:
    lines = ITEMS.read_text("utf-8").splitlines()[:12]  # turn 1 up to Jev's HookPrompt
    path = tmp_path / "r.jsonl"
    path.write_text("\n".join(lines) + "\n", "utf-8")
    turn = read_current_turn(path)
    assert turn.material is not None and turn.key == "turn-169-a"
    assert turn.material.final_answer == "All done."
    assert [i.status for i in turn.material.todos] == ["completed", "pending"]


def test_0169_user_message_and_item_both_present_count_once(tmp_path: Path) -> None:
    rows = [
        {"type": "event_msg", "payload": {"type": "task_started", "turn_id": "t"}},
        {"type": "event_msg", "payload": {"type": "user_message", "message": "Do X."}},
        {
            "type": "event_msg",
            "payload": {
                "type": "item_completed",
                "item": {"type": "UserMessage", "content": [{"type": "text", "text": "Do X."}]},
            },
        },
        {"type": "event_msg", "payload": {"type": "task_complete", "last_agent_message": "ok"}},
    ]
    path = tmp_path / "r.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    (turn,) = read_turns(path)
    assert turn.material is not None and turn.material.request == ("Do X.",)
    # without the user_message event, the same text sent twice is said twice
    del rows[1]
    rows.insert(2, rows[1])
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    (turn,) = read_turns(path)
    assert turn.material is not None and turn.material.request == ("Do X.", "Do X.")


def test_0169_real_rollout_reads() -> None:
    if not REAL_0169.is_file():
        pytest.skip(f"{REAL_0169} is not there")
    (turn,) = read_turns(REAL_0169)
    assert turn.status == "ready" and turn.material is not None
    assert turn.material.request == (
        "Add the signup form, its tests, and update the README signup section.",
    )
    assert turn.material.todos[-1].status == "pending"
    assert turn.material.final_answer == "All done: signup form and tests are finished."


@pytest.mark.parametrize("path", [OLD, NEW, PLAN, ITEMS], ids=str)
def test_backward_equals_forward(path: Path) -> None:
    assert read_current_turn(path) == dataclasses.replace(read_turns(path)[-1], number=0)


def test_backward_turn_still_running(tmp_path: Path) -> None:
    lines = PLAN.read_text("utf-8").splitlines()[:10]  # turn-a before task_complete
    path = tmp_path / "r.jsonl"
    path.write_text("\n".join(lines) + "\n", "utf-8")
    turn = read_current_turn(path, last_assistant_message="hook answer")
    assert turn.key == "turn-a" and turn.material is not None
    assert turn.material.final_answer == "hook answer"
    assert read_turns(path)[-1].material is not None


def test_parse_plan_shapes() -> None:
    args = json.dumps({"plan": [{"step": "a", "status": "done?"}]})
    assert codex.parse_plan(args) == (TodoItem("a", "pending"),)
    assert codex.parse_plan("[REDACTED_ARGUMENTS len=584 sha=2ea6cb32]") is None
    assert codex.parse_plan(json.dumps({"plan": [{"status": "pending"}]})) is None
    assert codex.parse_plan(json.dumps([1, 2])) is None
    assert codex.parse_plan(json.dumps({"plan": []})) == ()


def test_no_turn(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text(PLAN.read_text("utf-8").splitlines()[0] + "\n", "utf-8")
    assert read_turns(path) == []
    with pytest.raises(MaterialMissing):
        read_current_turn(path)
