"""Installers: plan the change of a host's hook configuration that installs or removes
Jev (design.md §12).

The generic part: each host's adapter describes its files, scopes, handler shape and
timeout unit (:class:`jev.hosts.base.Installer`, e.g.
:class:`jev.hosts.claude_code.adapter.ClaudeCodeInstaller`); this module finds the
file (:func:`config_path`, the project root), sizes the Stop timeout
(:func:`hook_timeout_s`) and plans the merge (:func:`plan_install`,
:func:`plan_uninstall`). Reading, merging, diffing, backing up and writing the file is
:mod:`jev.hosts.hook_file`; the hook command and the recognition of Jev's own handlers
are :mod:`jev.hosts.hook_commands` (both re-exported here). The hosts with an installer
are :func:`installable_hosts`.
"""

from __future__ import annotations

import copy
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jev.base.errors import UsageError
from jev.base.files import write_atomic
from jev.hosts.config_edit import Ledger, json_set, json_unset, note_setting, show_setting
from jev.hosts.hook_commands import (
    COMMAND_FIELDS,
    HOOK_NAMES,
    SESSION_START_TIMEOUT_S,
    STATUS_MESSAGE,
    handler_command,
    hook_command,
    is_jev_handler,
    jev_executable,
    jev_handlers,
)
from jev.hosts.hook_file import (
    InstallPlan,
    apply_plan,
    dump_json,
    hook_groups,
    hooks_table,
    layout,
    merge_event,
    merge_flat,
    read_hook_file,
)
from jev.hosts.registry import adapter, host_names
from jev.pipeline.ask import MAX_RETRY_WAIT_S
from jev.settings.profiles import load_settings

if TYPE_CHECKING:
    from jev.hosts.base import ConfigSetting, Installer

__all__ = [
    "COMMAND_FIELDS",
    "HOOK_NAMES",
    "SESSION_START_TIMEOUT_S",
    "STATUS_MESSAGE",
    "TIMEOUT_MARGIN_S",
    "InstallPlan",
    "apply_plan",
    "config_path",
    "find_project_root",
    "handler_command",
    "hook_command",
    "hook_timeout_s",
    "ignore_local_settings",
    "installable_hosts",
    "is_jev_handler",
    "jev_executable",
    "jev_handlers",
    "plan_install",
    "plan_uninstall",
    "project_root",
    "todo_settings",
    "unignore_local_settings",
]


def installable_hosts() -> tuple[str, ...]:
    """The registered hosts whose adapter has an installer."""
    return tuple(h for h in host_names() if adapter(h).installer is not None)


def _installer(host: str) -> Installer:
    if host not in host_names():
        raise UsageError(
            f"no installer for host {host!r}; available: {', '.join(installable_hosts())}."
        )
    found = adapter(host).installer
    if found is None:
        raise UsageError(
            f"no installer for host {host!r}; available: {', '.join(installable_hosts())}. "
            "Its hooks are configured by hand (see README)."
        )
    return found


#: Seconds added to the worst-case judge time for reading, storing and start-up.
TIMEOUT_MARGIN_S = 30


# ------------------------------------------------------------------ paths


def config_path(host: str, scope: str, project_dir: Path | None = None) -> Path:
    """The hook configuration file of ``host`` at ``scope`` (from the host's adapter).

    Args:
        host: a host with an installer (:func:`installable_hosts`).
        scope: one of the installer's scopes.
        project_dir: the project root for project scopes (default: :func:`project_root`).

    Raises:
        UsageError: unknown host or a scope the host does not have; no project found
            for ``project``/``local`` (:func:`project_root`).
    """
    installer = _installer(host)
    if scope not in installer.scopes:
        raise UsageError(
            f"scope {scope!r} is not available for {host}; use one of: "
            f"{', '.join(installer.scopes)}"
        )
    if project_dir is not None and not Path(project_dir).is_dir():
        raise UsageError(f"--project-dir {project_dir}: no such folder; give the project's root")
    if project_dir is not None:
        project = Path(project_dir).absolute()
    elif scope == "user":
        project = Path.cwd().absolute()  # a user-scope file does not depend on it
    else:
        found = find_project_root()
        if found is None:
            raise UsageError(_NO_PROJECT.format(here=Path.cwd().absolute()))
        project = found
    return installer.config_path(scope, project)


#: Folders that mark a project root for ``project``/``local`` installs.
PROJECT_MARKERS = (".git", ".claude", ".codex")


_NO_PROJECT = (
    "no project found at {here} or above it (below your home folder): none of "
    ".git, .claude or .codex exists there. Pass --project-dir DIR, or use "
    "--scope user to install for every project."
)


def find_project_root(start: Path | None = None) -> Path | None:
    """The nearest folder from ``start`` (default: the cwd) upwards that holds
    ``.git``, ``.claude`` or ``.codex``, searched only below ``$HOME`` (issue 10 item
    6): the home folder holds the user-wide ``~/.claude``, so a project scope there
    would edit the user's global settings. ``None`` when there is none."""
    here = (start or Path.cwd()).absolute()
    home = Path.home().absolute()
    for folder in (here, *here.parents):
        if folder == home or folder in home.parents:
            break
        if any((folder / marker).exists() for marker in PROJECT_MARKERS):
            return folder
    return None


def project_root(start: Path | None = None) -> Path:
    """The project folder for reports (:func:`find_project_root`, else the cwd).

    Installs never fall back to the cwd: :func:`config_path` refuses a project scope
    without a project (``UsageError`` naming ``--project-dir`` and ``--scope user``).
    """
    return find_project_root(start) or (start or Path.cwd()).absolute()


_LOCAL_IGNORE = ".claude/settings.local.json"
_IGNORED_BY = frozenset(
    {
        _LOCAL_IGNORE,
        "/" + _LOCAL_IGNORE,
        "settings.local.json",
        "**/settings.local.json",
        ".claude",
        ".claude/",
        "/.claude",
        "/.claude/",
        ".claude/*",
    }
)


def ignore_local_settings(project: Path, *, dry_run: bool = False) -> str:
    """Make git ignore ``.claude/settings.local.json`` (a ``local`` install creates it).

    Claude Code keeps personal settings in that file and expects git to ignore it; Jev
    adds the line to ``<project>/.gitignore`` (created if missing) unless a line there
    already covers it. Nothing is written with ``dry_run`` or outside a git repository.

    Returns:
        One line for the user saying what was done, or why nothing was.

    Raises:
        UsageError: ``.gitignore`` cannot be read or written.
    """
    gitignore = project / ".gitignore"
    if not (project / ".git").exists():
        return f"note: {project} is not a git repository; .gitignore was not changed."
    try:
        text = gitignore.read_text(encoding="utf-8") if gitignore.exists() else ""
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read {gitignore}: {exc}; add {_LOCAL_IGNORE} by hand.") from None
    if any(line.strip() in _IGNORED_BY for line in text.splitlines()):
        return f"{gitignore} already ignores {_LOCAL_IGNORE}."
    if dry_run:
        return f"dry run: would add {_LOCAL_IGNORE} to {gitignore}."
    sep = "" if not text or text.endswith("\n") else "\n"
    existed = gitignore.exists()
    try:
        with gitignore.open("a", encoding="utf-8") as handle:
            handle.write(f"{sep}{_LOCAL_IGNORE}\n")
        Ledger().note_ignore(gitignore, created=not existed)
    except OSError as exc:
        raise UsageError(
            f"cannot write {gitignore}: {exc.strerror or exc}; add {_LOCAL_IGNORE} by hand."
        ) from None
    return f"added {_LOCAL_IGNORE} to {gitignore}."


def unignore_local_settings(project: Path) -> str:
    """Take back the ``.gitignore`` line :func:`ignore_local_settings` added, once
    ``jev uninstall`` removed the ``settings.local.json`` Jev created (issue 23 item 4):
    the line goes, and a ``.gitignore`` Jev created is deleted when nothing else is in
    it. A line the user had, or a file the user changed around it, stays.

    Returns:
        One line for the user ("" when Jev had added nothing).

    Raises:
        UsageError: ``.gitignore`` cannot be read or written.
    """
    gitignore = project / ".gitignore"
    ledger = Ledger()
    created = ledger.ignore(gitignore)
    if created is None:
        return ""
    try:
        text = gitignore.read_text(encoding="utf-8") if gitignore.exists() else ""
        lines = text.splitlines(keepends=True)
        kept = [line for line in lines if line.rstrip("\r\n") != _LOCAL_IGNORE]
        if created and not "".join(kept).strip():
            gitignore.unlink(missing_ok=True)
            said = f"removed {gitignore} (Jev had created it for {_LOCAL_IGNORE})."
        elif len(kept) < len(lines):
            write_atomic(gitignore, "".join(kept).encode("utf-8"))
            said = f"removed {_LOCAL_IGNORE} from {gitignore}."
        else:
            said = ""
        ledger.forget_ignore(gitignore)
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(
            f"cannot update {gitignore}: {exc}; remove the line {_LOCAL_IGNORE} by hand."
        ) from None
    return said


def hook_timeout_s(profile: str | None = None) -> int:
    """The Stop handler's timeout in whole seconds for the profile's judge settings.

    ``timeout_s × (technical_retries + 1)`` (every judge call may take its full time)
    plus one capped ``Retry-After`` wait per retry (:data:`jev.pipeline.ask.MAX_RETRY_WAIT_S`)
    plus :data:`TIMEOUT_MARGIN_S`, plus ``evidence.check_timeout_s`` × the number of
    ``evidence.checks`` (the checks run in the stop too, issue 21). With the shipped
    defaults (60 s, 1 retry, no checks): 210 s.

    Raises:
        jev.base.errors.SettingsError: the profile file is invalid.
    """
    settings = load_settings(profile)
    judge = settings.judge
    retries = judge.technical_retries
    total = judge.timeout_s * (retries + 1) + MAX_RETRY_WAIT_S * retries + TIMEOUT_MARGIN_S
    checks = settings.evidence.check_timeout_s * len(settings.evidence.checks)
    return math.ceil(total + checks)


def plan_install(
    host: str,
    scope: str,
    *,
    profile: str | None = None,
    project_dir: Path | None = None,
    todo_tools: bool = True,
) -> InstallPlan:
    """Compute the change of the hook configuration file that installs Jev for ``host``.

    The host's installer names the handlers (Claude Code: ``Stop`` and
    ``SessionStart``; Codex: ``Stop``); the Stop timeout is :func:`hook_timeout_s`.
    With ``todo_tools``, the host's Todo-tool settings that live in the same file are
    added too (Claude Code: ``env.CLAUDE_CODE_ENABLE_TODO_TOOLS``); those in other files
    are planned by :func:`plan_install_all`.

    Raises:
        UsageError: unknown host/scope, unreadable or invalid JSON file, a ``hooks``
            value of the wrong type, or no ``jev`` executable.
        jev.base.errors.SettingsError: the profile is invalid.
    """
    path = config_path(host, scope, project_dir)
    before, data = read_hook_file(path)
    hooks = dict(hooks_table(path, data))
    timeout = hook_timeout_s(profile)
    changes: list[str] = []
    installer = _installer(host)
    exe = jev_executable()
    merge = merge_flat if layout(installer) == "flat" else merge_event
    for event, name in installer.entries:
        handler = installer.handler(event, name, exe, profile, timeout)
        groups, done = merge(hook_groups(path, hooks, event), name, handler)
        hooks[event] = groups
        changes += [f"{what} {event} hook: {handler_command(handler)}" for what in done]
    new = copy.deepcopy(data)
    version = getattr(installer, "version", None)
    if isinstance(version, int) and "version" not in new:
        new = {"version": version, **new}  # flat hook files carry a schema version
        changes.append(f"set version: {version}")
    new["hooks"] = hooks
    added: list[tuple[str, ...]] = []
    notes: list[str] = []
    if todo_tools:
        for setting in todo_settings(host, scope, project_dir):
            if setting.path != path:
                continue
            status = json_set(path, new, setting.keys, setting.value)
            note_setting(setting, status, changes, added, notes)
    if new == data:
        return InstallPlan(host, scope, path, before, before or "", (), notes=tuple(notes))
    return InstallPlan(
        host,
        scope,
        path,
        before,
        dump_json(new, before),
        tuple(changes),
        added=tuple(added),
        notes=tuple(notes),
    )


def todo_settings(host: str, scope: str, project_dir: Path | None) -> tuple[ConfigSetting, ...]:
    """The Todo-tool settings of ``host`` at ``scope`` (its installer's list).

    Raises:
        UsageError: a host without an installer.
    """
    project = (Path(project_dir) if project_dir is not None else project_root()).absolute()
    return _installer(host).todo_tool_settings(scope, project)


def plan_uninstall(host: str, scope: str, *, project_dir: Path | None = None) -> InstallPlan:
    """Compute the change that removes every Jev handler of ``host`` at ``scope``, and
    the settings in the same file that Jev added (per the ledger, and only while they
    still hold Jev's value).

    Matcher groups left empty by the removal are dropped, then events left empty, then
    a ``hooks`` object left empty; nothing else changes. Idempotent.

    Raises:
        UsageError: as :func:`plan_install` (except the executable lookup).
    """
    path = config_path(host, scope, project_dir)
    before, data = read_hook_file(path)
    hooks = hooks_table(path, data) if "hooks" in data else {}
    names = tuple(name for _, name in _installer(host).entries)
    new_hooks: dict[str, Any] = {}
    changes: list[str] = []
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            new_hooks[event] = groups
            continue
        new_groups: list[Any] = []
        touched = False
        for group in groups:
            if is_jev_handler(group, names):  # flat layout: the handler itself
                touched = True
                changes.append(f"removed {event} hook: {handler_command(group)}")
                continue
            if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
                new_groups.append(group)
                continue
            kept = [h for h in group["hooks"] if not is_jev_handler(h, names)]
            if len(kept) == len(group["hooks"]):
                new_groups.append(group)
                continue
            touched = True
            for removed in group["hooks"]:
                if is_jev_handler(removed, names):
                    changes.append(f"removed {event} hook: {handler_command(removed)}")
            if kept:
                new_groups.append({**group, "hooks": kept})
        if new_groups or not touched:
            new_hooks[event] = new_groups
    new = copy.deepcopy(data)
    if new_hooks:
        new["hooks"] = new_hooks
    else:
        new.pop("hooks", None)
    owned = Ledger().owned(path)
    dropped: list[tuple[str, ...]] = []
    for setting in todo_settings(host, scope, project_dir):
        if setting.path == path and setting.keys in owned:
            dropped.append(setting.keys)
            if json_unset(new, setting.keys, setting.value):
                changes.append(f"removed {show_setting(setting)}")
    if not changes and not dropped:
        return InstallPlan(host, scope, path, before, before or "", ())
    if not changes:
        return InstallPlan(
            host,
            scope,
            path,
            before,
            before or "",
            ("forgot a setting no longer set",),
            removed=tuple(dropped),
        )
    return InstallPlan(
        host, scope, path, before, dump_json(new, before), tuple(changes), removed=tuple(dropped)
    )
