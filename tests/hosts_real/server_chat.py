"""An OpenAI chat-completions model server for the real Qwen Code and Copilot CLI
(issue 19 item 1; both hosts speak this API: Qwen through ``OPENAI_BASE_URL``,
Copilot through ``COPILOT_PROVIDER_BASE_URL``).

``POST …/chat/completions`` with ``stream: true`` gets ``chat.completion.chunk`` SSE
events: the agent's text as content deltas, each :class:`~tests.hosts_real.scripted.Tool`
as a streamed ``tool_calls`` delta (name first, then the arguments in two pieces, the
way real providers split them), then a ``finish_reason`` chunk with ``usage`` and
``[DONE]``. Without ``stream`` the same turn comes back as one ``chat.completion``.
``GET …/models`` lists the one model. A request without ``tools`` is a host side call
(a title, a next-speaker check): it gets a short neutral JSON text and never reaches
the agent.

The agent sees the request as :class:`~tests.hosts_real.scripted.Logged`; the helpers
:func:`messages`, :func:`last_user_text`, :func:`user_texts` and :func:`tool_names`
read what the host sent.
"""

from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.hosts_real.scripted import Logged, ScriptedServer, Step, Text, Tool

__all__ = ["MODEL", "ChatServer", "last_user_text", "messages", "tool_names", "user_texts"]

MODEL = "scripted-model"
#: What a side call (no ``tools``) gets: parses as "the user speaks next" for hosts
#: that ask who speaks next, and is harmless as a title.
_SIDE_ANSWER = json.dumps({"reasoning": "the turn is over", "next_speaker": "user"})


def messages(logged: Logged) -> list[dict[str, Any]]:
    """The request's ``messages`` (``[]`` when there are none)."""
    body = logged.body if isinstance(logged.body, dict) else {}
    return [m for m in body.get("messages") or [] if isinstance(m, dict)]


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(p.get("text") or "") for p in content if isinstance(p, dict))
    return ""


def user_texts(logged: Logged) -> list[str]:
    """The text of every ``user`` message of the request, in order."""
    return [_text(m.get("content")) for m in messages(logged) if m.get("role") == "user"]


def last_user_text(logged: Logged) -> str:
    """The text of the request's last ``user`` message ("" when there is none)."""
    texts = user_texts(logged)
    return texts[-1] if texts else ""


def tool_names(logged: Logged) -> set[str]:
    """The names of the tools the host offered in this request."""
    body = logged.body if isinstance(logged.body, dict) else {}
    names = set()
    for tool in body.get("tools") or []:
        if isinstance(tool, dict):
            names.add(str((tool.get("function") or {}).get("name") or tool.get("name") or ""))
    return names


class ChatServer(ScriptedServer):
    """The chat-completions flavour of :class:`ScriptedServer` (module docstring)."""

    calls = 0

    def is_agent_call(self, logged: Logged) -> bool:
        """A main-loop request (it offers tools), not a host side call."""
        return bool(tool_names(logged))

    def agent_calls(self) -> list[Logged]:
        """The logged main-loop requests, in order."""
        return [r for r in self.requests if r.method == "POST" and self.is_agent_call(r)]

    def respond(self, handler: BaseHTTPRequestHandler, logged: Logged) -> None:
        if logged.method == "GET":
            self.send_json(handler, {"object": "list", "data": [{"id": MODEL, "object": "model"}]})
            return
        if not logged.path.rstrip("/").endswith("chat/completions"):
            self.send_json(handler, {"error": {"message": f"no route {logged.path}"}}, 404)
            return
        body = logged.body if isinstance(logged.body, dict) else {}
        steps: list[Step] = (
            self.agent(logged) if self.is_agent_call(logged) else [Text(_SIDE_ANSWER)]
        )
        if body.get("stream"):
            self.send_sse(handler, [(None, c) for c in self._chunks(steps)], done=True)
        else:
            self.send_json(handler, self._completion(steps))

    def _calls(self, steps: list[Step]) -> list[tuple[str, Tool]]:
        out = []
        for step in steps:
            if isinstance(step, Tool):
                self.calls += 1
                out.append((f"call_{self.calls}", step))
        return out

    def _chunks(self, steps: list[Step]) -> list[dict[str, Any]]:
        def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
            return {
                "id": "chatcmpl-scripted",
                "object": "chat.completion.chunk",
                "created": 0,
                "model": MODEL,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            }

        chunks = [chunk({"role": "assistant", "content": ""})]
        text = "".join(s.text for s in steps if isinstance(s, Text))
        if text:
            chunks.append(chunk({"content": text}))
        calls = self._calls(steps)
        for i, (call_id, tool) in enumerate(calls):
            args = json.dumps(tool.args)
            half = len(args) // 2
            head = {"name": tool.name, "arguments": args[:half]}
            first = {"index": i, "id": call_id, "type": "function", "function": head}
            chunks.append(chunk({"tool_calls": [first]}))
            rest = {"index": i, "function": {"arguments": args[half:]}}
            chunks.append(chunk({"tool_calls": [rest]}))
        last = chunk({}, "tool_calls" if calls else "stop")
        last["usage"] = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
        chunks.append(last)
        return chunks

    def _completion(self, steps: list[Step]) -> dict[str, Any]:
        text = "".join(s.text for s in steps if isinstance(s, Text))
        calls = self._calls(steps)
        message: dict[str, Any] = {"role": "assistant", "content": text or None}
        if calls:
            message["tool_calls"] = [
                {
                    "id": call_id,
                    "type": "function",
                    "function": {"name": tool.name, "arguments": json.dumps(tool.args)},
                }
                for call_id, tool in calls
            ]
        return {
            "id": "chatcmpl-scripted",
            "object": "chat.completion",
            "created": 0,
            "model": MODEL,
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": "tool_calls" if calls else "stop",
                }
            ],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
        }
