"""The evidence step in the audit flow (issue 21): a Claude Code stop through the real
hook runner with a transcript whose Bash run failed, the supplement, the record and its
replay; the user's checks as real subprocesses (failing, passing, hanging); and what
never runs them."""

from __future__ import annotations

import json
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from jev.base.domain import Material, Settings
from jev.base.record import Record
from jev.evidence.runs import Run
from jev.evidence.step import EvidenceInput
from jev.hosts.hook import run_stop_hook
from jev.hosts.transcript import read_turns
from jev.measure.replay import replay_record
from jev.pipeline.audit import Auditor
from jev.settings.profiles import load_settings, save_settings
from jev.store import Store
from tests.hosts_e2e.harness import ClaudeCodeSim

FAILED_LINE = "1 failed, 2 passed in 0.05s"


def bash_result(sim: ClaudeCodeSim, command: str, output: str, exit_code: int) -> None:
    """A Bash call and its result as Claude Code writes it: a failing command's result
    is ``is_error`` with a leading ``Exit code N`` line (hosts.md (Claude Code))."""
    tool_id = f"toolu_{uuid.uuid4().hex[:24]}"
    call = sim._assistant(
        {"type": "tool_use", "id": tool_id, "name": "Bash", "input": {"command": command}}
    )
    content = output if exit_code == 0 else f"Exit code {exit_code}\n{output}"
    block: dict[str, Any] = {"tool_use_id": tool_id, "type": "tool_result", "content": content}
    block["is_error"] = exit_code != 0
    sim._append(
        {
            "type": "user",
            "message": {"role": "user", "content": [block]},
            "toolUseResult": f"Error: {content}" if exit_code else {"stdout": output},
            "sourceToolAssistantUUID": call["uuid"],
        }
    )


def session(folder: Path, *, passing: bool, answer: str = "All 3 tests pass.") -> ClaudeCodeSim:
    folder.mkdir(parents=True, exist_ok=True)
    sim = ClaudeCodeSim(folder)
    sim.prompt("Fix the date parser and run the tests.")
    sim.todo_write(("Fix the date parser", "completed"), ("Run the tests", "completed"))
    if passing:
        bash_result(sim, "python3 -m pytest -q", "...\n3 passed in 0.04s\n", 0)
    else:
        out = "..F\nFAILED test_dates.py::test_leap - assert 28 == 29\n" + FAILED_LINE + "\n"
        bash_result(sim, "python3 -m pytest -q", out, 1)
    sim.say(f"Fixed the leap-year bug in parse_date(). {answer}")
    return sim


def stop(sim: ClaudeCodeSim, profile: str) -> dict[str, Any]:
    payload = {
        "session_id": sim.session_id,
        "transcript_path": str(sim.transcript),
        "cwd": str(sim.folder),
        "hook_event_name": "Stop",
        "permission_mode": "default",
        "stop_hook_active": False,
        "last_assistant_message": sim.last_text,
    }
    result = run_stop_hook("claude-code", json.dumps(payload), profile=profile)
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout) if result.stdout.strip() else {}


def test_claude_code_bash_runs_are_read_within_the_turn(tmp_path: Path) -> None:
    sim = session(tmp_path, passing=False)
    turn = read_turns(sim.transcript, "claude-code")[-1]
    assert turn.runs == (
        Run(
            "python3 -m pytest -q",
            1,
            "..F\nFAILED test_dates.py::test_leap - assert 28 == 29\n" + FAILED_LINE + "\n",
        ),
    )
    sim.prompt("Thanks. Now update the changelog.")
    sim.todo_write(("Update the changelog", "completed"))
    sim.say("Updated CHANGELOG.md.")
    assert read_turns(sim.transcript, "claude-code")[-1].runs == ()  # current turn only


def test_a_claim_the_last_run_contradicts_is_blocked_without_a_judge_call(
    tmp_path: Path,
) -> None:
    save_settings("ev", {"enabled": True})
    answer = stop(session(tmp_path, passing=False), "ev")
    assert answer.get("decision") == "block"
    reason = answer["reason"]
    assert "contradiction" in reason and json.dumps(FAILED_LINE) in reason
    assert '"python3 -m pytest -q"' in reason and "exit code 1" in reason
    with Store() as store:
        (record,) = list(store.iter_records())
    assert record.judge == {
        "provider": "evidence",
        "model": "test-claim-vs-last-run",
        "heuristic": False,
    }
    assert record.attempts == 0 and record.assessment == "contradiction"
    assert record.evidence == {
        "kind": "run",
        "rule": "test-claim-vs-last-run",
        "command": "python3 -m pytest -q",
        "exit_code": 1,
        "quote": FAILED_LINE,
    }
    assert record.supplement_text == reason
    assert replay_record(Record.from_json(record.to_json())) == ()


def test_the_passing_twin_and_the_switched_off_step_behave_as_before(tmp_path: Path) -> None:
    save_settings("ev", {"enabled": True})
    assert stop(session(tmp_path / "a", passing=True), "ev").get("decision") is None
    save_settings("ev", {"evidence.transcript": False})
    assert stop(session(tmp_path / "b", passing=False), "ev").get("decision") is None


def _auditor(settings: Settings) -> Auditor:
    return Auditor(settings=settings, store=Store(":memory:"), host="api")


MATERIAL = Material(
    ("Rename the config key `timeout` to `timeout_s` in config.py.",),
    ({"content": "Rename timeout to timeout_s in config.py", "status": "completed"},),
    "Renamed `timeout` to `timeout_s` in config.py and updated its two readers in client.py.",
)


def project(tmp_path: Path, *, failing: bool) -> Path:
    (tmp_path / "test_p.py").write_text(
        "def test_a():\n    assert 1 == 1\n\n"
        f"def test_b():\n    assert {'1 == 2' if failing else '2 == 2'}\n",
        encoding="utf-8",
    )
    return tmp_path


def checks_settings(command: str, timeout_s: float = 60) -> Settings:
    base = load_settings()
    evidence = type(base.evidence)(True, (command,), timeout_s)
    return Settings(enabled=True, evidence=evidence)


PYTEST = f"{sys.executable} -m pytest -q -p no:cacheprovider"


@pytest.mark.slow
def test_a_failing_check_turns_complete_into_omission(tmp_path: Path) -> None:
    folder = project(tmp_path, failing=True)
    with _auditor(checks_settings(PYTEST)) as auditor:
        auditor.evidence = EvidenceInput(cwd=str(folder), checks=True)
        decision = auditor.on_stop("s", "t", MATERIAL)
    assert decision.action == "supplement" and decision.supplement is not None
    assert decision.outcome is not None and decision.outcome.evidence is not None
    assert decision.outcome.verdict is not None
    assert decision.outcome.verdict.assessment == "omission"
    assert decision.outcome.evidence.rule == "check-failed"
    assert "1 failed, 1 passed" in decision.supplement and PYTEST in decision.supplement
    assert decision.state is not None and decision.state.supplements_used == 1


@pytest.mark.slow
def test_a_passing_check_leaves_complete(tmp_path: Path) -> None:
    folder = project(tmp_path, failing=False)
    with _auditor(checks_settings(PYTEST)) as auditor:
        auditor.evidence = EvidenceInput(cwd=str(folder), checks=True)
        decision = auditor.on_stop("s", "t", MATERIAL)
    assert decision.action == "finish"


def test_checks_never_run_unless_allowed(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    command = f"{sys.executable} -c \"open('{marker}', 'w').write('x')\""
    for evidence in (None, EvidenceInput(cwd=str(tmp_path), checks=False)):
        with _auditor(checks_settings(command)) as auditor:
            auditor.evidence = evidence
            assert auditor.on_stop("s", "t", MATERIAL).action == "finish"
    assert not marker.exists()


@pytest.mark.slow
def test_a_hanging_check_is_killed_with_its_children_at_its_timeout(tmp_path: Path) -> None:
    pidfile = tmp_path / "child.pid"
    command = f"sleep 60 & echo $! > {pidfile}; sleep 60"
    started = time.monotonic()
    with _auditor(checks_settings(command, timeout_s=1)) as auditor:
        auditor.evidence = EvidenceInput(cwd=str(tmp_path), checks=True)
        decision = auditor.on_stop("s", "t", MATERIAL)
    assert time.monotonic() - started < 10
    assert decision.outcome is not None and decision.outcome.evidence is not None
    assert decision.outcome.evidence.rule == "check-timed-out"
    assert decision.outcome.evidence.exit_code is None
    child = int(pidfile.read_text().strip())
    time.sleep(0.2)
    assert not Path(f"/proc/{child}").exists() or "Z" in _state(child)


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2]
    except OSError:
        return "Z"


def test_an_identical_restop_after_a_green_rerun_is_not_blocked_again() -> None:
    """The report stays the same, but the agent ran the tests again and they pass: the
    re-stop within the duplicate window is decided from the new runs, not replayed."""
    material = Material(
        ("Fix the leap-year bug and run the tests.",),
        ({"content": "Fix leap-year handling", "status": "completed"},),
        "Fixed the leap-year check in `dates.py`. All 3 tests pass.",
    )
    red = Run("pytest -q", 1, "1 failed, 2 passed in 0.05s\n")
    green = Run("pytest -q", 0, "3 passed in 0.04s\n")
    with _auditor(Settings(enabled=True)) as auditor:
        auditor.evidence = EvidenceInput(runs=(red,))
        assert auditor.on_stop("s", "t", material).action == "supplement"
        auditor.evidence = EvidenceInput(runs=(red, green))
        again = auditor.on_stop("s", "t", material)
    assert again.action == "finish", again


@pytest.mark.parametrize(
    ("change", "enabled"),
    [({"permission_mode": "plan"}, True), ({"agent_id": "sub-1"}, True), ({}, False)],
)
def test_checks_never_run_on_a_plan_or_subagent_stop_or_a_disabled_profile(
    tmp_path: Path, change: dict[str, Any], enabled: bool
) -> None:
    marker = tmp_path / "ran"
    command = f"{sys.executable} -c \"open({str(marker)!r}, 'w').write('x')\""
    save_settings("ev", {"enabled": enabled, "evidence.checks": [command]})
    sim = session(tmp_path / "s", passing=True)
    payload = {
        "session_id": sim.session_id,
        "transcript_path": str(sim.transcript),
        "cwd": str(tmp_path),
        "hook_event_name": "SubagentStop" if "agent_id" in change else "Stop",
        "permission_mode": "default",
        "stop_hook_active": False,
        **change,
    }
    result = run_stop_hook("claude-code", json.dumps(payload), profile="ev")
    assert result.exit_code == 0, result.stderr
    assert not marker.exists()


@pytest.mark.slow
def test_checks_run_on_a_root_stop_in_the_hooks_folder(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    command = f"{sys.executable} -c \"open('ran', 'w').write('x')\""
    save_settings("ev", {"enabled": True, "evidence.checks": [command]})
    sim = session(tmp_path / "s", passing=True)
    payload = {
        "session_id": sim.session_id,
        "transcript_path": str(sim.transcript),
        "cwd": str(tmp_path),
        "hook_event_name": "Stop",
        "permission_mode": "default",
        "stop_hook_active": False,
    }
    result = run_stop_hook("claude-code", json.dumps(payload), profile="ev")
    assert result.exit_code == 0, result.stderr
    assert marker.exists()  # ran in the hook's cwd, after a complete verdict
