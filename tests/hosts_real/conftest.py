"""Fixtures of the real-host suite (issue 19): a temp HOME with Jev installed the way
README says, and the pinned host CLIs (:mod:`tests.hosts_real.npm_hosts`).

Every test here is marked ``realhost`` (select with ``-m realhost``), ``e2e`` and
``slow``. The drift canary is the same suite with ``JEV_HOSTS_VERSIONS=latest``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

JEV = Path(sys.executable).parent / "jev"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.realhost)
            item.add_marker(pytest.mark.e2e)
            item.add_marker(pytest.mark.slow)


@dataclass
class HostHome:
    """A throwaway user: ``home`` (HOME), ``project`` (a git repository, the cwd of the
    host), ``env`` (the environment every process of the test gets: HOME, JEV_HOME,
    PATH with Jev's venv first, no inherited model keys)."""

    home: Path
    project: Path
    env: dict[str, str]

    def jev(
        self, *args: str, check: bool = True, timeout: float = 60
    ) -> subprocess.CompletedProcess[str]:
        """Run ``jev ARGS`` as the user would, in the project folder."""
        proc = subprocess.run(
            [str(JEV), *args],
            cwd=self.project,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        if check and proc.returncode != 0:
            raise AssertionError(
                f"jev {' '.join(args)} exited {proc.returncode}: {proc.stdout}{proc.stderr}"
            )
        return proc


_DROP = (
    "ANTHROPIC_",
    "OPENAI_",
    "GEMINI_",
    "GOOGLE_",
    "CODEX_",
    "CLAUDE",
    "COPILOT_",
    "QWEN_",
    "JEV_",
    "XDG_",
)


@pytest.fixture
def host_home(tmp_path: Path) -> Iterator[HostHome]:
    """A fresh HOME and project; the caller installs Jev with ``home.jev("install", …)``."""
    home = tmp_path / "home"
    project = tmp_path / "project"
    home.mkdir()
    project.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(_DROP)}
    env.update(
        HOME=str(home),
        JEV_HOME=str(home / ".jev"),
        PATH=f"{JEV.parent}{os.pathsep}{env.get('PATH', '')}",
        NO_COLOR="1",
        CI="",  # hosts change their UI under CI; the suite's own CI flag stays in os.environ
    )
    if "JEV_HOSTS_CACHE" not in env:
        env["JEV_HOSTS_CACHE"] = str(
            Path(os.environ.get("HOME", str(home))) / ".cache" / "jev-hosts"
        )
    subprocess.run(["git", "init", "-q", str(project)], check=True, env=env)
    yield HostHome(home, project, env)
