"""The Anthropic Messages API on 127.0.0.1, for the real Claude Code CLI (issue 19).

Claude Code reaches it through ``ANTHROPIC_BASE_URL``. ``POST /v1/messages`` with
``"stream": true`` is answered as Server-Sent Events in the documented order
(``message_start``; per block ``content_block_start``/``content_block_delta``
(``text_delta`` or ``input_json_delta``)/``content_block_stop``; ``message_delta`` with
``stop_reason`` ``tool_use`` or ``end_turn``; ``message_stop``), without streaming as
one ``message`` object. Side calls get harmless answers: token counting
(``/v1/messages/count_tokens``), and any other path an empty JSON object.

Which requests are the agent's own turns: :func:`is_agent_call` (the request offers
tools). Side calls that offer none (titles, summaries, classifiers) get the text of
:attr:`AnthropicServer.side_text` and never reach the scripted agent.
"""

from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.hosts_real.scripted import Agent, Logged, ScriptedServer, Step, Text, Tool

__all__ = ["AnthropicServer", "is_agent_call", "last_user_text", "tool_results"]


def is_agent_call(logged: Logged) -> bool:
    """True for a streamed ``/v1/messages`` request offering tools (the agent loop)."""
    body = logged.body if isinstance(logged.body, dict) else {}
    return (
        logged.path.split("?")[0].rstrip("/").endswith("/v1/messages")
        and bool(body.get("tools"))
        and body.get("stream") is True
    )


def _blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content or () if isinstance(b, dict)]


def last_user_text(logged: Logged) -> str:
    """Every text block of the request's last user message, joined by newlines."""
    messages = (logged.body or {}).get("messages") or []
    for message in reversed(messages):
        if message.get("role") == "user":
            return "\n".join(b.get("text", "") for b in _blocks(message) if b.get("type") == "text")
    return ""


def tool_results(logged: Logged) -> list[str]:
    """The ``tool_use_id`` of every ``tool_result`` in the request, oldest first."""
    out: list[str] = []
    for message in (logged.body or {}).get("messages") or []:
        for block in _blocks(message):
            if block.get("type") == "tool_result":
                out.append(str(block.get("tool_use_id")))
    return out


class AnthropicServer(ScriptedServer):
    """Messages API answers from the scripted agent (see the module docstring)."""

    side_text = "Scripted title"

    def __init__(self, agent: Agent) -> None:
        super().__init__(agent)
        self._ids = 0

    def agent_calls(self) -> list[Logged]:
        """The logged agent-loop requests (:func:`is_agent_call`), in order."""
        return [r for r in self.requests if is_agent_call(r)]

    def _next_id(self) -> int:
        with self._lock:
            self._ids += 1
            return self._ids

    def respond(self, handler: BaseHTTPRequestHandler, logged: Logged) -> None:
        path = logged.path.split("?")[0].rstrip("/")
        body = logged.body if isinstance(logged.body, dict) else {}
        if path.endswith("/count_tokens"):
            self.send_json(handler, {"input_tokens": max(1, len(logged.raw) // 4)})
            return
        if not path.endswith("/v1/messages") or logged.method != "POST":
            self.send_json(handler, {})
            return
        steps: list[Step] = self.agent(logged) if is_agent_call(logged) else [Text(self.side_text)]
        model = str(body.get("model") or "claude-scripted")
        if body.get("stream") is True:
            self.send_sse(handler, self._events(steps, model))
        else:
            self.send_json(handler, self._message(steps, model))

    def _content(self, steps: list[Step]) -> list[dict[str, Any]]:
        content: list[dict[str, Any]] = []
        for step in steps:
            if isinstance(step, Text):
                content.append({"type": "text", "text": step.text})
            elif isinstance(step, Tool):
                uid = f"toolu_{self._next_id():06d}"
                content.append(
                    {"type": "tool_use", "id": uid, "name": step.name, "input": step.args}
                )
        return content

    def _message(self, steps: list[Step], model: str) -> dict[str, Any]:
        content = self._content(steps)
        stop = "tool_use" if any(b["type"] == "tool_use" for b in content) else "end_turn"
        return {
            "id": f"msg_{self._next_id():06d}",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": content,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 10},
        }

    def _events(self, steps: list[Step], model: str) -> list[tuple[str | None, Any]]:
        message = self._message(steps, model)
        content = message.pop("content")
        head = dict(message, content=[], stop_reason=None)
        events: list[tuple[str | None, Any]] = [
            ("message_start", {"type": "message_start", "message": head})
        ]
        for index, block in enumerate(content):
            if block["type"] == "text":
                start = {"type": "text", "text": ""}
                delta = {"type": "text_delta", "text": block["text"]}
            else:
                start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
                delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
            events += [
                (
                    "content_block_start",
                    {"type": "content_block_start", "index": index, "content_block": start},
                ),
                (
                    "content_block_delta",
                    {"type": "content_block_delta", "index": index, "delta": delta},
                ),
                ("content_block_stop", {"type": "content_block_stop", "index": index}),
            ]
        events += [
            (
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
                    "usage": {"output_tokens": 10},
                },
            ),
            ("message_stop", {"type": "message_stop"}),
        ]
        return events
