"""Classify Claude Code transcript records (HOSTS.md §2.4) — shared by the reader and the
Stop hook's fast path, so both decide "what opens a turn" the same way.

Plain functions on ``dict`` records; imports nothing (not even ``typing``) so that
:mod:`jev.hosts.fastpath` stays cheap.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["NOT_A_PROMPT", "TODO_TOOLS", "blocks_of", "classify_user", "text_of"]

#: Text prefixes of ``user`` records that are not a typed prompt (HOSTS.md §2.4).
NOT_A_PROMPT: tuple[str, ...] = (
    "<command-",
    "<local-command-",
    "<task-notification",
    "[Request interrupted",
    "Stop hook feedback:",
    "<hook_prompt",
    "<bash-",
    "<system-reminder>",
    "This session is being continued",
    "Caveat:",
    "<user-memory-input>",
)

#: Claude Code's Todo tools (HOSTS.md §2.5): ``TodoWrite`` and the task tools.
TODO_TOOLS: frozenset[str] = frozenset({"TodoWrite", "TaskCreate", "TaskUpdate"})


def blocks_of(message: dict[str, Any]) -> list[dict[str, Any]]:
    """Content blocks of a record's ``message`` (a string content is one text block)."""
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, list):
        return [b for b in content if isinstance(b, dict)]
    return []


def text_of(blocks: list[dict[str, Any]]) -> str:
    """The concatenated ``text`` of the text blocks."""
    return "".join(
        t for b in blocks if b.get("type") == "text" and isinstance(t := b.get("text"), str)
    )


def classify_user(rec: dict[str, Any]) -> tuple[str, str]:
    """Return ``(kind, text)`` of a main-thread ``user`` record (HOSTS.md §2.4).

    Kinds: ``tool_result``, ``compact_summary``, ``interrupt``, ``hook_feedback``,
    ``meta`` (an ``isMeta`` expansion: a slash command's prompt or a skill), ``command``
    (``<command-name>`` record), ``task_notification``, ``prompt`` (a real typed
    prompt) and ``other`` (caveats, reminders, bash input, empty records).
    """
    message = rec.get("message")
    blocks = blocks_of(message if isinstance(message, dict) else {})
    if any(b.get("type") == "tool_result" for b in blocks):
        return "tool_result", ""
    text = text_of(blocks)
    head = text.lstrip()
    if rec.get("isCompactSummary") is True or head.startswith("This session is being continued"):
        return "compact_summary", ""
    if head.startswith("[Request interrupted"):
        return "interrupt", ""
    if head.startswith(("Stop hook feedback:", "<hook_prompt")):
        return "hook_feedback", ""
    if rec.get("isMeta") is True:
        if head.startswith(("<local-command-caveat>", "Caveat:", "<system-reminder>")):
            return "other", ""
        return "meta", text
    if head.startswith("<command-"):
        return "command", text
    if head.startswith("<task-notification"):
        return "task_notification", text
    if head.startswith(NOT_A_PROMPT):
        return "other", ""
    if not head and not any(b.get("type") == "image" for b in blocks):
        return "other", ""
    return "prompt", text
