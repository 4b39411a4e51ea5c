"""`jev install HOST` makes the host's own model the profile's judge (issue 20 item 1,
"Default"): when the host's CLI is on PATH and the profile names no judge yet; never
over a judge the profile names; `--judge NAME` chooses; one line says which."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from jev.cli import main
from jev.settings.profiles import load_settings, save_settings


@pytest.fixture(autouse=True)
def _fake_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.delenv("CODEX_HOME", raising=False)
    return home


def _cli_on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    folder = tmp_path / "bin"
    folder.mkdir(exist_ok=True)
    program = folder / name
    program.write_text("#!/bin/sh\necho 9.9.9\n")
    program.chmod(program.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")


def test_the_host_model_becomes_the_judge_when_its_cli_is_there(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    jev_home: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _cli_on_path(tmp_path, monkeypatch, "codex")
    assert main(["install", "codex", "--enable"]) == 0
    out = capsys.readouterr().out
    assert "judge.provider = codex" in out and "about 1,000 tokens" in out
    assert load_settings(None).judge.provider == "codex"
    save_settings(None, {"judge.provider": "openai", "judge.model": "m"})
    assert main(["install", "codex"]) == 0  # a judge the profile names is kept
    assert "keeps its judge openai" in capsys.readouterr().out
    assert load_settings(None).judge.provider == "openai"
    assert main(["install", "codex", "--judge", "rules"]) == 0  # unless told
    assert load_settings(None).judge.provider == "rules"


def test_without_the_cli_the_offline_rules_judge_stays_and_nothing_is_written(
    jev_home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    assert main(["install", "codex", "--enable"]) == 0
    out = capsys.readouterr().out
    assert "judge rules (codex is not on PATH here" in out
    assert load_settings(None).judge.provider == "rules"
    profile = (jev_home / "profiles" / "default.toml").read_text("utf-8")
    assert "provider" not in profile  # a later install, with the CLI there, may choose


def test_an_unknown_judge_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["install", "codex", "--judge", "nope"]) == 2
    assert "unknown judge 'nope'" in capsys.readouterr().err
