"""Turns of a Gemini CLI chat file — design.md §2, §3; hosts.md (Gemini CLI).

Stdlib only: the Gemini stop hook (``AfterAgent``) imports this on its path.

Source: ``google-gemini/gemini-cli@5411f113`` (2026-08-21),
``packages/core/src/services/chatRecordingService.ts`` (``loadConversationRecord``),
``chatRecordingTypes.ts``, ``core/geminiChat.ts``, ``core/client.ts``,
``tools/write-todos.ts``, ``tools/trackerTools.ts``, ``services/trackerTypes.ts``.

**The file.** Since 2026-04-09 a chat is a JSONL *record stream*
(``chats/session-<time>-<id8>.jsonl``), replayed in order exactly as Gemini's loader does:

* a metadata record ``{sessionId, projectHash, startTime, …}`` (first line; a legacy
  whole-conversation object on one line also carries ``messages``);
* a message record ``{id, timestamp, type, content, displayContent?, toolCalls?}``; a
  record whose ``id`` was seen before **replaces** that message in place (tool calls and
  token counts are appended this way);
* ``{"$set": {…}}`` merges metadata; ``$set.messages`` is a checkpoint that replaces all
  messages;
* ``{"$rewindTo": id}`` removes that message and every later one (an unknown id
  removes all);
* unparseable lines are skipped.

The legacy ``session-*.json`` file (one JSON object with ``messages[]``, possibly
indented over many lines) is read whole. Both are read completely: a rewind or
checkpoint anywhere can change the current turn, so there is no backward shortcut.

**Turns.** A ``user`` message with text opens a turn (key: its ``id``). These ``user``
messages are *not* openings: tool responses (``functionResponse`` parts, recorded as
``user`` so history stays linear), Gemini's own ``"Please continue."`` (next-speaker
check, ``client.ts``), and Jev's own supplement coming back as a prompt after a
``deny`` (``client.ts`` sends the reason with ``sendMessageStream``, which records it):
these continue the open turn, so a retry keeps the turn and its key (design.md §3, §8).
The request is ``displayContent`` when present (what the user typed, before ``@file``
expansion), else ``content``, with any ``<hook_context>`` block (a hook's added
context) and ``<session_context>`` block (the CLI's environment message, the first
``user`` message of a 0.61 chat) removed; a message with nothing else opens no turn.

**Todo list.** ``write_todos`` (``args.todos[{description, status}]``, the whole list
each call; statuses ``pending|in_progress|completed|cancelled|blocked``) and the
``tracker_*`` task tools (``experimental.taskTracker``; statuses
``open|in_progress|blocked|closed``; tasks are session-scoped and rebuilt from every
``tracker_create_task``/``tracker_update_task`` call in the file, the new task's id
taken from the result text ``Created task <id>: …``). ``cancelled``/``blocked`` keep
their word (:func:`jev.hosts.readkit.marked_item`). A failed or cancelled call changes
nothing but still counts as Todo use.

**Final answer.** The text (not thoughts) of the turn's last ``gemini`` message with
text. On a retry that is the newest answer, not the cumulative ``prompt_response``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jev.base import safejson
from jev.base.domain import TodoItem
from jev.base.errors import UsageError
from jev.evidence.runs import Run
from jev.hosts.readkit import (
    SupplementTest,
    as_dict,
    as_list,
    as_str,
    is_jev_supplement,
    marked_item,
)
from jev.hosts.shelltext import labelled_run
from jev.hosts.turns import Turn, build_turn, count_replaced, last_turn, load_counted

__all__ = [
    "CONTINUE_PROMPT",
    "TODO_TOOLS",
    "Conversation",
    "load_conversation",
    "read_current_turn",
    "read_turns",
    "scan",
]

#: Gemini's own continuation prompt after a next-speaker check (``client.ts``).
CONTINUE_PROMPT = "Please continue."
#: Gemini's Todo tools: ``write_todos`` and the task tracker's writers.
TODO_TOOLS = frozenset({"write_todos", "tracker_create_task", "tracker_update_task"})

_WRITE_TODOS_STATUS = {"pending": "pending", "in_progress": "in_progress", "completed": "completed"}
_TRACKER_STATUS = {"open": "pending", "in_progress": "in_progress", "closed": "completed"}
_FAILED_CALL = frozenset({"error", "cancelled"})
_CREATED = re.compile(r"Created task (\S+?):")
_HOOK_CONTEXT = re.compile(r"<hook_context>.*?</hook_context>", re.S)
#: The environment message Gemini CLI (0.61.0) records as the chat's first ``user``
#: message (date, OS, folder listing): the host's own context, not a request.
_SESSION_CONTEXT = re.compile(r"<session_context>.*?</session_context>", re.S)

REASON_NO_REQUEST = (
    "material missing: the turn's user prompt is not in the chat file "
    "(rewound or replaced by a checkpoint)"
)


@dataclass
class Conversation:
    """A replayed Gemini chat: metadata and the surviving messages, in order.

    Attributes:
        metadata: ``sessionId``, ``projectHash``, ``kind`` … (merged ``$set`` records).
        messages: message records after every replacement, ``$set`` checkpoint and
            ``$rewindTo``.
        legacy: the file was the pre-2026-04 single-object ``.json`` form.
        bad_lines: JSONL lines that were not JSON objects (skipped).
    """

    metadata: dict[str, Any] = field(default_factory=dict)
    messages: list[dict[str, Any]] = field(default_factory=list)
    legacy: bool = False
    bad_lines: int = 0


def _replay(lines: Iterable[str]) -> Conversation:
    conv = Conversation()
    messages: dict[str, dict[str, Any]] = {}
    for line in lines:
        if not line.strip():
            continue
        try:
            rec = load_counted(line)
        except (ValueError, RecursionError):
            conv.bad_lines += 1
            continue
        if not isinstance(rec, dict):
            conv.bad_lines += 1
            continue
        rewind = rec.get("$rewindTo")
        if isinstance(rewind, str):
            if rewind in messages:
                keys = list(messages)
                for key in keys[keys.index(rewind) :]:
                    del messages[key]
            else:
                messages.clear()
        elif isinstance(rec.get("id"), str):
            messages[rec["id"]] = rec  # a repeated id replaces in place (dict order kept)
        elif isinstance(rec.get("$set"), dict):
            update = rec["$set"]
            if isinstance(update.get("messages"), list):
                messages.clear()
                for msg in update["messages"]:
                    if isinstance(msg, dict) and isinstance(msg.get("id"), str):
                        messages[msg["id"]] = msg
            conv.metadata.update({k: v for k, v in update.items() if k != "messages"})
        elif isinstance(rec.get("sessionId"), str) and isinstance(rec.get("projectHash"), str):
            conv.metadata.update({k: v for k, v in rec.items() if k != "messages"})
            for msg in as_list(rec.get("messages")):
                if isinstance(msg, dict) and isinstance(msg.get("id"), str):
                    messages[msg["id"]] = msg
    conv.messages = list(messages.values())
    return conv


def load_conversation(path: str | Path) -> Conversation:
    """Read a Gemini chat file (JSONL record stream or legacy single object).

    Raises:
        UsageError: the file is missing or unreadable.
    """
    path = Path(path)
    try:
        text = path.read_bytes().decode("utf-8", errors="replace")
    except OSError as exc:
        raise UsageError(f"{path}: cannot be read ({exc.strerror}).") from None
    text = text.removeprefix("\ufeff")
    head = text.lstrip()
    if head.startswith("{") and "\n" in head.strip():
        # Maybe an indented legacy object spanning many lines.
        try:
            parsed = safejson.parse(text)
        except ValueError:
            parsed = None
        whole = parsed.value if parsed is not None else None
        if isinstance(whole, dict) and isinstance(whole.get("messages"), list):
            count_replaced(parsed.replaced if parsed is not None else 0)
            conv = Conversation(legacy=True)
            conv.metadata = {k: v for k, v in whole.items() if k != "messages"}
            conv.messages = [
                m if isinstance(m.get("id"), str) else {**m, "id": f"#{n}"}
                for n, m in enumerate(whole["messages"])
                if isinstance(m, dict)
            ]
            return conv
    conv = _replay(text.splitlines())
    if path.suffix == ".json" and len(text.strip().splitlines()) == 1:
        conv.legacy = True
    return conv


def parts_text(content: Any) -> str:
    """Text of a ``PartListUnion`` (str, part or list of them), thoughts left out."""
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        if content.get("thought") is True:
            return ""
        return as_str(content.get("text"))
    if isinstance(content, list):
        return "".join(parts_text(p) for p in content)
    return ""


def _has_function_response(content: Any) -> bool:
    return any(isinstance(p, dict) and "functionResponse" in p for p in as_list(content))


def _result_text(result: Any) -> str:
    """All strings inside a tool call's ``result`` (functionResponse parts)."""
    if isinstance(result, str):
        return result
    if isinstance(result, dict):
        return " ".join(_result_text(v) for v in result.values())
    if isinstance(result, list):
        return " ".join(_result_text(v) for v in result)
    return ""


def _shell_output(result: Any) -> str:
    """The ``output`` text of a tool call's functionResponse (else all its strings)."""
    for part in as_list(result):
        response = as_dict(as_dict(as_dict(part).get("functionResponse")).get("response"))
        if isinstance(response.get("output"), str):
            return str(response["output"])
    return _result_text(result)


@dataclass
class _Tracker:
    """Session-scoped tracker tasks: id -> [title, status]."""

    tasks: dict[str, list[str]] = field(default_factory=dict)

    def create(self, call: dict[str, Any]) -> None:
        args = as_dict(call.get("args"))
        found = _CREATED.search(_result_text(call.get("result")))
        task_id = found.group(1) if found else f"new-{len(self.tasks) + 1}"
        title = as_str(args.get("title")) or as_str(args.get("description"))
        self.tasks[task_id] = [title, "open"]

    def update(self, call: dict[str, Any]) -> None:
        args = as_dict(call.get("args"))
        task = self.tasks.get(as_str(args.get("id")))
        if task is None:
            return
        if as_str(args.get("title")):
            task[0] = as_str(args.get("title"))
        if as_str(args.get("status")):
            task[1] = as_str(args.get("status"))

    def items(self) -> tuple[TodoItem, ...]:
        return tuple(marked_item(t, s, _TRACKER_STATUS) for t, s in self.tasks.values())


def write_todos_items(args: Any) -> tuple[TodoItem, ...] | None:
    """The list of one ``write_todos`` call, or ``None`` when ``args.todos`` is no list."""
    todos = as_dict(args).get("todos")
    if not isinstance(todos, list):
        return None
    return tuple(
        marked_item(
            as_str(t.get("description")) or as_str(t.get("content")),
            as_str(t.get("status")),
            _WRITE_TODOS_STATUS,
        )
        for t in todos
        if isinstance(t, dict)
    )


@dataclass
class _Acc:
    key: str
    opening: str
    request: list[str] = field(default_factory=list)
    todo_source: str = ""  # "", "write_todos" or "tracker"
    todos: tuple[TodoItem, ...] = ()
    answer: str = ""
    continuations: int = 0
    runs: list[Run] = field(default_factory=list)  # run_shell_command calls (issue 21)


def _user_text(msg: dict[str, Any]) -> str:
    shown = msg.get("displayContent")
    text = parts_text(shown) if shown is not None else ""
    if not text.strip():
        text = parts_text(msg.get("content"))
    return _SESSION_CONTEXT.sub("", _HOOK_CONTEXT.sub("", text)).strip()


def scan(
    messages: Iterable[dict[str, Any]], *, is_supplement: SupplementTest | None = None
) -> list[Turn]:
    """Replayed messages (file order) -> numbered turns. Pure: no I/O.

    Args:
        messages: message records as :func:`load_conversation` leaves them.
        is_supplement: tells Jev's own supplement texts (default:
            :func:`jev.hosts.readkit.is_jev_supplement`).
    """
    test = is_supplement or is_jev_supplement
    tracker = _Tracker()
    accs: list[_Acc] = []
    cur: _Acc | None = None
    for msg in messages:
        mtype = msg.get("type")
        if mtype == "user":
            if _has_function_response(msg.get("content")):
                continue
            text = _user_text(msg)
            if not text:
                continue
            if cur is not None and (text == CONTINUE_PROMPT or test(text)):
                cur.continuations += 1
                continue
            if test(text):
                continue  # a supplement with no turn before it in this file
            cur = _Acc(key=as_str(msg.get("id")), opening="prompt", request=[text])
            accs.append(cur)
        elif mtype == "gemini":
            if cur is None:
                cur = _Acc(key=as_str(msg.get("id")), opening="missing")
                accs.append(cur)
            text = parts_text(msg.get("content")).strip()
            if text:
                cur.answer = text
            for call in as_list(msg.get("toolCalls")):
                if not isinstance(call, dict):
                    continue
                name = as_str(call.get("name"))
                if name == "run_shell_command":
                    command = as_dict(call.get("args")).get("command")
                    if isinstance(command, str) and as_str(call.get("status")) != "cancelled":
                        cur.runs.append(labelled_run(command, _shell_output(call.get("result"))))
                if name not in TODO_TOOLS:
                    continue
                failed = as_str(call.get("status")) in _FAILED_CALL
                if name == "write_todos":
                    cur.todo_source = "write_todos"
                    items = None if failed else write_todos_items(call.get("args"))
                    if items is not None:
                        cur.todos = items
                else:
                    cur.todo_source = "tracker"
                    if not failed:
                        (tracker.create if name == "tracker_create_task" else tracker.update)(call)
        if cur is not None and cur.todo_source == "tracker":
            cur.todos = tracker.items()
    return [_to_turn(acc, n) for n, acc in enumerate(accs, start=1)]


def _to_turn(acc: _Acc, number: int) -> Turn:
    return build_turn(
        number,
        acc.key,
        acc.opening,
        request=acc.request,
        todos=acc.todos,
        final_answer=acc.answer,
        todo_used=acc.todo_source != "",
        no_opening=REASON_NO_REQUEST if acc.opening == "missing" else "",
        runs=acc.runs,
    )


def read_turns(path: str | Path, *, is_supplement: SupplementTest | None = None) -> list[Turn]:
    """Every turn of a Gemini chat file, in order (design.md §2, §3).

    Raises:
        UsageError: the file is missing or unreadable.
    """
    return scan(load_conversation(path).messages, is_supplement=is_supplement)


def read_current_turn(path: str | Path, *, is_supplement: SupplementTest | None = None) -> Turn:
    """The last turn of a Gemini chat file (``number`` 0). Reads the whole file (see
    the module docstring: a rewind anywhere can change the current turn).

    Raises:
        UsageError: the file is missing or unreadable.
        MaterialMissing: the chat holds no turn yet.
    """
    return last_turn(read_turns(path, is_supplement=is_supplement), path)
