"""Machine-wide team settings: the shared store and telemetry (design.md §11).

Unlike profiles (per project, :mod:`jev.settings.profiles`), these hold for every profile on a
machine, so they live in one optional file, ``<jev_home>/config.toml``::

    [store]
    url = "postgresql://jev@db.internal:5432/jev"   # default: the local SQLite file
    password_env = "JEV_DB_PASSWORD"                 # optional; else PGPASSWORD/.pgpass

    [telemetry]
    otlp_endpoint = "http://collector:4318"          # OTLP/HTTP; unset = no export
    include_material = false                         # never export turn text unless true
    flush_timeout_s = 2.0                            # at most this long per hook

Environment variables win over the file: ``JEV_STORE_URL``,
``JEV_STORE_PASSWORD_ENV``, ``OTEL_EXPORTER_OTLP_ENDPOINT`` (and
``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT``). A password is never read from or written to
this file. Stdlib only and cheap (the hook reads it).
"""

from __future__ import annotations

import math
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jev.base.errors import SettingsError
from jev.base.paths import jev_home_str

__all__ = ["TeamConfig", "config_path", "load_team_config"]

_KEYS: dict[str, dict[str, type | tuple[type, ...]]] = {
    "store": {"url": str, "password_env": str},
    "telemetry": {
        "otlp_endpoint": str,
        "include_material": bool,
        "flush_timeout_s": (int, float),
    },
}


@dataclass(frozen=True, slots=True)
class TeamConfig:
    """The effective machine-wide settings.

    Attributes:
        store_url: ``sqlite:///path`` / ``postgresql://…`` or ``""`` (the local file).
        store_password_env: name of the variable holding the database password, or
            ``""`` (libpq then reads ``PGPASSWORD`` / ``~/.pgpass``).
        otlp_endpoint: OTLP/HTTP base URL or full traces URL, or ``""`` (no export).
        otlp_traces_url: True when ``otlp_endpoint`` is already the full traces URL
            (from ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT``).
        include_material: export the turn's text with spans (default False).
        flush_timeout_s: seconds the export may take at the end of a hook, 0.1 … 30.
    """

    store_url: str = ""
    store_password_env: str = ""
    otlp_endpoint: str = ""
    otlp_traces_url: bool = False
    include_material: bool = False
    flush_timeout_s: float = 2.0


def config_path() -> Path:
    """``<jev_home>/config.toml``."""
    return Path(jev_home_str()) / "config.toml"


def _read_file(path: Path) -> Mapping[str, Any]:
    try:
        text = path.read_text("utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        raise SettingsError(f"cannot read {path} ({exc}); fix or remove the file.") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(f"{path} is not valid TOML ({exc}); fix or remove it.") from None
    for table, value in data.items():
        keys = _KEYS.get(table)
        if keys is None or not isinstance(value, dict):
            raise SettingsError(
                f"{path}: unknown table [{table}]; only [store] and [telemetry] belong here."
            )
        for key, item in value.items():
            kind = keys.get(key)
            if kind is None:
                raise SettingsError(f"{path}: unknown key {table}.{key}.")
            if (isinstance(item, bool) and kind is not bool) or not isinstance(item, kind):
                raise SettingsError(f"{path}: {table}.{key} has the wrong type ({item!r}).")
    return data


def load_team_config(path: Path | None = None) -> TeamConfig:
    """Read ``config.toml`` (if any) and the environment overrides.

    Raises:
        SettingsError: the file is unreadable, not TOML, or has an unknown key, a
            wrong type, an out-of-range ``flush_timeout_s`` or a password in
            ``store.url``.
    """
    file = path or config_path()
    data = _read_file(file)
    store = data.get("store", {})
    telemetry = data.get("telemetry", {})
    env = os.environ
    traces = env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "").strip()
    endpoint = traces or env.get("OTEL_EXPORTER_OTLP_ENDPOINT", "").strip()
    flush = float(telemetry.get("flush_timeout_s", 2.0))
    if not math.isfinite(flush) or not 0.1 <= flush <= 30:
        raise SettingsError(f"{file}: telemetry.flush_timeout_s must be 0.1 … 30, got {flush}.")
    return TeamConfig(
        store_url=env.get("JEV_STORE_URL", "").strip() or str(store.get("url", "")),
        store_password_env=env.get("JEV_STORE_PASSWORD_ENV", "").strip()
        or str(store.get("password_env", "")),
        otlp_endpoint=endpoint or str(telemetry.get("otlp_endpoint", "")),
        otlp_traces_url=bool(traces),
        include_material=bool(telemetry.get("include_material", False)),
        flush_timeout_s=flush,
    )
