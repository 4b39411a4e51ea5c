"""``jev audit`` and the evidence step (issue 21): ``--evidence/--no-evidence`` on a turn
file with ``runs``, and the user's checks only with ``--checks``. Real ``jev``
processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

JEV = Path(sys.executable).parent / "jev"
TURN = {
    "request": ["Rename the config key `timeout` to `timeout_s` in config.py."],
    "todos": [{"content": "Rename timeout to timeout_s in config.py", "status": "completed"}],
    "final_answer": "Renamed `timeout` to `timeout_s` in config.py and its two readers. "
    "All tests pass.",
}


def _jev(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "JEV_HOME": str(folder / ".jev")}
    return subprocess.run(
        [str(JEV), *args], cwd=folder, env=env, capture_output=True, text=True, timeout=120
    )


def test_evidence_flag_on_a_turn_file_with_runs(tmp_path: Path) -> None:
    red = {"command": "pytest -q", "exit_code": 1, "output": "1 failed, 7 passed in 0.2s\n"}
    path = tmp_path / "turn.json"
    path.write_text(json.dumps({**TURN, "runs": [red]}), encoding="utf-8")
    on = _jev(tmp_path, "audit", str(path), "--json", "--no-record")
    result = json.loads(on.stdout)
    assert on.returncode == 4 and result["assessment"] == "contradiction", on.stdout
    assert result["judge"]["provider"] == "evidence" and result["evidence"]["exit_code"] == 1
    off = _jev(tmp_path, "audit", str(path), "--json", "--no-record", "--no-evidence")
    assert json.loads(off.stdout)["assessment"] == "complete", off.stdout


@pytest.mark.slow
def test_checks_run_only_with_the_checks_flag(tmp_path: Path) -> None:
    (tmp_path / "test_x.py").write_text("def test_x():\n    assert 1 == 2\n", encoding="utf-8")
    path = tmp_path / "turn.json"
    path.write_text(json.dumps(TURN).replace(" All tests pass.", ""), encoding="utf-8")
    check = f'["{sys.executable} -m pytest -q -p no:cacheprovider"]'
    assert _jev(tmp_path, "settings", "set", "evidence.checks", check).returncode == 0
    plain = _jev(tmp_path, "audit", str(path), "--json", "--no-record")
    assert json.loads(plain.stdout)["assessment"] == "complete", plain.stdout
    checked = _jev(tmp_path, "audit", str(path), "--json", "--no-record", "--checks")
    result = json.loads(checked.stdout)
    assert result["assessment"] == "omission" and result["rule"] == "check-failed", result
    assert "1 failed" in result["evidence"]["quote"]
