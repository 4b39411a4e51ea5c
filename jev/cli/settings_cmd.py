"""``jev settings show|set|unset``, ``jev enable|disable``, ``jev profiles`` (design.md §10).

One module registers the four subcommand names (``COMMANDS`` maps each to it); the
name the user typed is ``args.command``. Refused values and broken profile files exit 2
with a one-line message; nothing on disk changes then.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from jev.base.errors import SettingsError, UsageError
from jev.cli import EXIT_OK, EXIT_USAGE
from jev.settings import profiles as st

__all__ = ["register", "run"]

_PROFILE_HELP = "profile name (default: $JEV_PROFILE, else 'default'); it must exist"
_CREATE_HELP = "create the profile if it does not exist (else a misspelled name is an error)"


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``settings``, ``enable``, ``disable`` and ``profiles`` to the ``jev`` parser.

    ``COMMANDS`` maps all four names to this module, so this is called once per name;
    only the first call adds the parsers.
    """
    if "settings" in subparsers.choices:
        return
    settings = subparsers.add_parser(
        "settings",
        help="show or change a profile's settings",
        description="Show or change a profile's settings (design.md §10).",
    )
    actions = settings.add_subparsers(dest="settings_action", metavar="ACTION")
    show = actions.add_parser(
        "show",
        help="show the effective settings and where each value comes from",
        description="Show the effective settings of a profile: the user's file overlaid "
        "on the shipped defaults.",
    )
    show.add_argument("--profile", help=_PROFILE_HELP)
    show.add_argument("--json", action="store_true", help="print one JSON object")
    setp = actions.add_parser(
        "set",
        help="set one key, e.g. `jev settings set max_supplements 2`",
        description="Set one key of a profile. Keys: enabled, max_supplements, "
        "evidence_chars, language, records_days, judge.provider, judge.model, "
        "judge.base_url, judge.api_key_env, judge.timeout_s, judge.temperature, "
        "judge.technical_retries. The API key itself is never stored: set "
        "judge.api_key_env to the NAME of the variable holding it.",
    )
    setp.add_argument("key", metavar="KEY")
    setp.add_argument("value", metavar="VALUE")
    setp.add_argument("--profile", help=_PROFILE_HELP)
    setp.add_argument("--create", action="store_true", help=_CREATE_HELP)
    unset = actions.add_parser(
        "unset",
        help="take one key out of the profile file: its shipped default applies again",
        description="Take one key out of a profile's file, so the shipped default applies "
        "again, e.g. `jev settings unset judge.model`. The keys are those of `set`.",
    )
    unset.add_argument("key", metavar="KEY")
    unset.add_argument("--profile", help=_PROFILE_HELP)
    for name, verb in (("enable", "Enable"), ("disable", "Disable")):
        p = subparsers.add_parser(
            name,
            help=f"{verb.lower()} Jev's completion audit for a profile",
            description=f"{verb} Jev's completion audit for a profile (the `enabled` key).",
        )
        p.add_argument("--profile", help=_PROFILE_HELP)
        p.add_argument("--create", action="store_true", help=_CREATE_HELP)
    profiles = subparsers.add_parser(
        "profiles",
        help="list profiles (the active one, whether each is enabled) or create one",
        description="List the shipped default profile and the user's profiles, or "
        "`jev profiles create NAME` to create a profile.",
    )
    profile_actions = profiles.add_subparsers(dest="profiles_action", metavar="ACTION")
    profile_actions.add_parser("list", help="list the profiles (the default action)")
    create = profile_actions.add_parser(
        "create", help="create a profile (every key from the shipped defaults)"
    )
    create.add_argument("name", metavar="NAME")


def run(args: argparse.Namespace) -> int:
    """Run the subcommand; return 0, or 2 for a refused value / broken profile file."""
    try:
        command = args.command
        if command == "settings":
            action = getattr(args, "settings_action", None)
            if action == "show":
                _show(args.profile, as_json=args.json)
            elif action == "set":
                _set(_existing(args), args.key, args.value)
            elif action == "unset":
                _unset(st.require_profile(args.profile), args.key)
            else:
                print(
                    "jev settings: choose an action: show, set or unset (see --help)",
                    file=sys.stderr,
                )
                return EXIT_USAGE
        elif command in ("enable", "disable"):
            _switch(_existing(args), command == "enable")
        elif command == "profiles":
            if getattr(args, "profiles_action", None) == "create":
                path = st.create_profile(args.name)
                print(f"profile {args.name} created: {path}")
            else:
                _profiles()
        else:  # pragma: no cover - argparse only dispatches registered names
            raise UsageError(f"unknown command {command!r}")
    except (SettingsError, UsageError) as exc:
        print(f"jev: {exc}", file=sys.stderr)
        return EXIT_USAGE
    return EXIT_OK


def _existing(args: argparse.Namespace) -> str:
    """The profile named on the command line, created first with ``--create``."""
    try:
        return st.require_profile(args.profile)
    except UsageError:
        if not getattr(args, "create", False):
            raise
    name = st.active_profile(args.profile)
    print(f"profile {name} created: {st.create_profile(name)}")
    return name


def _format_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str | list):
        return json.dumps(value, ensure_ascii=False)
    return repr(value)


def _show(profile: str | None, *, as_json: bool) -> None:
    name = st.require_profile(profile)
    effective = st.load_settings(name)
    if as_json:
        print(json.dumps(effective.to_json(), ensure_ascii=False, indent=2))
        return
    path = st.profile_path(name)
    user = st.user_values(name)
    flat = _flatten_json(effective.to_json())
    file_note = str(path) if path.exists() else f"{path} (not created yet)"
    rows: list[tuple[str, str] | None] = []
    tables: list[str] = []
    for key in st.KEYS:
        table, _, short = key.rpartition(".")
        if table and table not in tables:
            tables.append(table)
            rows.append(None)  # start of a table: [judge], [evidence]
        source = "profile file" if key in user else "default"
        rows.append((f"{short} = {_format_value(flat[key])}", source))
    width = max(len(r[0]) for r in rows if r is not None) + 2
    lines = [f"# profile: {name}", f"# file: {file_note}"]
    heads = iter(tables)
    for row in rows:
        lines += ["", f"[{next(heads)}]"] if row is None else [f"{row[0]:<{width}}# {row[1]}"]
    print("\n".join(lines))


def _flatten_json(data: dict[str, Any]) -> dict[str, Any]:
    flat = {k: v for k, v in data.items() if k not in st.TABLES}
    for table in st.TABLES:
        flat.update({f"{table}.{k}": v for k, v in (data.get(table) or {}).items()})
    return flat


def _set(profile: str | None, key: str, raw: str) -> None:
    name = st.active_profile(profile)
    try:
        new = st.set_value(name, key, raw)
    except SettingsError as exc:
        old = ""
        if key in st.KEYS:
            try:
                old_value = _flatten_json(st.load_settings(name).to_json())[key]
                old = f" The old value is kept: {key} = {_format_value(old_value)}."
            except SettingsError:
                old = " The profile file was left unchanged."
        raise SettingsError(f"{exc}{old}") from None
    value = _flatten_json(new.to_json())[key]
    print(f"{key} = {_format_value(value)}  (profile {name}, {st.profile_path(name)})")
    _still_broken(name)


def _unset(name: str, key: str) -> None:
    had = key in st.user_values(name, lenient=True)
    new = st.save_settings(name, {}, remove=[key])
    value = _format_value(_flatten_json(new.to_json())[key])
    what = "removed from" if had else "was not set in"
    print(f"{key} {what} profile {name} ({st.profile_path(name)}); now {value} (default)")
    _still_broken(name)


def _still_broken(name: str) -> None:
    """After a save, say if another key of the file is still refused (with its hint)."""
    try:
        st.load_settings(name)
    except SettingsError as exc:
        print(f"jev: note: the file still has a refused value: {exc}", file=sys.stderr)


def _switch(profile: str | None, enabled: bool) -> None:
    name = st.active_profile(profile)
    st.save_settings(name, {"enabled": enabled})
    state = "enabled" if enabled else "disabled"
    print(f"Jev's completion audit is {state} for profile {name} ({st.profile_path(name)}).")
    _still_broken(name)


def _profiles() -> None:
    for row in st.list_profiles():
        mark = "*" if row.active else " "
        state = "broken" if row.error else ("enabled" if row.enabled else "disabled")
        origin = str(row.path) if row.exists else "shipped defaults (no user file)"
        print(f"{mark} {row.name:<20} {state:<9} {origin}")
        if row.error:
            print(f"    {row.error}")
