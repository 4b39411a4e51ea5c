"""Per-turn state: atomic read-modify-write, leases, races between processes."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from dataclasses import replace
from pathlib import Path

import pytest

from jev.base.errors import StoreError
from jev.base.record import Record
from jev.store import Store, TurnKey, TurnRow
from tests.conftest import REPO
from tests.store.helpers import T0, DbTarget, three_round_turn

KEY = TurnKey("claude-code", "sess-A", "turn-4f2a9c")


def test_update_turn_creates_reads_and_leaves_unchanged(tmp_path: Path, db: DbTarget) -> None:
    clock = [T0]
    with Store(db(tmp_path / "db.sqlite3"), now=lambda: clock[0]) as store:
        assert store.get_turn(KEY) is None
        seen = store.update_turn(KEY, lambda row: (TurnRow(KEY, {"audits": 0}), row))
        assert seen is None
        row = store.get_turn(KEY)
        assert row is not None
        assert (row.state, row.created_at, row.updated_at) == ({"audits": 0}, T0, T0)
        clock[0] = T0 + 5
        # None leaves the row untouched (no updated_at change)
        assert store.update_turn(KEY, lambda r: (None, "kept")) == "kept"
        assert store.get_turn(KEY) == row
        store.update_turn(
            KEY,
            lambda r: (replace(r, state={"audits": 1}, decision={"action": "finish"}), None),
        )
        again = store.get_turn(KEY)
        assert again is not None
        assert again.state == {"audits": 1} and again.decision == {"action": "finish"}
        assert (again.created_at, again.updated_at) == (T0, T0 + 5)


def test_state_and_records_commit_together_or_not_at_all(tmp_path: Path, db: DbTarget) -> None:
    records = three_round_turn()
    with Store(db(tmp_path / "db.sqlite3"), now=lambda: T0 + 300) as store:

        def failing(row: TurnRow | None) -> tuple[TurnRow | None, list[Record], None]:
            raise RuntimeError("orchestrator bug")

        def broken_record(row: TurnRow | None) -> tuple[TurnRow, list[Record], None]:
            bad = replace(records[0], created_at="yesterday-ish")
            return TurnRow(KEY, {"audits": 9}), [records[0], bad], None

        with pytest.raises(RuntimeError, match="orchestrator bug"):
            store.update_turn(KEY, failing)
        with pytest.raises(ValueError):
            store.update_turn(KEY, broken_record)
        assert store.get_turn(KEY) is None
        assert store.list_records() == []

        def good(row: TurnRow | None) -> tuple[TurnRow, list[Record], str]:
            return TurnRow(KEY, {"audits": 3}, material_hash="h"), records, "done"

        result, ids = store.update_turn_and_record(KEY, good)
        assert result == "done" and len(ids) == 3
        assert [r.id for r in store.records_for_turn(KEY)] == ids
        # the lead's shape: (row, records, result) through update_turn, with a clock
        assert store.update_turn(KEY, lambda r: (None, [], "x"), now=lambda: T0 + 999) == "x"


def test_update_turn_refuses_a_row_for_another_turn(tmp_path: Path, db: DbTarget) -> None:
    other = TurnKey("claude-code", "sess-A", "other")
    with Store(db(tmp_path / "db.sqlite3")) as store:
        with pytest.raises(ValueError, match="returned a row for"):
            store.update_turn(KEY, lambda row: (TurnRow(other, {}), None))
        assert store.get_turn(other) is None


def test_lease_and_latest_turn(tmp_path: Path, db: DbTarget) -> None:
    clock = [T0]
    with Store(db(tmp_path / "db.sqlite3"), now=lambda: clock[0]) as store:
        assert store.latest_turn() is None

        def claim(row: TurnRow | None) -> tuple[TurnRow | None, bool]:
            if row is not None and row.leased(clock[0]):
                return None, False
            return TurnRow(KEY, {}, lease_until=clock[0] + 120), True

        assert store.update_turn(KEY, claim) is True
        clock[0] += 60
        assert store.update_turn(KEY, claim) is False  # an audit is still running
        clock[0] += 61
        assert store.update_turn(KEY, claim) is True  # the lease expired
        codex = TurnKey("codex", "sess-Z", "t-1")
        clock[0] += 1
        store.update_turn(codex, lambda row: (TurnRow(codex, {"n": 1}), None))
        latest = store.latest_turn()
        assert latest is not None and latest.key == codex
        by_host = store.latest_turn(host="claude-code")
        assert by_host is not None and by_host.key == KEY
        assert store.latest_turn(session="nope") is None
        assert store.delete_turn(codex) is True
        assert store.get_turn(codex) is None


def test_transactions_do_not_nest(tmp_path: Path, db: DbTarget) -> None:
    with (
        Store(db(tmp_path / "db.sqlite3")) as store,
        store.transaction(),
        pytest.raises(RuntimeError, match="does not nest"),
        store.transaction(),
    ):
        pass


_WORKER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    sys.path.insert(0, {repo!r})
    from jev.store import Store, TurnKey, TurnRow

    path, go = sys.argv[1], Path(sys.argv[2])
    key = TurnKey("claude-code", "race", "turn-1")
    store = Store(path)
    while not go.exists():
        time.sleep(0.005)

    def bump(row):
        count = (row.state.get("count", 0) if row else 0) + 1
        time.sleep(0.002)  # widen the read-modify-write window
        return TurnRow(key, {{"count": count}}), count

    for _ in range(3):
        store.update_turn(key, bump)
    store.close()
    """
)


@pytest.mark.slow
def test_twenty_processes_race_without_lost_updates(tmp_path: Path, db: DbTarget) -> None:
    path = db(tmp_path / "race.sqlite3")
    go = tmp_path / "go"
    script = _WORKER.format(repo=str(REPO))
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", script, path, str(go)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for _ in range(20)
    ]
    go.touch()
    failures = []
    for proc in procs:
        _out, err = proc.communicate(timeout=120)
        if proc.returncode != 0:
            failures.append(err.decode())
    assert failures == []
    with Store(path) as store:
        row = store.get_turn(TurnKey("claude-code", "race", "turn-1"))
    assert row is not None and row.state == {"count": 60}


def test_locked_database_becomes_store_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import jev.store.sqlite

    monkeypatch.setattr(jev.store.sqlite, "BUSY_TIMEOUT_S", 0.2)
    path = tmp_path / "db.sqlite3"
    holder = Store(path)
    waiter = Store(path)
    try:
        with holder.transaction():
            with pytest.raises(StoreError, match=r"locked by another process") as info:
                waiter.update_turn(KEY, lambda row: (TurnRow(KEY, {}), None))
            assert str(path) in str(info.value)
    finally:
        holder.close()
        waiter.close()
