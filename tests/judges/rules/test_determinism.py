"""The rules judge gives the same reply for the same material in separate processes.

Inside one warm process a set's iteration order never changes, so a determinism check
there cannot fail on hash-order dependence. Here three fresh interpreters with different
``PYTHONHASHSEED`` values judge the same labelled turns (both development rounds, English
and Chinese); their raw replies must be identical, byte for byte. Each child also reports
its own ``hash()`` of a fixed string, and the test checks that the three differ: the
children really ran with different hash seeds (an environment that dropped the variable,
or a judge run in this process, would fail here rather than pass unseen).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.conftest import FIXTURES, REPO

_CHILD = """
import json, sys
from pathlib import Path
from jev.base.domain import JudgeInput, Material
from jev.judges.rules import RulesJudge
from jev.pipeline.material import number
judge = RulesJudge()
probe = JudgeInput("", "", "en", "")
out = []
for path in sys.argv[1:]:
    data = json.loads(Path(path).read_text("utf-8"))
    out.append(judge.ask(probe, number(Material.from_json(data))).text)
print(json.dumps({"hash": hash("jev determinism probe"), "replies": out}))
"""

SEEDS = ("1", "2", "31337")


def _child(seed: str, paths: list[str]) -> tuple[int, list[str]]:
    """(the child's ``hash()`` of a fixed string, its replies) from a fresh interpreter."""
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
    out = json.loads(proc.stdout)
    return int(out["hash"]), list(out["replies"])


@pytest.mark.slow  # three fresh interpreters judge 105 turns
def test_same_replies_under_different_hash_seeds() -> None:
    paths = [
        str(p)
        for folder in ("cases", "cases_round2")
        for p in sorted((FIXTURES / folder).glob("*.json"))
    ]
    assert any("-zh-" in p for p in paths) and any("-en-" in p for p in paths)
    runs = [_child(seed, paths) for seed in SEEDS]
    hashes = {h for h, _ in runs}
    assert len(hashes) == len(SEEDS), "the children did not run under different hash seeds"
    first = runs[0][1]
    assert len(first) == len(paths) > 90
    for seed, (_, replies) in zip(SEEDS, runs, strict=True):
        assert replies == first, f"PYTHONHASHSEED={seed} changed a reply"
