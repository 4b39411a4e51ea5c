"""``jev install`` sizes the Stop hook's timeout for the user's checks, and ``jev
doctor`` warns when an installed timeout is below what they need (issue 21). Real
``jev`` processes in a temporary HOME."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

JEV = Path(sys.executable).parent / "jev"


def _jev(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HOME": str(home), "JEV_HOME": str(home / ".jev")}
    return subprocess.run([str(JEV), *args], env=env, capture_output=True, text=True, timeout=60)


@pytest.mark.slow
def test_install_covers_the_checks_and_doctor_warns_when_they_outgrow_it(tmp_path: Path) -> None:
    (tmp_path / ".claude").mkdir()
    assert _jev(tmp_path, "settings", "set", "evidence.checks", '["pytest -q", "ruff check ."]')
    assert _jev(tmp_path, "install", "claude-code", "--enable").returncode == 0
    settings = json.loads((tmp_path / ".claude" / "settings.json").read_text())
    timeout = settings["hooks"]["Stop"][0]["hooks"][0]["timeout"]
    assert timeout == 210 + 2 * 120  # the judge's 210 s + two checks of 120 s
    quiet = _jev(tmp_path, "doctor", "--host", "claude-code")
    assert "evidence.checks" not in quiet.stdout + quiet.stderr
    _jev(tmp_path, "settings", "set", "evidence.check_timeout_s", "600")
    loud = _jev(tmp_path, "doctor", "--host", "claude-code")
    text = loud.stdout + loud.stderr
    assert "timeout of 450 s, below the 1410 s" in text, text
    assert "jev install claude-code" in text
