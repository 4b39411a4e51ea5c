"""Helpers for settings tests: run ``jev`` / Python snippets in NEW processes.

Children inherit the environment, so they see the test's own ``JEV_HOME``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
#: Runs ``jev.cli.main`` in a fresh interpreter (same as the ``jev`` console script).
MAIN_SNIPPET = "import sys; from jev.cli import main; sys.exit(main(sys.argv[1:]))"


def child_env(**extra: str) -> dict[str, str]:
    """The current environment (with this test's JEV_HOME) plus ``extra``."""
    env = dict(os.environ)
    env.pop("JEV_DEBUG", None)
    env.update(extra)
    return env


def run_jev(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``jev ARGS`` in a new process -> CompletedProcess (text, captured)."""
    return subprocess.run(
        [sys.executable, "-c", MAIN_SNIPPET, *args],
        capture_output=True,
        text=True,
        env=child_env(**(env or {})),
        cwd=REPO,
        timeout=60,
    )


def python_child(code: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    """Start ``python -c code`` in a new process (stdout/stderr captured)."""
    return subprocess.Popen(
        [sys.executable, "-c", code],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=child_env(**(env or {})),
        cwd=REPO,
    )


def run_python(code: str, env: dict[str, str] | None = None) -> str:
    """Run ``python -c code`` to completion; return stdout; fail the test on error."""
    proc = python_child(code, env)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    return out


__all__: Sequence[str] = ["MAIN_SNIPPET", "child_env", "python_child", "run_jev", "run_python"]
