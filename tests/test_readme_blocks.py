"""README is the contract: its code blocks run verbatim, in order (issue 10 item 7).

A fresh clone of this repository (its tracked and new files as they are now), a fresh
home folder, README's set-up command, then every ``sh`` and ``python`` block in the
order printed, in one shell — exactly what a new user pastes. ``text`` blocks are
synopses with placeholders; a block preceded by ``<!-- not run by
tests/test_readme_blocks.py … -->`` (the test suite itself) is skipped.

A command passes unless it exits 1 (internal error), 2 (usage error), 6 (a replay
difference), 126 or 127 (not runnable / not found); 3, 4 and 5 are audit results the
README shows on purpose.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO

README = REPO / "README.md"
_BLOCK = re.compile(r"(<!--[^\n]*-->\n)?```(\w+)\n(.*?)```", re.S)
_SKIP = "not run by tests/test_readme_blocks.py"
_FAIL_CODES = "1|2|6|126|127"


def readme_blocks(text: str) -> list[tuple[str, str]]:
    """``(language, code)`` of each ``sh``/``python`` block to run, in order."""
    blocks = []
    for comment, language, code in _BLOCK.findall(text):
        if language in ("sh", "python") and _SKIP not in (comment or ""):
            blocks.append((language, code))
    return blocks


def _script(blocks: list[tuple[str, str]]) -> str:
    lines = [
        "set -o pipefail",
        f"trap 'rc=$?; case $rc in {_FAIL_CODES}) "
        'echo "README block $BLOCK failed (exit $rc): $BASH_COMMAND" >&2; exit 99;; '
        "esac' ERR",
    ]
    for n, (language, code) in enumerate(blocks, start=1):
        lines.append(f"BLOCK={n}")
        if language == "python":
            lines.append("python - <<'JEV_README_PY'")
            lines.append(code.rstrip("\n"))
            lines.append("JEV_README_PY")
        else:
            lines.append(code.rstrip("\n"))
    lines.append('echo "README: all blocks ran"')
    return "\n".join(lines) + "\n"


def test_the_blocks_found_are_the_readme_examples() -> None:
    blocks = readme_blocks(README.read_text(encoding="utf-8"))
    assert blocks[0][1].startswith("python3 -m venv .venv && .venv/bin/pip install -q . ")
    assert blocks[1] == ("sh", ". .venv/bin/activate\n")
    assert not any("pytest\n" in code and ".[dev]" in code for _, code in blocks)
    assert sum(1 for language, _ in blocks if language == "python") == 1
    assert any("jev replay" in code for _, code in blocks)


@pytest.mark.slow
def test_every_readme_block_runs_in_a_fresh_clone(tmp_path: Path) -> None:
    if shutil.which("git") is None:
        pytest.fail("git is needed to clone the repository (install it: apt-get install git)")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--no-checkout", str(REPO), str(clone)], check=True)
    files = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    for raw in files:
        if not raw:
            continue
        source = REPO / raw.decode()
        if source.is_file():
            target = clone / raw.decode()
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    home = tmp_path / "home"
    home.mkdir()
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("JEV_", "CLAUDE_", "CODEX_", "VIRTUAL_ENV", "PYTHON"))
        and k not in ("XDG_CONFIG_HOME", "OPENAI_API_KEY", "ANTHROPIC_API_KEY")
    }
    bin_dir = str(Path(sys.executable).parent)
    env["PATH"] = os.pathsep.join(
        p for p in env.get("PATH", "").split(os.pathsep) if p and p != bin_dir
    )
    env["HOME"] = str(home)
    script = _script(readme_blocks(README.read_text(encoding="utf-8")))
    done = subprocess.run(
        ["bash", "-c", script],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
        timeout=1200,
    )
    tail = (done.stdout[-3000:] + "\n--- stderr ---\n" + done.stderr[-3000:]).strip()
    assert done.returncode == 0, tail
    assert "README: all blocks ran" in done.stdout, tail
    assert "Traceback" not in done.stderr, tail
    # Nothing escaped the fresh home folder; the project install went into the clone.
    assert not (home / ".claude" / "settings.json").exists()
