"""Where offline replay reads stored records from: JSONL exports and the store (design.md §11).

Records are read as a stream — one JSONL line at a time, or the store in pages — so
memory stays flat whatever the export's size; a line that is not a record is an
:class:`Entry` with its reason, and reading goes on. :mod:`jev.measure.replay` replays
the entries; :mod:`jev.measure.live` re-asks a judge for them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from jev.base import safejson
from jev.base.errors import UsageError
from jev.base.record import Record, validate_record_json

if TYPE_CHECKING:
    from jev.store import Store

__all__ = ["Entry", "count_entries", "iter_jsonl", "iter_source", "iter_store", "record_label"]


@dataclass(frozen=True, slots=True)
class Entry:
    """One record read from a source, or the reason it could not be read.

    Attributes:
        source: the file path, or ``store:<path>``.
        line: 1-based line number in a JSONL file (``None`` for the store).
        record: the record, or ``None`` when it could not be read.
        error: why the line is not a record ("" when it is).
    """

    source: str
    line: int | None
    record: Record | None
    error: str = ""


def record_label(record: Record) -> str:
    """``session/turn/round N`` — how a record is named in output and pytest ids."""
    return f"{record.session or '-'}/{record.turn}/round {record.round}"


def iter_jsonl(path: Path, *, validate: bool = False) -> Iterator[Entry]:
    """Stream the records of one JSONL export, one line at a time (blank lines skipped).

    Args:
        path: the export file.
        validate: check each object against ``schemas/record.schema.json`` first
            (about 270 µs per record, several times the replay itself; without it a
            line is still refused when :meth:`Record.from_json` cannot convert it, and
            the replay checks what it reads: loop state, focus, replies).

    Yields:
        An :class:`Entry` per non-blank line; a line that is not JSON or not a record
        yields an entry with ``error`` set (reading goes on).

    Raises:
        UsageError: the file cannot be opened.
    """
    try:
        handle = path.open("rb")
    except OSError as exc:
        raise UsageError(f"cannot read {path} ({exc.strerror or exc}); check the path") from None
    source = str(path)
    with handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            try:
                data = safejson.loads(raw)
            except safejson.JsonInputError as exc:
                why = exc.reason if exc.reason.startswith("not UTF-8") else "not valid JSON"
                yield Entry(source, number, None, f"{why} ({exc.reason})")
                continue
            try:
                if validate:
                    validate_record_json(data)
                yield Entry(source, number, Record.from_json(data))
            except (ValueError, TypeError, KeyError) as exc:
                yield Entry(source, number, None, f"not a Jev record ({exc})")


def _jsonl_files(path: Path) -> list[Path]:
    if path.is_dir():
        files = sorted(p for p in path.rglob("*.jsonl") if p.is_file())
        if not files:
            raise UsageError(f"{path} holds no records export (*.jsonl); check the path")
        return files
    if path.is_file():
        return [path]
    raise UsageError(f"{path} does not exist; give a records export (.jsonl) or a folder of them")


def iter_source(paths: Iterable[Path], *, validate: bool = False) -> Iterator[Entry]:
    """Stream the records of JSONL exports and/or folders of them (``*.jsonl``,
    recursively, sorted), in order.

    Raises:
        UsageError: a path does not exist, or a folder holds no ``*.jsonl``.
    """
    files = [f for p in paths for f in _jsonl_files(Path(p))]
    for file in files:
        yield from iter_jsonl(file, validate=validate)


def iter_store(
    store: Store, *, session: str | None = None, since: float | None = None
) -> Iterator[Entry]:
    """Stream the records of the local store (oldest first, in pages), optionally of
    one session and/or created at or after ``since`` (epoch seconds)."""
    source = f"store:{store.location}"
    for record in store.iter_records(session=session, since=since):
        yield Entry(source, None, record)


def count_entries(paths: Iterable[Path]) -> int:
    """Number of non-blank lines of the exports (for a progress bar), read as a stream."""
    total = 0
    for file in (f for p in paths for f in _jsonl_files(Path(p))):
        with file.open("rb") as handle:
            total += sum(1 for raw in handle if raw.strip())
    return total
