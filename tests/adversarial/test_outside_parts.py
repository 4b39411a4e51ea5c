"""One deadline for the whole Stop hook: every outside part is bounded (issue 23 item 1).

Each case runs the real ``jev hook claude-code`` in a wrapper process that reports its
exit code, wall time and peak RSS (``RUSAGE_CHILDREN`` of a fresh wrapper, so only
that one hook counts), against the real part misbehaving on 127.0.0.1:

* an OTLP collector that drips one byte a second, never ends its headers, or sends an
  endless body (:class:`tests.hostile.HostileServer`) — the block is on stdout, the
  export costs at most ``telemetry.flush_timeout_s`` after it, memory stays bounded;
* a PostgreSQL server frozen with ``SIGSTOP`` while the judge call is in flight —
  the hook still exits 0 well within its deadline, with a notice;
* a judge slower than the host's hook timeout — the watchdog answers at the
  deadline, exit 0;
* 16 invocations of one identical stop (a hook registered twice, some arriving after
  the first finished) — one block, one supplement counted.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from jev.settings.profiles import save_settings
from jev.store import Store
from tests.hostile import HostileServer
from tests.hosts_e2e.harness import JEV, ClaudeCodeSim

RSS_LIMIT_MB = 300

_WRAPPER = r"""
import json, resource, subprocess, sys, time
started = time.monotonic()
proc = subprocess.run(sys.argv[2:], input=sys.argv[1].encode(), capture_output=True, timeout=150)
print(json.dumps({
    "rc": proc.returncode,
    "stdout": proc.stdout.decode("utf-8", "replace"),
    "stderr": proc.stderr.decode("utf-8", "replace"),
    "seconds": time.monotonic() - started,
    "rss_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024,
}))
"""

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not JEV.exists(), reason="console script not installed"),
]


def measured_hook(payload: dict[str, Any], env: dict[str, str] | None = None) -> dict[str, Any]:
    """Run ``jev hook claude-code`` on ``payload``: rc, stdout, stderr, seconds, rss_mb."""
    out = subprocess.run(
        [sys.executable, "-c", _WRAPPER, json.dumps(payload), str(JEV), "hook", "claude-code"],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=180,
        check=True,
    )
    result: dict[str, Any] = json.loads(out.stdout)
    answer = json.loads(result["stdout"]) if result["stdout"].strip() else {}
    result["answer"] = answer
    figures = {k: round(result[k], 2) for k in ("seconds", "rss_mb")}
    print(f"hook: exit {result['rc']}, {figures}")  # the figures, shown with pytest -s
    return result


def unfinished_turn(folder: Path) -> ClaudeCodeSim:
    """A turn the rules judge finds unfinished (a pending Todo item): it blocks."""
    sim = ClaudeCodeSim(folder)
    sim.prompt("Write the changelog.")
    sim.todo_write(("Write changelog", "pending"))
    sim.say("Not done yet.")
    return sim


def supplements(session: str) -> list[int]:
    with Store() as store:
        return [r.supplements_used for r in store.list_records(session=session, limit=100)]


# -- an OTLP collector that misbehaves ------------------------------------------------


@pytest.mark.parametrize("mode", ["drip-headers", "drip-body", "endless", "gzip-bomb"])
def test_hostile_collector_costs_at_most_the_flush_bound_after_the_block(
    mode: str, tmp_path: Path, jev_home: Path
) -> None:
    pytest.importorskip("opentelemetry.sdk")
    save_settings(None, {"enabled": True})
    (jev_home / "config.toml").write_text("[telemetry]\nflush_timeout_s = 2.0\n", "utf-8")
    sim = unfinished_turn(tmp_path)
    with HostileServer(mode) as collector:
        run = measured_hook(sim.payload(), {"OTEL_EXPORTER_OTLP_ENDPOINT": collector.url})
    assert run["rc"] == 0, run
    assert run["answer"].get("decision") == "block", run  # the counted block, delivered
    assert run["seconds"] < 2.0 + 8.0, run  # the flush bound plus a hook's own time
    assert run["rss_mb"] < RSS_LIMIT_MB, run
    assert "Traceback" not in run["stderr"], run
    if mode == "drip-headers":  # never a status line: the notice says so
        assert "could not be sent to the OTLP collector" in run["stderr"], run
    assert supplements(sim.session_id) == [1]


# -- a PostgreSQL server that freezes mid-stop ----------------------------------------


def _cluster_pids(data: Path) -> list[int]:
    """The postmaster (``postmaster.pid``) and its children (from ``/proc``)."""
    master = int((data / "postmaster.pid").read_text().split()[0])
    pids = [master]
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == master:
                pids.append(int(entry.name))
    return pids


def _signal_all(pids: list[int], sig: int) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, sig)


def test_postgres_frozen_while_the_judge_answers_the_hook_exits_in_time(
    tmp_path: Path, jev_home: Path, pg_cluster: Any
) -> None:
    from tests.fakeserver import FakeProvider, Reply, openai_completion

    url = pg_cluster.url()
    body = json.dumps({"assessment": "omission", "focus": "R1"})
    with FakeProvider() as judge:
        save_settings(
            None,
            {
                "enabled": True,
                "judge.provider": "openai",
                "judge.base_url": judge.openai_base,
                "judge.model": "fake-judge",
                "judge.timeout_s": 10,
                "judge.technical_retries": 0,
            },
        )
        judge.script(Reply(json=openai_completion(body), delay_s=2.0))
        sim = unfinished_turn(tmp_path)
        frozen: list[int] = []

        def freeze_when_asked() -> None:
            end = time.monotonic() + 60
            while judge.count < 1 and time.monotonic() < end:
                time.sleep(0.02)
            frozen.extend(_cluster_pids(pg_cluster.data))
            _signal_all(frozen, signal.SIGSTOP)  # the judge call is still in flight

        freezer = threading.Thread(target=freeze_when_asked, daemon=True)
        freezer.start()
        try:
            run = measured_hook(sim.payload(), {"JEV_STORE_URL": url, "JEV_HOOK_TIMEOUT_S": "30"})
        finally:
            freezer.join(timeout=70)
            _signal_all(frozen, signal.SIGCONT)
    assert frozen, "the judge was never asked"
    assert run["rc"] == 0, run
    assert run["seconds"] < 30 - 2, run  # within the deadline (host timeout − reserve)
    assert run["rss_mb"] < RSS_LIMIT_MB, run
    notice = run["answer"].get("systemMessage", "")
    assert "did not answer within" in notice or "did not finish" in notice, run
    assert run["answer"].get("decision") != "block", run  # nothing was counted
    pg_cluster.wait_ready()
    with Store(url=url) as store:
        records = store.list_records(session=sim.session_id)
    assert [r for r in records if r.status == "verdict"] == []


# -- a judge slower than the host's hook timeout ---------------------------------------


def test_judge_slower_than_the_hook_timeout_is_answered_by_the_watchdog(
    tmp_path: Path, jev_home: Path
) -> None:
    with HostileServer("drip-headers") as slow:
        save_settings(
            None,
            {
                "enabled": True,
                "judge.provider": "openai",
                "judge.base_url": slow.base,
                "judge.model": "m",
                "judge.timeout_s": 60,
                "judge.technical_retries": 0,
            },
        )
        sim = unfinished_turn(tmp_path)
        run = measured_hook(sim.payload(), {"JEV_HOOK_TIMEOUT_S": "5"})
    assert run["rc"] == 0, run
    assert run["seconds"] < 5.0, run  # the host's timeout, which kills a hook
    assert "did not finish within the hook's time" in run["answer"].get("systemMessage", "")
    log = (jev_home / "hook-errors.jsonl").read_text("utf-8")
    assert "passed its deadline" in log


# -- one stop, many invocations ---------------------------------------------------------


def test_sixteen_identical_stops_spend_one_supplement(tmp_path: Path, jev_home: Path) -> None:
    save_settings(None, {"enabled": True})
    sim = unfinished_turn(tmp_path)
    payload = sim.payload()
    first = measured_hook(payload)  # one finished before the rest arrive
    with ThreadPoolExecutor(max_workers=15) as pool:
        rest = list(pool.map(lambda _: measured_hook(payload), range(15)))
    runs = [first, *rest]
    assert all(r["rc"] == 0 for r in runs)
    blocks = [r for r in runs if r["answer"].get("decision") == "block"]
    assert len(blocks) == 1, [r["answer"] for r in runs]
    assert supplements(sim.session_id) == [1]
    assert max(r["rss_mb"] for r in runs) < RSS_LIMIT_MB


def test_a_counted_block_is_delivered_when_the_session_index_fails_after_it(
    tmp_path: Path, jev_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from jev.base.errors import StoreError
    from jev.hosts.hook import SessionIndex, run_stop_hook

    save_settings(None, {"enabled": True})
    sim = unfinished_turn(tmp_path)
    real = SessionIndex.update

    def update(self: SessionIndex, session: str, **fields: Any) -> dict[str, Any]:
        if "steers" in fields:  # the write after the count: the store stops answering
            raise StoreError("the Jev database did not answer (test)")
        return real(self, session, **fields)

    monkeypatch.setattr(SessionIndex, "update", update)
    result = run_stop_hook("claude-code", json.dumps(sim.payload()))
    assert json.loads(result.stdout).get("decision") == "block"
    assert supplements(sim.session_id) == [1]
    assert "did not answer (test)" in (jev_home / "hook-errors.jsonl").read_text("utf-8")
