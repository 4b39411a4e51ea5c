"""Benchmark: the cost of transcript evidence (issue 21) on a large Claude Code session.

Run with ``python bench/evidence_cost.py`` (about 10 s). It writes a Claude Code
transcript of ``--turns`` earlier turns (each with Bash runs of large output: test
logs, builds) and one current turn with a failing ``pytest`` run and a claim that all
tests pass, then prints, as medians over several repetitions in milliseconds:

* the hook's read of the current turn (:func:`jev.hosts.claude_code.transcript.read_current_turn`,
  which now also collects the turn's runs) on the large file, and on a file holding only
  the current turn — their ratio shows the read stays within the current turn and does
  not grow with the session (target: under 2×);
* the evidence step itself (number the material, find claims, read the last matching
  run's outcome: :func:`jev.evidence.finding.check_runs`) — and its ratio to
  ``json.loads`` of the current turn's bytes, a machine-independent yardstick;
* the characters of run output the turn keeps (at most 8,000 per run), against the
  characters of output in the current turn's records;
* that the verdict is ``contradiction`` on the large file too (the step works there).

``--turns`` (default 300) sets the session size; with the default the file is about
60 MB.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from jev.evidence.finding import check_runs
from jev.hosts.claude_code.transcript import read_current_turn
from jev.pipeline.material import number

_LOG_LINE = "tests/test_module_{i}.py::test_case_{j} PASSED                      [ {p:3d}%]\n"


def _big_output(i: int, lines: int) -> str:
    body = "".join(_LOG_LINE.format(i=i, j=j, p=j * 100 // lines) for j in range(lines))
    return body + f"{lines} passed in 12.34s\n"


class Writer:
    """A minimal Claude Code transcript writer (the record shapes of hosts.md)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.handle = path.open("w", encoding="utf-8")
        self.parent: str | None = None

    def _put(self, record: dict[str, Any]) -> str:
        uid = str(uuid.uuid4())
        record.update(
            {"parentUuid": self.parent, "isSidechain": False, "uuid": uid, "sessionId": "s1"}
        )
        record.setdefault("timestamp", "2026-12-01T10:00:00.000Z")
        self.handle.write(json.dumps(record, ensure_ascii=False) + "\n")
        self.parent = uid
        return uid

    def prompt(self, text: str) -> None:
        self._put({"type": "user", "message": {"role": "user", "content": text}})

    def assistant(self, block: dict[str, Any]) -> None:
        message = {"id": f"msg_{uuid.uuid4().hex}", "role": "assistant", "content": [block]}
        self._put({"type": "assistant", "message": message})

    def bash(self, command: str, output: str, code: int) -> None:
        tid = f"toolu_{uuid.uuid4().hex[:24]}"
        self.assistant(
            {"type": "tool_use", "id": tid, "name": "Bash", "input": {"command": command}}
        )
        content = output if code == 0 else f"Exit code {code}\n{output}"
        block = {
            "tool_use_id": tid,
            "type": "tool_result",
            "content": content,
            "is_error": code != 0,
        }
        self._put({"type": "user", "message": {"role": "user", "content": [block]}})

    def todos(self, *items: tuple[str, str]) -> None:
        todos = [{"content": c, "status": s, "activeForm": c} for c, s in items]
        tid = f"toolu_{uuid.uuid4().hex[:24]}"
        self.assistant(
            {"type": "tool_use", "id": tid, "name": "TodoWrite", "input": {"todos": todos}}
        )
        block = {"tool_use_id": tid, "type": "tool_result", "content": "Todos have been modified"}
        self._put({"type": "user", "message": {"role": "user", "content": [block]}})

    def say(self, text: str) -> None:
        message = {
            "id": f"msg_{uuid.uuid4().hex}",
            "role": "assistant",
            "content": [{"type": "text", "text": text}],
            "stop_reason": "end_turn",
        }
        self._put({"type": "assistant", "message": message})
        self._put({"type": "system", "subtype": "turn_duration", "durationMs": 1000})

    def close(self) -> None:
        self.handle.close()


def current_turn(w: Writer) -> None:
    w.prompt("Fix the leap-year bug in parse_date() and make sure the tests pass.")
    w.todos(("Fix leap-year handling", "completed"), ("Run the tests", "completed"))
    w.bash("python3 -m pytest -q", _big_output(0, 400), 0)
    w.bash("ruff check .", "All checks passed!\n", 0)
    red = _big_output(1, 400).replace("400 passed in 12.34s", "1 failed, 399 passed in 12.34s")
    w.bash("python3 -m pytest -q", red, 1)
    w.say("Fixed the leap-year check in `dates.py`. All 400 tests pass.")


def write_session(path: Path, turns: int) -> None:
    w = Writer(path)
    for t in range(turns):
        w.prompt(f"Task {t}: refactor module {t} and run its tests.")
        w.todos((f"Refactor module {t}", "completed"))
        for r in range(6):
            w.bash(f"pytest -q tests/test_module_{t}_{r}.py", _big_output(t, 300), 0)
        w.say(f"Refactored module {t}; 300 passed.")
    current_turn(w)
    w.close()


def median_ms(fn: Callable[[], object], repeat: int) -> float:
    fn()  # warm-up
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="jev-bench-") as folder:
        big, small = Path(folder) / "big.jsonl", Path(folder) / "small.jsonl"
        write_session(big, args.turns)
        w = Writer(small)
        current_turn(w)
        w.close()
        read_big = median_ms(lambda: read_current_turn(big), args.repeat)
        read_small = median_ms(lambda: read_current_turn(small), args.repeat)
        turn = read_current_turn(big)
        assert turn.material is not None
        numbering = number(turn.material)
        step = median_ms(lambda: check_runs(numbering, turn.runs), args.repeat * 5)
        raw = small.read_bytes()
        loads = median_ms(lambda: [json.loads(line) for line in raw.splitlines()], args.repeat * 5)
        finding = check_runs(numbering, turn.runs)
        kept = sum(len(r.output) for r in turn.runs)
        seen = sum(
            len(b.get("content") or "")
            for line in raw.splitlines()
            for b in (json.loads(line).get("message") or {}).get("content") or []
            if isinstance(b, dict) and b.get("type") == "tool_result"
        )
        print(f"session file: {big.stat().st_size / 1e6:.1f} MB, {args.turns + 1} turns")
        print(f"current turn: {len(turn.runs)} runs read, {kept:,} of {seen:,} output chars kept")
        print(f"read current turn (large file): {read_big:8.2f} ms")
        print(f"read current turn (turn alone): {read_small:8.2f} ms")
        print(f"  ratio large/alone:            {read_big / read_small:8.2f}x  (target < 2x)")
        print(f"evidence step (check_runs):     {step:8.3f} ms")
        print(f"json.loads of the turn's lines: {loads:8.3f} ms")
        print(f"  ratio step/json.loads:        {step / loads:8.2f}x")
        verdict = finding.assessment if finding else "none"
        quote = finding.note.quote if finding else ""
        print(f"verdict: {verdict} (quote: {quote!r})")
        return 0 if finding is not None and read_big / read_small < 2 else 1


if __name__ == "__main__":
    raise SystemExit(main())
