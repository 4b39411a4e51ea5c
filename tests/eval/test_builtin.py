"""``jev eval --builtin`` / ``--json FILE`` / ``--compare`` (issue 12 item 5): the
labelled turns ship with Jev, results are versioned files that compare side by side,
and the rules-judge table of docs/accuracy.md (moved there from README) is this
command's output."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from jev.cli import main
from jev.measure.benchmark import (
    BUILTIN_SETS,
    RESULT_SCHEMA,
    builtin_cases,
    corpus_version,
    sets_table,
)
from tests.conftest import REPO
from tests.fakeserver import FakeProvider, openai_completion


def _run(*args: str) -> int:
    return main(["eval", *args])


def test_every_builtin_set_ships_labelled_turns() -> None:
    named = builtin_cases()
    sets = {name for name, _ in named}
    assert sets == {name for name, _ in BUILTIN_SETS}
    assert len(named) > 300
    assert corpus_version().startswith("sha256:") and corpus_version() == corpus_version()
    assert corpus_version(["issue12"]) != corpus_version(["heldout4"])


def test_rules_result_file_is_versioned_and_compares_side_by_side(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    assert _run("--builtin", "--set", "issue12", "--judge", "rules", "--json", str(a)) == 0
    out = capsys.readouterr().out
    assert "| `issue12` |" in out and "tokens per audit" in out and f"written to {a}" in out
    data = json.loads(a.read_text(encoding="utf-8"))
    assert data["schema"] == RESULT_SCHEMA
    assert data["judge"] == {"provider": "rules", "model": "heuristic-v1", "heuristic": True}
    assert data["corpus"] == {
        "name": "builtin",
        "version": corpus_version(["issue12"]),
        "sets": ["issue12"],
    }
    fig = data["figures"]
    assert fig["turns"] == 7 and fig["exact"] == 1.0 and fig["kappa"] is not None
    assert set(fig["per_class"]) == {
        "complete",
        "omission",
        "contradiction",
        "needs-user",
        "unknown",
    }
    assert fig["tokens_per_audit"] == {"input": None, "output": None}  # offline judge
    est = fig["estimated_input_tokens"]
    assert 0 < est["rules"] < est["median"] and 0 < est["cacheable_share"] < 1
    assert _run("--builtin", "--set", "cases", "--judge", "rules", "--json", str(b)) == 0
    capsys.readouterr()
    assert _run("--compare", str(a), str(b)) == 0
    table = capsys.readouterr().out
    assert "a.json" in table and "b.json" in table and "different corpora" in table
    assert "exact verdict" in table and "flag precision" in table


def test_strict_schema_mode_through_the_builtin_benchmark(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def provider(body: dict[str, Any]) -> dict[str, Any]:
        schema = body["response_format"]["json_schema"]["schema"]
        assert body["response_format"]["json_schema"]["strict"] is True
        # a server other than OpenAI's own gets the per-verdict branches (issue 20)
        (branch,) = [
            b for b in schema["anyOf"] if b["properties"]["assessment"]["enum"] == ["unknown"]
        ]
        ids = branch["properties"]["focus"]["enum"]
        return openai_completion(
            json.dumps({"assessment": "unknown", "focus": ids[0], "confidence": 0.5}),
            prompt_tokens=900,
            completion_tokens=20,
        )

    out = tmp_path / "openai.json"
    with FakeProvider(default=provider) as fake:
        code = _run(
            *("--builtin", "--set", "issue12", "--judge", "openai", "--model", "m"),
            *("--base-url", fake.openai_base, "--api-key-env", "JEV_NO_KEY_SET"),
            *("--json", str(out)),
        )
        assert code == 0 and fake.count == 7
        assert all(r.json["response_format"]["type"] == "json_schema" for r in fake.requests)
    capsys.readouterr()
    fig = json.loads(out.read_text(encoding="utf-8"))["figures"]
    assert fig["verdicts"] == 7 and fig["response_error_rate"] == 0.0
    assert fig["tokens_per_audit"] == {"input": 900.0, "output": 20.0}
    assert fig["latency_ms"]["p50"] is not None


@pytest.mark.parametrize(
    "args",
    [
        (),
        ("--builtin", "somewhere"),
        ("--builtin",),  # no judge
        ("--builtin", "--set", "nope", "--judge", "rules"),
        ("somewhere", "--set", "cases", "--judge", "rules"),
    ],
)
def test_usage_errors_are_exit_2(args: tuple[str, ...], capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(*args) == 2
    capsys.readouterr()


def test_compare_refuses_a_file_that_is_no_result(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "x.json"
    bad.write_text('{"corpus": "x"}', encoding="utf-8")
    assert _run("--compare", str(bad)) == 2
    assert "not a Jev eval result" in capsys.readouterr().err


def test_readme_rules_table_is_the_builtin_benchmark_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The rules-judge table lives in docs/accuracy.md (README links it)."""
    out = tmp_path / "rules.json"
    assert _run("--builtin", "--judge", "rules", "--json", str(out)) == 0
    capsys.readouterr()
    table = sets_table(json.loads(out.read_text(encoding="utf-8")))
    accuracy = (REPO / "docs" / "accuracy.md").read_text(encoding="utf-8")
    assert table in accuracy, table
    assert "docs/accuracy.md" in (REPO / "README.md").read_text(encoding="utf-8")
