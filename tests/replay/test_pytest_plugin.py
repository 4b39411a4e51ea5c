"""The pytest plugin on the example fixture folder ``tests/jev_records/`` (one passing,
one regressed record), run in a real pytest subprocess."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO

pytestmark = pytest.mark.e2e  # runs pytest itself in a new process, as a user would

EXAMPLE = REPO / "tests" / "jev_records"


def _plugin_args() -> list[str]:
    """``-p jev.pytest_plugin`` unless the installed package already registers it as a
    ``pytest11`` entry point (loading it twice is an error)."""
    from importlib.metadata import entry_points

    installed = any(ep.value == "jev.pytest_plugin" for ep in entry_points(group="pytest11"))
    return [] if installed else ["-p", "jev.pytest_plugin"]


def _pytest(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run(
        [sys.executable, "-m", "pytest", *_plugin_args(), "-p", "no:cacheprovider", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


def test_each_record_is_an_item_and_the_regression_fails(tmp_path: Path) -> None:
    folder = tmp_path / "jev_records"
    shutil.copytree(EXAMPLE, folder)
    (tmp_path / "pytest.ini").write_text("[pytest]\n", "utf-8")
    done = _pytest(tmp_path, "--jev-records", "jev_records", "-rA")
    out = done.stdout
    assert done.returncode == 1, out + done.stderr
    assert "1 failed, 1 passed" in out
    assert "PASSED jev_records/example.jsonl::example-passing/example-passing-turn/round1" in out
    assert (
        "FAILED jev_records/example.jsonl::example-regressed/example-regressed-turn/round1" in out
    )
    assert "focus.id:\n    stored:   T3\n    replayed: T2" in out


def test_only_the_passing_record_selected_passes(tmp_path: Path) -> None:
    shutil.copytree(EXAMPLE, tmp_path / "jev_records")
    (tmp_path / "pytest.ini").write_text("[pytest]\n", "utf-8")
    done = _pytest(tmp_path, "--jev-records", "jev_records", "-k", "passing")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed, 1 deselected" in done.stdout


def test_missing_path_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "pytest.ini").write_text("[pytest]\n", "utf-8")
    done = _pytest(tmp_path, "--jev-records", "nowhere")
    assert done.returncode == 4  # pytest's usage-error exit code
    assert "--jev-records nowhere: no such file or folder" in done.stderr
