"""End-to-end: a simulated Claude Code session drives the installed ``jev`` hook.

Every row of the seed's behaviour table (seeds/jev-completion-claim-audit.txt, "行为示例")
plus the host situations of issue 4 item 8. The judge is scripted over real HTTP; what
is tested is the host plumbing: which stops audit, what the hook answers, what the host
feeds back, and what the store records.
"""

from __future__ import annotations

import json
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from jev.store import Store
from tests.fakeserver import FakeProvider, closed_port
from tests.hosts_e2e.conftest import prompts_seen, verdict
from tests.hosts_e2e.harness import JEV, ClaudeCodeSim, run_hook


def _records(session: str) -> list:
    with Store() as store:
        return sorted(store.list_records(session=session, limit=100), key=lambda r: r.id)


def _chain(session: str) -> list[str]:
    return [r.assessment for r in _records(session) if r.status == "verdict"]


# -- seed behaviour table ----------------------------------------------------------


def test_row1_no_todo_use_never_calls_the_judge(tmp_path: Path, judge: FakeProvider) -> None:
    sim = ClaudeCodeSim(tmp_path)

    def agent(s: ClaudeCodeSim, k: int, feedback: str) -> None:
        s.say("The answer is 42.")

    runs = sim.run_turn("What is 6 times 7?", agent)
    assert [r.answer for r in runs] == [None]
    assert judge.count == 0 and _records(sim.session_id) == []


def test_row2_pending_items_are_still_audited(tmp_path: Path, judge: FakeProvider) -> None:
    judge.script(verdict("complete", "none"))
    sim = ClaudeCodeSim(tmp_path)

    def agent(s: ClaudeCodeSim, k: int, feedback: str) -> None:
        s.todo_write(("Investigate flaky test", "completed"), ("Write a report", "pending"))
        s.say("Investigated; the report is below. Writing it up is left pending as agreed.")

    runs = sim.run_turn("Investigate the flaky test and report.", agent)
    assert len(runs) == 1 and not runs[0].blocked
    assert judge.count == 1
    assert "Write a report" in prompts_seen(judge)[0]
    assert "complete" in runs[0].notice


@pytest.mark.parametrize(
    ("first", "focus", "prompt", "fix"),
    [
        # row 3: docs update requested, report silent -> omission located in the request
        ("omission", "R2", "Add the --dry-run flag. Update the README too.", "README updated."),
        # row 4: fix and make tests pass, still failing -> omission
        ("omission", "R1", "Fix the parser and make the tests pass.", "All 12 tests pass now."),
        # row 5: Todo says unverified, answer says verified -> contradiction
        ("contradiction", "A1", "Bump the version and verify the build.", "Build verified."),
        # row 7: only "all done" -> unknown, supplement within the budget
        ("unknown", "all", "Migrate the config loader to TOML.", "Ran pytest: 30 passed."),
    ],
)
def test_problem_verdicts_send_one_supplement_then_finish(
    tmp_path: Path, judge: FakeProvider, first: str, focus: str, prompt: str, fix: str
) -> None:
    judge.script(verdict(first, focus), verdict("complete", "none"))
    sim = ClaudeCodeSim(tmp_path)
    seen: list[str] = []

    def agent(s: ClaudeCodeSim, k: int, feedback: str) -> None:
        seen.append(feedback)
        if k == 0:
            tid = s.task_create("Do the work")
            s.task_update(tid, "in_progress")
            s.task_update(tid, "completed")
            s.say("All done.")
        else:
            s.say(fix)

    runs = sim.run_turn(prompt, agent)
    assert [r.blocked for r in runs] == [True, False]
    assert seen[1] == runs[0].reason and "1/3" in runs[0].reason
    assert first in runs[0].notice  # the user sees where the turn stands
    assert judge.count == 2
    # the second audit judged the latest answer, and the supplement is not a request
    second = prompts_seen(judge)[1]
    assert json.dumps(fix)[1:-1] in second and "Stop hook feedback" not in second
    records = _records(sim.session_id)
    assert len({r.turn for r in records}) == 1  # same turn key across the supplement
    assert _chain(sim.session_id) == [first, "complete"]
    assert records[-1].supplements_used == 1


def test_row6_honest_failure_report_can_be_complete(tmp_path: Path, judge: FakeProvider) -> None:
    judge.script(verdict("complete", "none"))
    sim = ClaudeCodeSim(tmp_path)

    def agent(s: ClaudeCodeSim, k: int, feedback: str) -> None:
        s.todo_write(("Run the test suite", "completed"))
        s.bash("pytest -q", "3 failed, 27 passed")
        s.say("Ran pytest: 3 failed, 27 passed (test_a, test_b, test_c fail).")

    runs = sim.run_turn("Run the tests and report the result.", agent)
    assert [r.blocked for r in runs] == [False]
    assert '3 failed, 27 passed"' not in prompts_seen(judge)[0]  # raw tool output excluded
    assert _chain(sim.session_id) == ["complete"]


def test_row8_needs_user_hands_over_without_supplement(tmp_path: Path, judge: FakeProvider) -> None:
    judge.script(verdict("needs-user", "A1"))
    sim = ClaudeCodeSim(tmp_path)

    def agent(s: ClaudeCodeSim, k: int, feedback: str) -> None:
        s.todo_write(("Prepare the migration", "completed"), ("Run it on prod", "pending"))
        s.say("Should I run the migration on production now?")

    runs = sim.run_turn("Prepare the DB migration.", agent)
    assert len(runs) == 1 and not runs[0].blocked
    assert runs[0].notice and judge.count == 1
    assert _chain(sim.session_id) == ["needs-user"]


def test_row9_budget_exhausted_shows_last_verdict(tmp_path: Path, judge: FakeProvider) -> None:
    judge.script(*(verdict("omission", "R1") for _ in range(4)))
    sim = ClaudeCodeSim(tmp_path)

    def agent(s: ClaudeCodeSim, k: int, feedback: str) -> None:
        if k == 0:
            s.todo_write(("Write docs", "in_progress"))
        s.say(f"Still working on the docs (round {k}).")

    runs = sim.run_turn("Write the docs.", agent)
    assert [r.blocked for r in runs] == [True, True, True, False]
    assert judge.count == 4  # N+1 normal audits with N = 3
    assert "3/3" in runs[-1].notice
    assert _chain(sim.session_id) == ["omission"] * 4
    # a further stop of the same turn audits nothing more
    again = sim.stop(stop_hook_active=True)
    assert not again.blocked and judge.count == 4


def test_row10_over_budget_then_retry_after_raising(tmp_path: Path, judge: FakeProvider) -> None:
    from jev.settings.profiles import save_settings

    save_settings("default", {"evidence_chars": 300})
    sim = ClaudeCodeSim(tmp_path)

    def agent(s: ClaudeCodeSim, k: int, feedback: str) -> None:
        s.todo_write(("Refactor module", "completed"))
        s.say("Refactored the module. " * 20)

    runs = sim.run_turn("Refactor the module.", agent)
    assert [r.blocked for r in runs] == [False]
    assert "did not complete" in runs[0].notice and "jev retry" in runs[0].notice
    assert judge.count == 0
    save_settings("default", {"evidence_chars": 24000})
    judge.script(verdict("complete", "none"))
    out = subprocess.run([str(JEV), "retry"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "finish" in out.stdout and judge.count == 1
    records = _records(sim.session_id)
    assert [r.status for r in records] == ["incomplete", "verdict"]
    assert records[-1].supplements_used == 0
    again = subprocess.run([str(JEV), "retry"], capture_output=True, text=True, timeout=60)
    assert again.returncode == 0 and "nothing to retry" in again.stdout and judge.count == 1
    cancel = subprocess.run([str(JEV), "cancel"], capture_output=True, text=True, timeout=60)
    assert cancel.returncode == 0 and "cancelled" in cancel.stdout


# -- host situations -----------------------------------------------------------------


def test_judge_down_fails_open_with_notice(tmp_path: Path, judge: FakeProvider) -> None:
    from jev.settings.profiles import save_settings

    save_settings("default", {"judge.base_url": f"http://127.0.0.1:{closed_port()}/v1"})
    sim = ClaudeCodeSim(tmp_path)

    def agent(s: ClaudeCodeSim, k: int, feedback: str) -> None:
        s.todo_write(("Ship it", "completed"))
        s.say("Shipped.")

    runs = sim.run_turn("Ship the release.", agent)
    assert [r.blocked for r in runs] == [False]
    assert "did not complete" in runs[0].notice
    assert [r.status for r in _records(sim.session_id)] == ["incomplete"]


def test_twenty_concurrent_stops_count_once(tmp_path: Path, judge: FakeProvider) -> None:
    from tests.fakeserver import Reply, openai_completion

    body = json.dumps({"assessment": "omission", "focus": "R1"})
    judge.script(Reply(json=openai_completion(body), delay_s=1.0))
    sim = ClaudeCodeSim(tmp_path)
    sim.prompt("Write the changelog.")
    sim.todo_write(("Write changelog", "pending"))
    sim.say("Not done yet.")
    payload = sim.payload()
    with ThreadPoolExecutor(max_workers=20) as pool:
        runs = list(
            pool.map(lambda _: run_hook(sim.stop_command, payload, cwd=tmp_path), range(20))
        )
    assert all(r.code == 0 for r in runs)
    assert judge.count == 1
    blocks = [r for r in runs if r.blocked]
    assert len({r.reason for r in blocks}) == 1 and blocks  # one supplement text at most
    records = _records(sim.session_id)
    assert len(records) == 1 and records[0].supplements_used == 1
    with Store() as store:  # the session index: 20 writers, one entry, the one supplement
        entry = store.get_session(sim.session_id)
    assert entry is not None and entry["turn"] == records[0].turn
    assert [s["text"] for s in entry["steers"]] == [" ".join(blocks[0].reason.split())]


def test_stop_hook_active_does_not_stop_jev_while_budget_left(
    tmp_path: Path, judge: FakeProvider
) -> None:
    judge.script(verdict("omission", "R1"))
    sim = ClaudeCodeSim(tmp_path)
    sim.prompt("Add tests.")
    sim.todo_write(("Add tests", "pending"))
    sim.say("I looked at the code.")
    # another stop hook (not Jev) blocked earlier, so the host says stop_hook_active
    run = sim.stop(stop_hook_active=True)
    assert run.blocked and judge.count == 1


def test_previous_turn_todos_do_not_trigger_current_turn(
    tmp_path: Path, judge: FakeProvider
) -> None:
    judge.script(verdict("complete", "none"))
    sim = ClaudeCodeSim(tmp_path)

    def with_todos(s: ClaudeCodeSim, k: int, feedback: str) -> None:
        s.todo_write(("Rename function", "completed"))
        s.say("Renamed.")

    def without(s: ClaudeCodeSim, k: int, feedback: str) -> None:
        s.say("It is called parse_duration now.")

    assert [r.blocked for r in sim.run_turn("Rename foo to parse_duration.", with_todos)] == [False]
    assert judge.count == 1
    runs = sim.run_turn("What is it called now?", without)
    assert [r.answer for r in runs] == [None] and judge.count == 1


def test_stand_down_adjustment_is_part_of_the_material(tmp_path: Path, judge: FakeProvider) -> None:
    judge.script(verdict("complete", "none"))
    sim = ClaudeCodeSim(tmp_path)

    def agent(s: ClaudeCodeSim, k: int, feedback: str) -> None:
        s.todo_write(("Update docs", "completed"), ("Deploy to staging", "in_progress"))
        s.queued("stand down on the deploy, docs only please")
        s.todo_write(("Update docs", "completed"), ("Deploy to staging", "pending"))
        s.say("Docs updated; deploy skipped as you asked.")

    runs = sim.run_turn("Update the docs and deploy to staging.", agent)
    assert [r.blocked for r in runs] == [False]
    assert "stand down on the deploy" in prompts_seen(judge)[0]
    (record,) = _records(sim.session_id)
    assert record.material["request"][-1] == "stand down on the deploy, docs only please"


def test_background_tasks_defer_then_subagent_and_plan_skip(
    tmp_path: Path, judge: FakeProvider
) -> None:
    judge.script(verdict("complete", "none"))
    sim = ClaudeCodeSim(tmp_path)
    sim.prompt("Start the dev server and fix the login bug.")
    sim.todo_write(("Fix login bug", "completed"))
    sim.say("Fixed; the dev server keeps running.")
    task = {"id": "task-001", "type": "shell", "status": "running", "description": "dev server"}
    deferred = run_hook(sim.stop_command, sim.payload(background_tasks=[task]), cwd=tmp_path)
    sub = run_hook(
        sim.stop_command,
        sim.payload(hook_event_name="SubagentStop", agent_id="a1", agent_type="Explore"),
        cwd=tmp_path,
    )
    plan = run_hook(sim.stop_command, sim.payload(permission_mode="plan"), cwd=tmp_path)
    assert [r.answer for r in (deferred, sub, plan)] == [None, None, None]
    assert judge.count == 0 and _records(sim.session_id) == []
    done = dict(task, status="completed")
    final = run_hook(sim.stop_command, sim.payload(background_tasks=[done]), cwd=tmp_path)
    assert final.code == 0 and judge.count == 1


@pytest.mark.parametrize("stdin", ["", "not json", "[1, 2]", '{"session_id": "x"}'])
def test_bad_stdin_exits_zero_with_one_line(
    tmp_path: Path, judge: FakeProvider, stdin: str
) -> None:
    run = run_hook(f"{JEV} hook claude-code", stdin, cwd=tmp_path)
    assert run.code == 0 and "Traceback" not in run.stderr
    assert run.answer is not None and "\n" not in run.answer["systemMessage"]
    assert judge.count == 0


def test_unusable_state_folder_fails_open(
    tmp_path: Path, judge: FakeProvider, jev_home: Path
) -> None:
    judge.script(verdict("complete", "none"))
    sim = ClaudeCodeSim(tmp_path)
    sim.prompt("Do it.")
    sim.todo_write(("Do it", "completed"))
    sim.say("Done.")
    (jev_home / "jev.sqlite3").write_bytes(b"this is not a database" * 100)
    run = sim.stop()
    assert run.code == 0 and not run.blocked
    assert "did not run" in run.notice
    log = (jev_home / "hook-errors.jsonl").read_text().splitlines()
    assert json.loads(log[-1])["session"] == sim.session_id


def test_session_start_hook_emits_section_only_when_enabled(
    tmp_path: Path, judge: FakeProvider
) -> None:
    from jev.settings.profiles import save_settings

    run = run_hook(
        f"{JEV} hook claude-code-session-start",
        {"hook_event_name": "SessionStart", "source": "startup"},
        cwd=tmp_path,
    )
    assert run.code == 0 and run.answer is not None
    out = run.answer["hookSpecificOutput"]
    assert out["hookEventName"] == "SessionStart" and len(out["additionalContext"]) > 50
    save_settings("default", {"enabled": False})
    off = run_hook(f"{JEV} hook claude-code-session-start", "{}", cwd=tmp_path)
    assert off.code == 0 and off.stdout == ""
