"""Simulators of Gemini CLI, Cursor, Copilot CLI, Qwen Code and Factory Droid sessions.

Each writes its host's transcript in the shape its reader documents (Gemini:
gemini-cli@5411f113 record stream; Cursor: hosts.md (Cursor) agent-transcript JSONL;
Copilot: the real 1.0.74 ``events.jsonl`` event shapes; Qwen: ``ChatRecord``; Droid:
third-party session lines), builds the stop hook's stdin as the host sends it, and
applies a steer the way the host does: Gemini sends the deny reason as a new message
of the same prompt (retry: original ``prompt``, cumulative ``prompt_response``,
``stop_hook_active: true``); Cursor submits ``followup_message`` as the next user
message (``loop_count`` + 1); Copilot enqueues the block reason as the next prompt;
Qwen Code and Droid continue the turn with the reason as a user message.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

__all__ = ["SIMS", "HostSim", "blocked_reason"]


def blocked_reason(host: str, answer: dict[str, Any]) -> str | None:
    """The steer text of a hook answer in ``host``'s contract, or ``None``."""
    if host == "gemini":
        ok = answer.get("decision") in ("deny", "block")
        return str(answer["reason"]) if ok else None
    if host == "cursor":
        text = answer.get("followup_message")
        return str(text) if text else None
    return str(answer["reason"]) if answer.get("decision") == "block" else None


class HostSim:
    """Base: a session folder, a transcript and the scripted agent's last answer."""

    host = ""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.session_id = str(uuid.uuid4())
        self.transcript = folder / "session.jsonl"
        self.last_text = ""
        self.request = ""
        self.n = 0

    def _write(self, record: dict[str, Any]) -> None:
        with self.transcript.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")

    def _id(self) -> str:
        self.n += 1
        return f"r{self.n:04d}"

    def start(self) -> None:
        """Write the file's header line, if the host has one."""

    def prompt(self, text: str) -> None:
        raise NotImplementedError

    def todos(self, items: list[tuple[str, str]]) -> None:
        raise NotImplementedError

    def say(self, text: str) -> None:
        raise NotImplementedError

    def feedback(self, reason: str) -> None:
        """Apply a steer as the host does."""
        raise NotImplementedError

    def payload(self, flag: object, missing: object) -> dict[str, Any]:
        raise NotImplementedError


class GeminiSim(HostSim):
    host = "gemini"

    def __init__(self, folder: Path) -> None:
        super().__init__(folder)
        self.responses: list[str] = []

    def start(self) -> None:
        self._write(
            {
                "sessionId": self.session_id,
                "projectHash": "ab" * 32,
                "startTime": "2026-08-20T10:00:00.000Z",
                "lastUpdated": "2026-08-20T10:00:00.000Z",
                "kind": "main",
            }
        )

    def prompt(self, text: str) -> None:
        self.request = text
        self.responses = []
        self._write(
            {"id": self._id(), "timestamp": "t", "type": "user", "content": [{"text": text}]}
        )

    def todos(self, items: list[tuple[str, str]]) -> None:
        call = {
            "id": self._id(),
            "name": "write_todos",
            "args": {"todos": [{"description": d, "status": s} for d, s in items]},
            "status": "success",
            "timestamp": "t",
        }
        rid = self._id()
        self._write({"id": rid, "timestamp": "t", "type": "gemini", "content": ""})
        self._write(
            {"id": rid, "timestamp": "t", "type": "gemini", "content": "", "toolCalls": [call]}
        )

    def say(self, text: str) -> None:
        self.last_text = text
        self.responses.append(text)
        self._write({"id": self._id(), "timestamp": "t", "type": "gemini", "content": text})

    def feedback(self, reason: str) -> None:
        self._write(
            {"id": self._id(), "timestamp": "t", "type": "user", "content": [{"text": reason}]}
        )

    def payload(self, flag: object, missing: object) -> dict[str, Any]:
        data: dict[str, Any] = {
            "session_id": self.session_id,
            "transcript_path": str(self.transcript),
            "cwd": str(self.folder),
            "hook_event_name": "AfterAgent",
            "timestamp": f"2026-08-20T10:{self.n % 60:02d}:00.000Z",
            "prompt": self.request,
            "prompt_response": "\n".join(self.responses),
            "stop_hook_active": flag,
        }
        return {k: v for k, v in data.items() if v is not missing}


class CursorSim(HostSim):
    host = "cursor"

    def __init__(self, folder: Path) -> None:
        super().__init__(folder)
        self.loop_count = 0
        self.generation = str(uuid.uuid4())

    def prompt(self, text: str) -> None:
        self.request = text
        self.loop_count = 0
        self._user(text)

    def _user(self, text: str) -> None:
        self.generation = str(uuid.uuid4())
        block = {"type": "text", "text": f"<user_query>\n{text}\n</user_query>"}
        self._write({"role": "user", "message": {"content": [block]}})

    def todos(self, items: list[tuple[str, str]]) -> None:
        todos = [{"id": str(i), "content": d, "status": s} for i, (d, s) in enumerate(items, 1)]
        use = {"type": "tool_use", "name": "TodoWrite", "input": {"merge": False, "todos": todos}}
        self._write({"role": "assistant", "message": {"content": [use]}})

    def say(self, text: str) -> None:
        self.last_text = text
        self._write({"role": "assistant", "message": {"content": [{"type": "text", "text": text}]}})
        self._write({"type": "turn_ended", "status": "success"})

    def feedback(self, reason: str) -> None:
        self.loop_count += 1
        self._user(reason)

    def payload(self, flag: object, missing: object) -> dict[str, Any]:
        return {
            "conversation_id": self.session_id,
            "generation_id": self.generation,
            "model": "claude-4.5-sonnet",
            "hook_event_name": "stop",
            "cursor_version": "3.7.21",
            "workspace_roots": [str(self.folder)],
            "user_email": None,
            "transcript_path": str(self.transcript),
            "status": "completed",
            "loop_count": self.loop_count,
        }


class CopilotSim(HostSim):
    host = "copilot"

    def __init__(self, folder: Path) -> None:
        super().__init__(folder)
        self.transcript = folder / "events.jsonl"

    def _event(self, etype: str, data: dict[str, Any]) -> None:
        self._write({"type": etype, "data": data, "id": self._id(), "timestamp": "t"})

    def start(self) -> None:
        self._event("session.start", {"sessionId": self.session_id, "copilotVersion": "1.0.74"})

    def prompt(self, text: str) -> None:
        self.request = text
        self._user(text)

    def _user(self, text: str) -> None:
        self.interaction = str(uuid.uuid4())
        data = {"content": text, "delivery": "idle", "interactionId": self.interaction}
        self._event("user.message", data)

    def todos(self, items: list[tuple[str, str]]) -> None:
        values = ", ".join(
            f"('t{i}', '{d}', '{'done' if s == 'completed' else s}')"
            for i, (d, s) in enumerate(items, 1)
        )
        query = f"DELETE FROM todos; INSERT INTO todos (id, title, status) VALUES {values};"
        call = self._id()
        self._event(
            "tool.execution_start",
            {"toolCallId": call, "toolName": "sql", "arguments": {"query": query}},
        )
        self._event("tool.execution_complete", {"toolCallId": call, "success": True})

    def say(self, text: str) -> None:
        self.last_text = text
        data = {"content": text, "toolRequests": [], "interactionId": self.interaction}
        self._event("assistant.message", data)

    def feedback(self, reason: str) -> None:
        self._user(reason)

    def payload(self, flag: object, missing: object) -> dict[str, Any]:
        data: dict[str, Any] = {
            "transcriptPath": str(self.transcript),
            "stopReason": "end_turn",
            "stop_hook_active": flag,
            "sessionId": self.session_id,
            "timestamp": 1784891546495 + self.n,
            "cwd": str(self.folder),
        }
        data = {k: v for k, v in data.items() if v is not missing}
        # Copilot logs each hook run, its stdin as `input`, before it runs the hook
        # (real 1.0.102 file); Jev waits for it so it never judges a stale answer.
        self._event("hook.start", {"hookType": "agentStop", "input": data})
        return data


class QwenSim(HostSim):
    host = "qwen"

    def __init__(self, folder: Path) -> None:
        super().__init__(folder)
        self.parent: str | None = None

    def _record(self, rtype: str, **fields: Any) -> None:
        uid = self._id()
        record = {"uuid": uid, "parentUuid": self.parent, "sessionId": self.session_id}
        record.update({"timestamp": "t", "type": rtype, "cwd": str(self.folder), **fields})
        self._write(record)
        self.parent = uid

    def prompt(self, text: str) -> None:
        self.request = text
        self._record(
            "user", promptId=str(uuid.uuid4()), message={"role": "user", "parts": [{"text": text}]}
        )

    def todos(self, items: list[tuple[str, str]]) -> None:
        todos = [{"id": str(i), "content": d, "status": s} for i, (d, s) in enumerate(items, 1)]
        call = {"functionCall": {"id": self._id(), "name": "todo_write", "args": {"todos": todos}}}
        self._record("assistant", message={"role": "model", "parts": [call]})

    def say(self, text: str) -> None:
        self.last_text = text
        self._record("assistant", message={"role": "model", "parts": [{"text": text}]})

    def feedback(self, reason: str) -> None:
        self._record("user", message={"role": "user", "parts": [{"text": reason}]})

    def payload(self, flag: object, missing: object) -> dict[str, Any]:
        data: dict[str, Any] = {
            "session_id": self.session_id,
            "transcript_path": str(self.transcript),
            "cwd": str(self.folder),
            "hook_event_name": "Stop",
            "stop_hook_active": flag,
            "last_assistant_message": self.last_text,
        }
        return {k: v for k, v in data.items() if v is not missing}


class DroidSim(HostSim):
    host = "droid"

    def start(self) -> None:
        self._write({"type": "session_start", "id": self.session_id, "cwd": str(self.folder)})

    def _message(self, role: str, content: list[dict[str, Any]]) -> None:
        self._write(
            {
                "type": "message",
                "id": self._id(),
                "timestamp": "t",
                "message": {"role": role, "content": content},
            }
        )

    def prompt(self, text: str) -> None:
        self.request = text
        self._message("user", [{"type": "text", "text": text}])

    def todos(self, items: list[tuple[str, str]]) -> None:
        todos = [{"content": d, "status": s} for d, s in items]
        self._message(
            "assistant",
            [
                {
                    "type": "tool_use",
                    "id": self._id(),
                    "name": "TodoWrite",
                    "input": {"todos": todos},
                }
            ],
        )

    def say(self, text: str) -> None:
        self.last_text = text
        self._message("assistant", [{"type": "text", "text": text}])

    def feedback(self, reason: str) -> None:
        self._message("user", [{"type": "text", "text": reason}])

    def payload(self, flag: object, missing: object) -> dict[str, Any]:
        data: dict[str, Any] = {
            "session_id": self.session_id,
            "transcript_path": str(self.transcript),
            "cwd": str(self.folder),
            "hook_event_name": "Stop",
            "permission_mode": "default",
            "stop_hook_active": flag,
        }
        return {k: v for k, v in data.items() if v is not missing}


#: host name -> simulator class.
SIMS: dict[str, type[HostSim]] = {
    s.host: s for s in (GeminiSim, CursorSim, CopilotSim, QwenSim, DroidSim)
}
