"""Benchmark: start-up cost of ``jev audit`` (issue 13 item 8).

Prints, from one run, the median wall time of

(a) ``jev audit examples/turn-omission.json --judge rules`` — a small turn audited by
    the offline rules judge and recorded in a fresh store, process start included; and
(b) a bare interpreter start (``python -c pass``, the same interpreter),

and their ratio (target ≤ 10×). Also prints the wall time of ``import jev.cli.audit_cmd``
and of the heavy imports the rules path should not pay for before it needs them.

Both are measured as an installed Jev runs: from byte code. ``pip install`` compiles it at
install time, but an environment with ``PYTHONDONTWRITEBYTECODE`` set (these machines'
shells have it) would make every run of a source checkout recompile each Jev module
(~100 ms of compiler work no user pays). The runs therefore use a byte-code cache of
their own (``PYTHONPYCACHEPREFIX`` in a temporary folder, written by the warm-up runs),
for the interpreter start and for ``jev audit`` alike.

Usage: ``python bench/cli_latency.py [--runs N]``. Prints figures only; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "examples" / "turn-omission.json"
MAIN = "import sys; from jev.cli import main; sys.exit(main(sys.argv[1:]))"


def _wall_s(argv: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    """Run the benchmark and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="runs per measurement")
    args = parser.parse_args()
    with (
        tempfile.TemporaryDirectory(prefix="jev-bench-") as home,
        tempfile.TemporaryDirectory(prefix="jev-bench-pyc-") as pycache,
    ):
        env = {**os.environ, "JEV_HOME": home, "PYTHONPYCACHEPREFIX": pycache}
        env.pop("JEV_PROFILE", None)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        audit = [sys.executable, "-c", MAIN, "audit", str(EXAMPLE), "--judge", "rules"]
        bare = [sys.executable, "-c", "pass"]
        # Warm the file cache (and byte-code), then interleave the two so that both
        # see the same machine load.
        _wall_s(audit, env)
        _wall_s(bare, env)
        audits, bares = [], []
        for _ in range(args.runs):
            audits.append(_wall_s(audit, env))
            bares.append(_wall_s(bare, env))
        t_audit, t_bare = statistics.median(audits), statistics.median(bares)
        probe = (
            "import sys, time; t = time.perf_counter(); import jev.cli.audit_cmd; "
            "print(round((time.perf_counter() - t) * 1000, 1), "
            "sorted(m for m in ('jsonschema', 'asyncio', 'httpx', 'pydantic', 'jinja2') "
            "if m in sys.modules))"
        )
        imports = subprocess.run(
            [sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True
        ).stdout.strip()
    print(f"jev audit (small turn, rules judge): {t_audit * 1000:8.1f} ms (median of {args.runs})")
    print(f"python -c pass:                      {t_bare * 1000:8.1f} ms")
    print(f"ratio:                               {t_audit / t_bare:8.1f}x   (target <= 10x)")
    print(f"import jev.cli.audit_cmd:            {imports} (ms, heavy modules loaded)")


if __name__ == "__main__":
    main()
