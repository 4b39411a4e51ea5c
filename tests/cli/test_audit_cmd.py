"""`jev audit` end to end (issue 2 items 7, 8 and "Done when").

Real files, a real subprocess for the console script, and a real OpenAI-compatible
HTTP server on 127.0.0.1 for the model-judge path.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from jev.base.domain import Material
from jev.cli import main
from jev.pipeline.material import number
from tests.conftest import FIXTURES, REPO
from tests.fakeserver import FakeProvider, openai_completion, running_provider
from tests.store.helpers import DbTarget

REAL = FIXTURES / "real"
CASES = sorted((FIXTURES / "cases").glob("*.json"))
KIND = {"request": "request", "todo": "todo", "answer": "answer", "none": "none", "whole": "all"}


def jev(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run the installed console script the way a user does."""
    exe = Path(sys.executable).parent / "jev"
    cmd = (
        [str(exe)]
        if exe.exists()
        else [sys.executable, "-c", "import sys; from jev.cli import main; sys.exit(main())"]
    )
    return subprocess.run(
        [*cmd, *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=120,
    )


def json_lines(out: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def test_example2_all_turns_audits_exactly_the_13_todo_turns() -> None:
    proc = jev(
        "audit",
        str(REAL / "claude-code-1.0.31_amac0-ClaudeStatus_example2.jsonl"),
        "--all-turns",
        "--json",
    )
    assert proc.returncode in (0, 4, 5), proc.stderr
    rows = json_lines(proc.stdout)
    assert len(rows) == 21
    audited = [r for r in rows if r["status"] == "verdict"]
    skipped = [r for r in rows if r["status"] == "skipped"]
    assert len(audited) == 13 and len(skipped) == 8
    reasons = sorted(str(r["reason"]) for r in skipped)
    assert reasons.count("no Todo use in this turn") == 7
    assert reasons.count("ended by a user interrupt") == 1
    assert rows[0]["status"] == "verdict"  # the /init turn: its request is the expanded prompt
    for r in audited:
        assert r["judge"] == {"provider": "rules", "model": "heuristic-v1", "heuristic": True}
        assert r["focus"] is not None and r["input_chars"] is not None


@pytest.mark.slow
@pytest.mark.parametrize("path", sorted(REAL.glob("*.jsonl")), ids=lambda p: p.name[:40])
def test_every_real_session_runs_with_a_sensible_status(path: Path) -> None:
    proc = jev("audit", str(path), "--all-turns", "--json", "--no-record")
    assert proc.returncode in (0, 3, 4, 5), proc.stderr
    assert "Traceback" not in proc.stderr
    rows = json_lines(proc.stdout)
    assert rows, proc.stdout
    for r in rows:
        assert r["status"] in ("verdict", "skipped", "incomplete")
        if r["status"] != "verdict":
            assert r["reason"], r


def test_human_output_names_the_heuristic_judge_and_budget() -> None:
    proc = jev("audit", str(REPO / "examples" / "turn-omission.json"))
    assert proc.returncode == 4
    assert "omission" in proc.stdout
    assert "heuristic" in proc.stdout and "no model configured" in proc.stdout
    assert "of 24,000 characters" in proc.stdout


@pytest.mark.parametrize(
    "case, code",
    [
        ("complete-bugfix-parse-duration-en-01.json", 0),
        ("omission-no-tests-en-08.json", 4),
        ("contradiction-build-verified-en-01.json", 4),
        ("unknown-all-done-en-01.json", 4),
        ("needs-user-force-push-en-02.json", 5),
    ],
)
def test_exit_codes_follow_the_verdict(case: str, code: int) -> None:
    assert main(["audit", str(FIXTURES / "cases" / case), "--no-record"]) == code


def test_over_budget_is_exit_3_with_both_numbers(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["audit", str(CASES[0]), "--evidence-chars", "500", "--json"])
    assert code == 3
    row = json.loads(capsys.readouterr().out)
    assert row["status"] == "incomplete" and row["error_kind"] == "over-budget"
    assert row["budget_chars"] == 500 and row["input_chars"] > 500


def test_usage_errors_are_exit_2(tmp_path: Path) -> None:
    assert jev("audit", str(tmp_path / "nope.jsonl")).returncode == 2
    assert jev("audit", str(CASES[0]), "--evidence-chars", "0").returncode == 2
    assert jev("audit", str(CASES[0]), "--judge", "no-such-judge").returncode == 2
    bad = tmp_path / "bad.json"
    bad.write_text('{"request": "not a list"}')
    proc = jev("audit", str(bad))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr


def test_material_missing_is_exit_3() -> None:
    rollout = REAL / "codex-0.104.0-alpha.1_madshn-localpush_019c8a59.jsonl"
    proc = jev("audit", str(rollout), "--turn", "10", "--json")
    assert proc.returncode == 3, proc.stdout + proc.stderr
    (row,) = json_lines(proc.stdout)
    assert row["status"] == "incomplete" and row["error_kind"] == "material-missing"


def _focus_id(case: dict[str, object]) -> str:
    expected = case["expected"]
    assert isinstance(expected, dict)
    focus = expected["focus"]
    kind = KIND[focus["kind"]]
    if kind in ("none", "all"):
        return kind
    numbering = number(Material.from_json(case))
    for p in numbering.of_kind(kind):
        if focus["contains"] in p.text:
            return p.id
    raise AssertionError(f"no {kind} position contains {focus['contains']!r}")


@pytest.mark.slow
def test_openai_judge_over_http_returns_labelled_verdicts_for_every_case(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 2 "Done when": a local OpenAI-compatible server scripted with each case's
    labelled answer gives back that assessment and a quote containing the substring."""
    monkeypatch.setenv("JEV_TEST_KEY", "sk-SENTINEL-do-not-leak-42")
    with running_provider() as server:
        assert isinstance(server, FakeProvider)
        for path in CASES:
            case = json.loads(path.read_text(encoding="utf-8"))
            reply = {
                "assessment": case["expected"]["assessment"],
                "focus": _focus_id(case),
                "confidence": 0.9,
            }
            server.script(openai_completion("```json\n" + json.dumps(reply) + "\n```"))
            code = main(
                [
                    "audit",
                    str(path),
                    "--judge",
                    "openai",
                    "--model",
                    "m",
                    "--base-url",
                    server.openai_base,
                    "--api-key-env",
                    "JEV_TEST_KEY",
                    "--json",
                ]
            )
            out = capsys.readouterr()
            row = json.loads(out.out)
            assert row["status"] == "verdict", (path.name, row)
            assert row["assessment"] == case["expected"]["assessment"], path.name
            contains = case["expected"]["focus"]["contains"]
            if contains:
                assert contains in row["focus"]["quote"], path.name
            assert code in (0, 4, 5)
            assert "sk-SENTINEL" not in out.out + out.err
        assert server.count == len(CASES)  # exactly one call per audit
        sent = server.requests[0]
        assert sent.headers["authorization"] == "Bearer sk-SENTINEL-do-not-leak-42"
        messages = sent.json["messages"]
        assert [m["role"] for m in messages] == ["system", "user"]
        assert sent.json["temperature"] == 0


def test_judge_down_is_incomplete_exit_3_and_key_never_printed(
    tmp_path: Path, jev_home: Path
) -> None:
    from tests.fakeserver import closed_port

    env = {"JEV_TEST_KEY": "sk-SENTINEL-down-77"}
    proc = jev(
        "audit",
        str(CASES[0]),
        "--judge",
        "openai",
        "--base-url",
        f"http://127.0.0.1:{closed_port()}/v1",
        "--api-key-env",
        "JEV_TEST_KEY",
        "--model",
        "m",
        env=env,
    )
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert "audit incomplete" in proc.stdout
    assert "sk-SENTINEL" not in proc.stdout + proc.stderr
    db = jev_home / "jev.sqlite3"
    assert db.exists() and b"sk-SENTINEL" not in db.read_bytes()


def test_wrong_explicit_format_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", str(REPO / "examples" / "turn-omission.json"), "--from", "codex"]) == 2
    assert "looks like a turn file" in capsys.readouterr().err
    example = REAL / "claude-code-1.0.31_amac0-ClaudeStatus_example.jsonl"
    assert main(["audit", str(example), "--from", "claude-code", "--no-record"]) == 0


def test_cli_records_send_nothing_and_runs_stay_separate(jev_home: Path, db: DbTarget) -> None:
    from jev.store import Store

    case = str(FIXTURES / "cases" / "omission-no-tests-en-08.json")
    assert jev("audit", case).returncode == 4
    assert jev("audit", case).returncode == 4
    records = Store(db(jev_home / "jev.sqlite3")).list_records()
    assert len(records) == 2
    assert len({r.session for r in records}) == 2  # one session per run: no merged chain
    for r in records:
        assert r.steer is False and r.supplement_text is None
        assert r.action["kind"] == "hand-to-user" and r.supplements_used == 0


def test_audit_reads_a_turn_or_a_transcript_from_stdin() -> None:
    exe = Path(sys.executable).parent / "jev"
    turn = (REPO / "examples" / "turn-omission.json").read_bytes()
    proc = subprocess.run(
        [str(exe), "audit", "-", "--json", "--no-record"], input=turn, capture_output=True
    )
    assert proc.returncode == 4 and json.loads(proc.stdout)["assessment"] == "omission"
    transcript = (REAL / "claude-code-1.0.31_amac0-ClaudeStatus_example.jsonl").read_bytes()
    proc = subprocess.run(
        [str(exe), "audit", "-", "--all-turns", "--json", "--no-record"],
        input=transcript,
        capture_output=True,
    )
    assert proc.returncode == 0 and len(proc.stdout.splitlines()) == 2
