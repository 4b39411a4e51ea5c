"""``jev doctor``: is everything in place for Jev to audit the user's turns? (issue 8 item 5)

For each host found on the machine (or the one asked for; every installable host when
none is found), it checks, through the host's adapter (:mod:`jev.hosts.registry`):

* Jev's hook is installed (user scope, or the project scope of the current folder)
  and its command points at a ``jev`` executable that exists;
* the host's Todo tool will be available (the settings Jev writes at install, or
  the same variable in the environment);
* the last audit of that host (time and status), from the store;
* the host's last few skipped stops and why, from Jev's log when ``JEV_LOG`` wrote
  one (:func:`jev.log.recent_skips`);

and once: the active profile and whether it is enabled; the judge (provider, model,
whether the key's environment variable is set — never its value); the store path and
its health.

A problem is one line saying what is missing and the command that fixes it. The CLI
exits 0 when there is none, 7 otherwise (:mod:`jev.cli.doctor_cmd`). Per installed hook
it also checks the profile the hook runs with (enabled; Cursor's ``loop_limit`` not
below its ``max_supplements``), and that the hook is installed at one scope only
(issue 23 item 4).
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jev.base.errors import JevError, UsageError
from jev.hosts.install import (
    config_path,
    handler_command,
    hook_timeout_s,
    installable_hosts,
    jev_handlers,
    project_root,
    todo_settings,
)
from jev.hosts.registry import adapter
from jev.hosts.transcript import read_turns
from jev.judges import judge_class_attribute
from jev.log import recent_skips
from jev.settings.profiles import active_profile, load_settings
from jev.store import Store, default_store_path
from jev.store.url import configured_store_url

__all__ = ["HostReport", "Report", "diagnose"]


@dataclass
class HostReport:
    """What ``jev doctor`` found for one host.

    Attributes:
        host: the host's name.
        found: the host is present on this machine (its config folder or program).
        hooks: ``{scope: config file}`` where Jev's stop hook is installed.
        executable_ok: every installed Jev hook command names a ``jev`` that exists.
        todo_tools: the Todo tool will be available (a Jev setting or the environment).
        todo_offer: how the host offers it, when that is worth saying ("" otherwise),
            e.g. Claude Code's deferred tools (an installer's ``todo_offer``).
        last_audit: ``{"time", "status", "action"}`` of the host's newest record, or None.
        newest_session: the host's newest session file on this machine, or None.
        session_readable: whether that file reads the way the hook reads it (None: no file).
        block_cap: consecutive blocks the host delivers (None: no host cap).
        notice_channel: whether the host shows Jev's notices to the user.
        problems: one line per missing piece, each with the command that fixes it.
        warnings: lines worth knowing that do not stop Jev from auditing.
        recent_skips: the host's last few skipped stops from Jev's log, newest first
            (``{"time", "reason", "path"}``; empty without a log, :mod:`jev.log`).
    """

    host: str
    found: bool
    hooks: dict[str, str] = field(default_factory=dict)
    executable_ok: bool = True
    todo_tools: bool = False
    todo_offer: str = ""
    last_audit: dict[str, Any] | None = None
    newest_session: str | None = None
    session_readable: bool | None = None
    block_cap: int | None = None
    notice_channel: bool = True
    problems: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    recent_skips: list[dict[str, str]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """The report as a JSON object (same field names)."""
        return {
            "host": self.host,
            "found": self.found,
            "hooks": self.hooks,
            "executable_ok": self.executable_ok,
            "todo_tools": self.todo_tools,
            "todo_offer": self.todo_offer,
            "last_audit": self.last_audit,
            "newest_session": self.newest_session,
            "session_readable": self.session_readable,
            "block_cap": self.block_cap,
            "notice_channel": self.notice_channel,
            "problems": self.problems,
            "warnings": self.warnings,
            "recent_skips": self.recent_skips,
        }


@dataclass
class Report:
    """The whole ``jev doctor`` report (see the module docstring)."""

    hosts: list[HostReport]
    profile: str
    enabled: bool
    judge: dict[str, Any]
    store: dict[str, Any]
    problems: list[str] = field(default_factory=list)

    @property
    def all_problems(self) -> list[str]:
        """Every problem: the hosts' first, then the shared ones."""
        return [p for h in self.hosts for p in h.problems] + self.problems

    def to_json(self) -> dict[str, Any]:
        """The report as a JSON object; ``ok`` is True when there is no problem."""
        return {
            "ok": not self.all_problems,
            "hosts": [h.to_json() for h in self.hosts],
            "profile": {"name": self.profile, "enabled": self.enabled},
            "judge": self.judge,
            "store": self.store,
            "problems": self.all_problems,
        }


def _command_exe(handler: dict[str, Any]) -> str:
    command = handler_command(handler)
    if not command:
        return ""
    if isinstance(handler.get("args"), list):
        return command  # exec form: the command is the executable itself
    try:
        words = shlex.split(command, posix=sys.platform != "win32")
    except ValueError:
        return ""
    return words[0].strip('"') if words else ""


def _exe_exists(exe: str) -> bool:
    if not exe:
        return False
    path = Path(exe)
    if path.is_absolute() or os.sep in exe:
        return path.is_file() and os.access(path, os.X_OK)
    return shutil.which(exe) is not None


def _handlers(path: Path, name: str) -> list[dict[str, Any]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return jev_handlers(data, (name,)) if isinstance(data, dict) else []


def _setting_on(path: Path, keys: tuple[str, ...], value: object) -> bool:
    if keys and keys[0] == "env" and os.environ.get(keys[-1]) == value:
        return True  # the variable is in the environment the host inherits
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return False
    node: Any
    try:
        node = tomllib.loads(text) if path.suffix == ".toml" else json.loads(text)
    except ValueError:
        return False
    for key in keys:
        if not isinstance(node, dict) or key not in node:
            return False
        node = node[key]
    return bool(node == value)


def _host_report(
    host: str, found: bool, last: dict[str, Any] | None, max_supplements: int
) -> HostReport:
    installer = adapter(host).installer
    report = HostReport(host=host, found=found, last_audit=last)
    if installer is None:
        return report
    report.block_cap = installer.block_cap
    report.notice_channel = installer.notice_channel
    stop_name = next((name for event, name in installer.entries if event == "Stop"), host)
    project = project_root()
    todo = False
    for scope in installer.scopes:
        path = config_path(host, scope, project if scope != "user" else None)
        handlers = _handlers(path, stop_name)
        if not handlers:
            continue
        report.hooks[scope] = str(path)
        for line in installer.checks(scope, path):  # "warning: …" does not fail doctor
            if line.startswith("warning: "):
                report.warnings.append(line.removeprefix("warning: "))
            else:
                report.problems.append(line)
        for handler in handlers:
            exe = _command_exe(handler)
            if not _exe_exists(exe):
                report.executable_ok = False
                report.problems.append(
                    f"{host}: the hook in {path} runs {exe or 'an unreadable command'}, "
                    f"which does not exist; run `jev install {host}"
                    f"{'' if scope == 'user' else ' --scope ' + scope}` again"
                )
            report.problems.extend(_hook_profile_problems(host, path, handler))
        settings = todo_settings(host, scope, project if scope != "user" else None)
        if settings and all(_setting_on(s.path, s.keys, s.value) for s in settings):
            todo = True
    plugin = getattr(installer, "plugin_hooks", None)  # hooks a host plugin wires
    for scope, path in (plugin() if callable(plugin) else {}).items():
        report.hooks = {scope: str(path), **report.hooks}  # first: keep it if twice
        report.problems.extend(
            _hook_profile_problems(host, Path(path), {"command": f"jev hook {stop_name}"})
        )
        for line in installer.checks(scope, Path(path)):
            if line.startswith("warning: "):
                report.warnings.append(line.removeprefix("warning: "))
            else:
                report.problems.append(line)
    if not report.hooks:
        report.problems.append(
            f"{host}: Jev's stop hook is not installed; run `jev install {host} --enable`"
        )
    elif len(report.hooks) > 1:  # each runs on every stop: two audits, two judge calls
        where = " and ".join(f"{scope} ({path})" for scope, path in report.hooks.items())
        others = list(report.hooks)[1:]  # keep the first (user scope covers every project)
        report.problems.append(
            f"{host}: Jev's stop hook is installed at {where}; the host runs each of them on "
            "every stop (two audits and judge calls per stop); keep one: "
            + "; ".join(f"run `jev uninstall {host} --scope {scope}`" for scope in others)
        )
    user_settings = todo_settings(host, "user", None)
    if not user_settings or all(_setting_on(s.path, s.keys, s.value) for s in user_settings):
        todo = True
    _read_newest_session(host, report)
    if report.block_cap is not None and max_supplements > report.block_cap:
        report.warnings.append(
            f"{host}: max_supplements is {max_supplements}, but the host delivers at most "
            f"{report.block_cap} blocks in a row; run `jev settings set max_supplements "
            f"{report.block_cap}`"
        )
    if not report.notice_channel:
        report.warnings.append(
            f"{host}: the host shows none of Jev's notices (needs-user, budget used up); "
            "read them with `jev report` or `jev records list`"
        )
    offered = getattr(installer, "todo_tools_offered", None)
    if callable(offered):  # the host's own switch, when it is more than Jev's settings
        todo = bool(offered(project))
    report.todo_tools = todo
    report.todo_offer = str(getattr(installer, "todo_offer", "") or "") if todo else ""
    if not todo:
        what = ", ".join(f"{'.'.join(s.keys)} in {s.path}" for s in user_settings)
        report.problems.append(
            f"{host}: the Todo tool may be off ({what} not set), so Jev has nothing to audit; "
            f"run `jev install {host}`"
        )
    return report


def _hook_profile(handler: dict[str, Any]) -> str | None:
    """The ``--profile`` a Jev hook command names (None: the active profile)."""
    args = handler.get("args")
    if isinstance(args, list):
        words = [str(a) for a in args]
    else:
        try:
            words = shlex.split(handler_command(handler), posix=sys.platform != "win32")
        except ValueError:
            return None
    for i, word in enumerate(words):
        if word == "--profile" and i + 1 < len(words):
            return words[i + 1].strip('"')
        if word.startswith("--profile="):
            return word.split("=", 1)[1].strip('"')
    return None


def _hook_profile_problems(host: str, path: Path, handler: dict[str, Any]) -> list[str]:
    """What stops the profile an installed hook runs with (issue 23 item 4): it is
    disabled or unreadable, or the host's own loop limit (Cursor's ``loop_limit``) is
    below its ``max_supplements``, so the host stops sending the agent back first."""
    named = _hook_profile(handler)
    profile = active_profile(named)
    flag = f" --profile {profile}" if named else ""
    try:
        settings = load_settings(profile)
    except JevError as exc:
        return [
            f"{host}: the hook in {path} runs with profile {profile}, which cannot be read "
            f"({' '.join(str(exc).split())}); run `jev profiles create {profile}` or "
            f"`jev install {host}` with an existing --profile"
        ]
    problems = []
    if not settings.enabled:
        problems.append(
            f"{host}: the hook in {path} runs with profile {profile}, which is disabled, so "
            f"it audits nothing; run `jev enable{flag}`"
        )
    judge = _judge_report(settings)
    other = named and profile != active_profile(None)  # the active one is checked once
    if other and judge["key_required"] and judge["key_env"] and not judge["key_set"]:
        problems.append(
            f"{host}: the hook in {path} runs with profile {profile}, whose judge "
            f"{judge['provider']} reads its key from {judge['key_env']}, which is not set; "
            f"export {judge['key_env']}=… where {host} runs"
        )
    limit = handler.get("loop_limit")
    if isinstance(limit, int) and not isinstance(limit, bool) and limit < settings.max_supplements:
        problems.append(
            f"{host}: the hook in {path} has loop_limit {limit}, below max_supplements "
            f"{settings.max_supplements} of profile {profile}: the host stops sending the agent "
            f"back after {limit}; run `jev install {host}` again (it sets loop_limit from "
            f"max_supplements) or `jev settings set max_supplements {limit}{flag}`"
        )
    problems.extend(_checks_time_problems(host, path, handler, settings, flag))
    return problems


def _checks_time_problems(
    host: str, path: Path, handler: dict[str, Any], settings: Any, flag: str
) -> list[str]:
    """The hook's ``timeout`` is below what the profile's judge and ``evidence.checks``
    need (issue 21): the host would kill the stop while a check runs."""
    if not settings.evidence.checks:
        return []
    raw = handler.get("timeout")
    if not isinstance(raw, int | float) or isinstance(raw, bool):
        return []
    installer = adapter(host).installer
    seconds = raw / 1000 if installer is not None and installer.timeout_unit == "ms" else raw
    needed = hook_timeout_s(settings.profile)
    if seconds >= needed:
        return []
    return [
        f"{host}: the hook in {path} has a timeout of {seconds:g} s, below the {needed} s "
        f"the judge and the {len(settings.evidence.checks)} evidence.checks of profile "
        f"{settings.profile} may take, so the host may kill a stop while a check runs; run "
        f"`jev install {host}{flag}` again (it sizes the timeout) or lower "
        "evidence.check_timeout_s"
    ]


def _read_newest_session(host: str, report: HostReport) -> None:
    """Read the host's newest session file the way ``jev audit`` and the hook read it
    (issue 19 item 4): a file whose every turn lost its request, or that cannot be
    read at all, means this host version writes a format Jev does not understand."""
    installer = adapter(host).installer
    newest = installer.newest_session() if installer is not None else None
    if newest is None:
        return
    report.newest_session = str(newest)
    try:
        turns = read_turns(newest)
    except (JevError, OSError, ValueError) as exc:
        reason = " ".join(str(exc).split()).removeprefix(f"{newest}: ")
        # `jev audit`'s advice (--from, turn files) is no help for a host's own file
        reason = reason.split(" Pass a turn file")[0].rstrip(".")
    else:
        opened = [t for t in turns if t.opening != "subagent"]
        # a turn without its request is lost even when it used no Todo (then "skipped")
        lost = [t for t in opened if t.status == "missing" or t.opening == "missing"]
        if not opened or len(lost) < len(opened):
            report.session_readable = True
            return
        reason = next(
            (t.reason for t in reversed(lost) if t.status == "missing"),
            "no turn's request is in the file",
        )
    report.session_readable = False
    noun = str(getattr(installer, "session_noun", "") or "session")  # e.g. "rollout"
    report.problems.append(
        f"{host}: cannot read the newest {noun} {newest} ({reason}); this version of "
        f"{host} writes a format this Jev does not read: update Jev, or report it"
    )


def _judge_report(settings: Any) -> dict[str, Any]:
    judge = settings.judge
    key_env = judge.api_key_env or str(judge_class_attribute(judge.provider, "default_key_env", ""))
    default_base = str(judge_class_attribute(judge.provider, "default_base_url", "")).rstrip("/")
    own_service = not judge.base_url or judge.base_url.rstrip("/") == default_base
    return {
        "provider": judge.provider,
        "model": judge.model,
        "key_env": key_env or None,
        "key_set": bool(key_env and os.environ.get(key_env)) if key_env else None,
        # as the judge decides it: the provider's own service needs a key, unless it is
        # one that runs without (a local Ollama); another base URL may need none
        "key_required": bool(judge_class_attribute(judge.provider, "key_required", True))
        and own_service,
        **_cli_judge_report(judge.provider),
    }


def _cli_judge_report(provider: str) -> dict[str, Any]:
    """For a host judge (issue 20): its CLI on PATH and the CLI's own free login check
    (``cli``: the program's path or None; ``logged_in``: True/False/None; ``login``:
    what the check said). ``{}`` for other judges."""
    program = str(judge_class_attribute(provider, "program", ""))
    if not program:
        return {}
    found = shutil.which(program)
    report: dict[str, Any] = {"program": program, "cli": found, "logged_in": None, "login": ""}
    check = judge_class_attribute(provider, "login_status", None)
    if found and callable(check):
        try:
            report["logged_in"], report["login"] = check()
        except Exception as exc:  # a doctor never fails on a check
            report["login"] = f"login check failed: {' '.join(str(exc).split())[:120]}"
    return report


def _store_report() -> tuple[dict[str, Any], list[dict[str, Any]]]:
    path = default_store_path()
    info: dict[str, Any] = {"path": str(path), "exists": path.exists(), "ok": True, "error": ""}
    try:
        url, _ = configured_store_url()  # a shared store (README "For teams")
    except JevError as exc:
        info.update(ok=False, error=" ".join(str(exc).split()))
        return info, []
    if url:
        info.update(path=url, exists=True)
    elif not path.exists():
        return info, []
    try:
        with Store() as store:
            info["path"] = store.location
            records = [r.to_json() for r in store.list_records(limit=500)]
    except (JevError, OSError) as exc:
        info.update(ok=False, error=" ".join(str(exc).split()))
        return info, []
    return info, records


def diagnose(host: str | None = None) -> Report:
    """Check the installation (see the module docstring).

    Args:
        host: only this host (a registered host with an installer), else every host
            found on the machine, or every installable host when none is found.

    Raises:
        jev.base.errors.UsageError: ``host`` has no installer.
        jev.base.errors.SettingsError: the active profile file is invalid.
    """
    installable = installable_hosts()
    if host is not None and host not in installable:
        raise UsageError(
            f"jev doctor knows the hosts with an installer: {', '.join(installable)}; got {host!r}"
        )
    present = {h: _present(h) for h in installable}
    if host is not None:
        chosen = [host]
    else:
        chosen = [h for h in installable if present[h]] or list(installable)
    store, records = _store_report()
    last: dict[str, dict[str, Any]] = {}
    for record in records:  # newest first
        name = str(record.get("host") or "")
        if name and name not in last:
            last[name] = {
                "time": record.get("created_at"),
                "status": record.get("status"),
                "action": (record.get("action") or {}).get("kind"),
            }
    profile = active_profile(None)
    settings = load_settings(None)
    hosts = [_host_report(h, present[h], last.get(h), settings.max_supplements) for h in chosen]
    skips = recent_skips()  # why recent stops were not audited (JEV_LOG, issue 24)
    for report_of in hosts:
        report_of.recent_skips = skips.get(report_of.host, [])
    report = Report(
        hosts=hosts,
        profile=profile,
        enabled=settings.enabled,
        judge=_judge_report(settings),
        store=store,
    )
    if not settings.enabled and not any(h.hooks for h in hosts):  # else: per hook's profile
        report.problems.append(
            f"profile {profile} is disabled, so the hooks audit nothing; run `jev enable`"
        )
    judge = report.judge
    if judge["key_env"] and not judge["key_set"] and judge["key_required"]:
        report.problems.append(
            f"the judge {judge['provider']} reads its key from {judge['key_env']}, which is "
            f"not set; export {judge['key_env']}=… or run `jev settings set judge.provider rules`"
        )
    if "program" in judge and not judge["cli"]:
        report.problems.append(
            f"the judge {judge['provider']} runs the {judge['program']} program, which is not "
            f"on PATH; install it, or run `jev settings set judge.provider rules`"
        )
    elif judge.get("logged_in") is False:
        report.problems.append(f"the judge {judge['provider']}: {judge['login']}")
    if not store["ok"]:
        report.problems.append(
            f"the store {store['path']} cannot be read ({store['error']}); move it away and "
            "Jev starts a new one"
        )
    return report


def _present(host: str) -> bool:
    installer = adapter(host).installer
    return installer is not None and installer.present()
