"""Qwen Code transcript reader (design.md §2, §3; hosts.md (other hosts)).

No real Qwen Code session with ``todo_write`` is available under a reusable license
(../shared/real/README.md); the fixture is built from QwenLM/qwen-code
``chatRecordingService.ts`` (``ChatRecord``) and ``todoWrite.ts`` and says
``source-derived`` in its name.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jev.base.domain import TodoItem
from jev.base.errors import MaterialMissing
from jev.hosts.qwen import transcript as qt

FIXTURE = (
    Path(__file__).resolve().parents[2]
    / "fixtures"
    / "hand"
    / "qwen-source-derived-todo-write.jsonl"
)


def test_active_branch_turns_todos_and_adjustment() -> None:
    t1, t2 = qt.read_turns(FIXTURE)  # the rewound prompt is off the active branch
    assert t1.key == "p-1" and t1.status == "ready" and t1.material is not None
    assert t1.material.request == (
        "Port the CSV exporter to the new writer API and keep the column order.",
        "Also keep the header row optional.",
    )
    assert t1.material.todos == (
        TodoItem("Switch CsvExporter to Writer API", "completed"),
        TodoItem("Check column order", "completed"),
        TodoItem("[blocked by 2] Update docs", "pending"),
    )
    assert t1.material.final_answer == (
        "The exporter uses the Writer API; column order is unchanged."
    )
    assert t2.opening == "notification" and t2.status == "skipped"


def test_current_turn_and_notification_with_todos_is_missing(tmp_path: Path) -> None:
    lines = FIXTURE.read_text("utf-8").splitlines()
    last = json.loads(lines[-1])
    last["message"]["parts"] = [
        {"functionCall": {"name": "todo_write", "args": {"todos": []}}},
        {"text": "Lint passed."},
    ]
    lines[-1] = json.dumps(last)
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(lines) + "\n", "utf-8")
    turn = qt.read_current_turn(path)
    assert turn.number == 0 and turn.status == "missing" and turn.material is None
    assert "notification" in turn.reason


def test_supplement_continues_the_turn() -> None:
    records = qt.active_chain([json.loads(x) for x in FIXTURE.read_text("utf-8").splitlines()])
    cut = [r for r in records if r.get("subtype") != "notification"][:-1]
    supplement = {
        "uuid": "s1",
        "type": "user",
        "message": {
            "role": "user",
            "parts": [
                {
                    "text": "[Jev completion audit · automatic message, round 1/3 · not from"
                    " the user]"
                }
            ],
        },
    }
    turns = qt.scan([*cut, supplement])
    assert len(turns) == 1 and turns[0].key == "p-1"


def test_cycle_and_empty(tmp_path: Path) -> None:
    assert qt.active_chain([{"uuid": "a", "parentUuid": "b"}, {"uuid": "b", "parentUuid": "a"}])
    path = tmp_path / "e.jsonl"
    path.write_text("\n", "utf-8")
    with pytest.raises(MaterialMissing):
        qt.read_current_turn(path)


def test_a_refused_todo_write_sets_no_list() -> None:
    """Qwen 0.24.4 refuses ``todo_write`` while ``tools.todoWrite.enabled`` is off and
    logs an error ``tool_result`` (real CLI, hosts.md): no list, no Todo use; the
    user record's ``uuid`` is the key (0.24.4 writes no ``promptId``)."""
    call = {"id": "call_1", "name": "todo_write", "args": {"todos": [{"id": "1", "content": "A"}]}}
    records = [
        {"uuid": "u1", "type": "user", "message": {"role": "user", "parts": [{"text": "Do A."}]}},
        {
            "uuid": "a1",
            "parentUuid": "u1",
            "type": "assistant",
            "message": {"role": "model", "parts": [{"functionCall": call}]},
        },
        {
            "uuid": "r1",
            "parentUuid": "a1",
            "type": "tool_result",
            "toolCallResult": {"callId": "call_1", "status": "error"},
        },
        {
            "uuid": "a2",
            "parentUuid": "r1",
            "type": "assistant",
            "message": {"role": "model", "parts": [{"text": "All done."}]},
        },
    ]
    (turn,) = qt.scan(records)
    assert turn.key == "u1" and turn.status == "skipped" and turn.todo_used is False
    records[2]["toolCallResult"]["status"] = "success"
    (turn,) = qt.scan(records)
    assert turn.todo_used is True and turn.material is not None
    assert turn.material.todos == (TodoItem("A", "pending"),)
