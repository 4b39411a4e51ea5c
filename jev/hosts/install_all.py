"""``jev install``/``jev uninstall`` across every file a host needs (issue 8 item 4).

The hook configuration file is planned by :mod:`jev.hosts.install`; the Todo-tool
settings that live in other files (Codex ``config.toml``) are planned here, with the
TOML edits of :mod:`jev.hosts.config_edit`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from jev.base.errors import UsageError
from jev.hosts.config_edit import Ledger, note_setting, show_setting, toml_set, toml_unset
from jev.hosts.install import InstallPlan, plan_install, plan_uninstall, todo_settings

if TYPE_CHECKING:
    from jev.hosts.base import ConfigSetting

__all__ = ["plan_install_all", "plan_uninstall_all"]


def plan_install_all(
    host: str,
    scope: str,
    *,
    profile: str | None = None,
    project_dir: Path | None = None,
    todo_tools: bool = True,
) -> list[InstallPlan]:
    """Every file change of ``jev install HOST``: the hook configuration file
    (:func:`plan_install`), then each other file the Todo-tool settings live in
    (Codex: ``config.toml`` of the scope). Unchanged files are included (unchanged).

    Raises:
        UsageError: as :func:`plan_install`; invalid TOML in a settings file.
    """
    plans = [
        plan_install(host, scope, profile=profile, project_dir=project_dir, todo_tools=todo_tools)
    ]
    if todo_tools:
        plans += _plan_other_files(host, scope, project_dir, plans[0].path, remove=False)
    return plans


def plan_uninstall_all(
    host: str, scope: str, *, project_dir: Path | None = None
) -> list[InstallPlan]:
    """Every file change of ``jev uninstall HOST``: Jev's handlers and the settings Jev
    added (and only those, per the ledger) in the hook file, then in other files.

    Raises:
        UsageError: as :func:`plan_uninstall`.
    """
    first = plan_uninstall(host, scope, project_dir=project_dir)
    return [first, *_plan_other_files(host, scope, project_dir, first.path, remove=True)]


def _plan_other_files(
    host: str, scope: str, project_dir: Path | None, hooks_path: Path, *, remove: bool
) -> list[InstallPlan]:
    by_file: dict[Path, list[ConfigSetting]] = {}
    for setting in todo_settings(host, scope, project_dir):
        if setting.path != hooks_path:
            by_file.setdefault(setting.path, []).append(setting)
    plans: list[InstallPlan] = []
    ledger = Ledger()
    for path, settings in by_file.items():
        try:
            before: str | None = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            before = None
        except OSError as exc:
            raise UsageError(
                f"cannot read {path}: {exc.strerror or exc}; nothing was written."
            ) from None
        text = before or ""
        changes: list[str] = []
        added: list[tuple[str, ...]] = []
        removed: list[tuple[str, ...]] = []
        notes: list[str] = []
        owned = ledger.owned(path)
        for setting in settings:
            if remove:
                if setting.keys not in owned:
                    continue
                after = toml_unset(path, text, setting.keys, setting.value)
                removed.append(setting.keys)
                if after is not None:
                    text = after
                    changes.append(f"removed {show_setting(setting)}")
            else:
                text, status = toml_set(path, text, setting.keys, setting.value)
                note_setting(setting, status, changes, added, notes)
        if not changes and not removed:
            plans.append(
                InstallPlan(host, scope, path, before, before or "", (), notes=tuple(notes))
            )
            continue
        plans.append(
            InstallPlan(
                host,
                scope,
                path,
                before,
                text,
                tuple(changes) or (f"forgot {len(removed)} setting(s) no longer set",),
                added=tuple(added),
                removed=tuple(removed),
                notes=tuple(notes),
            )
        )
    return plans
