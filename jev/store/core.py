"""The store interface: records and per-turn loop state (design.md §11, §14).

:class:`Store` holds the logic shared by every backend (see :mod:`jev.store` for the
layout, concurrency, retention and secrets rules); a :class:`jev.store.backend.Backend`
supplies the connection and dialect. Every driver error is translated into
:class:`jev.errors.StoreError` here, with a message naming the database and what to do.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import IO, Any, TypeVar, overload

from jev.errors import StoreError
from jev.records import Record, iso_utc, parse_iso_utc, validate_record_json
from jev.store.backend import Backend
from jev.store.migrations import MIGRATIONS
from jev.store.secrets import record_key_env, scrub, secret_values
from jev.store.values import PRUNE_INTERVAL_S, ImportReport, TurnKey, TurnRow, dumps

__all__ = ["Store", "Transaction", "default_store_path"]

T = TypeVar("T")

_DAY_S = 86_400.0
_PAGE = 500
_TURN_COLUMNS = (
    "host, session, turn, state, material_hash, decision, lease_until, created_ts, updated_ts"
)


def default_store_path() -> Path:
    """``<jev_home>/jev.sqlite3`` (:func:`jev.settings.jev_home`), where Jev keeps
    records and turn state."""
    from jev.settings import jev_home

    return jev_home() / "jev.sqlite3"


# ---------------------------------------------------------------------------- transaction


class Transaction:
    """Operations inside one write transaction (see :meth:`Store.transaction`).

    Everything done through one transaction commits together or not at all.
    """

    def __init__(self, store: Store, db: Backend, now: Callable[[], float]) -> None:
        self._store = store
        self._db = db
        #: the clock of this transaction (epoch seconds).
        self.now = now

    def get_turn(self, key: TurnKey) -> TurnRow | None:
        """The turn's current row, or ``None``. Claims the turn: until this
        transaction ends, no other writer can read-modify-write it."""
        self._db.lock(f"turn:{key}")
        return self._store._get_turn(self._db, key)

    def put_turn(self, row: TurnRow) -> TurnRow:
        """Insert or replace the turn's row; ``updated_at`` is set to the store's
        clock, ``created_at`` kept from the first write. Returns the row as stored."""
        return self._store._put_turn(self._db, row, self.now)

    def delete_turn(self, key: TurnKey) -> bool:
        """Delete the turn's row; True if there was one."""
        cur = self._db.execute(
            "DELETE FROM turns WHERE host = ? AND session = ? AND turn = ?",
            (key.host, key.session, key.turn),
        )
        return cur.rowcount > 0

    def add_record(self, record: Record) -> int:
        """Insert a record (scrubbed); return its new id."""
        return self._store._insert_record(self._db, record, self.now)


# ---------------------------------------------------------------------------- store


class Store:
    """Jev's database of records and per-turn state (design.md §11, §14).

    Args:
        path: the SQLite database file, or a store URL (``sqlite:///path``,
            ``postgresql://user@host:port/db``). Default: the URL configured in
            ``JEV_STORE_URL`` / ``store.url`` (:mod:`jev.team`), else
            :func:`default_store_path`. Missing folders are created.
        url: a store URL (wins over ``path``).
        now: clock returning epoch seconds (used for ``updated_at``, leases'
            bookkeeping and retention); pass a fake one in tests.
        secret_env: extra environment-variable names whose values must never be
            stored (the active profile's ``judge.api_key_env``).

    Raises:
        StoreError: when the database cannot be created, opened or migrated, is not
            a Jev database, or was written by a newer Jev.

    One instance holds one connection and may be shared by threads (calls are
    serialised by a lock). Use it as a context manager or call :meth:`close`.
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
        self._secret_env = tuple(secret_env)
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

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

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
            raise StoreError(self._db.describe(exc, action)) from None

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

    # -- per-turn state --------------------------------------------------------------

    def get_turn(self, key: TurnKey) -> TurnRow | None:
        """The stored state of ``key``'s turn, or ``None`` (design.md §11 per-turn state)."""
        with self._lock, self._errors("reading turn state"):
            return self._get_turn(self._db, key)

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

        ``fn(current_row_or_None)`` runs inside ONE write transaction that claims the
        turn (no other process can write it between the read and the write) and
        returns either ``(new_row_or_None, result)`` or ``(new_row_or_None, records,
        result)``. ``new_row`` (its ``key`` must equal ``key``) is stored; ``None``
        leaves the row unchanged. ``records`` (a sequence of :class:`Record`) are
        inserted in the same transaction, so the new state and its records commit
        together or not at all; when any are inserted a retention pass may run
        (``records_days``, see :mod:`jev.store`). If ``fn`` raises, nothing is
        written and the exception propagates. Keep ``fn`` short and free of judge
        calls: it holds the turn's lock (on SQLite, the database's write lock).

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
            self._maybe_prune(tx._db, records_days, tx.now)
        return ids

    def delete_turn(self, key: TurnKey) -> bool:
        """Forget one turn's state (its records stay); True if a row was deleted."""
        return self._run("deleting turn state", lambda tx: tx.delete_turn(key))

    def latest_turn(self, host: str | None = None, session: str | None = None) -> TurnRow | None:
        """The most recently updated turn, optionally of one host and/or session
        (for ``jev retry`` / ``jev cancel``); ``None`` when there is none."""
        where, params = _where(host=host, session=session)
        sql = (
            f"SELECT {_TURN_COLUMNS} FROM turns {where} "
            f"ORDER BY {self._db.latest_turn_order} LIMIT 1"
        )
        with self._lock, self._errors("reading turn state"):
            row = self._db.execute(sql, params).fetchone()
        return None if row is None else _turn_row(row)

    def _get_turn(self, db: Backend, key: TurnKey) -> TurnRow | None:
        row = db.execute(
            f"SELECT {_TURN_COLUMNS} FROM turns WHERE host = ? AND session = ? AND turn = ?",
            (key.host, key.session, key.turn),
        ).fetchone()
        return None if row is None else _turn_row(row)

    def _put_turn(self, db: Backend, row: TurnRow, clock: Callable[[], float]) -> TurnRow:
        secrets = secret_values(self._secret_env)
        state = scrub(dict(row.state), secrets)
        decision = None if row.decision is None else scrub(dict(row.decision), secrets)
        now = clock()
        db.execute(
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
                dumps(state),
                row.material_hash,
                None if decision is None else dumps(decision),
                row.lease_until,
                now,
                now,
            ),
        )
        stored = self._get_turn(db, row.key)
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
            self._maybe_prune(tx._db, records_days, tx.now)
            return record_id

        return self._run("writing a record", body, now)

    def get_record(self, record_id: int) -> Record | None:
        """The record with this id, or ``None``."""
        with self._lock, self._errors("reading a record"):
            row = self._db.execute(
                "SELECT id, data FROM records WHERE id = ?", (record_id,)
            ).fetchone()
        return None if row is None else _record(row)

    def list_records(
        self, session: str | None = None, limit: int = 50, since: float | None = None
    ) -> list[Record]:
        """Up to ``limit`` records, newest first, optionally of one session and/or
        created at or after ``since`` (epoch seconds)."""
        where, params = _where(session=session, since=since)
        sql = f"SELECT id, data FROM records {where} ORDER BY created_ts DESC, id DESC LIMIT ?"
        with self._lock, self._errors("listing records"):
            rows = self._db.execute(sql, (*params, max(0, limit))).fetchall()
        return [_record(r) for r in rows]

    def records_for_turn(self, key: TurnKey) -> list[Record]:
        """All records of one turn, in the order they happened."""
        with self._lock, self._errors("reading a turn's records"):
            rows = self._db.execute(
                "SELECT id, data FROM records WHERE host = ? AND session = ? AND turn = ? "
                "ORDER BY created_ts, id",
                (key.host, key.session, key.turn),
            ).fetchall()
        return [_record(r) for r in rows]

    def turns_matching(self, turn: str) -> list[TurnKey]:
        """Turns that have records and whose turn key equals or starts with ``turn``,
        most recent first (for ``jev records show PREFIX``)."""
        pattern = turn.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        with self._lock, self._errors("searching turns"):
            rows = self._db.execute(
                "SELECT host, session, turn, MAX(created_ts) AS t FROM records "
                "WHERE turn = ? OR turn LIKE ? ESCAPE '\\' "
                "GROUP BY host, session, turn ORDER BY t DESC",
                (turn, pattern),
            ).fetchall()
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
                rows = self._db.execute(sql, params).fetchall()
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
            "pruning old records", lambda tx: self._prune(tx._db, records_days, tx.now())
        )

    def _maybe_prune(self, db: Backend, records_days: int, clock: Callable[[], float]) -> None:
        now = clock()
        row = db.execute("SELECT value FROM meta WHERE key = 'last_prune_ts'").fetchone()
        if row is not None:
            last = float(row[0])
            if 0 <= now - last < PRUNE_INTERVAL_S:
                return
        self._prune(db, records_days, now)

    def _prune(self, db: Backend, records_days: int, now: float) -> int:
        cutoff = now - records_days * _DAY_S
        deleted = db.execute("DELETE FROM records WHERE created_ts < ?", (cutoff,)).rowcount
        db.execute(
            "DELETE FROM turns WHERE updated_ts < ? AND (lease_until IS NULL OR lease_until < ?)",
            (cutoff, now),
        )
        db.execute(
            "INSERT INTO meta (key, value) VALUES ('last_prune_ts', ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (repr(now),),
        )
        return int(deleted)

    def _scrub_record(self, record: Record) -> Record:
        secrets = secret_values((*self._secret_env, *record_key_env(record)))
        return Record.from_json(scrub(record.to_json(), secrets))

    def _insert_record(self, db: Backend, record: Record, clock: Callable[[], float]) -> int:
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
        return db.insert(
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
                dumps(clean.to_json()),
                clean.digest(),
            ),
        )

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
        from jev.store.jsonl import export_jsonl

        return export_jsonl(self, target, session, self._secret_env)

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
        from jev.store.jsonl import read_jsonl

        records = read_jsonl(Path(path))

        def body(tx: Transaction) -> ImportReport:
            inserted = 0
            tx._db.lock("import")
            for record in records:
                clean = self._scrub_record(record.with_id(None))
                exists = tx._db.execute(
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
