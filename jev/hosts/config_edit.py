"""Add and take back single settings in host configuration files (issue 8 item 4).

Two formats, one rule: change exactly one key, keep everything else.

* **JSON** (Claude Code ``settings.json``): edited as an object by the installer,
  which already rewrites the file with its indentation kept (:mod:`jev.hosts.install`).
* **TOML** (Codex ``config.toml``): edited with ``tomlkit``, a style-preserving TOML
  library, so comments, key order, quoting and blank lines of the user's file stay as
  they were (parsing with ``tomllib`` and writing a fresh file would drop every
  comment); ``tomlkit`` is Jev's one TOML writer (profiles too). After each edit the
  result is parsed again with the standard library's ``tomllib`` and compared with
  the original: it must hold the same data plus (or minus) the one key, or nothing is
  written.

What Jev added is remembered in ``<jev_home>/installed.json`` (the ledger), so
``jev uninstall`` removes a setting only when Jev added it, never one the user had
before.
"""

from __future__ import annotations

import copy
import json
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jev.base import safejson
from jev.base.errors import UsageError
from jev.base.files import write_atomic
from jev.settings.profiles import jev_home

if TYPE_CHECKING:
    from jev.hosts.base import ConfigSetting

__all__ = [
    "Ledger",
    "json_set",
    "json_unset",
    "note_setting",
    "show_setting",
    "toml_get",
    "toml_set",
    "toml_unset",
]

#: Status of :func:`json_set` / :func:`toml_set`.
ADDED, PRESENT, OTHER = "added", "present", "other"


def _walk(data: Mapping[str, Any], keys: tuple[str, ...]) -> Any:
    node: Any = data
    for key in keys:
        if not isinstance(node, Mapping) or key not in node:
            return None
        node = node[key]
    return node


def json_set(path: Path, data: dict[str, Any], keys: tuple[str, ...], value: Any) -> str:
    """Set ``keys`` to ``value`` in the JSON object ``data`` unless it is set already.

    Returns:
        ``added`` (written), ``present`` (already that value) or ``other`` (set to
        another value by the user: left alone).

    Raises:
        UsageError: a table on the way is not an object.
    """
    node = data
    for key in keys[:-1]:
        child = node.setdefault(key, {})
        if not isinstance(child, dict):
            raise UsageError(
                f'{path}: "{key}" is not an object; nothing was written. Fix the file and '
                "run the command again."
            )
        node = child
    last = keys[-1]
    if last in node:
        return PRESENT if node[last] == value else OTHER
    node[last] = value
    return ADDED


def json_unset(data: dict[str, Any], keys: tuple[str, ...], value: Any) -> bool:
    """Remove ``keys`` from ``data`` when it still holds ``value``; drop tables left
    empty by the removal. Returns True when something was removed."""
    chain: list[dict[str, Any]] = [data]
    for key in keys[:-1]:
        child = chain[-1].get(key)
        if not isinstance(child, dict):
            return False
        chain.append(child)
    if chain[-1].get(keys[-1], _MISSING) != value:
        return False
    del chain[-1][keys[-1]]
    for depth in range(len(keys) - 2, -1, -1):
        if chain[depth + 1]:
            break
        del chain[depth][keys[depth]]
    return True


_MISSING = object()


def toml_get(text: str, keys: tuple[str, ...]) -> Any:
    """The value at ``keys`` in TOML ``text`` (``None`` when absent).

    Raises:
        UsageError: the text is not valid TOML.
    """
    return _walk(_load(text, None), keys)


def _load(text: str, path: Path | None) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        where = f"{path} is" if path is not None else "the file is"
        raise UsageError(
            f"{where} not valid TOML ({exc}); nothing was written. Fix the file and run the "
            "command again."
        ) from None


def toml_set(path: Path, text: str, keys: tuple[str, ...], value: Any) -> tuple[str, str]:
    """``(new text, status)`` with ``keys`` set to ``value`` (see :func:`json_set`).

    Raises:
        UsageError: invalid TOML, a key on the way that is not a table, or an edit
            that would change anything else (then nothing is written).
    """
    # lazy: tomlkit (~50 ms) only for TOML settings files, not for the JSON hook files
    import tomlkit

    before = _load(text, path)
    current = _walk(before, keys)
    if current is not None:
        return text, PRESENT if current == value else OTHER
    doc = tomlkit.parse(text)
    node: Any = doc
    for index, key in enumerate(keys[:-1]):
        if key not in node:
            rest = keys[index + 1 :]
            table: Any = tomlkit.table()
            inner = table
            for sub in rest[:-1]:
                nested = tomlkit.table()
                inner.add(sub, nested)
                inner = nested
            inner.add(rest[-1], value)
            if len(rest) > 1:
                outer = tomlkit.table(is_super_table=True)
                for item_key, item in table.items():
                    outer.add(item_key, item)
                table = outer
            node.add(key, table)
            break
        node = node[key]
        if not isinstance(node, dict):
            raise UsageError(
                f'{path}: "{".".join(keys[: index + 1])}" is not a table; nothing was written. '
                "Fix the file and run the command again."
            )
    else:
        node.add(keys[-1], value)
    after = tomlkit.dumps(doc)
    expected = copy.deepcopy(before)
    target = expected
    for key in keys[:-1]:
        target = target.setdefault(key, {})
    target[keys[-1]] = value
    _verify(path, after, expected)
    return after, ADDED


def toml_unset(path: Path, text: str, keys: tuple[str, ...], value: Any) -> str | None:
    """The text with ``keys`` removed when it still holds ``value`` (tables left empty
    are dropped), or ``None`` when there is nothing to remove.

    Raises:
        UsageError: invalid TOML, or an edit that would change anything else.
    """
    # lazy: tomlkit (~50 ms) only for TOML settings files, not for the JSON hook files
    import tomlkit

    before = _load(text, path)
    if _walk(before, keys) != value:
        return None
    doc = tomlkit.parse(text)
    chain: list[Any] = [doc]
    for key in keys[:-1]:
        chain.append(chain[-1][key])
    chain[-1].remove(keys[-1])
    for depth in range(len(keys) - 2, -1, -1):
        if len(chain[depth + 1]):
            break
        chain[depth].remove(keys[depth])
    after = tomlkit.dumps(doc)
    after = after.rstrip("\n") + "\n" if after.strip() else ""
    expected = copy.deepcopy(before)
    json_unset(expected, keys, value)
    _verify(path, after, expected)
    return after


def _verify(path: Path, text: str, expected: dict[str, Any]) -> None:
    if _load(text, path) != expected:
        raise UsageError(
            f"{path}: Jev could not edit this TOML file without changing other settings; "
            "nothing was written. Add the setting by hand (see README)."
        )


class Ledger:
    """``<jev_home>/installed.json``: what Jev added to the host files, per file.

    Shape: ``{"files": {path: [[key, …], …]}, "created": {path: []}, "folders":
    {"all": [folder, …]}, "backups": {path: [backup, …]}, "ignores": {gitignore:
    [created]}}``: the settings Jev added; the files Jev created (and the folders it
    created for them), which ``jev uninstall`` deletes again when nothing but Jev's
    entries was in them; the backups Jev wrote, deleted again when an uninstall brings
    the file back to exactly a backup's text; the ``.gitignore`` line of a ``local``
    install (issue 23 item 4). Written
    atomically; a missing or unreadable ledger is empty (Jev then removes nothing it
    cannot prove it added).
    """

    def __init__(self, path: Path | None = None) -> None:
        if path is None:
            path = jev_home() / "installed.json"
        self.path = path

    def _data(self) -> dict[str, dict[str, list[Any]]]:
        try:
            data = safejson.loads(self.path.read_bytes())
        except (OSError, ValueError):
            return {}
        if not isinstance(data, dict):
            return {}
        return {k: v for k, v in data.items() if isinstance(v, dict)}

    def _write(self, data: dict[str, dict[str, list[Any]]]) -> None:
        kept = {k: v for k, v in data.items() if v or k == "files"}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(self.path, (json.dumps(kept, indent=2) + "\n").encode("utf-8"))

    def _load(self) -> dict[str, list[list[str]]]:
        return self._data().get("files", {})

    def owned(self, config: Path) -> list[tuple[str, ...]]:
        """Key paths Jev added to ``config``."""
        entries = self._load().get(str(config.absolute()), [])
        return [tuple(str(k) for k in keys) for keys in entries if isinstance(keys, list)]

    def update(
        self, config: Path, added: list[tuple[str, ...]], removed: list[tuple[str, ...]]
    ) -> None:
        """Remember ``added`` and forget ``removed`` key paths of ``config``.

        Raises:
            OSError: the ledger cannot be written.
        """
        if not added and not removed:
            return
        data = self._data()
        files = data.setdefault("files", {})
        name = str(config.absolute())
        keys = [tuple(k) for k in files.get(name, [])]
        keys = [k for k in keys if k not in removed]
        keys += [k for k in added if k not in keys]
        if keys:
            files[name] = [list(k) for k in keys]
        else:
            files.pop(name, None)
        self._write(data)

    def created(self, config: Path) -> bool:
        """Whether Jev created ``config`` (it did not exist before ``jev install``)."""
        return str(config.absolute()) in self._data().get("created", {})

    def folders(self) -> list[Path]:
        """The folders Jev created for the files it created (any host)."""
        return [Path(str(f)) for f in self._data().get("folders", {}).get("all", [])]

    def note_created(self, config: Path, folders: list[Path]) -> None:
        """Remember that Jev created ``config``, and the ``folders`` it created for it.

        Raises:
            OSError: the ledger cannot be written.
        """
        data = self._data()
        data.setdefault("created", {})[str(config.absolute())] = []
        known = data.setdefault("folders", {}).setdefault("all", [])
        known += [str(f.absolute()) for f in folders if str(f.absolute()) not in known]
        self._write(data)

    def forget_folder(self, folder: Path) -> None:
        """Forget a folder Jev created (it was removed).

        Raises:
            OSError: the ledger cannot be written.
        """
        data = self._data()
        known = data.get("folders", {}).get("all", [])
        if str(folder) in known:
            known.remove(str(folder))
            if not known:
                data["folders"].pop("all")
            self._write(data)

    def backups(self, config: Path) -> list[Path]:
        """The backups of ``config`` Jev wrote (oldest first)."""
        entry = self._data().get("backups", {}).get(str(config.absolute()), [])
        return [Path(str(b)) for b in entry]

    def note_backup(self, config: Path, backup: Path) -> None:
        """Remember a backup of ``config`` Jev wrote.

        Raises:
            OSError: the ledger cannot be written.
        """
        data = self._data()
        data.setdefault("backups", {}).setdefault(str(config.absolute()), []).append(str(backup))
        self._write(data)

    def ignore(self, gitignore: Path) -> bool | None:
        """Whether Jev created ``gitignore`` when it added the local-settings line
        (``None``: Jev added no line there)."""
        entry = self._data().get("ignores", {}).get(str(gitignore.absolute()))
        return None if entry is None else bool(entry[0]) if entry else False

    def note_ignore(self, gitignore: Path, *, created: bool) -> None:
        """Remember that Jev added the local-settings line to ``gitignore``.

        Raises:
            OSError: the ledger cannot be written.
        """
        data = self._data()
        data.setdefault("ignores", {})[str(gitignore.absolute())] = [created]
        self._write(data)

    def forget_ignore(self, gitignore: Path) -> None:
        """Forget the line Jev added to ``gitignore`` (it was taken back).

        Raises:
            OSError: the ledger cannot be written.
        """
        data = self._data()
        data.get("ignores", {}).pop(str(gitignore.absolute()), None)
        self._write(data)

    def forget(self, config: Path, *, created: bool, backups: list[Path]) -> None:
        """Forget that Jev created ``config`` (when ``created``) and those ``backups``.

        Raises:
            OSError: the ledger cannot be written.
        """
        data = self._data()
        name = str(config.absolute())
        if created:
            data.get("created", {}).pop(name, None)
        gone = {str(b) for b in backups}
        left = [b for b in data.get("backups", {}).get(name, []) if b not in gone]
        if left:
            data["backups"][name] = left
        else:
            data.get("backups", {}).pop(name, None)
        self._write(data)


def show_setting(setting: ConfigSetting) -> str:
    """``env.X = "1" (Todo tools)``: a setting as the install output shows it."""
    value = json.dumps(setting.value)
    return f"{'.'.join(setting.keys)} = {value} ({setting.what})"


def note_setting(
    setting: ConfigSetting,
    status: str,
    changes: list[str],
    added: list[tuple[str, ...]],
    notes: list[str],
) -> None:
    """Fold the ``status`` of writing ``setting`` into an install plan's change lines,
    added key paths and notes (a value set by the user to something else is left)."""
    if status == ADDED:
        changes.append(f"added {show_setting(setting)}")
        added.append(setting.keys)
    elif status == OTHER:
        notes.append(
            f"note: {setting.path} already sets {'.'.join(setting.keys)} to another value; "
            f"Jev left it, so the {setting.what} may stay off (Jev audits only turns that "
            "used a Todo list)."
        )
