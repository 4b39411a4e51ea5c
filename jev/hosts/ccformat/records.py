"""Classify Claude Code transcript records (hosts.md (Claude Code)) — shared by the reader and the
Stop hook's fast path, so both decide "what opens a turn" the same way.

Plain functions on ``dict`` records; imports only ``re`` (which ``json`` has already
loaded), not even ``typing``, so that :mod:`jev.hosts.fastpath` stays cheap.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "NOT_A_PROMPT",
    "TODO_TOOLS",
    "blocks_of",
    "classify_user",
    "question_answers",
    "rejection_feedback",
    "text_of",
]

#: Text prefixes of ``user`` records that are not a typed prompt (hosts.md (Claude Code)).
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

#: Claude Code's Todo tools (hosts.md (Claude Code)): ``TodoWrite`` and the task tools.
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
    """Return ``(kind, text)`` of a main-thread ``user`` record (hosts.md (Claude Code)).

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


#: Rejected tool use (hosts.md (Claude Code)): the host's text, then the user's feedback, if any.
_REJECTED = "The user doesn't want to proceed with this tool use"
_USER_SAID = "the user said:\n"
#: The host's note appended after the user's feedback (2.1.96 ``ExitPlanMode``).
_NOTE_AFTER = "\n\nNote: The user's next message may contain"
#: ``"question"="answer"`` pairs in an AskUserQuestion result text (no toolUseResult).
_ANSWER_PAIR = r'"((?:[^"\\]|\\.)*)"="((?:[^"\\]|\\.)*)"'


def _result_text(content: Any) -> str:
    """Text of a tool_result's ``content`` (a string or a list of text blocks)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            t for b in content if isinstance(b, dict) and isinstance(t := b.get("text"), str)
        )
    return ""


def rejection_feedback(block: dict[str, Any]) -> str:
    """The user's words of a rejected tool use or plan, or ``""`` (hosts.md (Claude Code)).

    Args:
        block: a ``tool_result`` block.

    Returns:
        Exactly the text the user typed after "the user said:" (without the host's
        trailing note), stripped; ``""`` when the result is not a rejection or the
        user gave no feedback ("STOP what you are doing and wait…").
    """
    text = _result_text(block.get("content"))
    if _REJECTED not in text:
        return ""
    at = text.find(_USER_SAID)
    if at < 0:
        return ""
    words = text[at + len(_USER_SAID) :]
    note = words.find(_NOTE_AFTER)
    if note >= 0:
        words = words[:note]
    return words.strip()


def question_answers(block: dict[str, Any], result: dict[str, Any]) -> list[str]:
    """The user's answers to an ``AskUserQuestion`` call, in question order.

    Args:
        block: the call's ``tool_result`` block.
        result: the record's ``toolUseResult`` (``{questions, answers, annotations}``).

    Returns:
        Each non-empty answer (a chosen option label or the user's own text), then
        any ``notes`` the user added in ``annotations``; ``[]`` for an AFK timeout
        (real 2.1.232: no ``answers``) or an error. Without ``toolUseResult`` the
        ``"question"="answer"`` pairs of the result text are used.
    """
    if block.get("is_error") is True:
        return []
    answers = result.get("answers")
    words: list[str] = []
    if isinstance(answers, dict):
        words = [a.strip() for a in answers.values() if isinstance(a, str) and a.strip()]
        notes = result.get("annotations")
        if isinstance(notes, dict):
            for note in notes.values():
                text = note.get("notes") if isinstance(note, dict) else None
                if isinstance(text, str) and text.strip():
                    words.append(text.strip())
        return words
    if result:
        return []
    text = _result_text(block.get("content"))
    if "answered" not in text[:80]:
        return []
    for _question, answer in re.findall(_ANSWER_PAIR, text):
        answer = answer.replace('\\"', '"').strip()
        if answer:
            words.append(answer)
    return words
