"""The SQLite backend: one file under ``JEV_HOME`` by default (design.md §11). Stdlib only.

Concurrency: the connection runs in WAL mode with a 10-second busy timeout; every
write is one ``BEGIN IMMEDIATE`` transaction, so concurrent hook processes serialise
on the write lock instead of losing updates. ``PRAGMA user_version`` counts the
applied migrations.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Sequence
from contextlib import suppress
from pathlib import Path
from typing import Any

from jev import deadline
from jev.base.errors import StoreDamaged, StoreError
from jev.base.files import move_aside
from jev.store.backend import Backend
from jev.store.values import BUSY_TIMEOUT_S

__all__ = ["SqliteBackend", "quarantine"]

#: SQLite's result codes for a file that is not a database / is corrupt.
_DAMAGED_CODES = (sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CORRUPT)
#: The files of one SQLite database in WAL mode, besides the main file.
_SIDE_FILES = ("-wal", "-shm", "-journal")


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def quarantine(damaged: StoreDamaged) -> Path | None:
    """Move a damaged SQLite store aside so the next open starts a new one (design.md §11).

    The file named by ``damaged.path`` (with its ``-wal``/``-shm``/``-journal`` side
    files) is renamed to ``<name>.broken-<UTC time>`` — only while it is still the
    file that failed (``damaged.identity``), so a store another process already
    rebuilt is never moved. Returns the new path of the main file, or ``None`` when
    nothing was moved (already moved, or not movable). Never raises.
    """
    path = damaged.path
    if damaged.identity is not None and _identity(path) != damaged.identity:
        return None
    target = move_aside(path, "broken")
    if target is None:
        return None
    for suffix in _SIDE_FILES:
        with suppress(OSError):
            os.replace(f"{path}{suffix}", f"{target}{suffix}")
    return target


class SqliteBackend(Backend):
    """A SQLite database file, created and migrated when opened.

    Args:
        path: the database file; missing folders are created.
        migrations: the ordered migrations to apply.

    Raises:
        StoreError: when the file cannot be created, opened or migrated, is not a
            SQLite database, or was written by a newer Jev.
    """

    dialect = "sqlite"
    errors = (sqlite3.Error,)
    latest_turn_order = "updated_ts DESC, rowid DESC"

    def __init__(self, path: Path, migrations: Sequence[Callable[[Any], None]]) -> None:
        self.path = path
        self.location = str(path)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(
                f"cannot create the folder {path.parent} for Jev's database "
                f"({exc.strerror or exc}); set JEV_HOME to a writable folder."
            ) from None
        self._conn: sqlite3.Connection | None = None
        #: ``(st_dev, st_ino)`` of the database file as opened.
        self.identity = _identity(path)
        try:
            conn = sqlite3.connect(
                str(path),
                timeout=BUSY_TIMEOUT_S,
                isolation_level=None,
                check_same_thread=False,
            )
            try:
                conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
                conn.execute("PRAGMA journal_mode = WAL")
                conn.execute("PRAGMA foreign_keys = ON")
                conn.execute("PRAGMA synchronous = NORMAL")
                self._migrate(conn, migrations)
            except BaseException:
                conn.close()
                raise
        except sqlite3.Error as exc:
            if self.damaged(exc):
                raise StoreDamaged(self.describe(exc, "opening"), path, self.identity) from None
            raise StoreError(self.describe(exc, "opening")) from None
        self.identity = self.identity or _identity(path)
        self._conn = conn

    def damaged(self, exc: BaseException) -> bool:
        """True when ``exc`` says the file is not a database or is corrupt."""
        code = getattr(exc, "sqlite_errorcode", None)
        if isinstance(code, int) and code & 0xFF in _DAMAGED_CODES:
            return True
        low = str(exc).lower()
        return "not a database" in low or "malformed" in low

    def _migrate(
        self, conn: sqlite3.Connection, migrations: Sequence[Callable[[Any], None]]
    ) -> None:
        known = len(migrations)
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version == known:
            return
        if version > known:
            raise StoreError(
                f"the Jev database {self.path} has schema version {version}, newer than "
                f"this Jev understands ({known}); upgrade Jev, or move the file aside "
                f"to start a new database."
            )
        conn.execute("BEGIN IMMEDIATE")
        try:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            for index in range(version, known):
                migrations[index](conn)
            if version < known:
                conn.execute(f"PRAGMA user_version = {known}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            raise StoreError(f"the Jev database {self.path} was already closed; open a new Store.")
        return self._conn

    def execute(self, sql: str, params: Sequence[Any] = ()) -> sqlite3.Cursor:
        """Run one statement and return its cursor."""
        return self._connection().execute(sql, tuple(params))

    def insert(self, sql: str, params: Sequence[Any]) -> int:
        """Run one ``INSERT``; return ``lastrowid``."""
        cur = self._connection().execute(sql, tuple(params))
        assert cur.lastrowid is not None
        return int(cur.lastrowid)

    def begin(self) -> None:
        """``BEGIN IMMEDIATE``: take the database's write lock now, waiting for it at
        most :data:`BUSY_TIMEOUT_S` or the time left of the hook's deadline
        (:func:`jev.deadline.left`; issue 23)."""
        conn = self._connection()
        if deadline.seconds() is not None:
            conn.execute(f"PRAGMA busy_timeout = {int(deadline.left(BUSY_TIMEOUT_S) * 1000)}")
        conn.execute("BEGIN IMMEDIATE")

    def commit(self) -> None:
        """``COMMIT``."""
        self._connection().execute("COMMIT")

    def rollback(self) -> None:
        """``ROLLBACK``, ignoring errors."""
        if self._conn is not None:
            with suppress(sqlite3.Error):
                self._conn.execute("ROLLBACK")

    def schema_version(self) -> int:
        """``PRAGMA user_version``."""
        version: int = self._connection().execute("PRAGMA user_version").fetchone()[0]
        return version

    def describe(self, exc: BaseException, action: str) -> str:
        """Name the file, what failed and what to do."""
        text = str(exc)
        path = self.path
        low = text.lower()
        if "not a database" in low or "malformed" in low or "corrupt" in low:
            return (
                f"the Jev database {path} is damaged or not a SQLite database ({text}) "
                f"while {action}; move it aside (e.g. mv '{path}' '{path}.broken') and Jev "
                f"will start a new one; the records in it are not read."
            )
        if "locked" in low or "busy" in low:
            return (
                f"the Jev database {path} stayed locked by another process for more than "
                f"{BUSY_TIMEOUT_S:g} s while {action} ({text}); retry, and look for a hung "
                f"jev process."
            )
        if "unable to open" in low or "readonly" in low or "read-only" in low:
            return (
                f"cannot open or write the Jev database {path} while {action} ({text}); "
                f"check the permissions of the file and its folder, or set JEV_HOME to a "
                f"writable folder."
            )
        return (
            f"the Jev database {path} failed while {action} ({type(exc).__name__}: {text}); "
            f"if this repeats, move the file aside and Jev will start a new one."
        )

    def close(self) -> None:
        """Close the connection (idempotent)."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None
