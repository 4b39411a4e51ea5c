"""The OpenAI Responses API on 127.0.0.1, for the real Codex CLI (issue 19).

Codex reaches it through a custom provider in ``$CODEX_HOME/config.toml``
(:func:`provider_config`: ``model_providers.<id>`` with ``base_url`` and
``wire_api = "responses"``). ``POST …/responses`` is answered as Server-Sent Events:
``response.created``; per output item ``response.output_item.added`` and
``response.output_item.done`` (a ``message`` with one ``output_text`` part, preceded
by ``response.output_text.delta``; or a ``function_call`` with ``name``,
``arguments`` (a JSON string) and ``call_id``); ``response.completed`` with usage.
Any other request (``/models``, telemetry) gets a harmless JSON answer (``/models``:
an empty list) and never reaches the scripted agent.

The agent's requests are the streamed ``/responses`` posts that offer tools
(:func:`is_agent_call`); a side call without tools (titles, compaction) gets
:attr:`ResponsesServer.side_text`.
"""

from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.hosts_real.scripted import Agent, Logged, ScriptedServer, Step, Text, Tool

__all__ = [
    "ResponsesServer",
    "function_outputs",
    "is_agent_call",
    "provider_config",
    "user_texts",
]


def provider_config(
    base_url: str, provider: str = "scripted", model: str = "scripted-model"
) -> str:
    """The ``config.toml`` text that points Codex at ``base_url`` (no retries, so a
    broken server fails the run quickly instead of hanging in back-off)."""
    return (
        f'model = "{model}"\n'
        f'model_provider = "{provider}"\n'
        "\n"
        f"[model_providers.{provider}]\n"
        f'name = "{provider}"\n'
        f'base_url = "{base_url}/v1"\n'
        'wire_api = "responses"\n'
        "request_max_retries = 0\n"
        "stream_max_retries = 0\n"
        "stream_idle_timeout_ms = 20000\n"
    )


def is_agent_call(logged: Logged) -> bool:
    """True for a streamed ``…/responses`` POST that offers tools (the agent loop)."""
    body = logged.body if isinstance(logged.body, dict) else {}
    return (
        logged.method == "POST"
        and logged.path.split("?")[0].rstrip("/").endswith("/responses")
        and bool(body.get("tools"))
    )


def _input(logged: Logged) -> list[dict[str, Any]]:
    body = logged.body if isinstance(logged.body, dict) else {}
    items = body.get("input")
    return [i for i in items if isinstance(i, dict)] if isinstance(items, list) else []


def user_texts(logged: Logged) -> list[str]:
    """The text of every ``role: user`` message item of the request, oldest first
    (Codex's injected context, the prompts and Stop-hook continuations alike)."""
    out: list[str] = []
    for item in _input(logged):
        if item.get("type", "message") == "message" and item.get("role") == "user":
            content = item.get("content")
            if isinstance(content, str):
                out.append(content)
                continue
            out.append(
                "".join(
                    str(b.get("text", ""))
                    for b in content or ()
                    if isinstance(b, dict) and b.get("type") in ("input_text", "text")
                )
            )
    return out


def function_outputs(logged: Logged) -> list[str]:
    """The ``call_id`` of every ``function_call_output`` in the request, oldest first."""
    return [
        str(i.get("call_id"))
        for i in _input(logged)
        if i.get("type") in ("function_call_output", "custom_tool_call_output")
    ]


class ResponsesServer(ScriptedServer):
    """Responses API answers from the scripted agent (see the module docstring)."""

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
        if logged.method != "POST" or not path.endswith("/responses"):
            if path.endswith("/models"):
                self.send_json(handler, {"object": "list", "data": [], "models": []})
            else:
                self.send_json(handler, {})
            return
        steps: list[Step] = self.agent(logged) if is_agent_call(logged) else [Text(self.side_text)]
        body = logged.body if isinstance(logged.body, dict) else {}
        self.send_sse(handler, self._events(steps, str(body.get("model") or "scripted-model")))

    def _items(self, steps: list[Step]) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = []
        for step in steps:
            n = self._next_id()
            if isinstance(step, Text):
                items.append(
                    {
                        "type": "message",
                        "id": f"msg_{n}",
                        "role": "assistant",
                        "status": "completed",
                        "content": [{"type": "output_text", "text": step.text, "annotations": []}],
                    }
                )
            elif isinstance(step, Tool):
                items.append(
                    {
                        "type": "function_call",
                        "id": f"fc_{n}",
                        "call_id": f"call_{n}",
                        "name": step.name,
                        "arguments": json.dumps(step.args),
                        "status": "completed",
                    }
                )
        return items

    def _events(self, steps: list[Step], model: str) -> list[tuple[str | None, Any]]:
        rid = f"resp_{self._next_id()}"
        head = {
            "id": rid,
            "object": "response",
            "model": model,
            "status": "in_progress",
            "output": [],
        }
        events: list[tuple[str | None, Any]] = [
            ("response.created", {"type": "response.created", "response": head})
        ]
        items = self._items(steps)
        for index, item in enumerate(items):
            added = (
                dict(item, content=[]) if item["type"] == "message" else dict(item, arguments="")
            )
            events.append(
                (
                    "response.output_item.added",
                    {"type": "response.output_item.added", "output_index": index, "item": added},
                )
            )
            if item["type"] == "message":
                events.append(
                    (
                        "response.output_text.delta",
                        {
                            "type": "response.output_text.delta",
                            "item_id": item["id"],
                            "output_index": index,
                            "content_index": 0,
                            "delta": item["content"][0]["text"],
                        },
                    )
                )
            events.append(
                (
                    "response.output_item.done",
                    {"type": "response.output_item.done", "output_index": index, "item": item},
                )
            )
        usage = {
            "input_tokens": 100,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 20,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 120,
        }
        done = dict(head, status="completed", output=items, usage=usage)
        events.append(("response.completed", {"type": "response.completed", "response": done}))
        return events
