"""README's adversarial-suite figure is the suite's own count (issue 11 item 7).

``bench/hostile_inputs.py --collect-only`` counts the bad inputs pytest collects under
``tests/adversarial`` by area (a fuzzer counts its ``max_examples``); the table of
docs/adversarial.md must show exactly those areas and counts, and README their total.
Its "end cleanly" column must equal the count: every one of those cases asserts a
clean end, so the claim holds exactly when the suite passes (CI runs it;
``python bench/hostile_inputs.py`` prints both columns from a real run).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.conftest import REPO

HEADER = "| area | bad inputs | end cleanly |"


def _bench_counts() -> dict[str, Any]:
    proc = subprocess.run(
        [sys.executable, str(REPO / "bench" / "hostile_inputs.py"), "--collect-only", "--json"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    counts: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return counts


def _readme_rows() -> list[tuple[str, int, int]]:
    text = (REPO / "docs" / "adversarial.md").read_text("utf-8")
    assert text.count(HEADER) == 1, "docs/adversarial.md must hold the table exactly once"
    block = text.split(HEADER, 1)[1].strip().splitlines()[1:]  # skip |---|
    rows: list[tuple[str, int, int]] = []
    for line in block:
        if not line.startswith("|"):
            break
        label, bad, clean = (c.strip().strip("*") for c in line.strip("|").split("|"))
        rows.append((label, int(bad), int(clean)))
    return rows


def test_readme_table_is_the_suites_count() -> None:
    counts = _bench_counts()
    rows = _readme_rows()
    expected = [(a["label"], a["bad"]) for a in counts["areas"]]
    expected.append(("total", counts["total"]["bad"]))
    assert [(label, bad) for label, bad, _ in rows] == expected
    # Every bad input ends cleanly: the claim the passing suite proves.
    assert all(bad == clean for _, bad, clean in rows), rows
    assert sum(bad for label, bad, _ in rows if label != "total") == counts["total"]["bad"]
    readme = (REPO / "README.md").read_text("utf-8").replace("\n", " ")
    areas = len(rows) - 1
    assert f"{counts['total']['bad']} bad inputs in {areas} areas" in readme, "README's figure"


def test_an_unclassified_adversarial_test_stops_the_count(tmp_path: Path) -> None:
    suite = tmp_path / "adversarial"
    suite.mkdir()
    (suite / "test_new.py").write_text(
        "def test_deep_reply_is_reply_malformed():\n    pass\n\n"
        "def test_brand_new_bad_input():\n    pass\n",
        "utf-8",
    )
    proc = subprocess.run(
        [
            sys.executable,
            str(REPO / "bench" / "hostile_inputs.py"),
            "--collect-only",
            "--suite",
            str(suite),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
    )
    assert proc.returncode != 0
    assert "classify these adversarial tests" in proc.stderr
    assert "test_brand_new_bad_input" in proc.stderr
    assert "test_deep_reply_is_reply_malformed" not in proc.stderr.split("CONTROLS): ")[1]
