"""The PostgreSQL backend: one shared store for a team or fleet (design.md §11).

Needs the optional driver psycopg 3 (``pip install "jev[postgres]"``); it is imported
only when a ``postgresql://`` store URL is opened, never on the hook's no-audit path.

* Connection: the URL goes to libpq as it is, so the password comes from
  ``PGPASSWORD`` or ``~/.pgpass`` (or the variable named by ``password_env``), never
  from Jev's files; a connection attempt gives up after :data:`CONNECT_TIMEOUT_S`
  unless the URL sets ``connect_timeout``.
* Migrations: the shared :data:`jev.store.migrations.MIGRATIONS`, translated from
  SQLite's dialect; the table ``jev_schema`` holds how many were applied; one
  transaction under an advisory lock, so machines starting together migrate once.
* Concurrency: every write is one transaction in autocommit-off mode at READ
  COMMITTED; claiming a turn takes a transaction-scoped advisory lock on the turn's
  key (``pg_advisory_xact_lock``) before reading it, so two machines can never both
  spend one turn's supplement budget, while different turns proceed in parallel.
* Bounds (issue 23): the session sets ``statement_timeout``, ``lock_timeout`` and
  ``idle_in_transaction_session_timeout`` (:data:`STATEMENT_TIMEOUT_S`, cut to the
  time left of the hook's deadline, :mod:`jev.deadline`), and every round trip has a
  client-side socket deadline as well: a timer shuts the connection's socket down
  when the server has not answered in that time — the server-side timeouts cannot
  fire on a server that is frozen (``SIGSTOP``, a stalled VM) while the kernel still
  acknowledges the packets. The statement then fails as a :class:`StoreError`.
* Failures: every :class:`psycopg.Error` becomes a :class:`jev.base.errors.StoreError`
  naming the server (without password) and what to do; a broken connection is
  reopened on the next transaction.
"""

from __future__ import annotations

import hashlib
import os
import re
import socket
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from typing import Any

from jev import deadline
from jev.base.errors import StoreError
from jev.store.backend import Backend
from jev.store.migrations import SqlCursor

__all__ = ["CONNECT_TIMEOUT_S", "STATEMENT_TIMEOUT_S", "PostgresBackend", "redacted_url"]

#: Seconds a connection attempt may take unless the URL sets ``connect_timeout``.
CONNECT_TIMEOUT_S = 5
#: Seconds one statement (or one wait for a lock, or one round trip to the server)
#: may take; cut to the time left of the hook's deadline (:func:`jev.deadline.left`).
STATEMENT_TIMEOUT_S = 10.0
#: Seconds a transaction may stay idle on the server before it is ended.
IDLE_IN_TRANSACTION_S = 30
_MIGRATE_LOCK = "jev:migrate"
_DDL = (
    (re.compile(r"\bINTEGER PRIMARY KEY AUTOINCREMENT\b", re.I), "BIGSERIAL PRIMARY KEY"),
    (re.compile(r"\bREAL\b", re.I), "DOUBLE PRECISION"),
)


def redacted_url(url: str) -> str:
    """``url`` without a password (``user:secret@`` becomes ``user@``; a
    ``password=`` query parameter becomes ``password=***``)."""
    url = re.sub(r"(?i)([?&]password=)[^&]*", r"\1***", url)
    return re.sub(r"^([a-z]+://[^:/@]*):[^@/]*@", r"\1@", url, flags=re.I)


def _translate(sql: str) -> str:
    for pattern, replacement in _DDL:
        sql = pattern.sub(replacement, sql)
    return sql.replace("%", "%%").replace("?", "%s")


def lock_id(name: str) -> int:
    """A signed 64-bit advisory-lock key for ``name`` (blake2b, stable everywhere)."""
    digest = hashlib.blake2b(name.encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


class _Conn:
    """A migration's view of the connection: ``execute`` in SQLite's dialect."""

    dialect = "postgresql"

    def __init__(self, backend: PostgresBackend) -> None:
        self._backend = backend

    def execute(self, sql: str, parameters: Any = (), /) -> SqlCursor:
        return self._backend.execute(sql, parameters)


class PostgresBackend(Backend):
    """A PostgreSQL database, migrated when opened.

    Args:
        url: ``postgresql://user@host:port/db`` (libpq URI; query parameters such as
            ``host=/socket/dir`` or ``sslmode`` are kept).
        migrations: the ordered migrations to apply.
        password: a password taken from a named environment variable, or ``None``
            to let libpq use ``PGPASSWORD`` / ``~/.pgpass``.

    Raises:
        StoreError: when psycopg is not installed, the server cannot be reached or
            refuses the login, or the database was migrated by a newer Jev.
    """

    dialect = "postgresql"
    latest_turn_order = "updated_ts DESC, created_ts DESC"

    def __init__(
        self,
        url: str,
        migrations: Sequence[Callable[[Any], None]],
        *,
        password: str | None = None,
    ) -> None:
        self.path = None
        self.location = redacted_url(url)
        self._url = url
        self._password = password
        try:
            # lazy: psycopg is the optional [postgres] extra
            import psycopg
        except ImportError:
            raise StoreError(
                f"the store URL {self.location} needs the PostgreSQL driver, which is not "
                f'installed; run: pip install ".[postgres]" in your Jev checkout (or unset '
                f"JEV_STORE_URL / "
                f"store.url to use the local SQLite file)."
            ) from None
        self._psycopg = psycopg
        self.errors = (psycopg.Error,)
        self._conn: Any = None
        self._cut_after: float | None = None
        self._watchdog: _Watchdog | None = None
        try:
            self._connect()
            self._migrate(migrations)
        except psycopg.Error as exc:
            self.close()
            raise StoreError(self.describe(exc, "opening")) from None
        except BaseException:
            self.close()
            raise

    def _connect(self) -> None:
        self._cut_after = None
        kwargs: dict[str, Any] = {"autocommit": True}
        if "connect_timeout" not in self._url:
            kwargs["connect_timeout"] = CONNECT_TIMEOUT_S
        if self._password is not None:
            kwargs["password"] = self._password
        if deadline.seconds() is not None:
            wait = int(deadline.left(float(CONNECT_TIMEOUT_S), floor=1.0) + 0.999)
            kwargs["connect_timeout"] = min(int(kwargs.get("connect_timeout", wait)), wait)
        self._conn = self._psycopg.connect(self._url, **kwargs)
        ms = int(deadline.left(STATEMENT_TIMEOUT_S, floor=0.5) * 1000)
        with self._bounded():
            self._conn.execute(
                f"SET statement_timeout = {ms}; SET lock_timeout = {ms}; "
                f"SET idle_in_transaction_session_timeout = {IDLE_IN_TRANSACTION_S * 1000}"
            )

    @contextmanager
    def _bounded(self) -> Iterator[None]:
        """One round trip with a client-side deadline: when the server has not
        answered within :data:`STATEMENT_TIMEOUT_S` (or the time left of the hook's
        deadline), the connection's socket is shut down, which wakes the waiting
        driver with an error (:meth:`describe` then says the server did not answer).
        One watchdog thread per backend serves every round trip (:class:`_Watchdog`)."""
        if self._watchdog is None:
            self._watchdog = _Watchdog(self)
        token = self._watchdog.arm(self._conn, deadline.left(STATEMENT_TIMEOUT_S, floor=0.5))
        try:
            yield
        finally:
            self._watchdog.disarm(token)

    def _cut(self, conn: Any, seconds: float) -> None:
        """Shut down ``conn``'s socket (from the watchdog thread); never raises."""
        try:
            fd = os.dup(conn.pgconn.socket)
        except Exception:
            return
        self._cut_after = seconds
        try:
            with socket.socket(fileno=fd) as sock:
                sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def _migrate(self, migrations: Sequence[Callable[[Any], None]]) -> None:
        known = len(migrations)
        version = self._read_version()
        if version == known:
            return
        self._check_newer(version, known)
        self.begin()
        try:
            self.lock(_MIGRATE_LOCK)
            self.execute("CREATE TABLE IF NOT EXISTS jev_schema (version INTEGER NOT NULL)")
            row = self.execute("SELECT version FROM jev_schema").fetchone()
            if row is None:
                self.execute("INSERT INTO jev_schema (version) VALUES (0)")
                version = 0
            else:
                version = int(row[0])
            self._check_newer(version, known)
            conn = _Conn(self)
            for index in range(version, known):
                migrations[index](conn)
            self.execute("UPDATE jev_schema SET version = ?", (known,))
            self.commit()
        except BaseException:
            self.rollback()
            raise

    def _check_newer(self, version: int, known: int) -> None:
        if version > known:
            raise StoreError(
                f"the Jev database {self.location} has schema version {version}, newer "
                f"than this Jev understands ({known}); upgrade Jev on this machine."
            )

    def _read_version(self) -> int:
        try:
            row = self.execute("SELECT version FROM jev_schema").fetchone()
        except self._psycopg.errors.UndefinedTable:
            return 0
        return 0 if row is None else int(row[0])

    def _connection(self) -> Any:
        if self._conn is None:
            raise StoreError(
                f"the Jev database {self.location} was already closed; open a new Store."
            )
        return self._conn

    def execute(self, sql: str, params: Sequence[Any] = ()) -> SqlCursor:
        """Run one statement (translated to PostgreSQL) and return its cursor."""
        conn = self._connection()
        with self._bounded():
            cursor: SqlCursor = conn.execute(_translate(sql), tuple(params))
        return cursor

    def insert(self, sql: str, params: Sequence[Any]) -> int:
        """Run one ``INSERT … RETURNING id``; return the id."""
        row = self.execute(sql + " RETURNING id", params).fetchone()
        return int(row[0])

    def begin(self) -> None:
        """``BEGIN`` (READ COMMITTED); reopens a connection the server dropped."""
        conn = self._connection()
        if conn.closed or conn.broken:
            with suppress(Exception):
                conn.close()
            self._connect()
        self.execute("BEGIN")

    def commit(self) -> None:
        """``COMMIT``."""
        self.execute("COMMIT")

    def rollback(self) -> None:
        """``ROLLBACK``, ignoring errors (a dead connection has nothing to undo)."""
        if self._conn is not None and not self._conn.closed and not self._conn.broken:
            with suppress(Exception), self._bounded():
                self._conn.execute("ROLLBACK")

    def lock(self, name: str) -> None:
        """``pg_advisory_xact_lock`` on ``name``'s 64-bit key until the transaction ends."""
        conn = self._connection()
        with self._bounded():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (lock_id(name),))

    def schema_version(self) -> int:
        """The ``jev_schema`` table's version."""
        return self._read_version()

    def describe(self, exc: BaseException, action: str) -> str:
        """Name the server (no password), what failed and what to do."""
        text = " ".join(str(exc).split()) or type(exc).__name__
        where = self.location
        low = text.lower()
        if self._cut_after is not None:
            return (
                f"the Jev database {where} did not answer within {self._cut_after:.3g} s "
                f"while {action} (the server is stalled or overloaded; {text}); this stop's "
                f"transaction was abandoned; check the server, or unset JEV_STORE_URL / "
                f"store.url to use the local SQLite file."
            )
        if "password" in low or "authentication" in low or "role" in low:
            return (
                f"the PostgreSQL server refused Jev's login to {where} while {action} "
                f"({text}); check the user in JEV_STORE_URL / store.url and set the "
                f"password in PGPASSWORD, ~/.pgpass or the variable named by "
                f"store.password_env."
            )
        if isinstance(exc, self._psycopg.OperationalError):
            return (
                f"cannot reach the Jev database {where} while {action} ({text}); check "
                f"that the server is running and the URL in JEV_STORE_URL / store.url, "
                f"or unset it to use the local SQLite file."
            )
        if isinstance(exc, self._psycopg.errors.InsufficientPrivilege):
            return (
                f"the database user may not do this in {where} while {action} ({text}); "
                f"grant it CREATE on the database's schema and SELECT/INSERT/UPDATE/"
                f"DELETE on Jev's tables (README: For teams)."
            )
        return (
            f"the Jev database {where} failed while {action} ({type(exc).__name__}: "
            f"{text}); if this repeats, check the server's log."
        )

    def close(self) -> None:
        """Close the connection (idempotent)."""
        if self._watchdog is not None:
            self._watchdog.stop()
            self._watchdog = None
        if self._conn is not None:
            with suppress(Exception):
                self._conn.close()
            self._conn = None


class _Watchdog:
    """The one thread that ends a backend's round trip the server does not answer.

    :meth:`arm` before a round trip, :meth:`disarm` after it (a lock and a notify, so
    thousands of statements cost no threads); when an armed round trip passes its
    time, :meth:`PostgresBackend._cut` shuts its socket down.
    """

    def __init__(self, backend: PostgresBackend) -> None:
        self._backend = backend
        self._cond = threading.Condition()
        self._armed: tuple[int, Any, float, float] | None = None  # token, conn, end, s
        self._tokens = 0
        self._stopped = False
        self._thread = threading.Thread(target=self._run, name="jev-pg-deadline", daemon=True)
        self._thread.start()

    def arm(self, conn: Any, seconds: float) -> int:
        """Watch ``conn`` for ``seconds``; returns the token for :meth:`disarm`."""
        with self._cond:
            self._tokens += 1
            self._armed = (self._tokens, conn, time.monotonic() + seconds, seconds)
            self._cond.notify()
            return self._tokens

    def disarm(self, token: int) -> None:
        """The round trip of ``token`` ended."""
        with self._cond:
            if self._armed is not None and self._armed[0] == token:
                self._armed = None

    def stop(self) -> None:
        """End the thread (the backend is closed)."""
        with self._cond:
            self._stopped = True
            self._cond.notify()

    def _run(self) -> None:
        with self._cond:
            while not self._stopped:
                if self._armed is None:
                    self._cond.wait()
                    continue
                _, conn, end, seconds = self._armed
                left = end - time.monotonic()
                if left > 0:
                    self._cond.wait(left)
                    continue
                self._armed = None
                self._backend._cut(conn, seconds)
