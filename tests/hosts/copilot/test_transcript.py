"""Copilot CLI events.jsonl reader (design.md §2, §3; hosts.md (other hosts)).

The two real Copilot CLI 1.0.74 sessions (../shared/real/) hold no todo writes, so the
todo behaviour is pinned on ``copilot-documented-format-sql-todos.jsonl``, built from
the event shapes of the real files and the ``todos`` schema their system prompt states.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from jev.base.domain import TodoItem
from jev.base.errors import MaterialMissing
from jev.hosts.copilot import transcript as cp

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
REAL_SMALL = FIXTURES / "real" / "copilot-cli-1.0.74_polecatspeaks-StarCar_70b173ed.jsonl"
REAL_BIG = FIXTURES / "real" / "copilot-cli-1.0.74_polecatspeaks-StarCar_e07fc822.jsonl"
TODOS = FIXTURES / "hand" / "copilot-documented-format-sql-todos.jsonl"


def test_real_small_session_select_is_not_todo_use() -> None:
    (turn,) = cp.read_turns(REAL_SMALL)  # the subagent brief is not a root turn
    assert turn.key == "24253949-215c-475c-a1c7-8516a26a42f4"
    assert turn.status == "skipped" and turn.reason == "no Todo use in this turn"
    assert turn.material is not None and turn.material.request == ("pick up where we left off",)
    assert turn.material.final_answer.startswith("Harness working live")


def test_real_big_session_turns_adjustments_and_task_complete() -> None:
    turns = cp.read_turns(REAL_BIG)
    assert [t.key[:8] for t in turns] == ["8d2433e9", "cb967672", "71812919", "49e2e825"]
    assert all(t.status == "skipped" for t in turns)
    first = turns[0].material
    assert first is not None
    # 4 messages typed while the agent ran are adjustments; system reminders are not.
    assert len(first.request) == 5
    assert first.request[1] == "context: last session got interrupted mid car."
    assert first.final_answer.startswith("Resumed the interrupted session")  # task_complete
    third = turns[2].material
    assert third is not None and third.request == ("session resumed.",)
    assert third.final_answer.startswith("**Car 46 fix cycle complete")
    assert cp.current_turn_stops(REAL_BIG) == 1


def test_sql_todos_rebuilt_and_supplement_continues_the_turn() -> None:
    (turn,) = cp.read_turns(TODOS)
    assert turn.status == "ready" and turn.material is not None
    assert turn.key == "11111111-2222-4333-8444-555555555555"
    assert turn.material.request == (
        "Add rate limiting to the /login endpoint and write a test for it.",
        "Use 5 attempts per minute.",
    )
    assert turn.material.todos == (
        TodoItem("Adding rate limiting to /login", "completed"),
        TodoItem("[blocked] Writing a test for the limit", "pending"),
    )
    assert turn.material.final_answer == (
        "Rate limiting added; the test is blocked: no test runner here."
    )
    assert not Path("/tmp/jev-should-never-exist.db").exists()  # ATTACH was refused


def test_todo_table_counts_writes_only() -> None:
    table = cp.TodoTable()
    try:
        assert not table.run("SELECT * FROM todos")
        assert table.run("INSERT INTO todos (id, title) VALUES ('a', 'A')")
        assert not table.run("CREATE TABLE notes (x); INSERT INTO notes VALUES (1)")
        assert not table.run("not sql at all")
        assert table.items() == (TodoItem("A", "pending"),)
        assert not table.run(
            "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM r) SELECT count(*) FROM r"
        )
    finally:
        table.close()


def test_session_db_wins_for_the_current_turn(tmp_path: Path) -> None:
    events = tmp_path / "events.jsonl"
    events.write_bytes(TODOS.read_bytes())
    with sqlite3.connect(tmp_path / "session.db") as db:
        db.executescript(cp.TODO_SCHEMA)
        db.execute("INSERT INTO todos (id, title, status) VALUES ('x', 'From the host DB', 'done')")
    turn = cp.read_current_turn(events)
    assert turn.material is not None
    assert turn.material.todos == (TodoItem("From the host DB", "completed"),)
    rebuilt = cp.read_current_turn(events, use_session_db=False)
    assert rebuilt.material is not None and len(rebuilt.material.todos) == 2
    assert cp.session_db_rows(REAL_SMALL) is None


def test_empty_events_file(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    path.write_text('{"type":"session.start","data":{"sessionId":"s"}}\n', "utf-8")
    with pytest.raises(MaterialMissing):
        cp.read_current_turn(path)


def _events(path: Path, *events: tuple[str, dict[str, object]]) -> None:
    import json

    with path.open("a", encoding="utf-8") as out:
        for n, (etype, data) in enumerate(events):
            record = {"type": etype, "data": data, "id": f"e{n}", "timestamp": "t"}
            out.write(json.dumps(record) + "\n")


def _stop(mark: int) -> tuple[str, dict[str, object]]:
    return ("hook.start", {"hookType": "agentStop", "input": {"timestamp": mark}})


def test_a_stop_not_yet_logged_is_behind_and_a_stale_answer_is_never_judged(
    tmp_path: Path,
) -> None:
    """The hook can run before Copilot wrote the stop (real 1.0.102): until the stop's
    ``hook.start`` is in the file the reader raises TranscriptBehind; at a re-stop the
    previous round's answer is never taken for this one's (issue 19)."""
    path = tmp_path / "events.jsonl"
    _events(
        path,
        ("user.message", {"content": "Fix the bug.", "interactionId": "i1"}),
        ("assistant.message", {"content": "Done: fixed.", "interactionId": "i1"}),
    )
    with pytest.raises(cp.TranscriptBehind):
        cp.read_current_turn(path, stop_timestamp=1)
    _events(path, _stop(1))
    turn = cp.read_current_turn(path, stop_timestamp=1)
    assert turn.material is not None and turn.material.final_answer == "Done: fixed."
    # Jev's supplement came back; the re-stop is logged, but no answer since it
    steer = "[Jev completion audit · automatic message, round 1/3 · not from the user] go on"
    _events(path, ("user.message", {"content": steer, "interactionId": "i2"}), _stop(2))
    turn = cp.read_current_turn(path, stop_timestamp=2)
    assert turn.key == "i1" and turn.material is not None and turn.material.final_answer == ""
    with pytest.raises(cp.TranscriptBehind):  # no timestamp: wait for an answer
        cp.read_current_turn(path, wait_for_answer=True)
    _events(path, ("assistant.message", {"content": "Fixed, tests pass.", "interactionId": "i2"}))
    turn = cp.read_current_turn(path, wait_for_answer=True)
    assert turn.material is not None and turn.material.final_answer == "Fixed, tests pass."


def test_the_adapter_waits_for_the_file_then_says_material_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``read_turn`` polls a missing or lagging ``events.jsonl`` for at most
    ``CATCH_UP_S`` and then says why it did not audit (issue 19)."""
    from jev.hosts.copilot import adapter as copilot

    monkeypatch.setattr(copilot, "CATCH_UP_S", 0.2)
    path = tmp_path / "events.jsonl"
    hook = copilot.ADAPTER.parse(
        {"sessionId": "s", "transcriptPath": str(path), "timestamp": 7, "stopReason": "end_turn"}
    )
    with pytest.raises(MaterialMissing, match=r"does not exist .yet.* an older one is not judged"):
        copilot.ADAPTER.read_turn(hook, {}, "s")  # type: ignore[arg-type]
    _events(
        path,
        ("user.message", {"content": "Fix the bug.", "interactionId": "i1"}),
        ("assistant.message", {"content": "Done.", "interactionId": "i1"}),
        _stop(7),
    )
    turn = copilot.ADAPTER.read_turn(hook, {}, "s")  # type: ignore[arg-type]
    assert turn.material is not None and turn.material.final_answer == "Done."
