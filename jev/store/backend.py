"""What a store backend provides to :class:`jev.store.Store` (design.md §11).

A backend owns one database connection and knows its dialect: how to open it, run
the shared :data:`jev.store.migrations.MIGRATIONS`, begin/commit/roll back a write
transaction, serialise writers of one turn, return an inserted row's id, and turn
its driver's exceptions into messages that say what happened and what to do. All
SQL given to :meth:`Backend.execute` is written with ``?`` placeholders.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from jev.store.migrations import SqlCursor

__all__ = ["Backend"]


class Backend(ABC):
    """One open connection to a store database.

    Attributes:
        dialect: ``"sqlite"`` or ``"postgresql"``.
        location: where the database is, for messages (a path, or a URL without
            its password).
        path: the database file for SQLite, else ``None``.
        identity: ``(st_dev, st_ino)`` of that file as opened, else ``None``.
        errors: the driver's exception types that :meth:`describe` explains.
        latest_turn_order: ``ORDER BY`` terms picking the most recently updated turn
            (ties broken by insertion order where the database has one).
    """

    dialect: str
    location: str
    path: Path | None = None
    #: ``(st_dev, st_ino)`` of the database file as opened (SQLite), else ``None``.
    identity: tuple[int, int] | None = None
    errors: tuple[type[BaseException], ...] = ()
    latest_turn_order: str = "updated_ts DESC"

    @abstractmethod
    def execute(self, sql: str, params: Sequence[Any] = ()) -> SqlCursor:
        """Run one statement (``?`` placeholders) and return its cursor."""

    @abstractmethod
    def insert(self, sql: str, params: Sequence[Any]) -> int:
        """Run one ``INSERT`` into a table with an ``id`` column; return the new id."""

    @abstractmethod
    def begin(self) -> None:
        """Begin a write transaction."""

    @abstractmethod
    def commit(self) -> None:
        """Commit the current transaction."""

    @abstractmethod
    def rollback(self) -> None:
        """Roll back the current transaction (never raises for a dead connection)."""

    def damaged(self, exc: BaseException) -> bool:
        """True when the driver error ``exc`` says the database file is not a database
        or is corrupt (SQLite); a server database never says so here."""
        return False

    def lock(self, name: str) -> None:  # noqa: B027 - SQLite needs nothing
        """Serialise, until the current transaction ends, every writer that locks the
        same ``name`` (a turn, or the import). SQLite's write transaction is already
        exclusive, so the default does nothing."""

    @abstractmethod
    def schema_version(self) -> int:
        """How many migrations the database has applied."""

    @abstractmethod
    def describe(self, exc: BaseException, action: str) -> str:
        """A user-facing message for a driver error raised while ``action``."""

    @abstractmethod
    def close(self) -> None:
        """Close the connection (idempotent)."""
