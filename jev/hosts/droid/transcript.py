"""Turns of a Factory Droid session (JSONL) — design.md §2, §3; hosts.md (other hosts).

Stdlib only: the Droid stop hook imports this on its path.

Droid's hooks are Claude-style (docs.factory.ai hooks reference [V]); its session
file, ``~/.factory/sessions/<workspace slug>/<uuid>.jsonl``, is described only by
third-party readers [S]: a ``{"type": "session_start", "id", "title", "cwd", …}`` line,
then ``{"type": "message", "id", "timestamp", "message": {"role": "user"|"assistant",
"content": [blocks]}}`` lines whose blocks are Claude's (``text``, ``tool_use`` with
``id``/``name``/``input``, ``tool_result``); other line types (``todo_state``, …) are
skipped. Because the message content is Claude's, each message line is rewritten into
a Claude Code record (``type`` = role, ``uuid`` = ``id``) and read by
:func:`jev.hosts.ccformat.machine.scan`, so turn boundaries, adjustments, interrupts,
``TodoWrite`` and the final answer follow exactly the Claude Code rules.

``TodoWrite`` input is Claude's ``{todos: [{content, status, …}]}``; a ``todos`` given
as one text (``1. [completed] …`` / ``- [x] …`` lines, a form some Droid builds are
reported to use [U]) is turned into that list first. A message that is Jev's own
supplement is Claude Code's "Stop hook feedback" case: it continues the turn.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from jev.hosts.ccformat.machine import scan
from jev.hosts.readkit import as_dict, as_list, as_str, is_jev_supplement
from jev.hosts.turns import Turn, json_lines, last_turn

__all__ = ["claude_records", "parse_todo_text", "read_current_turn", "read_turns"]

_LINE = re.compile(
    r"^\s*(?:\d+[.)]|[-*])\s*\[(?P<mark>[^\]]*)\]\s*(?P<text>.+?)\s*$",
)
_MARKS = {
    "x": "completed",
    "completed": "completed",
    "done": "completed",
    " ": "pending",
    "": "pending",
    "pending": "pending",
    "-": "in_progress",
    "~": "in_progress",
    "in_progress": "in_progress",
    "in progress": "in_progress",
}


def parse_todo_text(text: str) -> list[dict[str, str]]:
    """``1. [completed] Do X`` / ``- [x] Do X`` lines -> Claude ``todos`` items.

    A mark Jev does not know keeps its word in front of the content (the item counts
    as ``pending``), so nothing is silently marked done.
    """
    items: list[dict[str, str]] = []
    for line in text.splitlines():
        found = _LINE.match(line)
        if not found:
            continue
        mark = found.group("mark").strip().lower()
        status = _MARKS.get(mark)
        content = found.group("text")
        if status is None:
            status, content = "pending", f"[{mark}] {content}"
        items.append({"content": content, "status": status})
    return items


def _normalise_blocks(blocks: list[Any], supplement: bool) -> list[Any]:
    out: list[Any] = []
    for block in blocks:
        if isinstance(block, dict) and block.get("type") == "tool_use":
            data = as_dict(block.get("input"))
            if block.get("name") == "TodoWrite" and isinstance(data.get("todos"), str):
                block = {**block, "input": {**data, "todos": parse_todo_text(data["todos"])}}
        if supplement and isinstance(block, dict) and block.get("type") == "text":
            block = {**block, "text": "Stop hook feedback:\n" + as_str(block.get("text"))}
        out.append(block)
    return out


def claude_records(records: Iterable[dict[str, Any]]) -> Iterator[tuple[int, dict[str, Any]]]:
    """Droid lines -> ``(index, Claude Code record)`` pairs for
    :func:`jev.hosts.ccformat.machine.scan`. Lines that are not messages are dropped."""
    for index, rec in enumerate(records):
        if rec.get("type") != "message":
            continue
        message = as_dict(rec.get("message"))
        role = message.get("role")
        if role not in ("user", "assistant"):
            continue
        content = message.get("content")
        blocks = (
            [{"type": "text", "text": content}] if isinstance(content, str) else as_list(content)
        )
        text = "".join(
            as_str(b.get("text")) for b in blocks if isinstance(b, dict) and b.get("type") == "text"
        )
        supplement = role == "user" and is_jev_supplement(text)
        rid = as_str(rec.get("id")) or f"line-{index}"
        yield (
            index,
            {
                "type": role,
                "uuid": rid,
                "timestamp": rec.get("timestamp"),
                "isSidechain": rec.get("isSidechain") is True,
                "message": {
                    **message,
                    "id": as_str(message.get("id")) or rid,
                    "content": _normalise_blocks(blocks, supplement),
                },
            },
        )


def read_turns(path: str | Path) -> list[Turn]:
    """Every root turn of a Droid session file, by the Claude Code rules (design.md §2, §3).

    Raises:
        UsageError: the file is missing or unreadable.
    """
    return scan(claude_records(rec for _, rec in json_lines(Path(path))))


def read_current_turn(path: str | Path) -> Turn:
    """The last root turn (``number`` 0).

    Raises:
        UsageError: unreadable file.
        MaterialMissing: no turn yet.
    """
    return last_turn(read_turns(path), path)
