"""The store interface: records, per-turn loop state and the session index (design.md §11, §14).

:class:`Store` is the one class callers use; its parts live one responsibility per
module (see :mod:`jev.store` for the layout, concurrency, retention and secrets
rules):

* :mod:`jev.store.base` — opening the backend, write transactions, error translation;
* :mod:`jev.store.turnstate` — per-turn loop state (the supplement bound's
  read-modify-write);
* :mod:`jev.store.recordset` — records: write, query, stream, prune, JSONL;
* :mod:`jev.store.sessions` — the hook's session index;
* :mod:`jev.store.rows` — the row-level SQL they share.

A :class:`jev.store.backend.Backend` supplies the connection and dialect. Every driver
error is translated into :class:`jev.base.errors.StoreError`, with a message naming the
database and what to do.
"""

from __future__ import annotations

from jev.store.base import Transaction, default_store_path
from jev.store.recordset import RecordSet
from jev.store.sessions import Sessions
from jev.store.turnstate import TurnState

__all__ = ["Store", "Transaction", "default_store_path"]


class Store(TurnState, RecordSet, Sessions):
    """Jev's database of records, per-turn state and the session index (design.md §11, §14).

    Args:
        path: the SQLite database file, or a store URL (``sqlite:///path``,
            ``postgresql://user@host:port/db``). Default: the URL configured in
            ``JEV_STORE_URL`` / ``store.url`` (:mod:`jev.settings.team`), else
            :func:`default_store_path`. Missing folders are created.
        url: a store URL (wins over ``path``).
        now: clock returning epoch seconds (used for ``updated_at``, leases'
            bookkeeping and retention); pass a fake one in tests.
        secret_env: extra environment-variable names whose values must never be
            stored (the active profile's ``judge.api_key_env``).

    Raises:
        StoreError: when the database cannot be created, opened or migrated, is not
            a Jev database, or was written by a newer Jev
            (:class:`jev.base.errors.StoreDamaged` when a SQLite file is not a database
            or is corrupt).

    One instance holds one connection and may be shared by threads (calls are
    serialised by a lock). Use it as a context manager or call :meth:`close`.
    """

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
