"""``jev doctor`` reads the newest session of a :class:`HookFileInstaller` host the way
the hook would (issue 19 item 4), here Gemini CLI in a fake HOME: a chat file in a shape
this Jev does not read is one clear problem line (host, file, what to do) and exit 7; a
readable one is not a problem.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jev.cli import main

META = {"sessionId": "5d789c72", "projectHash": "0ded9b14", "startTime": "t", "kind": "main"}


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("GEMINI_MODEL", raising=False)
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    (tmp_path / "project").mkdir()
    monkeypatch.chdir(tmp_path / "project")
    assert main(["install", "gemini", "--enable"]) == 0
    return home


def _chat(home: Path, lines: list[object] | str) -> Path:
    path = (
        home / ".gemini" / "tmp" / "project" / "chats" / "session-2026-12-01T20-02-5d789c72.jsonl"
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    text = lines if isinstance(lines, str) else "".join(json.dumps(x) + "\n" for x in lines)
    path.write_text(text, encoding="utf-8")
    return path


def _doctor(capsys: pytest.CaptureFixture[str]) -> tuple[int, dict, str]:
    capsys.readouterr()
    code = main(["doctor", "--host", "gemini", "--json"])
    report = json.loads(capsys.readouterr().out)
    main(["doctor", "--host", "gemini"])
    return code, report, capsys.readouterr().out


@pytest.mark.parametrize(
    "content",
    [
        "{not json\n\x00\x01 binary garbage\n",  # not a chat file at all
        [META, {"id": "g1", "type": "gemini", "content": "Done."}],  # no request anywhere
        [{"session": "x", "turns": [{"role": "user", "text": "hi"}]}],  # a shape Jev lacks
    ],
    ids=["garbage", "no-request", "unknown-shape"],
)
def test_an_unreadable_newest_session_is_one_clear_problem(
    _home: Path, capsys: pytest.CaptureFixture[str], content: list[object] | str
) -> None:
    path = _chat(_home, content)
    code, report, text = _doctor(capsys)
    assert code == 7
    (host,) = report["hosts"]
    assert host["newest_session"] == str(path) and host["session_readable"] is False
    (problem,) = [p for p in report["problems"] if "cannot read" in p]
    assert problem.startswith(f"gemini: cannot read the newest session {path} (")
    assert problem.endswith("writes a format this Jev does not read: update Jev, or report it")
    assert "--from" not in problem and problem.count(str(path)) == 1  # audit's advice left out
    assert f"problem: {problem}" in text


def test_a_readable_newest_session_is_no_problem(
    _home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _chat(
        _home,
        [
            META,
            {"id": "u1", "type": "user", "content": [{"text": "Add the signup form."}]},
            {"id": "g1", "type": "gemini", "content": "Added it in src/signup.ts."},
        ],
    )
    code, report, _ = _doctor(capsys)
    (host,) = report["hosts"]
    assert host["newest_session"] == str(path) and host["session_readable"] is True
    assert code == 0, report["problems"]
