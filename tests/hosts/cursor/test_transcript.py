"""Cursor agent-transcript reader (design.md §2, §3; hosts.md (Cursor)).

No real Cursor transcript with ``TodoWrite`` is available under a reusable license
(../shared/real/README.md); the fixtures follow the documented/secondhand format of
hosts.md (Cursor) and say ``documented-format`` in their names.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jev.base.domain import TodoItem
from jev.base.errors import MaterialMissing
from jev.hosts.cursor import transcript as ct

HAND = Path(__file__).resolve().parents[2] / "fixtures" / "hand"
TODO = HAND / "cursor-documented-format-todowrite.jsonl"
OLD = HAND / "cursor-documented-format-old.txt"


def test_turns_merge_and_followup() -> None:
    t1, t2 = ct.read_turns(TODO)
    assert t1.key == "line:1" and t1.status == "ready" and t1.material is not None
    assert t1.material.request == (
        "Rename the `fetch_all` helper to `load_all` everywhere and update the changelog.",
    )
    # merge:true updated items by id; Jev's follow-up continued the same turn.
    assert t1.material.todos == (
        TodoItem("Rename fetch_all to load_all in src/", "completed"),
        TodoItem("Update call sites in tests/", "completed"),
        TodoItem("[cancelled] Add a changelog entry", "pending"),
    )
    assert t1.material.final_answer.startswith("The changelog entry is not written")
    assert t2.status == "skipped" and t2.reason == "no Todo use in this turn"
    assert t2.material is not None and t2.material.todos == ()


def test_current_turn_and_followup_count(tmp_path: Path) -> None:
    lines = TODO.read_text("utf-8").splitlines()
    path = tmp_path / "c.jsonl"
    path.write_text("\n".join(lines[:9]) + "\n", "utf-8")
    turn = ct.read_current_turn(path)
    assert turn.number == 0 and turn.key == "line:1" and turn.status == "ready"
    assert ct.followups_in_current_turn(path) == 1
    assert ct.followups_in_current_turn(TODO) == 0


def test_merge_false_replaces_the_list() -> None:
    recs = [
        (1, {"role": "user", "message": {"content": [{"type": "text", "text": "do x"}]}}),
        (
            2,
            {
                "role": "assistant",
                "message": {
                    "content": [
                        {
                            "type": "tool_use",
                            "name": "todo_write",
                            "input": {"todos": [{"id": "a", "content": "A", "status": "pending"}]},
                        },
                        {
                            "type": "tool_use",
                            "name": "TodoWrite",
                            "input": {
                                "merge": False,
                                "todos": [{"id": "b", "content": "B", "status": "completed"}],
                            },
                        },
                    ]
                },
            },
        ),
    ]
    (turn,) = ct.scan(recs)
    assert turn.material is not None
    assert turn.material.request == ("do x",)  # no wrapper: the whole text
    assert turn.material.todos == (TodoItem("B", "completed"),)


def test_old_txt_form_is_named() -> None:
    assert ct.is_old_form(OLD)
    with pytest.raises(ct.OldTranscriptForm, match="older Cursor agent transcript"):
        ct.read_turns(OLD)
    assert issubclass(ct.OldTranscriptForm, MaterialMissing)


def test_bom_bad_lines_and_assistant_first(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    rows = [
        json.dumps({"role": "assistant", "message": {"content": [{"type": "text", "text": "hi"}]}}),
        "garbage",
        TODO.read_text("utf-8").splitlines()[0],
    ]
    path.write_text("\ufeff" + "\n".join(rows) + "\n", "utf-8")
    t0, t1 = ct.read_turns(path)
    assert t0.status == "missing" and t0.material is None
    assert t1.key == "line:3" and t1.status == "skipped"


def test_empty_file_has_no_turn(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text("", "utf-8")
    with pytest.raises(MaterialMissing):
        ct.read_current_turn(path)
