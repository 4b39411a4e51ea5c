"""Turns of a Codex CLI rollout file (JSONL) — design.md §2, §3; hosts.md (Codex CLI).

Stdlib only: a Codex Stop hook imports this on its fast path.

Each line is ``{timestamp, type, payload}`` (hosts.md (Codex CLI)). Rules:

* **Turn boundaries.** ``event_msg`` ``task_started`` opens a turn (key: its
  ``turn_id``) and ``task_complete`` / ``turn_aborted`` closes it (0.104 file).
  Versions without those events (0.58 file) open a turn at each ``event_msg``
  ``user_message`` (key: its timestamp). A ``user_message`` inside an open
  ``task_started`` turn is a mid-turn adjustment (0.104 turns 11, 14, 26, 33).
* **Request** = the ``event_msg`` ``user_message`` ``payload.message`` texts, never
  the ``response_item`` user copy, which carries injected context (hosts.md
  §3.1). A ``<hook_prompt …>`` text is a Stop-hook continuation, never a request
  (hosts.md (Codex CLI)).
* **Codex ≥ 0.169** (the real 0.169.0 CLI, hosts.md §0a [M]) writes no
  ``user_message``/``agent_message`` events: ``event_msg`` ``item_completed``
  carries ``item.type`` ``UserMessage`` (``content[].text``, the request),
  ``AgentMessage`` (``content[].text`` of ``type: "Text"`` blocks, an answer) and
  ``HookPrompt`` (``fragments[].text``, a Stop-hook continuation such as Jev's own
  supplement, never a request); records gain an ``ordinal``. Both layouts are read;
  a ``UserMessage`` repeating the ``user_message`` just read is not counted twice.
* **Todo** = the latest ``response_item`` ``function_call`` ``update_plan`` in
  the turn: ``arguments`` is a JSON *string* ``{"explanation"?, "plan": [{"step",
  "status"}]}`` carrying the whole plan (hosts.md (Codex CLI)); ``step`` -> content. When
  the latest call's arguments are not that JSON (the 0.104 fixture is redacted),
  the turn is ``missing`` with a reason — nothing is invented.
* **Final answer** = ``task_complete.last_agent_message`` when present, else the
  last ``event_msg`` ``agent_message`` (or ``item_completed`` ``AgentMessage``, Codex
  ≥ 0.169), else the last ``response_item`` assistant
  message's ``output_text``. A turn with none (the 0.58 recording stops mid-turn)
  has an empty final answer and is still auditable: design.md §3 allows an empty answer.
* **Interrupt**: ``turn_aborted`` -> ``ended_by_interrupt`` (skipped).
* **End of a turn** (``Turn.ended``): ``task_complete``/``turn_aborted``, or a later
  turn's opening; else the turn's last agent item is an assistant message that is
  a final answer (``phase: "final_answer"``, or no ``phase`` in versions without
  it). The 0.58 recording stops on a ``shell`` call: its turn has not ended.
* Compaction inside a turn (``compacted``) keeps the turn: its ``user_message``
  stays in the file.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from jev.base.domain import TodoItem
from jev.evidence.runs import Run
from jev.hosts.codex.runs import SHELL_CALLS, shell_command, shell_run
from jev.hosts.turns import (
    LineStats,
    Turn,
    build_turn,
    iter_records,
    iter_records_backward,
    no_turn_error,
)

__all__ = ["parse_plan", "read_current_turn", "read_turns", "scan"]

_STATUSES = frozenset({"pending", "in_progress", "completed"})
REASON_PLAN_UNREADABLE = (
    "material missing: the turn's latest update_plan arguments are not readable plan "
    "JSON, so the Todo list cannot be obtained"
)


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def parse_plan(arguments: Any) -> tuple[TodoItem, ...] | None:
    """Parse ``update_plan`` arguments (a JSON string, hosts.md (Codex CLI)) into Todo items.

    Returns:
        The plan's items (``step`` -> content; an unknown status counts as
        ``pending``), or ``None`` when the arguments are not a JSON object with a
        ``plan`` list of objects carrying a string ``step``.
    """
    data: Any = arguments
    if isinstance(arguments, str):
        try:
            data = json.loads(arguments)
        except (ValueError, RecursionError):
            return None
    plan = _dict(data).get("plan")
    if not isinstance(plan, list):
        return None
    items: list[TodoItem] = []
    for entry in plan:
        step = _dict(entry).get("step")
        if not isinstance(step, str):
            return None
        status = _str(_dict(entry).get("status"))
        items.append(TodoItem(step, status if status in _STATUSES else "pending"))
    return tuple(items)


def _item_text(item: dict[str, Any]) -> str:
    """The text of a ``UserMessage``/``AgentMessage`` item: its ``content`` blocks'
    ``text`` (``type`` ``text`` or ``Text``; other block types such as images are
    left out), joined with no separator."""
    content = item.get("content")
    blocks = content if isinstance(content, list) else []
    return "".join(
        _str(_dict(b).get("text"))
        for b in blocks
        if _str(_dict(b).get("type")).lower() in ("text", "")
    )


def _item_user_text(payload: dict[str, Any]) -> str:
    """The request text of an ``event_msg`` payload (``user_message`` or an
    ``item_completed`` ``UserMessage``), else ``""``."""
    ptype = payload.get("type")
    if ptype == "user_message":
        return _str(payload.get("message"))
    item = _dict(payload.get("item"))
    if ptype == "item_completed" and item.get("type") == "UserMessage":
        return _item_text(item)
    return ""


@dataclass
class _Acc:
    offset: int
    key: str
    explicit: bool  # opened by task_started
    request: list[str] = field(default_factory=list)
    closed: bool = False
    aborted: bool = False
    todo_used: bool = False
    todos: tuple[TodoItem, ...] | None = ()  # None: latest plan unreadable
    last_agent: str | None = None  # task_complete.last_agent_message
    agent_message: str = ""
    assistant_item: str = ""
    final_last: bool = False  # the last agent item is a final-answer message
    from_event: bool = False  # the last request text came from a user_message event
    shell: dict[str, str] = field(default_factory=dict)  # call_id -> command (issue 21)
    runs: list[Run] = field(default_factory=list)


class _Machine:
    def __init__(self) -> None:
        self.turns: list[_Acc] = []
        self.cur: _Acc | None = None

    def _open(self, offset: int, key: str, explicit: bool) -> _Acc:
        if self.cur is not None:
            self.turns.append(self.cur)
        self.cur = _Acc(offset, key, explicit)
        return self.cur

    def feed(self, offset: int, rec: dict[str, Any]) -> None:
        payload = _dict(rec.get("payload"))
        ptype = payload.get("type")
        if rec.get("type") == "event_msg":
            if ptype == "task_started":
                key = _str(payload.get("turn_id")) or _str(rec.get("timestamp"))
                self._open(offset, key or f"offset:{offset}", True)
            elif ptype == "user_message":
                self._user(offset, rec, _str(payload.get("message")), from_event=True)
            elif ptype in ("task_complete", "turn_aborted"):
                if self.cur is not None:
                    self.cur.closed = True
                    self.cur.aborted = ptype == "turn_aborted"
                    last = payload.get("last_agent_message")
                    if isinstance(last, str):
                        self.cur.last_agent = last
            elif ptype == "agent_message" and self.cur is not None:
                self.cur.agent_message = _str(payload.get("message"))
            elif ptype == "item_completed":
                self._item(offset, rec, _dict(payload.get("item")))
        elif rec.get("type") == "response_item" and self.cur is not None:
            if ptype in ("function_call", "custom_tool_call", "local_shell_call"):
                self.cur.final_last = False
            elif ptype == "message" and payload.get("role") == "assistant":
                self.cur.final_last = payload.get("phase") in (None, "final_answer")
            if ptype == "function_call" and payload.get("name") in SHELL_CALLS:
                command = shell_command(payload.get("arguments"))
                if command is not None:
                    self.cur.shell[_str(payload.get("call_id"))] = command
            elif ptype == "function_call_output" and _str(payload.get("call_id")) in self.cur.shell:
                command = self.cur.shell.pop(_str(payload.get("call_id")))
                run = shell_run(command, payload.get("output"))
                if run is not None:
                    self.cur.runs.append(run)
            if ptype == "function_call" and payload.get("name") == "update_plan":
                self.cur.todo_used = True
                self.cur.todos = parse_plan(payload.get("arguments"))
            elif ptype == "message" and payload.get("role") == "assistant":
                content = payload.get("content")
                blocks = content if isinstance(content, list) else []
                text = "".join(
                    _str(_dict(b).get("text"))
                    for b in blocks
                    if _dict(b).get("type") == "output_text"
                )
                if text:
                    self.cur.assistant_item = text

    def _item(self, offset: int, rec: dict[str, Any], item: dict[str, Any]) -> None:
        """An ``item_completed`` item of Codex ≥ 0.169 (see the module docstring)."""
        kind = item.get("type")
        if kind == "UserMessage":
            text = _item_text(item)
            cur = self.cur
            if cur is not None and cur.from_event and cur.request and cur.request[-1] == text:
                cur.from_event = False
                return  # the same message as the user_message event just read
            self._user(offset, rec, text)
        elif kind == "AgentMessage" and self.cur is not None:
            text = _item_text(item)
            if text:
                self.cur.agent_message = text
        # HookPrompt: a Stop-hook continuation (Jev's supplement), never a request.

    def _user(
        self, offset: int, rec: dict[str, Any], text: str, *, from_event: bool = False
    ) -> None:
        if not text.strip() or text.lstrip().startswith("<hook_prompt"):
            return
        cur = self.cur
        if cur is None or not cur.explicit or cur.closed:
            key = _str(rec.get("timestamp")) or f"offset:{offset}"
            cur = self._open(offset, key, False)
        # The opening message, or an adjustment sent while the turn runs.
        cur.request.append(text)
        cur.from_event = from_event

    def finish(self) -> list[_Acc]:
        if self.cur is not None:
            self.turns.append(self.cur)
            self.cur = None
        return self.turns


def _to_turn(acc: _Acc, number: int, *, last: bool = False) -> Turn:
    if acc.last_agent is not None:
        answer = acc.last_agent
    else:
        answer = acc.agent_message or acc.assistant_item
    if not acc.request:
        no_request = "material missing: the turn's user message is not in the rollout"
    else:
        no_request = REASON_PLAN_UNREADABLE if acc.todos is None else ""
    return build_turn(
        number,
        acc.key,
        "prompt" if acc.request else "missing",
        request=acc.request,
        todos=acc.todos or (),
        final_answer=answer,
        todo_used=acc.todo_used,
        interrupted=acc.aborted,
        no_request=no_request,
        ended=acc.closed or not last or acc.final_last,
        runs=acc.runs,
    )


def _accs(records: Iterable[tuple[int, dict[str, Any]]]) -> list[_Acc]:
    machine = _Machine()
    for offset, rec in records:
        machine.feed(offset, rec)
    return machine.finish()


def scan(records: Iterable[tuple[int, dict[str, Any]]]) -> list[Turn]:
    """Turn ``(offset, record)`` pairs (in file order) into numbered turns. Pure."""
    accs = _accs(records)
    return [_to_turn(acc, n, last=n == len(accs)) for n, acc in enumerate(accs, start=1)]


def read_turns(path: Path, stats: LineStats | None = None) -> list[Turn]:
    """Read every turn of a Codex rollout, in order (design.md §2, §3; hosts.md (Codex CLI)).

    ``stats`` (optional) receives the counts of the lines read (lone surrogates
    replaced, bad lines skipped).

    Raises:
        UsageError: the file is missing or unreadable.
    """
    return scan(iter_records(Path(path), stats if stats is not None else LineStats()))


def read_current_turn(path: Path, stats: LineStats | None = None) -> Turn:
    """Read the last turn, backwards from the end of the rollout (the Stop hook path).

    Reading stops at the current turn's ``task_started``, or at the previous
    turn's ``task_complete``/``turn_aborted``. Rollouts written before those events
    existed (≤ 0.58) have no such stopping point and are read whole (documented
    cost). The result equals ``read_turns(path)[-1]`` with ``number=0``. ``stats``
    (optional) receives the counts of the lines read.

    Raises:
        UsageError: the file is missing or unreadable.
        MaterialMissing: the rollout holds no turn yet.
    """
    path = Path(path)
    collected: list[tuple[int, dict[str, Any]]] = []
    seen_user = False
    for offset, rec in iter_records_backward(path, stats if stats is not None else LineStats()):
        payload = _dict(rec.get("payload"))
        if rec.get("type") == "event_msg":
            ptype = payload.get("type")
            if ptype in ("task_complete", "turn_aborted") and seen_user:
                break  # the previous turn's end: the current turn opened after it
            collected.append((offset, rec))
            if ptype == "task_started":
                break
            if ptype in ("user_message", "item_completed"):
                text = _item_user_text(payload)
                seen_user = seen_user or (
                    bool(text.strip()) and not text.lstrip().startswith("<hook_prompt")
                )
            continue
        collected.append((offset, rec))
    accs = _accs(reversed(collected))
    if not accs:
        raise no_turn_error(path)
    return replace(_to_turn(accs[-1], 0, last=True), number=0)
