"""Store URLs, the PostgreSQL backend's own behaviour, and moving records between
backends (design.md §11). The PostgreSQL tests use the throwaway cluster of
tests/pgserver.py."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from jev.base.errors import StoreError
from jev.store import MIGRATIONS, Store, TurnKey, TurnRow
from tests.fakeserver import closed_port
from tests.pgserver import TEAM_PASSWORD, PgCluster
from tests.store.helpers import T0, three_round_turn

KEY = TurnKey("claude-code", "sess-A", "turn-4f2a9c")


# ----------------------------------------------------------------------- SQLite URLs


def test_sqlite_url_env_and_config_file(tmp_path: Path, jev_home: Path, monkeypatch) -> None:
    with Store(url=f"sqlite:///{tmp_path}/a/explicit.sqlite3") as store:
        assert store.path == tmp_path / "a" / "explicit.sqlite3" and store.dialect == "sqlite"
    monkeypatch.setenv("JEV_STORE_URL", f"sqlite:///{tmp_path}/from-env.sqlite3")
    with Store() as store:
        assert store.path == tmp_path / "from-env.sqlite3"
    monkeypatch.delenv("JEV_STORE_URL")
    (jev_home / "config.toml").write_text(
        f'[store]\nurl = "sqlite:///{tmp_path}/from-file.sqlite3"\n', "utf-8"
    )
    with Store() as store:
        assert store.path == tmp_path / "from-file.sqlite3"
    (jev_home / "config.toml").unlink()
    with Store() as store:
        assert store.path == jev_home / "jev.sqlite3"  # the default is unchanged


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("mysql://u@h/db", "is not understood"),
        ("sqlite://remotehost/x.db", "names a host"),
        ("sqlite:///", "names no file"),
        ("postgresql://jev:hunter22@127.0.0.1/db", "contains a password"),
        ("postgresql://jev@127.0.0.1/db?password=hunter22", "contains a password"),
    ],
)
def test_bad_urls_are_clear_store_errors(url: str, message: str) -> None:
    with pytest.raises(StoreError, match=message) as info:
        Store(url=url)
    assert "hunter22" not in str(info.value)


def test_bad_config_file_is_a_store_error(jev_home: Path) -> None:
    (jev_home / "config.toml").write_text("[store]\nurl = 5\n", "utf-8")
    with pytest.raises(StoreError, match=r"store.url has the wrong type"):
        Store()


# ----------------------------------------------------------------------- PostgreSQL


def test_unreachable_server_fails_fast_with_a_clear_error() -> None:
    url = f"postgresql://jev@127.0.0.1:{closed_port()}/jev"
    started = time.monotonic()
    with pytest.raises(StoreError, match=r"cannot reach the Jev database") as info:
        Store(url=url)
    assert time.monotonic() - started < 10
    assert "JEV_STORE_URL" in str(info.value)


def test_password_from_pgpassword_or_a_named_variable(
    pg_cluster: PgCluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = pg_cluster.url(user="team")
    with pytest.raises(StoreError, match=r"refused Jev's login") as info:
        Store(url=url)  # no password anywhere
    assert "PGPASSWORD" in str(info.value)
    monkeypatch.setenv("PGPASSWORD", TEAM_PASSWORD)
    with Store(url=url) as store:
        store.update_turn(KEY, lambda row: (TurnRow(KEY, {"n": 1}), None))
    monkeypatch.delenv("PGPASSWORD")
    monkeypatch.setenv("JEV_STORE_URL", url)
    monkeypatch.setenv("JEV_STORE_PASSWORD_ENV", "TEAM_DB_PASSWORD")
    with pytest.raises(StoreError, match=r"TEAM_DB_PASSWORD, which is not set"):
        Store()
    monkeypatch.setenv("TEAM_DB_PASSWORD", TEAM_PASSWORD)
    with Store() as store:
        row = store.get_turn(KEY)
        assert row is not None and row.state == {"n": 1}
        assert TEAM_PASSWORD not in store.location


def test_postgres_refuses_a_database_from_a_newer_jev(pg_cluster: PgCluster) -> None:
    import psycopg

    url = pg_cluster.url()
    Store(url=url).close()
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("UPDATE jev_schema SET version = 99")
    with pytest.raises(StoreError, match=r"schema version 99, newer than this Jev"):
        Store(url=url)


def test_postgres_migrates_a_v1_database(pg_cluster: PgCluster) -> None:
    import psycopg

    from jev.store.postgres import PostgresBackend

    url = pg_cluster.url()
    PostgresBackend(url, MIGRATIONS[:1]).close()
    record = three_round_turn()[0]
    with psycopg.connect(url, autocommit=True) as conn:
        assert conn.execute("SELECT version FROM jev_schema").fetchone() == (1,)
        conn.execute(
            "INSERT INTO records (created_at, created_ts, profile, host, session, turn,"
            " turn_number, round, status, assessment, focus_id, action_kind, material_hash,"
            " data) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
            (
                record.created_at, T0, record.profile, record.host, record.session,
                record.turn, record.turn_number, record.round, record.status,
                record.assessment, "R1", "supplement", record.material_hash,
                json.dumps(record.to_json()),
            ),
        )  # fmt: skip
    with Store(url=url, now=lambda: T0 + 60) as store:
        assert store.schema_version == len(MIGRATIONS)
        (old,) = store.list_records()
        assert old == record.with_id(1)
        assert store.add_record(record) == 2  # identity continues after the old row


def test_records_move_between_sqlite_and_postgres(tmp_path: Path, pg_cluster: PgCluster) -> None:
    records = three_round_turn()
    out1, out2 = tmp_path / "from-sqlite.jsonl", tmp_path / "from-postgres.jsonl"
    with Store(tmp_path / "local.sqlite3", now=lambda: T0 + 300) as local:
        for record in records:
            local.add_record(record)
        assert local.export_jsonl(out1) == 3
    with Store(url=pg_cluster.url(), now=lambda: T0 + 300) as shared:
        assert shared.import_report(out1).inserted == 3
        assert shared.import_report(out1).duplicates == 3
        assert shared.export_jsonl(out2) == 3
        assert [r.with_id(None) for r in shared.records_for_turn(KEY)] == [
            r.with_id(None) for r in records
        ]
    assert out1.read_text("utf-8") == out2.read_text("utf-8")


def test_a_dropped_connection_is_reopened_by_the_next_transaction(
    pg_cluster: PgCluster,
) -> None:
    import psycopg

    url = pg_cluster.url()
    with Store(url=url) as store:
        store.update_turn(KEY, lambda row: (TurnRow(KEY, {"n": 1}), None))
        with psycopg.connect(pg_cluster.base_url(), autocommit=True) as admin:
            admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE pid <> pg_backend_pid() AND query NOT LIKE '%pg_stat_activity%'"
                " AND datname = 'postgres'"
            )
        with pytest.raises(StoreError, match=r"cannot reach|terminat"):
            store.get_turn(KEY)  # the read outside a transaction sees the dead link
        store.update_turn(KEY, lambda row: (TurnRow(KEY, {"n": 2}), None))
        row = store.get_turn(KEY)
        assert row is not None and row.state == {"n": 2}
