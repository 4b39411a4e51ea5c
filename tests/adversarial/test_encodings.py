"""Text in any encoding (issue 23 item 3), each case through a real ``jev`` subprocess.

* ``jev audit`` exits with its verdict's code (never 1) when stdout is cp1252, ASCII or
  the C locale cannot encode what it prints;
* ``jev audit -`` with a turn file nested 100,000 deep: a clear exit-2 message;
* U+2028/U+2029 are escaped in terminal output, like the other controls;
* a hook stdin that is not UTF-8 (GBK/cp936 from a Chinese Windows shell) is refused
  with a notice, or decoded when its encoding is named — never judged as mojibake;
* a locked SQLite store: ``jev audit`` prints its verdict with a notice that the
  record was not written.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from jev.base.terminal import json_visible, visible
from jev.settings.profiles import save_settings
from jev.store import Store
from tests.hosts_e2e.harness import JEV, ClaudeCodeSim

pytestmark = pytest.mark.skipif(not JEV.exists(), reason="console script not installed")

#: An unfinished turn whose text no legacy code page holds whole: exit 4 (omission).
TURN = {
    "request": ["Fix the bug → and update the docs 🎉 “quoted” 修复登录"],
    "todos": [
        {"content": "Fix the bug ✓", "status": "completed"},
        {"content": "Update the docs", "status": "pending"},
    ],
    "final_answer": "Fixed the bug → 🎉. Docs still to do.",
}


def jev(*args: str, stdin: bytes | None = None, env: dict[str, str] | None = None) -> Any:
    return subprocess.run(
        [str(JEV), *args],
        input=stdin,
        capture_output=True,
        env={**os.environ, **(env or {})},
        timeout=120,
    )


ENCODINGS = {
    "cp1252": {"PYTHONIOENCODING": "cp1252"},
    "ascii": {"PYTHONIOENCODING": "ascii"},
    "LANG=C": {
        "LANG": "C",
        "LC_ALL": "C",
        "PYTHONUTF8": "0",
        "PYTHONCOERCECLOCALE": "0",
        "PYTHONIOENCODING": "",
    },
}


@pytest.mark.parametrize("encoding", sorted(ENCODINGS))
@pytest.mark.parametrize("json_out", [False, True], ids=["human", "json"])
def test_jev_audit_exits_with_the_verdict_code_in_any_stdout_encoding(
    encoding: str, json_out: bool, tmp_path: Path
) -> None:
    path = tmp_path / "turn.json"
    path.write_text(json.dumps(TURN, ensure_ascii=False), "utf-8")
    extra = ["--json"] if json_out else []
    proc = jev("audit", str(path), "--no-record", *extra, env=ENCODINGS[encoding])
    assert proc.returncode == 4, proc.stderr
    assert b"omission" in proc.stdout
    assert b"Traceback" not in proc.stderr and b"UnicodeEncodeError" not in proc.stderr


@pytest.mark.parametrize(
    "document",
    [
        "[" * 100_000 + "]" * 100_000,
        '{"request": ' + "[" * 100_000 + "]" * 100_000 + "}",
    ],
    ids=["deep-array", "deep-request"],
)
def test_deeply_nested_turn_file_on_stdin_is_a_clear_usage_error(document: str) -> None:
    proc = jev("audit", "-", "--no-record", stdin=document.encode())
    assert proc.returncode == 2, proc.stderr
    message = proc.stderr.decode()
    assert "<stdin>" in message and "nested too deeply" in message, message
    assert "Traceback" not in message and "RecursionError" not in message


def test_line_and_paragraph_separators_are_escaped_in_terminal_output(tmp_path: Path) -> None:
    assert visible("a\u2028b\u2029c") == "a\\u2028b\\u2029c"
    assert json_visible('"a\u2028b"') == '"a\\u2028b"'
    turn = {**TURN, "todos": [{"content": "Update\u2028the docs\u2029now", "status": "pending"}]}
    path = tmp_path / "turn.json"
    path.write_text(json.dumps(turn, ensure_ascii=False), "utf-8")
    for extra in ([], ["--json"]):
        proc = jev("audit", str(path), "--no-record", *extra)
        assert proc.returncode == 4, proc.stderr
        out = proc.stdout.decode("utf-8")
        assert "\u2028" not in out and "\u2029" not in out
        assert "\\u2028" in out


# -- hook stdin that is not UTF-8 -------------------------------------------------------


def _gbk_turn(folder: Path) -> tuple[ClaudeCodeSim, dict[str, Any]]:
    """A Chinese turn whose answer admits unfinished work (a contradiction of the
    completed Todo items): read right, it blocks; read as mojibake it would pass."""
    sim = ClaudeCodeSim(folder)
    sim.prompt("修复登录错误并更新文档。")
    sim.todo_write(("修复登录错误", "completed"), ("更新文档", "completed"))
    sim.say("登录错误已修复。文档还没有更新，还没完成。")
    return sim, sim.payload()


def _hook(payload: bytes, env: dict[str, str] | None = None) -> tuple[int, dict[str, Any], str]:
    started = time.monotonic()
    proc = jev("hook", "claude-code", stdin=payload, env=env)
    assert time.monotonic() - started < 60
    out = proc.stdout.decode("utf-8")
    return proc.returncode, (json.loads(out) if out.strip() else {}), proc.stderr.decode()


def test_gbk_hook_stdin_is_refused_with_a_notice_never_judged(
    tmp_path: Path, jev_home: Path
) -> None:
    save_settings(None, {"enabled": True})
    sim, payload = _gbk_turn(tmp_path)
    code, answer, stderr = _hook(json.dumps(payload, ensure_ascii=False).encode("gbk"))
    assert code == 0, stderr
    assert answer.get("decision") != "block"
    assert "not UTF-8" in answer.get("systemMessage", "") and "JEV_HOOK_ENCODING" in str(answer)
    with Store() as store:  # nothing was judged: no record of mojibake
        assert store.list_records(session=sim.session_id) == []


def test_gbk_hook_stdin_is_decoded_when_its_encoding_is_named(
    tmp_path: Path, jev_home: Path
) -> None:
    save_settings(None, {"enabled": True})
    _sim, payload = _gbk_turn(tmp_path)
    data = json.dumps(payload, ensure_ascii=False).encode("gbk")
    code, answer, stderr = _hook(data, {"JEV_HOOK_ENCODING": "cp936"})
    assert code == 0, stderr
    assert answer.get("decision") == "block", answer
    assert "还没完成" in answer["reason"]  # the admission, read right


@pytest.mark.parametrize("codec", ["utf-16", "utf-8-sig"])
def test_hook_stdin_with_a_bom_is_decoded(codec: str, tmp_path: Path, jev_home: Path) -> None:
    save_settings(None, {"enabled": True})
    _sim, payload = _gbk_turn(tmp_path)
    code, answer, stderr = _hook(json.dumps(payload, ensure_ascii=False).encode(codec))
    assert code == 0, stderr
    assert answer.get("decision") == "block", answer


def test_non_utf8_stdin_of_a_disabled_profile_says_nothing(tmp_path: Path, jev_home: Path) -> None:
    _sim, payload = _gbk_turn(tmp_path)
    code, answer, stderr = _hook(json.dumps(payload, ensure_ascii=False).encode("gbk"))
    assert (code, answer, stderr) == (0, {}, "")


# -- a locked SQLite store ------------------------------------------------------------------

_LOCKER = r"""
import sqlite3, sys, time
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN EXCLUSIVE")
print("locked", flush=True)
time.sleep(float(sys.argv[2]))
"""


@pytest.mark.slow
def test_locked_sqlite_store_still_gives_the_verdict_with_a_notice(
    tmp_path: Path, jev_home: Path
) -> None:
    path = tmp_path / "turn.json"
    path.write_text(json.dumps(TURN, ensure_ascii=False), "utf-8")
    Store().close()  # the database exists
    locker = subprocess.Popen(
        [sys.executable, "-c", _LOCKER, str(jev_home / "jev.sqlite3"), "40"],
        stdout=subprocess.PIPE,
    )
    try:
        assert locker.stdout is not None and locker.stdout.readline() == b"locked\n"
        started = time.monotonic()
        proc = jev("audit", str(path))
        elapsed = time.monotonic() - started
    finally:
        locker.kill()
        locker.wait(timeout=10)
    assert proc.returncode == 4, proc.stderr
    assert b"omission" in proc.stdout
    stderr = proc.stderr.decode()
    assert "record was not written" in stderr and "locked" in stderr, stderr
    assert elapsed < 30
