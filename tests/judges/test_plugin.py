"""A third-party judge installed as a package is usable from ``jev audit`` and the hooks.

Builds a tiny plugin distribution (``jev-tinyjudge``) that registers the judge
``tiny`` in the ``jev.judges`` entry-point group, installs it with pip into a fresh
venv (Jev and its dependencies come from this checkout and this interpreter through
a .pth file, so no network is needed), and runs, in that venv:

* ``jev audit TURN --judge tiny`` — the verdict comes from the plugin;
* ``jev settings set judge.provider tiny`` + ``jev enable`` and the Claude Code Stop
  hook on a transcript — the hook asks the plugin and steers the agent with it.

Nothing registers ``tiny`` in code: only the installed package's metadata names it.
"""

from __future__ import annotations

import json
import os
import shutil
import site
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, REPO

pytestmark = pytest.mark.e2e

_PLUGIN = '''
"""A tiny Jev judge: omission on the first unfinished Todo item, else on the last one."""
from jev.base.domain import JudgeAnswer, JudgeInfo


class TinyJudge:
    def __init__(self, model: str) -> None:
        self.info = JudgeInfo(provider="tiny", model=model or "tiny-1", heuristic=False)
        self.calls = 0

    @classmethod
    def from_settings(cls, settings):
        return cls(settings.model)

    def ask(self, judge_input, numbering):
        self.calls += 1
        todos = [p for p in numbering.positions if p.kind == "todo"]
        pending = [p for p in todos if p.status != "completed"] or todos[-1:]
        reply = {"assessment": "omission", "focus": pending[0].id, "confidence": 0.9}
        return JudgeAnswer(text=json.dumps(reply), model=self.info.model, latency_ms=1.0)

    def close(self) -> None:
        pass


import json  # noqa: E402
'''

_PYPROJECT = """
[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "jev-tinyjudge"
version = "0.0.1"

[project.entry-points."jev.judges"]
tiny = "jev_tinyjudge:TinyJudge.from_settings"

[tool.setuptools]
py-modules = ["jev_tinyjudge"]
"""

_MAIN = "import sys; from jev.cli import main; sys.exit(main(sys.argv[1:]))"


@pytest.fixture(scope="module")
def python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The python of a fresh venv with the plugin installed."""
    tmp_path = tmp_path_factory.mktemp("plugin")
    source = tmp_path / "jev-tinyjudge"
    source.mkdir()
    (source / "pyproject.toml").write_text(_PYPROJECT, "utf-8")
    (source / "jev_tinyjudge.py").write_text(_PLUGIN, "utf-8")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    purelib = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
    )
    # Jev from this checkout, its dependencies from this interpreter.
    deps = [str(REPO), sysconfig.get_path("purelib"), *site.getsitepackages()]
    (purelib / "_jev_test_deps.pth").write_text("\n".join(dict.fromkeys(deps)) + "\n")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "--target",
            str(purelib),
            str(source),
        ],
        check=True,
        cwd=tmp_path,
    )
    return python


def _jev(python: Path, home: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "JEV_HOME": str(home), "PYTHONPATH": ""}
    env.pop("JEV_PROFILE", None)
    return subprocess.run(
        [str(python), "-c", _MAIN, *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        cwd=home.parent,
        timeout=120,
    )


def test_an_installed_judge_plugin_works_in_jev_audit_and_the_hook(
    python: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"

    # jev audit --judge tiny: the plugin's verdict on the pending reindex CronJob (T3).
    audit = _jev(
        python, home, "audit", str(REPO / "examples" / "turn-omission.json"), "--judge", "tiny"
    )
    assert audit.returncode == 4, audit.stderr
    assert "turn 1: omission" in audit.stdout and "focus T3 (todo)" in audit.stdout
    assert "judge: tiny (tiny-1)" in audit.stdout

    # judge.provider = tiny for the hook: checked against the installed plugins.
    setting = _jev(python, home, "settings", "set", "judge.provider", "tiny")
    assert setting.returncode == 0, setting.stderr
    assert _jev(python, home, "enable").returncode == 0
    transcript = tmp_path / "session-1.jsonl"
    shutil.copy(FIXTURES / "hand" / "claude-tasks.jsonl", transcript)
    payload = {
        "session_id": "session-1",
        "transcript_path": str(transcript),
        "cwd": str(tmp_path),
        "hook_event_name": "Stop",
        "stop_hook_active": False,
    }
    hook = _jev(python, home, "hook", "claude-code", stdin=json.dumps(payload))
    assert hook.returncode == 0, hook.stderr
    answer = json.loads(hook.stdout)
    assert answer["decision"] == "block", answer
    assert "omission" in answer["reason"] and "Write README docs" in answer["reason"]
    records = _jev(python, home, "records", "list", "--json")
    assert records.returncode == 0, records.stderr
    assert {r["judge"]["provider"] for r in json.loads(records.stdout)} == {"tiny"}


def test_an_unknown_judge_names_the_installed_ones(python: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    out = _jev(python, home, "audit", str(REPO / "examples" / "turn-omission.json"), "--judge", "x")
    assert out.returncode == 2
    assert "judge.provider = 'x' is refused" in out.stderr and "tiny" in out.stderr
