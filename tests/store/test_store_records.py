"""Record value type, schema, and the records side of the store (real SQLite files)."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest

from jev.base.errors import StoreError, UsageError
from jev.base.record import Record, validate_record_json
from jev.store import MIGRATIONS, Store, TurnKey, TurnRow, default_store_path
from tests.store.helpers import DAY, T0, DbTarget, three_round_turn


def _clock(start: float) -> list[float]:
    return [start]


def _store(path: str, clock: list[float]) -> Store:
    return Store(path, now=lambda: clock[0])


def _without_id(records: list[Record]) -> list[Record]:
    return [r.with_id(None) for r in records]


# --------------------------------------------------------------------- Record values


def test_record_json_round_trip_is_schema_valid() -> None:
    for record in three_round_turn():
        data = record.to_json()
        validate_record_json(data)
        assert Record.from_json(json.loads(json.dumps(data))) == record


def test_record_keeps_full_quote_and_material() -> None:
    first = three_round_turn()[0]
    assert first.focus is not None
    assert first.focus["quote"].endswith("and add unit tests for it.")
    material = first.material_value()
    assert material is not None and material.digest() == first.material_hash


def test_raw_replies_list_is_stored_as_tuple() -> None:
    record = replace(three_round_turn()[0], raw_replies=["a", "b"])
    assert record.raw_replies == ("a", "b")
    assert record == replace(record, raw_replies=("a", "b"))


@pytest.mark.parametrize(
    ("mutate", "field"),
    [
        (lambda d: d.update(status="finished"), "status"),
        (lambda d: d.pop("raw_replies"), "(top level)"),
        (lambda d: d.update(host="no spaces/slashes"), "host"),
        (lambda d: d["focus"].update(id="X9"), "focus"),
        (lambda d: d.update(api_key="sk-x"), "(top level)"),
    ],
)
def test_schema_refuses_bad_records(mutate: object, field: str) -> None:
    data = three_round_turn()[0].to_json()
    mutate(data)  # type: ignore[operator]
    with pytest.raises(ValueError, match=r"field " + field.replace("(", r"\(").replace(")", r"\)")):
        validate_record_json(data)


# --------------------------------------------------------------------- store basics


def test_default_path_is_under_jev_home(jev_home: Path) -> None:
    assert default_store_path() == jev_home / "jev.sqlite3"
    with Store() as store:
        assert store.path.is_file()
        assert store.schema_version == len(MIGRATIONS)


def test_store_creates_missing_folders(tmp_path: Path) -> None:
    with Store(tmp_path / "a" / "b" / "jev.sqlite3") as store:
        assert store.list_records() == []


def test_round_trip_store_export_import(tmp_path: Path, db: DbTarget) -> None:
    clock = _clock(T0 + 200)
    records = three_round_turn()
    with _store(db(tmp_path / "one.sqlite3"), clock) as store:
        ids = [store.add_record(r) for r in records]
        assert ids == sorted(ids)
        assert store.get_record(ids[1]) == records[1].with_id(ids[1])
        out = tmp_path / "export.jsonl"
        assert store.export_jsonl(out) == 3
    lines = out.read_text("utf-8").splitlines()
    assert len(lines) == 3
    for line in lines:
        validate_record_json(json.loads(line))
    with _store(db(tmp_path / "two.sqlite3"), clock) as fresh:
        assert fresh.import_jsonl(out) == 3
        key = TurnKey("claude-code", "sess-A", "turn-4f2a9c")
        back = fresh.records_for_turn(key)
        assert _without_id(back) == _without_id(records)
        assert all(r.id is not None for r in back)
        # importing the same file again adds nothing
        report = fresh.import_report(out)
        assert (report.read, report.inserted, report.duplicates) == (3, 0, 3)


def test_list_records_newest_first_with_filters(tmp_path: Path, db: DbTarget) -> None:
    clock = _clock(T0 + 10 * DAY)
    with _store(db(tmp_path / "db.sqlite3"), clock) as store:
        for record in three_round_turn(T0, session="sess-A", turn="turn-a"):
            store.add_record(record)
        for record in three_round_turn(T0 + DAY, session="sess-B", turn="turn-b"):
            store.add_record(record)
        newest = store.list_records(limit=2)
        assert [(r.session, r.round) for r in newest] == [("sess-B", 3), ("sess-B", 2)]
        only_a = store.list_records(session="sess-A")
        assert [r.round for r in only_a] == [3, 2, 1]
        since = store.list_records(since=T0 + DAY)
        assert {r.session for r in since} == {"sess-B"}
        assert store.turns_matching("turn-") == [
            TurnKey("claude-code", "sess-B", "turn-b"),
            TurnKey("claude-code", "sess-A", "turn-a"),
        ]
        assert store.turns_matching("turn-a") == [TurnKey("claude-code", "sess-A", "turn-a")]
        assert store.turns_matching("nope") == []


@pytest.mark.slow
def test_iter_records_streams_all_pages_in_order(tmp_path: Path, db: DbTarget) -> None:
    clock = _clock(T0 + DAY)
    template = three_round_turn()[0]
    with _store(db(tmp_path / "db.sqlite3"), clock) as store:
        with store.transaction() as tx:
            for n in range(1, 1_203):
                tx.add_record(replace(template, turn=f"turn-{n:05d}"))
        seen = [r.turn for r in store.iter_records()]
        assert seen == [f"turn-{n:05d}" for n in range(1, 1_203)]
        assert sum(1 for _ in store.iter_records(session="other")) == 0


def test_store_refuses_a_schema_invalid_record_and_accepts_custom_hosts(
    tmp_path: Path, db: DbTarget
) -> None:
    record = three_round_turn()[0]
    with Store(db(tmp_path / "db.sqlite3"), now=lambda: T0 + 60) as store:
        with pytest.raises(ValueError, match=r"field status.*it was not stored"):
            store.add_record(replace(record, status="finished"))
        assert store.list_records() == []
        store.add_record(replace(record, host="my-agent-loop"))
        out = tmp_path / "x.jsonl"
        assert store.export_jsonl(out) == 1
        assert json.loads(out.read_text("utf-8"))["host"] == "my-agent-loop"


# --------------------------------------------------------------------- import errors


def test_import_is_all_or_nothing_and_names_the_line(tmp_path: Path, db: DbTarget) -> None:
    records = three_round_turn()
    good = [json.dumps(r.to_json()) for r in records]
    bad = json.loads(good[1])
    bad["status"] = "done"
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join([good[0], "", json.dumps(bad), good[2]]) + "\n", "utf-8")
    with Store(db(tmp_path / "db.sqlite3")) as store:
        with pytest.raises(
            UsageError, match=r"bad\.jsonl line 3 is not a Jev record: field status"
        ):
            store.import_jsonl(path)
        assert store.list_records() == []
        path.write_text(good[0] + "\n{not json\n", "utf-8")
        with pytest.raises(UsageError, match=r"line 2 is not valid JSON.*nothing was imported"):
            store.import_jsonl(path)
        assert store.list_records() == []
        with pytest.raises(UsageError, match="cannot read"):
            store.import_jsonl(tmp_path / "missing.jsonl")


# --------------------------------------------------------------------- migrations


def test_migrates_a_v1_database(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    record = three_round_turn()[0]
    conn = sqlite3.connect(path)
    MIGRATIONS[0](conn)
    conn.execute(
        "INSERT INTO records (created_at, created_ts, profile, host, session, turn, turn_number,"
        " round, status, assessment, focus_id, action_kind, material_hash, data)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            record.created_at, T0, record.profile, record.host, record.session, record.turn,
            record.turn_number, record.round, record.status, record.assessment, "R1",
            "supplement", record.material_hash, json.dumps(record.to_json()),
        ),
    )  # fmt: skip
    conn.execute(
        "INSERT INTO turns VALUES ('claude-code', 'sess-A', 'turn-4f2a9c', '{\"audits\": 1}',"
        " NULL, NULL, NULL, ?, ?)",
        (T0, T0),
    )
    conn.execute("PRAGMA user_version = 1")
    conn.commit()
    conn.close()

    with Store(path, now=lambda: T0 + 60) as store:
        assert store.schema_version == len(MIGRATIONS) == 3
        (old,) = store.list_records()
        assert old == record.with_id(1)
        row = store.get_turn(TurnKey("claude-code", "sess-A", "turn-4f2a9c"))
        assert row is not None and row.state == {"audits": 1}
        # the back-filled digest makes a re-import of the same record a duplicate
        export = tmp_path / "x.jsonl"
        store.export_jsonl(export)
        assert store.import_report(export).duplicates == 1


def test_refuses_a_database_from_a_newer_jev(tmp_path: Path) -> None:
    path = tmp_path / "new.sqlite3"
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA user_version = 99")
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match=r"schema version 99, newer than this Jev"):
        Store(path)


# --------------------------------------------------------------------- retention


def test_retention_deletes_old_records_and_keeps_new(tmp_path: Path, db: DbTarget) -> None:
    clock = _clock(T0)
    key_old = TurnKey("claude-code", "sess-A", "old-turn")
    with _store(db(tmp_path / "db.sqlite3"), clock) as store:
        a = store.add_record(replace(three_round_turn(T0)[0], turn="a"))
        store.update_turn(key_old, lambda row: (TurnRow(key_old, {"audits": 1}), None))
        clock[0] = T0 + 10 * DAY
        b = store.add_record(replace(three_round_turn(T0 + 10 * DAY)[0], turn="b"))
        clock[0] = T0 + 35 * DAY
        c = store.add_record(replace(three_round_turn(T0 + 35 * DAY)[0], turn="c"))
        assert store.get_record(a) is None
        assert store.get_record(b) is not None and store.get_record(c) is not None
        assert store.get_turn(key_old) is None
        # within the hour after a pass, no new pass runs even with a shorter retention
        clock[0] = T0 + 35 * DAY + 600
        store.add_record(replace(three_round_turn(clock[0])[0], turn="d"), records_days=1)
        assert store.get_record(b) is not None
        clock[0] = T0 + 35 * DAY + 7_200
        store.add_record(replace(three_round_turn(clock[0])[0], turn="e"), records_days=1)
        assert store.get_record(b) is None
        assert {r.turn for r in store.list_records()} == {"c", "d", "e"}
        with pytest.raises(ValueError, match="records_days"):
            store.add_record(three_round_turn()[0], records_days=0)


def test_explicit_prune_keeps_leased_turns(tmp_path: Path, db: DbTarget) -> None:
    clock = _clock(T0)
    key = TurnKey("codex", "s", "t")
    with _store(db(tmp_path / "db.sqlite3"), clock) as store:
        store.update_turn(key, lambda row: (TurnRow(key, {}, lease_until=T0 + 90 * DAY), None))
        store.add_record(three_round_turn(T0)[0])
        clock[0] = T0 + 40 * DAY
        assert store.prune(records_days=30) == 1
        assert store.get_turn(key) is not None


# --------------------------------------------------------------------- broken files


def test_garbage_file_gives_a_clear_store_error(tmp_path: Path) -> None:
    path = tmp_path / "jev.sqlite3"
    path.write_bytes(b"this is not sqlite at all \x00\xff" * 200)
    with pytest.raises(StoreError) as info:
        Store(path)
    message = str(info.value)
    assert str(path) in message
    assert "move it aside" in message
    assert "Traceback" not in message


def test_closed_store_says_so(tmp_path: Path, db: DbTarget) -> None:
    store = Store(db(tmp_path / "db.sqlite3"))
    store.close()
    with pytest.raises(StoreError, match="already closed"):
        store.list_records()
