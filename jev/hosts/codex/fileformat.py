"""Codex CLI rollout files: how ``jev audit`` recognises one and reads its turns (design.md §12).

Stdlib only at import: format detection imports every host's ``fileformat``; the
reader (:mod:`jev.hosts.codex.transcript`) loads only when a file of this format is read.
"""

from __future__ import annotations

TYPE_CHECKING = False  # no ``typing`` import: format detection imports this module
if TYPE_CHECKING:
    from pathlib import Path

    from jev.hosts.turns import LineStats, Turn

__all__ = [
    "LABEL",
    "SNIFF_RANK",
    "read_current_turn",
    "read_turns",
    "sniff_document",
    "sniff_head",
    "sniff_record",
]

#: Format detection asks the hosts in this order (lower first).
SNIFF_RANK = 60
#: What such a file is called in an input note.
LABEL = "the rollout"

#: Codex rollout item types (hosts.md (Codex CLI)).
_TYPES = frozenset({"session_meta", "response_item", "event_msg", "turn_context", "compacted"})


def sniff_head(head: bytes) -> bool:
    """Never: this format is JSON lines."""
    return False


def sniff_record(rec: dict[str, object]) -> bool:
    """A rollout item: a Codex item ``type`` with a ``payload`` (hosts.md (Codex CLI))."""
    return rec.get("type") in _TYPES and "payload" in rec


def sniff_document(doc: object) -> bool:
    """Never: this format is JSON lines, not one document."""
    return False


def read_turns(path: Path, stats: LineStats) -> list[Turn]:
    """Every turn of the file, numbered (:func:`jev.hosts.codex.transcript.read_turns`)."""
    # lazy: only the read format's reader loads (start-up of `jev audit`)
    from jev.hosts.codex.transcript import read_turns as read

    return read(path, stats)


def read_current_turn(path: Path, stats: LineStats) -> Turn:
    """The file's current turn (:func:`jev.hosts.codex.transcript.read_current_turn`)."""
    # lazy: only the read format's reader loads (start-up of `jev audit`)
    from jev.hosts.codex.transcript import read_current_turn as read

    return read(path, stats)
