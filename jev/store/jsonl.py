"""JSONL export and import of records (design.md §11): the same for every backend."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING

from jev.base import safejson
from jev.base.errors import StoreError, UsageError
from jev.base.record import Record, validate_record_json
from jev.store.secrets import record_key_env, scrub, secret_values
from jev.store.values import dumps

if TYPE_CHECKING:
    from jev.store.recordset import RecordSet as Store

__all__ = ["export_jsonl", "read_jsonl"]


def export_jsonl(
    store: Store, target: Path | str | IO[str], session: str | None, secret_env: Sequence[str]
) -> int:
    """Write ``store``'s records (oldest first) to ``target`` as JSON lines; return
    how many. See :meth:`jev.store.Store.export_jsonl` for the rules and errors."""
    if not isinstance(target, str | Path):
        return _write_lines(store, target, session, secret_env)
    path = Path(target)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with tmp.open("w", encoding="utf-8", newline="\n") as handle:
            count = _write_lines(store, handle, session, secret_env)
        os.replace(tmp, path)
    except OSError as exc:
        raise UsageError(
            f"cannot write {path} ({exc.strerror or exc}); choose a writable path."
        ) from None
    finally:
        if tmp.exists():
            tmp.unlink()
    return count


def _write_lines(
    store: Store, handle: IO[str], session: str | None, secret_env: Sequence[str]
) -> int:
    count = 0
    for record in store.iter_records(session=session):
        data = scrub(record.to_json(), secret_values((*secret_env, *record_key_env(record))))
        try:
            validate_record_json(data)
        except ValueError as exc:
            raise StoreError(
                f"record {record.id} in {store.location} does not match the record schema "
                f"({exc}); the export was not completed. Export other sessions with "
                f"--session, or report this as a bug."
            ) from None
        handle.write(dumps(data) + "\n")
        count += 1
    return count


def read_jsonl(source: Path) -> list[Record]:
    """Parse and validate every record line of a JSONL export (blank lines ignored).

    Raises:
        UsageError: the file cannot be read, or a line is not UTF-8 JSON or not a
            valid record; the message names the line number.
    """
    try:
        raw = source.read_bytes()
    except OSError as exc:
        raise UsageError(f"cannot read {source} ({exc.strerror or exc}); check the path.") from None
    records: list[Record] = []
    for number, line in enumerate(raw.split(b"\n"), start=1):
        if not line.strip():
            continue
        where = f"{source} line {number}"
        fix = "nothing was imported; fix or remove that line and import again."
        try:
            data = safejson.loads(line)
        except safejson.JsonInputError as exc:
            raise UsageError(f"{safejson.describe(str(source), exc, line=number)}; {fix}") from None
        try:
            validate_record_json(data)
            records.append(Record.from_json(data))
        except (ValueError, TypeError, KeyError) as exc:
            raise UsageError(f"{where} is not a Jev record: {exc}; {fix}") from None
    return records
