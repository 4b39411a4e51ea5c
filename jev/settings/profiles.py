"""Per-profile settings: shipped defaults + the user's sparse TOML overlay (design.md §10).

Where things live
-----------------
* Shipped defaults: ``settings/default.toml`` (``jev/settings/defaults/`` in a wheel), found
  with :func:`jev.base.resources.data_file`.
* User state: :func:`jev_home` — ``$JEV_HOME`` when set (tests always set it), else the
  per-user config folder: ``$XDG_CONFIG_HOME/jev`` or ``~/.config/jev`` on every POSIX
  system (macOS included, like most command-line tools), ``%APPDATA%\\jev`` on Windows.
* Profiles: ``<home>/profiles/<name>.toml``; names match ``[A-Za-z0-9_-]{1,64}``. A profile
  file holds ONLY the keys the user set; every other key comes from the shipped defaults.

Reading (:func:`load_settings`) is stdlib-only (``tomllib``) and cheap, so the hook's fast
path can call it. Every key is validated against the pydantic model of a profile
(:mod:`jev.settings.model`, built from the key table :mod:`jev.settings.keys`,
re-exported here); an unknown key, a wrong type or an out-of-range value is a
:class:`~jev.base.errors.SettingsError` naming the file, the line and the key. Values that
:func:`jev.settings.keys.certainly_valid` accepts at a glance (the shipped defaults and
the usual values) do not import pydantic, which would cost ~100 ms of start-up. A corrupted
file is reported with its line and is never replaced silently.

Writing (:func:`save_settings`, :func:`set_value`) validates first, then, under an
exclusive per-profile lock (:func:`jev.base.files.file_lock`), re-reads the file, applies
the update and writes it with :func:`jev.base.files.write_atomic` (a temporary file in the
same folder, fsynced, ``os.replace``-d over the profile, the folder fsynced).
Concurrent writers of different keys never lose one another's update, and a writer
killed mid-save leaves the previous file intact. The API key itself is never
stored: only the *name* of the environment variable that holds it (``judge.api_key_env``).

Test hook: ``JEV_TEST_PAUSE_BEFORE_REPLACE=<seconds>`` makes a save sleep between writing
its temporary file and replacing the profile (read only inside the save). It exists so
tests can kill a writer at the worst moment; it has no other use.
"""

from __future__ import annotations

import contextlib
import os
import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jev.base import safejson
from jev.base.domain import EvidenceSettings, JudgeSettings, Settings
from jev.base.errors import SettingsError, UsageError
from jev.base.files import STALE_LOCK_S, file_lock, write_atomic
from jev.base.loop_state import MAX_SUPPLEMENTS_LIMIT
from jev.base.paths import jev_home_str, profile_name_ok
from jev.base.resources import data_file
from jev.settings.check import check_document, parse_raw, validate_value
from jev.settings.keys import BUILTIN_JUDGES, KEYS, TABLES, KeySpec

__all__ = [
    "BUILTIN_JUDGES",
    "KEYS",
    "MAX_SUPPLEMENTS_LIMIT",
    "TABLES",
    "KeySpec",
    "ProfileInfo",
    "active_profile",
    "check_profile_name",
    "create_profile",
    "default_values",
    "jev_home",
    "list_profiles",
    "load_settings",
    "parse_raw",
    "profile_path",
    "profiles_dir",
    "require_profile",
    "save_settings",
    "set_value",
    "user_values",
    "validate_settings",
    "validate_value",
]

_LOCK_TIMEOUT_S = 10.0


# --------------------------------------------------------------------------- paths


def jev_home() -> Path:
    """The folder holding all of Jev's user state (profiles, database).

    ``$JEV_HOME`` when set and non-empty; else ``$XDG_CONFIG_HOME/jev`` (when that is an
    absolute path) or ``~/.config/jev`` on POSIX (macOS included); ``%APPDATA%\\jev`` on
    Windows. The folder is not created here (rule shared with the hook's fast path:
    :func:`jev.base.paths.jev_home_str`).
    """
    return Path(jev_home_str())


def check_profile_name(name: str) -> str:
    """Return ``name`` if it is a valid profile name (``[A-Za-z0-9_-]{1,64}``).

    Raises:
        UsageError: otherwise, saying which characters are allowed.
    """
    if not profile_name_ok(name):
        raise UsageError(
            f"invalid profile name {name!r}: use 1–64 letters, digits, '_' or '-' "
            "(e.g. --profile web)."
        )
    return name


def active_profile(explicit: str | None = None) -> str:
    """The profile in force: ``explicit`` (``--profile``) > ``$JEV_PROFILE`` > ``default``.

    An empty ``$JEV_PROFILE`` counts as unset; an empty ``explicit`` name is refused.

    Raises:
        UsageError: the chosen name is not a valid profile name.
    """
    if explicit is not None:
        return check_profile_name(explicit)
    env = os.environ.get("JEV_PROFILE")
    if env:
        return check_profile_name(env)
    return "default"


def profiles_dir() -> Path:
    """``<jev_home>/profiles`` (not created here)."""
    return jev_home() / "profiles"


def profile_path(profile: str | None = None) -> Path:
    """Path of the user's file for ``profile`` (resolved with :func:`active_profile`)."""
    return profiles_dir() / f"{active_profile(profile)}.toml"


def require_profile(profile: str | None = None) -> str:
    """The profile in force, refusing one that does not exist (issue 10 item 9).

    ``default`` always exists (the shipped defaults); any other profile exists once
    its file does. A misspelled ``--profile wrok`` is therefore an error, never a
    silent new profile. Used by the commands a user types; hooks keep failing open.

    Returns:
        The profile name.

    Raises:
        UsageError: invalid name, or no such profile (the message lists the profiles
            and says how to create one).
    """
    name = active_profile(profile)
    if name == "default" or (profiles_dir() / f"{name}.toml").is_file():
        return name
    known = ["default"]
    folder = profiles_dir()
    if folder.is_dir():
        known += sorted(
            p.stem for p in folder.glob("*.toml") if profile_name_ok(p.stem) and p.stem != "default"
        )
    raise UsageError(
        f"profile {name!r} does not exist (profiles: {', '.join(known)}). Create it with "
        f"`jev profiles create {name}` (or pass --create), or check the spelling."
    )


def create_profile(profile: str) -> Path:
    """Create an empty profile file (every key from the shipped defaults).

    Returns:
        The new file's path.

    Raises:
        UsageError: invalid name, or the profile already exists.
        SettingsError: the file cannot be written.
    """
    name = check_profile_name(profile)
    path = profiles_dir() / f"{name}.toml"
    if path.exists():
        raise UsageError(f"profile {name!r} already exists ({path}).")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("x", encoding="utf-8") as handle:
            handle.write(
                f"# Jev profile {name!r} (design.md §10): only the keys set here override the "
                "shipped defaults.\n# Edit by hand or with `jev settings set KEY VALUE"
                + ("" if name == "default" else f" --profile {name}")
                + "`.\n"
            )
    except FileExistsError:
        raise UsageError(f"profile {name!r} already exists ({path}).") from None
    except OSError as exc:
        raise SettingsError(f"cannot create {path}: {exc.strerror or exc}.") from None
    return path


# --------------------------------------------------------------------------- reading


def _read_toml(path: Path) -> dict[str, Any] | None:
    """Parse one TOML file; ``None`` when it does not exist. SettingsError when broken."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise SettingsError(
            f"cannot read settings file {path}: {exc.strerror or exc}; check its permissions."
        ) from None
    try:
        text = data.decode("utf-8")
        problem = safejson.toml_problem(text)
        if problem is not None:
            raise SettingsError(
                f"settings file {path} is not usable TOML ({problem}). Fix that line by "
                "hand, or delete the file to return to the defaults (Jev will not "
                "overwrite it)."
            )
        return tomllib.loads(text)
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise SettingsError(
            f"settings file {path} is not valid UTF-8 (line {line}); fix or delete the "
            "file (Jev will not overwrite it)."
        ) from None
    except tomllib.TOMLDecodeError as exc:
        msg = str(exc)
        if "at end of document" in msg:
            msg = msg.replace(
                "at end of document", f"at the end of the file, line {text.count(chr(10)) + 1}"
            )
        raise SettingsError(
            f"settings file {path} is not valid TOML: {msg}. Fix that line by hand, or "
            "delete the file to return to the defaults (Jev will not overwrite it)."
        ) from None
    except (RecursionError, ValueError) as exc:
        raise SettingsError(
            f"settings file {path} is not usable TOML ({type(exc).__name__}: "
            f"{str(exc)[:120]}). Fix it by hand, or delete the file to return to the "
            "defaults (Jev will not overwrite it)."
        ) from None


def _line_of(path: Path, dotted: str) -> int | None:
    """1-based line of ``dotted`` (``max_supplements``, ``judge.model``) in a TOML file."""
    table, _, key = dotted.rpartition(".")
    current = ""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    for number, line in enumerate(lines, start=1):
        text = line.strip()
        if text.startswith("[") and text.endswith("]"):
            current = text.strip("[] ")
            continue
        name = text.split("=", 1)[0].strip().strip("\"'") if "=" in text else ""
        if name == key and current == table:
            return number
        if table == "" and current == "" and name == dotted:
            return number
    return None


def _where(path: Path, dotted: str) -> str:
    line = _line_of(path, dotted)
    return f"settings file {path}" + (f", line {line}" if line else "")


def _flatten(
    data: Mapping[str, Any],
    path: Path,
    profile: str | None,
    replacing: frozenset[str] = frozenset(),
    *,
    lenient: bool = False,
) -> dict[str, Any]:
    """TOML document -> ``{dotted key: value}``, validated (design.md §10).

    The first refusal of :func:`jev.settings.check.check_document` is raised with the
    file and, for a value, its line. Keys in ``replacing`` (about to be overwritten by
    a save) are dropped without validation, so ``jev settings set KEY VALUE`` repairs a
    refused value in the file (issue 10 item 8); with ``lenient`` (a save) refused
    values are kept as written, so one broken key never blocks repairing another.
    """
    document = {k: v for k, v in data.items() if k not in replacing}
    for table in TABLES:
        sub = document.get(table)
        if isinstance(sub, Mapping):
            document[table] = {k: v for k, v in sub.items() if f"{table}.{k}" not in replacing}
    flat, problems = check_document(document, profile)
    for problem in problems:
        if problem.structural:
            raise SettingsError(f"settings file {path}: {problem.message}")
        if not lenient:
            raise SettingsError(f"{_where(path, problem.key)}: {problem.message}")
    return flat


def default_values() -> dict[str, Any]:
    """The shipped defaults as ``{dotted key: value}`` (every key of :data:`KEYS`).

    Raises:
        SettingsError: the shipped file is broken or incomplete (a broken install).
    """
    try:
        path = data_file("settings", "default.toml")
    except FileNotFoundError as exc:
        raise SettingsError(f"{exc}; reinstall Jev.") from None
    data = _read_toml(path)
    flat = _flatten(data or {}, path, None)
    missing = [k for k in KEYS if k not in flat]
    if missing:
        raise SettingsError(f"shipped defaults {path} lack {', '.join(missing)}; reinstall Jev.")
    return flat


def user_values(
    profile: str | None = None,
    *,
    replacing: frozenset[str] = frozenset(),
    lenient: bool = False,
) -> dict[str, Any]:
    """The keys set in the user's file for ``profile`` (validated), ``{}`` if no file.

    Args:
        profile: the profile (``None``: :func:`active_profile`).
        replacing: keys about to be overwritten; left out and not validated.
        lenient: keep refused values as written instead of raising (for a save).

    Raises:
        UsageError: invalid profile name.
        SettingsError: the file is unreadable, not TOML, has unknown keys or bad values.
    """
    name = active_profile(profile)
    path = profiles_dir() / f"{name}.toml"
    data = _read_toml(path)
    return {} if data is None else _flatten(data, path, name, replacing, lenient=lenient)


def _build(name: str, flat: Mapping[str, Any]) -> Settings:
    return Settings(
        profile=name,
        enabled=flat["enabled"],
        max_supplements=flat["max_supplements"],
        evidence_chars=flat["evidence_chars"],
        language=flat["language"],
        records_days=flat["records_days"],
        judge=JudgeSettings(
            provider=flat["judge.provider"],
            model=flat["judge.model"],
            base_url=flat["judge.base_url"],
            api_key_env=flat["judge.api_key_env"],
            timeout_s=flat["judge.timeout_s"],
            temperature=flat["judge.temperature"],
            technical_retries=flat["judge.technical_retries"],
        ),
        evidence=EvidenceSettings(
            transcript=flat["evidence.transcript"],
            checks=tuple(flat["evidence.checks"]),
            check_timeout_s=flat["evidence.check_timeout_s"],
        ),
    )


def load_settings(profile: str | None = None) -> Settings:
    """The effective settings of a profile (design.md §10).

    Args:
        profile: profile name; ``None`` = :func:`active_profile` (``$JEV_PROFILE`` or
            ``default``).

    Returns:
        :class:`jev.base.domain.Settings`: shipped defaults overlaid key by key by
        ``<jev_home>/profiles/<name>.toml`` when it exists.

    Raises:
        UsageError: invalid profile name.
        SettingsError: the user's file is unreadable, corrupted (message names the file
            and line), has an unknown key or a refused value. Nothing is changed on disk.
    """
    name = active_profile(profile)
    flat = default_values()
    flat.update(user_values(name))
    return _build(name, flat)


def validate_settings(settings: Settings) -> Settings:
    """Check every field of an already-built :class:`~jev.base.domain.Settings` (design.md §10).

    For callers that derive settings in memory (e.g. command-line overrides of the
    judge); nothing is read or written.

    Returns:
        ``settings`` unchanged.

    Raises:
        SettingsError: the first refused value, with the same message as a refused save.
    """
    _, problems = check_document(settings.to_json(), settings.profile)
    if problems:
        raise SettingsError(problems[0].message)
    return settings


@dataclass(frozen=True, slots=True)
class ProfileInfo:
    """One row of :func:`list_profiles`.

    Attributes:
        name: profile name.
        path: the user's file (may not exist).
        exists: whether the user's file exists.
        active: whether it is the profile in force (``$JEV_PROFILE`` or ``default``).
        enabled: the effective ``enabled`` value, or ``None`` when the file is broken.
        error: the SettingsError message when the file cannot be loaded, else ``""``.
    """

    name: str
    path: Path
    exists: bool
    active: bool
    enabled: bool | None
    error: str = ""


def list_profiles() -> list[ProfileInfo]:
    """The shipped ``default`` profile, every user profile file, and the active profile.

    Files whose names are not valid profile names (and temporary/lock files, which start
    with a dot) are ignored. Sorted by name with ``default`` first.
    """
    try:
        active = active_profile(None)
    except UsageError:
        active = "default"
    names = {"default", active}
    folder = profiles_dir()
    if folder.is_dir():
        for entry in folder.iterdir():
            if entry.suffix == ".toml" and profile_name_ok(entry.stem):
                names.add(entry.stem)
    rows: list[ProfileInfo] = []
    for name in sorted(names, key=lambda n: (n != "default", n)):
        path = folder / f"{name}.toml"
        try:
            enabled: bool | None = load_settings(name).enabled
            error = ""
        except (SettingsError, UsageError) as exc:
            enabled, error = None, str(exc)
        rows.append(ProfileInfo(name, path, path.is_file(), name == active, enabled, error))
    return rows


# --------------------------------------------------------------------------- writing


def _profile_lock(folder: Path, name: str, *, use_fcntl: bool | None = None) -> Any:
    """Exclusive lock for writers of one profile (held across read-modify-write):
    :func:`jev.base.files.file_lock` on ``<folder>/.<name>.lock``. Waits at most 10 s, then
    raises SettingsError."""
    return file_lock(
        folder / f".{name}.lock",
        timeout_s=_LOCK_TIMEOUT_S,
        on_timeout=_lock_timeout,
        stale_s=STALE_LOCK_S,
        use_fcntl=use_fcntl,
    )


def _lock_timeout(lock: Path) -> SettingsError:
    return SettingsError(
        f"another Jev process has been saving this profile for over "
        f"{_LOCK_TIMEOUT_S:.0f} s (lock {lock}); nothing was changed. Try again."
    )


def _to_document(flat: Mapping[str, Any]) -> dict[str, Any]:
    doc: dict[str, Any] = {}
    tables: dict[str, dict[str, Any]] = {t: {} for t in TABLES}
    for key in KEYS:  # stable order: the design table's
        if key in flat:
            table, _, name = key.partition(".")
            if name:
                tables[table][name] = flat[key]
            else:
                doc[key] = flat[key]
    doc.update({t: sub for t, sub in tables.items() if sub})
    return doc


def _write_atomic(path: Path, payload: bytes, name: str) -> None:
    # Any temp file of this profile still here was left by a writer that died: we hold
    # the lock, so no live writer owns one.
    stale = re.compile(rf"\.{re.escape(name)}\.[A-Za-z0-9_]+\.tmp")
    for entry in path.parent.iterdir():
        if stale.fullmatch(entry.name):
            entry.unlink(missing_ok=True)
    write_atomic(path, payload, prefix=f".{name}")


def save_settings(
    profile: str | None, updates: Mapping[str, object], *, remove: Iterable[str] = ()
) -> Settings:
    """Validate typed ``updates`` and write them into the profile's file (design.md §10).

    Args:
        profile: profile name (``None`` = :func:`active_profile`).
        updates: ``{dotted key: typed value}``, e.g. ``{"max_supplements": 2,
            "judge.model": "deepseek-chat"}``. Values are NOT converted from text: the
            string ``"3"`` for ``max_supplements`` is refused (use :func:`set_value` for
            command-line text).
        remove: dotted keys to take out of the file, so their shipped defaults apply
            again (``jev settings unset``).

    Returns:
        The new effective :class:`~jev.base.domain.Settings`.

    Only the keys given are added to the user's sparse file; other keys (``enabled``
    included) keep whatever they were. The file is re-read and updated under an
    exclusive lock, written to a temporary file, fsynced and atomically renamed.

    Raises:
        UsageError: invalid profile name.
        SettingsError: an unknown key or refused value (nothing is written), an existing
            file that is corrupted or invalid (left byte-for-byte as it was), a lock held
            too long, or an OS error while writing (the old file stays in place).
    """
    name = active_profile(profile)
    dropped = frozenset(remove)
    if not updates and not dropped:
        raise SettingsError("nothing to save: give at least one setting.")
    unknown = sorted(k for k in dropped if k not in KEYS)
    if unknown:
        raise SettingsError(f"unknown setting {unknown[0]!r}; the keys are: {', '.join(KEYS)}.")
    checked = {key: validate_value(key, value, profile=name) for key, value in updates.items()}
    defaults = default_values()
    folder = profiles_dir()
    path = folder / f"{name}.toml"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise SettingsError(
            f"cannot create the profiles folder {folder}: {exc.strerror or exc}; check "
            "JEV_HOME and permissions."
        ) from None
    # lazy: tomlkit (Jev's one TOML writer, design.md §10) only when a profile is
    # written; reading settings stays light
    import tomlkit

    try:
        with _profile_lock(folder, name):
            # Inside the lock: no lost update. The keys being set may hold refused
            # values: they are replaced, so a fix-it hint's command repairs the file.
            current = user_values(name, replacing=frozenset(checked) | dropped, lenient=True)
            current.update(checked)
            for key in dropped:
                current.pop(key, None)
            header = (
                f"# Jev profile {name!r} (design.md §10): only the keys set here override the "
                "shipped defaults.\n# Edit by hand or with `jev settings set KEY VALUE"
                + ("" if name == "default" else f" --profile {name}")
                + "`.\n\n"
            )
            payload = header.encode() + tomlkit.dumps(_to_document(current)).encode("utf-8")
            _write_atomic(path, payload, name)
    except OSError as exc:
        raise SettingsError(
            f"cannot save settings file {path}: {exc.strerror or exc}; the previous file "
            "is unchanged. Check free space and permissions."
        ) from None
    merged = dict(defaults)
    for key, value in current.items():
        # A value still refused in the file keeps the default here; load_settings
        # reports it with its line.
        with contextlib.suppress(SettingsError):
            merged[key] = validate_value(key, value, profile=name)
    return _build(name, merged)


def set_value(profile: str | None, key: str, raw_value: str) -> Settings:
    """Parse command-line text for one key (:func:`parse_raw`) and save it.

    Returns the new effective settings. Raises like :func:`parse_raw` and
    :func:`save_settings`; on any error the file is unchanged.
    """
    name = active_profile(profile)
    value = parse_raw(key, raw_value, profile=name)
    return save_settings(name, {key: value})
