"""A measurement whose judge never answers says why and exits 3 (not 0)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from jev.cli import main
from tests.conftest import FIXTURES
from tests.fakeserver import closed_port

GOLDEN = FIXTURES / "golden" / "records.jsonl"


def test_eval_with_a_dead_judge_exits_3_with_the_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = tmp_path / "cases"
    cases.mkdir()
    for path in sorted((FIXTURES / "cases").glob("*.json"))[:2]:
        shutil.copy(path, cases)
    url = f"http://127.0.0.1:{closed_port()}/v1"
    code = main(
        [
            "eval",
            str(cases),
            "--judge",
            "openai",
            "--model",
            "m",
            "--base-url",
            url,
            "--technical-retries",
            "0",
        ]
    )
    out = capsys.readouterr()
    assert code == 3
    assert "incomplete (connection) ×2" in out.out and "could not connect" in out.out
    assert "no case got a verdict" in out.err


def test_live_replay_with_a_dead_judge_exits_3(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"http://127.0.0.1:{closed_port()}/v1"
    code = main(
        [
            "replay",
            "--live",
            str(GOLDEN),
            "--judge",
            "openai",
            "--model",
            "m",
            "--base-url",
            url,
            "--technical-retries",
            "0",
            "--out",
            str(tmp_path / "live.jsonl"),
        ]
    )
    assert code == 3
    assert "no verdict at all" in capsys.readouterr().err
