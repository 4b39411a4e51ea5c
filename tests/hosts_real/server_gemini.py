"""The Gemini API on 127.0.0.1, for the real Gemini CLI (issue 19).

Gemini CLI reaches it through ``GOOGLE_GEMINI_BASE_URL`` with an API key
(``GEMINI_API_KEY`` and ``security.auth.selectedType: "gemini-api-key"``). The agent
loop is ``POST /v1beta/models/<model>:streamGenerateContent?alt=sse``, answered as
Server-Sent Events: one ``data:`` chunk per step, each a ``GenerateContentResponse``
(``candidates[0].content.parts`` with ``text`` or ``functionCall {name, args}``),
the last one with ``finishReason: "STOP"`` and ``usageMetadata``. Side calls get
harmless answers: ``:countTokens`` a token count, ``:generateContent`` (the CLI's
own JSON side questions, e.g. the next-speaker check) ``{"next_speaker": "user"}``
as text, any other path (model listing, …) an empty JSON object.

Which requests are the agent's own turns: :func:`is_agent_call` (a streamed
generate request offering function declarations).
"""

from __future__ import annotations

from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.hosts_real.scripted import Logged, ScriptedServer, Step, Text, Tool

__all__ = ["GeminiServer", "function_responses", "is_agent_call", "last_user_text"]

SIDE_TEXT = '{"reasoning": "The model finished its answer.", "next_speaker": "user"}'


def _tools(body: dict[str, Any]) -> list[str]:
    names: list[str] = []
    for tool in body.get("tools") or ():
        for decl in (tool or {}).get("functionDeclarations") or ():
            names.append(str(decl.get("name")))
    return names


def is_agent_call(logged: Logged) -> bool:
    """True for a ``:streamGenerateContent`` request offering function declarations."""
    body = logged.body if isinstance(logged.body, dict) else {}
    return ":streamGenerateContent" in logged.path and bool(_tools(body))


def offered_tools(logged: Logged) -> list[str]:
    """The function names the request offers the model."""
    return _tools(logged.body if isinstance(logged.body, dict) else {})


def _parts(content: dict[str, Any]) -> list[dict[str, Any]]:
    return [p for p in content.get("parts") or () if isinstance(p, dict)]


def last_user_text(logged: Logged) -> str:
    """Every text part of the request's last ``user`` content, joined by newlines
    (tool results are ``user`` contents with ``functionResponse`` parts: skipped)."""
    for content in reversed((logged.body or {}).get("contents") or []):
        if content.get("role") != "user":
            continue
        texts = [str(p["text"]) for p in _parts(content) if "text" in p]
        if texts:
            return "\n".join(texts)
        if any("functionResponse" in p for p in _parts(content)):
            return ""
    return ""


def function_responses(logged: Logged) -> list[str]:
    """The ``name`` of every ``functionResponse`` part in the request, oldest first."""
    out: list[str] = []
    for content in (logged.body or {}).get("contents") or []:
        for part in _parts(content):
            if "functionResponse" in part:
                out.append(str(part["functionResponse"].get("name")))
    return out


class GeminiServer(ScriptedServer):
    """Gemini API answers from the scripted agent (see the module docstring)."""

    def agent_calls(self) -> list[Logged]:
        """The logged agent-loop requests (:func:`is_agent_call`), in order."""
        return [r for r in self.requests if is_agent_call(r)]

    def respond(self, handler: BaseHTTPRequestHandler, logged: Logged) -> None:
        path = logged.path.split("?")[0]
        model = path.rsplit("/", 1)[-1].split(":")[0] or "gemini-2.5-pro"
        if path.endswith(":countTokens"):
            self.send_json(handler, {"totalTokens": max(1, len(logged.raw) // 4)})
            return
        if path.endswith(":streamGenerateContent"):
            steps: list[Step] = self.agent(logged) if is_agent_call(logged) else [Text(SIDE_TEXT)]
            self.send_sse(handler, [(None, c) for c in self._chunks(steps, model)])
            return
        if path.endswith(":generateContent"):
            self.send_json(handler, self._chunks([Text(SIDE_TEXT)], model)[-1])
            return
        self.send_json(handler, {})

    @staticmethod
    def _chunks(steps: list[Step], model: str) -> list[dict[str, Any]]:
        parts: list[dict[str, Any]] = []
        for step in steps:
            if isinstance(step, Text):
                parts.append({"text": step.text})
            elif isinstance(step, Tool):
                parts.append({"functionCall": {"name": step.name, "args": step.args}})
        parts = parts or [{"text": ""}]
        chunks = []
        for n, part in enumerate(parts):
            candidate: dict[str, Any] = {"content": {"role": "model", "parts": [part]}, "index": 0}
            chunk: dict[str, Any] = {"candidates": [candidate], "modelVersion": model}
            if n == len(parts) - 1:
                candidate["finishReason"] = "STOP"
                chunk["usageMetadata"] = {
                    "promptTokenCount": 100,
                    "candidatesTokenCount": 20,
                    "totalTokenCount": 120,
                }
            chunks.append(chunk)
        return chunks
