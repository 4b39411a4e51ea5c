"""Codex shell runs in a rollout (issue 21): exec_command and shell calls with their
outputs, in the current turn only."""

from __future__ import annotations

import json
from typing import Any

from jev.evidence.runs import Run
from jev.hosts.codex.runs import shell_command, shell_run
from jev.hosts.codex.transcript import scan


def test_commands_and_outputs() -> None:
    assert shell_command(json.dumps({"cmd": "pytest -q", "workdir": "/r"})) == "pytest -q"
    assert shell_command(json.dumps({"command": ["bash", "-lc", "go test ./..."]})) == (
        "go test ./..."
    )
    assert shell_command(json.dumps({"command": ["ls", "-la"]})) == "ls -la"
    assert shell_command("not json") is None
    text = (
        "Chunk ID: 1\nWall time: 0.2 seconds\nProcess exited with code 1\n"
        "Original token count: 9\nOutput:\n1 failed, 2 passed in 0.1s\n"
    )
    assert shell_run("pytest -q", text) == Run("pytest -q", 1, "1 failed, 2 passed in 0.1s\n")
    old = json.dumps({"output": "ok\n", "metadata": {"exit_code": 0, "duration_seconds": 0.1}})
    assert shell_run("ls", old) == Run("ls", 0, "ok\n")
    assert shell_run("pytest", "Chunk ID: 2\nProcess running with session ID 7\n") is None


def _rec(kind: str, payload: dict[str, Any]) -> dict[str, Any]:
    return {"timestamp": "2026-12-01T10:00:00Z", "type": kind, "payload": payload}


def test_runs_of_the_current_turn() -> None:
    def turn(n: int, output: str) -> list[dict[str, Any]]:
        return [
            _rec("event_msg", {"type": "task_started", "turn_id": f"t{n}"}),
            _rec("event_msg", {"type": "user_message", "message": f"task {n}"}),
            _rec(
                "response_item",
                {
                    "type": "function_call",
                    "name": "exec_command",
                    "call_id": f"c{n}",
                    "arguments": json.dumps({"cmd": "pytest -q"}),
                },
            ),
            _rec(
                "response_item",
                {"type": "function_call_output", "call_id": f"c{n}", "output": output},
            ),
            _rec("event_msg", {"type": "task_complete", "last_agent_message": "All tests pass."}),
        ]

    red = "Process exited with code 1\nOutput:\n1 failed in 0.1s\n"
    green = "Process exited with code 0\nOutput:\n3 passed in 0.1s\n"
    records = [*turn(1, red), *turn(2, green)]
    turns = scan(enumerate(records))
    assert [t.runs for t in turns] == [
        (Run("pytest -q", 1, "1 failed in 0.1s\n"),),
        (Run("pytest -q", 0, "3 passed in 0.1s\n"),),
    ]


def test_gemini_run_shell_command_results() -> None:
    from jev.hosts.gemini.transcript import scan as gemini_scan
    from jev.hosts.shelltext import labelled_run

    text = (
        "Command: pytest -q\nDirectory: (root)\nOutput: ..F\n1 failed, 2 passed in 0.1s\n"
        "Error: (none)\nExit Code: 1\nSignal: (none)\nBackground PIDs: (none)\n"
        "Process Group PGID: 42"
    )
    assert labelled_run("pytest -q", text) == Run("pytest -q", 1, "..F\n1 failed, 2 passed in 0.1s")
    assert labelled_run("ls", "a\nb\n") == Run("ls", None, "a\nb\n")
    call = {
        "id": "c1",
        "name": "run_shell_command",
        "args": {"command": "pytest -q"},
        "status": "success",
        "result": [{"functionResponse": {"id": "c1", "response": {"output": text}}}],
    }
    messages = [
        {"id": "u1", "type": "user", "content": "Fix it and run the tests."},
        {"id": "g1", "type": "gemini", "content": "", "toolCalls": [call]},
        {"id": "g2", "type": "gemini", "content": "All tests pass."},
    ]
    (turn,) = gemini_scan(messages)
    assert turn.runs == (Run("pytest -q", 1, "..F\n1 failed, 2 passed in 0.1s"),)
