"""The hook's session index in the store (design.md §11, §12).

One row per host session: where its transcript is, the profile, the current turn key
and its opening request, the supplements Jev sent lately (so a host that hands one
back as a new user message stays in the same turn and the same supplement budget,
design.md §8), and, for hosts whose material does not come whole from a transcript,
the material of the last stop. The whole entry is a JSON object in ``data``; the
columns ``host``, ``machine``, ``turn``, ``profile`` and the times are there to query.
Every string is scrubbed of secrets before it is written, like records.

``machine`` is the computer the hook ran on, so ``jev retry`` on a shared PostgreSQL
store picks the latest session of this machine (its transcript is a local file).

:meth:`Sessions.import_session_file` moves an index kept by an older Jev
(``<jev_home>/sessions.json``) into the table once and renames the file so it is never
read again; a broken file is quarantined instead (:class:`SessionImport`).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jev.base import safejson
from jev.base.files import move_aside, write_atomic
from jev.store.backend import Backend
from jev.store.base import StoreBase, Transaction
from jev.store.secrets import scrub, secret_values
from jev.store.values import dumps

__all__ = ["MAX_SESSIONS", "SessionImport", "Sessions", "machine_name"]

#: Sessions kept per machine (the least recently updated are dropped first).
MAX_SESSIONS = 200
#: Nesting accepted in a ``sessions.json`` being imported.
_MAX_DEPTH = 32
_COLUMNS = "session, host, machine, turn, profile, data, created_ts, updated_ts"
_COLUMN_FIELDS = ("host", "turn", "profile")


def machine_name() -> str:
    """This computer's host name (``socket.gethostname()``; ``"local"`` when empty)."""
    import socket  # lazy: ~5 ms of every jev audit's start; only this call needs it

    return socket.gethostname() or "local"


@dataclass(frozen=True, slots=True)
class SessionImport:
    """What :meth:`Sessions.import_session_file` did with an old ``sessions.json``.

    Attributes:
        source: the file looked at.
        imported: sessions written to the store (0 when nothing was there).
        moved_to: where the file is now (``sessions.json.imported-<UTC time>``, or
            ``sessions.json.broken-<UTC time>`` when it could not be used), or
            ``None`` when there was no file (or another process moved it first).
        problem: why the file could not be used, with its line (``"Expecting value
            (line 3, column 1)"``, ``"not UTF-8 at byte 17"``), or ``""``.
    """

    source: Path
    imported: int = 0
    moved_to: Path | None = None
    problem: str = ""

    def notice(self) -> str:
        """One line for the user when the file was broken and quarantined, else ``""``."""
        if not self.problem or self.moved_to is None:
            return ""
        return (
            f"jev: the old session index {self.source} was broken ({self.problem}); it "
            f"was moved to {self.moved_to} and the index starts empty in the store. "
            "Earlier sessions cannot be retried with `jev retry`."
        )


def _entry(row: tuple[Any, ...]) -> tuple[str, dict[str, Any]]:
    session, host, machine, turn, profile, data, created, updated = row
    entry: dict[str, Any] = json.loads(data)
    entry.update({"host": host, "machine": machine, "turn": turn, "profile": profile})
    entry["created"] = float(created)
    entry["updated"] = float(updated)
    return str(session), entry


def _read(db: Backend, session: str) -> dict[str, Any] | None:
    row = db.execute(f"SELECT {_COLUMNS} FROM sessions WHERE session = ?", (session,)).fetchone()
    return None if row is None else _entry(row)[1]


def _write(
    db: Backend,
    session: str,
    entry: Mapping[str, Any],
    secrets: tuple[str, ...],
    created: float,
    updated: float,
) -> dict[str, Any]:
    clean: dict[str, Any] = scrub(
        {k: v for k, v in entry.items() if k not in ("created", "updated")}, secrets
    )
    data = {k: v for k, v in clean.items() if k not in (*_COLUMN_FIELDS, "machine")}
    text = safejson.scrub_surrogates(dumps(data))[0]
    machine = str(clean.get("machine") or machine_name())
    host, turn, profile = (
        None if clean.get(name) is None else str(clean[name]) for name in _COLUMN_FIELDS
    )
    db.execute(
        f"""INSERT INTO sessions ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT (session) DO UPDATE SET
               host = excluded.host, machine = excluded.machine, turn = excluded.turn,
               profile = excluded.profile, data = excluded.data,
               updated_ts = excluded.updated_ts""",
        (session, host or "", machine, turn, profile, text, created, updated),
    )
    db.execute(
        "DELETE FROM sessions WHERE machine = ? AND updated_ts < (SELECT updated_ts FROM "
        "sessions WHERE machine = ? ORDER BY updated_ts DESC LIMIT 1 OFFSET ?)",
        (machine, machine, MAX_SESSIONS - 1),
    )
    return {**clean, "machine": machine, "created": created, "updated": updated}


class Sessions(StoreBase):
    """The ``sessions`` table's operations of :class:`jev.store.Store`."""

    def get_session(self, session: str) -> dict[str, Any] | None:
        """The index entry of ``session`` (any machine), or ``None``.

        Shape: the JSON object last written by :meth:`update_session`, plus ``host``,
        ``machine``, ``turn``, ``profile`` and ``created``/``updated`` (epoch seconds).
        """
        with self._lock, self._errors("reading the session index"):
            return _read(self._db, session)

    def latest_session(
        self, host: str | None = None, machine: str | None = None
    ) -> tuple[str, dict[str, Any]] | None:
        """``(session id, entry)`` most recently updated on ``machine`` (default: this
        one), optionally of one ``host``; ``None`` when there is none."""
        clauses, params = ["machine = ?"], [machine or machine_name()]
        if host is not None:
            clauses.append("host = ?")
            params.append(host)
        sql = (
            f"SELECT {_COLUMNS} FROM sessions WHERE {' AND '.join(clauses)} "
            "ORDER BY updated_ts DESC, session DESC LIMIT 1"
        )
        with self._lock, self._errors("reading the session index"):
            row = self._db.execute(sql, tuple(params)).fetchone()
        return None if row is None else _entry(row)

    def update_session(
        self,
        session: str,
        fields: Mapping[str, Any],
        *,
        now: Callable[[], float] | None = None,
    ) -> dict[str, Any]:
        """Merge ``fields`` (JSON values) into ``session``'s entry in ONE write
        transaction that claims the session (so concurrent hooks never lose an update);
        return the entry as stored (scrubbed of secrets, ``updated`` stamped).

        Only the :data:`MAX_SESSIONS` most recently updated sessions of this machine
        are kept.

        Raises:
            StoreError: on database failure.
        """

        def body(tx: Transaction) -> dict[str, Any]:
            tx.db.lock(f"session:{session}")
            entry = _read(tx.db, session) or {}
            created = float(entry.get("created") or tx.now())
            entry.update(fields)
            if "machine" not in fields:
                entry["machine"] = machine_name()
            return _write(tx.db, session, entry, secret_values(self.secret_env), created, tx.now())

        return self._run("writing the session index", body, now)

    def import_session_file(self, path: Path) -> SessionImport:
        """Move an older Jev's ``sessions.json`` into the table, once.

        The file's sessions are merged in one transaction (an entry already in the
        store and updated later wins, so importing twice changes nothing); then the
        file is renamed to ``<name>.imported-<UTC time>`` (its text scrubbed of
        secrets like the table) and never read again. A file
        that is not UTF-8, not JSON, nested over 32 levels or not of the shape
        ``{"sessions": {id: {...}}}`` is renamed to ``<name>.broken-<UTC time>``
        instead and nothing is imported (:attr:`SessionImport.problem` says why, with
        the line). Entries that are not objects are skipped.

        Raises:
            StoreError: on database failure (the file is left where it is).
        """
        try:
            raw = path.read_bytes()
        except OSError:
            return SessionImport(path)
        try:
            data = safejson.loads(raw, max_depth=_MAX_DEPTH)
            if not isinstance(data, dict) or not isinstance(data.get("sessions"), dict):
                raise safejson.JsonInputError("not an object with a 'sessions' object")
        except safejson.JsonInputError as exc:
            return SessionImport(path, moved_to=move_aside(path, "broken"), problem=str(exc))
        entries = {
            str(k): v
            for k, v in data["sessions"].items()
            if isinstance(v, dict) and isinstance(v.get("updated", 0), int | float)
        }

        def body(tx: Transaction) -> int:
            tx.db.lock("import-sessions")
            secrets = secret_values(self.secret_env)
            count = 0
            for session, old in entries.items():
                updated = float(old.get("updated") or 0.0) or tx.now()
                tx.db.lock(f"session:{session}")  # a hook updating it waits, then wins
                current = _read(tx.db, session)
                if current is not None and float(current["updated"]) >= updated:
                    continue
                _write(tx.db, session, old, secrets, updated, updated)
                count += 1
            return count

        imported = self._run("importing the old session index", body)
        moved = move_aside(path, "imported")
        if moved is not None:
            # The kept copy is a state file too: it holds no key either.
            clean = scrub(data, secret_values(self.secret_env))
            with contextlib.suppress(OSError):
                write_atomic(moved, safejson.scrub_surrogates(dumps(clean))[0].encode("utf-8"))
        return SessionImport(path, imported=imported, moved_to=moved)
