"""The right material from every transcript (issue 10 items 1–5; design.md §2, §3).

Real transcripts (``tests/fixtures/real``) and verbatim excerpts of real ones
(``tests/fixtures/excerpts``, see SOURCES.md there); hand-built records only where no
real file shows the shape (a task list reset on resume), built from the real
loopkit ``TaskCreate`` shapes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from jev.base.errors import UsageError
from jev.cli import main
from jev.hosts import transcript
from jev.hosts.claude_code import transcript as claude_code
from jev.hosts.codex import transcript as codex
from jev.hosts.transcript import detect_format, read_current_turn, read_turns
from tests.conftest import FIXTURES

REAL = FIXTURES / "real"
EXCERPTS = FIXTURES / "excerpts"
LOOPKIT = REAL / "claude-code-2.1.96_pookNast-loopkit_chat.jsonl"
COMPACTION = REAL / "claude-code-2.1.39_marot-spotter_4d5611e5.jsonl"
SUBAGENTS = REAL / "claude-code-2.1.39_marot-spotter_4d5611e5" / "subagents"
CODEX_058 = REAL / "codex-0.58.0_AcidicSoil-codex-session-view_019a93b9.jsonl"
GIT_SYNC = EXCERPTS / "claude-code-2.1.179_git-sync_answers-and-rejection.jsonl"
AFK = EXCERPTS / "claude-code-2.1.232_entirecontext_afk-answer.jsonl"
PLAN_REJECTION = EXCERPTS / "claude-code-2.1.96_loopkit_plan-rejection.jsonl"


def _records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def _write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), "utf-8")
    return path


# -- item 1: user words inside tool results --------------------------------------


def test_rejected_plan_feedback_is_an_adjustment_exactly_as_typed() -> None:
    (turn,) = read_turns(PLAN_REJECTION)
    assert turn.material is not None
    assert turn.material.request[1:] == (
        "Generate the plan/miletsonte contract for these opportunities",
    )
    # Never the host's own text around the user's words.
    assert not any("doesn't want to proceed" in r for r in turn.material.request)
    assert not any("Note: The user's next message" in r for r in turn.material.request)


def test_rejection_feedback_in_the_whole_real_loopkit_file() -> None:
    turns = read_turns(LOOPKIT)
    found = [t for t in turns if t.material and len(t.material.request) > 1]
    assert [t.material.request[-1] for t in found if t.material] == [
        "Generate the plan/miletsonte contract for these opportunities"
    ]


def test_question_answers_are_adjustments_and_a_plain_rejection_adds_nothing() -> None:
    (turn,) = read_turns(GIT_SYNC)
    assert turn.material is not None
    assert turn.material.request[0].startswith("I'd like to do a loop")
    # Two AskUserQuestion answers; the Bash rejection without feedback adds nothing.
    assert turn.material.request[1:] == ("Everything", "Fully autonomous")


def test_a_typed_other_answer_is_taken_verbatim() -> None:
    turns = read_turns(COMPACTION)
    assert turns[1].material is not None
    assert turns[1].material.request == ("continue", "main was clean; fix the issues")


def test_an_afk_timeout_is_not_an_answer() -> None:
    (turn,) = read_turns(AFK)
    assert turn.material is not None
    assert len(turn.material.request) == 1
    assert "No response after" not in "".join(turn.material.request)


def test_answers_alone_never_make_a_request() -> None:
    # A turn opened by a background-task notification whose only user words are
    # answers to the agent's questions has no original request: material missing.
    rec = _records(GIT_SYNC)
    notification = dict(rec[0])
    notification["message"] = {
        "role": "user",
        "content": "<task-notification>\n<task-id>a1</task-id>\n</task-notification>",
    }
    todo = {
        "type": "assistant",
        "uuid": "todo-1",
        "message": {
            "id": "m-todo",
            "role": "assistant",
            "content": [
                {
                    "type": "tool_use",
                    "id": "t1",
                    "name": "TodoWrite",
                    "input": {"todos": [{"content": "x", "status": "completed"}]},
                }
            ],
            "stop_reason": "tool_use",
        },
    }
    turns = claude_code.scan(enumerate([notification, *rec[1:3], rec[3], todo]))
    assert turns[-1].status == "missing"


def test_text_fallback_when_tool_use_result_is_absent() -> None:
    block = {
        "type": "tool_result",
        "content": 'User has answered your questions: "Deploy where?"="No, staging only". '
        "You can now continue with the user's answers in mind.",
    }
    assert claude_code.question_answers(block, {}) == ["No, staging only"]
    assert claude_code.question_answers({**block, "is_error": True}, {}) == []


# -- item 2: turns that have not ended -------------------------------------------


def test_codex_058_recording_stops_mid_turn() -> None:
    (turn,) = read_turns(CODEX_058)
    assert turn.status == "ready" and not turn.ended
    (skipped,) = transcript.skip_running([turn])
    assert skipped.status == "skipped" and skipped.reason == "the turn has not ended"


def test_claude_code_turn_cut_on_a_pending_tool_use_has_not_ended(tmp_path: Path) -> None:
    records = _records(LOOPKIT)
    last_create = max(
        i
        for i, r in enumerate(records)
        if r.get("type") == "assistant"
        and any(b.get("name") == "TaskCreate" for b in r["message"]["content"])
    )
    cut = _write(tmp_path / "cut.jsonl", records[: last_create + 1])
    turn = read_turns(cut)[-1]
    assert turn.todo_used and turn.status == "ready" and not turn.ended
    whole = read_turns(LOOPKIT)
    assert all(t.ended for t in whole[:-1])
    assert [t.number for t in whole if t.todo_used] == [whole[-2].number]
    assert whole[-2].ended  # stop_hook_summary + turn_duration follow it


def test_jev_audit_skips_a_running_turn_unless_include_running(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["audit", str(CODEX_058)]) == 0
    assert capsys.readouterr().out.strip() == "turn 1: skipped: the turn has not ended"
    assert main(["audit", str(CODEX_058), "--include-running", "--no-record"]) == 4
    assert "omission" in capsys.readouterr().out


def test_a_running_turn_is_not_recorded(capsys: pytest.CaptureFixture[str]) -> None:
    from jev.store import Store

    assert main(["audit", str(CODEX_058)]) == 0
    store = Store()
    try:
        assert store.list_records() == []
    finally:
        store.close()


def test_codex_final_answer_message_ends_a_turn_without_task_complete() -> None:
    recs: list[tuple[int, dict[str, Any]]] = list(
        enumerate(
            [
                {"type": "event_msg", "payload": {"type": "task_started", "turn_id": "t1"}},
                {"type": "event_msg", "payload": {"type": "user_message", "message": "do x"}},
                {
                    "type": "response_item",
                    "payload": {
                        "type": "function_call",
                        "name": "update_plan",
                        "arguments": '{"plan":[{"step":"x","status":"completed"}]}',
                    },
                },
                {
                    "type": "response_item",
                    "payload": {
                        "type": "message",
                        "role": "assistant",
                        "phase": "final_answer",
                        "content": [{"type": "output_text", "text": "Done."}],
                    },
                },
            ]
        )
    )
    assert codex.scan(recs)[-1].ended
    commentary = [*recs[:3], (3, {**recs[3][1], "payload": {**recs[3][1]["payload"]}})]
    commentary[3][1]["payload"]["phase"] = "commentary"
    assert not codex.scan(commentary)[-1].ended


# -- item 3: subagent transcripts -------------------------------------------------


@pytest.mark.parametrize("path", sorted(SUBAGENTS.glob("agent-*.jsonl")), ids=lambda p: p.name)
def test_subagent_transcripts_are_skipped_exit_0(
    path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["audit", str(path), "--no-record"]) == 0
    assert capsys.readouterr().out.strip() == "turn 1: skipped: subagent transcript"
    # Found by content too: every record a sidechain, whatever the file is called.
    renamed = tmp_path / "session.jsonl"
    renamed.write_bytes(path.read_bytes())
    (turn,) = read_turns(renamed)
    assert turn.status == "skipped" and turn.reason == "subagent transcript"
    assert read_current_turn(renamed).reason == "subagent transcript"


# -- item 4: a task list reset on resume ------------------------------------------


def _task_turn(n: int, prompt: str, creates: list[tuple[str, str]], answer: str) -> list[Any]:
    """Records of one turn in the real 2.1.96 shapes (loopkit T8)."""
    out: list[dict[str, Any]] = [
        {
            "type": "user",
            "isSidechain": False,
            "uuid": f"p{n}",
            "message": {"role": "user", "content": prompt},
        }
    ]
    for task_id, subject in creates:
        use = f"toolu_{n}_{task_id}"
        out.append(
            {
                "type": "assistant",
                "isSidechain": False,
                "uuid": f"a{n}{task_id}",
                "message": {
                    "id": f"msg_{n}_{task_id}",
                    "role": "assistant",
                    "content": [
                        {
                            "type": "tool_use",
                            "id": use,
                            "name": "TaskCreate",
                            "input": {"subject": subject, "description": subject},
                        }
                    ],
                    "stop_reason": None,
                },
            }
        )
        out.append(
            {
                "type": "user",
                "isSidechain": False,
                "uuid": f"r{n}{task_id}",
                "message": {
                    "role": "user",
                    "content": [
                        {
                            "tool_use_id": use,
                            "type": "tool_result",
                            "content": f"Task #{task_id} created successfully: {subject}",
                        }
                    ],
                },
                "toolUseResult": {"task": {"id": task_id, "subject": subject}},
            }
        )
    out.append(
        {
            "type": "assistant",
            "isSidechain": False,
            "uuid": f"f{n}",
            "message": {
                "id": f"msg_{n}_final",
                "role": "assistant",
                "content": [{"type": "text", "text": answer}],
                "stop_reason": "end_turn",
            },
        }
    )
    return out


def test_task_list_reset_on_resume_starts_a_new_list() -> None:
    records = [
        *_task_turn(1, "build the exporter", [("1", "Write exporter"), ("2", "Add CLI")], "WIP"),
        *_task_turn(2, "fix the typo in README", [("1", "Fix README typo")], "Fixed."),
    ]
    turns = claude_code.scan(enumerate(records))
    assert turns[1].material is not None
    assert [t.content for t in turns[1].material.todos] == ["Fix README typo"]
    # Without a reset (ids continue) the list is per session, as before.
    continued = [
        *_task_turn(1, "build the exporter", [("1", "Write exporter")], "WIP"),
        *_task_turn(2, "and add a CLI", [("2", "Add CLI")], "Done."),
    ]
    later = claude_code.scan(enumerate(continued))[1]
    assert later.material is not None
    assert [t.content for t in later.material.todos] == ["Write exporter", "Add CLI"]


# -- item 5: parse errors, long first lines, <stdin> ------------------------------


def test_unparsable_file_says_why(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{oops\n", "utf-8")
    with pytest.raises(UsageError, match="not valid JSON at line 1 column 2"):
        detect_format(bad)
    array = tmp_path / "array.json"
    array.write_text("[1, 2]", "utf-8")
    with pytest.raises(UsageError, match="it is a JSON array"):
        detect_format(array)
    assert main(["audit", str(bad)]) == 2
    assert "not valid JSON at line 1 column 2" in capsys.readouterr().err


def test_a_first_line_over_64_kib_is_still_recognised(tmp_path: Path) -> None:
    lines = CODEX_058.read_text("utf-8").splitlines()
    meta = json.loads(lines[0])
    assert meta["type"] == "session_meta"
    meta["payload"]["instructions"] = "x" * (100 * 1024)
    big = tmp_path / "rollout.jsonl"
    big.write_text("\n".join([json.dumps(meta), *lines[1:]]) + "\n", "utf-8")
    assert len(big.read_text("utf-8").splitlines()[0]) > 64 * 1024
    assert detect_format(big) == "codex"
    assert read_turns(big)[0].material == read_turns(CODEX_058)[0].material


def test_stdin_is_named_stdin(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"{oops\n")))
    assert main(["audit", "-"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("jev: <stdin>: ") and "jev-stdin-" not in err
