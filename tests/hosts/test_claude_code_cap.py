"""Claude Code facts measured in the real CLI 2.1.328 (issue 19, hosts.md (Claude Code)):
the 8-in-a-row Stop block cap, the deferred Todo tools named in the SessionStart
context, the newest session and the host checks for ``jev doctor``.

The fixture ``claude-code-2.1.328_scripted-model_nine-blocks.jsonl`` was written by the
real ``claude -p`` against the scripted model server of ``tests/hosts_real``
(max_supplements 10, an agent that repeats its report): nine Jev blocks in a row, the
ninth overridden by the host.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jev.hosts.base import HookInput
from jev.hosts.claude_code import adapter as cc
from jev.hosts.claude_code import facts as cc_facts
from jev.hosts.hook import run_session_start_hook
from jev.hosts.transcript import read_turns
from jev.pipeline.texts import system_prompt_section

NINE = (
    Path(__file__).resolve().parent.parent
    / "fixtures"
    / "hosts_real"
    / "claude-code-2.1.328_scripted-model_nine-blocks.jsonl"
)


def _stop(path: Path) -> HookInput:
    return cc.ADAPTER.parse(
        {"hook_event_name": "Stop", "session_id": "s", "transcript_path": str(path)}
    )


def test_the_real_file_reads_and_counts_nine_jev_blocks_in_a_row() -> None:
    (turn,) = read_turns(NINE)
    assert turn.status == "ready" and turn.todo_used
    assert cc_facts.blocks_in_a_row(str(NINE)) == (9, False)


def test_a_row_of_jev_blocks_alone_is_audited_so_the_budget_notice_shows() -> None:
    # the hook caps the budget at the host's limit: the audit says "used up", no block
    assert cc.ADAPTER.gate(_stop(NINE)) == ""


def _with_foreign_block(tmp_path: Path) -> Path:
    lines = NINE.read_text("utf-8").splitlines()
    for i, line in enumerate(lines):
        rec = json.loads(line)
        if rec.get("subtype") == "stop_hook_summary" and rec.get("hookAdditionalContext"):
            rec["hookAdditionalContext"] = ["Another hook: keep going."]
            lines[i] = json.dumps(rec)
            break
    path = tmp_path / "foreign.jsonl"
    path.write_text("\n".join(lines) + "\n", "utf-8")
    return path


def test_a_row_with_another_hooks_block_at_the_cap_is_not_audited(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _with_foreign_block(tmp_path)
    assert cc_facts.blocks_in_a_row(str(path)) == (9, True)
    monkeypatch.delenv(cc_facts.BLOCK_CAP_ENV, raising=False)
    assert "at most 8 Stop blocks in a row" in cc.ADAPTER.gate(_stop(path))
    monkeypatch.setenv(cc_facts.BLOCK_CAP_ENV, "20")
    assert cc.ADAPTER.gate(_stop(path)) == ""


def test_a_tool_call_resets_the_row(tmp_path: Path) -> None:
    lines = NINE.read_text("utf-8").splitlines()
    tool = {
        "type": "assistant",
        "message": {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "t", "name": "Bash"}],
        },
    }
    cut = max(i for i, line in enumerate(lines) if '"stop_hook_summary"' in line)
    lines.insert(cut - 3, json.dumps(tool))  # before the last block's round
    path = tmp_path / "reset.jsonl"
    path.write_text("\n".join(lines) + "\n", "utf-8")
    count, _ = cc_facts.blocks_in_a_row(str(path))
    assert 1 <= count < 9


def test_a_missing_or_broken_file_counts_nothing(tmp_path: Path) -> None:
    assert cc_facts.blocks_in_a_row(str(tmp_path / "none.jsonl")) == (0, False)
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n{\n", "utf-8")
    assert cc_facts.blocks_in_a_row(str(bad)) == (0, False)


@pytest.mark.parametrize(("raw", "cap"), [("", 8), ("3", 3), ("0", 8), ("x", 8), (" 12 ", 12)])
def test_block_cap_reads_the_hosts_variable(raw: str, cap: int) -> None:
    assert cc_facts.block_cap({cc_facts.BLOCK_CAP_ENV: raw}) == cap


def test_todo_offer_follows_the_hosts_switches() -> None:
    assert cc_facts.todo_offer({}) == ("TaskCreate/TaskUpdate", "select:TaskCreate,TaskUpdate")
    assert cc_facts.todo_offer({"CLAUDE_CODE_ENABLE_TASKS": "0"}) == (
        "TodoWrite",
        "select:TodoWrite",
    )
    assert cc_facts.todo_offer({"ENABLE_TOOL_SEARCH": "false"}) == ("TaskCreate/TaskUpdate", "")


def test_session_start_names_the_deferred_tools_only_when_enabled(
    jev_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CLAUDE_CODE_ENABLE_TASKS", raising=False)
    monkeypatch.delenv("ENABLE_TOOL_SEARCH", raising=False)
    profiles = jev_home / "profiles"
    profiles.mkdir(parents=True, exist_ok=True)
    (profiles / "default.toml").write_text("enabled = true\n", "utf-8")
    out = run_session_start_hook("{}", host="claude-code").stdout
    context = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    assert 'ToolSearch, query "select:TaskCreate,TaskUpdate"' in context
    assert "several steps" in context
    (profiles / "default.toml").write_text("enabled = false\n", "utf-8")
    assert run_session_start_hook("{}", host="claude-code").stdout == ""


def test_the_hint_line_is_absent_without_tools_in_both_languages() -> None:
    for language in ("en", "zh"):
        plain = system_prompt_section(language)
        hinted = system_prompt_section(language, "TodoWrite", "select:TodoWrite")
        assert "ToolSearch" not in plain and "ToolSearch" in hinted
        assert len(hinted.splitlines()) == len(plain.splitlines()) + 1


def test_newest_session_skips_subagents(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path))
    assert cc.ClaudeCodeInstaller().newest_session() is None
    project = tmp_path / "projects" / "-p"
    (project / "s1" / "subagents").mkdir(parents=True)
    old = project / "s0.jsonl"
    old.write_text("{}\n")
    (project / "s1" / "subagents" / "agent-a.jsonl").write_text("{}\n")
    assert cc.ClaudeCodeInstaller().newest_session() == old


def test_checks_name_disable_all_hooks(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"disableAllHooks": True}))
    (line,) = cc.ClaudeCodeInstaller().checks("user", path)
    assert "disableAllHooks" in line and "remove that key" in line
    path.write_text("{}")
    assert cc.ClaudeCodeInstaller().checks("user", path) == ()


def test_doctor_names_the_deferred_tools(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CLAUDE_CODE_ENABLE_TASKS", raising=False)
    monkeypatch.delenv("ENABLE_TOOL_SEARCH", raising=False)
    offer = cc.ClaudeCodeInstaller().todo_offer
    assert offer.startswith("TaskCreate/TaskUpdate as deferred tools")
    assert "ToolSearch 'select:TaskCreate,TaskUpdate'" in offer


def test_plugin_hooks_found_only_when_installed_and_enabled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    installer = cc.ClaudeCodeInstaller()
    assert installer.plugin_hooks() == {}
    copy = tmp_path / "plugins" / "cache" / "jev" / "jev" / "0.1.0"
    (copy / "hooks").mkdir(parents=True)
    (copy / "hooks" / "hooks.json").write_text("{}")
    listing = {"version": 2, "plugins": {"jev@jev": [{"installPath": str(copy)}]}}
    (tmp_path / "plugins" / "installed_plugins.json").write_text(json.dumps(listing))
    assert installer.plugin_hooks() == {}  # installed, not enabled
    (tmp_path / "settings.json").write_text(json.dumps({"enabledPlugins": {"jev@jev": True}}))
    assert installer.plugin_hooks() == {"plugin": copy / "hooks" / "hooks.json"}
    monkeypatch.delenv(cc.TODO_TOOLS_ENV, raising=False)
    monkeypatch.setattr("shutil.which", lambda name: "/bin/jev")
    (warning,) = installer.checks("plugin", copy / "hooks" / "hooks.json")
    assert warning.startswith("warning: ") and cc.TODO_TOOLS_ENV in warning
