"""Turns of a Qwen Code session transcript (JSONL) — design.md §2, §3; hosts.md (other hosts).

Stdlib only: the Qwen Code stop hook imports this on its path.

Source: QwenLM/qwen-code ``packages/core/src/services/chatRecordingService.ts``
(``ChatRecord``, ``recordUserMessage``, ``recordMidTurnUserMessage``,
``recordNotification``, ``recordAssistantTurn``, ``recordToolResult``) and
``packages/core/src/tools/todoWrite.ts``. Qwen Code's hooks are Claude-style, but its
transcript is **not** Claude Code's: every line is a ``ChatRecord``
``{uuid, parentUuid, sessionId, timestamp, type: user|assistant|tool_result|system,
subtype?, promptId?, message?: {role, parts: [...]}, systemPayload?, isSidechain?,
agentId?}`` whose ``message`` is a Gemini-API ``Content``. No real Qwen session with
``todo_write`` exists under a reusable license (../shared/real/README.md), so the
fixtures are source-derived.

* **Active branch.** Records form a tree through ``parentUuid`` (rewind and ``/branch``
  fork it); the current conversation is the chain from the file's last record back to
  the root. Records of subagents (``isSidechain`` or ``agentId``) are left out.
* **Turns.** A ``user`` record without ``subtype`` is a typed prompt and opens a turn,
  keyed by its ``promptId`` (else its ``uuid``); its text is
  ``systemPayload.displayText`` (what the user typed) or the text parts. A
  ``mid_turn_user_message`` is the user's adjustment of the open turn (design.md §3).
  ``notification``/``cron`` records open a turn nobody typed: its request is empty, so
  a Todo turn there is ``missing``. ``goal_runtime``/``realtime_message`` are ignored.
  Jev's own supplement coming back as a prompt continues the open turn.
* **Todo list.** ``todo_write`` ``functionCall`` parts in ``assistant`` records carry the
  whole list ``{todos: [{id, content, status, blockedBy?}]}``; the latest call of the
  turn is the list. ``blockedBy`` is kept as ``[blocked by …]`` on open items. A call
  whose ``tool_result`` has ``toolCallResult.status: "error"`` set nothing (0.24.4
  refuses ``todo_write`` while ``tools.todoWrite.enabled`` is off [M]) and is undone.
* **Final answer.** The text parts (not ``thought``) of the turn's last ``assistant``
  record with text.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from jev.base.domain import TodoItem
from jev.hosts.readkit import (
    SupplementTest,
    as_dict,
    as_list,
    as_str,
    is_jev_supplement,
    marked_item,
)
from jev.hosts.shelltext import labelled_run
from jev.hosts.turns import Turn, TurnDraft, json_lines, last_turn

__all__ = ["TODO_TOOLS", "active_chain", "read_current_turn", "read_turns", "scan"]

#: Qwen Code's Todo tool (``todoWrite.ts``).
TODO_TOOLS = frozenset({"todo_write"})
_STATUS = {"pending": "pending", "in_progress": "in_progress", "completed": "completed"}
_SYSTEM_OPENERS = frozenset({"notification", "cron"})


def active_chain(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The records on the active branch, root first (see the module docstring).

    Starts at the last record that has a ``uuid`` and follows ``parentUuid``; a record
    seen twice ends the walk (a cycle in a damaged file). Records without ``uuid`` are
    dropped.
    """
    by_uuid: dict[str, dict[str, Any]] = {}
    last = ""
    for rec in records:
        uuid = as_str(rec.get("uuid"))
        if uuid:
            by_uuid[uuid] = rec
            last = uuid
    chain: list[dict[str, Any]] = []
    seen: set[str] = set()
    cursor = last
    while cursor and cursor in by_uuid and cursor not in seen:
        seen.add(cursor)
        rec = by_uuid[cursor]
        chain.append(rec)
        cursor = as_str(rec.get("parentUuid"))
    chain.reverse()
    return chain


def _parts_text(message: Any) -> str:
    return "".join(
        as_str(p.get("text"))
        for p in as_list(as_dict(message).get("parts"))
        if isinstance(p, dict) and p.get("thought") is not True
    )


def _display(rec: dict[str, Any]) -> str:
    shown = as_str(as_dict(rec.get("systemPayload")).get("displayText"))
    return (shown or _parts_text(rec.get("message"))).strip()


def todo_items(args: Any) -> tuple[TodoItem, ...] | None:
    """The list of one ``todo_write`` call, or ``None`` when ``todos`` is no list."""
    todos = as_dict(args).get("todos")
    if not isinstance(todos, list):
        return None
    items: list[TodoItem] = []
    for todo in todos:
        if not isinstance(todo, dict):
            continue
        content = as_str(todo.get("content"))
        blocked = [str(b) for b in as_list(todo.get("blockedBy")) if isinstance(b, (str, int))]
        item = marked_item(content, as_str(todo.get("status")) or "pending", _STATUS)
        if blocked and item.status != "completed":
            item = TodoItem(f"[blocked by {', '.join(blocked)}] {item.content}", item.status)
        items.append(item)
    return tuple(items)


#: Why a turn has no material: its prompt is not on the branch; no user request.
_NO_OPENING = "material missing: the turn's user prompt is not on the transcript's active branch"
_NO_REQUEST = "material missing: the turn was opened by a notification, not by a user request"


def _response_output(message: Any) -> str:
    """The text of a tool_result record's functionResponse part: ``response.output``,
    or ``response.error`` for a command that exited non-zero (0.24.4 [M],
    ``tests/hosts_real/test_qwen_evidence.py``); "" if none."""
    for part in as_list(as_dict(message).get("parts")):
        response = as_dict(as_dict(as_dict(part).get("functionResponse")).get("response"))
        for key in ("output", "error"):
            if isinstance(response.get(key), str):
                return str(response[key])
    return ""


def scan(
    records: Iterable[dict[str, Any]], *, is_supplement: SupplementTest | None = None
) -> list[Turn]:
    """Active-branch records (root first) -> numbered root turns. Pure."""
    test = is_supplement or is_jev_supplement
    accs: list[TurnDraft] = []
    cur: TurnDraft | None = None
    calls: dict[str, tuple[bool, tuple[TodoItem, ...]]] = {}  # todo_write call id -> before
    shells: dict[str, str] = {}  # run_shell_command call id -> command
    for rec in records:
        if rec.get("isSidechain") is True or rec.get("agentId"):
            continue
        rtype = rec.get("type")
        subtype = rec.get("subtype")
        if rtype == "user":
            text = _display(rec)
            if subtype is None:
                if not text:
                    continue
                if test(text):
                    continue  # Jev's supplement: the turn goes on
                key = as_str(rec.get("promptId")) or as_str(rec.get("uuid"))
                cur = TurnDraft(key=key, opening="prompt", request=[text])
                accs.append(cur)
            elif subtype == "mid_turn_user_message" and cur is not None and text:
                if not test(text):
                    cur.request.append(text)
            elif subtype in _SYSTEM_OPENERS:
                cur = TurnDraft(key=as_str(rec.get("uuid")), opening="notification")
                accs.append(cur)
        elif rtype == "assistant":
            if cur is None:
                cur = TurnDraft(key=as_str(rec.get("uuid")), opening="missing")
                accs.append(cur)
            text = _parts_text(rec.get("message")).strip()
            if text:
                cur.answer = text
            for part in as_list(as_dict(rec.get("message")).get("parts")):
                call = as_dict(as_dict(part).get("functionCall"))
                command = as_dict(call.get("args")).get("command")
                if as_str(call.get("name")) == "run_shell_command" and isinstance(command, str):
                    shells[as_str(call.get("id"))] = command  # issue 21
                if as_str(call.get("name")) in TODO_TOOLS:
                    calls[as_str(call.get("id"))] = (cur.todo_used, cur.todos)
                    cur.todo_used = True
                    items = todo_items(call.get("args"))
                    if items is not None:
                        cur.todos = items
        elif rtype == "tool_result" and cur is not None:
            result = as_dict(rec.get("toolCallResult"))
            call_id = as_str(result.get("callId"))
            if call_id in shells:
                output = _response_output(rec.get("message"))
                cur.runs.append(labelled_run(shells.pop(call_id), output))
            if call_id in calls and result.get("status") == "error":
                # refused (todo_write switched off, bad arguments): no list was set
                cur.todo_used, cur.todos = calls.pop(call_id)
    return [
        a.turn(n, no_opening=_NO_OPENING, no_request=_NO_REQUEST)
        for n, a in enumerate(accs, start=1)
    ]


def read_turns(path: str | Path, *, is_supplement: SupplementTest | None = None) -> list[Turn]:
    """Every root turn on the active branch of a Qwen Code transcript (design.md §2, §3).

    Raises:
        UsageError: the file is missing or unreadable.
    """
    records = [rec for _, rec in json_lines(Path(path))]
    return scan(active_chain(records), is_supplement=is_supplement)


def read_current_turn(path: str | Path, *, is_supplement: SupplementTest | None = None) -> Turn:
    """The last root turn (``number`` 0); the whole file is read (the active branch is
    found from its end).

    Raises:
        UsageError: unreadable file.
        MaterialMissing: no turn yet.
    """
    return last_turn(read_turns(path, is_supplement=is_supplement), path)
