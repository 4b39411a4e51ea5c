"""Codex hook trust, the install notes and the newest rollout in ``jev doctor`` (issue 19
item 4; :mod:`jev.hosts.codex.trust`). The real Codex CLI runs the same paths in
``tests/hosts_real/test_codex.py``; these are the fast, in-process checks."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from jev.cli import main
from jev.hosts.codex.trust import hook_trust_hash, newest_rollout
from tests.conftest import SHARED

HAND = Path(__file__).resolve().parent.parent / "fixtures" / "hand"


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("JEV_HOME", str(home / ".jev"))
    monkeypatch.delenv("CODEX_HOME", raising=False)
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    monkeypatch.chdir(project)
    return home


def _doctor(capsys: pytest.CaptureFixture[str]) -> tuple[int, dict]:
    capsys.readouterr()
    code = main(["doctor", "--host", "codex", "--json"])
    (report,) = json.loads(capsys.readouterr().out)["hosts"]
    return code, report


def _trust(home: Path, hooks_json: Path, trusted_hash: str, extra: str = "") -> None:
    config = home / ".codex" / "config.toml"
    config.write_text(
        (config.read_text() if config.exists() else "")
        + f'\n[hooks.state."{hooks_json}:stop:0:0"]\ntrusted_hash = "{trusted_hash}"\n{extra}'
    )


def test_hash_equals_what_the_real_tui_wrote() -> None:
    # Codex 0.169.0's "Trust all and continue" stored this for this handler (measured).
    handler = {"type": "command", "command": "/tmp/venv/bin/jev hook codex", "timeout": 210}
    assert hook_trust_hash(handler) == (
        "sha256:00e021c534c6c47420108ae349f54fc945d20c028a10ae4ca958a72331060a48"
    )
    assert hook_trust_hash({**handler, "timeout": 211}) != hook_trust_hash(handler)
    # no timeout: Codex's default of 600 s
    assert hook_trust_hash({"command": "x"}) == hook_trust_hash({"command": "x", "timeout": 600})


def test_install_says_how_to_trust(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["install", "codex", "--enable"]) == 0
    out = capsys.readouterr().out
    assert '"Hooks need review"' in out and "--dangerously-bypass-hook-trust" in out
    assert "codex exec --trust" not in out  # user scope: no project condition
    assert main(["install", "codex", "--scope", "project"]) == 0
    assert "codex exec --trust" in capsys.readouterr().out


def test_doctor_untrusted_then_trusted_then_changed_then_disabled(
    _home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["install", "codex", "--enable"]) == 0
    hooks_json = _home / ".codex" / "hooks.json"
    code, report = _doctor(capsys)
    (problem,) = report["problems"]
    assert code != 0 and "is untrusted" in problem and "Hooks need review" in problem
    handler = json.loads(hooks_json.read_text())["hooks"]["Stop"][0]["hooks"][0]
    config = (_home / ".codex" / "config.toml").read_text()

    _trust(_home, hooks_json, hook_trust_hash(handler))
    code, report = _doctor(capsys)
    assert code == 0 and report["problems"] == [], report

    (_home / ".codex" / "config.toml").write_text(config)
    _trust(_home, hooks_json, hook_trust_hash({**handler, "timeout": 5}))
    _, report = _doctor(capsys)
    assert "changed since it was trusted" in report["problems"][0]

    (_home / ".codex" / "config.toml").write_text(config)
    _trust(_home, hooks_json, hook_trust_hash(handler), "enabled = false\n")
    _, report = _doctor(capsys)
    assert "is disabled in Codex" in report["problems"][0]


def test_doctor_project_scope_needs_a_trusted_project(
    _home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["install", "codex", "--scope", "project", "--enable"]) == 0
    project = Path.cwd()
    hooks_json = project / ".codex" / "hooks.json"
    handler = json.loads(hooks_json.read_text())["hooks"]["Stop"][0]["hooks"][0]
    _trust(_home, hooks_json, hook_trust_hash(handler))
    _, report = _doctor(capsys)
    assert any("is not trusted" in p and "codex exec --trust" in p for p in report["problems"])
    config = _home / ".codex" / "config.toml"
    config.write_text(f'[projects."{project}"]\ntrust_level = "trusted"\n' + config.read_text())
    _, report = _doctor(capsys)
    assert not any("trusted" in p for p in report["problems"]), report["problems"]


def test_newest_rollout_and_doctor_reading_it(
    _home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sessions = _home / ".codex" / "sessions"
    assert newest_rollout(sessions) is None
    old = sessions / "2026" / "11" / "30" / "rollout-2026-11-30T10-00-00-a.jsonl"
    new = sessions / "2026" / "12" / "01" / "rollout-2026-12-01T10-00-00-b.jsonl"
    for path in (old, new):
        path.parent.mkdir(parents=True)
        shutil.copy(HAND / "codex-0169-items.jsonl", path)
    os.utime(new, (old.stat().st_mtime + 60,) * 2)
    assert newest_rollout(sessions) == new
    os.utime(old, (new.stat().st_mtime + 60,) * 2)  # a resumed old session: written last
    assert newest_rollout(sessions) == old
    os.utime(new, (old.stat().st_mtime + 60,) * 2)
    assert main(["install", "codex", "--enable"]) == 0
    _, report = _doctor(capsys)
    assert report["newest_session"] == str(new) and report["session_readable"] is True

    # the 0.169 layout as the reader before the fix saw it: no turn has its request
    new.write_text(new.read_text().replace('"UserMessage"', '"UserMessageNext"'))
    os.utime(new, (old.stat().st_mtime + 60,) * 2)
    _, report = _doctor(capsys)
    assert report["session_readable"] is False
    assert any(f"cannot read the newest rollout {new}" in p for p in report["problems"])


def test_real_0169_rollout_is_readable_by_doctor(
    _home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    real = SHARED / "real" / "codex-0.169.0_scripted-model_blocked-turn.jsonl"
    if not real.is_file():
        pytest.skip(f"{real} is not there")
    day = _home / ".codex" / "sessions" / "2026" / "12" / "01"
    day.mkdir(parents=True)
    shutil.copy(real, day / "rollout-2026-12-01T19-56-26-01a2332e.jsonl")
    assert main(["install", "codex", "--enable"]) == 0
    _, report = _doctor(capsys)
    assert report["session_readable"] is True
