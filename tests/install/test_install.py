"""Installers for Claude Code and Codex hook files (issue 4 item 4, item 5).

Real files in temp dirs; HOME, CLAUDE_CONFIG_DIR and CODEX_HOME point at temp dirs so
the real home is never touched. The CLI runs in-process through ``jev.cli.main``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jev.base.errors import UsageError
from jev.cli import main
from jev.hosts import install
from jev.settings.profiles import load_settings


@pytest.fixture(autouse=True)
def _fake_homes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.delenv("CODEX_HOME", raising=False)
    return home


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "proj"
    folder.mkdir()
    (folder / ".git").mkdir()  # a project has a marker (issue 10 item 6)
    monkeypatch.chdir(folder)
    return folder


OTHER_SETTINGS = {
    "model": "opus",
    "permissions": {"allow": ["Bash(ls:*)"]},
    "hooks": {
        "Stop": [
            {"hooks": [{"type": "command", "command": "python3 /opt/other-gate.py", "timeout": 30}]}
        ],
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "/opt/block-rm.sh"}]}
        ],
    },
}


def _jev_handlers(data: dict, event: str) -> list[dict]:
    return [
        h
        for group in data.get("hooks", {}).get(event, [])
        for h in group.get("hooks", [])
        if install.is_jev_handler(h)
    ]


def test_config_paths_follow_scope_and_env(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, project: Path
) -> None:
    assert install.config_path("claude-code", "project") == project / ".claude" / "settings.json"
    assert (
        install.config_path("claude-code", "local") == project / ".claude" / "settings.local.json"
    )
    assert install.config_path("claude-code", "user") == Path.home() / ".claude" / "settings.json"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "cc"))
    assert install.config_path("claude-code", "user") == tmp_path / "cc" / "settings.json"
    assert install.config_path("codex", "user") == Path.home() / ".codex" / "hooks.json"
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "cx"))
    assert install.config_path("codex", "user") == tmp_path / "cx" / "hooks.json"
    assert install.config_path("codex", "project") == project / ".codex" / "hooks.json"
    with pytest.raises(UsageError, match="scope 'local' is not available for codex"):
        install.config_path("codex", "local")
    with pytest.raises(UsageError, match="no installer"):
        install.config_path("opencode", "user")


def test_install_into_fresh_project_then_idempotent(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["install", "claude-code", "--scope", "project"]) == 0
    path = project / ".claude" / "settings.json"
    data = json.loads(path.read_text())
    stop = _jev_handlers(data, "Stop")
    start = _jev_handlers(data, "SessionStart")
    assert len(stop) == 1 and len(start) == 1
    exe = str(install.jev_executable())
    assert stop[0]["command"] == f"{exe} hook claude-code"
    assert start[0]["command"] == f"{exe} hook claude-code-session-start"
    # defaults: judge timeout 60 s, 1 technical retry -> 60*2 + 60 + 30
    assert stop[0]["timeout"] == 210
    out = capsys.readouterr().out
    assert "added Stop hook" in out and "added SessionStart hook" in out
    assert not list(path.parent.glob("*.jev-backup-*"))  # no previous file, no backup

    text = path.read_text()
    mtime = path.stat().st_mtime_ns
    assert main(["install", "claude-code", "--scope", "project"]) == 0
    assert "already up to date" in capsys.readouterr().out
    assert path.read_text() == text
    assert path.stat().st_mtime_ns == mtime
    assert not list(path.parent.glob("*.jev-backup-*"))


def test_install_keeps_other_keys_and_hooks_and_backs_up(project: Path) -> None:
    path = project / ".claude" / "settings.local.json"
    path.parent.mkdir()
    original = json.dumps(OTHER_SETTINGS, indent=4) + "\n"
    path.write_text(original)
    plan = install.plan_install("claude-code", "local")
    backup = install.apply_plan(plan)
    assert backup is not None and backup.read_text() == original
    data = json.loads(path.read_text())
    assert data["model"] == "opus" and data["permissions"] == OTHER_SETTINGS["permissions"]
    assert data["hooks"]["PreToolUse"] == OTHER_SETTINGS["hooks"]["PreToolUse"]
    # the other Stop gate stays first and untouched; Jev's group is appended
    assert data["hooks"]["Stop"][0] == OTHER_SETTINGS["hooks"]["Stop"][0]
    assert len(data["hooks"]["Stop"]) == 2
    assert path.read_text().startswith('{\n    "model"')  # indentation of the file kept

    # uninstall gives back exactly the original file: its own bytes, and no backup is left
    # (the install's backup equals it; issue 23 item 4)
    assert install.apply_plan(install.plan_uninstall("claude-code", "local")) is None
    assert path.read_text() == original
    assert not backup.exists()
    again = install.plan_uninstall("claude-code", "local")
    assert not again.changed and install.apply_plan(again) is None


def test_install_updates_stale_entry_in_place_and_drops_duplicates(project: Path) -> None:
    path = project / ".claude" / "settings.json"
    path.parent.mkdir()
    stale = {
        "type": "command",
        "command": "/old/venv/bin/jev hook claude-code",
        "timeout": 5,
        "statusMessage": "mine",
    }
    dup = {"type": "command", "command": "jev hook claude-code --profile x"}
    other = {"type": "command", "command": "echo jevons hook claude-code-ish"}
    path.write_text(json.dumps({"hooks": {"Stop": [{"hooks": [stale, other]}, {"hooks": [dup]}]}}))
    plan = install.plan_install("claude-code", "project", profile="web")
    assert any(line.startswith("updated Stop hook") for line in plan.changes)
    install.apply_plan(plan)
    data = json.loads(path.read_text())
    groups = data["hooks"]["Stop"]
    assert len(groups) == 1  # the group holding only a duplicate is gone
    first, second = groups[0]["hooks"]
    assert first["command"].endswith("hook claude-code --profile web")
    assert first["timeout"] == 210 and first["statusMessage"] == install.STATUS_MESSAGE
    assert second == other  # not a Jev handler: untouched


def test_invalid_json_is_refused_and_nothing_written(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = project / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text('{"model": "opus",\n  "hooks": {')
    assert main(["install", "claude-code", "--scope", "project"]) == 2
    err = capsys.readouterr().err
    assert "is not valid JSON (line 2" in err and "nothing was written" in err
    assert path.read_text() == '{"model": "opus",\n  "hooks": {'
    path.write_text('{"hooks": []}')
    assert main(["install", "claude-code", "--scope", "project"]) == 2
    assert '"hooks" is not an object' in capsys.readouterr().err


def test_dry_run_prints_diff_and_writes_nothing(
    project: Path, capsys: pytest.CaptureFixture[str], jev_home: Path
) -> None:
    path = project / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text('{"model": "opus"}\n')
    assert main(["install", "claude-code", "--scope", "project", "--enable", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"--- {path}\n+++ {path}\n")
    assert '+  "hooks": {' in out and "hook claude-code" in out
    assert "would enable" in out
    assert path.read_text() == '{"model": "opus"}\n'
    assert load_settings().enabled is False


def test_enable_flag_enables_profile(project: Path) -> None:
    assert main(["profiles", "create", "web"]) == 0
    assert load_settings("web").enabled is False
    assert (
        main(["install", "claude-code", "--scope", "project", "--profile", "web", "--enable"]) == 0
    )
    assert load_settings("web").enabled is True
    assert load_settings("default").enabled is False


def test_codex_user_install_respects_codex_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex-home"))
    assert main(["install", "codex"]) == 0
    path = tmp_path / "codex-home" / "hooks.json"
    data = json.loads(path.read_text())
    assert list(data["hooks"]) == ["Stop"]
    (handler,) = _jev_handlers(data, "Stop")
    assert handler["command"].endswith(" hook codex") and handler["timeout"] == 210
    assert "statusMessage" not in handler
    assert "trust" in capsys.readouterr().out
    assert main(["uninstall", "codex"]) == 0
    assert not path.exists()  # Jev created it and nothing else was in it


def test_timeout_follows_profile_judge_settings(project: Path) -> None:
    from jev.settings.profiles import save_settings

    save_settings("slow", {"judge.timeout_s": 100, "judge.technical_retries": 2})
    assert install.hook_timeout_s("slow") == 100 * 3 + 60 * 2 + 30


def test_command_quotes_paths_with_spaces(tmp_path: Path) -> None:
    exe = tmp_path / "my tools" / "jev"
    command = install.hook_command("codex", "p1", executable=exe)
    assert command == f"'{exe}' hook codex --profile p1"
    assert install.is_jev_handler({"type": "command", "command": command}, ("codex",))
    assert not install.is_jev_handler({"type": "command", "command": command}, ("claude-code",))


def test_project_scope_targets_the_repository_root_from_a_subfolder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    sub = repo / "src" / "pkg"
    sub.mkdir(parents=True)
    monkeypatch.chdir(sub)
    assert main(["install", "claude-code", "--scope", "project"]) == 0
    assert (repo / ".claude" / "settings.json").is_file()
    assert not (sub / ".claude").exists()
    assert "profile default is disabled" in capsys.readouterr().out


def test_missing_project_dir_is_refused(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no such folder"):
        install.config_path("claude-code", "project", tmp_path / "nope")
    assert (
        main(
            [
                "install",
                "claude-code",
                "--scope",
                "project",
                "--project-dir",
                str(tmp_path / "nope"),
            ]
        )
        == 2
    )
    assert not (tmp_path / "nope").exists()
