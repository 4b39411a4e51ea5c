"""Benchmark: the Claude Code Stop hook's fast path (issue 4 item 2).

Prints two ratios, each the median of several runs:

(a) wall time of ``jev hook claude-code`` on a no-Todo turn at the end of a generated
    50 MB transcript, divided by the wall time of ``python -c pass`` run by the same
    interpreter as the hook (target ≤ 1.5×; ``python3`` on PATH may be a slower shim,
    so it is printed for reference only);
(b) wall time on the same last turn at the end of a 500 MB transcript divided by the
    time at the end of a 5 MB transcript (target ≤ 1.2×: the cost follows the turn, not
    the session).

The transcripts are generated into a temporary folder from realistic Claude Code
records (prompts, assistant text and tool calls, tool results, progress and
stop-hook-summary records; shapes as in tests/fixtures/real/), earlier turns with
TodoWrite calls, and removed afterwards. The profile is enabled (rules judge), so the
hook really reads the transcript; the last turn uses no Todo tool, so no audit runs.

Usage: ``python bench/hook_fast_path.py [--runs N] [--keep]``
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

JEV = Path(sys.executable).parent / "jev"
MB = 1 << 20


def _turn_records(n: int, *, todos: bool) -> list[str]:
    session = "bench-session"
    out: list[dict] = []
    parent = None

    def add(record: dict) -> None:
        nonlocal parent
        record.setdefault("uuid", str(uuid.uuid4()))
        record.update(
            {
                "parentUuid": parent,
                "isSidechain": False,
                "sessionId": session,
                "timestamp": "2026-06-09T02:00:00.000Z",
                "version": "2.1.96",
                "cwd": "/home/u/project",
                "userType": "external",
            }
        )
        parent = record["uuid"]
        out.append(record)

    add(
        {
            "type": "user",
            "message": {"role": "user", "content": f"Request {n}: refactor module {n}"},
            "permissionMode": "default",
            "promptId": str(uuid.uuid4()),
        }
    )
    for step in range(6):
        tool_id = f"toolu_{uuid.uuid4().hex[:24]}"
        add(
            {
                "type": "assistant",
                "message": {
                    "id": f"msg_{n}_{step}",
                    "role": "assistant",
                    "model": "claude-opus-4-6",
                    "type": "message",
                    "content": [
                        {
                            "type": "tool_use",
                            "id": tool_id,
                            "name": "Read",
                            "input": {"file_path": f"/home/u/project/src/m{n}_{step}.py"},
                        }
                    ],
                },
                "requestId": f"req_{n}_{step}",
            }
        )
        body = "    def method(self, value):\n        return value * 2  # comment\n" * 60
        add(
            {
                "type": "user",
                "message": {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": tool_id, "content": body}],
                },
                "toolUseResult": {"type": "text", "file": {"content": body}},
            }
        )
        add({"type": "progress", "data": {"type": "hook_progress", "hookEvent": "PostToolUse"}})
    if todos:
        items = [
            {"content": f"Step {i} of {n}", "status": "completed", "activeForm": "Doing"}
            for i in range(4)
        ]
        tool_id = f"toolu_{uuid.uuid4().hex[:24]}"
        add(
            {
                "type": "assistant",
                "message": {
                    "id": f"msg_{n}_todo",
                    "role": "assistant",
                    "type": "message",
                    "content": [
                        {
                            "type": "tool_use",
                            "id": tool_id,
                            "name": "TodoWrite",
                            "input": {"todos": items},
                        }
                    ],
                },
            }
        )
        add(
            {
                "type": "user",
                "message": {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": tool_id,
                            "content": "Todos have been modified successfully.",
                        }
                    ],
                },
                "toolUseResult": {"oldTodos": [], "newTodos": items},
            }
        )
    add(
        {
            "type": "assistant",
            "message": {
                "id": f"msg_{n}_end",
                "role": "assistant",
                "type": "message",
                "content": [{"type": "text", "text": f"Refactored module {n}."}],
            },
        }
    )
    add(
        {
            "type": "system",
            "subtype": "stop_hook_summary",
            "hookCount": 1,
            "hookInfos": [],
            "hookErrors": [],
            "preventedContinuation": False,
            "stopReason": "",
            "hasOutput": False,
        }
    )
    add({"type": "system", "subtype": "turn_duration", "durationMs": 5000})
    return [json.dumps(r) + "\n" for r in out]


def generate(path: Path, size: int, last_turn: list[str]) -> None:
    """Write ~``size`` bytes of earlier turns (half with Todos), then ``last_turn``."""
    block = "".join(_turn_records(0, todos=True)) + "".join(_turn_records(1, todos=False))
    data = block.encode()
    with path.open("wb") as handle:
        written = 0
        while written < size:
            handle.write(data)
            written += len(data)
        handle.write("".join(last_turn).encode())


def timed(cmd: list[str], stdin: str, env: dict[str, str], runs: int) -> float:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        proc = subprocess.run(cmd, input=stdin, capture_output=True, text=True, env=env)
        samples.append(time.perf_counter() - start)
        if proc.returncode != 0:
            raise SystemExit(f"{cmd} failed: {proc.stderr}")
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--keep", action="store_true", help="keep the generated files")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="jev-bench-"))
    try:
        env = dict(os.environ, JEV_HOME=str(folder / "home"))
        enable = (
            "from jev.settings.profiles import save_settings; "
            "save_settings(None, {'enabled': True})"
        )
        subprocess.run([sys.executable, "-c", enable], env=env, check=True)
        last = _turn_records(99, todos=False)
        files = {}
        for label, size in (("5MB", 5 * MB), ("50MB", 50 * MB), ("500MB", 500 * MB)):
            path = folder / f"{label}.jsonl"
            generate(path, size, last)
            files[label] = path
        payloads = {
            label: json.dumps(
                {
                    "hook_event_name": "Stop",
                    "session_id": "bench",
                    "transcript_path": str(path),
                    "stop_hook_active": False,
                    "last_assistant_message": "Refactored module 99.",
                }
            )
            for label, path in files.items()
        }
        # warm the OS page cache and Python's bytecode cache once
        for label in files:
            timed([str(JEV), "hook", "claude-code"], payloads[label], env, 1)
        if (folder / "home" / "hook-errors.jsonl").exists():
            raise SystemExit("the hook failed (see hook-errors.jsonl); figures would be wrong")
        baseline = timed(["python3", "-c", "pass"], "", env, args.runs)
        same = timed([sys.executable, "-c", "pass"], "", env, args.runs)
        hook = {
            label: timed([str(JEV), "hook", "claude-code"], payloads[label], env, args.runs)
            for label in files
        }
        ratio_a = hook["50MB"] / same
        ratio_b = hook["500MB"] / hook["5MB"]
        print(f"python3 -c pass          : {baseline * 1000:7.1f} ms")
        print(f"{sys.executable} -c pass : {same * 1000:7.1f} ms (the hook's interpreter)")
        for label in files:
            size = files[label].stat().st_size / MB
            print(f"hook, {label:>5} transcript  : {hook[label] * 1000:7.1f} ms  ({size:.0f} MB)")
        print(f"(a) 50 MB hook / same python -c pass = {ratio_a:.2f}x  (target <= 1.5x)")
        print(f"    50 MB hook / python3 on PATH -c pass = {hook['50MB'] / baseline:.2f}x")
        print(f"(b) 500 MB / 5 MB                 = {ratio_b:.2f}x  (target <= 1.2x)")
    finally:
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
