"""Claude Code transcript reader on real transcripts and hand-built fixtures (design.md §2, §3)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from jev.base.errors import MaterialMissing, UsageError
from jev.hosts.claude_code import transcript as claude_code
from jev.hosts.transcript import Turn, read_current_turn, read_turns

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
REAL = FIXTURES / "real"
HAND = FIXTURES / "hand"
CLAUDE_REAL = sorted(REAL.glob("claude-code-*.jsonl"))
EXAMPLE = REAL / "claude-code-1.0.31_amac0-ClaudeStatus_example.jsonl"
EXAMPLE2 = REAL / "claude-code-1.0.31_amac0-ClaudeStatus_example2.jsonl"
DMUX = REAL / "claude-code-2.0.42_applab-nl-dmux_chat.jsonl"
VIEWER = REAL / "claude-code-1.0.98_d-kimuson-claude-code-viewer_fe5e1c67.jsonl"
LOOPKIT = REAL / "claude-code-2.1.96_pookNast-loopkit_chat.jsonl"
SHORT = REAL / "claude-code-2.1.38_marot-spotter_short.jsonl"
TOOL_HEAVY = REAL / "claude-code-2.1.38_marot-spotter_tool_heavy.jsonl"
COMPACTION = REAL / "claude-code-2.1.39_marot-spotter_4d5611e5.jsonl"


def _statuses(turns: list[Turn]) -> list[str]:
    return [t.status for t in turns]


def test_all_real_claude_files_are_found() -> None:
    assert len(CLAUDE_REAL) == 8


def test_example2_counts_21_turns_with_clear_not_a_turn() -> None:
    turns = read_turns(EXAMPLE2)
    assert len(turns) == 21
    assert [t.number for t in turns] == list(range(1, 22))
    assert turns[0].opening == "slash-command"
    assert turns[0].material is not None
    assert turns[0].material.request[0].startswith("Please analyze this codebase")
    ready = [t for t in turns if t.status == "ready"]
    no_todo = [t for t in turns if t.reason == "no Todo use in this turn"]
    interrupted = [t for t in turns if t.ended_by_interrupt]
    assert (len(ready), len(no_todo), len(interrupted)) == (13, 7, 1)
    assert all(t.todo_used for t in ready)
    assert interrupted[0].todo_used and interrupted[0].status == "skipped"
    assert interrupted[0].reason == "ended by a user interrupt"
    # The turn after /clear is a normal prompt turn; no request text is a command.
    texts = [r for t in turns if t.material for r in t.material.request]
    assert not any("<command-name>" in r or "local-command" in r for r in texts)
    assert any(r.startswith("Now run the script with no arguments") for r in texts)


def test_example_init_then_plain_turn() -> None:
    t1, t2 = read_turns(EXAMPLE)
    assert t1.opening == "slash-command" and t1.status == "ready"
    first = json.loads(EXAMPLE.read_text("utf-8").splitlines()[0])
    assert t1.key == first["uuid"]  # the /init command record opens the turn
    assert t1.material is not None
    assert next(i.content for i in t1.material.todos).startswith("Explore codebase structure")
    assert t1.material.final_answer.startswith("I've created a comprehensive CLAUDE.md")
    assert t2.status == "skipped" and t2.reason == "no Todo use in this turn"
    assert t2.material is not None
    assert t2.material.request == ("Do not do anything right now, this is a test.",)
    assert t2.material.todos == ()


def test_example_counts_five_todowrite_calls_in_init_turn() -> None:
    calls = 0
    for line in EXAMPLE.read_text("utf-8").splitlines():
        rec = json.loads(line)
        for block in rec.get("message", {}).get("content", []) or []:
            if isinstance(block, dict) and block.get("name") == "TodoWrite":
                calls += 1
    assert calls == 5
    assert read_turns(EXAMPLE)[0].todo_used


def test_dmux_turns() -> None:
    turns = read_turns(DMUX)
    # 7 opening entries in the README: the `!pwd` bash input is not a turn.
    assert len(turns) == 6
    t1, t2, t3 = turns[:3]
    assert t1.status == "ready" and t1.material is not None
    assert t1.material.todos[-1].status == "in_progress"
    assert all(i.status == "completed" for i in t1.material.todos[:-1])
    assert "Would you like me to implement this solution?" in t1.material.final_answer
    assert t2.status == "ready" and t2.material is not None
    assert t2.material.request == ("yes",)
    assert all(i.status == "completed" for i in t2.material.todos)
    assert t3.status == "skipped" and t3.ended_by_interrupt
    assert [t.opening for t in turns[4:]] == ["slash-command", "slash-command"]
    assert all("<bash-" not in r for t in turns if t.material for r in t.material.request)


def test_viewer_sidechain_todowrites_are_ignored() -> None:
    t1, t2 = read_turns(VIEWER)
    assert t1.status == "ready" and t1.opening == "slash-command"
    assert t1.material is not None
    assert t1.material.request[0].startswith("Split complex tasks")
    assert "ARGUMENTS: create TODO app by Next.js" in t1.material.request[0]
    # The main thread's list (5 items, all completed), not a subagent's.
    assert next(i.content for i in t1.material.todos) == (
        "Set up Next.js project structure and dependencies"
    )
    assert len(t1.material.todos) == 5
    assert all(i.status == "completed" for i in t1.material.todos)
    assert t1.material.final_answer.startswith("## ✅ TODO App Creation Complete")
    assert t2.status == "skipped" and not t2.todo_used


def test_loopkit_task_tools() -> None:
    turns = read_turns(LOOPKIT)
    # 9 opening entries in the README; /clear and /effort are local commands, so
    # README's T8 (the Task turn) is the 6th turn and its T9 the 7th.
    assert len(turns) == 7
    used = [t for t in turns if t.todo_used]
    assert [t.number for t in used] == [6]
    task_turn = used[0]
    assert task_turn.status == "ready" and task_turn.material is not None
    todos = task_turn.material.todos
    assert len(todos) == 7
    assert todos[0].content == "Create loopkit Python package structure"
    assert all(i.status == "completed" for i in todos)
    last = turns[-1]
    assert last.status == "skipped" and last.reason == "no Todo use in this turn"
    assert last.material is not None and last.material.final_answer == ""
    assert turns[4].opening == "slash-command"  # /goal expands a skill prompt
    # The never-dequeued queued message is not part of any request.
    assert not any(
        "authored by 'pookNast'" in r for t in turns if t.material for r in t.material.request
    )


@pytest.mark.parametrize("path", [SHORT, TOOL_HEAVY, COMPACTION])
def test_spotter_files_have_no_todo_use(path: Path) -> None:
    turns = read_turns(path)
    assert turns
    assert not any(t.todo_used for t in turns)
    assert all(t.status == "skipped" for t in turns)


def test_compaction_file_reads_cleanly() -> None:
    turns = read_turns(COMPACTION)
    # the closing <task-notification> continues turn 2 (issue 8 item 6), no third turn
    assert [t.opening for t in turns] == ["prompt", "prompt"]
    assert turns[1].material is not None
    # The summary never stands in; the AskUserQuestion answer is the user's adjustment.
    assert turns[1].material.request == ("continue", "main was clean; fix the issues")


def test_interrupt_and_local_command_at_end() -> None:
    (turn,) = read_turns(SHORT)
    assert turn.ended_by_interrupt and turn.reason == "ended by a user interrupt"
    assert turn.material is not None
    assert turn.material.request == ("mix phx.server doesnt seem to start",)


@pytest.mark.parametrize("path", CLAUDE_REAL + sorted(HAND.glob("claude-*.jsonl")), ids=str)
def test_backward_reader_equals_forward_last_turn(path: Path) -> None:
    forward = read_turns(path)[-1]
    backward = read_current_turn(path)
    assert backward.number == 0
    assert backward == dataclasses.replace(forward, number=0)


def test_backward_reader_prefers_last_assistant_message() -> None:
    turn = read_current_turn(DMUX, last_assistant_message="the hook's copy")
    assert turn.material is not None and turn.material.final_answer == "the hook's copy"


def test_backward_reader_stops_at_the_opening(tmp_path: Path) -> None:
    # Garbage that the backward reader never reaches proves it stopped early:
    # a forward read of the same bytes sees an extra (lead) turn.
    path = tmp_path / "t.jsonl"
    head = json.dumps(
        {
            "type": "assistant",
            "message": {"id": "x", "content": [{"type": "text", "text": "old work"}]},
        }
    )
    body = (HAND / "claude-stop-feedback.jsonl").read_text("utf-8")
    path.write_text(head + "\n" + body, "utf-8")
    forward = read_turns(path)
    assert [t.opening for t in forward] == ["missing", "prompt"]
    assert read_current_turn(path) == dataclasses.replace(forward[-1], number=0)


# -- hand-built fixtures ---------------------------------------------------------


def test_tasks_across_turns() -> None:
    t1, t2, t3 = read_turns(HAND / "claude-tasks.jsonl")
    assert t1.material is not None and t1.status == "ready"
    # id from toolUseResult.task.id and from the text; #3 deleted; failed update ignored.
    assert [(i.content, i.status) for i in t1.material.todos] == [
        ("Create package layout", "completed"),
        ("Write docs", "pending"),
    ]
    assert t2.status == "skipped" and not t2.todo_used
    assert t2.material is not None and t2.material.todos == ()
    assert t3.material is not None and t3.status == "ready"
    # Task created in T1 and updated in T3 (new subject): the list is per session.
    assert [(i.content, i.status) for i in t3.material.todos] == [
        ("Create package layout", "completed"),
        ("Write README docs", "completed"),
    ]


def test_task_turn_backward_reads_whole_session() -> None:
    path = HAND / "claude-tasks.jsonl"
    turn = read_current_turn(path)
    assert turn.material is not None and len(turn.material.todos) == 2


def test_stop_hook_feedback_keeps_the_turn() -> None:
    (turn,) = read_turns(HAND / "claude-stop-feedback.jsonl")
    assert turn.material is not None
    assert turn.material.request == ("Add a --verbose flag and document it.",)
    assert turn.key == read_current_turn(HAND / "claude-stop-feedback.jsonl").key
    assert all(i.status == "completed" for i in turn.material.todos)
    assert turn.material.final_answer.startswith("Both items are done")


def test_queued_adjustments_join_the_request() -> None:
    t1, t2 = read_turns(HAND / "claude-queued.jsonl")
    assert t1.material is not None
    # remove + queued_command of one delivery counted once; a task notification
    # is not a user adjustment; the dequeued message became the next prompt.
    assert t1.material.request == (
        "Rename the config loader.",
        "Also update the changelog.",
        "And keep the old name as an alias.",
    )
    assert t2.material is not None and t2.material.request == ("Then run the tests.",)


def test_compacted_away_opening_is_missing() -> None:
    t1, t2 = read_turns(HAND / "claude-compacted.jsonl")
    assert t1.status == "missing" and t1.material is None and t1.opening == "missing"
    assert t1.reason.startswith("material missing:")
    assert t2.status == "ready"


def test_compacted_only_file_current_turn_is_missing(tmp_path: Path) -> None:
    lines = (HAND / "claude-compacted.jsonl").read_text("utf-8").splitlines()[:5]
    path = tmp_path / "c.jsonl"
    path.write_text("\n".join(lines) + "\n", "utf-8")
    turn = read_current_turn(path)
    assert turn.status == "missing" and turn.material is None


def test_task_notification_with_todo_use_is_missing() -> None:
    records = [
        {"type": "user", "uuid": "n1", "message": {"content": "<task-notification>\n<task-id>a"}},
        {
            "type": "assistant",
            "message": {
                "id": "m",
                "content": [
                    {
                        "type": "tool_use",
                        "id": "t",
                        "name": "TodoWrite",
                        "input": {"todos": [{"content": "x", "status": "completed"}]},
                    }
                ],
            },
        },
    ]
    (turn,) = claude_code.scan(enumerate(records))
    assert turn.opening == "task-notification" and turn.status == "missing"
    assert "background-task notification" in turn.reason


def test_empty_and_missing_files(tmp_path: Path) -> None:
    empty = tmp_path / "e.jsonl"
    empty.write_bytes(b"")
    assert claude_code.read_turns(empty) == []
    with pytest.raises(MaterialMissing):
        claude_code.read_current_turn(empty)
    with pytest.raises(UsageError):
        read_turns(tmp_path / "nope.jsonl")
    with pytest.raises(UsageError):
        read_current_turn(tmp_path / "nope.jsonl", "claude-code")


def test_bad_lines_are_skipped(tmp_path: Path) -> None:
    src = (HAND / "claude-stop-feedback.jsonl").read_bytes()
    lines = src.splitlines(keepends=True)
    junk = [b"\xff\xfe not json\n", b"[1, 2, 3]\n", b"42\n", b'"text"\n', b"null\n"]
    path = tmp_path / "j.jsonl"
    path.write_bytes(b"".join(lines[:3] + junk + lines[3:]) + b'{"type": "assistant", "mess')
    assert read_turns(path) == read_turns(HAND / "claude-stop-feedback.jsonl")
    assert read_current_turn(path) == read_current_turn(HAND / "claude-stop-feedback.jsonl")


@pytest.mark.slow  # writes and reads a 50 MB transcript line
def test_huge_single_line(tmp_path: Path) -> None:
    big = "x" * (50 * 1024 * 1024)
    recs = [
        {"type": "user", "uuid": "u1", "message": {"content": "Do it."}},
        {
            "type": "assistant",
            "message": {
                "id": "m1",
                "content": [
                    {
                        "type": "tool_use",
                        "id": "t",
                        "name": "TodoWrite",
                        "input": {"todos": [{"content": "step", "status": "completed"}]},
                    }
                ],
            },
        },
        {"type": "assistant", "message": {"id": "m2", "content": [{"type": "text", "text": big}]}},
    ]
    path = tmp_path / "big.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in recs) + "\n", "utf-8")
    turn = read_current_turn(path)
    assert turn.status == "ready" and turn.material is not None
    assert len(turn.material.final_answer) == len(big)
