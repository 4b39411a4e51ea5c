"""The Stop hook's fast path agrees with the full hook (issue 4 item 2).

`quick_skip` may only say True where the full hook would stay silent and audit nothing;
it is checked against the full hook on every real transcript and hand-built fixture.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from jev.hosts.fastpath import quick_skip
from jev.hosts.hook import run_stop_hook
from jev.settings.profiles import save_settings
from tests.conftest import FIXTURES

TRANSCRIPTS = sorted(
    p
    for p in [
        *(FIXTURES / "real").glob("claude-code-*.jsonl"),
        *(FIXTURES / "hand").glob("*.jsonl"),
    ]
    if "codex" not in p.name
)


def stop(path: Path | str, **extra: object) -> str:
    return json.dumps(
        {"hook_event_name": "Stop", "session_id": "s", "transcript_path": str(path), **extra}
    )


@pytest.mark.parametrize("path", TRANSCRIPTS, ids=lambda p: p.name[:50])
def test_fast_skip_implies_silent_full_hook(path: Path) -> None:
    save_settings(None, {"enabled": True})
    text = stop(path)
    fast = quick_skip("claude-code", text, None)
    full = run_stop_hook("claude-code", text)
    assert full.exit_code == 0
    if fast:
        assert full.stdout == "" and full.decision is None, (path.name, full)


def test_fast_path_decides_the_no_todo_real_sessions() -> None:
    """The common case really takes the fast path (not just 'falls through')."""
    save_settings(None, {"enabled": True})
    decided = [p.name for p in TRANSCRIPTS if quick_skip("claude-code", stop(p), None)]
    assert "claude-code-2.1.39_marot-spotter_4d5611e5.jsonl" in decided
    assert "claude-code-2.1.38_marot-spotter_short.jsonl" in decided


def test_todo_turn_is_never_fast_skipped(tmp_path: Path) -> None:
    save_settings(None, {"enabled": True})
    example = FIXTURES / "real" / "claude-code-1.0.31_amac0-ClaudeStatus_example.jsonl"
    lines = example.read_text(encoding="utf-8").splitlines()
    # cut right after the /init turn (it used TodoWrite): find its last assistant line
    from jev.hosts.transcript import read_turns

    assert read_turns(example)[0].todo_used
    cut = tmp_path / "cut.jsonl"
    for n in range(len(lines), 0, -1):
        cut.write_text("\n".join(lines[:n]) + "\n", encoding="utf-8")
        turns = read_turns(cut)
        if len(turns) == 1:
            break
    assert quick_skip("claude-code", stop(cut), None) is False


def test_disabled_profile_subagent_and_plan_mode_skip_without_reading(tmp_path: Path) -> None:
    missing = tmp_path / "no-such.jsonl"  # never opened on these paths
    assert quick_skip("claude-code", stop(missing), None) is True  # shipped default: disabled
    save_settings(None, {"enabled": True})
    assert quick_skip("claude-code", stop(missing), None) is False
    assert quick_skip("claude-code", stop(missing, permission_mode="plan"), None) is True
    assert quick_skip("claude-code", json.dumps({"hook_event_name": "SubagentStop"}), None) is True
    assert quick_skip("claude-code", stop(missing, agent_id="a1"), None) is True
    save_settings("web", {"max_supplements": 2})
    assert quick_skip("claude-code", stop(missing), "web") is True  # web: enabled not set


@pytest.mark.parametrize(
    "text, expected",
    [
        ("enabled = false\n", True),
        ("# enabled = true\nenabled=false # off\n", True),
        ("enabled = true\n", False),
        ('"enabled" = false\n', False),  # unusual form: let the full hook parse it
        ("enabled = false\nenabled = true\n", False),
        ("max_supplements = 2\n[judge]\nenabled = true\n", True),  # not top level
        ("enabled = maybe\n", False),
    ],
)
def test_profile_text_scan_is_conservative(jev_home: Path, text: str, expected: bool) -> None:
    (jev_home / "profiles").mkdir(parents=True, exist_ok=True)
    (jev_home / "profiles" / "p.toml").write_text(text, encoding="utf-8")
    assert quick_skip("claude-code", stop("/nonexistent.jsonl"), "p") is expected


@pytest.mark.parametrize(
    "text",
    [
        "",
        "not json",
        "[]",
        '{"session_id": "s"}',
        '{"hook_event_name": "Stop", "background_tasks": [{}]}',
    ],
)
def test_anything_unclear_goes_to_the_full_hook(text: str) -> None:
    save_settings(None, {"enabled": True})
    assert quick_skip("claude-code", text, None) is False


def test_other_hosts_always_take_the_full_hook() -> None:
    assert quick_skip("gemini", stop("/x"), None) is False
    assert quick_skip("cursor", stop("/x"), None) is False


def test_fast_path_imports_only_the_standard_library(tmp_path: Path, jev_home: Path) -> None:
    save_settings(None, {"enabled": True})
    path = FIXTURES / "real" / "claude-code-2.1.38_marot-spotter_short.jsonl"
    probe = (
        "import sys, io; sys.stdin = io.TextIOWrapper(io.BytesIO(sys.argv[1].encode()));"
        "from jev.cli import main; code = main(['hook', 'claude-code']);"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'jev'));"
        "print(sorted(m for m in ('typing', 'dataclasses', 'tomllib', 'httpx', 'jinja2',"
        " 'jsonschema', 'pydantic', 'sqlite3') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe, stop(path)], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert out[-1] == "[]", out
    assert set(eval(out[-2])) <= {
        "jev",
        "jev.hosts.backread",  # the one backward reader (imports only os)
        "jev.cli",
        "jev.cli.hook_cmd",
        "jev.hosts",
        "jev.hosts.fastpath",
        "jev.hosts.registry",
        "jev.hosts.claude_code",
        "jev.hosts.claude_code.adapter",
        "jev.hosts.ccformat",
        "jev.hosts.ccformat.records",
        "jev.base",  # the package of the bottom layer (a docstring, no imports)
        "jev.base.paths",
    }
