"""Generate ``tests/fixtures/golden/records.jsonl`` through the real audit path.

Every record is written by :class:`jev.pipeline.audit.Auditor` (the same code a host runs) with a
:class:`~jev.judges.scripted.ScriptedJudge` playing the judge, into a real SQLite
:class:`~jev.store.Store`, then exported with ``Store.export_jsonl``. The clock is
fixed and judge latency is zeroed after export, so regenerating gives the same bytes
unless Jev's behaviour changed.

Scenarios (one turn each unless said otherwise):

* the five verdicts (complete, omission, contradiction, needs-user, unknown), the
  problem verdicts sending a supplement (one in Chinese);
* each response-error kind (reply-missing, reply-malformed, reply-schema,
  unknown-assessment, unknown-focus, focus-mismatch) ending incomplete;
* a response error healed by a technical retry (verdict after 2 calls);
* the judge down (timeouts after the retry): incomplete;
* over budget (tiny ``evidence_chars``): incomplete, no judge call;
* a three-round chain in one turn: omission → contradiction → complete;
* budget used up: omission → omission with ``max_supplements = 1`` (exhausted);
* a cancelled turn.

Run: ``python -m tests.replay.make_golden [OUT]`` (default: the fixture path).
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from jev.base.domain import JudgeSettings, Material, Settings, TodoItem
from jev.base.errors import TransportError
from jev.judges.scripted import ScriptedJudge, ScriptEntry
from jev.pipeline.audit import Auditor
from jev.store import Store

GOLDEN = Path(__file__).resolve().parent.parent / "fixtures" / "golden" / "records.jsonl"
#: 2026-03-01T00:00:00Z in epoch seconds.
T0 = 1_772_323_200.0

REQUEST_EN = (
    "Add a --verbose flag to the CLI that prints each file as it is processed. "
    "Also update the README usage section.",
)
TODOS_EN = (
    TodoItem("Add --verbose option to cli.py", "completed"),
    TodoItem("Print each processed file when verbose", "completed"),
    TodoItem("Update README usage section", "pending"),
)
ANSWER_EN = (
    "Added `--verbose` to `cli.py`; it prints every processed file. "
    "`pytest -q`: 41 passed.\n\nThe README is updated as well."
)
REQUEST_ZH = ("给导出接口加上分页参数 page 和 page_size，并补充单元测试。",)
TODOS_ZH = (
    TodoItem("导出接口增加 page / page_size 参数", "completed"),
    TodoItem("补充单元测试", "pending"),
)
ANSWER_ZH = "已经给导出接口加上了 page 和 page_size 参数。"


def _reply(assessment: str, focus: str, confidence: float | None = 0.8) -> str:
    data: dict[str, object] = {"assessment": assessment, "focus": focus}
    if confidence is not None:
        data["confidence"] = confidence
    return json.dumps(data)


def _settings(**changes: object) -> Settings:
    judge = JudgeSettings(provider="scripted", model="golden", technical_retries=0)
    base = Settings(profile="golden", enabled=True, max_supplements=3, language="auto", judge=judge)
    judge_changes = {k: v for k, v in changes.items() if k == "technical_retries"}
    top = {k: v for k, v in changes.items() if k != "technical_retries"}
    if judge_changes:
        base = replace(base, judge=replace(judge, **judge_changes))  # type: ignore[arg-type]
    return replace(base, **top)  # type: ignore[arg-type]


class _Clock:
    def __init__(self) -> None:
        self.t = T0

    def __call__(self) -> float:
        self.t += 1.0
        return self.t


def _stops(
    store: Store,
    clock: _Clock,
    session: str,
    script: Sequence[ScriptEntry],
    materials: Sequence[Material],
    settings: Settings,
) -> None:
    """One turn: the agent stops once per material; the judge plays ``script``."""
    judge = ScriptedJudge(script, model="golden")
    auditor = Auditor(
        settings=settings,
        judge=judge,
        store=store,
        host="api",
        sleep=lambda _s: None,
        now=clock,
    )
    for number, material in enumerate(materials, start=1):
        auditor.on_stop(session, f"{session}-turn", material, turn_number=number)
    if judge.remaining:
        raise RuntimeError(f"scenario {session}: {judge.remaining} scripted replies unused")


def generate(out: Path) -> int:
    """Write the golden records to ``out``; return how many."""
    en = Material(REQUEST_EN, TODOS_EN, ANSWER_EN)
    zh = Material(REQUEST_ZH, TODOS_ZH, ANSWER_ZH)
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "golden.sqlite3")
        clock = _Clock()
        base = _settings()
        # The five verdicts.
        _stops(store, clock, "verdict-complete", [_reply("complete", "none")], [en], base)
        _stops(store, clock, "verdict-omission", [_reply("omission", "T3")], [en], base)
        _stops(store, clock, "verdict-contradiction", [_reply("contradiction", "A3")], [en], base)
        _stops(store, clock, "verdict-needs-user", [_reply("needs-user", "R2", None)], [en], base)
        _stops(store, clock, "verdict-unknown", [_reply("unknown", "all", 0.3)], [en], base)
        _stops(store, clock, "verdict-omission-zh", [_reply("omission", "T2")], [zh], base)
        # Every response-error kind, no technical retry: incomplete.
        errors = {
            "reply-missing": "",
            "reply-malformed": "The report looks complete to me.",
            "reply-schema": '{"assessment": "complete"}',
            "unknown-assessment": '{"assessment": "done", "focus": "none"}',
            "unknown-focus": '{"assessment": "omission", "focus": "R9"}',
            "focus-mismatch": '{"assessment": "omission", "focus": "none"}',
        }
        for kind, text in errors.items():
            _stops(store, clock, f"error-{kind}", [text], [en], base)
        # A response error healed by one technical retry.
        retry = _settings(technical_retries=1)
        _stops(
            store,
            clock,
            "retry-healed",
            ['```json\n{"assessment": "omission"\n```', _reply("omission", "R2")],
            [en],
            retry,
        )
        # The judge is down: a timeout, then a refused connection after the retry.
        down = [
            TransportError("the judge timed out after 60 s", kind="timeout"),
            TransportError("connection refused by 127.0.0.1:9", kind="connect"),
        ]
        _stops(store, clock, "judge-down", down, [en], retry)
        # Over budget: no judge call at all.
        _stops(store, clock, "over-budget", [], [en], _settings(evidence_chars=500))
        # Three rounds in one turn: omission -> contradiction -> complete.
        fixed_readme = replace(
            en, todos=(*TODOS_EN[:2], TodoItem("Update README usage section", "completed"))
        )
        final = replace(
            fixed_readme, final_answer=ANSWER_EN + "\n\nREADME: added a --verbose example."
        )
        _stops(
            store,
            clock,
            "chain-three-rounds",
            [_reply("omission", "T3"), _reply("contradiction", "A2"), _reply("complete", "none")],
            [en, fixed_readme, final],
            base,
        )
        # Budget used up: omission twice with max_supplements = 1.
        again = replace(en, final_answer=ANSWER_EN + " (checked again)")
        _stops(
            store,
            clock,
            "exhausted",
            [_reply("omission", "T3"), _reply("omission", "T3")],
            [en, again],
            _settings(max_supplements=1),
        )
        # A cancelled turn after a supplement.
        judge = ScriptedJudge([_reply("unknown", "A1", 0.4)], model="golden")
        auditor = Auditor(
            settings=base, judge=judge, store=store, host="api", sleep=lambda _s: None, now=clock
        )
        auditor.on_stop("cancelled", "cancelled-turn", en, turn_number=1)
        auditor.cancel("cancelled", "cancelled-turn")

        lines = []
        with tempfile.TemporaryFile("w+", encoding="utf-8") as handle:
            count = store.export_jsonl(handle)
            handle.seek(0)
            for raw in handle:
                data = json.loads(raw)
                data["latency_ms"] = 0.0  # wall time of the scripted call: not reproducible
                lines.append(json.dumps(data, ensure_ascii=False, sort_keys=True))
        store.close()
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return count


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    out = Path(args[0]) if args else GOLDEN
    count = generate(out)
    print(f"wrote {count} records to {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
