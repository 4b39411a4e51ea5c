"""Value types and constants of the store (design.md §11, §14). Stdlib only."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

__all__ = ["BUSY_TIMEOUT_S", "PRUNE_INTERVAL_S", "ImportReport", "TurnKey", "TurnRow", "dumps"]

#: Seconds a writer waits for another process's write lock before giving up.
BUSY_TIMEOUT_S = 10.0
#: Minimum seconds between two automatic retention passes.
PRUNE_INTERVAL_S = 3600.0


@dataclass(frozen=True, slots=True)
class TurnKey:
    """Identity of one turn's loop state (design.md §14): host, session id, turn key."""

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
        state: loop state JSON (``jev.base.loop_state.LoopState.to_json()``), any JSON object.
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


def dumps(data: Any) -> str:
    """Compact JSON text, non-ASCII kept (how the store writes JSON)."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))
