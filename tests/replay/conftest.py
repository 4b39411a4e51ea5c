"""Helpers for the replay tests: the golden records, a CLI runner, a prompts override."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FIXTURES, REPO

GOLDEN = FIXTURES / "golden" / "records.jsonl"
_MAIN = "import sys; from jev.cli import main; sys.exit(main())"


def golden_lines() -> list[dict[str, Any]]:
    """The golden records as JSON objects, in file order."""
    return [json.loads(line) for line in GOLDEN.read_text("utf-8").splitlines() if line.strip()]


def write_jsonl(path: Path, records: list[dict[str, Any]]) -> Path:
    """Write records as JSON lines; return ``path``."""
    path.write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8"
    )
    return path


def run_jev(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run the ``jev`` command in a new process (the repository on ``PYTHONPATH``)."""
    full_env = {**os.environ, "PYTHONPATH": str(REPO), **(env or {})}
    return subprocess.run(
        [sys.executable, "-c", _MAIN, *args],
        capture_output=True,
        text=True,
        env=full_env,
        timeout=120,
        check=False,
    )


@pytest.fixture
def prompts_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A copy of the shipped prompts, used through ``JEV_PROMPTS_DIR`` as a user would.

    ``jev.pipeline.render`` caches compiled templates per process; the fixture clears those
    caches before and after, so edits to the copy take effect in this process.
    """
    import jev.pipeline.render as render

    copy = tmp_path / "prompts"
    shutil.copytree(REPO / "prompts", copy)

    def clear() -> None:
        render._environment.cache_clear()
        render._source_in.cache_clear()

    clear()
    monkeypatch.setenv(render.PROMPTS_DIR_ENV, str(copy))
    yield copy
    monkeypatch.undo()
    clear()
