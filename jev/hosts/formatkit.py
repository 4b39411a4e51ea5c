"""Shared pieces of the hosts' ``fileformat`` modules (design.md §12).

Stdlib only at import, like the ``fileformat`` modules themselves (format detection
imports every host's); a host's reader and :mod:`jev.hosts.turns` load only when a file
of that format is read.
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # no ``typing`` import: format detection imports this module
if TYPE_CHECKING:
    from pathlib import Path

    from jev.hosts.turns import LineStats, Turn

__all__ = ["read_counted", "read_current_counted"]


def read_counted(reader: str, path: Path, stats: LineStats) -> list[Turn]:
    """Every turn of ``path`` by the ``read_turns(path)`` of module ``reader`` (a reader
    that counts its replaced lone surrogates through :func:`jev.hosts.turns.counting`);
    that count is added to ``stats``."""
    from jev.hosts.turns import counting  # lazy: only a read file needs it

    with counting() as counted:
        turns = list(importlib.import_module(reader).read_turns(path))
    stats.surrogates += counted.surrogates
    return turns


def read_current_counted(reader: str, path: Path, stats: LineStats) -> Turn:
    """The current turn of ``path`` by ``read_current_turn(path)`` of module ``reader``;
    its replaced lone surrogates are added to ``stats``."""
    from jev.hosts.turns import counting  # lazy: only a read file needs it

    with counting() as counted:
        turn: Turn = importlib.import_module(reader).read_current_turn(path)
    stats.surrogates += counted.surrogates
    return turn
