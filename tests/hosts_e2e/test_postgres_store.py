"""The hook against a shared PostgreSQL store (design.md §11): same answers as on
SQLite, fail open while the server is down, nothing committed lost by a restart, and
the no-audit path never imports the driver."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from jev.store import Store, TurnKey
from tests.fakeserver import FakeProvider
from tests.hosts_e2e.conftest import verdict
from tests.hosts_e2e.harness import ClaudeCodeSim
from tests.pgserver import PgCluster


def test_server_restart_mid_run_loses_nothing_and_the_hook_fails_open(
    tmp_path: Path, judge: FakeProvider, pg_cluster: PgCluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = pg_cluster.url()
    monkeypatch.setenv("JEV_STORE_URL", url)
    judge.script(verdict("omission", "R2"), verdict("complete", "none"))
    sim = ClaudeCodeSim(tmp_path)
    sim.prompt("Add a --json flag. Document it in the README.")
    sim.todo_write(("Add the --json flag", "completed"))
    sim.say("Added --json.")
    first = sim.stop()
    assert first.blocked and "Document it in the README." in first.reason

    pg_cluster.stop()
    try:
        sim.todo_write(("Add the --json flag", "completed"), ("Update the README", "completed"))
        sim.say("Added --json and documented it in README.md.")
        started = time.monotonic()
        down = sim.stop(stop_hook_active=True)  # asserts exit 0 and no traceback
        elapsed = time.monotonic() - started
    finally:
        pg_cluster.start()
    assert not down.blocked
    assert "Jev" in down.notice and "database" in down.notice, down.notice
    assert elapsed < 30
    assert judge.count == 1  # the store was down: no audit, nothing counted

    with Store(url=url) as store:
        (record,) = store.list_records(session=sim.session_id)
        assert record.assessment == "omission" and record.supplements_used == 1
        row = store.get_turn(TurnKey("claude-code", sim.session_id, record.turn))
        assert row is not None and row.state["supplements_used"] == 1

    again = sim.stop(stop_hook_active=True)  # the server is back: the audit runs
    assert not again.blocked and judge.count == 2
    with Store(url=url) as store:
        chain = [r.assessment for r in store.list_records(session=sim.session_id)]
    assert chain == ["complete", "omission"]  # newest first


def test_the_no_audit_path_never_imports_the_driver(tmp_path: Path, jev_home: Path) -> None:
    from jev.settings.profiles import save_settings

    save_settings("default", {"enabled": True})
    sim = ClaudeCodeSim(tmp_path)
    sim.prompt("What is 6 x 7?")
    sim.say("42.")
    code = (
        "import sys, json; from jev.cli import main; rc = main(['hook', 'claude-code']); "
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('psycopg', 'opentelemetry', 'httpx'))), file=sys.stderr); sys.exit(rc)"
    )
    import json
    import os

    env = {**os.environ, "JEV_STORE_URL": "postgresql://jev@127.0.0.1:1/jev"}
    proc = subprocess.run(
        [sys.executable, "-c", code],
        input=json.dumps(sim.payload()),
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stderr.strip().splitlines()[-1]) == []
