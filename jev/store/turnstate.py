"""Per-turn loop state in the store: the read-modify-write that keeps the supplement
bound (design.md §8, §11, §14)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar, overload

from jev.base.record import Record
from jev.store import rows
from jev.store.base import StoreBase, Transaction
from jev.store.values import TurnKey, TurnRow

__all__ = ["TurnState"]

T = TypeVar("T")


class TurnState(StoreBase):
    """The ``turns`` table's operations of :class:`jev.store.Store`."""

    def get_turn(self, key: TurnKey) -> TurnRow | None:
        """The stored state of ``key``'s turn, or ``None`` (design.md §11 per-turn state)."""
        with self._lock, self._errors("reading turn state"):
            return rows.get_turn(self._db, key)

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
        rows.check_days(records_days)

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
            _apply(tx, key, new_row, records, records_days)
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
        rows.check_days(records_days)

        def body(tx: Transaction) -> tuple[T, list[int]]:
            new_row, records, result = fn(tx.get_turn(key))
            return result, _apply(tx, key, new_row, records, records_days)

        return self._run("saving turn state and records", body, now)

    def delete_turn(self, key: TurnKey) -> bool:
        """Forget one turn's state (its records stay); True if a row was deleted."""
        return self._run("deleting turn state", lambda tx: tx.delete_turn(key))

    def latest_turn(self, host: str | None = None, session: str | None = None) -> TurnRow | None:
        """The most recently updated turn, optionally of one host and/or session
        (for ``jev retry`` / ``jev cancel``); ``None`` when there is none."""
        where, params = rows.where(host=host, session=session)
        sql = (
            f"SELECT {rows.TURN_COLUMNS} FROM turns {where} "
            f"ORDER BY {self._db.latest_turn_order} LIMIT 1"
        )
        with self._lock, self._errors("reading turn state"):
            row = self._db.execute(sql, params).fetchone()
        return None if row is None else rows.turn_row(row)


def _apply(
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
        rows.maybe_prune(tx.db, records_days, tx.now)
    return ids
