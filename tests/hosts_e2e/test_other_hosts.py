"""Codex (thin harness), Gemini and Cursor adapters, and the hook's fast path."""

from __future__ import annotations

import json
from pathlib import Path

from jev.store import Store
from tests.fakeserver import FakeProvider
from tests.hosts_e2e.conftest import prompts_seen, verdict
from tests.hosts_e2e.harness import JEV, CodexSim, run_hook
from tests.hosts_e2e.more_hosts import CursorSim


def test_codex_turn_supplement_then_complete(tmp_path: Path, judge: FakeProvider) -> None:
    judge.script(verdict("omission", "R2"), verdict("complete", "none"))
    sim = CodexSim(tmp_path)
    sim.start()
    sim.prompt("Add retries to the client. Log each retry.")
    sim.plan(("Add retries", "completed"), ("Log retries", "pending"))
    sim.say("Retries added.")
    first = sim.stop()
    assert first.blocked and "Log each retry." in first.reason
    sim.plan(("Add retries", "completed"), ("Log retries", "completed"))
    sim.say("Retries added and each retry is logged at WARN.")
    second = sim.stop(stop_hook_active=True)
    assert not second.blocked and second.answer and "complete" in second.answer["systemMessage"]
    sim.end_turn()
    with Store() as store:
        records = sorted(store.list_records(session=sim.session_id), key=lambda r: r.id)
    assert [r.assessment for r in records] == ["omission", "complete"]
    assert {r.turn for r in records} == {sim.turn_id} and records[0].host == "codex"
    assert "hook_prompt" not in prompts_seen(judge)[1]


def test_codex_without_plan_or_transcript_is_quiet(tmp_path: Path, judge: FakeProvider) -> None:
    sim = CodexSim(tmp_path)
    sim.start()
    sim.prompt("What does this repo do?")
    sim.say("It is a CLI.")
    # issue 8 item 7: allow is {"continue": true} (some Codex versions reject empty
    # stdout), and a turn without a readable transcript is a silent skip
    assert sim.stop().answer == {"continue": True}
    null_path = sim.stop(transcript_path=None)
    assert null_path.code == 0 and null_path.answer == {"continue": True}
    assert judge.count == 0


def _gemini_chat(path: Path, prompt: str, todos: list[dict[str, str]] | None) -> None:
    """A legacy single-object chat file (gemini-cli ``ConversationRecord``)."""
    messages = [{"id": "u1", "type": "user", "content": prompt, "timestamp": "t1"}]
    calls = [] if todos is None else [{"name": "write_todos", "args": {"todos": todos}}]
    messages.append({"id": "g1", "type": "gemini", "content": "Working.", "toolCalls": calls})
    path.write_text(json.dumps({"sessionId": "g1", "projectHash": "p", "messages": messages}))


def test_gemini_after_agent_denies_then_keeps_the_turn_on_the_retry(
    tmp_path: Path, judge: FakeProvider
) -> None:
    """Gemini's real retry shape (hosts.md (Gemini CLI), client.ts): the deny reason is recorded
    as a new user message of the same prompt, and the retry's AfterAgent repeats the
    *original* prompt with a cumulative prompt_response and stop_hook_active true."""
    judge.script(verdict("contradiction", "T2"), verdict("complete", "none"))
    chat = tmp_path / "session-1.jsonl"
    prompt = "Migrate the settings page. Keep the old URL working."
    todos = [
        {"description": "Migrate page", "status": "completed"},
        {"description": "Keep old URL", "status": "cancelled"},
    ]
    lines = [
        {"sessionId": "g1", "projectHash": "p", "startTime": "t0", "kind": "main"},
        {"id": "u1", "type": "user", "content": [{"text": prompt}], "timestamp": "t1"},
        {"id": "m1", "type": "gemini", "content": "", "timestamp": "t2"},
        {
            "id": "m1",
            "type": "gemini",
            "content": "",
            "timestamp": "t2",
            "toolCalls": [{"name": "write_todos", "args": {"todos": todos}, "status": "success"}],
        },
        {"id": "m2", "type": "gemini", "content": "Done, old URL works.", "timestamp": "t3"},
    ]
    chat.write_text("".join(json.dumps(x) + "\n" for x in lines))
    base = {
        "session_id": "g1",
        "transcript_path": str(chat),
        "cwd": str(tmp_path),
        "hook_event_name": "AfterAgent",
        "timestamp": "2026-01-01T00:00:00Z",
        "prompt": prompt,
        "prompt_response": "Done, old URL works.",
        "stop_hook_active": False,
    }
    first = run_hook(f"{JEV} hook gemini", base, cwd=tmp_path)
    assert first.answer and first.answer["decision"] == "deny" and first.answer["reason"]
    assert "[cancelled] Keep old URL" in prompts_seen(judge)[0]
    with chat.open("a") as handle:  # Gemini records the reason, then the new answer
        handle.write(
            json.dumps({"id": "u2", "type": "user", "content": [{"text": first.answer["reason"]}]})
            + "\n"
        )
        handle.write(
            json.dumps({"id": "m3", "type": "gemini", "content": "Old URL now redirects."}) + "\n"
        )
    again = dict(
        base,
        prompt_response="Done, old URL works.\nOld URL now redirects.",
        stop_hook_active=True,
        timestamp="2026-01-01T00:01:00Z",
    )
    second = run_hook(f"{JEV} hook gemini", again, cwd=tmp_path)
    assert second.answer is not None and "decision" not in second.answer
    with Store() as store:
        records = sorted(store.list_records(session="g1"), key=lambda r: r.id)
    assert [r.assessment for r in records] == ["contradiction", "complete"]
    assert len({r.turn for r in records}) == 1
    assert records[1].material["request"] == [prompt]
    # the newest answer, not the cumulative prompt_response
    assert records[1].material["final_answer"] == "Old URL now redirects."


def test_gemini_without_todos_prints_empty_object(tmp_path: Path, judge: FakeProvider) -> None:
    chat = tmp_path / "session-2.json"
    _gemini_chat(chat, "hi", None)
    run = run_hook(
        f"{JEV} hook gemini",
        {
            "session_id": "g2",
            "transcript_path": str(chat),
            "hook_event_name": "AfterAgent",
            "prompt": "hi",
            "prompt_response": "hello",
        },
        cwd=tmp_path,
    )
    assert run.stdout.strip() == "{}" and judge.count == 0


def test_cursor_stop_statuses_and_missing_transcript(tmp_path: Path, judge: FakeProvider) -> None:
    base = {
        "conversation_id": "c1",
        "generation_id": "g1",
        "hook_event_name": "stop",
        "loop_count": 0,
        "workspace_roots": [str(tmp_path)],
    }
    aborted = run_hook(f"{JEV} hook cursor", dict(base, status="aborted"), cwd=tmp_path)
    assert aborted.stdout.strip() == "{}" and aborted.stderr == ""
    missing = run_hook(f"{JEV} hook cursor", dict(base, status="completed"), cwd=tmp_path)
    assert missing.stdout.strip() == "{}" and "material missing" in missing.stderr
    # a Cursor agent transcript with TodoWrite is audited; steer = followup_message
    judge.script(verdict("unknown", "all"))
    sim = CursorSim(tmp_path)
    sim.prompt("Clean up the logging.")
    sim.todos([("Clean up logging", "completed")])
    sim.say("All done.")
    steer = run_hook(
        f"{JEV} hook cursor",
        dict(base, status="completed", transcript_path=str(sim.transcript)),
        cwd=tmp_path,
    )
    assert steer.answer and steer.answer["followup_message"]
