"""``jev doctor [--host H] [--json]``: is everything in place? (issue 8 item 5)

Prints, per host found on the machine, whether Jev's hook is installed and points at
a ``jev`` that exists, whether the Todo tool will be available, the host's last
audit and, when ``JEV_LOG`` wrote a log, its last few skipped stops and why; then
the active profile and whether it is enabled, the judge (provider, model, whether the
key's environment variable is set — never its value) and the store.
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
    parser.add_argument(
        "--try-judge",
        action="store_true",
        help="also ask the profile's judge once about a small built-in turn (a real, "
        "possibly paid call) and show its verdict and time",
    )


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
        for skip in host.recent_skips:  # from the JEV_LOG log (jev.log), newest first
            out.write(f"  skipped {skip['time']}: {skip['reason']}\n")
    judge = report.judge
    key = (
        f" · key {judge['key_env']} {'set' if judge['key_set'] else 'NOT set'}"
        if judge["key_env"]
        else ""
    )
    out.write(f"profile: {report.profile} (enabled {_yes(report.enabled)})\n")
    cli = ""
    if "program" in judge:  # a host judge: the host's CLI and its login (issue 20)
        where = judge["cli"] or "NOT on PATH"
        label = {True: "logged in", False: "NOT logged in", None: "login not checked"}
        said = judge["login"] or label[judge["logged_in"]]
        cli = f" · {judge['program']} {where} · {said}"
    out.write(f"judge: {judge['provider']} {judge['model'] or ''}".rstrip() + key + cli + "\n")
    if getattr(args, "try_judge", False):
        line, ok = _try_judge()
        out.write(line + "\n")
        if not ok:
            problems = [*problems, line.removeprefix("try-judge: ")]
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


def _try_judge() -> tuple[str, bool]:
    """One real call of the profile's judge on a small built-in turn (``--try-judge``):
    the line to print, and whether a verdict came back."""
    # lazy: only --try-judge builds a judge (doctor otherwise makes no call)
    from jev.base.domain import Material, TodoItem
    from jev.base.errors import JevError
    from jev.judges import create_judge
    from jev.pipeline.audit import run_audit
    from jev.settings.profiles import load_settings

    material = Material(
        request=("Fix the date parser and add a test for leap years.",),
        todos=(TodoItem("Fix the date parser", "completed"), TodoItem("Add a test", "pending")),
        final_answer="Fixed the date parser in src/dates.py.",
        todo_used=True,
    )
    settings = load_settings(None)
    try:
        judge = create_judge(settings.judge)
    except JevError as exc:
        return f"try-judge: the judge {settings.judge.provider} cannot start: {exc}", False
    try:
        outcome = run_audit(material, settings, judge)
    finally:
        judge.close()
    if outcome.status != "verdict" or outcome.verdict is None:
        return f"try-judge: {settings.judge.provider} gave no verdict: {outcome.reason}", False
    tokens = ""
    if outcome.usage is not None and outcome.usage.input_tokens:
        tokens = f", {outcome.usage.input_tokens} tokens in"
    return (
        f"try-judge: {settings.judge.provider} answered {outcome.verdict.assessment} "
        f"({outcome.verdict.focus.id}) in {outcome.latency_ms / 1000:.1f} s{tokens}",
        True,
    )
