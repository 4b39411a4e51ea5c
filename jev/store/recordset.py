"""Records in the store: write, query, stream, prune, export and import (design.md §11)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

from jev.base.record import Record
from jev.store import rows
from jev.store.base import StoreBase, Transaction
from jev.store.jsonl import export_jsonl, read_jsonl
from jev.store.values import ImportReport, TurnKey

__all__ = ["RecordSet"]

_PAGE = 500


class RecordSet(StoreBase):
    """The ``records`` table's operations of :class:`jev.store.Store`."""

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
        rows.check_days(records_days)

        def body(tx: Transaction) -> int:
            record_id = tx.add_record(record)
            rows.maybe_prune(tx.db, records_days, tx.now)
            return record_id

        return self._run("writing a record", body, now)

    def get_record(self, record_id: int) -> Record | None:
        """The record with this id, or ``None``."""
        with self._lock, self._errors("reading a record"):
            row = self._db.execute(
                "SELECT id, data FROM records WHERE id = ?", (record_id,)
            ).fetchone()
        return None if row is None else rows.record_of(row)

    def list_records(
        self, session: str | None = None, limit: int = 50, since: float | None = None
    ) -> list[Record]:
        """Up to ``limit`` records, newest first, optionally of one session and/or
        created at or after ``since`` (epoch seconds)."""
        where, params = rows.where(session=session, since=since)
        sql = f"SELECT id, data FROM records {where} ORDER BY created_ts DESC, id DESC LIMIT ?"
        with self._lock, self._errors("listing records"):
            found = self._db.execute(sql, (*params, max(0, limit))).fetchall()
        return [rows.record_of(r) for r in found]

    def records_for_turn(self, key: TurnKey) -> list[Record]:
        """All records of one turn, in the order they happened."""
        with self._lock, self._errors("reading a turn's records"):
            found = self._db.execute(
                "SELECT id, data FROM records WHERE host = ? AND session = ? AND turn = ? "
                "ORDER BY created_ts, id",
                (key.host, key.session, key.turn),
            ).fetchall()
        return [rows.record_of(r) for r in found]

    def turns_matching(self, turn: str) -> list[TurnKey]:
        """Turns that have records and whose turn key equals or starts with ``turn``,
        most recent first (for ``jev records show PREFIX``)."""
        pattern = turn.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        with self._lock, self._errors("searching turns"):
            found = self._db.execute(
                "SELECT host, session, turn, MAX(created_ts) AS t FROM records "
                "WHERE turn = ? OR turn LIKE ? ESCAPE '\\' "
                "GROUP BY host, session, turn ORDER BY t DESC",
                (turn, pattern),
            ).fetchall()
        exact = [TurnKey(h, s, t) for h, s, t, _ in found if t == turn]
        return exact or [TurnKey(h, s, t) for h, s, t, _ in found]

    def iter_records(
        self, session: str | None = None, since: float | None = None
    ) -> Iterator[Record]:
        """Stream records oldest first (by id) in pages of 500, so replay over a big
        store holds little memory and no long read transaction."""
        last_id = 0
        while True:
            where, params = rows.where(session=session, since=since, after_id=last_id)
            sql = f"SELECT id, data FROM records {where} ORDER BY id LIMIT {_PAGE}"
            with self._lock, self._errors("reading records"):
                found = self._db.execute(sql, params).fetchall()
            if not found:
                return
            for row in found:
                yield rows.record_of(row)
            last_id = found[-1][0]

    def prune(self, records_days: int = 30) -> int:
        """Delete records older than ``records_days`` days (and turn state and
        session-index entries not updated for that long, unless a turn is leased)
        now; return how many records were deleted."""
        rows.check_days(records_days)
        return self._run(
            "pruning old records", lambda tx: rows.prune(tx.db, records_days, tx.now())
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
        return export_jsonl(self, target, session, self.secret_env)

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
        records = read_jsonl(Path(path))

        def body(tx: Transaction) -> ImportReport:
            inserted = 0
            tx.db.lock("import")
            for record in records:
                clean = rows.scrub_record(record.with_id(None), self.secret_env)
                exists = tx.db.execute(
                    "SELECT 1 FROM records WHERE digest = ? LIMIT 1", (clean.digest(),)
                ).fetchone()
                if exists is None:
                    tx.add_record(clean)
                    inserted += 1
            return ImportReport(
                read=len(records), inserted=inserted, duplicates=len(records) - inserted
            )

        return self._run("importing records", body)
