"""Claude Code details of issue 8 item 6, driven through the real ``jev`` command.

* exec form (``command`` + ``args``) written when ``claude --version`` says ≥ 2.1.139,
  and run the way the host runs it (no shell);
* the non-error continuation ``hookSpecificOutput.additionalContext`` on ≥ 2.1.163;
* ``prompt_id`` that the transcript has not caught up with: no audit of the previous
  request, a notice instead;
* without ``last_assistant_message``, a transcript ending in a tool call is not audited;
* a stop deferred for background work is audited when the turn really ends: the
  ``<task-notification>`` continuation belongs to the same turn and keeps its request.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import uuid
from pathlib import Path

import pytest

from jev.cli import main
from jev.store import Store
from tests.fakeserver import FakeProvider
from tests.hosts_e2e import harness
from tests.hosts_e2e.conftest import verdict
from tests.hosts_e2e.harness import ClaudeCodeSim


def _turn(sim: ClaudeCodeSim) -> None:
    sim.prompt("Ship the release and update the changelog.")
    sim.todo_write(("Tag the release", "completed"), ("Update the changelog", "pending"))
    sim.say("Tagged v2.0.")


def _records(sim: ClaudeCodeSim) -> list:
    with Store() as store:
        return sorted(store.list_records(session=sim.session_id), key=lambda r: r.id)


def test_exec_form_when_the_host_supports_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, jev_home: Path
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    claude = bin_dir / "claude"
    claude.write_text("#!/bin/sh\necho '2.1.240 (Claude Code)'\n")
    claude.chmod(claude.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    assert main(["profiles", "create", "web"]) == 0  # a named profile must exist first
    assert main(["install", "claude-code", "--enable", "--profile", "web"]) == 0
    settings = home / ".claude" / "settings.json"
    stop = json.loads(settings.read_text())["hooks"]["Stop"][0]["hooks"][0]
    assert stop["args"] == ["hook", "claude-code", "--profile", "web"]
    assert Path(stop["command"]).name == "jev" and Path(stop["command"]).is_file()
    payload = {"hook_event_name": "SubagentStop", "session_id": "s"}
    proc = subprocess.run(  # as the host does: no shell, the argument vector as written
        [stop["command"], *stop["args"]], input=json.dumps(payload), capture_output=True, text=True
    )
    assert proc.returncode == 0 and proc.stdout == ""

    claude.unlink()  # an unknown (possibly old) host: shell form again, no args left over
    assert main(["install", "claude-code", "--profile", "web"]) == 0
    stop = json.loads(settings.read_text())["hooks"]["Stop"][0]["hooks"][0]
    assert "args" not in stop and stop["command"].endswith("hook claude-code --profile web")
    assert main(["uninstall", "claude-code"]) == 0
    assert not settings.exists()  # Jev created it and only Jev's entries were in it


def test_additional_context_continuation_on_new_hosts(
    tmp_path: Path, judge: FakeProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(harness, "VERSION", "2.1.240")
    judge.script(verdict("omission", "T2"))
    sim = ClaudeCodeSim(tmp_path)
    _turn(sim)
    run = sim.stop()
    assert run.code == 0 and not run.blocked
    context = run.answer["hookSpecificOutput"]
    assert context["hookEventName"] == "Stop"
    assert "Update the changelog" in context["additionalContext"]
    assert "decision" not in run.answer and "supplements 1/3" in run.notice


def test_prompt_id_the_transcript_has_not_caught_up_with(
    tmp_path: Path, judge: FakeProvider
) -> None:
    judge.script(verdict("omission", "T2"))
    sim = ClaudeCodeSim(tmp_path)
    _turn(sim)
    run = sim.stop(prompt_id=str(uuid.uuid4()))  # a newer prompt, not in the file yet
    assert run.code == 0 and not run.blocked
    assert "has not caught up" in run.notice and judge.count == 0 and not _records(sim)
    lines = sim.transcript.read_text().splitlines()
    prompt_id = next(json.loads(x)["promptId"] for x in lines if '"promptId"' in x)
    assert sim.stop(prompt_id=prompt_id).blocked and judge.count == 1


def test_a_transcript_ending_in_a_tool_call_is_not_audited_without_the_answer(
    tmp_path: Path, judge: FakeProvider
) -> None:
    judge.script(verdict("complete", "none"))
    sim = ClaudeCodeSim(tmp_path)
    _turn(sim)
    sim.bash("git push --tags", "done")
    run = sim.stop(last_assistant_message=None)
    assert run.code == 0 and not run.blocked and "ends in a tool call" in run.notice
    assert judge.count == 0
    sim.say("Tagged and pushed v2.0; the changelog is updated.")
    assert sim.stop().code == 0 and judge.count == 1


def test_deferred_stop_is_audited_when_the_background_work_ends(
    tmp_path: Path, judge: FakeProvider
) -> None:
    judge.script(verdict("complete", "none"))
    sim = ClaudeCodeSim(tmp_path)
    sim.prompt("Run the full build and fix what fails.")
    sim.todo_write(("Start the build", "completed"), ("Fix failures", "pending"))
    sim.say("The build is running in the background; I'll fix failures when it ends.")
    task = {"id": "b1", "type": "shell", "status": "running", "description": "make all"}
    assert not sim.stop(background_tasks=[task]).blocked and judge.count == 0
    # the task ends: Claude Code opens a turn with a <task-notification> (hosts.md (Claude Code))
    sim._append(
        {
            "type": "user",
            "message": {"role": "user", "content": "<task-notification>\n<task-id>b1</task-id>"},
            "origin": {"kind": "task-notification"},
            "promptId": str(uuid.uuid4()),
        }
    )
    sim.todo_write(("Start the build", "completed"), ("Fix failures", "completed"))
    sim.say("The build passed; nothing to fix.")
    assert sim.stop().code == 0 and judge.count == 1
    (record,) = _records(sim)
    assert record.material["request"] == ["Run the full build and fix what fails."]
    assert record.material["final_answer"] == "The build passed; nothing to fix."
