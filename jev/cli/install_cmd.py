"""``jev install HOST`` and ``jev uninstall HOST``: add or remove Jev's hook entries.

::

    jev install HOST [--scope S] [--profile P] [--enable] [--no-todo-tools] [--dry-run]
    jev uninstall HOST [--scope S] [--dry-run]

HOST is a host whose adapter has an installer (:func:`jev.hosts.install.installable_hosts`).
By default the install also switches the host's Todo tool on (issue 8 item 4): without a
Todo list Jev has nothing to audit (design.md §2). Uninstall takes back only what Jev added.

See :mod:`jev.hosts.install` for the files and the merge rules. Prints what changed
(or the unified diff with ``--dry-run``, which writes nothing); exit 0 on success,
2 for a usage problem (unknown scope, invalid JSON file).
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jev.base.errors import UsageError
from jev.hosts.install import (
    apply_plan,
    ignore_local_settings,
    installable_hosts,
    unignore_local_settings,
)
from jev.hosts.install_all import plan_install_all, plan_uninstall_all
from jev.hosts.registry import adapter
from jev.judges import judge_class_attribute, judge_names
from jev.settings.profiles import (
    active_profile,
    load_settings,
    require_profile,
    set_value,
    user_values,
)

if TYPE_CHECKING:
    from jev.hosts.base import Installer

__all__ = ["register", "run"]


def register(subparsers: Any) -> None:
    """Add the ``install`` and ``uninstall`` subcommands (once, whichever name asks)."""
    if "install" in subparsers.choices:
        return
    hosts = installable_hosts()
    scopes = {h: _installer_of(h).scopes for h in hosts}
    for verb in ("install", "uninstall"):
        parser = subparsers.add_parser(
            verb,
            help=f"{verb} Jev's stop hook for a host ({', '.join(hosts)})",
            description=(
                f"{verb.capitalize()} Jev's hook entries in the host's hook configuration. "
                "Other keys and hooks are kept untouched; a backup is written before any change "
                "(uninstall deletes a file Jev created once only Jev's entries were in it, and "
                "Jev's backups of a file it restores exactly)."
            ),
        )
        parser.add_argument("host", choices=hosts, help="the agent host")
        parser.add_argument(
            "--scope",
            default="user",
            help="; ".join(f"{h}: {', '.join(scopes[h])}" for h in hosts) + " (default: user)",
        )
        parser.add_argument(
            "--project-dir",
            type=Path,
            default=None,
            help=(
                "project root for --scope project/local (default: the nearest folder "
                "upwards, below your home folder, holding .git, .claude or .codex; "
                "with none, Jev refuses rather than guess)"
            ),
        )
        parser.add_argument(
            "--dry-run", action="store_true", help="show the diff and write nothing"
        )
        if verb == "install":
            parser.add_argument(
                "--profile",
                default=None,
                help="profile the hook uses (default: JEV_PROFILE or default)",
            )
            parser.add_argument(
                "--enable", action="store_true", help="also enable the profile (enabled = true)"
            )
            parser.add_argument(
                "--judge",
                metavar="NAME",
                default=None,
                help=(
                    "the profile's judge (default: the host's own model, unless the profile "
                    "already names a judge; `--judge rules` keeps the offline rules judge)"
                ),
            )
            parser.add_argument(
                "--no-todo-tools",
                action="store_true",
                help=(
                    "do not switch the host's Todo tool on (by default Jev adds "
                    "CLAUDE_CODE_ENABLE_TODO_TOOLS=1 to the Claude Code settings env, or "
                    "[tools.update_plan] enabled = true to Codex's config.toml)"
                ),
            )


def _installer_of(host: str) -> Installer:
    found = adapter(host).installer
    assert found is not None  # installable_hosts() only lists hosts with one
    return found


def _creates_local(args: argparse.Namespace, plan: Any) -> bool:
    """A Claude Code ``local`` install that creates ``settings.local.json``."""
    return (
        args.command == "install"
        and args.host == "claude-code"
        and args.scope == "local"
        and plan.before is None
        and plan.changed
    )


#: Whether ``jev install HOST`` makes the host's model the judge by default (issue 20).
HOST_JUDGE_BY_DEFAULT = True


def _set_judge(host: str, profile: str | None, chosen: str | None) -> str:
    """Make the host's own model the profile's judge unless the profile names one or
    ``--judge`` chose another (issue 20 item 1, "Default"); the one line to print."""
    name = active_profile(profile)
    named = user_values(profile).get("judge.provider")
    if chosen is None and not HOST_JUDGE_BY_DEFAULT:
        return f"profile {name}: judge {named or 'rules'} (`--judge {host}` uses {host}'s model)"
    if chosen is None and named:
        return f"profile {name}: keeps its judge {named} (`--judge NAME` changes it)"
    provider = chosen or (host if host in judge_names() else "rules")
    program = str(judge_class_attribute(provider, "program", "")) if chosen is None else ""
    if program and shutil.which(program) is None:
        # a host judge whose CLI is not on PATH would fail every audit: the profile
        # keeps the offline rules judge (nothing written: a later install may choose)
        return (
            f"profile {name}: judge rules ({program} is not on PATH here, so {host}'s own "
            f"model cannot judge; `jev install {host}` again or `jev settings set "
            f"judge.provider {host}` once it is)"
        )
    set_value(profile, "judge.provider", provider)
    if provider == host:
        return (
            f"profile {name}: judge.provider = {host}: {host}'s own model judges each audited "
            "Todo turn through its CLI and your login (Jev's judge input is about 1,000 "
            "tokens for a median turn, plus the CLI's own system text; `jev report` shows "
            "the tokens the CLI reports); `--judge rules` keeps the offline rules judge"
        )
    return f"profile {name}: judge.provider = {provider}"


def run(args: argparse.Namespace) -> int:
    """Run ``install`` or ``uninstall``; return the exit code (0 on success)."""
    out = sys.stdout
    if args.command == "install":
        profile = require_profile(args.profile) if args.profile else None
        if args.judge is not None and args.judge not in judge_names():
            raise UsageError(
                f"unknown judge {args.judge!r}; registered judges: {', '.join(judge_names())}"
            )
        plans = plan_install_all(
            args.host,
            args.scope,
            profile=profile,
            project_dir=args.project_dir,
            todo_tools=not args.no_todo_tools,
        )
    else:
        profile = None
        plans = plan_uninstall_all(args.host, args.scope, project_dir=args.project_dir)

    if args.dry_run:
        for plan in plans:
            if plan.changed and plan.after != (plan.before or ""):
                out.write(plan.diff())
                out.write(f"dry run: {plan.path} was not changed.\n")
            elif plan is plans[0]:
                out.write(f"{plan.path}: already up to date; nothing to change.\n")
            for note in plan.notes:
                out.write(note + "\n")
        if args.command == "install" and args.enable:
            out.write(f"dry run: would enable profile {profile or 'in force'}.\n")
        if _creates_local(args, plans[0]):
            out.write(ignore_local_settings(plans[0].path.parent.parent, dry_run=True) + "\n")
        return 0

    for plan in plans:
        backup = apply_plan(plan)
        if plan.changed:
            for line in plan.changes:
                out.write(f"{plan.path}: {line}\n")
            if backup is not None:
                out.write(f"backup of the previous file: {backup}\n")
            elif args.command == "uninstall" and not plan.path.exists():
                out.write(
                    f"{plan.path}: removed the file (Jev had created it and nothing else "
                    "was in it)\n"
                )
        elif plan is plans[0]:
            out.write(f"{plan.path}: already up to date; nothing changed.\n")
        for note in plan.notes:
            out.write(note + "\n")
    if _creates_local(args, plans[0]):
        out.write(ignore_local_settings(plans[0].path.parent.parent) + "\n")
    if args.command == "uninstall" and args.scope == "local" and not plans[0].path.exists():
        said = unignore_local_settings(plans[0].path.parent.parent)
        if said:
            out.write(said + "\n")
    if args.command == "install" and args.enable:
        settings = set_value(profile, "enabled", "true")
        out.write(f"profile {settings.profile}: enabled = true\n")
    elif args.command == "install" and not load_settings(profile).enabled:
        name = active_profile(profile)
        out.write(
            f"note: profile {name} is disabled, so the hook audits nothing yet; "
            f"run `jev enable{'' if profile is None else ' --profile ' + name}` "
            "(or install with --enable).\n"
        )
    if args.command == "install":
        out.write(_set_judge(args.host, profile, args.judge) + "\n")
        if args.no_todo_tools:
            out.write(
                "note: --no-todo-tools: Jev audits only turns in which the agent kept a Todo "
                "list; make sure the host's Todo tool is available (see README).\n"
            )
        installer = _installer_of(args.host)
        scope_notes = getattr(installer, "scope_notes", None)  # e.g. "trust the project"
        extra = scope_notes(args.scope or "user") if callable(scope_notes) else ()
        for note in (*installer.notes(), *extra):
            out.write(note + "\n")
    return 0
