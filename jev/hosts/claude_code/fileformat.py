"""Claude Code session transcript files:
how ``jev audit`` recognises one and reads its turns (design.md §12).

Stdlib only at import: format detection imports every host's ``fileformat``; the
reader (:mod:`jev.hosts.claude_code.transcript`) loads only when a file of this format is read.
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
SNIFF_RANK = 70
#: What such a file is called in an input note.
LABEL = "the transcript"

#: Claude Code record types (hosts.md (Claude Code)).
_TYPES = frozenset(
    {
        "user",
        "assistant",
        "system",
        "summary",
        "file-history-snapshot",
        "queue-operation",
        "progress",
        "attachment",
        "pr-link",
        "agent-name",
        "custom-title",
        "last-prompt",
        "permission-mode",
        "ai-title",
        "agent-setting",
        "bridge-session",
        "worktree-state",
    }
)


def sniff_head(head: bytes) -> bool:
    """Never: this format is JSON lines."""
    return False


def sniff_record(rec: dict[str, object]) -> bool:
    """A Claude Code record type, or ``sessionId`` / ``parentUuid`` (hosts.md (Claude
    Code)); asked last, after every other host."""
    return rec.get("type") in _TYPES or "sessionId" in rec or "parentUuid" in rec


def sniff_document(doc: object) -> bool:
    """Never: this format is JSON lines, not one document."""
    return False


def read_turns(path: Path, stats: LineStats) -> list[Turn]:
    """Every turn of the file, numbered (:func:`jev.hosts.claude_code.transcript.read_turns`)."""
    # lazy: only the read format's reader loads (start-up of `jev audit`)
    from jev.hosts.claude_code.transcript import read_turns as read

    return read(path, stats)


def read_current_turn(path: Path, stats: LineStats) -> Turn:
    """The file's current turn (:func:`jev.hosts.claude_code.transcript.read_current_turn`)."""
    # lazy: only the read format's reader loads (start-up of `jev audit`)
    from jev.hosts.claude_code.transcript import read_current_turn as read

    return read(path, stats)
