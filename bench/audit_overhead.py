"""Benchmark: Jev's own cost of one audit, without the judge call.

Run with ``python bench/audit_overhead.py`` (about 10 s). For material of about 2k,
24k, 240k and 1M characters (the last capped where the rendered judge input reaches
the largest budget, 1,000,000 characters; bigger material is refused unrendered-
to-the-judge by design) it prints:

* the time of each step of Jev's own work: number (positions), render (jinja2 judge
  input), budget check, parse + map of the reply — and their sum, the "overhead";
* the time of a whole :func:`jev.pipeline.audit.run_audit` with an instant, counting stand-in
  judge (adds language resolution, the material digest and outcome building);
* both as a ratio to ``json.loads`` of the same material serialised as JSON (a
  machine-independent yardstick);
* the judge calls counted per audit through ``run_audit`` (must be exactly 1).

Times are medians over several repetitions after one warm-up run (templates compiled,
schema validator built), in milliseconds. The target is at most 2 ms of overhead at
24k characters and linear growth.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from jev.base.domain import (
    JudgeAnswer,
    JudgeInfo,
    JudgeInput,
    JudgeSettings,
    Material,
    Numbering,
    Settings,
    TodoItem,
)
from jev.pipeline.audit import run_audit
from jev.pipeline.budget import MAX_BUDGET_CHARS, check_budget
from jev.pipeline.material import number
from jev.pipeline.parse import parse_reply
from jev.pipeline.render import render_judge_input

TARGETS = (2_000, 24_000, 240_000, 1_000_000)

_REQUEST = (
    "Fix the CSV export in `src/export.ts`: dates are written as 3.5e9 timestamps "
    "instead of ISO strings. Keep v1.2.3 compatibility, e.g. old clients still read "
    "the `ts` column. Add a regression test and run `pnpm test export`.\n"
)
_ANSWER = (
    "Fixed the exporter in `src/export.ts`; dates are now ISO 8601 strings.\n\n"
    "- `formatDate()` uses `toISOString()`, the legacy `ts` column is kept.\n"
    "- Added `export.test.ts` with 4 cases. `pnpm test export`: 12 passed.\n\n"
    "```ts\nexport const formatDate = (d: Date): string => d.toISOString();\n```\n\n"
    "修复后导出的日期为 ISO 字符串。旧客户端仍可读取 ts 列！\n\n"
)
_TODO = "Fix date format in src/export.ts; add regression test; run pnpm test export"


def _material(repeat: int) -> Material:
    return Material(
        request=(_REQUEST * repeat, "Also update the changelog."),
        todos=tuple(
            TodoItem(f"{_TODO} ({i})", "completed" if i % 3 else "pending")
            for i in range(1, max(2, repeat // 4) + 1)
        ),
        final_answer=_ANSWER * repeat,
    )


def _material_chars(material: Material) -> int:
    """Characters of the material's text: request, Todo contents and statuses, answer."""
    chars = sum(map(len, material.request)) + len(material.final_answer)
    return chars + sum(len(t.content) + len(t.status) for t in material.todos)


def _fits(material: Material, target: int) -> bool:
    if _material_chars(material) > target:
        return False
    return render_judge_input(number(material), "en").chars <= MAX_BUDGET_CHARS


def _material_for(target: int) -> Material:
    """The largest material (by repetition) of at most ``target`` characters whose
    rendered judge input still fits the largest budget (1,000,000 characters)."""
    lo, hi = 1, 1
    while _fits(_material(hi), target):
        lo, hi = hi, hi * 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if _fits(_material(mid), target):
            lo = mid
        else:
            hi = mid
    return _material(lo)


class CountingJudge:
    """An instant stand-in judge that counts its calls and always finds an omission."""

    info = JudgeInfo(provider="bench", model="counting", heuristic=True)

    def __init__(self) -> None:
        self.calls = 0

    def ask(self, judge_input: JudgeInput, numbering: Numbering) -> JudgeAnswer:
        self.calls += 1
        return JudgeAnswer(text='{"assessment": "omission", "focus": "R2", "confidence": 0.7}')

    def close(self) -> None:
        return None


def _median_ms(fn: Callable[[], object], reps: int) -> float:
    fn()  # warm-up
    samples = []
    for _ in range(reps):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000.0)
    return statistics.median(samples)


def main() -> int:
    settings = Settings(
        enabled=True,
        evidence_chars=MAX_BUDGET_CHARS,
        language="en",
        judge=JudgeSettings(provider="bench", technical_retries=1),
    )
    reply = '{"assessment": "omission", "focus": "R2", "confidence": 0.7}'
    header = (
        f"{'target':>9} {'material':>9} {'input':>9} {'number':>8} {'render':>8} "
        f"{'budget':>8} {'parse':>7} {'overhead':>9} {'run_audit':>9} {'json.loads':>10} "
        f"{'ovh/json':>8} {'run/json':>8} {'ms/10k':>7} {'calls':>5}"
    )
    print("times in ms (median); sizes in characters")
    print(header)
    print("-" * len(header))
    for target in TARGETS:
        material = _material_for(target)
        material_chars = _material_chars(material)
        blob = json.dumps(material.to_json(), ensure_ascii=False)
        reps = 200 if target <= 24_000 else 20 if target <= 240_000 else 7

        numbering = number(material)
        judge_input = render_judge_input(numbering, "en")
        t_number = _median_ms(lambda m=material: number(m), reps)
        t_render = _median_ms(lambda n=numbering: render_judge_input(n, "en"), reps)
        t_budget = _median_ms(lambda j=judge_input: check_budget(j, MAX_BUDGET_CHARS), reps)
        t_parse = _median_ms(lambda n=numbering: parse_reply(reply, n), reps)
        t_json = _median_ms(lambda b=blob: json.loads(b), reps)
        overhead = t_number + t_render + t_budget + t_parse

        judge = CountingJudge()
        t_run = _median_ms(lambda m=material, j=judge: run_audit(m, settings, j), reps)
        judge.calls = 0
        outcome = run_audit(material, settings, judge)
        if outcome.status != "verdict" or judge.calls != 1:
            print(f"FAIL: {outcome.status} {outcome.reason} calls={judge.calls}")
            return 1
        print(
            f"{target:>9,} {material_chars:>9,} {judge_input.chars:>9,} {t_number:>8.3f} "
            f"{t_render:>8.3f} {t_budget:>8.4f} {t_parse:>7.3f} {overhead:>9.3f} "
            f"{t_run:>9.3f} {t_json:>10.3f} {overhead / t_json:>8.1f} {t_run / t_json:>8.1f} "
            f"{overhead / judge_input.chars * 10_000:>7.3f} {judge.calls:>5}"
        )
    print(
        "overhead = number + render + budget + parse; run_audit adds language, digest and "
        "outcome; calls = judge calls of one run_audit (counting stand-in judge)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
