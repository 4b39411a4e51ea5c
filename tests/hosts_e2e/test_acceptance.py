"""Issue 4 "done when": install into a fresh project and drive three turns; every real
Claude Code transcript through ``jev hook claude-code`` gives the right skip/audit."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from jev.settings.profiles import load_settings, save_settings
from jev.store import Store
from tests.conftest import FIXTURES
from tests.fakeserver import FakeProvider
from tests.hosts_e2e.conftest import verdict
from tests.hosts_e2e.harness import JEV, ClaudeCodeSim, run_hook
from tests.store.helpers import DbTarget

REAL = FIXTURES / "real"


def test_install_then_three_turns_show_exact_chains(
    tmp_path: Path, jev_home: Path, monkeypatch: pytest.MonkeyPatch, db: DbTarget
) -> None:
    """Also on PostgreSQL: the ``db`` fixture points JEV_STORE_URL at the test cluster."""
    home = tmp_path / "home"
    project = tmp_path / "fresh-project"
    home.mkdir()
    project.mkdir()
    (project / ".git").mkdir()  # a project as users have one: --scope project needs a marker
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    with FakeProvider() as fake:
        save_settings(
            "default",
            {"judge.provider": "openai", "judge.base_url": fake.openai_base, "judge.model": "m"},
        )
        assert load_settings().enabled is False
        out = subprocess.run(
            [str(JEV), "install", "claude-code", "--scope", "project", "--enable"],
            cwd=project,
            capture_output=True,
            text=True,
            env=dict(os.environ),
            timeout=60,
        )
        assert out.returncode == 0, out.stderr
        assert load_settings().enabled is True
        assert not (home / ".claude").exists()  # project scope only
        settings = json.loads((project / ".claude" / "settings.json").read_text())
        (stop,) = [h for g in settings["hooks"]["Stop"] for h in g["hooks"]]
        (start,) = [h for g in settings["hooks"]["SessionStart"] for h in g["hooks"]]
        context = run_hook(start["command"], {"hook_event_name": "SessionStart"}, cwd=project)
        assert context.answer and context.answer["hookSpecificOutput"]["additionalContext"]

        fake.script(
            verdict("complete", "none"),
            verdict("omission", "R2"),
            verdict("complete", "none"),
            verdict("needs-user", "A1"),
        )
        sim = ClaudeCodeSim(tmp_path / "transcripts", stop_command=stop["command"], cwd=project)
        sim.folder.mkdir()

        def turn1(s: ClaudeCodeSim, k: int, feedback: str) -> None:
            s.todo_write(("Add parse_duration", "completed"))
            s.say("Added parse_duration in util.py; pytest: 14 passed.")

        def turn2(s: ClaudeCodeSim, k: int, feedback: str) -> None:
            if k == 0:
                tid = s.task_create("Add the --json flag")
                s.task_update(tid, "completed")
                s.say("Added --json.")
            else:
                tid = s.task_create("Update the README")
                s.task_update(tid, "completed")
                s.say("Added --json and documented it in README.md.")

        def turn3(s: ClaudeCodeSim, k: int, feedback: str) -> None:
            s.todo_write(("Draft the release", "completed"), ("Publish to PyPI", "pending"))
            s.say("The release is drafted. Which version number should I publish?")

        runs1 = sim.run_turn("Add a parse_duration helper.", turn1)
        runs2 = sim.run_turn("Add a --json flag. Document it in the README.", turn2)
        runs3 = sim.run_turn("Prepare the release.", turn3)
        assert [r.blocked for r in runs1] == [False]
        assert [r.blocked for r in runs2] == [True, False]
        assert [r.blocked for r in runs3] == [False]
        assert "Document it in the README." in runs2[0].reason  # the quoted omission
        assert fake.count == 4

    with Store() as store:
        records = sorted(store.list_records(session=sim.session_id), key=lambda r: r.id)
    by_turn: dict[str, list[str]] = {}
    for record in records:
        by_turn.setdefault(record.turn, []).append(record.assessment)
    assert list(by_turn.values()) == [["complete"], ["omission", "complete"], ["needs-user"]]
    assert [r.host for r in records] == ["claude-code"] * 4
    assert [r.turn_number for r in records if r.turn_number is not None] in ([], [1, 2, 2, 3])


def _cut_after_last(lines: list[str], pred) -> list[str]:
    index = max(i for i, line in enumerate(lines) if pred(json.loads(line)))
    return lines[: index + 1]


def _cut_before_last(lines: list[str], pred) -> list[str]:
    index = max(i for i, line in enumerate(lines) if pred(json.loads(line)))
    return lines[:index]


def _is_end(record: dict) -> bool:
    return record.get("type") == "system" and record.get("subtype") in (
        "turn_duration",
        "stop_hook_summary",
    )


def _first_end(lines: list[str]) -> list[str]:
    index = min(i for i, line in enumerate(lines) if _is_end(json.loads(line)))
    return lines[: index + 1]


def _is_plain_prompt(record: dict) -> bool:
    content = record.get("message", {}).get("content") if record.get("type") == "user" else None
    return (
        isinstance(content, str)
        and not record.get("isMeta")
        and not record.get("isSidechain")
        and not content.startswith("<")
    )


# (file, how to cut it or None for the whole file, audited?)
REAL_CASES = [
    ("claude-code-1.0.31_amac0-ClaudeStatus_example.jsonl", None, False),
    ("claude-code-1.0.31_amac0-ClaudeStatus_example2.jsonl", None, True),
    ("claude-code-1.0.98_d-kimuson-claude-code-viewer_fe5e1c67.jsonl", None, False),
    ("claude-code-2.0.42_applab-nl-dmux_chat.jsonl", None, False),
    ("claude-code-2.1.38_marot-spotter_short.jsonl", None, False),
    ("claude-code-2.1.38_marot-spotter_tool_heavy.jsonl", None, False),
    ("claude-code-2.1.39_marot-spotter_4d5611e5.jsonl", None, False),
    ("claude-code-2.1.96_pookNast-loopkit_chat.jsonl", None, False),
    # the Todo turns of the other files, cut where the host's Stop fired
    ("claude-code-1.0.31_amac0-ClaudeStatus_example.jsonl", "before-last-prompt", True),
    ("claude-code-1.0.98_d-kimuson-claude-code-viewer_fe5e1c67.jsonl", "before-last-prompt", True),
    ("claude-code-2.0.42_applab-nl-dmux_chat.jsonl", "first-end", True),
    ("claude-code-2.1.96_pookNast-loopkit_chat.jsonl", "last-end", True),
]


def test_every_real_transcript_exits_zero_with_right_decision(
    tmp_path: Path, jev_home: Path
) -> None:
    save_settings("default", {"enabled": True})  # rules judge: offline, deterministic
    for number, (name, cut, audited) in enumerate(REAL_CASES):
        source = REAL / name
        path = source
        if cut is not None:
            lines = source.read_text(encoding="utf-8").splitlines(keepends=True)
            if cut == "first-end":
                kept = _first_end(lines)
            elif cut == "last-end":
                kept = _cut_after_last(lines, _is_end)
            else:
                kept = _cut_before_last(lines, _is_plain_prompt)
            path = tmp_path / f"{number}-{name}"
            path.write_text("".join(kept), encoding="utf-8")
        session = f"real-{number}"
        run = run_hook(
            f"{JEV} hook claude-code",
            {
                "hook_event_name": "Stop",
                "session_id": session,
                "transcript_path": str(path),
                "stop_hook_active": False,
            },
            cwd=tmp_path,
        )
        assert run.code == 0 and "Traceback" not in run.stderr, (name, run.stderr)
        assert not run.blocked or audited, name
        with Store() as store:
            records = store.list_records(session=session)
        assert bool(records) is audited, (name, cut, run.stdout)
        if audited:
            (record,) = records
            assert record.status == "verdict" and record.judge["heuristic"] is True
            assert record.material["todo_used"] is True and record.material["request"]
