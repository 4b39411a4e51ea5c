"""Benchmark: a host judge's own overhead (issue 20, "done when").

For each runnable host CLI (the pinned npm versions of the real-host suite), one judge
call through :mod:`jev.judges.cli` against that host's scripted model server on
127.0.0.1, split in two:

* **start** — from starting the CLI until its judge request reaches the server (the
  CLI's start-up, login and settings reading: what a persistent judge process would
  save);
* **finish** — from the server's reply until Jev holds the verdict (the CLI's streaming,
  output writing and exit, plus Jev's parsing).

Each is printed as a ratio to a bare ``python -c pass`` measured in the same run (so the
figure travels across machines), the median of ``--runs`` runs. The model's own time is
zero here (the scripted server answers at once); with a real model, add its latency.

Usage: ``python bench/host_judge_overhead.py [--runs N] [--hosts claude-code,codex,…]``
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from jev.base.domain import JudgeSettings, Material, TodoItem
from jev.judges import create_judge
from jev.pipeline.material import number
from jev.pipeline.render import render_judge_input
from tests.hosts_real.conftest import HostHome
from tests.hosts_real.test_host_judges import RULES, host_judge

HOSTS = ("claude-code", "codex", "gemini", "qwen", "copilot")
MATERIAL = Material(
    request=("Fix the parser and update the README.",),
    todos=(TodoItem("Fix the parser", "completed"), TodoItem("Update README", "pending")),
    final_answer="Fixed the parser in src/parse.py.",
    todo_used=True,
)


def _python_pass(runs: int) -> float:
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


@contextmanager
def _home() -> Iterator[HostHome]:
    with tempfile.TemporaryDirectory(prefix="jev-bench-judge-") as tmp:
        home, project = Path(tmp) / "home", Path(tmp) / "project"
        home.mkdir()
        project.mkdir()
        env = {"HOME": str(home), "PATH": os.environ.get("PATH", "")}
        saved = dict(os.environ)
        try:
            yield HostHome(home, project, env)
        finally:
            os.environ.clear()
            os.environ.update(saved)


def _one(host: str) -> tuple[float, float]:
    """(start, finish) seconds of one judge call through ``host``'s CLI."""
    with _home() as home, host_judge(host, home) as server:
        os.environ.update(home.env)
        judge = create_judge(JudgeSettings(provider=host, timeout_s=120))
        numbering = number(MATERIAL)
        judge_input = render_judge_input(numbering, "en")
        began = time.perf_counter()
        answer = judge.ask(judge_input, numbering)
        done = time.perf_counter()
        arrived = [r.extra.get("t") for r in server.requests if RULES in r.raw]
        assert answer.text and arrived, f"{host}: no judge request reached the server"
        reached = float(arrived[0])
        replied = float([r.extra.get("t_done") for r in server.requests if RULES in r.raw][-1])
        return reached - began, done - replied


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--hosts", default=",".join(HOSTS))
    args = parser.parse_args()
    base = _python_pass(max(3, args.runs))
    print(f"python -c pass: {base * 1000:.0f} ms (median of {max(3, args.runs)})")
    print("host          start (CLI → request)      finish (reply → verdict)")
    for host in args.hosts.split(","):
        starts, finishes = [], []
        for _ in range(args.runs):
            start, finish = _one(host)
            starts.append(start)
            finishes.append(finish)
        s, f = statistics.median(starts), statistics.median(finishes)
        print(
            f"{host:<13} {s * 1000:7.0f} ms = {s / base:5.1f}x        "
            f"{f * 1000:7.0f} ms = {f / base:5.1f}x"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
