"""The store's connection and write transactions (design.md §11).

:class:`StoreBase` opens the backend named by a path or URL, serialises calls from
threads, runs write transactions and translates driver errors into
:class:`jev.base.errors.StoreError`; the parts of :class:`jev.store.Store` (turn state,
records, the session index) build on it. :class:`Transaction` is what a block inside
:meth:`StoreBase.transaction` may do.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

from jev.base.errors import StoreDamaged, StoreError
from jev.base.paths import jev_home_str
from jev.base.record import Record
from jev.store import rows
from jev.store.backend import Backend
from jev.store.migrations import MIGRATIONS
from jev.store.values import TurnKey, TurnRow

__all__ = ["StoreBase", "Transaction", "default_store_path"]

T = TypeVar("T")


def default_store_path() -> Path:
    """``<jev_home>/jev.sqlite3`` (:func:`jev.settings.profiles.jev_home`), where Jev keeps
    records and turn state."""
    return Path(jev_home_str()) / "jev.sqlite3"


class Transaction:
    """Operations inside one write transaction (see :meth:`StoreBase.transaction`).

    Everything done through one transaction commits together or not at all.
    """

    def __init__(self, store: StoreBase, db: Backend, now: Callable[[], float]) -> None:
        self._store = store
        self._db = db
        #: the clock of this transaction (epoch seconds).
        self.now = now

    @property
    def db(self) -> Backend:
        """The backend this transaction runs on (for the store's own modules)."""
        return self._db

    def get_turn(self, key: TurnKey) -> TurnRow | None:
        """The turn's current row, or ``None``. Claims the turn: until this
        transaction ends, no other writer can read-modify-write it."""
        self._db.lock(f"turn:{key}")
        return rows.get_turn(self._db, key)

    def put_turn(self, row: TurnRow) -> TurnRow:
        """Insert or replace the turn's row; ``updated_at`` is set to the store's
        clock, ``created_at`` kept from the first write. Returns the row as stored."""
        return rows.put_turn(self._db, row, self.now, self._store.secret_env)

    def delete_turn(self, key: TurnKey) -> bool:
        """Delete the turn's row; True if there was one."""
        cur = self._db.execute(
            "DELETE FROM turns WHERE host = ? AND session = ? AND turn = ?",
            (key.host, key.session, key.turn),
        )
        return cur.rowcount > 0

    def add_record(self, record: Record) -> int:
        """Insert a record (scrubbed); return its new id."""
        return rows.insert_record(self._db, record, self.now, self._store.secret_env)


class StoreBase:
    """One open store database (see :class:`jev.store.Store` for the arguments).

    Raises:
        StoreError: when the database cannot be created, opened or migrated, is not
            a Jev database, or was written by a newer Jev.
    """

    def __init__(
        self,
        path: Path | str | None = None,
        *,
        url: str | None = None,
        now: Callable[[], float] = time.time,
        secret_env: Sequence[str] = (),
    ) -> None:
        from jev.store.url import configured_store_url, is_store_url, open_backend

        self._now = now
        #: extra environment-variable names whose values are never stored.
        self.secret_env: tuple[str, ...] = tuple(secret_env)
        self._lock = threading.RLock()
        self._in_tx = False
        password_env = ""
        if url is None and isinstance(path, str) and is_store_url(path):
            url, path = path, None
        if url is None and path is None:
            url, password_env = configured_store_url()
        if url:
            self._db: Backend = open_backend(url, MIGRATIONS, password_env)
        else:
            from jev.store.sqlite import SqliteBackend

            file = Path(path) if path is not None else default_store_path()
            self._db = SqliteBackend(file, MIGRATIONS)
        #: the SQLite database file (``None`` for a server database).
        self.path: Path | None = self._db.path
        #: where the database is, for messages (a path, or a URL without password).
        self.location: str = self._db.location

    # -- lifecycle -------------------------------------------------------------------

    def close(self) -> None:
        """Close the connection (idempotent)."""
        with self._lock:
            self._db.close()

    @property
    def dialect(self) -> str:
        """``"sqlite"`` or ``"postgresql"``."""
        return self._db.dialect

    @property
    def schema_version(self) -> int:
        """The number of migrations the database has applied."""
        with self._lock, self._errors("reading the schema version"):
            return self._db.schema_version()

    @contextmanager
    def _errors(self, action: str) -> Iterator[None]:
        try:
            yield
        except self._db.errors as exc:
            message = self._db.describe(exc, action)
            if self._db.path is not None and self._db.damaged(exc):
                raise StoreDamaged(message, self._db.path, self._db.identity) from None
            raise StoreError(message) from None

    # -- transactions ----------------------------------------------------------------

    @contextmanager
    def transaction(self, now: Callable[[], float] | None = None) -> Iterator[Transaction]:
        """Run a block inside ONE write transaction (SQLite: ``BEGIN IMMEDIATE``).

        Commits when the block ends normally; rolls back and re-raises when it
        raises. Nested use raises :class:`RuntimeError`.

        Raises:
            StoreError: when the database fails (e.g. SQLite's write lock stays taken
                for more than :data:`jev.store.BUSY_TIMEOUT_S`).
        """
        with self._lock:
            if self._in_tx:
                raise RuntimeError("Store.transaction() does not nest")
            db = self._db
            with self._errors("starting a transaction"):
                db.begin()
            self._in_tx = True
            try:
                yield Transaction(self, db, now or self._now)
            except BaseException:
                self._in_tx = False
                db.rollback()
                raise
            self._in_tx = False
            with self._errors("committing"):
                try:
                    db.commit()
                except db.errors:
                    db.rollback()
                    raise

    def _run(
        self,
        action: str,
        body: Callable[[Transaction], T],
        now: Callable[[], float] | None = None,
    ) -> T:
        with self.transaction(now) as tx, self._errors(action):
            return body(tx)
