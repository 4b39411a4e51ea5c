"""The Claude Code transcript state machine: feed records in file order, get the turns
being assembled, then the :class:`~jev.hosts.turns.Turn` of each (design.md §2, §3;
hosts.md (Claude Code)).

The rules it applies (what opens a turn, what is not a turn, mid-turn adjustments,
user words inside tool results, the end of a turn, interrupts, the final answer, a
missing opening) are listed in :mod:`jev.hosts.claude_code.transcript`, which reads the files;
the Todo state is :class:`jev.hosts.ccformat.todos.TodoState`. Pure: no I/O. Stdlib only.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from jev.base.domain import TodoItem
from jev.evidence.runs import Run
from jev.hosts.ccformat.records import (
    NOT_A_PROMPT,
    TODO_TOOLS,
    blocks_of,
    classify_user,
    question_answers,
    rejection_feedback,
    text_of,
)
from jev.hosts.ccformat.todos import TodoState
from jev.hosts.readkit import as_dict, as_str
from jev.hosts.turns import REASON_NO_OPENING, Turn, build_turn

__all__ = [
    "REASON_NOTIFICATION",
    "REASON_SUBAGENT",
    "Machine",
    "TurnAcc",
    "scan",
    "scan_accs",
    "shell_run",
    "subagent_turn",
    "to_turn",
]

REASON_SUBAGENT = "subagent transcript"
REASON_NOTIFICATION = (
    "material missing: the turn was opened by a background-task notification, not by a user request"
)

_TURN_END_SUBTYPES = frozenset({"stop_hook_summary", "turn_duration"})
_COMMAND_NAME = re.compile(r"<command-name>\s*(.*?)\s*</command-name>", re.S)
_COMMAND_ARGS = re.compile(r"<command-args>(.*?)</command-args>", re.S)


@dataclass
class TurnAcc:
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
    shell: dict[str, str] = field(default_factory=dict)  # Bash tool_use id -> command
    runs: list[Run] = field(default_factory=list)  # finished Bash runs (issue 21)

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
    return as_str(rec.get("uuid")) or as_str(rec.get("timestamp")) or f"offset:{offset}"


class Machine:
    """Forward state machine: feed records, get turns (shared by both readers)."""

    def __init__(self) -> None:
        self.state = TodoState()
        self.turns: list[TurnAcc] = []
        self.cur: TurnAcc | None = None
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
        return subagent_turn(self.sidechain_key)

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
        self.cur = TurnAcc(offset, key, opening, request=request)

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

    def _work(self, offset: int, rec: dict[str, Any]) -> TurnAcc | None:
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
                self.cur = TurnAcc(self.lead_offset, self.lead_key, "missing")
        return self.cur

    # -- records ---------------------------------------------------------
    def feed(self, offset: int, rec: dict[str, Any]) -> None:
        """Take one record (``offset``: its byte offset or index in the file)."""
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
            content = as_str(rec.get("content")).lstrip()
            if rec.get("subtype") == "local_command" and content.startswith("<local-command-"):
                self.pending = None
        elif rtype == "attachment":
            att = as_dict(rec.get("attachment"))
            if att.get("type") == "queued_command" and self.cur is not None:
                prompt = att.get("prompt")
                text = (
                    prompt if isinstance(prompt, str) else text_of(blocks_of({"content": prompt}))
                )
                self.cur.adjust(text, "attachment")

    def _user(self, offset: int, rec: dict[str, Any]) -> None:
        kind, text = classify_user(rec)
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
            head = text_of(blocks_of(as_dict(rec.get("message")))).lstrip()
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
                b for b in blocks_of(as_dict(rec.get("message"))) if b.get("type") == "tool_result"
            ]
            # toolUseResult describes the record's one result; ambiguous with several.
            result = as_dict(rec.get("toolUseResult")) if len(results) == 1 else {}
            for block in results:
                use_id = as_str(block.get("tool_use_id"))
                self.state.tool_result(use_id, block, result)
                if self.cur is None:
                    continue
                if use_id in self.cur.shell:
                    run = shell_run(self.cur.shell.pop(use_id), block)
                    if run is not None:
                        self.cur.runs.append(run)
                self.cur.awaiting_agent = True
                self.cur.end_signal = False
                answers = question_answers(block, result) if use_id in self.questions else []
                self.questions.discard(use_id)
                for words in answers or [rejection_feedback(block)]:
                    self.cur.adjust_words(words)

    def _assistant(self, offset: int, rec: dict[str, Any]) -> None:
        message = as_dict(rec.get("message"))
        cur = self._work(offset, rec)
        if cur is None:
            return
        cur.last_event = "assistant"
        cur.awaiting_agent = False
        cur.end_signal = False
        host_made = rec.get("isApiErrorMessage") is True or message.get("model") == "<synthetic>"
        msg_id = as_str(message.get("id")) or as_str(rec.get("requestId")) or _key(rec, offset)
        if msg_id != cur.msg_id:
            cur.msg_id, cur.msg_text, cur.msg_tool_use = msg_id, False, False
        cur.msg_stop = as_str(message.get("stop_reason"))
        for block in blocks_of(message):
            btype = block.get("type")
            if btype == "text":
                cur.msg_text = True
            if btype == "text" and not host_made:
                if msg_id != cur.answer_id:
                    cur.answer_id = msg_id
                    cur.answer_parts = []
                cur.answer_parts.append(as_str(block.get("text")))
            elif btype == "tool_use":
                cur.msg_tool_use = True
                name = as_str(block.get("name"))
                if name == "AskUserQuestion":
                    self.questions.add(as_str(block.get("id")))
                if name == "Bash":
                    command = as_dict(block.get("input")).get("command")
                    background = as_dict(block.get("input")).get("run_in_background") is True
                    if isinstance(command, str) and not background:
                        cur.shell[as_str(block.get("id"))] = command
                if name in TODO_TOOLS:
                    self.state.tool_use(name, as_str(block.get("id")), as_dict(block.get("input")))
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

    def finish(self) -> list[TurnAcc]:
        """Close the last turn; the turns being assembled, in file order."""
        self._close(next_opening=False)
        return self.turns


def _ended(acc: TurnAcc) -> bool:
    """Whether the file shows the end of this (last) turn (module docstring)."""
    if acc.last_event == "interrupt" or acc.end_signal:
        return True
    if acc.awaiting_agent or acc.msg_tool_use:
        return False
    if acc.msg_stop == "end_turn":
        return True
    return acc.msg_stop == "" and acc.msg_text


def _answer(acc: TurnAcc) -> str:
    return "\n\n".join(p.strip() for p in acc.answer_parts if p.strip())


def to_turn(acc: TurnAcc, number: int) -> Turn:
    """The :class:`Turn` numbered ``number`` of an assembled turn (statuses: module
    docstring of :mod:`jev.hosts.claude_code.transcript`)."""
    return build_turn(
        number,
        acc.key,
        acc.opening,
        request=acc.request,
        todos=acc.todos,
        final_answer=_answer(acc),
        todo_used=acc.todo_source != "",
        interrupted=acc.last_event == "interrupt",
        no_opening=REASON_NO_OPENING if acc.opening == "missing" else "",
        # Answers to the agent's questions adjust a request; they never are one.
        no_request=REASON_NOTIFICATION if len(acc.request) == acc.tool_words else "",
        ended=acc.ended,
        runs=acc.runs,
    )


_EXIT_CODE = re.compile(r"\AExit code (-?\d+)\r?\n?")


def shell_run(command: str, block: dict[str, Any]) -> Run | None:
    """The :class:`~jev.evidence.runs.Run` of a ``Bash`` tool_result block (issue 21;
    hosts.md (Claude Code)): not ``is_error`` → exit 0; ``is_error`` with the host's
    leading ``Exit code N`` line → N, that line dropped from the output; any other
    error (a rejected or interrupted call) ran nothing, and a call the host sent to the
    background has no outcome here: ``None``."""
    content = block.get("content")
    text = content if isinstance(content, str) else text_of(blocks_of({"content": content}))
    if text.startswith("Command running in background"):
        return None  # auto-backgrounded: its outcome is not in this result
    if block.get("is_error") is not True:
        return Run(command, 0, text)
    code = _EXIT_CODE.match(text)
    if code is None:
        return None
    return Run(command, int(code.group(1)), text[code.end() :])


def subagent_turn(key: str) -> Turn:
    """The one skipped turn of a subagent's transcript (``key``: its first record's)."""
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


def scan_accs(records: Iterable[tuple[int, dict[str, Any]]]) -> list[TurnAcc]:
    """The turns assembled from ``(offset, record)`` pairs in file order."""
    machine = Machine()
    for offset, rec in records:
        machine.feed(offset, rec)
    return machine.finish()


def scan(records: Iterable[tuple[int, dict[str, Any]]]) -> list[Turn]:
    """Turn ``(offset, record)`` pairs (in file order) into numbered turns.

    Pure: no I/O. Used by both readers and by tests on hand-built records. A file
    whose user/assistant records are all sidechain yields one skipped turn
    ("subagent transcript").
    """
    machine = Machine()
    for offset, rec in records:
        machine.feed(offset, rec)
    accs = machine.finish()
    subagent = machine.subagent_turn()
    if subagent is not None:
        return [subagent]
    return [to_turn(acc, n) for n, acc in enumerate(accs, start=1)]
