"""The stop hook's fast path: prove, with almost no imports, that a stop needs nothing.

Most stops need no audit: Jev is disabled in the profile, the stop is a subagent's,
the session is in plan mode, or the agent did not use its Todo tool in this turn
(design.md §2). For those the full hook (:mod:`jev.hosts.hook`) would print nothing and
exit 0; :func:`quick_skip` reaches the same answer while importing only ``os``,
``json``, :mod:`jev.hosts.registry` and the host's adapter module (stdlib only at
import time) — no dataclasses, no settings parser, no transcript reader — so a hook
on such a turn costs about one interpreter start-up (``bench/hook_fast_path.py``).

It is conservative: it answers True only when it is certain the full hook would stay
silent, and False ("run the full hook") in every other case, including anything it
does not understand. The full hook re-decides from scratch, so a False costs time,
never correctness. :func:`skip_reason` says which rule decided, for Jev's log
(:mod:`jev.log`, written by :mod:`jev.cli.hook_cmd` only when ``JEV_LOG`` is set).
Certainty rules:

* the adapter's :meth:`~jev.hosts.base.HostAdapter.fast_kind` says ``subagent-stop``
  (subagent stops are never audited, design.md §14; hosts.md (Claude Code)); a kind other than
  ``stop`` goes to the full hook;
* the profile's ``enabled`` is certainly false: the user's profile file, read as text,
  has a plain top-level ``enabled = false`` line, or has no ``enabled`` key and the
  shipped default has ``enabled = false`` (anything unusual → full path; a profile
  file broken elsewhere is then not reported by this stop);
* ``permission_mode`` ``plan`` (a plan awaiting approval is the user's call);
* the adapter's :meth:`~jev.hosts.base.HostAdapter.quick_skip` is certain the turn has
  no Todo use (Claude Code scans its transcript backwards to the last typed prompt).
"""

from __future__ import annotations

import json
import os

from jev.base.paths import jev_home_str, profile_name_ok

__all__ = ["quick_skip", "skip_reason"]

_ABSENT = "absent"


def quick_skip(host: str, stdin_text: str, profile: str | None) -> bool:
    """True when the ``host`` stop described by ``stdin_text`` certainly needs nothing.

    Args:
        host: the hook's host name (a registered host; anything else → False).
        stdin_text: the hook JSON the host wrote to stdin.
        profile: ``--profile`` of the hook command, or ``None``.

    Returns:
        True: print nothing, exit 0. False: run the full hook. Never raises.
    """
    return bool(skip_reason(host, stdin_text, profile))


def skip_reason(host: str, stdin_text: str, profile: str | None) -> str:
    """Why the stop certainly needs nothing (for the log, :mod:`jev.log`), or ``""``.

    Same decision as :func:`quick_skip`: a non-empty reason (``subagent stop``,
    ``profile NAME is disabled``, ``plan mode``, ``no Todo use in this turn``) means print
    nothing and exit 0; ``""`` means run the full hook. Never raises.
    """
    try:
        # lazy: inside the never-raise guard: a failed import means run the full hook
        from jev.hosts.registry import adapter

        host_adapter = adapter(host)
        data = json.loads(stdin_text)
    except Exception:
        return ""
    if not isinstance(data, dict):
        return ""
    try:
        kind = host_adapter.fast_kind(data)
    except Exception:
        return ""
    if kind == "subagent-stop":
        return "subagent stop"
    if kind != "stop":
        return ""
    try:
        enabled = _profile_enabled(profile)
    except OSError:
        return ""
    if enabled is False:
        name = profile if profile is not None else (os.environ.get("JEV_PROFILE") or "default")
        return f"profile {name} is disabled"
    if enabled is None:
        return ""
    if data.get("permission_mode") == "plan":
        return "plan mode"
    try:
        return "no Todo use in this turn" if host_adapter.quick_skip(data) else ""
    except Exception:
        return ""


def _profile_enabled(profile: str | None) -> bool | None:
    """``enabled`` of the active profile when it is certain from the files, else None."""
    name = profile if profile is not None else (os.environ.get("JEV_PROFILE") or "default")
    if not profile_name_ok(name):
        return None
    user = _scan_enabled(os.path.join(jev_home_str(), "profiles", name + ".toml"))
    if user != _ABSENT:
        return user if isinstance(user, bool) else None
    here = os.path.dirname(os.path.abspath(__file__))
    for folder in (
        os.path.join(here, "..", "settings", "defaults"),  # an installed wheel
        os.path.join(here, "..", "..", "settings"),  # the repository's top-level settings/
    ):
        shipped = _scan_enabled(os.path.join(folder, "default.toml"))
        if shipped != _ABSENT:
            return shipped if isinstance(shipped, bool) else None
    return None


def _scan_enabled(path: str) -> bool | str | None:
    """Top-level ``enabled`` of a TOML file read as text: True/False, ``"absent"``
    (no file, or no such key), or None when the text is not plainly one of those."""
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except FileNotFoundError:
        return _ABSENT
    except (OSError, UnicodeDecodeError):
        return None
    found: bool | None = None
    seen = False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("["):
            break  # tables begin: the top-level keys are over
        if "enabled" not in stripped or stripped.startswith("#"):
            continue
        key, sep, value = stripped.partition("=")
        value = value.split("#", 1)[0].strip()
        if seen or not sep or key.strip() != "enabled" or value not in ("true", "false"):
            return None
        seen, found = True, value == "true"
    return found if seen else _ABSENT
