"""The rules judge gives the same reply for the same material in separate processes.

Inside one warm process a set's iteration order never changes, so a determinism check
there cannot fail on hash-order dependence. Here two fresh interpreters with different
``PYTHONHASHSEED`` values judge the same labelled turns; their raw replies must be
identical, byte for byte.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.conftest import FIXTURES, REPO

_CHILD = """
import json, sys
from pathlib import Path
from jev.domain import JudgeInput, Material
from jev.judges.rules import RulesJudge
from jev.positions import number
judge = RulesJudge()
probe = JudgeInput("", "", "en", "")
out = []
for path in sys.argv[1:]:
    data = json.loads(Path(path).read_text("utf-8"))
    out.append(judge.ask(probe, number(Material.from_json(data))).text)
print(json.dumps(out))
"""


def _replies(seed: str, paths: list[str]) -> list[str]:
    env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(REPO)}
    proc = subprocess.run(
        [sys.executable, "-c", _CHILD, *paths],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        timeout=300,
        check=True,
    )
    replies: list[str] = json.loads(proc.stdout)
    return replies


def test_same_replies_under_different_hash_seeds() -> None:
    paths = [str(p) for p in sorted((FIXTURES / "cases").glob("*.json"))]
    first = _replies("1", paths)
    assert len(first) == len(paths) > 50
    assert _replies("2", paths) == first
    assert _replies("31337", paths) == first
