"""Offline replay: golden records replay the same; every kind of change is reported."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jev.base.record import Record
from jev.cli import main
from jev.measure.replay import replay, replay_record
from jev.measure.replay_source import iter_jsonl
from jev.store import Store
from tests.replay.conftest import GOLDEN, golden_lines, run_jev, write_jsonl
from tests.replay.make_golden import generate
from tests.store.helpers import DbTarget

SUPPLEMENT_RULE = "Update the related Todo items; do not redo items that are already completed."


def _one(session: str, round_: int = 1) -> dict[str, object]:
    return next(r for r in golden_lines() if r["session"] == session and r["round"] == round_)


def test_golden_covers_every_verdict_error_and_chain() -> None:
    records = golden_lines()
    assessments = {r["assessment"] for r in records if r["status"] == "verdict"}
    assert assessments == {"complete", "omission", "contradiction", "needs-user", "unknown"}
    kinds = {r["error_kind"] for r in records if r["status"] == "incomplete"}
    assert {
        "reply-missing",
        "reply-malformed",
        "reply-schema",
        "unknown-assessment",
        "unknown-focus",
        "focus-mismatch",
        "over-budget",
        "connect",
    } <= kinds
    chain = [r for r in records if r["session"] == "chain-three-rounds"]
    assert [r["assessment"] for r in chain] == ["omission", "contradiction", "complete"]
    assert [r["action"]["kind"] for r in chain] == ["supplement", "supplement", "finish"]
    assert chain[-1]["loop_after"]["chain"] == ["omission", "contradiction", "complete"]
    assert {r["status"] for r in records} >= {"verdict", "incomplete", "cancelled"}


def test_golden_replays_clean_in_a_new_process() -> None:
    done = run_jev("replay", str(GOLDEN))
    assert done.returncode == 0, done.stdout + done.stderr
    total = len(golden_lines())
    assert f"{total} records · {total} same · 0 changed · 0 errors" in done.stdout


def test_generator_output_replays_clean(tmp_path: Path) -> None:
    out = tmp_path / "records.jsonl"
    count = generate(out)
    assert count == len(golden_lines())
    summary = replay(iter_jsonl(out))
    assert summary.ok and summary.same == count


def test_changed_supplement_rule_reports_exactly_the_supplement_records(
    prompts_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    template = prompts_copy / "supplement.en.j2"
    source = template.read_text("utf-8")
    assert SUPPLEMENT_RULE in source
    template.write_text(
        source.replace(SUPPLEMENT_RULE, "Update the related Todo items first."), "utf-8"
    )
    code = main(["replay", str(GOLDEN), "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 6
    changed = {(p["session"], p["round"]) for p in report["problems"]}
    expected = {
        (r["session"], r["round"])
        for r in golden_lines()
        if r["action"]["kind"] == "supplement" and r["language"] == "en"
    }
    assert changed == expected and len(expected) >= 7
    for problem in report["problems"]:
        assert [d["field"] for d in problem["differences"]] == ["supplement_text"]
        diff = problem["differences"][0]
        assert SUPPLEMENT_RULE in diff["stored"]
        assert "Update the related Todo items first." in diff["replayed"]
    assert report["changed"] == len(expected) and report["errors"] == 0

    template.write_text(source, "utf-8")
    import jev.pipeline.render

    jev.pipeline.render._environment.cache_clear()
    jev.pipeline.render._source_in.cache_clear()
    assert main(["replay", str(GOLDEN)]) == 0
    assert "0 changed" in capsys.readouterr().out


def test_parser_change_shows_both_sides(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = _one("verdict-omission")
    record["raw_replies"] = ['{"assessment": "omission", "focus": "R1"}']
    path = write_jsonl(tmp_path / "r.jsonl", [record])
    assert main(["replay", str(path)]) == 6
    out = capsys.readouterr().out
    assert "CHANGED verdict-omission/verdict-omission-turn/round 1" in out
    assert "focus.id:\n    stored:   T3\n    replayed: R1" in out
    assert "1 records · 0 same · 1 changed · 0 errors" in out


def test_reply_now_invalid_becomes_incomplete() -> None:
    data = _one("verdict-complete")
    data["raw_replies"] = ['{"assessment": "complete", "focus": "all"}']  # focus-mismatch
    diffs = {d.field: d for d in replay_record(Record.from_json(data))}
    assert diffs["status"].stored == "verdict" and diffs["status"].replayed == "incomplete"
    assert diffs["error_kind"].replayed == "focus-mismatch"
    assert diffs["action.kind"].stored == "finish" and diffs["action.kind"].replayed == "incomplete"


def test_error_kind_change_is_reported() -> None:
    data = _one("error-reply-schema")
    data["raw_replies"] = ["not json at all"]
    diffs = {d.field: d for d in replay_record(Record.from_json(data))}
    assert set(diffs) == {"error_kind"}
    assert (diffs["error_kind"].stored, diffs["error_kind"].replayed) == (
        "reply-schema",
        "reply-malformed",
    )


def test_transport_failure_keeps_its_stored_kind() -> None:
    assert replay_record(Record.from_json(_one("judge-down"))) == ()


def test_over_budget_record_rechecks_the_budget() -> None:
    data = _one("over-budget")
    assert replay_record(Record.from_json(data)) == ()
    data["budget_chars"] = 1_000_000
    diffs = replay_record(Record.from_json(data))
    assert [d.field for d in diffs] == ["status"]
    assert "within budget" in diffs[0].replayed


def test_loop_change_is_reported() -> None:
    data = _one("exhausted", 2)
    data["max_supplements"] = 2  # as if the loop now allowed a second supplement
    fields = [d.field for d in replay_record(Record.from_json(data))]
    assert fields == ["action.kind", "action.round", "loop_after"]


def test_cancelled_and_unreadable_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cancelled = _one("cancelled", 2)
    assert replay_record(Record.from_json(cancelled)) == ()
    path = tmp_path / "mixed.jsonl"
    path.write_text(
        json.dumps(cancelled) + "\n\n{not json\n" + json.dumps({"id": 1}) + "\n", "utf-8"
    )
    assert main(["replay", str(path)]) == 6
    out = capsys.readouterr().out
    assert "3 records · 1 same · 0 changed · 2 errors" in out
    assert f"{path}:3: not valid JSON" in out
    assert f"{path}:4: not a Jev record" in out


def test_unsent_supplement_compares_the_action_only() -> None:
    data = _one("verdict-omission")
    data["supplement_text"] = None  # like `jev audit`: decided, never sent
    assert replay_record(Record.from_json(data)) == ()
    data["raw_replies"] = ['{"assessment": "complete", "focus": "none"}']
    fields = [d.field for d in replay_record(Record.from_json(data))]
    assert "action.kind" in fields and "supplement_text" not in fields


def test_schema_check_is_opt_in(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = _one("cancelled", 2)
    record["round"] = 0  # convertible, but the record schema wants round >= 1
    path = write_jsonl(tmp_path / "r.jsonl", [record])
    assert main(["replay", str(path)]) == 0
    capsys.readouterr()
    assert main(["replay", str(path), "--validate"]) == 6
    assert "round: 0 is less than the minimum of 1" in capsys.readouterr().out


def test_folder_source_and_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "exports"
    (folder / "sub").mkdir(parents=True)
    lines = golden_lines()
    write_jsonl(folder / "a.jsonl", lines[:5])
    write_jsonl(folder / "sub" / "b.jsonl", lines[5:])
    assert main(["replay", str(folder)]) == 0
    assert f"{len(lines)} records · {len(lines)} same" in capsys.readouterr().out
    assert main(["replay", str(tmp_path / "missing.jsonl")]) == 2
    assert main(["replay"]) == 2
    assert main(["replay", str(folder), "--store"]) == 2
    assert main(["replay", str(folder), "--out", "x.jsonl"]) == 2


def test_store_source_with_session_filter(capsys: pytest.CaptureFixture[str], db: DbTarget) -> None:
    with Store() as store:
        report = store.import_report(GOLDEN)
    assert report.inserted == len(golden_lines())
    assert main(["replay", "--store", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["same"] == len(golden_lines())
    assert main(["replay", "--store", "--session", "chain-three-rounds", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["records"] == 3
    assert main(["replay", "--store", "--since", "7d", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["records"] == 0  # golden records are older
    assert main(["replay", "--store", "--since", "2026-01-01"]) == 0
    assert main(["replay", "--store", "--since", "yesterday-ish"]) == 2
