"""A host simulator: plays Claude Code (and, thinner, Codex) around the real ``jev`` hook.

The simulator appends real-shaped records to a session transcript (shapes copied from
the real files in ``tests/fixtures/real/``: the 2.1.96 loopkit session for prompts,
``TaskCreate``/``TaskUpdate`` and their ``toolUseResult``; the 2.0.42 dmux session for
``TodoWrite`` with ``activeForm``; ``stop_hook_summary``/``turn_duration`` end records),
then runs the hook command exactly as the host does: a shell command (the one written
by ``jev install`` into ``settings.json``, or ``<venv>/bin/jev hook …``) with the hook
JSON on stdin. A ``{"decision":"block","reason":…}`` answer is applied as the host
applies it (hosts.md [S]): an ``isMeta`` user record ``"Stop hook feedback:\\n<reason>"``,
after which the scripted agent responds and stops again.
"""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

JEV = Path(sys.executable).parent / "jev"
VERSION = "2.1.96"


@dataclass
class HookRun:
    """One hook invocation: exit code, parsed stdout JSON (or None), stderr."""

    code: int
    stdout: str
    stderr: str
    answer: dict[str, Any] | None

    @property
    def blocked(self) -> bool:
        return bool(self.answer and self.answer.get("decision") == "block")

    @property
    def reason(self) -> str:
        return str((self.answer or {}).get("reason") or "")

    @property
    def notice(self) -> str:
        return str((self.answer or {}).get("systemMessage") or "")


def run_hook(command: str, payload: dict[str, Any] | str, *, cwd: Path) -> HookRun:
    """Run a hook command through the shell with ``payload`` on stdin, as a host does."""
    text = payload if isinstance(payload, str) else json.dumps(payload)
    proc = subprocess.run(
        command, shell=True, input=text, capture_output=True, text=True, cwd=cwd, timeout=120
    )
    answer = json.loads(proc.stdout) if proc.stdout.strip() else None
    return HookRun(proc.returncode, proc.stdout, proc.stderr, answer)


Agent = Callable[["ClaudeCodeSim", int, str], None]


@dataclass
class ClaudeCodeSim:
    """One simulated Claude Code session writing ``<folder>/<session>.jsonl``."""

    folder: Path
    stop_command: str = f"{JEV} hook claude-code"
    session_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    cwd: Path | None = None
    _parent: str | None = None
    _tick: int = 0
    _tasks: int = 0
    _todos: list[dict[str, str]] = field(default_factory=list)
    last_text: str = ""

    @property
    def transcript(self) -> Path:
        return self.folder / f"{self.session_id}.jsonl"

    # -- records -----------------------------------------------------------------

    def _stamp(self) -> str:
        self._tick += 1
        return f"2026-06-09T02:{self._tick // 60:02d}:{self._tick % 60:02d}.000Z"

    def _append(self, record: dict[str, Any], *, chain: bool = True) -> dict[str, Any]:
        base: dict[str, Any] = {"parentUuid": self._parent, "isSidechain": False}
        base.update(record)
        if chain:
            base.setdefault("uuid", str(uuid.uuid4()))
            base.setdefault("timestamp", self._stamp())
            base.update(
                {
                    "userType": "external",
                    "entrypoint": "cli",
                    "cwd": str(self.cwd or self.folder),
                    "sessionId": self.session_id,
                    "version": VERSION,
                    "gitBranch": "main",
                }
            )
            self._parent = base["uuid"]
        with self.transcript.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(base, ensure_ascii=False) + "\n")
        return base

    def prompt(self, text: str) -> None:
        """A typed prompt (loopkit line shape: string content, promptId, permissionMode)."""
        self._append(
            {
                "promptId": str(uuid.uuid4()),
                "type": "user",
                "message": {"role": "user", "content": text},
                "permissionMode": "default",
            }
        )

    def _assistant(self, block: dict[str, Any]) -> dict[str, Any]:
        return self._append(
            {
                "message": {
                    "model": "claude-opus-4-6",
                    "id": f"msg_{uuid.uuid4().hex[:24]}",
                    "type": "message",
                    "role": "assistant",
                    "content": [block],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": {"input_tokens": 3, "output_tokens": 20},
                },
                "requestId": f"req_{uuid.uuid4().hex[:24]}",
                "type": "assistant",
            }
        )

    def _tool(self, name: str, tool_input: dict[str, Any], result: str, structured: Any) -> None:
        tool_id = f"toolu_{uuid.uuid4().hex[:24]}"
        call = self._assistant(
            {"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}
        )
        self._append(
            {
                "type": "user",
                "message": {
                    "role": "user",
                    "content": [{"tool_use_id": tool_id, "type": "tool_result", "content": result}],
                },
                "toolUseResult": structured,
                "sourceToolAssistantUUID": call["uuid"],
            }
        )

    def say(self, text: str) -> None:
        """An assistant text block (the final answer when it is the last one)."""
        self.last_text = text
        self._assistant({"type": "text", "text": text})

    def bash(self, command: str, output: str) -> None:
        """A Bash tool call and its result (raw tool output never enters the material)."""
        self._tool(
            "Bash",
            {"command": command, "description": "run"},
            output,
            {"stdout": output, "stderr": "", "interrupted": False},
        )

    def todo_write(self, *items: tuple[str, str]) -> None:
        """A ``TodoWrite`` call with the whole list (``activeForm`` shape, dmux 2.0.42)."""
        new = [{"content": c, "status": s, "activeForm": c} for c, s in items]
        self._tool(
            "TodoWrite",
            {"todos": new},
            "Todos have been modified successfully. Ensure that you continue to use the "
            "todo list to track your progress. Please proceed with the current tasks if "
            "applicable",
            {"oldTodos": self._todos, "newTodos": new},
        )
        self._todos = new

    def task_create(self, subject: str, description: str = "") -> str:
        """A ``TaskCreate`` call; returns the task id (loopkit 2.1.96 result shape)."""
        self._tasks += 1
        task_id = str(self._tasks)
        self._tool(
            "TaskCreate",
            {"subject": subject, "description": description or subject, "activeForm": subject},
            f"Task #{task_id} created successfully: {subject}",
            {"task": {"id": task_id, "subject": subject}},
        )
        return task_id

    def task_update(self, task_id: str, status: str) -> None:
        """A ``TaskUpdate`` status change (loopkit 2.1.96 result shape)."""
        self._tool(
            "TaskUpdate",
            {"taskId": task_id, "status": status},
            f"Updated task #{task_id} status",
            {"success": True, "taskId": task_id, "updatedFields": ["status"]},
        )

    def queued(self, text: str) -> None:
        """A message the user typed while the agent worked, delivered mid-turn
        (``attachment`` ``queued_command``, CCLOG dev-docs/messages.md "User Steering")."""
        self._append(
            {
                "type": "queue-operation",
                "operation": "enqueue",
                "content": text,
                "timestamp": self._stamp(),
                "sessionId": self.session_id,
            },
            chain=False,
        )
        self._append(
            {"type": "attachment", "attachment": {"type": "queued_command", "prompt": text}}
        )

    def _end_records(self, blocked: bool) -> None:
        self._append(
            {
                "type": "system",
                "subtype": "stop_hook_summary",
                "hookCount": 1,
                "hookInfos": [{"command": self.stop_command, "durationMs": 90}],
                "hookErrors": [],
                "preventedContinuation": False,
                "stopReason": "",
                "hasOutput": blocked,
                "level": "suggestion",
            }
        )
        if not blocked:
            self._append({"type": "system", "subtype": "turn_duration", "durationMs": 1000})

    # -- the hook ----------------------------------------------------------------

    def payload(self, **overrides: Any) -> dict[str, Any]:
        """The Stop hook stdin (CCDOCS hooks.md "Stop input")."""
        data: dict[str, Any] = {
            "session_id": self.session_id,
            "transcript_path": str(self.transcript),
            "cwd": str(self.cwd or self.folder),
            "permission_mode": "default",
            "hook_event_name": "Stop",
            "stop_hook_active": False,
            "last_assistant_message": self.last_text,
            "background_tasks": [],
            "session_crons": [],
        }
        data.update(overrides)
        return data

    def stop(self, **overrides: Any) -> HookRun:
        """The agent stops: run the Stop hook and apply its answer as Claude Code does."""
        run = run_hook(self.stop_command, self.payload(**overrides), cwd=self.cwd or self.folder)
        assert run.code == 0, run.stderr
        assert "Traceback" not in run.stderr, run.stderr
        self._end_records(run.blocked)
        if run.blocked:
            self._append(
                {
                    "type": "user",
                    "message": {"role": "user", "content": f"Stop hook feedback:\n{run.reason}"},
                    "isMeta": True,
                }
            )
        return run

    def run_turn(self, prompt: str, agent: Agent, *, max_stops: int = 8) -> list[HookRun]:
        """A whole turn: the prompt, the agent's work, stops and supplements until the
        hook lets the turn end (Claude Code caps 8 consecutive blocks, hosts.md (Claude Code))."""
        self.prompt(prompt)
        agent(self, 0, "")
        runs = [self.stop()]
        while runs[-1].blocked and len(runs) < max_stops:
            agent(self, len(runs), runs[-1].reason)
            runs.append(self.stop(stop_hook_active=True))
        return runs


@dataclass
class CodexSim:
    """A thin Codex rollout writer (``{timestamp,type,payload}`` lines, hosts.md (Codex CLI))."""

    folder: Path
    stop_command: str = f"{JEV} hook codex"
    session_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    turn_id: str = ""
    last_text: str = ""
    _tick: int = 0

    @property
    def transcript(self) -> Path:
        return self.folder / f"rollout-2026-02-23T12-54-34-{self.session_id}.jsonl"

    def _line(self, kind: str, payload: dict[str, Any]) -> None:
        self._tick += 1
        record = {
            "timestamp": f"2026-02-23T12:{self._tick // 60:02d}:{self._tick % 60:02d}.000Z",
            "type": kind,
            "payload": payload,
        }
        with self.transcript.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(record) + "\n")

    def start(self) -> None:
        self._line(
            "session_meta",
            {
                "id": self.session_id,
                "cwd": str(self.folder),
                "originator": "codex_cli_rs",
                "cli_version": "0.104.0",
            },
        )

    def prompt(self, text: str) -> None:
        self.turn_id = str(uuid.uuid4())
        self._line("event_msg", {"type": "task_started", "turn_id": self.turn_id})
        self._line(
            "response_item",
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]},
        )
        self._line("event_msg", {"type": "user_message", "message": text})

    def plan(self, *steps: tuple[str, str]) -> None:
        args = {"plan": [{"step": s, "status": st} for s, st in steps]}
        call_id = f"call_{uuid.uuid4().hex[:12]}"
        self._line(
            "response_item",
            {
                "type": "function_call",
                "name": "update_plan",
                "arguments": json.dumps(args),
                "call_id": call_id,
            },
        )
        self._line(
            "response_item",
            {"type": "function_call_output", "call_id": call_id, "output": "Plan updated"},
        )

    def say(self, text: str) -> None:
        self.last_text = text
        self._line(
            "response_item",
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": text}],
            },
        )
        self._line("event_msg", {"type": "agent_message", "message": text})

    def stop(self, **overrides: Any) -> HookRun:
        payload: dict[str, Any] = {
            "session_id": self.session_id,
            "turn_id": self.turn_id,
            "transcript_path": str(self.transcript),
            "cwd": str(self.folder),
            "hook_event_name": "Stop",
            "model": "gpt-5.3-codex",
            "permission_mode": "default",
            "stop_hook_active": False,
            "last_assistant_message": self.last_text,
        }
        payload.update(overrides)
        run = run_hook(self.stop_command, payload, cwd=self.folder)
        assert run.code == 0, run.stderr
        if run.blocked:
            hook_run = uuid.uuid4()
            # Codex persists the continuation prompt as a user message (hosts.md (Codex CLI) [S]).
            self._line(
                "response_item",
                {
                    "type": "message",
                    "role": "user",
                    "content": [
                        {
                            "type": "input_text",
                            "text": f'<hook_prompt hook_run_id="{hook_run}">'
                            f"{run.reason}</hook_prompt>",
                        }
                    ],
                },
            )
        return run

    def end_turn(self) -> None:
        self._line(
            "event_msg",
            {
                "type": "task_complete",
                "turn_id": self.turn_id,
                "last_agent_message": self.last_text,
            },
        )
