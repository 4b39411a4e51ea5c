"""Turns of a Claude Code session transcript (JSONL) — design.md §2, §3; hosts.md (Claude Code).

Stdlib only (``json``, ``re``): the Stop hook imports this on its fast path.

Rules (each decided on the real transcripts in ``tests/fixtures/real/``):

* **Root turns only.** Records with ``isSidechain: true`` are ignored completely
  (hosts.md (Claude Code): 1.x files interleave subagent records inline).
* **What opens a turn** (hosts.md (Claude Code) table and its "practical rule"):

  - a real typed prompt: a ``user`` record, not ``isMeta``, not
    ``isCompactSummary``, without ``tool_result`` blocks, whose text does not start
    with one of :data:`NOT_A_PROMPT` (``opening="prompt"``);
  - a prompt-expanding slash command: a ``<command-name>`` record followed by an
    ``isMeta`` user record with the expanded prompt (``/init``, custom and plugin
    commands, skills such as ``/goal``). The turn's key is the command record's
    uuid; its request is the expanded text, preceded by ``/name args`` only when
    the args do not already appear in the expansion (``opening="slash-command"``);
  - a ``<task-notification>`` prompt (a background task finished, a cron woke the
    session) only when no turn precedes it in the file: it looks like a prompt but
    no user typed it (hosts.md (Claude Code), §1.12), so that turn's request is empty: if
    Todos were used it is ``missing`` ("opened by a background-task notification"),
    else skipped. After a turn, a notification **continues** that turn (the stop
    deferred for the background work is audited when the turn really ends, with the
    user's request; issue 8 item 6).

* **Not turns:** local slash commands (``/clear``, ``/model``, ``/mcp``,
  ``/effort``: a ``<command-name>`` record answered by ``<local-command-stdout>`` and
  no expansion) and ``!cmd`` bash input (``<bash-input>``) run without the agent,
  so they neither open a turn nor belong to one: the turn numbering skips them
  (the 1.0.31 ``example2`` file has 21 turns with ``/clear`` in the middle).
  Stop-hook feedback (``isMeta`` ``"Stop hook feedback:\\n…"``, hosts.md (Claude Code)) and
  Codex-style ``<hook_prompt …>`` texts are never a request: the turn goes on with
  the same key. Compaction summaries never stand in for a request (design.md §3).
* **Mid-turn adjustments** (design.md §3 "the user's adjustments sent during the
  turn"): queued messages delivered to the agent while it works. Per CCLOG
  ``dev-docs/messages.md`` ("User Steering"), a delivery is an ``attachment`` of
  type ``queued_command`` (≳2.1.101, text in ``prompt``) and/or a
  ``queue-operation`` ``remove`` (content ``null`` before ~2.1.205: the text is
  then the oldest ``enqueue``d content). Both are written for one delivery, so they
  are paired by text. ``dequeue`` means the message runs after the turn as the next
  prompt (it then appears as its own record), so it is not an adjustment.
* **User words inside tool results** (design.md §3, issue 10): a rejected tool use or
  plan with feedback (``is_error`` tool_result "The user doesn't want to proceed with
  this tool use … the user said:\n<words>", real 2.1.96 ``ExitPlanMode``) and the
  answers to ``AskUserQuestion`` (``toolUseResult.answers``, real 2.1.39/2.1.179/
  2.1.217) are adjustments: exactly the user's words become a later request
  message. The tool's own text around them, a rejection without feedback and an
  AFK-timeout "answer" (2.1.232, no ``answers``) add nothing.
* **End of a turn** (``Turn.ended``): a turn followed by another opening record has
  ended; the last turn has ended when a ``stop_hook_summary``/``turn_duration``
  record, a slash command or an interrupt follows its last agent record, or when its
  last assistant message has ``stop_reason: "end_turn"``, or (versions that record no
  stop reason, 1.0.x/2.1.38) a null stop reason with text and no ``tool_use``. A
  pending tool result or a ``tool_use`` stop means the agent is still working.
* **Subagent transcripts** (``subagents/agent-*.jsonl``, or every record a
  sidechain, hosts.md (Claude Code)) are one skipped turn: "subagent transcript".
* **Interrupts:** a turn whose last main-thread event is a ``[Request interrupted
  by user…]`` record ``ended_by_interrupt``: skipped (no Stop hook runs then,
  hosts.md (Claude Code)). If the agent goes on after the interrupt in the same turn, the
  turn did not end by it.
* **Todo use:** ``TodoWrite`` (old ``id/priority`` and new ``activeForm`` item
  shapes; the latest call's ``input.todos`` is the list, hosts.md (Claude Code)) and
  ``TaskCreate``/``TaskUpdate``. The task list is per session: it is rebuilt from
  every call in the file (TaskCreate subject -> ``pending`` item whose id comes
  from the paired tool_result ``toolUseResult.task.id`` or the text
  ``Task #N created successfully``; TaskUpdate ``taskId``/``task_id``/``id``,
  ``status``, ``subject``; ``deleted`` drops the item). A ``TaskCreate`` whose id
  already exists ("Task #1 created" while #1 exists) means the host started a fresh
  list (``--resume``/``--continue``): the old tasks are dropped. ``todo_used`` counts only
  calls in this turn; a turn without Todo use carries an empty list.
* **Final answer:** the text blocks of the turn's last assistant message that has
  text (records grouped by ``message.id``: each record carries one block, hosts.md
  §2.3), stripped and joined by blank lines. API-error and ``<synthetic>``
  messages are the host's, not the agent's, and are not answers.
* **Missing opening:** agent work before the first opening record (the file begins
  mid-turn, e.g. after compaction) forms a turn with status ``missing``.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from jev.domain import Material, TodoItem
from jev.hosts.cc_records import (
    NOT_A_PROMPT,
    TODO_TOOLS,
    blocks_of,
    classify_user,
    question_answers,
    rejection_feedback,
    text_of,
)
from jev.hosts.turns import (
    REASON_INTERRUPT,
    REASON_NO_OPENING,
    REASON_NO_TODO,
    LineStats,
    Turn,
    iter_records,
    iter_records_backward,
    no_turn_error,
)

__all__ = [
    "NOT_A_PROMPT",
    "REASON_SUBAGENT",
    "TodoState",
    "is_subagent_path",
    "question_answers",
    "read_current_turn",
    "read_turns",
    "rejection_feedback",
    "scan",
]

REASON_SUBAGENT = "subagent transcript"
REASON_NOTIFICATION = (
    "material missing: the turn was opened by a background-task notification, not by a user request"
)

_TODO_TOOLS = TODO_TOOLS
_TASK_CREATED = re.compile(r"Task #(\w+) created")
_TURN_END_SUBTYPES = frozenset({"stop_hook_summary", "turn_duration"})
_COMMAND_NAME = re.compile(r"<command-name>\s*(.*?)\s*</command-name>", re.S)
_COMMAND_ARGS = re.compile(r"<command-args>(.*?)</command-args>", re.S)
_STATUS_ALIASES = {
    "pending": "pending",
    "todo": "pending",
    "in_progress": "in_progress",
    "inprogress": "in_progress",
    "in-progress": "in_progress",
    "active": "in_progress",
    "completed": "completed",
    "complete": "completed",
    "done": "completed",
}


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _status(value: Any) -> str:
    """Map a host status to one of pending / in_progress / completed.

    Unknown statuses (none are documented for Claude Code) count as ``pending``:
    an item not known to be done is not done.
    """
    return _STATUS_ALIASES.get(_str(value).strip().lower(), "pending")


_blocks = blocks_of
_text_of = text_of


def _block_text(content: Any) -> str:
    """Text of a tool_result's ``content`` (a string or a list of text blocks)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(_str(_dict(b).get("text")) for b in content)
    return ""


_classify_user = classify_user


@dataclass
class TodoState:
    """The session's Todo state while scanning (hosts.md (Claude Code)).

    Attributes:
        todowrite: the latest ``TodoWrite`` list.
        tasks: task id -> ``[subject, status]`` in creation order.
        creates: pending TaskCreate tool_use id -> subject (awaiting its result).
        updates: pending TaskUpdate tool_use id -> input (awaiting its result).
    """

    todowrite: tuple[TodoItem, ...] = ()
    tasks: dict[str, list[str]] = field(default_factory=dict)
    creates: dict[str, str] = field(default_factory=dict)
    updates: dict[str, dict[str, Any]] = field(default_factory=dict)

    def _next_id(self) -> str:
        numbers = [int(k) for k in self.tasks if k.isdigit()]
        return str(max(numbers, default=0) + 1)

    def tool_use(self, name: str, use_id: str, data: dict[str, Any]) -> None:
        """Record one Todo tool call of the main thread."""
        if name == "TodoWrite":
            todos = data.get("todos")
            items = todos if isinstance(todos, list) else []
            self.todowrite = tuple(
                TodoItem(_str(_dict(t).get("content")), _status(_dict(t).get("status")))
                for t in items
                if isinstance(t, dict)
            )
        elif name == "TaskCreate":
            subject = _str(data.get("subject")) or _str(data.get("title"))
            self.creates[use_id or f"anon-{len(self.creates)}"] = subject
        elif name == "TaskUpdate":
            self.updates[use_id or f"anon-{len(self.updates)}"] = data

    def tool_result(self, use_id: str, block: dict[str, Any], result: dict[str, Any]) -> None:
        """Apply a Task call once its result arrives (errors undo nothing: skip)."""
        failed = block.get("is_error") is True
        if use_id in self.creates:
            subject = self.creates.pop(use_id)
            if failed:
                return
            task = _dict(result.get("task"))
            task_id = _str(task.get("id")) or str(task.get("id") or "")
            if not task_id:
                found = _TASK_CREATED.search(_block_text(block.get("content")))
                task_id = found.group(1) if found else ""
            self._create(task_id, subject)
        elif use_id in self.updates:
            data = self.updates.pop(use_id)
            if failed or result.get("success") is False:
                return
            self._update(data)

    def _create(self, task_id: str, subject: str) -> None:
        if task_id and task_id in self.tasks:
            # "Task #1 created" while #1 exists: the host started a fresh list
            # (resume/continue in the same file); earlier tasks are not this list's.
            self.tasks.clear()
        self.tasks[task_id or self._next_id()] = [subject, "pending"]

    def _update(self, data: dict[str, Any]) -> None:
        raw_id = data.get("taskId", data.get("task_id", data.get("id")))
        task_id = str(raw_id) if isinstance(raw_id, (str, int)) else ""
        task = self.tasks.get(task_id)
        if task is None:
            return
        status = _str(data.get("status")).strip().lower()
        if status == "deleted":
            del self.tasks[task_id]
            return
        if status:
            task[1] = _status(status)
        subject = _str(data.get("subject"))
        if subject:
            task[0] = subject

    def flush(self) -> None:
        """Apply Task calls whose results never arrived (the file ended first)."""
        for subject in self.creates.values():
            self._create("", subject)
        self.creates.clear()
        for data in self.updates.values():
            self._update(data)
        self.updates.clear()

    def task_list(self) -> tuple[TodoItem, ...]:
        return tuple(TodoItem(subject, status) for subject, status in self.tasks.values())


@dataclass
class _Acc:
    """One turn being assembled."""

    offset: int
    key: str
    opening: str
    request: list[str] = field(default_factory=list)
    todo_source: str = ""  # "", "todowrite" or "tasks": the last used in this turn
    task_calls: bool = False
    last_event: str = ""  # "interrupt" or "assistant"
    answer_id: str = ""
    answer_parts: list[str] = field(default_factory=list)
    removes: Counter[str] = field(default_factory=Counter)
    attached: Counter[str] = field(default_factory=Counter)
    todos: tuple[TodoItem, ...] = ()
    # End-of-turn evidence (see the module docstring, "End of a turn").
    end_signal: bool = False  # a turn-end record, command or interrupt after the last work
    awaiting_agent: bool = False  # a tool result the agent has not answered yet
    msg_id: str = ""  # the last assistant message
    msg_stop: str = ""
    msg_text: bool = False
    msg_tool_use: bool = False
    ended: bool = False
    tool_words: int = 0  # request messages taken from tool results

    def adjust_words(self, text: str) -> None:
        """Add user words found in a tool result (an adjustment, design.md §3)."""
        if text.strip():
            self.request.append(text)
            self.tool_words += 1

    def adjust(self, text: str, source: str) -> None:
        """Add a mid-turn adjustment; a remove and an attachment of one delivery pair up."""
        if not text.strip() or text.lstrip().startswith(NOT_A_PROMPT):
            return
        mine, other = (
            (self.removes, self.attached)
            if source == "remove"
            else (
                self.attached,
                self.removes,
            )
        )
        if other[text] > 0:
            other[text] -= 1
            return
        mine[text] += 1
        self.request.append(text)


def _key(rec: dict[str, Any], offset: int) -> str:
    return _str(rec.get("uuid")) or _str(rec.get("timestamp")) or f"offset:{offset}"


class _Machine:
    """Forward state machine: feed records, get turns (shared by both readers)."""

    def __init__(self) -> None:
        self.state = TodoState()
        self.turns: list[_Acc] = []
        self.cur: _Acc | None = None
        self.lead_work = False  # agent work before any opening record
        self.lead_key = ""
        self.lead_offset = -1
        self.pending: tuple[int, dict[str, Any], str] | None = None  # command record
        self.queue: list[str] = []
        self.questions: set[str] = set()  # AskUserQuestion tool_use ids awaiting answers
        self.sidechain = 0  # sidechain user/assistant records (ignored)
        self.sidechain_key = ""
        self.main = 0  # main-thread user/assistant records

    def subagent_turn(self) -> Turn | None:
        """The one skipped turn of a file whose records are all sidechain, else None."""
        if self.main or not self.sidechain:
            return None
        return _subagent_turn(self.sidechain_key)

    # -- turn boundaries -------------------------------------------------
    def _close(self, *, next_opening: bool = True) -> None:
        cur = self.cur
        if cur is None:
            return
        cur.ended = next_opening or _ended(cur)
        self.state.flush()
        if cur.todo_source == "todowrite":
            cur.todos = self.state.todowrite
        elif cur.todo_source == "tasks":
            cur.todos = self.state.task_list()
        self.turns.append(cur)
        self.cur = None

    def _open(self, offset: int, key: str, opening: str, request: list[str]) -> None:
        self._close()
        self.cur = _Acc(offset, key, opening, request=request)

    def _expand_pending(self, expansion: str | None) -> None:
        assert self.pending is not None
        offset, rec, text = self.pending
        self.pending = None
        name_m = _COMMAND_NAME.search(text)
        args_m = _COMMAND_ARGS.search(text)
        name = name_m.group(1) if name_m else ""
        args = args_m.group(1).strip() if args_m else ""
        command = f"{name} {args}".strip()
        request: list[str] = []
        if expansion is None:
            request = [command] if command else []
        else:
            if args and args not in expansion:
                request.append(command)
            request.append(expansion)
        self._open(offset, _key(rec, offset), "slash-command", request)

    def _work(self, offset: int, rec: dict[str, Any]) -> _Acc | None:
        """Agent activity: returns the turn it belongs to (or notes lead work)."""
        if self.pending is not None:
            # A command answered by the agent without an isMeta expansion.
            self._expand_pending(None)
        if self.cur is None:
            if not self.turns and not self.lead_work:
                self.lead_work = True
                self.lead_key = self.lead_key or _key(rec, offset)
                if self.lead_offset < 0:
                    self.lead_offset = offset
            if not self.turns:
                self.cur = _Acc(self.lead_offset, self.lead_key, "missing")
        return self.cur

    # -- records ---------------------------------------------------------
    def feed(self, offset: int, rec: dict[str, Any]) -> None:
        rtype = rec.get("type")
        if rec.get("isSidechain") is True:
            if rtype in ("user", "assistant"):
                self.sidechain += 1
                self.sidechain_key = self.sidechain_key or _key(rec, offset)
            return
        if rtype in ("user", "assistant"):
            self.main += 1
        if rtype == "user":
            self._user(offset, rec)
        elif rtype == "assistant":
            self._assistant(offset, rec)
        elif rtype == "queue-operation":
            self._queue(rec)
        elif rtype == "system":
            if rec.get("subtype") in _TURN_END_SUBTYPES and self.cur is not None:
                self.cur.end_signal = True
            # 2.1.x may log a local command only as system/local_command records
            # (hosts.md (Claude Code), SPOTTER short.jsonl): its output ends a pending command.
            content = _str(rec.get("content")).lstrip()
            if rec.get("subtype") == "local_command" and content.startswith("<local-command-"):
                self.pending = None
        elif rtype == "attachment":
            att = _dict(rec.get("attachment"))
            if att.get("type") == "queued_command" and self.cur is not None:
                prompt = att.get("prompt")
                text = prompt if isinstance(prompt, str) else _text_of(_blocks({"content": prompt}))
                self.cur.adjust(text, "attachment")

    def _user(self, offset: int, rec: dict[str, Any]) -> None:
        kind, text = _classify_user(rec)
        if kind == "meta" and self.pending is not None:
            self._expand_pending(text)
            return
        if kind == "command":
            if self.pending is not None:
                self._expand_pending(None)
            if self.cur is not None:
                self.cur.end_signal = True  # the user typed a command: the agent had stopped
            self.pending = (offset, rec, text)
            return
        if kind == "prompt":
            self.pending = None
            self._open(offset, _key(rec, offset), "prompt", [text])
        elif kind == "task_notification":
            self.pending = None
            if self.cur is None:
                self._open(offset, _key(rec, offset), "task-notification", [])
            # Else: background work the turn waited for (its stop was deferred, or a
            # cron woke the session) continues that same turn (issue 8 item 6; hosts.md
            # §1.12): no new turn, the user's request stays the turn's request.
        elif kind == "other" and text == "" and self.pending is not None:
            # <local-command-stdout>/caveat after a command: a local command, not a turn.
            head = _text_of(_blocks(_dict(rec.get("message")))).lstrip()
            if head.startswith("<local-command-"):
                self.pending = None
        elif kind == "interrupt":
            if self.cur is not None:
                self.cur.last_event = "interrupt"
        elif kind == "compact_summary":
            if self.pending is not None:
                self.pending = None  # /compact: a local command
            if self.cur is None and not self.turns:
                self.lead_key = self.lead_key or _key(rec, offset)
                if self.lead_offset < 0:
                    self.lead_offset = offset
        elif kind == "tool_result":
            results = [
                b for b in _blocks(_dict(rec.get("message"))) if b.get("type") == "tool_result"
            ]
            # toolUseResult describes the record's one result; ambiguous with several.
            result = _dict(rec.get("toolUseResult")) if len(results) == 1 else {}
            for block in results:
                use_id = _str(block.get("tool_use_id"))
                self.state.tool_result(use_id, block, result)
                if self.cur is None:
                    continue
                self.cur.awaiting_agent = True
                self.cur.end_signal = False
                answers = question_answers(block, result) if use_id in self.questions else []
                self.questions.discard(use_id)
                for words in answers or [rejection_feedback(block)]:
                    self.cur.adjust_words(words)

    def _assistant(self, offset: int, rec: dict[str, Any]) -> None:
        message = _dict(rec.get("message"))
        cur = self._work(offset, rec)
        if cur is None:
            return
        cur.last_event = "assistant"
        cur.awaiting_agent = False
        cur.end_signal = False
        host_made = rec.get("isApiErrorMessage") is True or message.get("model") == "<synthetic>"
        msg_id = _str(message.get("id")) or _str(rec.get("requestId")) or _key(rec, offset)
        if msg_id != cur.msg_id:
            cur.msg_id, cur.msg_text, cur.msg_tool_use = msg_id, False, False
        cur.msg_stop = _str(message.get("stop_reason"))
        for block in _blocks(message):
            btype = block.get("type")
            if btype == "text":
                cur.msg_text = True
            if btype == "text" and not host_made:
                if msg_id != cur.answer_id:
                    cur.answer_id = msg_id
                    cur.answer_parts = []
                cur.answer_parts.append(_str(block.get("text")))
            elif btype == "tool_use":
                cur.msg_tool_use = True
                name = _str(block.get("name"))
                if name == "AskUserQuestion":
                    self.questions.add(_str(block.get("id")))
                if name in _TODO_TOOLS:
                    self.state.tool_use(name, _str(block.get("id")), _dict(block.get("input")))
                    cur.todo_source = "todowrite" if name == "TodoWrite" else "tasks"
                    cur.task_calls = cur.task_calls or name != "TodoWrite"

    def _queue(self, rec: dict[str, Any]) -> None:
        op = rec.get("operation")
        content = rec.get("content")
        text = content if isinstance(content, str) else ""
        if op == "enqueue":
            self.queue.append(text)
        elif op == "dequeue":
            if self.queue:
                self.queue.pop(0)
        elif op == "remove":
            if text and text in self.queue:
                self.queue.remove(text)
            elif self.queue:
                text = text or self.queue.pop(0)
            if self.cur is not None:
                self.cur.adjust(text, "remove")

    def finish(self) -> list[_Acc]:
        self._close(next_opening=False)
        return self.turns


def _ended(acc: _Acc) -> bool:
    """Whether the file shows the end of this (last) turn (module docstring)."""
    if acc.last_event == "interrupt" or acc.end_signal:
        return True
    if acc.awaiting_agent or acc.msg_tool_use:
        return False
    if acc.msg_stop == "end_turn":
        return True
    return acc.msg_stop == "" and acc.msg_text


def _answer(acc: _Acc) -> str:
    return "\n\n".join(p.strip() for p in acc.answer_parts if p.strip())


def _to_turn(acc: _Acc, number: int) -> Turn:
    todo_used = acc.todo_source != ""
    interrupted = acc.last_event == "interrupt"
    material: Material | None = Material(
        request=tuple(acc.request),
        todos=acc.todos if todo_used else (),
        final_answer=_answer(acc),
        todo_used=todo_used,
    )
    if interrupted:
        status, reason = "skipped", REASON_INTERRUPT
    elif acc.opening == "missing":
        status, reason, material = "missing", REASON_NO_OPENING, None
    elif not todo_used:
        status, reason = "skipped", REASON_NO_TODO
    elif len(acc.request) == acc.tool_words:
        # Answers to the agent's questions adjust a request; they never are one.
        status, reason, material = "missing", REASON_NOTIFICATION, None
    else:
        status, reason = "ready", ""
    return Turn(
        number=number,
        key=acc.key,
        material=material,
        todo_used=todo_used,
        status=status,
        reason=reason,
        ended_by_interrupt=interrupted,
        opening=acc.opening,
        ended=acc.ended,
    )


def _subagent_turn(key: str) -> Turn:
    return Turn(
        number=1,
        key=key or "subagent",
        material=None,
        todo_used=False,
        status="skipped",
        reason=REASON_SUBAGENT,
        ended_by_interrupt=False,
        opening="subagent",
    )


def is_subagent_path(path: Path) -> bool:
    """``…/subagents/agent-*.jsonl``: a subagent's own transcript (hosts.md (Claude Code), §2.6)."""
    return path.parent.name == "subagents" and path.name.startswith("agent-")


def scan(records: Iterable[tuple[int, dict[str, Any]]]) -> list[Turn]:
    """Turn ``(offset, record)`` pairs (in file order) into numbered turns.

    Pure: no I/O. Used by both readers and by tests on hand-built records. A file
    whose user/assistant records are all sidechain yields one skipped turn
    ("subagent transcript").
    """
    machine = _Machine()
    for offset, rec in records:
        machine.feed(offset, rec)
    accs = machine.finish()
    subagent = machine.subagent_turn()
    if subagent is not None:
        return [subagent]
    return [_to_turn(acc, n) for n, acc in enumerate(accs, start=1)]


def _scan_accs(records: Iterable[tuple[int, dict[str, Any]]]) -> list[_Acc]:
    machine = _Machine()
    for offset, rec in records:
        machine.feed(offset, rec)
    return machine.finish()


def read_turns(path: Path) -> list[Turn]:
    """Read every root turn of a Claude Code transcript, in order (design.md §2, §3).

    Bad lines (half-written, non-UTF-8, not JSON, not objects) are skipped. A
    subagent's transcript (``subagents/agent-*.jsonl``) is one skipped turn.

    Raises:
        UsageError: the file is missing or unreadable.
    """
    path = Path(path)
    if is_subagent_path(path):
        return [_subagent_turn(path.stem)]
    return scan(iter_records(path, LineStats()))


def _is_candidate(rec: dict[str, Any]) -> bool:
    if rec.get("type") != "user" or rec.get("isSidechain") is True:
        return False
    kind, _ = _classify_user(rec)
    return kind in ("prompt", "command")


def read_current_turn(path: Path) -> Turn:
    """Read the last root turn, backwards from the end of the file (the Stop hook path).

    Records are read from the end only as far back as the current turn's opening
    record, so a Stop on a huge transcript costs about what its last turn costs.
    Exception (documented): when the turn used ``TaskCreate``/``TaskUpdate`` the
    task list may hold tasks of earlier turns (hosts.md (Claude Code): the list is per
    session), so the whole file is read forwards. The result equals
    ``read_turns(path)[-1]`` with ``number=0``.

    Raises:
        UsageError: the file is missing or unreadable.
        MaterialMissing: the transcript holds no turn yet.
    """
    path = Path(path)
    if is_subagent_path(path):
        return replace(_subagent_turn(path.stem), number=0)
    stats = LineStats()
    collected: list[tuple[int, dict[str, Any]]] = []  # newest first
    accs: list[_Acc] | None = None
    for offset, rec in iter_records_backward(path, stats):
        collected.append((offset, rec))
        if _is_candidate(rec):
            trial = _scan_accs(reversed(collected))
            if trial and trial[0].offset == offset:
                accs = trial
                break
    if accs is None:
        machine = _Machine()
        for offset, rec in reversed(collected):
            machine.feed(offset, rec)
        accs = machine.finish()
        subagent = machine.subagent_turn()
        if subagent is not None:
            return replace(subagent, number=0)
    if not accs:
        raise no_turn_error(path)
    last = accs[-1]
    if last.task_calls:
        turns = read_turns(path)
        if not turns:
            raise no_turn_error(path)
        return _renumber(turns[-1])
    return _to_turn(last, 0)


def _renumber(turn: Turn) -> Turn:
    return replace(turn, number=0)
