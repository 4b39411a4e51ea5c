"""Todo tools switched on at install (issue 8 item 4).

Claude Code: ``env.CLAUDE_CODE_ENABLE_TODO_TOOLS = "1"`` in the settings file Jev
writes its hooks to (hosts.md (Claude Code)). Codex: ``[tools.update_plan] enabled = true`` in
the scope's ``config.toml`` (hosts.md (Codex CLI)), edited with a style-preserving TOML library
so the user's comments stay. ``--no-todo-tools`` opts out, ``--dry-run`` shows it, and
``uninstall`` removes only what Jev added. Real files under temp HOME/CODEX_HOME.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from jev.cli import main

ENV = "CLAUDE_CODE_ENABLE_TODO_TOOLS"


@pytest.fixture(autouse=True)
def _homes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    monkeypatch.chdir(tmp_path)
    return home


def _settings(home: Path) -> dict:
    return json.loads((home / ".claude" / "settings.json").read_text(encoding="utf-8"))


def test_claude_code_install_enables_todo_tools_and_uninstall_takes_them_back(
    _homes: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["install", "claude-code", "--enable"]) == 0
    out = capsys.readouterr().out
    assert f'added env.{ENV} = "1" (Todo tools)' in out
    data = _settings(_homes)
    assert data["env"] == {ENV: "1"} and "Stop" in data["hooks"]
    assert main(["install", "claude-code"]) == 0  # idempotent
    assert "already up to date" in capsys.readouterr().out
    assert main(["uninstall", "claude-code"]) == 0
    assert not (_homes / ".claude" / "settings.json").exists()  # Jev created it: gone again


def test_a_user_setting_is_kept_on_uninstall_and_a_user_zero_is_left_alone(
    _homes: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _homes / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(json.dumps({"env": {ENV: "1", "OTHER": "x"}}), encoding="utf-8")
    assert main(["install", "claude-code"]) == 0
    assert main(["uninstall", "claude-code"]) == 0
    assert _settings(_homes) == {"env": {ENV: "1", "OTHER": "x"}}  # it was the user's

    path.write_text(json.dumps({"env": {ENV: "0"}}), encoding="utf-8")
    capsys.readouterr()
    assert main(["install", "claude-code"]) == 0
    out = capsys.readouterr().out
    assert f"already sets env.{ENV} to another value; Jev left it" in out
    assert _settings(_homes)["env"] == {ENV: "0"}


def test_no_todo_tools_and_dry_run(_homes: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["install", "claude-code", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert f'+  "env": {{\n+    "{ENV}": "1"' in out and "dry run" in out
    assert not (_homes / ".claude" / "settings.json").exists()
    assert main(["install", "claude-code", "--no-todo-tools"]) == 0
    assert "env" not in _settings(_homes)
    assert "--no-todo-tools" in capsys.readouterr().out


CODEX_CONFIG = """# my Codex settings
model = "gpt-5.5"  # the model I pay for

[features]
hooks = true

[tools]
web_search = true # keep this
"""


def test_codex_install_adds_update_plan_keeping_comments(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "codex" / "config.toml"
    config.parent.mkdir()
    config.write_text(CODEX_CONFIG, encoding="utf-8")
    assert main(["install", "codex", "--dry-run"]) == 0
    dry = capsys.readouterr().out
    assert "+[tools.update_plan]" in dry and "+enabled = true" in dry
    assert config.read_text(encoding="utf-8") == CODEX_CONFIG
    assert main(["install", "codex"]) == 0
    out = capsys.readouterr().out
    assert "tools.update_plan.enabled = true (plan tool update_plan)" in out
    text = config.read_text(encoding="utf-8")
    assert text.startswith(CODEX_CONFIG)  # every byte of the user's file, comments too
    assert "# the model I pay for" in text and "web_search = true # keep this" in text
    data = tomllib.loads(text)
    assert data["tools"] == {"web_search": True, "update_plan": {"enabled": True}}
    assert data["model"] == "gpt-5.5"
    assert "trust" in out  # Codex re-asks the user to trust a changed hook
    assert main(["uninstall", "codex"]) == 0
    assert config.read_text(encoding="utf-8") == CODEX_CONFIG


def test_codex_fresh_config_and_user_off_switch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "codex" / "config.toml"
    assert main(["install", "codex"]) == 0
    assert tomllib.loads(config.read_text(encoding="utf-8")) == {
        "tools": {"update_plan": {"enabled": True}}
    }
    assert main(["uninstall", "codex"]) == 0
    assert not config.exists() and not config.parent.exists()  # Jev created both

    config.parent.mkdir()
    config.write_text("tools.update_plan.enabled = false\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["install", "codex"]) == 0
    assert "Jev left it" in capsys.readouterr().out
    assert config.read_text(encoding="utf-8") == "tools.update_plan.enabled = false\n"
    assert main(["uninstall", "codex"]) == 0
    assert config.read_text(encoding="utf-8") == "tools.update_plan.enabled = false\n"


def test_invalid_codex_toml_is_refused_and_nothing_written(tmp_path: Path) -> None:
    config = tmp_path / "codex" / "config.toml"
    config.parent.mkdir()
    config.write_text("model = \n", encoding="utf-8")
    assert main(["install", "codex"]) == 2
    assert config.read_text(encoding="utf-8") == "model = \n"
    assert not (tmp_path / "codex" / "hooks.json").exists()
