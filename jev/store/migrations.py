"""The ordered schema migrations shared by every store backend (design.md §11).

Each migration is a function of one connection-like object (anything with
``execute(sql, params)`` returning a cursor with ``fetchone``/``fetchall``/
``rowcount``: a :class:`sqlite3.Connection`, or the PostgreSQL backend's wrapper).
They are written in SQLite's dialect with ``?`` placeholders; the PostgreSQL wrapper
translates the few differences (``INTEGER PRIMARY KEY AUTOINCREMENT`` becomes
``BIGSERIAL PRIMARY KEY``, ``REAL`` becomes ``DOUBLE PRECISION``, ``?`` becomes
``%s``), so one list serves both backends and both count their schema version the
same way: the number of migrations applied.

Append only: never edit or reorder a released migration.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Protocol

from jev.base.record import Record

__all__ = ["MIGRATIONS", "SqlConnection", "SqlCursor"]


class SqlCursor(Protocol):
    """The part of a DB-API cursor the store uses."""

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...

    @property
    def rowcount(self) -> int: ...


class SqlConnection(Protocol):
    """The part of a connection a migration uses: ``execute(sql, params)`` with ``?``
    placeholders (SQLite dialect)."""

    def execute(self, sql: str, parameters: Any = ..., /) -> SqlCursor: ...


def _m001_initial(conn: SqlConnection) -> None:
    conn.execute(
        """CREATE TABLE records (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            created_at TEXT NOT NULL,
            created_ts REAL NOT NULL,
            profile TEXT NOT NULL,
            host TEXT NOT NULL,
            session TEXT NOT NULL,
            turn TEXT NOT NULL,
            turn_number INTEGER,
            round INTEGER NOT NULL,
            status TEXT NOT NULL,
            assessment TEXT,
            focus_id TEXT,
            action_kind TEXT,
            material_hash TEXT NOT NULL,
            data TEXT NOT NULL
        )"""
    )
    conn.execute("CREATE INDEX records_turn ON records(host, session, turn, created_ts, id)")
    conn.execute("CREATE INDEX records_session ON records(session, created_ts)")
    conn.execute(
        """CREATE TABLE turns (
            host TEXT NOT NULL,
            session TEXT NOT NULL,
            turn TEXT NOT NULL,
            state TEXT NOT NULL,
            material_hash TEXT,
            decision TEXT,
            lease_until REAL,
            created_ts REAL NOT NULL,
            updated_ts REAL NOT NULL,
            PRIMARY KEY (host, session, turn)
        )"""
    )


def _m002_digest_and_retention(conn: SqlConnection) -> None:
    conn.execute("ALTER TABLE records ADD COLUMN digest TEXT")
    rows = conn.execute("SELECT id, data FROM records").fetchall()
    for row_id, data in rows:
        digest = Record.from_json(json.loads(data)).digest()
        conn.execute("UPDATE records SET digest = ? WHERE id = ?", (digest, row_id))
    conn.execute("CREATE INDEX records_digest ON records(digest)")
    conn.execute("CREATE INDEX records_created ON records(created_ts)")
    conn.execute("CREATE INDEX turns_updated ON turns(updated_ts)")
    conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")


def _m003_sessions(conn: SqlConnection) -> None:
    """The hook's session index moves from ``sessions.json`` into the store
    (:mod:`jev.store.sessions`; the old file is imported by the index when it opens)."""
    conn.execute(
        """CREATE TABLE sessions (
            session TEXT PRIMARY KEY,
            host TEXT NOT NULL,
            machine TEXT NOT NULL,
            turn TEXT,
            profile TEXT,
            data TEXT NOT NULL,
            created_ts REAL NOT NULL,
            updated_ts REAL NOT NULL
        )"""
    )
    conn.execute("CREATE INDEX sessions_machine ON sessions(machine, updated_ts)")
    conn.execute("CREATE INDEX sessions_updated ON sessions(updated_ts)")


#: Ordered schema migrations; the schema version (SQLite ``PRAGMA user_version``,
#: PostgreSQL table ``jev_schema``) = how many have been applied.
#: Append only: never edit or reorder a released migration.
MIGRATIONS: tuple[Callable[[Any], None], ...] = (
    _m001_initial,
    _m002_digest_and_retention,
    _m003_sessions,
)
