"""One TOML writer (issue 24 item 3): ``tomlkit`` writes every TOML file Jev writes.

``tomlkit`` must stay for Codex's ``config.toml`` (it keeps the user's comments:
``tests/install/test_todo_tools.py::test_codex_install_adds_update_plan_keeping_comments``),
so it writes the profiles too and ``tomli-w`` is no dependency any more.
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

from jev.settings.profiles import save_settings

ROOT = Path(__file__).resolve().parents[2]


def test_no_module_of_jev_imports_tomli_w_and_it_is_no_dependency() -> None:
    importers = []
    for path in sorted((ROOT / "jev").rglob("*.py")):
        tree = ast.parse(path.read_text("utf-8"))
        for node in ast.walk(tree):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            if any(n.split(".")[0] == "tomli_w" for n in names):
                importers.append(str(path.relative_to(ROOT)))
    assert importers == []
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    runtime = [d.split(">")[0].split("=")[0].split("<")[0] for d in project["dependencies"]]
    assert "tomlkit" in runtime and "tomli-w" not in runtime


def test_saved_profile_keeps_hard_strings_and_lists(jev_home: Path) -> None:
    model = 'de"ep\\seek\tchat ü'
    checks = ["pytest -q", 'ruff check "src dir"']
    save_settings("web", {"judge.model": model, "evidence.checks": checks})
    text = (jev_home / "profiles" / "web.toml").read_text("utf-8")
    assert text.startswith("# Jev profile 'web'")
    data = tomllib.loads(text)
    assert data["judge"]["model"] == model and data["evidence"]["checks"] == checks
