"""Where Jev keeps user state, computed with ``os`` only (safe on the hook's fast path).

:func:`jev.settings.profiles.jev_home` wraps :func:`jev_home_str` in a ``Path``; the Stop hook's
fast path (:mod:`jev.hosts.fastpath`) uses the string directly.
"""

from __future__ import annotations

import os
import sys

__all__ = ["JUDGE_CHILD_ENV", "jev_home_str", "profile_name_ok"]


def jev_home_str() -> str:
    """The folder holding all of Jev's user state (profiles, database), as a string.

    ``$JEV_HOME`` when set and non-empty; else ``$XDG_CONFIG_HOME/jev`` (when that is an
    absolute path) or ``~/.config/jev`` on POSIX (macOS included); ``%APPDATA%\\jev`` on
    Windows. The folder is not created here.
    """
    env = os.environ.get("JEV_HOME")
    if env:
        return os.path.abspath(os.path.expanduser(env))
    if sys.platform == "win32":
        appdata = os.environ.get("APPDATA")
        base = appdata or os.path.join(os.path.expanduser("~"), "AppData", "Roaming")
        return os.path.join(base, "jev")
    xdg = os.environ.get("XDG_CONFIG_HOME")
    if xdg and os.path.isabs(xdg):
        return os.path.join(xdg, "jev")
    return os.path.join(os.path.expanduser("~"), ".config", "jev")


def profile_name_ok(name: object) -> bool:
    """Whether ``name`` is a valid profile name: 1–64 ASCII letters, digits, ``_``, ``-``."""
    return (
        isinstance(name, str)
        and 0 < len(name) <= 64
        and name.isascii()
        and all(c.isalnum() or c in "_-" for c in name)
    )


#: Set in the environment of a host judge's CLI (:mod:`jev.judges.cli`): every
#: ``jev hook …`` started inside it is a silent no-op, so a judge's own headless session
#: never starts another audit (issue 20 item 1, "no recursion").
JUDGE_CHILD_ENV = "JEV_JUDGE_CHILD"
