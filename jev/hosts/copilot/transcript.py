"""Turns of a GitHub Copilot CLI session (``events.jsonl``) (design.md §2, §3; hosts.md).

Stdlib only (``json``, ``sqlite3``): the Copilot stop hook imports this on its path.

Decided on the two real Copilot CLI 1.0.74 files in ``tests/fixtures/real/`` (from
``../shared/real/``). Each line is an event ``{type, data, id, timestamp, parentId}``;
subagent events carry a top-level ``agentId`` and are ignored (root turns only, SPEC
§2).

**Turns.** A root ``user.message`` typed while the agent was idle (``delivery:
"idle"`` or none, no ``source``) opens a turn, keyed by its ``interactionId`` (the
host's prompt identity: every event of that prompt carries it, also after a
background-agent notification continues the work). Messages typed while the agent
runs (``delivery: "steering"``) are the user's adjustments of the open turn (design.md §3).
Messages with a ``source`` (``system`` reminders, ``agent-…`` subagent briefs) are not
the user's. A message that is Jev's own supplement (Copilot enqueues a block's
``reason`` as the next prompt, hosts.md (other hosts)) continues the open turn. The request is
``data.content`` (what the user typed), never ``transformedContent`` (host context).

**Todo list.** Copilot keeps todos in a per-session SQL database that the agent writes
with its ``sql`` tool (``todos``: id, title, description, status
``pending|in_progress|done|blocked``, created_at, updated_at; ``todo_deps``; the system
prompt of the real files). :class:`TodoTable` rebuilds the table by running every
successful ``sql`` call on the ``session`` database, in order, in an in-memory SQLite
database created with that schema (an authorizer refuses ``ATTACH``, so nothing touches
a file). A turn used the Todo list when one of its statements wrote to ``todos``; a
``SELECT`` is not a use. The list is the table's rows in creation order (``done`` ->
``completed``; ``blocked`` keeps its word, :func:`jev.hosts.readkit.marked_item`).
:func:`read_current_turn` prefers the host's own database file when one with a
``todos`` table sits next to ``events.jsonl`` (read-only); see :func:`session_db_rows`.

**Final answer.** The later of the turn's last root ``assistant.message`` with text and
its last ``session.task_complete`` ``summary`` (autopilot's ``task_complete`` tool).

**Catching up with the stop** [M 1.0.102]. The stop hook can run before Copilot has
written the turn's newest events, and stdin carries no last answer; at a re-stop the
file may still end on the previous round's answer. Copilot logs every hook run as a
``hook.start`` event whose ``input`` is the hook's stdin, so with ``stop_timestamp``
(stdin ``timestamp``, ms) :func:`read_current_turn` raises :class:`TranscriptBehind`
until that stop's ``hook.start`` is in the file (everything before it is then written
too); the caller polls. Without a timestamp it raises while the newest root
``user.message`` (Jev's supplement included) has no later assistant text. A caught-up
stop whose agent said nothing after the newest user message has the final answer "",
never the previous round's.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jev.base.domain import TodoItem
from jev.base.errors import MaterialMissing
from jev.hosts.copilot.runs import SHELL_TOOLS, shell_run
from jev.hosts.readkit import (
    SupplementTest,
    as_dict,
    as_str,
    is_jev_supplement,
    marked_item,
)
from jev.hosts.turns import Turn, TurnDraft, json_lines, no_turn_error

__all__ = [
    "TODO_SCHEMA",
    "TodoTable",
    "TranscriptBehind",
    "read_current_turn",
    "read_turns",
    "scan",
    "session_db_rows",
]

#: The pre-existing tables Copilot CLI 1.0.74 announces in its system prompt.
TODO_SCHEMA = (
    "CREATE TABLE todos (id TEXT PRIMARY KEY, title TEXT, description TEXT, "
    "status TEXT DEFAULT 'pending', created_at TEXT DEFAULT CURRENT_TIMESTAMP, "
    "updated_at TEXT DEFAULT CURRENT_TIMESTAMP);"
    "CREATE TABLE todo_deps (todo_id TEXT, depends_on TEXT, PRIMARY KEY (todo_id, depends_on));"
)
_STATUS = {"pending": "pending", "in_progress": "in_progress", "done": "completed"}
_WRITES = frozenset({sqlite3.SQLITE_INSERT, sqlite3.SQLITE_UPDATE, sqlite3.SQLITE_DELETE})
_DENIED = frozenset({sqlite3.SQLITE_ATTACH, sqlite3.SQLITE_DETACH})
#: SQLite virtual-machine steps one replayed statement may take (runaway guard).
_MAX_STEPS = 2_000_000
_ROWS = "SELECT id, title, description, status FROM todos ORDER BY created_at, rowid"


def _items(rows: Iterable[tuple[Any, ...]]) -> tuple[TodoItem, ...]:
    items: list[TodoItem] = []
    for _id, title, description, status in rows:
        content = str(title or description or _id or "")
        items.append(marked_item(content, str(status or "pending"), _STATUS))
    return tuple(items)


class TodoTable:
    """An in-memory replay of the session's ``todos`` table (see the module docstring)."""

    def __init__(self) -> None:
        self._db = sqlite3.connect(":memory:")
        self._db.executescript(TODO_SCHEMA)
        self._wrote = False
        self._db.set_authorizer(self._authorize)
        steps = [0]

        def guard() -> int:
            steps[0] += 1
            return 1 if steps[0] * 1000 > _MAX_STEPS else 0

        self._steps = steps
        self._db.set_progress_handler(guard, 1000)

    def _authorize(self, action: int, arg1: str | None, *_: Any) -> int:
        if action in _DENIED:
            return sqlite3.SQLITE_DENY
        if action in _WRITES and (arg1 or "").lower() == "todos":
            self._wrote = True
        return sqlite3.SQLITE_OK

    def run(self, query: str) -> bool:
        """Run one ``sql`` call's query; return True when it wrote to ``todos``.

        A query the replay cannot run (an error in it, a table Jev does not model)
        changes nothing: SQLite undoes the failed statement; earlier statements of the
        same call stay, as they did in the host.
        """
        self._wrote = False
        self._steps[0] = 0
        with contextlib.suppress(sqlite3.Error, ValueError):
            self._db.executescript(query)
        return self._wrote

    def items(self) -> tuple[TodoItem, ...]:
        """The table's rows as Todo items, in creation order."""
        try:
            return _items(self._db.execute(_ROWS).fetchall())
        except sqlite3.Error:
            return ()

    def close(self) -> None:
        self._db.close()


def session_db_rows(events_path: Path) -> tuple[TodoItem, ...] | None:
    """The ``todos`` rows of the host's own session database, or ``None``.

    Copilot keeps per-session state next to ``events.jsonl``
    (``~/.copilot/session-state/<id>/``). The file name of the SQL database is not
    documented [U], so every ``*.db``/``*.sqlite``/``*.sqlite3`` file in that folder is
    opened read-only and the first one with a ``todos`` table is used.
    """
    folder = events_path.parent
    try:
        candidates = sorted(
            p for p in folder.iterdir() if p.suffix in (".db", ".sqlite", ".sqlite3")
        )
    except OSError:
        return None
    for candidate in candidates:
        try:
            uri = candidate.absolute().as_uri() + "?mode=ro"
            with sqlite3.connect(uri, uri=True, timeout=1.0) as db:
                return _items(db.execute(_ROWS).fetchall())
        except sqlite3.Error:
            continue
    return None


#: Why a turn without its user message has no material.
_NO_OPENING = "material missing: the turn's user message is not in the Copilot events file"


class TranscriptBehind(MaterialMissing):
    """The events file has not caught up with the stop being audited (module
    docstring): poll again, and never judge the answer it holds now."""

    kind = "material-missing"


@dataclass
class _Acc(TurnDraft):
    stops: int = 0
    supplements: int = 0
    #: An assistant text came after the turn's newest root user message.
    fresh: bool = False
    #: stdin ``timestamp`` values of every ``agentStop`` hook run the file logs (set
    #: on the file's last turn only).
    stop_marks: set[int] | None = None


def _accs(
    records: Iterable[dict[str, Any]], is_supplement: SupplementTest | None
) -> tuple[list[_Acc], str]:
    test = is_supplement or is_jev_supplement
    table = TodoTable()
    pending: dict[str, str] = {}  # toolCallId -> sql query awaiting completion
    shells: dict[str, str] = {}  # toolCallId -> bash/powershell command (issue 21)
    accs: list[_Acc] = []
    cur: _Acc | None = None
    session = ""
    marks: set[int] = set()
    try:
        for rec in records:
            if "agentId" in rec:
                continue  # a subagent's event
            etype = rec.get("type")
            data = as_dict(rec.get("data"))
            if etype == "session.start":
                session = as_str(data.get("sessionId")) or session
            elif etype == "user.message":
                text = as_str(data.get("content")).strip()
                if not text or data.get("source"):
                    continue
                if test(text):
                    if cur is not None:
                        cur.supplements += 1
                        cur.fresh = False
                    continue
                if data.get("delivery") == "steering" and cur is not None:
                    cur.request.append(text)
                    cur.fresh = False
                    continue
                key = as_str(data.get("interactionId")) or as_str(rec.get("id"))
                cur = _Acc(key=key, opening="prompt", request=[text])
                accs.append(cur)
            elif etype == "assistant.message":
                if cur is None:
                    cur = _Acc(key=as_str(data.get("interactionId")), opening="missing")
                    accs.append(cur)
                text = as_str(data.get("content")).strip()
                if text:
                    cur.answer = text
                    cur.fresh = True
            elif etype == "session.task_complete" and cur is not None:
                summary = as_str(data.get("summary")).strip()
                if summary:
                    cur.answer = summary
                    cur.fresh = True
            elif etype == "tool.execution_start" and data.get("toolName") == "sql":
                args = as_dict(data.get("arguments"))
                database = as_str(args.get("database")) or "session"
                query = as_str(args.get("query"))
                if database == "session" and query:
                    pending[as_str(data.get("toolCallId"))] = query
            elif etype == "tool.execution_start" and data.get("toolName") in SHELL_TOOLS:
                command = as_dict(data.get("arguments")).get("command")
                if isinstance(command, str):
                    shells[as_str(data.get("toolCallId"))] = command
            elif etype == "tool.execution_complete":
                shell = shells.pop(as_str(data.get("toolCallId")), None)
                run = shell_run(shell, data) if shell is not None else None
                if run is not None and cur is not None:
                    cur.runs.append(run)
                query = pending.pop(as_str(data.get("toolCallId")), "")
                wrote = bool(query) and data.get("success") is True and table.run(query)
                if wrote and cur is not None:
                    cur.todo_used = True
                if cur is not None and cur.todo_used:
                    cur.todos = table.items()
            elif etype == "hook.start" and data.get("hookType") == "agentStop":
                mark = as_dict(data.get("input")).get("timestamp")
                if isinstance(mark, int) and not isinstance(mark, bool):
                    marks.add(mark)
                if cur is not None:
                    cur.stops += 1
    finally:
        table.close()
    if accs:
        accs[-1].stop_marks = marks
    return accs, session


def scan(
    records: Iterable[dict[str, Any]], *, is_supplement: SupplementTest | None = None
) -> list[Turn]:
    """Events (file order) -> numbered root turns. Pure (in-memory SQLite only)."""
    accs, _ = _accs(records, is_supplement)
    return [a.turn(n, no_opening=_NO_OPENING) for n, a in enumerate(accs, start=1)]


def _events(path: Path) -> Iterable[dict[str, Any]]:
    return (rec for _, rec in json_lines(path))


def read_turns(path: str | Path, *, is_supplement: SupplementTest | None = None) -> list[Turn]:
    """Every root turn of a Copilot CLI ``events.jsonl``, in order (design.md §2, §3).

    Raises:
        UsageError: the file is missing or unreadable.
    """
    return scan(_events(Path(path)), is_supplement=is_supplement)


def read_current_turn(
    path: str | Path,
    *,
    is_supplement: SupplementTest | None = None,
    use_session_db: bool = True,
    stop_timestamp: int | None = None,
    wait_for_answer: bool = False,
) -> Turn:
    """The last root turn (``number`` 0). Reads the whole file (the todo table is
    session state). With ``use_session_db`` the host's own database, when found
    (:func:`session_db_rows`), gives the current rows instead of the replay.

    Args:
        stop_timestamp: the stop hook's stdin ``timestamp`` (ms): the file must hold
            that stop's ``hook.start`` (module docstring, "Catching up").
        wait_for_answer: without a timestamp, the newest root user message must have
            a later assistant text.

    Raises:
        UsageError: unreadable file.
        TranscriptBehind: the file has not caught up with the stop yet.
        MaterialMissing: no turn yet.
    """
    path = Path(path)
    accs, _ = _accs(_events(path), is_supplement)
    if not accs:
        raise no_turn_error(path)
    last = accs[-1]
    if stop_timestamp is not None and stop_timestamp not in (last.stop_marks or ()):
        raise TranscriptBehind(
            f"the transcript {path} does not yet log the stop of {stop_timestamp} ms"
        )
    if stop_timestamp is None and wait_for_answer and not last.fresh:
        raise TranscriptBehind(
            f"the transcript {path} holds no answer after the turn's newest user message yet"
        )
    if stop_timestamp is not None and not last.fresh:
        last.answer = ""  # caught up, and the agent said nothing since the newest user message
    rows = session_db_rows(path) if use_session_db and last.todo_used else None
    return last.turn(0, no_opening=_NO_OPENING, todos=rows)


def current_turn_stops(path: str | Path) -> int:
    """``agentStop`` hook starts already logged in the current root turn (diagnostics)."""
    accs, _ = _accs(_events(Path(path)), None)
    return accs[-1].stops if accs else 0
