"""Store URLs: ``sqlite:///path`` or ``postgresql://user@host:port/db`` (design.md §11).

Stdlib only: the PostgreSQL driver is imported by :mod:`jev.store.postgres` only when
such a URL is opened.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from jev.base.errors import SettingsError, StoreError
from jev.settings.team import load_team_config
from jev.store.backend import Backend
from jev.store.sqlite import SqliteBackend

__all__ = ["configured_store_url", "is_store_url", "open_backend", "sqlite_path"]

_PG_SCHEMES = ("postgresql", "postgres")


def is_store_url(text: str) -> bool:
    """True for ``sqlite:…``, ``postgresql://…`` or ``postgres://…``."""
    return bool(re.match(r"(?i)(sqlite:|postgres(ql)?://)", text))


def configured_store_url() -> tuple[str, str]:
    """``(url, password_env)`` from ``JEV_STORE_URL`` / ``config.toml`` (``("", "")``
    when none is set: the local SQLite file).

    Raises:
        StoreError: when ``config.toml`` cannot be read (the message says why).
    """
    try:
        team = load_team_config()
    except SettingsError as exc:
        raise StoreError(f"{exc} (the store URL is read from it)") from None
    return team.store_url, team.store_password_env


def sqlite_path(url: str) -> Path:
    """The file of a ``sqlite:///path`` URL (``sqlite:relative/path`` is relative to
    the current folder; ``~`` is expanded).

    Raises:
        StoreError: when the URL names no file.
    """
    rest = url.split(":", 1)[1]
    if rest.startswith("//"):
        parts = urlsplit(url)
        if parts.netloc not in ("", "localhost"):
            raise StoreError(
                f"the store URL {url} names a host; a SQLite store is a local file: "
                f"write sqlite:///absolute/path."
            )
        rest = parts.path
        rest = "/" + rest.lstrip("/") if rest.startswith("/") else rest
    path = unquote(rest)
    if not path or path == "/":
        raise StoreError(f"the store URL {url} names no file; write sqlite:///path/to/jev.sqlite3.")
    return Path(os.path.expanduser(path))


def open_backend(
    url: str, migrations: Sequence[Callable[[Any], None]], password_env: str = ""
) -> Backend:
    """Open (and migrate) the store at ``url``.

    ``password_env`` names an environment variable holding the PostgreSQL password;
    empty lets libpq read ``PGPASSWORD`` / ``~/.pgpass``.

    Raises:
        StoreError: an unknown scheme, a password written in the URL, an unset
            ``password_env`` variable, a missing driver, or the database failing.
    """
    scheme = url.split(":", 1)[0].lower()
    if scheme == "sqlite":
        return SqliteBackend(sqlite_path(url), migrations)
    if scheme not in _PG_SCHEMES or not url[len(scheme) :].startswith("://"):
        raise StoreError(
            f"the store URL {url!r} is not understood; use sqlite:///path/to/file or "
            f"postgresql://user@host:port/database (JEV_STORE_URL or store.url)."
        )
    # lazy: the PostgreSQL backend (psycopg, optional) only for a postgresql:// URL
    from jev.store.postgres import PostgresBackend, redacted_url

    if urlsplit(url).password is not None or re.search(r"[?&]password=", url):
        raise StoreError(
            f"the store URL {redacted_url(url)} contains a password; Jev never keeps "
            f"one in its settings: put it in PGPASSWORD or ~/.pgpass, or name a variable "
            f"holding it with store.password_env / JEV_STORE_PASSWORD_ENV."
        )
    password = None
    if password_env:
        password = os.environ.get(password_env, "")
        if not password:
            raise StoreError(
                f"store.password_env names {password_env}, which is not set; export the "
                f"database password in {password_env} (or unset store.password_env)."
            )
    return PostgresBackend(url, migrations, password=password)
