"""Row-level SQL of the store: one turn row, one record row, retention (design.md §11).

Functions of an open :class:`jev.store.backend.Backend` inside the caller's
transaction; :class:`jev.store.Store` and :class:`jev.store.Transaction` call them.
Every string written is scrubbed of secrets first (:mod:`jev.store.secrets`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from jev.base.record import Record, iso_utc, parse_iso_utc, validate_record_json
from jev.store.backend import Backend
from jev.store.secrets import record_key_env, scrub, secret_values
from jev.store.values import PRUNE_INTERVAL_S, TurnKey, TurnRow, dumps

__all__ = [
    "TURN_COLUMNS",
    "check_days",
    "get_turn",
    "insert_record",
    "maybe_prune",
    "prune",
    "put_turn",
    "record_of",
    "scrub_record",
    "turn_row",
    "where",
]

DAY_S = 86_400.0
#: The ``turns`` columns, in the order :func:`turn_row` reads them.
TURN_COLUMNS = (
    "host, session, turn, state, material_hash, decision, lease_until, created_ts, updated_ts"
)


def check_days(records_days: int) -> None:
    """Raise :class:`ValueError` unless ``records_days`` is an integer 1 … 3650."""
    if isinstance(records_days, bool) or not isinstance(records_days, int):
        raise ValueError(f"records_days must be an integer 1 … 3650, got {records_days!r}")
    if not 1 <= records_days <= 3650:
        raise ValueError(f"records_days must be 1 … 3650, got {records_days}")


def where(
    *,
    host: str | None = None,
    session: str | None = None,
    since: float | None = None,
    after_id: int | None = None,
) -> tuple[str, tuple[Any, ...]]:
    """``("WHERE …", params)`` for the given filters (``("", ())`` for none)."""
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


# ---------------------------------------------------------------------------- turns


def turn_row(row: tuple[Any, ...]) -> TurnRow:
    """A :class:`TurnRow` from a row of :data:`TURN_COLUMNS`."""
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


def get_turn(db: Backend, key: TurnKey) -> TurnRow | None:
    """The stored row of ``key``'s turn, or ``None``."""
    row = db.execute(
        f"SELECT {TURN_COLUMNS} FROM turns WHERE host = ? AND session = ? AND turn = ?",
        (key.host, key.session, key.turn),
    ).fetchone()
    return None if row is None else turn_row(row)


def put_turn(
    db: Backend, row: TurnRow, clock: Callable[[], float], secret_env: Sequence[str]
) -> TurnRow:
    """Insert or replace ``row`` (state and decision scrubbed); ``updated_ts`` is
    ``clock()``, ``created_ts`` kept from the first write. Returns the row as stored."""
    secrets = secret_values(secret_env)
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
    stored = get_turn(db, row.key)
    assert stored is not None
    return stored


# ---------------------------------------------------------------------------- records


def record_of(row: tuple[Any, ...]) -> Record:
    """A :class:`Record` from an ``(id, data)`` row."""
    record_id, data = row
    return Record.from_json(json.loads(data)).with_id(int(record_id))


def scrub_record(record: Record, secret_env: Sequence[str]) -> Record:
    """``record`` with every secret value replaced (its own key variable included)."""
    secrets = secret_values((*secret_env, *record_key_env(record)))
    return Record.from_json(scrub(record.to_json(), secrets))


def insert_record(
    db: Backend, record: Record, clock: Callable[[], float], secret_env: Sequence[str]
) -> int:
    """Insert ``record`` (scrubbed, checked against the schema); return its new id.

    Raises:
        ValueError: unparsable ``created_at`` or a record not matching
            ``schemas/record.schema.json`` (nothing is stored).
    """
    if not record.created_at:
        record = replace(record, created_at=iso_utc(clock()))
    created_ts = parse_iso_utc(record.created_at)
    clean = scrub_record(record.with_id(None), secret_env)
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


# ---------------------------------------------------------------------------- retention


def maybe_prune(db: Backend, records_days: int, clock: Callable[[], float]) -> None:
    """Run :func:`prune` unless one ran less than :data:`PRUNE_INTERVAL_S` ago."""
    now = clock()
    row = db.execute("SELECT value FROM meta WHERE key = 'last_prune_ts'").fetchone()
    if row is not None:
        last = float(row[0])
        if 0 <= now - last < PRUNE_INTERVAL_S:
            return
    prune(db, records_days, now)


def prune(db: Backend, records_days: int, now: float) -> int:
    """Delete records older than ``records_days`` days, turn state and session-index
    entries not updated for that long (unless a turn is leased); return how many
    records were deleted."""
    cutoff = now - records_days * DAY_S
    deleted = db.execute("DELETE FROM records WHERE created_ts < ?", (cutoff,)).rowcount
    db.execute(
        "DELETE FROM turns WHERE updated_ts < ? AND (lease_until IS NULL OR lease_until < ?)",
        (cutoff, now),
    )
    db.execute("DELETE FROM sessions WHERE updated_ts < ?", (cutoff,))
    db.execute(
        "INSERT INTO meta (key, value) VALUES ('last_prune_ts', ?) "
        "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        (repr(now),),
    )
    return int(deleted)
