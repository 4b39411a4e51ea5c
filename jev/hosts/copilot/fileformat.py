"""GitHub Copilot CLI ``events.jsonl`` files:
how ``jev audit`` recognises one and reads its turns (design.md §12).

Stdlib only at import: format detection imports every host's ``fileformat``; the
reader (:mod:`jev.hosts.copilot.transcript`) loads only when a file of this format is read.
"""

from __future__ import annotations

from jev.hosts.formatkit import read_counted, read_current_counted

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
SNIFF_RANK = 10
#: What such a file is called in an input note.
LABEL = "the transcript"


def sniff_head(head: bytes) -> bool:
    """Never: this format is JSON lines."""
    return False


def sniff_record(rec: dict[str, object]) -> bool:
    """An event: ``{type: "session.start", data: {…}}`` (a dotted type with a ``data``
    object)."""
    rtype = rec.get("type")
    return isinstance(rtype, str) and "." in rtype and isinstance(rec.get("data"), dict)


def sniff_document(doc: object) -> bool:
    """Never: this format is JSON lines, not one document."""
    return False


def read_turns(path: Path, stats: LineStats) -> list[Turn]:
    """Every turn of the file, numbered (:func:`jev.hosts.copilot.transcript.read_turns`); the
    lone surrogates its reader replaced are added to ``stats``."""
    return read_counted("jev.hosts.copilot.transcript", path, stats)


def read_current_turn(path: Path, stats: LineStats) -> Turn:
    """The file's current turn (:func:`jev.hosts.copilot.transcript.read_current_turn`)."""
    return read_current_counted("jev.hosts.copilot.transcript", path, stats)
