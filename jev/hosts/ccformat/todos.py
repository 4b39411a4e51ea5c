"""The Todo state of a Claude Code session while its transcript is scanned — design.md
§3; hosts.md (Claude Code) "Todo tools".

``TodoWrite`` (old ``id/priority`` and new ``activeForm`` item shapes; the latest call's
``input.todos`` is the list) and ``TaskCreate``/``TaskUpdate``: the task list is per
session, rebuilt from every call in the file (TaskCreate subject -> ``pending`` item
whose id comes from the paired tool_result ``toolUseResult.task.id`` or the text ``Task
#N created successfully``; TaskUpdate ``taskId``/``task_id``/``id``, ``status``,
``subject``; ``deleted`` drops the item). A ``TaskCreate`` whose id already exists
means the host started a fresh list (``--resume``/``--continue``): the old tasks are
dropped. Used by :mod:`jev.hosts.ccformat.machine`. Stdlib only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from jev.base.domain import TodoItem
from jev.hosts.readkit import as_dict, as_str

__all__ = ["TodoState"]

_TASK_CREATED = re.compile(r"Task #(\w+) created")
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


def _status(value: Any) -> str:
    """Map a host status to one of pending / in_progress / completed.

    Unknown statuses (none are documented for Claude Code) count as ``pending``:
    an item not known to be done is not done.
    """
    return _STATUS_ALIASES.get(as_str(value).strip().lower(), "pending")


def _block_text(content: Any) -> str:
    """Text of a tool_result's ``content`` (a string or a list of text blocks)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(as_str(as_dict(b).get("text")) for b in content)
    return ""


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
                TodoItem(as_str(as_dict(t).get("content")), _status(as_dict(t).get("status")))
                for t in items
                if isinstance(t, dict)
            )
        elif name == "TaskCreate":
            subject = as_str(data.get("subject")) or as_str(data.get("title"))
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
            task = as_dict(result.get("task"))
            task_id = as_str(task.get("id")) or str(task.get("id") or "")
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
        status = as_str(data.get("status")).strip().lower()
        if status == "deleted":
            del self.tasks[task_id]
            return
        if status:
            task[1] = _status(status)
        subject = as_str(data.get("subject"))
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
        """The task list built from ``TaskCreate``/``TaskUpdate``, in creation order."""
        return tuple(TodoItem(subject, status) for subject, status in self.tasks.values())
