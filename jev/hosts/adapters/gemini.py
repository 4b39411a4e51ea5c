"""Gemini CLI: the ``AfterAgent`` hook (HOSTS.md §4.1; GEMSRC ``docs/hooks/reference.md``).

Moved unchanged from the generic runner (issue 8 item 1); the Gemini engineer's
adapter replaces it.

* **stdin**: ``hook_event_name`` may be absent in older builds (then ``AfterAgent``);
  ``prompt`` is the user's request, ``prompt_response`` the final answer.
* **answer**: ``decision: "deny"`` with a ``reason`` sent to the agent as a new
  prompt; stdout must be JSON only, so Jev prints ``{}`` when it has nothing to say.
* **turn**: the chat file (documented format only); Jev's own ``deny`` reason coming
  back as the prompt keeps the turn key (the session index remembers the last one).
"""

from __future__ import annotations

import contextlib
import hashlib
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jev import safejson
from jev.domain import TODO_STATUSES, Material, TodoItem
from jev.errors import MaterialMissing
from jev.hosts.base import (
    HookAnswer,
    HookInput,
    HostAdapter,
    Installer,
    cap,
    common_fields,
    json_line,
    text_field,
)

if TYPE_CHECKING:
    from jev.hosts.hook import SessionIndex
    from jev.hosts.transcript import Turn

__all__ = ["ADAPTER", "GeminiAdapter", "gemini_todos"]


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _gemini_messages(path: Path) -> list[dict[str, Any]]:
    """Messages of a Gemini CLI chat file: one JSON object, or JSONL whose record with
    ``messages`` is the conversation (claude-code-log ``providers/gemini.py``, which
    follows gemini-cli ``packages/core/src/services/chatRecordingTypes.ts``) [S]."""
    text = path.read_bytes().decode("utf-8", errors="replace")
    try:
        whole = safejson.loads(text)
    except ValueError:
        whole = None
    candidates: list[Any] = [whole] if whole is not None else []
    if whole is None:
        for line in text.splitlines():
            with contextlib.suppress(ValueError):
                candidates.append(safejson.loads(line))
    for item in reversed(candidates):
        if isinstance(item, dict) and isinstance(item.get("messages"), list):
            return [m for m in item["messages"] if isinstance(m, dict)]
    raise MaterialMissing(
        f"{path}: no Gemini conversation record (an object with 'messages') in the transcript"
    )


def _message_text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p.get("text", "") if isinstance(p, dict) else str(p) for p in content]
        return "".join(str(p) for p in parts)
    return ""


# Gemini write_todos statuses beyond SPEC's three (geminicli.com/docs/tools/todos [V]):
# ``cancelled`` and ``blocked`` are not completed, so they map to ``pending`` and keep the
# original word in the content ("[cancelled] …") for the judge to see.


def gemini_todos(messages: list[dict[str, Any]], request: str) -> tuple[bool, tuple[TodoItem, ...]]:
    """Todo use and the latest Todo list of the turn opened by ``request`` (Gemini).

    The turn starts at the last ``user`` message whose text equals ``request`` (else the
    last ``user`` message). ``write_todos`` calls in ``gemini`` messages after it count;
    each carries the whole list (``todos[]`` of ``{description, status}``).
    """
    start = 0
    for index, message in enumerate(messages):
        is_user = message.get("type") == "user"
        if is_user and (not request or _message_text(message).strip() == request.strip()):
            start = index
    used = False
    todos: tuple[TodoItem, ...] = ()
    for message in messages[start:]:
        if message.get("type") != "gemini":
            continue
        for call in message.get("toolCalls") or ():
            if not isinstance(call, dict) or call.get("name") != "write_todos":
                continue
            args = call.get("args")
            items = args.get("todos") if isinstance(args, dict) else None
            if not isinstance(items, list):
                continue
            used = True
            converted: list[TodoItem] = []
            for item in items:
                if not isinstance(item, dict):
                    continue
                text = str(item.get("description") or item.get("content") or "")
                status = str(item.get("status") or "pending")
                if status not in TODO_STATUSES:  # cancelled, blocked, anything newer
                    text, status = f"[{status}] {text}", "pending"
                converted.append(TodoItem(text, status))
            todos = tuple(converted)
    return used, todos


def _turn(
    key: str, material: Material | None, status: str, reason: str, *, todo_used: bool
) -> Turn:
    from jev.hosts.transcript import Turn

    return Turn(
        number=0,
        key=key,
        material=material,
        todo_used=todo_used,
        status=status,
        reason=reason,
        ended_by_interrupt=False,
        opening="prompt" if material is not None else "missing",
    )


def _gemini_turn(hook: HookInput, index: SessionIndex, session: str) -> Turn:
    """The current Gemini turn (documented format only; see :func:`gemini_todos`).

    Jev's own ``deny`` reason comes back to Gemini as a new prompt (GEMDOCS
    ``AfterAgent``); when the prompt equals the last supplement Jev sent in this
    session, it is the same turn: the original request and turn key are kept.
    """
    prompt = hook.prompt or ""
    entry = index.get(session) or {}
    if entry.get("last_steer") and prompt.strip() == str(entry["last_steer"]).strip():
        key = str(entry.get("turn") or "")
        request = tuple(str(r) for r in entry.get("request") or ())
    else:
        stamp = str(hook.raw.get("timestamp") or time.time())
        key = "gemini:" + hashlib.sha256(f"{session}\n{stamp}\n{prompt}".encode()).hexdigest()[:32]
        request = (prompt,) if prompt else ()
    if not request or not key:
        return _turn(
            key or "unknown", None, "missing", "material missing: no prompt", todo_used=True
        )
    if not hook.transcript_path:
        return _turn(
            key, None, "skipped", "no readable transcript: Todo use unknown", todo_used=False
        )
    try:
        messages = _gemini_messages(Path(hook.transcript_path))
    except (OSError, MaterialMissing) as exc:
        return _turn(
            key, None, "skipped", f"transcript unreadable: {_one_line(str(exc))}", todo_used=False
        )
    used, todos = gemini_todos(messages, request[0])
    if not used:
        return _turn(key, None, "skipped", "no Todo use in this turn", todo_used=False)
    material = Material(request, todos, hook.last_assistant_message or "", todo_used=True)
    return _turn(key, material, "ready", "", todo_used=True)


class GeminiAdapter:
    """The Gemini CLI adapter (see the module docstring and :class:`HostAdapter`)."""

    name = "gemini"
    hooks: Mapping[str, str] = {"gemini": "stop"}
    remember_material = True

    @property
    def installer(self) -> Installer | None:
        """None: Gemini CLI hooks are configured by hand (README)."""
        return None

    def fast_kind(self, data: dict[str, Any]) -> str:
        """Always ``other``: every Gemini stop takes the full hook."""
        return "other"

    def quick_skip(self, data: dict[str, Any]) -> bool:
        """Never."""
        return False

    def parse(self, data: Mapping[str, Any]) -> HookInput:
        """The typed event; ``AfterAgent`` when ``hook_event_name`` is absent."""
        fields = common_fields(data)
        event = text_field(data.get("hook_event_name")) or "AfterAgent"
        if fields["last_assistant_message"] is None:
            fields["last_assistant_message"] = text_field(data.get("prompt_response"))
        lowered = event.lower()
        kind = (
            "stop"
            if lowered == "afteragent"
            else ("subagent-stop" if lowered == "subagentstop" else "other")
        )
        return HookInput(
            host=self.name, event=event, kind=kind, prompt=text_field(data.get("prompt")), **fields
        )

    def gate(self, hook: HookInput) -> str:
        """No Gemini-only gate."""
        return ""

    def read_turn(self, hook: HookInput, index: SessionIndex, session: str) -> Turn:
        """The current turn (see :func:`gemini_todos`)."""
        return _gemini_turn(hook, index, session)

    def reread(self, entry: Mapping[str, Any]) -> Turn | None:
        """None: the material remembered in the session index is used."""
        return None

    def render(self, answer: HookAnswer, hook: HookInput | None = None) -> tuple[str, str]:
        """``{"decision":"deny","reason":…}``, ``systemMessage``, or ``{}``."""
        out: dict[str, Any] = {}
        if answer.steer is not None:
            out["decision"] = "deny"
            out["reason"] = answer.steer
        notice = cap(answer.notice.strip())
        if notice:
            out["systemMessage"] = notice
        return json_line(out), ""

    def render_session_start(self, context: str | None) -> str:
        """Jev installs no Gemini session-start hook."""
        return ""


ADAPTER: HostAdapter = GeminiAdapter()
