"""``jev doctor`` (issue 8 item 5): real files under a temp HOME, the CLI in-process and
the real hook as a subprocess for the "last audit" line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jev.cli import main
from jev.settings.profiles import save_settings
from tests.hosts_e2e.harness import ClaudeCodeSim


@pytest.fixture(autouse=True)
def _homes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.delenv("CODEX_HOME", raising=False)
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # no claude or codex program
    monkeypatch.chdir(tmp_path)
    return home


def _report(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict]:
    capsys.readouterr()
    code = main(["doctor", "--json", *argv])
    return code, json.loads(capsys.readouterr().out)


def test_empty_home_exits_7_naming_the_missing_pieces(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["doctor"]) == 7
    out = capsys.readouterr().out
    assert (
        "problem: claude-code: Jev's stop hook is not installed; "
        "run `jev install claude-code --enable`" in out
    )
    assert (
        "problem: codex: Jev's stop hook is not installed; run `jev install codex --enable`" in out
    )
    assert "Todo tool may be off" in out
    assert (
        "problem: profile default is disabled, so the hooks audit nothing; run `jev enable`" in out
    )


def test_install_then_doctor_is_green_and_shows_the_last_audit(
    tmp_path: Path, _homes: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["install", "claude-code", "--enable"]) == 0
    code, report = _report(capsys)
    assert code == 0 and report["ok"] is True and report["problems"] == []
    (host,) = report["hosts"]  # codex is not on this machine: not checked
    assert host["host"] == "claude-code" and host["found"] is True
    assert host["hooks"] == {"user": str(_homes / ".claude" / "settings.json")}
    assert host["todo_tools"] is True and host["last_audit"] is None
    assert report["profile"] == {"name": "default", "enabled": True}
    assert report["judge"]["provider"] == "rules" and report["store"]["exists"] is False

    sim = ClaudeCodeSim(tmp_path)  # the real hook, rules judge: one audit recorded
    sim.prompt("Fix the login bug and add a test.")
    sim.todo_write(("Fix the login bug", "completed"), ("Add a test", "completed"))
    sim.say("Fixed the login bug in auth.py and added test_login; pytest: 12 passed.")
    assert sim.stop().code == 0
    code, report = _report(capsys, "--host", "claude-code")
    assert code == 0 and report["store"]["ok"] is True
    assert report["hosts"][0]["last_audit"]["status"] == "verdict"
    assert main(["doctor"]) == 0
    assert "everything is in place." in capsys.readouterr().out


def test_a_hook_pointing_at_a_missing_jev_is_a_problem(
    _homes: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["install", "claude-code", "--enable"]) == 0
    path = _homes / ".claude" / "settings.json"
    data = json.loads(path.read_text())
    stop = data["hooks"]["Stop"][0]["hooks"][0]
    stop["command"] = "/nowhere/bin/jev hook claude-code"
    path.write_text(json.dumps(data))
    code, report = _report(capsys, "--host", "claude-code")
    assert code == 7 and report["hosts"][0]["executable_ok"] is False
    assert any("/nowhere/bin/jev, which does not exist" in p for p in report["problems"])


def test_judge_key_variable_is_named_never_its_value(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["install", "claude-code", "--enable"]) == 0
    save_settings(None, {"judge.provider": "openai", "judge.api_key_env": "JEV_TEST_KEY"})
    monkeypatch.delenv("JEV_TEST_KEY", raising=False)
    code, report = _report(capsys)
    assert code == 7 and report["judge"]["key_env"] == "JEV_TEST_KEY"
    assert report["judge"]["key_set"] is False
    assert any("JEV_TEST_KEY, which is not set" in p for p in report["problems"])
    monkeypatch.setenv("JEV_TEST_KEY", "sk-secret-value-123")
    assert main(["doctor"]) == 0
    out = capsys.readouterr().out
    assert "key JEV_TEST_KEY set" in out and "sk-secret-value-123" not in out


def test_unknown_host_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["doctor", "--host", "nope"]) == 2
    assert "jev doctor knows the hosts with an installer" in capsys.readouterr().err
