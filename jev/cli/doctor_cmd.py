"""``jev doctor [--host H] [--json]``: is everything in place? (issue 8 item 5)

Prints, per host found on the machine, whether Jev's hook is installed and points at
a ``jev`` that exists, whether the Todo tool will be available and the host's last
audit; then the active profile and whether it is enabled, the judge (provider, model,
whether the key's environment variable is set — never its value) and the store.
See :mod:`jev.hosts.doctor`.

Exit codes: 0 when everything needed is in place; 7 (``EXIT_NOT_READY``) with one line
per problem, each naming the command that fixes it; 2 for a usage error (an unknown
``--host``, an invalid profile file), as in every command.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from jev.cli import EXIT_NOT_READY, EXIT_OK
from jev.hosts.doctor import diagnose

__all__ = ["register", "run"]


def register(subparsers: Any) -> None:
    """Add the ``doctor`` subcommand."""
    parser = subparsers.add_parser(
        "doctor",
        help="check that Jev's hooks, the Todo tools, the profile, judge and store are in place",
        description=(
            "Check the installation: hooks, Todo tools, profile, judge and store. "
            "Exit 0 when everything is in place, 7 with one line per problem "
            "(2 is a usage error, as in every command)."
        ),
    )
    parser.add_argument("--host", default=None, help="check only this host")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")


def _yes(flag: object) -> str:
    return "yes" if flag else "no"


def run(args: argparse.Namespace) -> int:
    """Run ``jev doctor``; return 0 (all in place) or 7 (problems listed)."""
    report = diagnose(args.host)
    problems = report.all_problems
    out = sys.stdout
    if args.json:
        out.write(json.dumps(report.to_json(), ensure_ascii=False, indent=2) + "\n")
        return EXIT_NOT_READY if problems else EXIT_OK
    for host in report.hosts:
        where = ", ".join(f"{scope}: {path}" for scope, path in host.hooks.items()) or "none"
        last = host.last_audit
        when = f"{last['time']} ({last['action'] or last['status']})" if last else "none yet"
        out.write(
            f"{host.host}: found {_yes(host.found)} · hook {where}"
            + (f" (jev {'ok' if host.executable_ok else 'MISSING'})" if host.hooks else "")
            + f" · Todo tools {_yes(host.todo_tools)}"
            + (f" ({host.todo_offer})" if host.todo_offer else "")
            + f" · last audit {when}\n"
        )
        if host.newest_session:
            state = "reads" if host.session_readable else "CANNOT be read"
            out.write(f"  newest session {host.newest_session} ({state})\n")
        for line in host.warnings:
            out.write(f"  warning: {line}\n")
    judge = report.judge
    key = (
        f" · key {judge['key_env']} {'set' if judge['key_set'] else 'NOT set'}"
        if judge["key_env"]
        else ""
    )
    out.write(f"profile: {report.profile} (enabled {_yes(report.enabled)})\n")
    out.write(f"judge: {judge['provider']} {judge['model'] or ''}".rstrip() + key + "\n")
    store = report.store
    state = "ok" if store["ok"] else f"unreadable: {store['error']}"
    if not store["exists"]:
        state = "not created yet (the first audit creates it)"
    out.write(f"store: {store['path']} ({state})\n")
    if not problems:
        out.write("everything is in place.\n")
        return EXIT_OK
    for line in problems:
        out.write(f"problem: {line}\n")
    return EXIT_NOT_READY
