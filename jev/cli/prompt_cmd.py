"""``jev prompt-section``: print the short system-prompt section (design.md §9).

Prints the section of :func:`jev.pipeline.texts.system_prompt_section` for a profile, meant
for a host's system prompt or session-start context (e.g. a Claude Code
``SessionStart`` hook, whose plain stdout becomes context). When the profile is
disabled it prints nothing and exits 0, so a host hook can call it unconditionally.

Language: ``--language en|zh`` wins; otherwise the profile's ``language`` setting.
``auto`` has no request to follow at session start, so it follows the user's locale:
the first non-empty of ``LC_ALL``, ``LC_MESSAGES``, ``LANG`` (POSIX precedence)
starting with ``zh`` selects Chinese, anything else English.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping

from jev.base.errors import SettingsError, UsageError
from jev.cli import EXIT_OK, EXIT_USAGE
from jev.pipeline.texts import system_prompt_section
from jev.settings.profiles import load_settings

__all__ = ["locale_language", "register", "run"]


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``prompt-section`` to the ``jev`` parser."""
    parser = subparsers.add_parser(
        "prompt-section",
        help="print the short system-prompt section (nothing when disabled)",
        description="Print the short system-prompt section for the main agent (design.md §9). "
        "Prints nothing and exits 0 when the profile is disabled.",
    )
    parser.add_argument("--profile", help="profile name (default: $JEV_PROFILE, else 'default')")
    parser.add_argument(
        "--language",
        choices=("en", "zh", "auto"),
        help="section language (default: the profile's `language`; `auto` follows the "
        "locale: LC_ALL, LC_MESSAGES, LANG starting with zh -> Chinese, else English)",
    )


def locale_language(environ: Mapping[str, str] | None = None) -> str:
    """``zh`` when the effective locale (``LC_ALL`` > ``LC_MESSAGES`` > ``LANG``, first
    non-empty) starts with ``zh``, else ``en``.

    Args:
        environ: the environment to read (default ``os.environ``).
    """
    env = os.environ if environ is None else environ
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(name, "")
        if value:
            return "zh" if value.lower().startswith("zh") else "en"
    return "en"


def run(args: argparse.Namespace) -> int:
    """Print the section; return 0, or 2 when the profile name or file is refused."""
    try:
        # Like the hooks, a profile without a file is the shipped defaults (disabled):
        # the section is empty, never an error in a generated system prompt.
        settings = load_settings(args.profile)
    except (SettingsError, UsageError) as exc:
        print(f"jev: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if not settings.enabled:
        return EXIT_OK
    language = args.language or settings.language
    if language == "auto":
        language = locale_language()

    sys.stdout.write(system_prompt_section(language) + "\n")
    return EXIT_OK
