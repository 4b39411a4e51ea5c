"""pytest plugin: stored Jev records as regression tests (design.md §11).

``pytest --jev-records DIR_OR_FILE`` (repeatable) collects every record of every
``*.jsonl`` export under the path as one test item, named
``<session>/<turn>/round<N>``. An item replays its record offline through the current
reply parsing, loop decision and supplement text (:func:`jev.measure.replay.replay_entry`) and
fails with the differences, both sides shown, when anything changed; a line that is
not a valid record fails too.

Enable it with ``-p jev.pytest_plugin`` or through the ``pytest11`` entry point
``jev = "jev.pytest_plugin"``. Without ``--jev-records`` it does nothing.

Example::

    jev records export --out tests/jev_records/turns.jsonl
    pytest --jev-records tests/jev_records/
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from jev.measure.replay import RecordReplay, replay_entry
from jev.measure.replay_source import Entry, iter_jsonl

__all__ = [
    "JevRecordItem",
    "JevRecordsFile",
    "ReplayMismatch",
    "pytest_addoption",
    "pytest_collect_file",
    "pytest_configure",
]

_ROOTS = pytest.StashKey[list[Path]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    """Add ``--jev-records DIR_OR_FILE`` (repeatable)."""
    group = parser.getgroup("jev", "Jev audit-record replay")
    group.addoption(
        "--jev-records",
        action="append",
        default=[],
        metavar="DIR_OR_FILE",
        help="replay every record of these Jev JSONL exports (or folders of them) as tests",
    )


def pytest_configure(config: pytest.Config) -> None:
    """Remember the record paths and make sure pytest collects them.

    Raises:
        pytest.UsageError: a given path does not exist.
    """
    raw: list[str] = config.getoption("jev_records") or []
    roots: list[Path] = []
    for item in raw:
        path = Path(item).resolve()
        if not path.exists():
            raise pytest.UsageError(f"--jev-records {item}: no such file or folder")
        roots.append(path)
    config.stash[_ROOTS] = roots
    args: list[str] = config.args
    given = [Path(a.split("::")[0]).resolve() for a in args]
    for root in roots:
        if not any(root == g or g in root.parents for g in given):
            args.append(str(root))


def _under(path: Path, roots: list[Path]) -> bool:
    return any(path == r or r in path.parents for r in roots)


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """Collect ``*.jsonl`` files under a ``--jev-records`` path as record files."""
    roots = parent.config.stash.get(_ROOTS, [])
    if roots and file_path.suffix == ".jsonl" and _under(file_path.resolve(), roots):
        collector: pytest.Collector = JevRecordsFile.from_parent(parent, path=file_path)
        return collector
    return None


class ReplayMismatch(Exception):
    """Raised by an item whose record did not replay the same."""

    def __init__(self, result: RecordReplay) -> None:
        super().__init__(result.describe())
        self.result = result


class JevRecordsFile(pytest.File):
    """One JSONL export: one :class:`JevRecordItem` per non-blank line."""

    def collect(self) -> Iterator[pytest.Item]:
        seen: dict[str, int] = {}
        for entry in iter_jsonl(self.path, validate=True):
            record = entry.record
            if record is None:
                name = f"line{entry.line}"
            else:
                name = f"{record.session or '-'}/{record.turn}/round{record.round}"
            seen[name] = seen.get(name, 0) + 1
            if seen[name] > 1:
                name = f"{name}#{seen[name]}"
            yield JevRecordItem.from_parent(self, name=name, entry=entry)


class JevRecordItem(pytest.Item):
    """One stored record replayed offline; fails with the differences."""

    def __init__(self, *, entry: Entry, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.entry = entry

    def runtest(self) -> None:
        result = replay_entry(self.entry)
        if result.result != "same":
            raise ReplayMismatch(result)

    def repr_failure(
        self,
        excinfo: pytest.ExceptionInfo[BaseException],
        style: Any = None,
    ) -> str | Any:
        if isinstance(excinfo.value, ReplayMismatch):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        line = None if self.entry.line is None else self.entry.line - 1
        return self.path, line, f"jev record {self.name}"
