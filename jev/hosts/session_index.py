"""The stop hooks' session index, kept in the store (design.md §11).

:class:`SessionIndex` is what :mod:`jev.hosts.hook` and the host adapters read and
update at every audited stop; :mod:`jev.store.sessions` is its storage.
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jev.base.paths import jev_home_str

if TYPE_CHECKING:
    from jev.store import Store

__all__ = ["SessionIndex"]


def _jev_home() -> Path:
    return Path(jev_home_str())


class SessionIndex:
    """The hook's session index, kept in the store (design.md §11; :mod:`jev.store.sessions`).

    Per session: ``{"host", "transcript_path", "profile", "turn", "turn_number", "cwd",
    "request", "updated", "material"?, "last_steer"?, "steers"?, "prompt_response"?}``.
    ``material`` is kept for hosts whose material does not come whole from a transcript
    (Gemini, Cursor); ``steers`` (Jev's recent supplements with their turn keys and
    requests) let a stop recognise its own supplement coming back as a new user
    message, so the turn — and its supplement budget — goes on. Every update is one
    store transaction that claims the session, so concurrent hook processes never lose
    an entry; every string is scrubbed of secrets like records.

    The store is opened on first use. An index kept by an older Jev in
    ``<jev_home>/sessions.json`` is then imported once and renamed
    ``sessions.json.imported-<UTC time>``; a broken one is renamed
    ``sessions.json.broken-<UTC time>`` and reported once on stderr with its line.

    Args:
        store: the store to use (default: the configured one, opened on first use and
            closed by :meth:`close`).
        legacy: the old index file to import (default ``<jev_home>/sessions.json``).

    Attributes:
        secret_env: extra environment-variable names whose values are never stored
            (the profile's ``judge.api_key_env``); set before first use.

    Raises (from every method):
        StoreError: the store cannot be opened or written
            (:class:`jev.base.errors.StoreDamaged` for a damaged SQLite file).
    """

    def __init__(self, store: Store | None = None, *, legacy: Path | None = None) -> None:
        self._store = store
        self._own_store = store is None
        self._legacy = legacy
        self._imported = False
        self.secret_env: tuple[str, ...] = ()

    @property
    def store(self) -> Store:
        """The store holding the index (opened, and an old index imported, on first use)."""
        if self._store is None:
            from jev.store import Store  # lazy: a stop that audits nothing opens no store

            self._store = Store(secret_env=self.secret_env)
        if not self._imported:
            self._imported = True
            legacy = self._legacy or _jev_home() / "sessions.json"
            if legacy.exists():
                notice = self._store.import_session_file(legacy).notice()
                if notice:
                    with contextlib.suppress(OSError, ValueError):
                        sys.stderr.write(notice + "\n")
        return self._store

    @property
    def location(self) -> str:
        """Where the index is, for messages (the store's path or URL)."""
        return self.store.location

    def close(self) -> None:
        """Close the store this index opened (idempotent)."""
        if self._own_store and self._store is not None:
            self._store.close()
            self._store = None

    def get(self, session: str) -> dict[str, Any] | None:
        """The entry of ``session``, or ``None``."""
        return self.store.get_session(session)

    def latest(self, host: str | None = None) -> tuple[str, dict[str, Any]] | None:
        """``(session_id, entry)`` of this machine's most recently updated session
        (of ``host``), or ``None``."""
        return self.store.latest_session(host)

    def update(self, session: str, **fields: Any) -> dict[str, Any]:
        """Merge ``fields`` into the entry of ``session`` (stamping ``updated``); return it.

        Raises:
            StoreError: the store cannot be written (e.g. its write lock stays taken
                for more than :data:`jev.store.BUSY_TIMEOUT_S` seconds).
        """
        return self.store.update_session(session, fields)
