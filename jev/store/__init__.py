"""Records, per-turn loop state and the session index in one database (design.md §11, §14).

The store is a SQLite file under ``JEV_HOME`` by default; both backends run the same
ordered :data:`MIGRATIONS` and share one interface, :class:`Store`.

Layout:

* ``records``: one row per audit attempt; queryable columns plus the whole
  :class:`jev.base.record.Record` as JSON (``data``) and its ``digest``.
* ``turns``: per-turn loop state keyed by ``(host, session, turn)``: the loop state
  JSON, the last material hash, the last decision JSON (action, supplement text,
  report line: whatever the orchestrator puts there), ``lease_until`` (epoch seconds
  until which an audit of this turn is running) and created/updated times.
* ``sessions``: the hooks' session index, one row per host session
  (:mod:`jev.store.sessions`): host, machine, current turn key, profile, times and
  the entry as JSON (transcript path, request, recent supplements, …).
* ``meta``: small key/value facts (the time of the last retention pass).

Concurrency: every write is one transaction. On SQLite it is ``BEGIN IMMEDIATE`` in
WAL mode with a 10-second busy timeout, so concurrent hook processes serialise on
the write lock instead of losing updates. :meth:`Store.update_turn` is the
read-modify-write primitive; :meth:`Store.update_turn_and_record` also inserts
records in the same transaction ("save the new state + write the record" is atomic).

Retention: records older than ``records_days`` (and turn state and sessions not
updated for that long) are deleted by :meth:`Store.add_record` /
:meth:`Store.update_turn_and_record`, at most once per :data:`PRUNE_INTERVAL_S` (one
hour, by the store's clock) so a hook pays for it rarely; :meth:`Store.prune` forces
a pass. Imports never prune.

Secrets: every string written (records, turn state, the session index, exports) is
scrubbed first (:mod:`jev.store.secrets`, :func:`redact`).

Damage: a SQLite file that is not a database or is corrupt raises
:class:`jev.base.errors.StoreDamaged`; :func:`jev.store.sqlite.quarantine` moves it aside
(the hook does, then starts a new store).

Modules: :mod:`~jev.store.core` (:class:`Store`, composed of the parts below),
:mod:`~jev.store.base` (connection, transactions, errors),
:mod:`~jev.store.turnstate`, :mod:`~jev.store.recordset`, :mod:`~jev.store.sessions`,
:mod:`~jev.store.rows` (row-level SQL), :mod:`~jev.store.migrations`,
:mod:`~jev.store.backend`, :mod:`~jev.store.sqlite`, :mod:`~jev.store.postgres`,
:mod:`~jev.store.url`, :mod:`~jev.store.jsonl` (export/import),
:mod:`~jev.store.secrets`, :mod:`~jev.store.values`.
"""

from __future__ import annotations

from jev.base.record import Record
from jev.store.core import Store, Transaction, default_store_path
from jev.store.migrations import MIGRATIONS
from jev.store.secrets import KEY_ENV_NAMES, REDACTED, redact
from jev.store.values import BUSY_TIMEOUT_S, PRUNE_INTERVAL_S, ImportReport, TurnKey, TurnRow

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
