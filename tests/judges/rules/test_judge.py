"""The rules judge as a whole: the Judge interface, its replies, and its figures on the
labelled sets. (design.md §5, §13)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from jev.base.domain import JudgeSettings, Material
from jev.judges import create_judge
from jev.judges.rules import RULE_IDS, RulesJudge, explain
from jev.pipeline.material import number
from jev.pipeline.parse import parse_reply
from tests.conftest import FIXTURES, REPO
from tests.judges.rules.helpers import DUMMY_INPUT, turn

sys.path.insert(0, str(REPO / "bench"))
import rules_accuracy


def _all_labelled() -> list[Path]:
    return sorted((FIXTURES / "cases").glob("*.json")) + sorted(
        (FIXTURES / "rules_extra").glob("*.json")
    )


def test_info_names_the_judge_heuristic() -> None:
    judge = RulesJudge()
    assert judge.info.provider == "rules"
    assert judge.info.model == "heuristic-v1"
    assert judge.info.heuristic is True


def test_registry_builds_the_rules_judge_from_default_settings() -> None:
    judge = create_judge(JudgeSettings())
    try:
        assert isinstance(judge, RulesJudge)
    finally:
        judge.close()


def test_ask_returns_a_reply_the_core_parser_accepts() -> None:
    numbering = turn(
        "Migrate the three cron jobs to Kubernetes CronJobs.",
        "Added `deploy/k8s/cronjob-a.yaml` and `deploy/k8s/cronjob-b.yaml`.",
        [
            ("CronJob for a", "completed"),
            ("CronJob for b", "completed"),
            ("CronJob for c", "pending"),
        ],
    )
    answer = RulesJudge().ask(DUMMY_INPUT, numbering)
    data = json.loads(answer.text)
    assert data["heuristic"] is True
    assert data["rule"] == "open-item"
    assert answer.model == "heuristic-v1"
    assert answer.usage is None
    verdict = parse_reply(answer.text, numbering)
    assert verdict.assessment == "omission"
    assert verdict.focus.id == "T3"
    assert verdict.focus.text == "CronJob for c"


def test_ask_twice_gives_the_same_text() -> None:
    numbering = turn("Fix it.", "All done.")
    judge = RulesJudge()
    assert judge.ask(DUMMY_INPUT, numbering).text == judge.ask(DUMMY_INPUT, numbering).text
    judge.close()
    judge.close()  # idempotent


def test_deterministic_same_material_same_text() -> None:
    data = json.loads((FIXTURES / "cases" / "contradiction-14-of-15-en-04.json").read_text())
    texts = {RulesJudge().ask(DUMMY_INPUT, number(Material.from_json(data))).text for _ in range(3)}
    assert len(texts) == 1


def test_from_settings_ignores_provider_options() -> None:
    judge = RulesJudge.from_settings(JudgeSettings(provider="rules", model="x", timeout_s=1))
    assert judge.info.heuristic


def test_complete_verdict_points_at_none() -> None:
    numbering = turn(
        "Add a `--json` flag to the report command.",
        "Added `--json` to `bin/report`; `pytest tests/test_report.py` → 6 passed.",
        [("Add --json flag", "completed"), ("Tests for both modes", "completed")],
    )
    hit = explain(numbering)
    assert (hit.assessment, hit.focus, hit.rule) == ("complete", "none", "no-rule-fired")
    assert parse_reply(hit.to_reply(), numbering).assessment == "complete"


@pytest.mark.parametrize("path", _all_labelled(), ids=lambda p: p.stem)
def test_reply_always_parses_and_focus_fits(path: Path) -> None:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    numbering = number(Material.from_json(data))
    hit = explain(numbering)
    assert hit.rule in RULE_IDS
    reply = json.loads(hit.to_reply())
    assert reply["heuristic"] is True and reply["rule"] == hit.rule
    verdict = parse_reply(hit.to_reply(), numbering)  # same parser as any model
    assert verdict.assessment == hit.assessment
    assert verdict.focus.id == hit.focus
    assert hit.explanation


def test_corpus_precision_and_recall_thresholds() -> None:
    results = rules_accuracy.score_folder(FIXTURES / "cases")
    summary = rules_accuracy.summarize(results)
    assert summary.total >= 60
    assert summary.flag_precision is not None and summary.flag_precision >= 0.90
    assert summary.problem_recall is not None and summary.problem_recall >= 0.60
    assert summary.focus_hit_rate is not None and summary.focus_hit_rate >= 0.80


def test_extra_turns_precision_and_recall_thresholds() -> None:
    results = rules_accuracy.score_folder(FIXTURES / "rules_extra")
    summary = rules_accuracy.summarize(results)
    assert summary.total >= 15
    langs = {json.loads(p.read_text())["lang"] for p in (FIXTURES / "rules_extra").glob("*.json")}
    assert langs == {"en", "zh"}
    assert summary.flag_precision is not None and summary.flag_precision >= 0.85
    assert summary.problem_recall is not None and summary.problem_recall >= 0.60


def test_bench_table_lists_every_assessment_and_headline(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert rules_accuracy.main([str(FIXTURES / "cases")]) == 0
    out = capsys.readouterr().out
    for word in ("complete", "omission", "contradiction", "needs-user", "unknown"):
        assert f"| {word} |" in out
    for headline in ("accuracy", "flag precision", "problem recall", "focus hit rate"):
        assert headline in out
