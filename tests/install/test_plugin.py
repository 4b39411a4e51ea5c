"""The Claude Code plugin folder (issue 8 item 8; hosts.md (Claude Code)).

The marketplace file names the plugin folder, the manifest names the plugin, and each
command of ``hooks/hooks.json`` is run the way Claude Code runs a shell-form hook
(``sh -c``, the hook JSON on stdin): with ``jev`` on PATH it is Jev's hook; without it,
exit 0 and one line saying how to install it (the SessionStart hook stays silent, since
its plain stdout would reach the model).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from jev.settings.profiles import save_settings
from tests.conftest import REPO

PLUGIN = REPO / "plugins" / "jev"


def _commands() -> dict[str, str]:
    hooks = json.loads((PLUGIN / "hooks" / "hooks.json").read_text(encoding="utf-8"))["hooks"]
    return {event: groups[0]["hooks"][0]["command"] for event, groups in hooks.items()}


def _run(command: str, payload: dict, path: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": path}
    return subprocess.run(
        ["sh", "-c", command],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=120,
    )


def test_marketplace_and_manifest_point_at_the_plugin() -> None:
    market = json.loads((REPO / ".claude-plugin" / "marketplace.json").read_text("utf-8"))
    (entry,) = market["plugins"]
    assert entry["name"] == "jev" and (REPO / entry["source"]).resolve() == PLUGIN.resolve()
    manifest = json.loads((PLUGIN / ".claude-plugin" / "plugin.json").read_text("utf-8"))
    assert manifest["name"] == "jev" and manifest["version"]
    assert set(_commands()) == {"Stop", "SessionStart"}


def test_hooks_run_the_installed_jev(tmp_path: Path, jev_home: Path) -> None:
    save_settings("default", {"enabled": True})
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "jev").symlink_to(Path(sys.executable).parent / "jev")
    path = f"{bin_dir}{os.pathsep}/usr/bin{os.pathsep}/bin"
    commands = _commands()
    stop = _run(commands["Stop"], {"hook_event_name": "SubagentStop"}, path, tmp_path)
    assert stop.returncode == 0 and stop.stdout == ""  # Jev's hook: a subagent stop, nothing
    start = _run(commands["SessionStart"], {"hook_event_name": "SessionStart"}, path, tmp_path)
    context = json.loads(start.stdout)["hookSpecificOutput"]
    assert start.returncode == 0 and context["hookEventName"] == "SessionStart"


@pytest.mark.parametrize("event", ["Stop", "SessionStart"])
def test_without_jev_on_path_one_line_and_exit_0(event: str, tmp_path: Path) -> None:
    run = _run(_commands()[event], {"hook_event_name": event}, "/usr/bin:/bin", tmp_path)
    assert run.returncode == 0 and run.stderr == ""
    if event == "SessionStart":
        assert run.stdout == ""
        return
    (line,) = run.stdout.splitlines()
    message = json.loads(line)["systemMessage"]
    assert "jev command is not on PATH" in message and "pipx install /path/to/jev" in message
