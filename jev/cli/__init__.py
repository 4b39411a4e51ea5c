"""The ``jev`` command line: argument parsing, output formatting and exit codes only.

Each subcommand lives in its own module of this package, registered in
:data:`COMMANDS`. A module exposes ``register(subparsers) -> None`` and
``run(args) -> int``; only the module of the command being run is imported, so a
command pays for its own imports only.

``jev hook …`` is dispatched before argparse is even imported: it is the fast path a
host runs at every stop (issue: hooks must not import the HTTP client, templates or
schemas for a turn that needs no audit).

Exit codes (README "Exit codes"):

====  ===========================================================================
0     complete, or skipped (no audit was due), or a command that succeeded
1     internal error (one-line message; set ``JEV_DEBUG=1`` for a traceback)
2     usage error (bad arguments, unreadable input file)
3     audit incomplete: over budget, judge failure, material missing
4     a problem was found: omission, contradiction or unknown
5     needs-user: completion depends on the user's choice or authorization
6     ``jev replay``: a stored record now decides differently or cannot be replayed
130   interrupted (Ctrl-C)
====  ===========================================================================

Codes never collide: each means one thing in every command (issue 10 item 10).
"""

from __future__ import annotations

import importlib
import os
import sys

from jev.base.paths import JUDGE_CHILD_ENV

# Not ``typing.TYPE_CHECKING``: importing typing would cost the hook's fast path.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

__all__ = [
    "COMMANDS",
    "EXIT_CHANGED",
    "EXIT_INCOMPLETE",
    "EXIT_INTERNAL",
    "EXIT_INTERRUPTED",
    "EXIT_NEEDS_USER",
    "EXIT_NOT_READY",
    "EXIT_OK",
    "EXIT_PROBLEM",
    "EXIT_USAGE",
    "main",
]

EXIT_OK = 0
EXIT_INTERNAL = 1
EXIT_USAGE = 2
EXIT_INCOMPLETE = 3
EXIT_PROBLEM = 4
EXIT_NEEDS_USER = 5
EXIT_CHANGED = 6
#: ``jev doctor``: something Jev needs to audit the user's turns is not in place.
EXIT_NOT_READY = 7
EXIT_INTERRUPTED = 130

#: subcommand name -> module (inside this package) that implements it.
COMMANDS: dict[str, str] = {
    "audit": "jev.cli.audit_cmd",
    "settings": "jev.cli.settings_cmd",
    "enable": "jev.cli.settings_cmd",
    "disable": "jev.cli.settings_cmd",
    "profiles": "jev.cli.settings_cmd",
    "install": "jev.cli.install_cmd",
    "uninstall": "jev.cli.install_cmd",
    "doctor": "jev.cli.doctor_cmd",
    "retry": "jev.cli.turn_cmd",
    "cancel": "jev.cli.turn_cmd",
    "records": "jev.cli.records_cmd",
    "prompt-section": "jev.cli.prompt_cmd",
    "eval": "jev.cli.eval_cmd",
    "replay": "jev.cli.replay_cmd",
    "report": "jev.cli.report_cmd",
    "ui": "jev.cli.ui_cmd",
}


def _build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The ``jev`` parser; with ``command``, only that command's module is imported.

    Command modules import what they use at their top, so building the parser for
    one command costs that command's imports only (``jev --help`` imports them all).
    """
    # lazy: `jev hook` (the fast path) imports this package; argparse etc. only for commands
    import argparse

    from jev import __version__

    parser = argparse.ArgumentParser(
        prog="jev",
        description=(
            "Audit a coding agent's completion claim: request, latest Todo list and "
            "final answer of a turn -> one verdict with a quoted focus."
        ),
    )
    parser.add_argument("--version", action="version", version=f"jev {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    wanted = [COMMANDS[command]] if command in COMMANDS else list(dict.fromkeys(COMMANDS.values()))
    for module_name in wanted:
        importlib.import_module(module_name).register(sub)
    # Listed for --help only: `jev hook …` is dispatched in main() before argparse.
    if "hook" not in sub.choices:
        sub.add_parser(
            "hook",
            help="run as a host's hook (installed by `jev install`; reads the host's JSON "
            "on stdin, always exits 0): jev hook claude-code|codex|gemini|cursor|…",
        )
    return parser


#: Error handlers of a text stream that never raise on a character it cannot encode.
_NEVER_RAISE = ("backslashreplace", "replace", "xmlcharrefreplace", "namereplace")


def _printable_streams() -> None:
    """Let stdout and stderr print any text in any encoding (issue 23 item 3).

    Under ``LANG=C``, an ASCII or a cp1252 console, a character the encoding lacks
    (``→``, an emoji, Chinese) would raise ``UnicodeEncodeError`` halfway through the
    output and turn a verdict's exit code into 1. Such characters are written as
    ``\\uNNNN`` escapes instead (``errors="backslashreplace"``, also in place of the
    C locale's ``surrogateescape``, which raises on such characters); UTF-8 output is
    unchanged.
    """
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is None or getattr(stream, "errors", "strict") in _NEVER_RAISE:
            continue
        try:
            reconfigure(errors="backslashreplace")
        except (AttributeError, ValueError, OSError):  # a replaced or closed stream
            continue


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``jev`` command; return its exit code (see the module docstring)."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list[:1] == ["hook"]:
        if os.environ.get(JUDGE_CHILD_ENV):
            # Inside a host judge's own headless run (jev.judges.cli): never audit
            # again (issue 20, no recursion). Silent, exit 0, before any import.
            return EXIT_OK
        # Fast path: no argparse, no heavy imports before we know an audit is due.
        hook = importlib.import_module("jev.cli.hook_cmd")
        code: int = hook.main(args_list[1:])
        return code
    _printable_streams()
    try:
        parser = _build_parser(args_list[0] if args_list else None)
        args = parser.parse_args(args_list)
        if not getattr(args, "command", None):
            parser.print_help(sys.stderr)
            return EXIT_USAGE
        module = importlib.import_module(COMMANDS[args.command])
        result: int = module.run(args)
        return result
    except KeyboardInterrupt:
        print("jev: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return EXIT_OK
    except Exception as exc:  # the one place internal errors become exit 1
        # lazy: `jev hook` (the fast path) imports this package; argparse etc. only for commands
        from jev.base.errors import JevError, SettingsError, UsageError

        if isinstance(exc, UsageError | SettingsError):
            print(f"jev: {exc}", file=sys.stderr)
            return EXIT_USAGE
        if os.environ.get("JEV_DEBUG"):
            raise
        label = "error" if isinstance(exc, JevError) else "internal error"
        print(
            f"jev: {label}: {type(exc).__name__}: {exc} (set JEV_DEBUG=1 for a traceback)",
            file=sys.stderr,
        )
        return EXIT_INTERNAL
