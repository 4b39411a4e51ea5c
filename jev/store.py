"""Records and per-turn loop state in one SQLite file (SPEC §11, §14).

Layout (``PRAGMA user_version`` counts the applied :data:`MIGRATIONS`):

* ``records``: one row per audit attempt; queryable columns plus the whole
  :class:`jev.records.Record` as JSON (``data``) and its ``digest``.
* ``turns``: per-turn loop state keyed by ``(host, session, turn)``: the loop state
  JSON, the last material hash, the last decision JSON (action, supplement text,
  report line: whatever the orchestrator puts there), ``lease_until`` (epoch seconds
  until which an audit of this turn is running) and created/updated times.
* ``meta``: small key/value facts (the time of the last retention pass).

Concurrency: the connection runs in WAL mode with a 10-second busy timeout; every
write is one ``BEGIN IMMEDIATE`` transaction, so concurrent hook processes serialise
on the write lock instead of losing updates. :meth:`Store.update_turn` is the
read-modify-write primitive; :meth:`Store.update_turn_and_record` also inserts
records in the same transaction ("save the new state + write the record" is atomic).

Retention: records older than ``records_days`` (and turn state not updated for that
long) are deleted by :meth:`Store.add_record` / :meth:`Store.update_turn_and_record`,
at most once per :data:`PRUNE_INTERVAL_S` (one hour, by the store's clock) so a hook
pays for it rarely; :meth:`Store.prune` forces a pass. Imports never prune.

Secrets: every string written (records, turn state, exports) is scrubbed first: the
values of the known provider key variables (:data:`KEY_ENV_NAMES`), of the variable
named by the record's ``settings.judge.api_key_env`` and of any extra names given to
the store are replaced with ``[REDACTED]``, as are ``Authorization``/``x-api-key``
header values and ``Bearer`` tokens. Values shorter than 8 characters are not
treated as keys. A scrubbed material no longer matches its ``material_hash``.

Every :class:`sqlite3.Error` is translated into :class:`jev.errors.StoreError` here,
with a message naming the file and what to do. Stdlib only.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO, Any, TypeVar, overload

from jev.errors import StoreError, UsageError
from jev.records import Record, iso_utc, parse_iso_utc, validate_record_json

__all__ = [
    "BUSY_TIMEOUT_S",
    "KEY_ENV_NAMES",
    "MIGRATIONS",
    "PRUNE_INTERVAL_S",
    "REDACTED",
    "ImportReport",
    "Record",
    "Store",
    "Transaction",
    "TurnKey",
    "TurnRow",
    "default_store_path",
    "redact",
]

T = TypeVar("T")

#: Seconds a writer waits for another process's write lock before giving up.
BUSY_TIMEOUT_S = 10.0
#: Minimum seconds between two automatic retention passes.
PRUNE_INTERVAL_S = 3600.0
#: What a scrubbed secret is replaced with.
REDACTED = "[REDACTED]"
#: Provider key variables whose values never reach the store.
KEY_ENV_NAMES: tuple[str, ...] = (
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "DEEPSEEK_API_KEY",
    "OPENROUTER_API_KEY",
    "GROQ_API_KEY",
    "MISTRAL_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "TOGETHER_API_KEY",
    "XAI_API_KEY",
    "FIREWORKS_API_KEY",
    "DASHSCOPE_API_KEY",
    "MOONSHOT_API_KEY",
    "AZURE_OPENAI_API_KEY",
)
_MIN_SECRET_CHARS = 8
_DAY_S = 86_400.0
_PAGE = 500

_HEADER_RE = re.compile(
    r"(?i)\b(authorization|x-api-key)(\"?\s*[:=]\s*\"?)(bearer\s+|basic\s+)?[^\s\"',;]+"
)
_BEARER_RE = re.compile(r"(?i)\bbearer\s+[A-Za-z0-9._~+/=-]{8,}")


def default_store_path() -> Path:
    """``<jev_home>/jev.sqlite3`` (:func:`jev.settings.jev_home`), where Jev keeps
    records and turn state."""
    from jev.settings import jev_home

    return jev_home() / "jev.sqlite3"


# ---------------------------------------------------------------------------- values


@dataclass(frozen=True, slots=True)
class TurnKey:
    """Identity of one turn's loop state (SPEC §14): host, session id, turn key."""

    host: str
    session: str
    turn: str

    def __str__(self) -> str:
        return f"{self.host}/{self.session}/{self.turn}"


@dataclass(frozen=True, slots=True)
class TurnRow:
    """The stored state of one turn.

    Attributes:
        key: the turn.
        state: loop state JSON (``jev.loop.LoopState.to_json()``), any JSON object.
        material_hash: hash of the material last audited, or ``None``.
        decision: the last decision JSON (action, supplement text, report line), or
            ``None``.
        lease_until: epoch seconds until which an audit of this turn is running
            (``None`` = no audit running).
        updated_at: epoch seconds of the last write (set by the store; ``None`` on a
            row not yet stored — any value given is ignored when writing).
        created_at: epoch seconds of the first write (set by the store).
    """

    key: TurnKey
    state: dict[str, Any]
    material_hash: str | None = None
    decision: dict[str, Any] | None = None
    lease_until: float | None = None
    updated_at: float | None = None
    created_at: float | None = None

    def leased(self, now: float) -> bool:
        """True while an audit of this turn holds an unexpired lease at ``now``."""
        return self.lease_until is not None and self.lease_until > now


@dataclass(frozen=True, slots=True)
class ImportReport:
    """Result of :meth:`Store.import_report`: lines with records read, records
    inserted, and records skipped because the store already held them."""

    read: int
    inserted: int
    duplicates: int


# ---------------------------------------------------------------------------- secrets


def _secret_values(extra_names: Sequence[str]) -> tuple[str, ...]:
    values = {os.environ.get(name, "") for name in (*KEY_ENV_NAMES, *extra_names) if name}
    keep = [v for v in values if len(v) >= _MIN_SECRET_CHARS]
    return tuple(sorted(keep, key=len, reverse=True))


def _scrub(value: Any, secrets: tuple[str, ...]) -> Any:
    if isinstance(value, str):
        for secret in secrets:
            if secret in value:
                value = value.replace(secret, REDACTED)
        value = _HEADER_RE.sub(
            lambda m: f"{m.group(1)}{m.group(2)}{m.group(3) or ''}{REDACTED}", value
        )
        return _BEARER_RE.sub(lambda m: m.group(0).split()[0] + " " + REDACTED, value)
    if isinstance(value, Mapping):
        return {_scrub(k, secrets): _scrub(v, secrets) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_scrub(v, secrets) for v in value]
    return value


def redact(value: Any, extra_env_names: Sequence[str] = ()) -> Any:
    """Return ``value`` (str, or JSON-like dict/list nesting) with secrets replaced.

    Replaces the values of :data:`KEY_ENV_NAMES` and ``extra_env_names`` found in the
    environment (when at least 8 characters long), ``Authorization``/``x-api-key``
    header values and ``Bearer`` tokens with :data:`REDACTED` (SPEC §11). Tuples
    come back as lists.
    """
    return _scrub(value, _secret_values(extra_env_names))


def _record_key_env(record: Record) -> tuple[str, ...]:
    judge = (record.settings or {}).get("judge")
    if isinstance(judge, Mapping):
        name = judge.get("api_key_env")
        if isinstance(name, str) and name:
            return (name,)
    return ()


# ---------------------------------------------------------------------------- migrations


def _m001_initial(conn: sqlite3.Connection) -> None:
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


def _m002_digest_and_retention(conn: sqlite3.Connection) -> None:
    conn.execute("ALTER TABLE records ADD COLUMN digest TEXT")
    rows = conn.execute("SELECT id, data FROM records").fetchall()
    for row_id, data in rows:
        digest = Record.from_json(json.loads(data)).digest()
        conn.execute("UPDATE records SET digest = ? WHERE id = ?", (digest, row_id))
    conn.execute("CREATE INDEX records_digest ON records(digest)")
    conn.execute("CREATE INDEX records_created ON records(created_ts)")
    conn.execute("CREATE INDEX turns_updated ON turns(updated_ts)")
    conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")


#: Ordered schema migrations; ``PRAGMA user_version`` = how many have been applied.
#: Append only: never edit or reorder a released migration.
MIGRATIONS: tuple[Callable[[sqlite3.Connection], None], ...] = (
    _m001_initial,
    _m002_digest_and_retention,
)


# ---------------------------------------------------------------------------- transaction


class Transaction:
    """Operations inside one ``BEGIN IMMEDIATE`` transaction (see :meth:`Store.transaction`).

    Everything done through one transaction commits together or not at all.
    """

    def __init__(self, store: Store, conn: sqlite3.Connection, now: Callable[[], float]) -> None:
        self._store = store
        self._conn = conn
        #: the clock of this transaction (epoch seconds).
        self.now = now

    def get_turn(self, key: TurnKey) -> TurnRow | None:
        """The turn's current row, or ``None``."""
        return self._store._get_turn(self._conn, key)

    def put_turn(self, row: TurnRow) -> TurnRow:
        """Insert or replace the turn's row; ``updated_at`` is set to the store's
        clock, ``created_at`` kept from the first write. Returns the row as stored."""
        return self._store._put_turn(self._conn, row, self.now)

    def delete_turn(self, key: TurnKey) -> bool:
        """Delete the turn's row; True if there was one."""
        cur = self._conn.execute(
            "DELETE FROM turns WHERE host = ? AND session = ? AND turn = ?",
            (key.host, key.session, key.turn),
        )
        return cur.rowcount > 0

    def add_record(self, record: Record) -> int:
        """Insert a record (scrubbed); return its new id."""
        return self._store._insert_record(self._conn, record, self.now)


# ---------------------------------------------------------------------------- store


class Store:
    """Jev's SQLite database of records and per-turn state (SPEC §11, §14).

    Args:
        path: the database file; default :func:`default_store_path`. Missing folders
            are created.
        now: clock returning epoch seconds (used for ``updated_at``, leases'
            bookkeeping and retention); pass a fake one in tests.
        secret_env: extra environment-variable names whose values must never be
            stored (the active profile's ``judge.api_key_env``).

    Raises:
        StoreError: when the file cannot be created, opened or migrated, is not a
            SQLite database, or was written by a newer Jev.

    One instance holds one connection and may be shared by threads (calls are
    serialised by a lock). Use it as a context manager or call :meth:`close`.
    """

    def __init__(
        self,
        path: Path | str | None = None,
        *,
        now: Callable[[], float] = time.time,
        secret_env: Sequence[str] = (),
    ) -> None:
        self.path = Path(path) if path is not None else default_store_path()
        self._now = now
        self._secret_env = tuple(secret_env)
        self._lock = threading.RLock()
        self._in_tx = False
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(
                f"cannot create the folder {self.path.parent} for Jev's database "
                f"({exc.strerror or exc}); set JEV_HOME to a writable folder."
            ) from None
        self._conn: sqlite3.Connection | None = None
        with self._errors("opening"):
            conn = sqlite3.connect(
                str(self.path),
                timeout=BUSY_TIMEOUT_S,
                isolation_level=None,
                check_same_thread=False,
            )
            try:
                conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
                conn.execute("PRAGMA journal_mode = WAL")
                conn.execute("PRAGMA foreign_keys = ON")
                conn.execute("PRAGMA synchronous = NORMAL")
                self._migrate(conn)
            except BaseException:
                conn.close()
                raise
            self._conn = conn

    # -- lifecycle -------------------------------------------------------------------

    def close(self) -> None:
        """Close the connection (idempotent)."""
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def schema_version(self) -> int:
        """The database's ``PRAGMA user_version`` (number of applied migrations)."""
        with self._lock, self._errors("reading the schema version"):
            version: int = self._connection().execute("PRAGMA user_version").fetchone()[0]
            return version

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            raise StoreError(f"the Jev database {self.path} was already closed; open a new Store.")
        return self._conn

    def _migrate(self, conn: sqlite3.Connection) -> None:
        known = len(MIGRATIONS)
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
                MIGRATIONS[index](conn)
            if version < known:
                conn.execute(f"PRAGMA user_version = {known}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise

    @contextmanager
    def _errors(self, action: str) -> Iterator[None]:
        try:
            yield
        except sqlite3.Error as exc:
            raise StoreError(self._describe(exc, action)) from None

    def _describe(self, exc: sqlite3.Error, action: str) -> str:
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

    # -- transactions ----------------------------------------------------------------

    @contextmanager
    def transaction(self, now: Callable[[], float] | None = None) -> Iterator[Transaction]:
        """Run a block inside ONE ``BEGIN IMMEDIATE`` transaction.

        Commits when the block ends normally; rolls back and re-raises when it
        raises. Nested use raises :class:`RuntimeError`.

        Raises:
            StoreError: when SQLite fails (e.g. the write lock stays taken for more
                than :data:`BUSY_TIMEOUT_S`).
        """
        with self._lock:
            if self._in_tx:
                raise RuntimeError("Store.transaction() does not nest")
            conn = self._connection()
            with self._errors("starting a transaction"):
                conn.execute("BEGIN IMMEDIATE")
            self._in_tx = True
            try:
                yield Transaction(self, conn, now or self._now)
            except BaseException:
                self._in_tx = False
                with suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
                raise
            self._in_tx = False
            with self._errors("committing"):
                try:
                    conn.execute("COMMIT")
                except sqlite3.Error:
                    with suppress(sqlite3.Error):
                        conn.execute("ROLLBACK")
                    raise

    def _run(
        self,
        action: str,
        body: Callable[[Transaction], T],
        now: Callable[[], float] | None = None,
    ) -> T:
        with self.transaction(now) as tx, self._errors(action):
            return body(tx)

    # -- per-turn state --------------------------------------------------------------

    def get_turn(self, key: TurnKey) -> TurnRow | None:
        """The stored state of ``key``'s turn, or ``None`` (SPEC §11 per-turn state)."""
        with self._lock, self._errors("reading turn state"):
            return self._get_turn(self._connection(), key)

    @overload
    def update_turn(
        self,
        key: TurnKey,
        fn: Callable[[TurnRow | None], tuple[TurnRow | None, Sequence[Record], T]],
        *,
        now: Callable[[], float] | None = None,
        records_days: int = 30,
    ) -> T: ...

    @overload
    def update_turn(
        self,
        key: TurnKey,
        fn: Callable[[TurnRow | None], tuple[TurnRow | None, T]],
        *,
        now: Callable[[], float] | None = None,
        records_days: int = 30,
    ) -> T: ...

    def update_turn(
        self,
        key: TurnKey,
        fn: Callable[[TurnRow | None], tuple[Any, ...]],
        *,
        now: Callable[[], float] | None = None,
        records_days: int = 30,
    ) -> Any:
        """Read-modify-write one turn's state atomically; return ``fn``'s result.

        ``fn(current_row_or_None)`` runs inside ONE ``BEGIN IMMEDIATE`` transaction
        (no other process can write between the read and the write) and returns
        either ``(new_row_or_None, result)`` or ``(new_row_or_None, records, result)``.
        ``new_row`` (its ``key`` must equal ``key``) is stored; ``None`` leaves the row
        unchanged. ``records`` (a sequence of :class:`Record`) are inserted in the same
        transaction, so the new state and its records commit together or not at all;
        when any are inserted a retention pass may run (``records_days``, see the
        module docstring). If ``fn`` raises, nothing is written and the exception
        propagates. Keep ``fn`` short and free of judge calls: it holds the
        database's write lock.

        Args:
            now: clock for this call (``updated_at``, retention); default the store's.

        Raises:
            ValueError: when ``new_row.key != key``, ``fn`` returns another shape, or
                ``records_days`` is outside 1 … 3650.
            StoreError: on database failure.
        """
        _check_days(records_days)

        def body(tx: Transaction) -> Any:
            returned = fn(tx.get_turn(key))
            if len(returned) == 3:
                new_row, records, result = returned
            elif len(returned) == 2:
                (new_row, result), records = returned, ()
            else:
                raise ValueError(
                    "update_turn's fn must return (row, result) or (row, records, result)"
                )
            self._apply(tx, key, new_row, records, records_days)
            return result

        return self._run("updating turn state", body, now)

    def update_turn_and_record(
        self,
        key: TurnKey,
        fn: Callable[[TurnRow | None], tuple[TurnRow | None, Sequence[Record], T]],
        *,
        now: Callable[[], float] | None = None,
        records_days: int = 30,
    ) -> tuple[T, list[int]]:
        """Like :meth:`update_turn` with records, also returning the new record ids.

        ``fn(current) -> (new_row_or_None, records, result)``; returns
        ``(result, ids of the inserted records)``; one transaction.

        Raises:
            ValueError: when ``new_row.key != key`` or ``records_days`` is outside
                1 … 3650.
            StoreError: on database failure.
        """
        _check_days(records_days)

        def body(tx: Transaction) -> tuple[T, list[int]]:
            new_row, records, result = fn(tx.get_turn(key))
            return result, self._apply(tx, key, new_row, records, records_days)

        return self._run("saving turn state and records", body, now)

    def _apply(
        self,
        tx: Transaction,
        key: TurnKey,
        new_row: TurnRow | None,
        records: Sequence[Record],
        records_days: int,
    ) -> list[int]:
        if new_row is not None:
            if not isinstance(new_row, TurnRow):
                raise ValueError(f"update_turn({key}) must return a TurnRow or None as the row")
            if new_row.key != key:
                raise ValueError(f"update_turn({key}) returned a row for {new_row.key}")
            tx.put_turn(new_row)
        ids = [tx.add_record(r) for r in records]
        if ids:
            self._maybe_prune(tx._conn, records_days, tx.now)
        return ids

    def delete_turn(self, key: TurnKey) -> bool:
        """Forget one turn's state (its records stay); True if a row was deleted."""
        return self._run("deleting turn state", lambda tx: tx.delete_turn(key))

    def latest_turn(self, host: str | None = None, session: str | None = None) -> TurnRow | None:
        """The most recently updated turn, optionally of one host and/or session
        (for ``jev retry`` / ``jev cancel``); ``None`` when there is none."""
        where, params = _where(host=host, session=session)
        sql = (
            "SELECT host, session, turn, state, material_hash, decision, lease_until, "
            f"created_ts, updated_ts FROM turns {where} ORDER BY updated_ts DESC, rowid DESC "
            "LIMIT 1"
        )
        with self._lock, self._errors("reading turn state"):
            row = self._connection().execute(sql, params).fetchone()
        return None if row is None else _turn_row(row)

    def _get_turn(self, conn: sqlite3.Connection, key: TurnKey) -> TurnRow | None:
        row = conn.execute(
            "SELECT host, session, turn, state, material_hash, decision, lease_until, "
            "created_ts, updated_ts FROM turns WHERE host = ? AND session = ? AND turn = ?",
            (key.host, key.session, key.turn),
        ).fetchone()
        return None if row is None else _turn_row(row)

    def _put_turn(
        self, conn: sqlite3.Connection, row: TurnRow, clock: Callable[[], float]
    ) -> TurnRow:
        secrets = _secret_values(self._secret_env)
        state = _scrub(dict(row.state), secrets)
        decision = None if row.decision is None else _scrub(dict(row.decision), secrets)
        now = clock()
        conn.execute(
            """INSERT INTO turns (host, session, turn, state, material_hash, decision,
                   lease_until, created_ts, updated_ts)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
               ON CONFLICT (host, session, turn) DO UPDATE SET
                   state = excluded.state, material_hash = excluded.material_hash,
                   decision = excluded.decision, lease_until = excluded.lease_until,
                   updated_ts = excluded.updated_ts""",
            (
                row.key.host,
                row.key.session,
                row.key.turn,
                _dumps(state),
                row.material_hash,
                None if decision is None else _dumps(decision),
                row.lease_until,
                now,
                now,
            ),
        )
        stored = self._get_turn(conn, row.key)
        assert stored is not None
        return stored

    # -- records ---------------------------------------------------------------------

    def add_record(
        self,
        record: Record,
        *,
        records_days: int = 30,
        now: Callable[[], float] | None = None,
    ) -> int:
        """Insert one record (scrubbed of secrets); return its id.

        ``record.created_at`` is kept; an empty one is set to the store's clock. The
        record is checked against ``schemas/record.schema.json`` before it is stored
        (so every stored record can be exported). May run a retention pass deleting
        records older than ``records_days`` days.

        Raises:
            ValueError: for an unparsable ``created_at``, a record that does not match
                the schema, or ``records_days`` outside 1 … 3650.
            StoreError: on database failure.
        """
        _check_days(records_days)

        def body(tx: Transaction) -> int:
            record_id = tx.add_record(record)
            self._maybe_prune(tx._conn, records_days, tx.now)
            return record_id

        return self._run("writing a record", body, now)

    def get_record(self, record_id: int) -> Record | None:
        """The record with this id, or ``None``."""
        with self._lock, self._errors("reading a record"):
            row = (
                self._connection()
                .execute("SELECT id, data FROM records WHERE id = ?", (record_id,))
                .fetchone()
            )
        return None if row is None else _record(row)

    def list_records(
        self, session: str | None = None, limit: int = 50, since: float | None = None
    ) -> list[Record]:
        """Up to ``limit`` records, newest first, optionally of one session and/or
        created at or after ``since`` (epoch seconds)."""
        where, params = _where(session=session, since=since)
        sql = f"SELECT id, data FROM records {where} ORDER BY created_ts DESC, id DESC LIMIT ?"
        with self._lock, self._errors("listing records"):
            rows = self._connection().execute(sql, (*params, max(0, limit))).fetchall()
        return [_record(r) for r in rows]

    def records_for_turn(self, key: TurnKey) -> list[Record]:
        """All records of one turn, in the order they happened."""
        with self._lock, self._errors("reading a turn's records"):
            rows = (
                self._connection()
                .execute(
                    "SELECT id, data FROM records WHERE host = ? AND session = ? AND turn = ? "
                    "ORDER BY created_ts, id",
                    (key.host, key.session, key.turn),
                )
                .fetchall()
            )
        return [_record(r) for r in rows]

    def turns_matching(self, turn: str) -> list[TurnKey]:
        """Turns that have records and whose turn key equals or starts with ``turn``,
        most recent first (for ``jev records show PREFIX``)."""
        pattern = turn.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        with self._lock, self._errors("searching turns"):
            rows = (
                self._connection()
                .execute(
                    "SELECT host, session, turn, MAX(created_ts) AS t FROM records "
                    "WHERE turn = ? OR turn LIKE ? ESCAPE '\\' "
                    "GROUP BY host, session, turn ORDER BY t DESC",
                    (turn, pattern),
                )
                .fetchall()
            )
        exact = [TurnKey(h, s, t) for h, s, t, _ in rows if t == turn]
        return exact or [TurnKey(h, s, t) for h, s, t, _ in rows]

    def iter_records(
        self, session: str | None = None, since: float | None = None
    ) -> Iterator[Record]:
        """Stream records oldest first (by id) in pages of 500, so replay over a big
        store holds little memory and no long read transaction."""
        last_id = 0
        while True:
            where, params = _where(session=session, since=since, after_id=last_id)
            sql = f"SELECT id, data FROM records {where} ORDER BY id LIMIT {_PAGE}"
            with self._lock, self._errors("reading records"):
                rows = self._connection().execute(sql, params).fetchall()
            if not rows:
                return
            for row in rows:
                yield _record(row)
            last_id = rows[-1][0]

    def prune(self, records_days: int = 30) -> int:
        """Delete records older than ``records_days`` days (and turn state not updated
        for that long, unless leased) now; return how many records were deleted."""
        _check_days(records_days)
        return self._run(
            "pruning old records", lambda tx: self._prune(tx._conn, records_days, tx.now())
        )

    def _maybe_prune(
        self, conn: sqlite3.Connection, records_days: int, clock: Callable[[], float]
    ) -> None:
        now = clock()
        row = conn.execute("SELECT value FROM meta WHERE key = 'last_prune_ts'").fetchone()
        if row is not None:
            last = float(row[0])
            if 0 <= now - last < PRUNE_INTERVAL_S:
                return
        self._prune(conn, records_days, now)

    def _prune(self, conn: sqlite3.Connection, records_days: int, now: float) -> int:
        cutoff = now - records_days * _DAY_S
        deleted = conn.execute("DELETE FROM records WHERE created_ts < ?", (cutoff,)).rowcount
        conn.execute(
            "DELETE FROM turns WHERE updated_ts < ? AND (lease_until IS NULL OR lease_until < ?)",
            (cutoff, now),
        )
        conn.execute(
            "INSERT INTO meta (key, value) VALUES ('last_prune_ts', ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (repr(now),),
        )
        return int(deleted)

    def _scrub_record(self, record: Record) -> Record:
        secrets = _secret_values((*self._secret_env, *_record_key_env(record)))
        return Record.from_json(_scrub(record.to_json(), secrets))

    def _insert_record(
        self, conn: sqlite3.Connection, record: Record, clock: Callable[[], float]
    ) -> int:
        if not record.created_at:
            record = replace(record, created_at=iso_utc(clock()))
        created_ts = parse_iso_utc(record.created_at)
        clean = self._scrub_record(record.with_id(None))
        try:
            validate_record_json(clean.to_json())
        except ValueError as exc:
            raise ValueError(
                f"record of turn {clean.host}/{clean.session}/{clean.turn} does not match "
                f"schemas/record.schema.json ({exc}); it was not stored"
            ) from None
        focus_id = None if clean.focus is None else clean.focus.get("id")
        action_kind = None if clean.action is None else clean.action.get("kind")
        cur = conn.execute(
            """INSERT INTO records (created_at, created_ts, profile, host, session, turn,
                   turn_number, round, status, assessment, focus_id, action_kind,
                   material_hash, data, digest)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
            (
                clean.created_at,
                created_ts,
                clean.profile,
                clean.host,
                clean.session,
                clean.turn,
                clean.turn_number,
                clean.round,
                clean.status,
                clean.assessment,
                focus_id,
                action_kind,
                clean.material_hash,
                _dumps(clean.to_json()),
                clean.digest(),
            ),
        )
        assert cur.lastrowid is not None
        return int(cur.lastrowid)

    # -- JSONL -----------------------------------------------------------------------

    def export_jsonl(self, target: Path | str | IO[str], session: str | None = None) -> int:
        """Write records (oldest first) as JSON lines; return how many.

        Each line is checked against ``schemas/record.schema.json`` and scrubbed of
        secrets. A path target is written atomically (temporary file + rename);
        a text stream is written as is.

        Raises:
            StoreError: when a stored record does not match the schema (nothing is
                written to a path target) or the database fails.
            UsageError: when the target file cannot be written.
        """
        if not isinstance(target, str | Path):
            return self._write_lines(target, session)
        path = Path(target)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        try:
            with tmp.open("w", encoding="utf-8", newline="\n") as handle:
                count = self._write_lines(handle, session)
            os.replace(tmp, path)
        except OSError as exc:
            raise UsageError(
                f"cannot write {path} ({exc.strerror or exc}); choose a writable path."
            ) from None
        finally:
            if tmp.exists():
                tmp.unlink()
        return count

    def _write_lines(self, handle: IO[str], session: str | None) -> int:
        count = 0
        secrets_base = self._secret_env
        for record in self.iter_records(session=session):
            data = _scrub(
                record.to_json(), _secret_values((*secrets_base, *_record_key_env(record)))
            )
            try:
                validate_record_json(data)
            except ValueError as exc:
                raise StoreError(
                    f"record {record.id} in {self.path} does not match the record schema "
                    f"({exc}); the export was not completed. Export other sessions with "
                    f"--session, or report this as a bug."
                ) from None
            handle.write(_dumps(data) + "\n")
            count += 1
        return count

    def import_jsonl(self, path: Path | str) -> int:
        """Import records from a JSONL file; return how many were inserted.

        All-or-nothing: every line is parsed and validated first; one bad line
        imports nothing (see :meth:`import_report`).
        """
        return self.import_report(path).inserted

    def import_report(self, path: Path | str) -> ImportReport:
        """Import records from a JSONL export, all-or-nothing.

        Blank lines are ignored. Each record gets a new id; a record the store
        already holds (same :meth:`Record.digest` after scrubbing) is skipped, so
        importing a file twice adds nothing. Imports never prune.

        Raises:
            UsageError: the file cannot be read, or a line is not JSON or not a valid
                record; the message names the line number. Nothing is imported.
            StoreError: on database failure (nothing is imported).
        """
        source = Path(path)
        try:
            raw = source.read_bytes()
        except OSError as exc:
            raise UsageError(
                f"cannot read {source} ({exc.strerror or exc}); check the path."
            ) from None
        records: list[Record] = []
        for number, line in enumerate(raw.split(b"\n"), start=1):
            if not line.strip():
                continue
            where = f"{source} line {number}"
            fix = "nothing was imported; fix or remove that line and import again."
            try:
                data = json.loads(line.decode("utf-8"))
            except UnicodeDecodeError:
                raise UsageError(f"{where} is not UTF-8 text; {fix}") from None
            except json.JSONDecodeError as exc:
                raise UsageError(f"{where} is not valid JSON ({exc.msg}); {fix}") from None
            try:
                validate_record_json(data)
                records.append(Record.from_json(data))
            except (ValueError, TypeError, KeyError) as exc:
                raise UsageError(f"{where} is not a Jev record: {exc}; {fix}") from None

        def body(tx: Transaction) -> ImportReport:
            inserted = 0
            conn = tx._conn
            for record in records:
                clean = self._scrub_record(record.with_id(None))
                exists = conn.execute(
                    "SELECT 1 FROM records WHERE digest = ? LIMIT 1", (clean.digest(),)
                ).fetchone()
                if exists is None:
                    tx.add_record(clean)
                    inserted += 1
            return ImportReport(
                read=len(records), inserted=inserted, duplicates=len(records) - inserted
            )

        return self._run("importing records", body)


# ---------------------------------------------------------------------------- helpers


def _check_days(records_days: int) -> None:
    if isinstance(records_days, bool) or not isinstance(records_days, int):
        raise ValueError(f"records_days must be an integer 1 … 3650, got {records_days!r}")
    if not 1 <= records_days <= 3650:
        raise ValueError(f"records_days must be 1 … 3650, got {records_days}")


def _dumps(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def _where(
    *,
    host: str | None = None,
    session: str | None = None,
    since: float | None = None,
    after_id: int | None = None,
) -> tuple[str, tuple[Any, ...]]:
    clauses: list[str] = []
    params: list[Any] = []
    if host is not None:
        clauses.append("host = ?")
        params.append(host)
    if session is not None:
        clauses.append("session = ?")
        params.append(session)
    if since is not None:
        clauses.append("created_ts >= ?")
        params.append(float(since))
    if after_id is not None:
        clauses.append("id > ?")
        params.append(after_id)
    return ("WHERE " + " AND ".join(clauses) if clauses else ""), tuple(params)


def _record(row: tuple[Any, ...]) -> Record:
    record_id, data = row
    return Record.from_json(json.loads(data)).with_id(int(record_id))


def _turn_row(row: tuple[Any, ...]) -> TurnRow:
    host, session, turn, state, material_hash, decision, lease_until, created, updated = row
    return TurnRow(
        key=TurnKey(host, session, turn),
        state=json.loads(state),
        material_hash=material_hash,
        decision=None if decision is None else json.loads(decision),
        lease_until=lease_until,
        updated_at=float(updated),
        created_at=float(created),
    )
