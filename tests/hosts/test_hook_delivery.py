"""Deliver, then count — or count, and always deliver (issue 8 item 3).

The real ``jev hook`` command is run as a host runs it, with a scripted judge from the
profile. The answer must leave as UTF-8 bytes whatever the locale's encoding (a
Windows pipe's ``cp1252`` cannot encode an emoji or ``→``), and a supplement that
cannot be written must not stay counted.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from jev.settings.profiles import save_settings
from jev.store import Store
from tests.hosts_e2e.harness import ClaudeCodeSim

JEV = Path(sys.executable).parent / "jev"


def _setup(tmp_path: Path, replies: list[str]) -> tuple[ClaudeCodeSim, dict[str, str]]:
    script = tmp_path / "replies.json"
    script.write_text(json.dumps(replies), encoding="utf-8")
    save_settings(
        "default",
        {"enabled": True, "judge.provider": "scripted", "judge.technical_retries": 0},
    )
    sim = ClaudeCodeSim(tmp_path)
    sim.prompt("Ship the release 🚀 and update the changelog → docs.")
    sim.todo_write(("Tag the release 🚀", "completed"), ("Update changelog → docs", "pending"))
    sim.say("Released 🚀 v2 → done.")
    env = dict(os.environ, JEV_SCRIPTED_REPLIES=str(script), PYTHONIOENCODING="cp1252")
    return sim, env


def test_block_with_emoji_leaves_as_utf8_under_a_cp1252_locale(tmp_path: Path) -> None:
    sim, env = _setup(tmp_path, [json.dumps({"assessment": "omission", "focus": "T2"})])
    proc = subprocess.run(
        [str(JEV), "hook", "claude-code"],
        input=json.dumps(sim.payload()).encode("utf-8"),
        capture_output=True,
        env=env,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr.decode("utf-8", "replace")
    assert b"Traceback" not in proc.stderr
    answer = json.loads(proc.stdout.decode("utf-8"))
    assert answer["decision"] == "block"
    assert "Update changelog → docs" in answer["reason"]
    row = Store().list_records()
    assert [r.supplements_used for r in row] == [1]


def test_undeliverable_supplement_is_taken_back_and_recorded(tmp_path: Path) -> None:
    sim, env = _setup(tmp_path, [json.dumps({"assessment": "omission", "focus": "T2"})])
    read_end, write_end = os.pipe()
    os.close(read_end)  # the host is gone: writing the answer fails (EPIPE)
    proc = subprocess.run(
        [str(JEV), "hook", "claude-code"],
        input=json.dumps(sim.payload()).encode("utf-8"),
        stdout=write_end,
        stderr=subprocess.PIPE,
        env=env,
        timeout=60,
    )
    os.close(write_end)
    assert proc.returncode == 0, proc.stderr.decode("utf-8", "replace")
    assert b"Traceback" not in proc.stderr
    records = sorted(Store().list_records(), key=lambda r: r.id or 0)
    assert [r.status for r in records] == ["verdict", "incomplete"]
    assert records[-1].supplements_used == 0
    assert "could not be delivered" in (records[-1].reason or "")
    errors = (Path(env["JEV_HOME"]) / "hook-errors.jsonl").read_text(encoding="utf-8")
    assert "BrokenPipeError" in errors
