"""The session index in the store, on SQLite files and on PostgreSQL (design.md §11)."""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path

import pytest

from jev.store import MIGRATIONS, Store
from jev.store import sessions as sessions_module
from tests.store.helpers import T0, DbTarget


def test_update_merges_fields_and_get_returns_them(db: DbTarget, tmp_path: Path) -> None:
    with Store(db(tmp_path / "s.sqlite3"), now=lambda: T0) as store:
        assert store.get_session("s1") is None
        store.update_session("s1", {"host": "codex", "turn": "t1", "request": ["Fix it"]})
    with Store(db(tmp_path / "s.sqlite3"), now=lambda: T0 + 5) as store:
        entry = store.update_session("s1", {"last_steer": "Please finish the docs."})
        again = store.get_session("s1")
    assert again == entry
    assert again is not None
    assert again["host"] == "codex" and again["turn"] == "t1"
    assert again["request"] == ["Fix it"] and again["last_steer"] == "Please finish the docs."
    assert again["created"] == T0 and again["updated"] == T0 + 5


def test_latest_is_this_machines_most_recent_session(db: DbTarget, tmp_path: Path) -> None:
    clock = [T0]
    with Store(db(tmp_path / "s.sqlite3"), now=lambda: clock[0]) as store:
        store.update_session("a", {"host": "codex"})
        clock[0] += 1
        store.update_session("b", {"host": "claude-code"})
        clock[0] += 1
        store.update_session("c", {"host": "codex", "machine": "another-laptop"})
        latest = store.latest_session()
        assert latest is not None and latest[0] == "b"
        codex = store.latest_session("codex")
        assert codex is not None and codex[0] == "a"
        other = store.latest_session(machine="another-laptop")
        assert other is not None and other[0] == "c"
        assert store.get_session("c") is not None  # a named session is found anywhere


def test_only_the_newest_sessions_of_a_machine_are_kept(
    db: DbTarget, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sessions_module, "MAX_SESSIONS", 3)
    clock = [T0]
    with Store(db(tmp_path / "s.sqlite3"), now=lambda: clock[0]) as store:
        store.update_session("elsewhere", {"host": "codex", "machine": "other"})
        for i in range(5):
            clock[0] += 1
            store.update_session(f"s{i}", {"host": "codex"})
        kept = [s for s in ("s0", "s1", "s2", "s3", "s4") if store.get_session(s)]
        assert kept == ["s2", "s3", "s4"]
        assert store.get_session("elsewhere") is not None


def test_concurrent_writers_never_lose_an_update(db: DbTarget, tmp_path: Path) -> None:
    """Eight connections merge different fields into one session at once."""
    target = db(tmp_path / "s.sqlite3")
    Store(target).close()
    barrier = threading.Barrier(8)
    errors: list[BaseException] = []

    def writer(n: int) -> None:
        try:
            with Store(target) as store:
                barrier.wait()
                for k in range(5):
                    store.update_session("shared", {"host": "codex", f"w{n}_{k}": k})
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    with Store(target) as store:
        entry = store.get_session("shared")
    assert entry is not None
    assert {f"w{n}_{k}" for n in range(8) for k in range(5)} <= set(entry)


def _old_index(path: Path, sessions: dict[str, dict[str, object]]) -> None:
    path.write_text(json.dumps({"sessions": sessions}), "utf-8")


def test_an_old_sessions_json_is_imported_once(db: DbTarget, tmp_path: Path) -> None:
    old = tmp_path / "sessions.json"
    _old_index(
        old,
        {
            "s1": {"host": "codex", "turn": "t1", "request": ["Fix it"], "updated": T0},
            "s2": {"host": "gemini", "prompt_response": "Done.", "updated": T0 + 1},
            "junk": "not an object",
        },
    )
    with Store(db(tmp_path / "s.sqlite3"), now=lambda: T0 + 10) as store:
        store.update_session("s2", {"host": "gemini", "prompt_response": "newer"})
        report = store.import_session_file(old)
        assert report.imported == 1 and report.problem == "" and report.notice() == ""
        assert report.moved_to is not None and report.moved_to.name.startswith(
            "sessions.json.imported-"
        )
        assert not old.exists()
        s1 = store.get_session("s1")
        assert s1 is not None and s1["turn"] == "t1" and s1["updated"] == T0
        s2 = store.get_session("s2")
        assert s2 is not None and s2["prompt_response"] == "newer"  # the newer entry won
        assert store.get_session("junk") is None
        again = store.import_session_file(old)  # the file is gone: nothing happens
        assert again.imported == 0 and again.moved_to is None
    kept = json.loads(report.moved_to.read_text("utf-8"))
    assert set(kept["sessions"]) == {"s1", "s2", "junk"}


def test_a_broken_sessions_json_is_quarantined_with_its_line(db: DbTarget, tmp_path: Path) -> None:
    old = tmp_path / "sessions.json"
    old.write_text('{"sessions": {\n  "s1": {"host": "codex",}\n}}', "utf-8")
    with Store(db(tmp_path / "s.sqlite3")) as store:
        report = store.import_session_file(old)
        assert report.imported == 0
        assert report.moved_to is not None and ".broken-" in report.moved_to.name
        assert "line 2" in report.problem
        assert str(old) in report.notice() and str(report.moved_to) in report.notice()
        assert store.get_session("s1") is None
        store.update_session("s1", {"host": "codex"})  # the index works
        assert store.get_session("s1") is not None


def test_old_sessions_are_pruned_with_turn_state(db: DbTarget, tmp_path: Path) -> None:
    day = 86_400.0
    clock = [T0]
    with Store(db(tmp_path / "s.sqlite3"), now=lambda: clock[0]) as store:
        store.update_session("old", {"host": "codex"})
        clock[0] += 40 * day
        store.update_session("new", {"host": "codex"})
        store.prune(records_days=30)
        assert store.get_session("old") is None
        assert store.get_session("new") is not None


def test_a_version_2_database_gains_the_sessions_table(tmp_path: Path) -> None:
    """An existing store of the previous schema migrates in place (records kept)."""
    from jev.store.sqlite import SqliteBackend

    path = tmp_path / "v2.sqlite3"
    SqliteBackend(path, MIGRATIONS[:2]).close()
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 2
    conn.execute("INSERT INTO meta (key, value) VALUES ('kept', 'yes')")
    conn.commit()
    conn.close()
    with Store(path) as store:
        assert store.schema_version == 3
        store.update_session("s", {"host": "codex"})
        assert store._db.execute("SELECT value FROM meta WHERE key = 'kept'").fetchone()[0] == (
            "yes"
        )
