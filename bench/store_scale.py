"""Store scale: audits written per second by 1, 4 and 16 processes, to SQLite and to
PostgreSQL, and ``jev report`` time and peak memory at 10,000 and 100,000 records
(design.md §11; README "For teams").

* Writers: each process opens its own :class:`jev.store.Store` and commits ``--audits``
  audits, each the way the hook does it: one :meth:`Store.update_turn_and_record`
  transaction (claim the turn, save its state, insert the record) on its own turn.
  Reported: total audits per second over the wall time of all processes.
* Report: a store filled with ``--small`` and ``--records`` records (10,000 inserted
  through the store, then the rows copied in SQL), then ``jev report --since 3650d
  --by day --json`` in a fresh process: wall time and peak resident memory.

PostgreSQL runs in a throwaway cluster (tests/pgserver.py: Debian's postgresql, initdb
into /tmp, fsync off); without the server binaries or psycopg only SQLite is measured.
Prints figures and ratios measured in one run; asserts nothing; not run by pytest.

Run: ``python bench/store_scale.py [--audits 200] [--records 100000] [--small 10000]``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
GOLDEN = REPO / "tests" / "fixtures" / "golden" / "records.jsonl"

_WRITER = r"""
import json, sys, time
from dataclasses import replace
from jev.base.record import Record
from jev.store import Store, TurnKey, TurnRow
target, worker, count, go = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
template = Record.from_json(json.loads(open(sys.argv[5], encoding="utf-8").readline()))
store = Store(target)
from pathlib import Path
while not Path(go).exists():
    time.sleep(0.001)
for n in range(count):
    key = TurnKey("bench", f"w{worker}", f"t{n}")
    record = replace(template, host="bench", session=key.session, turn=key.turn, created_at="")
    store.update_turn_and_record(
        key, lambda row: (TurnRow(key, {"audits": 1}), [record], None)
    )
store.close()
"""

_REPORT = r"""
import json, resource, sys, time
from jev.cli import main
start = time.perf_counter()
import io, contextlib
out = io.StringIO()
with contextlib.redirect_stdout(out):
    code = main(["report", "--since", "3650d", "--by", "day", "--json", "--store-url", sys.argv[1]])
elapsed = time.perf_counter() - start
records = json.loads(out.getvalue())["records"]
print(json.dumps({"code": code, "seconds": elapsed, "records": records,
                  "peak_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))
"""


def writers(target: str, processes: int, audits: int, folder: Path) -> float:
    """Audits per second with ``processes`` concurrent writers."""
    go = folder / f"go-{processes}-{time.monotonic_ns()}"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _WRITER, target, str(w), str(audits), str(go), str(GOLDEN)],
            cwd=REPO,
        )
        for w in range(processes)
    ]
    time.sleep(1.0 + 0.2 * processes)  # let every interpreter start and connect
    start = time.perf_counter()
    go.touch()
    for proc in procs:
        if proc.wait(timeout=1800) != 0:
            raise SystemExit("a writer failed")
    return processes * audits / (time.perf_counter() - start)


def fill(target: str, total: int) -> None:
    """Make the store hold exactly ``total`` records (copying rows in SQL)."""
    from dataclasses import replace

    from jev.base.record import Record
    from jev.store import Store

    lines = [json.loads(x) for x in GOLDEN.read_text("utf-8").splitlines() if x.strip()]
    now = time.time()
    with Store(target) as store:
        have = store._db.execute("SELECT COUNT(*) FROM records").fetchone()[0]
        base = min(total, 10_000)
        if have < base:
            with store.transaction() as tx:
                for n in range(have, base):
                    record = Record.from_json(lines[n % len(lines)])
                    stamp = now - (n % 30) * 86_400 - n
                    from jev.base.record import iso_utc

                    tx.add_record(replace(record, session=f"s{n}", created_at=iso_utc(stamp)))
        cols = (
            "created_at, created_ts, profile, host, session, turn, turn_number, round, status, "
            "assessment, focus_id, action_kind, material_hash, data, digest"
        )
        while True:
            have = store._db.execute("SELECT COUNT(*) FROM records").fetchone()[0]
            if have >= total:
                break
            with store.transaction() as tx:
                tx._db.execute(
                    f"INSERT INTO records ({cols}) SELECT {cols} FROM records "
                    f"ORDER BY id LIMIT {total - have}"
                )


def report(target: str) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, "-c", _REPORT, target], capture_output=True, text=True, cwd=REPO
    )
    if out.returncode != 0:
        raise SystemExit(out.stderr)
    result: dict[str, float] = json.loads(out.stdout.splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--audits", type=int, default=200, help="audits per writer process")
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--small", type=int, default=10_000)
    args = parser.parse_args()

    cluster = None
    try:
        from tests.pgserver import PgCluster, find_bindir

        bindir = find_bindir()
        import psycopg  # noqa: F401

        cluster = PgCluster(bindir) if bindir else None
    except ImportError:
        cluster = None
    if cluster is None:
        print("PostgreSQL: not measured (no server binaries or no psycopg)")
    with tempfile.TemporaryDirectory(prefix="jev-store-scale-") as tmp:
        folder = Path(tmp)
        backends: dict[str, object] = {"sqlite": lambda name: str(folder / f"{name}.sqlite3")}
        if cluster is not None:
            backends["postgresql"] = lambda name: cluster.url()
        rates: dict[tuple[str, int], float] = {}
        seconds: dict[tuple[str, int], float] = {}
        peak: dict[tuple[str, int], float] = {}
        try:
            for backend, target in backends.items():
                for processes in (1, 4, 16):
                    url = target(f"w{processes}")  # type: ignore[operator]
                    rate = writers(url, processes, args.audits, folder)
                    rates[backend, processes] = rate
                    print(f"{backend:10s} {processes:2d} writers: {rate:8.0f} audits/s")
                for size in (args.small, args.records):
                    url = target(f"r{size}")  # type: ignore[operator]
                    url = url if "://" in url else f"sqlite:///{url}"
                    fill(url, size)
                    result = report(url)
                    seconds[backend, size] = result["seconds"]
                    peak[backend, size] = result["peak_kib"]
                    print(
                        f"{backend:10s} report over {result['records']:7d} records: "
                        f"{result['seconds']:6.2f} s, peak {result['peak_kib'] / 1024:6.1f} MiB"
                    )
        finally:
            if cluster is not None:
                cluster.destroy()
    print("ratios (one run):")
    big, small = args.records, args.small
    for backend in backends:
        scale16 = rates[backend, 16] / rates[backend, 1]
        scale4 = rates[backend, 4] / rates[backend, 1]
        time_ratio = seconds[backend, big] / seconds[backend, small]
        memory_ratio = peak[backend, big] / peak[backend, small]
        print(
            f"  {backend}: writers 16 vs 1 x{scale16:.2f}, 4 vs 1 x{scale4:.2f}; report "
            f"{big} vs {small} records: time x{time_ratio:.1f}, peak memory x{memory_ratio:.2f}"
        )
    if "postgresql" in backends:
        for processes in (1, 4, 16):
            ratio = rates["postgresql", processes] / rates["sqlite", processes]
            print(f"  PostgreSQL / SQLite audits/s at {processes} writers: x{ratio:.2f}")


if __name__ == "__main__":
    main()
