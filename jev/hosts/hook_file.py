"""The JSON hook configuration file of a host: read, merge Jev's handlers, diff, back
up and write (design.md §12; issue 4 item 4).

The files share the three-level shape event → matcher group → handlers::

    {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "…", "timeout": 210}]}]}}

or, for hosts whose installer says ``layout = "flat"``, event → handlers. Rules: the
merge is idempotent (a second install changes nothing and writes nothing), every other
key, event and handler stays as it was (same order), a Jev handler already present is
updated in place, a file that is not valid JSON is refused without writing, a backup of
the previous file is written before any change, the write is atomic (temporary file +
``os.replace``, :func:`jev.base.files.write_atomic`), and a dry run produces the unified diff
and writes nothing. Which changes to make is planned by :mod:`jev.hosts.install`.
"""

from __future__ import annotations

import contextlib
import difflib
import json
import shutil
import time
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jev.base import safejson
from jev.base.errors import UsageError
from jev.base.files import write_atomic
from jev.hosts.config_edit import Ledger
from jev.hosts.hook_commands import is_jev_handler

if TYPE_CHECKING:
    from jev.hosts.base import Installer

__all__ = [
    "InstallPlan",
    "apply_plan",
    "dump_json",
    "hook_groups",
    "hooks_table",
    "layout",
    "merge_event",
    "merge_flat",
    "only_jev_left",
    "read_hook_file",
]


@dataclass(frozen=True, slots=True)
class InstallPlan:
    """A computed change of one host configuration file, not yet written.

    Attributes:
        host: ``claude-code`` or ``codex``.
        scope: ``user``, ``project`` or ``local``.
        path: the configuration file.
        before: the file's text before the change (``None``: the file does not exist).
        after: the text that would be written (equal to ``before`` when unchanged).
        changes: one human line per change ("added Stop hook: …"); empty when unchanged.
        added: key paths of settings Jev adds to the file (remembered in the ledger,
            :class:`jev.hosts.config_edit.Ledger`, when the plan is applied).
        removed: key paths of settings Jev takes back (forgotten by the ledger).
        notes: lines for the user about settings Jev left alone.
    """

    host: str
    scope: str
    path: Path
    before: str | None
    after: str
    changes: tuple[str, ...]
    added: tuple[tuple[str, ...], ...] = ()
    removed: tuple[tuple[str, ...], ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def changed(self) -> bool:
        """True when writing the plan would change the file."""
        return bool(self.changes)

    def diff(self) -> str:
        """Unified diff from the current file to the planned one ("" when unchanged)."""
        if not self.changed:
            return ""
        old = (self.before or "").splitlines(keepends=True)
        new = self.after.splitlines(keepends=True)
        label = str(self.path)
        return "".join(
            difflib.unified_diff(
                old,
                new,
                fromfile=label if self.before is not None else "/dev/null",
                tofile=label,
            )
        )


def layout(installer: Installer) -> str:
    """``grouped`` (event → matcher groups → handlers, the default) or ``flat`` (event →
    handlers: Cursor, Copilot CLI), from the installer's optional ``layout``."""
    return str(getattr(installer, "layout", "grouped"))


def merge_flat(
    handlers: list[Any], name: str, handler: dict[str, Any]
) -> tuple[list[Any], list[str]]:
    """Like :func:`merge_event` for the flat layout (handlers directly under the event)."""
    result: list[Any] = []
    placed = False
    what: list[str] = []
    for existing in handlers:
        if is_jev_handler(existing, (name,)):
            if placed:
                what.append("removed a duplicate")
                continue
            merged = {**existing, **handler}
            if merged != existing:
                what.append("updated")
            result.append(merged)
            placed = True
        else:
            result.append(existing)
    if not placed:
        result.append(handler)
        what.append("added")
    return result, what


def read_hook_file(path: Path) -> tuple[str | None, dict[str, Any]]:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None, {}
    except OSError as exc:
        raise UsageError(
            f"cannot read {path}: {exc.strerror or exc}; nothing was written."
        ) from None
    try:
        text = safejson.decode_utf8(raw)
        if not text.strip():
            return text, {}
        data = safejson.loads(text)
    except safejson.JsonInputError as exc:
        raise UsageError(
            f"{safejson.describe(str(path), exc)}; nothing was written. Fix the file (or "
            "move it away) and run the command again."
        ) from None
    if not isinstance(data, dict):
        raise UsageError(
            f"{path} holds JSON but not an object at the top level; nothing was written. "
            "Fix the file and run the command again."
        )
    return text, data


def _indent_of(text: str | None) -> int | str:
    if text:
        for line in text.splitlines()[1:]:
            stripped = line.lstrip(" \t")
            if stripped and stripped != line:
                lead = line[: len(line) - len(stripped)]
                return "\t" if lead.startswith("\t") else max(1, min(len(lead), 8))
    return 2


def dump_json(data: Mapping[str, Any], like: str | None) -> str:
    return json.dumps(data, indent=_indent_of(like), ensure_ascii=False) + "\n"


def hooks_table(path: Path, data: dict[str, Any]) -> dict[str, Any]:
    hooks = data.get("hooks")
    if hooks is None:
        return {}
    if not isinstance(hooks, dict):
        raise UsageError(
            f'{path}: "hooks" is not an object; nothing was written. Fix the file and run '
            "the command again."
        )
    return hooks


def hook_groups(path: Path, hooks: Mapping[str, Any], event: str) -> list[Any]:
    groups = hooks.get(event, [])
    if not isinstance(groups, list):
        raise UsageError(
            f'{path}: "hooks.{event}" is not a list; nothing was written. Fix the file and '
            "run the command again."
        )
    return groups


def merge_event(
    groups: list[Any], name: str, handler: dict[str, Any]
) -> tuple[list[Any], list[str]]:
    """Put ``handler`` into ``groups`` (in place of an existing Jev handler of ``name``).

    Returns the new groups and what was done (``added``/``updated``/``removed a
    duplicate``; empty when nothing changed).
    """
    result: list[Any] = []
    placed = False
    what: list[str] = []
    for group in groups:
        if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
            result.append(group)
            continue
        kept: list[Any] = []
        had_ours = False
        for existing in group["hooks"]:
            if is_jev_handler(existing, (name,)):
                had_ours = True
                if placed:
                    what.append("removed a duplicate")
                    continue
                merged = {**existing, **handler}
                if "args" not in handler:
                    merged.pop("args", None)  # exec form back to shell form
                if merged != existing:
                    what.append("updated")
                kept.append(merged)
                placed = True
            else:
                kept.append(existing)
        if had_ours and not kept:
            continue  # a group that only held duplicates of ours
        result.append({**group, "hooks": kept} if had_ours else group)
    if not placed:
        result.append({"hooks": [handler]})
        what.append("added")
    return result, what


def _backup_path(path: Path) -> Path:
    stamp = time.strftime("%Y%m%dT%H%M%S")
    candidate = path.with_name(f"{path.name}.jev-backup-{stamp}")
    counter = 1
    while candidate.exists():
        candidate = path.with_name(f"{path.name}.jev-backup-{stamp}-{counter}")
        counter += 1
    return candidate


def only_jev_left(text: str) -> bool:
    """Whether a file's planned text holds nothing but what Jev itself would put in an
    empty file: no text, ``{}``, or a flat hook file's bare ``{"version": N}``."""
    if not text.strip():
        return True
    try:
        data = json.loads(text)
    except ValueError:
        return False
    return isinstance(data, dict) and set(data) <= {"version"}


def _new_folders(folder: Path) -> list[Path]:
    """The folders ``folder.mkdir(parents=True)`` would create, deepest first."""
    made: list[Path] = []
    while not folder.exists() and folder != folder.parent:
        made.append(folder)
        folder = folder.parent
    return made


def _remove_created(plan: InstallPlan, ledger: Ledger) -> None:
    """Delete a file Jev created whose planned text holds nothing of the user's, then
    the folders Jev created above it (while empty), and Jev's backups of it."""
    path = plan.path
    try:
        path.unlink()
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise UsageError(f"cannot remove {path}: {exc.strerror or exc}.") from None
    backups = ledger.backups(path)
    for backup in backups:
        with contextlib.suppress(OSError):
            backup.unlink()
    ledger.update(path, list(plan.added), list(plan.removed))
    ledger.forget(path, created=True, backups=backups)
    ours = set(ledger.folders())
    folder = path.parent.absolute()
    while folder in ours:  # deepest first; a folder holding anything else stays
        try:
            folder.rmdir()
        except OSError:
            break
        ledger.forget_folder(folder)
        folder = folder.parent


def _same_data(path: Path, one: str | None, other: str) -> bool:
    """Whether two texts of ``path`` hold the same data (JSON, or TOML for ``.toml``)."""
    if one is None:
        return False
    if one == other:
        return True
    try:
        if path.suffix == ".toml":
            return bool(tomllib.loads(one) == tomllib.loads(other))
        return bool(json.loads(one) == json.loads(other)) if one.strip() else False
    except ValueError:
        return False


def apply_plan(plan: InstallPlan) -> Path | None:
    """Write a plan: backup of the old file (if any), then an atomic replace.

    What install created, uninstall takes back (issue 23 item 4): a file Jev created
    whose planned text holds nothing else (:func:`only_jev_left`) is deleted, with the
    folders Jev created for it and Jev's backups of it; a plan that brings a file back
    to the data of a backup Jev wrote (the file before ``jev install``) writes that
    backup's own text back, writes no new backup, and deletes those equal backups. Both
    are remembered in the ledger (:class:`jev.hosts.config_edit.Ledger`).

    Returns the backup's path, or ``None`` (no previous file, nothing to change, the
    file removed, or restored to its text before Jev — then no backup is written).

    Raises:
        UsageError: the file changed on disk since the plan was made, or it cannot be
            written (message names the path; the old file stays intact).
    """
    if not plan.changed:
        return None
    if plan.after == (plan.before or ""):
        Ledger().update(plan.path, list(plan.added), list(plan.removed))
        return None
    path = plan.path
    try:
        current: str | None = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        current = None
    except OSError as exc:
        raise UsageError(
            f"cannot read {path}: {exc.strerror or exc}; nothing was written."
        ) from None
    if current != plan.before:
        raise UsageError(
            f"{path} changed while Jev was preparing its edit; nothing was written. "
            "Run the command again."
        )
    ledger = Ledger()
    if current is not None and ledger.created(path) and only_jev_left(plan.after):
        _remove_created(plan, ledger)
        return None
    restored = [b for b in ledger.backups(path) if _same_data(path, _text_of(b), plan.after)]
    after = _text_of(restored[0]) or plan.after if restored else plan.after  # its own bytes
    backup: Path | None = None
    folders = _new_folders(path.parent) if current is None else []
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if current is not None and not restored:
            backup = _backup_path(path)
            shutil.copy2(path, backup)
        write_atomic(path, after.encode("utf-8"))
    except OSError as exc:
        raise UsageError(
            f"cannot write {path}: {exc.strerror or exc}; the previous file is unchanged."
        ) from None
    try:
        ledger.update(plan.path, list(plan.added), list(plan.removed))
        if current is None:
            ledger.note_created(path, folders)
        if backup is not None:
            ledger.note_backup(path, backup)
        if restored:  # the file is back to its text before Jev: those copies add nothing
            for old in restored:
                with contextlib.suppress(OSError):
                    old.unlink()
            ledger.forget(path, created=False, backups=restored)
    except OSError as exc:
        raise UsageError(
            f"{path} was written, but Jev could not remember what it added "
            f"({exc.strerror or exc}); `jev uninstall` will leave those settings in place."
        ) from None
    return backup


def _text_of(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
