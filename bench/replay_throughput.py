"""Offline replay throughput and memory (issue 5, design.md §11).

Generates records exports by cycling the golden records
(``tests/fixtures/golden/records.jsonl``: every verdict, every response-error kind,
over-budget, a three-round chain, …) with unique session ids, then replays each
export in a fresh subprocess (``jev.measure.replay.replay`` over ``iter_source``, the code
behind ``jev replay``) and reports:

* records per second on 100,000 records (target >= 5,000/s), without (the default)
  and with the per-line JSON-schema check (``--validate``);
* peak resident memory (``resource.getrusage(RUSAGE_SELF).ru_maxrss``) of the replay
  process at 10,000 and 100,000 records, and their ratio (target <= 1.5: memory flat).

Run: ``python bench/replay_throughput.py [--records 100000] [--small 10000]``.
Prints figures only; it asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
GOLDEN = REPO / "tests" / "fixtures" / "golden" / "records.jsonl"

_CHILD = r"""
import json, resource, sys, time
from pathlib import Path
from jev.measure.replay import replay
from jev.measure.replay_source import iter_source
path, validate = Path(sys.argv[1]), sys.argv[2] == "1"
# Warm the caches (templates, schemas) outside the timed part.
replay(iter_source([Path(sys.argv[3])], validate=validate))
start = time.perf_counter()
summary = replay(iter_source([path], validate=validate))
elapsed = time.perf_counter() - start
peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"records": summary.records, "same": summary.same,
                  "elapsed_s": elapsed, "peak_kib": peak_kib}))
"""


def make_export(path: Path, count: int) -> None:
    """Write ``count`` records cycling the golden ones, each with its own session."""
    golden = [json.loads(line) for line in GOLDEN.read_text("utf-8").splitlines() if line]
    with path.open("w", encoding="utf-8") as out:
        for i in range(count):
            data = dict(golden[i % len(golden)])
            data["session"] = f"bench-{i // len(golden)}-{data['session']}"
            data["id"] = i + 1
            out.write(json.dumps(data, ensure_ascii=False) + "\n")


def measure(path: Path, *, validate: bool) -> dict[str, float]:
    """Replay ``path`` in a fresh process; return its figures."""
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(path), "1" if validate else "0", str(GOLDEN)],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO,
    )
    result: dict[str, float] = json.loads(done.stdout)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--small", type=int, default=10_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        big, small = Path(tmp) / "big.jsonl", Path(tmp) / "small.jsonl"
        make_export(big, args.records)
        make_export(small, args.small)
        size_mb = big.stat().st_size / 1e6
        print(f"export: {args.records:,} records, {size_mb:,.1f} MB")
        rows = []
        for validate in (False, True):
            large = measure(big, validate=validate)
            little = measure(small, validate=validate)
            assert large["same"] == large["records"] == args.records, large
            rate = large["records"] / large["elapsed_s"]
            ratio = large["peak_kib"] / little["peak_kib"]
            rows.append((validate, rate, little["peak_kib"], large["peak_kib"], ratio))
        print(f"{'schema check':<14}{'records/s':>12}{'peak 10k':>12}{'peak 100k':>12}{'ratio':>8}")
        for validate, rate, p_small, p_big, ratio in rows:
            print(
                f"{'on' if validate else 'off':<14}{rate:>12,.0f}{p_small / 1024:>10.1f}MB"
                f"{p_big / 1024:>10.1f}MB{ratio:>8.2f}"
            )
        print("targets: >= 5,000 records/s; peak-memory ratio <= 1.5")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
