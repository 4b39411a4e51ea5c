"""Turns of a Cursor agent transcript — design.md §2, §3; hosts.md (Cursor).

Stdlib only: the Cursor stop hook imports this on its path.

Cursor is closed source; the shapes below are secondhand (hosts.md (Cursor) [S]/[U]:
third-party parsers and a recorded ``cursor-agent`` probe), so the reader tolerates
missing and unknown fields.

**The file.** Builds since about Feb 2026 write
``~/.cursor/projects/<slug>/agent-transcripts/<uuid>/<uuid>.jsonl``, one object per
line: ``{"role": "user"|"assistant", "message": {"content": [blocks]}}`` with ``text``
and ``tool_use`` (``name``, ``input``) blocks, and ``{"type": "turn_ended", "status":
…}`` marker lines. Older builds wrote ``<uuid>.txt`` (``user:``/``assistant:`` markers,
``[Tool call] Name`` lines); that form carries no machine-readable Todo calls, so it is
refused with :class:`OldTranscriptForm`, which says so plainly.

**Turns.** A user line opens a turn; its request is the text inside
``<user_query>…</user_query>`` (the whole text when there is no wrapper). A user line
whose query is Jev's own supplement (Cursor submits ``followup_message`` as the next
user message, hosts.md (Cursor)) continues the open turn: same key, same request, same
budget (design.md §3, §8). The turn key is ``line:<n>`` of the opening line (the file
carries no message ids); with the session id it is stable across re-reads because
the file is append-only.

**Todo list.** ``TodoWrite``/``todo_write`` ``{merge, todos: [{id, content,
status}]}``: ``merge: false`` (or absent) replaces the list; ``merge: true`` updates
items by ``id`` (given fields only) and appends new ids. The list is folded across the
whole file (session state); ``todo_used`` counts calls in this turn only. Statuses
``pending|in_progress|completed|cancelled``; ``cancelled`` keeps its word
(:func:`jev.hosts.readkit.marked_item`).

**Final answer.** The text of the turn's last assistant line with text.
``turn_ended`` marks the turn as finished (``Turn`` is the same either way; the stop
hook fires at that point).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jev.base.domain import TodoItem
from jev.base.errors import MaterialMissing
from jev.hosts.readkit import (
    SupplementTest,
    as_dict,
    as_list,
    as_str,
    is_jev_supplement,
    marked_item,
)
from jev.hosts.turns import Turn, TurnDraft, json_lines, last_turn, no_turn_error

__all__ = [
    "TODO_TOOLS",
    "OldTranscriptForm",
    "current_turn_and_followups",
    "followups_in_current_turn",
    "is_old_form",
    "read_current_turn",
    "read_turns",
    "scan",
    "user_query",
]

#: Cursor's Todo tool names as seen in transcripts and tool lists.
TODO_TOOLS = frozenset({"TodoWrite", "todo_write"})

_STATUS = {"pending": "pending", "in_progress": "in_progress", "completed": "completed"}
_QUERY = re.compile(r"<user_query>\s*(.*?)\s*</user_query>", re.S)


class OldTranscriptForm(MaterialMissing):
    """The Cursor transcript is the older ``.txt`` form, which Jev does not read."""

    kind = "cursor-old-transcript"


def is_old_form(path: Path) -> bool:
    """True for the pre-2026 ``.txt`` agent transcript (``user:`` / ``assistant:`` lines)."""
    if path.suffix == ".txt":
        return True
    try:
        with path.open("rb") as handle:
            head = handle.read(4096).decode("utf-8", errors="replace").lstrip("\ufeff \r\n\t")
    except OSError:
        return False
    return head.startswith(("user:", "assistant:"))


def _old_form_error(path: Path) -> OldTranscriptForm:
    return OldTranscriptForm(
        f"{path} is an older Cursor agent transcript (.txt, 'user:'/'assistant:' lines) "
        "with no machine-readable Todo calls; Jev reads the JSONL transcripts that Cursor "
        "writes since about Feb 2026. Update Cursor to audit its turns."
    )


def _text(blocks: list[Any]) -> str:
    return "".join(
        as_str(b.get("text")) for b in blocks if isinstance(b, dict) and b.get("type") == "text"
    )


def _blocks(rec: dict[str, Any]) -> list[Any]:
    content = as_dict(rec.get("message")).get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return as_list(content)


def user_query(text: str) -> str:
    """The user's words of a Cursor user message: the ``<user_query>`` contents
    (joined by blank lines when there are several), else the whole text, stripped."""
    found = [m.strip() for m in _QUERY.findall(text)]
    if found:
        return "\n\n".join(f for f in found if f)
    return text.strip()


@dataclass
class _Todos:
    """The folded Todo list: id -> [content, status], in first-seen order."""

    items: dict[str, list[str]] = field(default_factory=dict)

    def apply(self, data: dict[str, Any]) -> None:
        todos = [t for t in as_list(data.get("todos")) if isinstance(t, dict)]
        if data.get("merge") is not True:
            self.items = {}
        for n, todo in enumerate(todos):
            raw_id = todo.get("id")
            key = str(raw_id) if isinstance(raw_id, (str, int)) else f"#{len(self.items) + n}"
            item = self.items.get(key)
            if item is None:
                self.items[key] = [as_str(todo.get("content")), as_str(todo.get("status"))]
                continue
            if isinstance(todo.get("content"), str):
                item[0] = todo["content"]
            if isinstance(todo.get("status"), str):
                item[1] = todo["status"]

    def list(self) -> tuple[TodoItem, ...]:
        return tuple(marked_item(c, s or "pending", _STATUS) for c, s in self.items.values())


#: Why a turn without its user message has no material.
_NO_OPENING = "material missing: the turn's user message is not in the Cursor transcript"


@dataclass
class _Acc(TurnDraft):
    ended: bool = False
    followups: int = 0


def scan(
    records: Iterable[tuple[int, dict[str, Any]]], *, is_supplement: SupplementTest | None = None
) -> list[Turn]:
    """``(line number, record)`` pairs in file order -> numbered turns. Pure."""
    accs = _accs(records, is_supplement)
    return [a.turn(n, no_opening=_NO_OPENING) for n, a in enumerate(accs, start=1)]


def _accs(
    records: Iterable[tuple[int, dict[str, Any]]], is_supplement: SupplementTest | None
) -> list[_Acc]:
    test = is_supplement or is_jev_supplement
    todos = _Todos()
    accs: list[_Acc] = []
    cur: _Acc | None = None
    for line_no, rec in records:
        if rec.get("type") == "turn_ended":
            if cur is not None:
                cur.ended = True
            continue
        role = rec.get("role") or as_dict(rec.get("message")).get("role")
        blocks = _blocks(rec)
        if role == "user":
            if any(isinstance(b, dict) and b.get("type") == "tool_result" for b in blocks):
                continue
            query = user_query(_text(blocks))
            if not query:
                continue
            if test(query):
                if cur is not None:
                    cur.followups += 1
                    cur.ended = False
                continue
            cur = _Acc(key=f"line:{line_no}", opening="prompt", request=[query])
            accs.append(cur)
        elif role == "assistant":
            if cur is None:
                cur = _Acc(key=f"line:{line_no}", opening="missing")
                accs.append(cur)
            text = _text(blocks).strip()
            if text:
                cur.answer = text
            for block in blocks:
                if not isinstance(block, dict) or block.get("type") != "tool_use":
                    continue
                if as_str(block.get("name")) in TODO_TOOLS:
                    todos.apply(as_dict(block.get("input")))
                    cur.todo_used = True
                    cur.todos = todos.list()
    return accs


def read_turns(path: str | Path, *, is_supplement: SupplementTest | None = None) -> list[Turn]:
    """Every turn of a Cursor JSONL agent transcript, in order (design.md §2, §3).

    Raises:
        OldTranscriptForm: the file is the older ``.txt`` form.
        UsageError: the file is missing or unreadable.
    """
    path = Path(path)
    if is_old_form(path):
        raise _old_form_error(path)
    return scan(json_lines(path), is_supplement=is_supplement)


def current_turn_and_followups(
    path: str | Path, *, is_supplement: SupplementTest | None = None
) -> tuple[Turn, int]:
    """The last turn (``number`` 0) and how many of Jev's follow-ups it received (for
    the stop hook's ``loop_count`` cross-check), in one read.

    Raises:
        OldTranscriptForm: the older ``.txt`` form.
        UsageError: unreadable file.
        MaterialMissing: no turn yet.
    """
    path = Path(path)
    if is_old_form(path):
        raise _old_form_error(path)
    accs = _accs(json_lines(path), is_supplement)
    if not accs:
        raise no_turn_error(path)
    return accs[-1].turn(0, no_opening=_NO_OPENING), accs[-1].followups


def followups_in_current_turn(
    path: str | Path, *, is_supplement: SupplementTest | None = None
) -> int:
    """How many of Jev's follow-ups the current turn has received (for the
    ``loop_count`` cross-check). 0 when the file holds no turn."""
    path = Path(path)
    if is_old_form(path):
        return 0
    accs = _accs(json_lines(path), is_supplement)
    return accs[-1].followups if accs else 0


def read_current_turn(path: str | Path, *, is_supplement: SupplementTest | None = None) -> Turn:
    """The last turn (``number`` 0). Reads the whole file: the Todo list is folded
    across turns (``merge`` updates refer to items of earlier calls).

    Raises:
        OldTranscriptForm: the older ``.txt`` form.
        UsageError: unreadable file.
        MaterialMissing: no turn yet.
    """
    return last_turn(read_turns(path, is_supplement=is_supplement), path)
