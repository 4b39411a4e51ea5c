"""Gemini CLI chat reader (design.md §2, §3; hosts.md (Gemini CLI)).

No real Gemini chat file with a Todo tool exists under a reusable license
(../shared/real/README.md), so the fixtures are built from gemini-cli@5411f113
``chatRecordingService.ts``/``geminiChat.ts``/``client.ts`` and carry
``source-derived`` in their names.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jev.base.domain import TodoItem
from jev.base.errors import MaterialMissing, UsageError
from jev.hosts.gemini import transcript as gt

HAND = Path(__file__).resolve().parents[2] / "fixtures" / "hand"
TODOS = HAND / "gemini-source-derived-write-todos.jsonl"
RETRY = HAND / "gemini-source-derived-retry.jsonl"
TRACKER = HAND / "gemini-source-derived-tracker-rewind.jsonl"
LEGACY = HAND / "gemini-source-derived-legacy.json"


def test_record_stream_write_todos_turn() -> None:
    (turn,) = gt.read_turns(TODOS)
    assert turn.status == "ready" and turn.key == "u1" and turn.opening == "prompt"
    assert turn.material is not None
    # displayContent (what the user typed) wins over the @file-expanded content.
    assert turn.material.request == ("Add a --since flag to `app log`, document it and test it.",)
    assert turn.material.todos == (
        TodoItem("Add the --since flag to the log command", "completed"),
        TodoItem("[blocked] Document the flag in README", "pending"),
        TodoItem("[cancelled] Add a test for --since", "pending"),
    )
    # Thought parts are not the answer.
    assert turn.material.final_answer == (
        "Done: --since is added and everything is documented and tested."
    )


def test_repeated_id_replaces_the_message_in_place() -> None:
    conv = gt.load_conversation(TODOS)
    ids = [m["id"] for m in conv.messages]
    assert ids == ["u1", "g1", "t1", "g2", "t2", "g3"]
    assert conv.messages[1]["toolCalls"][0]["name"] == "write_todos"
    assert conv.metadata["sessionId"].startswith("5c1e2a90") and not conv.legacy


def test_retry_keeps_the_turn_and_takes_the_newest_answer() -> None:
    (turn,) = gt.read_turns(RETRY)  # the supplement and "Please continue." open nothing
    assert turn.key == "u1" and turn.material is not None
    assert turn.material.request == ("Add a --since flag to `app log`, document it and test it.",)
    assert turn.material.final_answer == "Nothing more to do without write access to docs/."
    current = gt.read_current_turn(RETRY)
    assert current.number == 0 and current.key == "u1"


def test_custom_supplement_text_is_recognised_when_known() -> None:
    lines = RETRY.read_text("utf-8").splitlines()
    rec = json.loads(lines[10])
    assert rec["id"] == "u2"
    rec["content"] = [{"text": "Custom audit text from an overridden template"}]
    lines[10] = json.dumps(rec)
    conv = gt._replay(lines)
    assert len(gt.scan(conv.messages)) == 2  # unknown text: a new prompt
    from jev.hosts.readkit import supplement_test

    test = supplement_test(["Custom audit text from an overridden template"])
    assert len(gt.scan(conv.messages, is_supplement=test)) == 1


def test_rewind_tracker_and_turn_without_todo() -> None:
    t1, t2 = gt.read_turns(TRACKER)  # the rewound turn is gone; bad lines skipped
    assert t1.key == "b1" and t1.status == "ready" and t1.material is not None
    assert t1.material.todos == (
        TodoItem("Parse TOML config", "completed"),
        TodoItem("[blocked] Keep JSON fallback", "pending"),
    )
    assert t1.material.final_answer.startswith("TOML loading works")
    assert t2.status == "skipped" and t2.reason == "no Todo use in this turn"
    assert t2.material is not None and t2.material.todos == ()
    assert gt.load_conversation(TRACKER).bad_lines == 2


def test_unknown_rewind_id_clears_everything(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    lines = [*TODOS.read_text("utf-8").splitlines(), '{"$rewindTo": "nope"}']
    path.write_text("\n".join(lines) + "\n", "utf-8")
    assert gt.read_turns(path) == []
    with pytest.raises(MaterialMissing):
        gt.read_current_turn(path)


def test_set_messages_checkpoint_replaces_all(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    keep = json.loads(TODOS.read_text("utf-8").splitlines()[1])
    answer = {"id": "z", "type": "gemini", "content": "short", "timestamp": "t"}
    lines = [
        *TODOS.read_text("utf-8").splitlines(),
        json.dumps({"$set": {"messages": [keep, answer], "summary": "s"}}),
    ]
    path.write_text("\n".join(lines) + "\n", "utf-8")
    conv = gt.load_conversation(path)
    assert [m["id"] for m in conv.messages] == ["u1", "z"] and conv.metadata["summary"] == "s"
    (turn,) = gt.read_turns(path)
    assert turn.status == "skipped"  # the write_todos calls were checkpointed away


def test_legacy_single_object_file() -> None:
    conv = gt.load_conversation(LEGACY)
    assert conv.legacy
    (turn,) = gt.read_turns(LEGACY)
    assert turn.status == "ready" and turn.material is not None
    assert turn.material == gt.read_turns(TODOS)[0].material


def test_single_line_legacy_object_and_bom(tmp_path: Path) -> None:
    data = json.loads(LEGACY.read_text("utf-8"))
    path = tmp_path / "session-x.json"
    path.write_text("\ufeff" + json.dumps(data) + "\n", "utf-8")
    conv = gt.load_conversation(path)
    assert conv.legacy and len(conv.messages) == 6


def test_failed_write_todos_counts_as_use_but_keeps_the_list(tmp_path: Path) -> None:
    lines = TODOS.read_text("utf-8").splitlines()
    rec = json.loads(lines[6])
    assert rec["id"] == "g2"
    rec["toolCalls"][0]["status"] = "error"
    lines[6] = json.dumps(rec)
    (turn,) = gt.scan(gt._replay(lines).messages)
    assert turn.material is not None
    assert [i.status for i in turn.material.todos] == ["in_progress", "pending", "pending"]


def test_agent_work_before_any_prompt_is_missing(tmp_path: Path) -> None:
    lines = TODOS.read_text("utf-8").splitlines()
    del lines[1]  # the prompt
    (turn,) = gt.scan(gt._replay(lines).messages)
    assert turn.status == "missing" and turn.material is None
    assert turn.reason.startswith("material missing")


def test_missing_file() -> None:
    with pytest.raises(UsageError):
        gt.read_turns(HAND / "nope.jsonl")
