"""The first hour as a new user (issue 10 items 6–12): each README promise, checked.

Real files and real subprocesses; HOME points at a temp folder in every test that could
touch it, so the user's own ``~/.claude`` is never read or written.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from jev.base.domain import TodoItem
from jev.cli import main
from tests.conftest import FIXTURES, REPO

REAL = FIXTURES / "real"
EXAMPLE = REPO / "examples" / "turn-omission.json"


@pytest.fixture
def fake_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.delenv("CODEX_HOME", raising=False)
    return home


# -- item 6: install scopes ---------------------------------------------------------


def test_project_scope_in_a_folder_without_git_never_writes_the_global_file(
    fake_home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (fake_home / ".claude").mkdir()  # the user-wide Claude Code folder
    folder = fake_home / "scratch" / "notes"
    folder.mkdir(parents=True)
    monkeypatch.chdir(folder)
    assert main(["install", "claude-code", "--scope", "project"]) == 2
    err = capsys.readouterr().err
    assert "--project-dir" in err and "--scope user" in err
    assert not (fake_home / ".claude" / "settings.json").exists()
    assert not (folder / ".claude").exists()


def test_project_scope_finds_the_repository_root_below_home(
    fake_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = fake_home / "code" / "app"
    (repo / ".git").mkdir(parents=True)
    (repo / "src").mkdir()
    monkeypatch.chdir(repo / "src")
    assert main(["install", "claude-code", "--scope", "project"]) == 0
    assert (repo / ".claude" / "settings.json").is_file()


def test_local_scope_adds_the_file_to_gitignore_once(
    fake_home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = fake_home / "app"
    (repo / ".git").mkdir(parents=True)
    (repo / ".gitignore").write_text("node_modules/", encoding="utf-8")
    monkeypatch.chdir(repo)
    assert main(["install", "claude-code", "--scope", "local"]) == 0
    out = capsys.readouterr().out
    assert "added .claude/settings.local.json to" in out
    lines = (repo / ".gitignore").read_text(encoding="utf-8").splitlines()
    assert lines == ["node_modules/", ".claude/settings.local.json"]
    # Uninstall takes back the file and the line Jev added (issue 23 item 4).
    assert main(["uninstall", "claude-code", "--scope", "local"]) == 0
    assert not (repo / ".claude" / "settings.local.json").exists()  # Jev created it
    assert (repo / ".gitignore").read_text(encoding="utf-8") == "node_modules/\n"
    # A line the user has already: not doubled, and left in place by uninstall.
    (repo / ".gitignore").write_text("/.claude/settings.local.json\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["install", "claude-code", "--scope", "local"]) == 0
    assert "already ignores" in capsys.readouterr().out
    assert main(["uninstall", "claude-code", "--scope", "local"]) == 0
    assert (repo / ".gitignore").read_text(encoding="utf-8") == "/.claude/settings.local.json\n"


def test_local_scope_outside_git_says_it_left_gitignore_alone(
    fake_home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    project = fake_home / "plain"
    (project / ".claude").mkdir(parents=True)
    monkeypatch.chdir(project)
    assert main(["install", "claude-code", "--scope", "local"]) == 0
    assert "not a git repository; .gitignore was not changed" in capsys.readouterr().out
    assert not (project / ".gitignore").exists()


# -- item 7: Material, the curated API, records export -------------------------------


def test_material_accepts_turn_file_dicts_and_todo_items() -> None:
    from jev import Material, Store, TodoItem

    material = Material(
        ["Fix the bug."],
        [{"content": "Fix the bug", "status": "completed"}, TodoItem("Docs", "pending")],
        "Fixed.",
    )
    assert material.request == ("Fix the bug.",)
    assert material.todos == (TodoItem("Fix the bug", "completed"), TodoItem("Docs", "pending"))
    assert material == Material.from_json(material.to_json())
    assert Store.__module__.startswith("jev.store")


@pytest.mark.parametrize(
    "todo",
    [{"content": "x", "status": "done"}, TodoItem("x", "finished"), {"content": "x"}, "x"],
)
def test_material_refuses_an_unknown_status_or_shape(todo: object) -> None:
    from jev import Material

    with pytest.raises(ValueError, match="Todo item 1") as caught:
        Material(["r"], [todo], "a")  # type: ignore[list-item]
    assert "pending" in str(caught.value) and "completed" in str(caught.value)


def test_records_export_creates_the_parent_folder(tmp_path: Path) -> None:
    assert main(["audit", str(EXAMPLE)]) == 4
    out = tmp_path / "deep" / "er" / "turns.jsonl"
    assert main(["records", "export", "--out", str(out)]) == 0
    assert len(out.read_text(encoding="utf-8").splitlines()) == 1


# -- item 8: a broken profile's hint repairs it --------------------------------------


def _run_jev(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", "import sys; from jev.cli import main; sys.exit(main())", *args],
        capture_output=True,
        text=True,
        env=dict(os.environ),
        timeout=120,
    )


def test_the_fix_it_hint_repairs_the_file(jev_home: Path) -> None:
    path = jev_home / "profiles" / "default.toml"
    path.parent.mkdir(parents=True)
    path.write_text('enabled = true\nmax_supplements = "3"\n', encoding="utf-8")
    shown = _run_jev("settings", "show")
    assert shown.returncode == 2
    assert f"settings file {path}, line 2:" in shown.stderr
    hint = shown.stderr.split("run `", 1)[1].split("`", 1)[0]
    assert hint == "jev settings set max_supplements 3"
    fixed = _run_jev(*hint.split()[1:])
    assert fixed.returncode == 0, fixed.stderr
    assert _run_jev("settings", "show").returncode == 0
    data = json.loads(_run_jev("settings", "show", "--json").stdout)
    assert data["max_supplements"] == 3 and data["enabled"] is True


def test_two_broken_keys_are_repaired_one_hint_at_a_time(jev_home: Path) -> None:
    path = jev_home / "profiles" / "default.toml"
    path.parent.mkdir(parents=True)
    path.write_text('max_supplements = "3"\n[judge]\nmodel = 5\n', encoding="utf-8")
    first = _run_jev("settings", "set", "max_supplements", "3")
    assert first.returncode == 0
    assert "line" in first.stderr and "judge.model" in first.stderr  # the other one, named
    assert _run_jev("settings", "set", "judge.model", "x").returncode == 0
    assert _run_jev("settings", "show").returncode == 0


# -- item 9: a misspelled profile is not a new profile -------------------------------


def test_misspelled_profile_is_refused_and_creation_is_explicit(
    jev_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for argv in (
        ["enable", "--profile", "wrok"],
        ["settings", "show", "--profile", "wrok"],
        ["settings", "set", "max_supplements", "2", "--profile", "wrok"],
        ["audit", str(EXAMPLE), "--profile", "wrok", "--no-record"],
    ):
        assert main(argv) == 2, argv
        assert "profile 'wrok' does not exist" in capsys.readouterr().err
    assert not (jev_home / "profiles" / "wrok.toml").exists()
    assert main(["profiles", "create", "work"]) == 0
    assert main(["enable", "--profile", "work"]) == 0
    assert main(["enable", "--profile", "web", "--create"]) == 0
    assert {p.stem for p in (jev_home / "profiles").glob("*.toml")} == {"work", "web"}
    assert main(["profiles", "create", "work"]) == 2  # exists already


# -- item 10: replay on a file that is not an export; exit codes ---------------------


@pytest.mark.parametrize(
    "source",
    [
        EXAMPLE,
        REAL / "claude-code-2.1.38_marot-spotter_short.jsonl",
        REAL / "codex-0.58.0_AcidicSoil-codex-session-view_019a93b9.jsonl",
        "array",
    ],
    ids=["turn-file", "claude-transcript", "codex-rollout", "json-array"],
)
def test_replay_on_a_non_export_is_one_usage_line(source: object, tmp_path: Path) -> None:
    if source == "array":
        source = tmp_path / "list.json"
        source.write_text("[1, 2, 3]", encoding="utf-8")
    done = _run_jev("replay", str(source))
    assert done.returncode == 2
    assert done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1
    assert "is not a records export" in done.stderr and "internal error" not in done.stderr


def test_exit_codes_never_collide() -> None:
    from jev import cli

    codes = [
        cli.EXIT_OK,
        cli.EXIT_INTERNAL,
        cli.EXIT_USAGE,
        cli.EXIT_INCOMPLETE,
        cli.EXIT_PROBLEM,
        cli.EXIT_NEEDS_USER,
        cli.EXIT_CHANGED,
        cli.EXIT_NOT_READY,
        cli.EXIT_INTERRUPTED,
    ]
    assert len(set(codes)) == len(codes)
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    for code in codes:
        assert f"\n| {code} |" in readme


def test_replay_difference_is_exit_6_with_an_inline_diff(tmp_path: Path) -> None:
    from jev.measure.replay import inline_diff

    assert main(["audit", str(EXAMPLE)]) == 4
    export = tmp_path / "records.jsonl"
    assert main(["records", "export", "--out", str(export)]) == 0
    record = json.loads(export.read_text(encoding="utf-8"))
    old = "x" * 400 + " Update the docs " + "y" * 400
    new = "x" * 400 + " Update the README " + "y" * 400
    shown = inline_diff(old, new)
    assert "[-docs-]{+README+}" in shown and len(shown) < 100
    record["action"] = {**(record.get("action") or {}), "kind": "finish"}
    export.write_text(json.dumps(record) + "\n", encoding="utf-8")
    done = _run_jev("replay", str(export))
    assert done.returncode == 6, done.stdout + done.stderr


# -- item 11: words ------------------------------------------------------------------


def test_a_problem_verdict_is_never_called_needs_user(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from jev.base.domain import AuditOutcome, Position, Verdict
    from jev.base.loop_state import LoopState, end_reason
    from jev.pipeline.decide import decide
    from jev.pipeline.texts import report_line

    def verdict(assessment: str) -> AuditOutcome:
        focus = Position("T1", "todo", 1, "Update docs", status="pending")
        return AuditOutcome(status="verdict", verdict=Verdict(assessment, focus))

    # jev audit / jev retry steer no agent: a problem verdict is shown to the user.
    state, action = decide(LoopState(), verdict("omission"), 3, steer=False)
    assert action.kind == "hand-to-user"
    for language in ("en", "zh"):
        line = report_line(state, action, None, language)
        assert "needs your decision" not in line and "需要你决定" not in line
    assert "needs user" not in end_reason(state) and "omission" in end_reason(state)
    real, real_action = decide(LoopState(), verdict("needs-user"), 3, steer=False)
    assert "needs your decision" in report_line(real, real_action, None, "en")
    assert end_reason(real) == "needs user"
    # The records report card says the same.
    assert main(["audit", str(EXAMPLE)]) == 4
    capsys.readouterr()
    assert main(["records", "show", "1"]) == 0
    card = capsys.readouterr().out
    assert "needs user" not in card and "omission" in card


def test_no_model_line_only_without_a_model(jev_home: Path) -> None:
    plain = _run_jev("audit", str(EXAMPLE), "--no-record")
    assert "no model configured" in plain.stdout
    chosen = _run_jev("audit", str(EXAMPLE), "--no-record", "--judge", "rules")
    assert "no model configured" not in chosen.stdout


def test_missing_key_and_model_fail_before_any_call_with_pasteable_hints(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    no_model = _run_jev("audit", str(EXAMPLE), "--judge", "openai", "--no-record")
    assert no_model.returncode == 2
    hint = no_model.stderr.split("run `", 1)[1].split("`", 1)[0]
    assert hint == "jev settings set judge.model gpt-4o-mini"
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    no_key = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from jev.cli import main; sys.exit(main())",
            "audit",
            str(EXAMPLE),
            "--judge",
            "openai",
            "--model",
            "gpt-4o-mini",
            "--no-record",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert no_key.returncode == 2
    assert "OPENAI_API_KEY is not set" in no_key.stderr
    assert "connect" not in no_key.stderr + no_key.stdout  # no call was tried


def test_hook_is_listed_in_help_and_130_is_documented() -> None:
    shown = _run_jev("--help")
    assert " hook " in shown.stdout
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "| 130 | interrupted (Ctrl-C) |" in readme


# -- item 12: terminal safety --------------------------------------------------------

_HOSTILE = "Fix it\x1b[2J\x07 now \u202eevil\u202c and \x9b31m done"


def test_control_characters_are_made_visible_in_audit_and_records(tmp_path: Path) -> None:
    turn = {
        "request": [_HOSTILE],
        "todos": [{"content": _HOSTILE, "status": "pending"}],
        "final_answer": "All done.",
    }
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps(turn), encoding="utf-8")
    shown = _run_jev("audit", str(path))
    assert shown.returncode == 4
    as_json = _run_jev("audit", str(path), "--json", "--no-record")
    card = _run_jev("records", "show", "1")
    for out in (shown.stdout, as_json.stdout, card.stdout):
        assert "\x1b" not in out and "\x07" not in out
        assert "\u202e" not in out and "\x9b" not in out
    assert "\\u202e" in shown.stdout or "\\u202e" in card.stdout
    assert json.loads(as_json.stdout)["status"] == "verdict"  # still valid JSON
    assert "now \\u202eevil" in card.stdout  # the quote, made visible


def test_visible_keeps_ordinary_text() -> None:
    from jev.base.terminal import json_visible, visible

    assert visible("完成 — done\n\tok") == "完成 — done\n\tok"
    assert visible("a\rb\x1b") == "a\\x0db\\x1b"
    assert json.loads(json_visible(json.dumps(_HOSTILE, ensure_ascii=False))) == _HOSTILE


# -- issue 23 item 4: the first hour again --------------------------------------------


def test_ollama_needs_no_key_for_its_default_address(monkeypatch: pytest.MonkeyPatch) -> None:
    from jev.judges.ollama import OllamaJudge
    from jev.judges.openai_compat import OpenAIJudge

    monkeypatch.delenv("OLLAMA_API_KEY", raising=False)
    judge = OllamaJudge(model="qwen2.5:7b", environ={})  # README's profile: no key, no base
    try:
        assert judge.url == "http://localhost:11434/api/chat"
    finally:
        judge.close()
    with pytest.raises(Exception, match="OPENAI_API_KEY is not set"):
        OpenAIJudge(model="gpt-4o-mini", environ={})  # the provider's own service still does


def _doctor_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict]:
    capsys.readouterr()
    code = main(["doctor", "--json", *argv])
    return code, json.loads(capsys.readouterr().out)


@pytest.fixture
def doctor_home(fake_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}:/usr/bin:/bin")
    monkeypatch.chdir(tmp_path)
    return fake_home


def test_doctor_readme_ollama_profile_has_no_key_problem(
    doctor_home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OLLAMA_API_KEY", raising=False)
    assert main(["profiles", "create", "local"]) == 0
    assert main(["settings", "set", "judge.provider", "ollama", "--profile", "local"]) == 0
    assert main(["settings", "set", "judge.model", "qwen2.5:7b", "--profile", "local"]) == 0
    assert main(["install", "claude-code", "--profile", "local"]) == 0
    assert main(["enable", "--profile", "local"]) == 0
    monkeypatch.setenv("JEV_PROFILE", "local")
    code, report = _doctor_json(capsys, "--host", "claude-code")
    assert not any("OLLAMA_API_KEY" in p for p in report["problems"]), report["problems"]
    assert code == 0, report["problems"]


def test_doctor_finds_a_disabled_hook_profile_and_exits_7(
    doctor_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["enable", "--create"]) == 0  # the active profile is on…
    assert main(["profiles", "create", "work"]) == 0
    assert main(["install", "claude-code", "--profile", "work"]) == 0  # …the hook's is off
    code, report = _doctor_json(capsys, "--host", "claude-code")
    assert code == 7
    assert any(
        "runs with profile work, which is disabled" in p and "jev enable --profile work" in p
        for p in report["problems"]
    ), report["problems"]
    assert main(["doctor", "--host", "claude-code"]) == 7
    assert "everything is in place" not in capsys.readouterr().out
    assert main(["enable", "--profile", "work"]) == 0
    assert _doctor_json(capsys, "--host", "claude-code")[0] == 0
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "| 7 | `jev doctor`" in readme
    from jev import cli

    assert cli.EXIT_NOT_READY == 7 and cli.EXIT_USAGE == 2


def test_doctor_finds_the_hook_installed_at_two_scopes(
    doctor_home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = doctor_home / "code" / "app"
    (repo / ".git").mkdir(parents=True)
    monkeypatch.chdir(repo)
    assert main(["enable", "--create"]) == 0
    assert main(["install", "claude-code", "--scope", "user"]) == 0
    assert main(["install", "claude-code", "--scope", "project"]) == 0
    code, report = _doctor_json(capsys, "--host", "claude-code")
    assert code == 7
    (line,) = [p for p in report["problems"] if "installed at" in p]
    assert "every stop" in line and "jev uninstall claude-code --scope project" in line
    assert main(["uninstall", "claude-code", "--scope", "project"]) == 0
    assert _doctor_json(capsys, "--host", "claude-code")[0] == 0


def test_doctor_finds_cursor_loop_limit_below_max_supplements(
    doctor_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (doctor_home / ".cursor").mkdir()
    assert main(["enable", "--create"]) == 0
    assert main(["install", "cursor"]) == 0  # loop_limit = max_supplements (3)
    assert _doctor_json(capsys, "--host", "cursor")[0] == 0
    assert main(["settings", "set", "max_supplements", "5"]) == 0
    code, report = _doctor_json(capsys, "--host", "cursor")
    assert code == 7
    assert any("loop_limit 3, below max_supplements 5" in p for p in report["problems"]), report[
        "problems"
    ]
    assert main(["install", "cursor"]) == 0  # the fix the line names
    assert _doctor_json(capsys, "--host", "cursor")[0] == 0


def test_a_model_without_a_provider_is_not_called_no_model(jev_home: Path) -> None:
    assert _run_jev("settings", "set", "judge.model", "deepseek-chat").returncode == 0
    shown = _run_jev("audit", str(EXAMPLE), "--no-record")
    assert "no model configured" not in shown.stdout
    assert "judge.model deepseek-chat is set but judge.provider is rules" in shown.stdout


def test_report_and_overview_count_only_needs_user_verdicts_as_needs_user(
    jev_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from jev.store import Store, default_store_path
    from jev.ui.records_view import Filters, overview

    for _ in range(3):  # jev audit hands an omission to the user: not a needs-user verdict
        assert main(["audit", str(EXAMPLE)]) == 4
    capsys.readouterr()
    assert main(["report", "--json"]) == 0
    total = json.loads(capsys.readouterr().out)["total"]
    assert total["needs_user"] == 0 and total["handed_over"] == 3
    assert total["verdicts"] == {"omission": 3}
    assert main(["report"]) == 0
    table = capsys.readouterr().out
    assert "needs-user" in table and "handed over" in table
    with Store(default_store_path()) as store:
        data = overview(store.iter_records(), Filters.from_query({}))
    assert (data.handoffs, data.handed_over) == (0, 3)


@pytest.mark.parametrize(
    "text",
    [
        '["rules-v1"]\ninput_per_million = 1.0\noutput_per_million = 2.0\n',
        '[models."rules-v1"]\ninput = 1.0\noutput = 2.0\n',
    ],
)
def test_eval_and_report_read_the_same_prices_file(text: str, tmp_path: Path) -> None:
    from jev.measure.evaluate import load_prices as eval_prices
    from jev.measure.report import load_prices as report_prices

    path = tmp_path / "prices.toml"
    path.write_text(text, encoding="utf-8")
    assert report_prices(path).table == {"rules-v1": (1.0, 2.0)}
    assert eval_prices(path).cost("rules-v1", 1_000_000, 1_000_000) == pytest.approx(3.0)
    slashed = tmp_path / "slash.toml"
    slashed.write_text('["openai/m"]\ninput_per_million = 1\noutput_per_million = 1\n')
    assert eval_prices(slashed).cost("m", 10**6, 0, provider="openai") == pytest.approx(1.0)
    for argv in (
        ["eval", str(REPO / "tests" / "fixtures" / "cases"), "--judge", "rules"],
        ["report"],
    ):
        done = _run_jev(*argv, "--prices", str(path))
        assert done.returncode in (0, 3), (argv, done.stderr)
        assert "prices" not in done.stderr, done.stderr


ALL_HOSTS = ("claude-code", "codex", "gemini", "cursor", "copilot", "qwen", "droid")


def test_install_then_uninstall_every_host_leaves_the_repository_clean(
    fake_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = fake_home / "code" / "app"
    repo.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    own = repo / ".qwen" / "settings.json"  # a file of the user's, committed
    own.parent.mkdir()
    original = '{"permissions": {"allow": ["Bash(ls)"]}}\n'
    own.write_text(original, encoding="utf-8")
    git = ["git", "-C", str(repo), "-c", "user.email=a@b.c", "-c", "user.name=n"]
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "init"], check=True)
    monkeypatch.chdir(repo)

    def status() -> str:
        done = subprocess.run(
            [*git, "status", "--porcelain", "--untracked-files=all"],
            capture_output=True,
            text=True,
            check=True,
        )
        return done.stdout

    for host in ALL_HOSTS:
        assert main(["install", host, "--scope", "project"]) == 0, host
    assert len(status().splitlines()) >= 8
    for host in ALL_HOSTS:
        assert main(["uninstall", host, "--scope", "project"]) == 0, host
    assert status() == ""  # no empty file, folder or backup left
    assert own.read_text(encoding="utf-8") == original  # the user's bytes, not reformatted
    for host in ALL_HOSTS:  # at user scope too: the home folder is left as it was
        assert main(["install", host]) == 0, host
        assert main(["uninstall", host]) == 0, host
    left = sorted(
        str(p.relative_to(fake_home)) for p in fake_home.rglob("*") if ".git" not in p.parts
    )
    assert left == ["code", "code/app", "code/app/.qwen", "code/app/.qwen/settings.json"]


def test_readme_installs_from_the_checkout_until_a_release_exists() -> None:
    from tests.test_readme_blocks import _BLOCK

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    code = "\n".join(block for _, _, block in _BLOCK.findall(readme))
    assert 'pip install ".[postgres]"' in code
    for line in code.splitlines():
        assert not re.search(r"pipx? install (-\S+ )*\"?jev\b", line), line
    plugin = (REPO / "plugins" / "jev" / "hooks" / "hooks.json").read_text(encoding="utf-8")
    assert "pipx install jev" not in plugin and "pip install jev" not in plugin


_MAIN = [sys.executable, "-c", "import sys; from jev.cli import main; sys.exit(main())"]


def test_a_hook_typo_exits_0_with_a_notice(tmp_path: Path) -> None:
    done = subprocess.run(
        [*_MAIN, "hook", "claude-cod"],
        input='{"hook_event_name": "Stop", "session_id": "s"}',
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0 and done.stdout == ""
    assert "claude-cod" in done.stderr and "let through" in done.stderr
    assert "claude-code" in done.stderr  # the names it knows


def test_scripted_is_not_offered_as_a_judge(jev_home: Path) -> None:
    from jev.registry import offered_judge_names

    assert "scripted" not in offered_judge_names() and "rules" in offered_judge_names()
    refused = _run_jev("settings", "set", "judge.provider", "nope")
    assert refused.returncode == 2 and "accepted:" in refused.stderr
    assert "scripted" not in refused.stderr and "ollama" in refused.stderr


def test_settings_unset_brings_the_default_back(jev_home: Path) -> None:
    assert _run_jev("settings", "set", "judge.model", "deepseek-chat").returncode == 0
    assert _run_jev("settings", "set", "max_supplements", "1").returncode == 0
    done = _run_jev("settings", "unset", "judge.model")
    assert done.returncode == 0 and "removed from profile default" in done.stdout
    text = (jev_home / "profiles" / "default.toml").read_text(encoding="utf-8")
    assert "deepseek" not in text and "max_supplements = 1" in text
    assert _run_jev("settings", "unset", "judge.nope").returncode == 2


def test_records_list_has_a_header_row(jev_home: Path) -> None:
    assert main(["audit", str(EXAMPLE)]) == 4
    listed = _run_jev("records", "list")
    header, first = listed.stdout.splitlines()[:2]
    assert header.startswith("id  time (UTC)") and "verdict" in header and "action" in header
    assert first.startswith("#1") and header.index("verdict") == first.index("  omission ") + 2


def test_a_skipped_last_turn_points_at_earlier_todo_turns(jev_home: Path) -> None:
    session = REPO / "examples" / "claude-code-1.0.31_amac0-ClaudeStatus_example.jsonl"
    done = _run_jev("audit", str(session), "--no-record")
    assert done.returncode == 0
    assert "skipped: no Todo use" in done.stdout
    assert "hint: turn 1 of 2 used a Todo list" in done.stdout and "--all-turns" in done.stdout
    every = _run_jev("audit", str(session), "--no-record", "--all-turns")
    assert "hint:" not in every.stdout


@pytest.mark.slow
def test_ui_test_the_judge_with_the_readme_ollama_profile_asks_for_no_key(
    jev_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.ui.conftest import start_ui
    from tests.ui.test_security import csrf_of, request, token_path

    monkeypatch.delenv("OLLAMA_API_KEY", raising=False)
    assert main(["profiles", "create", "local"]) == 0
    assert main(["settings", "set", "judge.provider", "ollama", "--profile", "local"]) == 0
    assert main(["settings", "set", "judge.model", "qwen2.5:7b", "--profile", "local"]) == 0
    ui = start_ui()
    try:
        form = {"profile": "local", "csrf": csrf_of(ui)}
        status, page, _ = request(ui, "POST", token_path(ui) + "/settings/test-judge", form)
    finally:
        ui.stop()
    assert status == 200, page[:500]
    assert "OLLAMA_API_KEY" not in page and "needs an API key" not in page
    assert "ollama" in page  # the test ran against the ollama judge (a result or a failure)


def test_doctor_checks_the_key_of_the_hook_profiles_judge(
    doctor_home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("JEV_FH_KEY", raising=False)
    assert main(["enable", "--create"]) == 0  # the active profile: rules, no key
    assert main(["profiles", "create", "paid"]) == 0
    for key, value in (
        ("judge.provider", "openai"),
        ("judge.model", "gpt-4o-mini"),
        ("judge.api_key_env", "JEV_FH_KEY"),
        ("enabled", "true"),
    ):
        assert main(["settings", "set", key, value, "--profile", "paid"]) == 0
    assert main(["install", "claude-code", "--profile", "paid"]) == 0
    code, report = _doctor_json(capsys, "--host", "claude-code")
    assert code == 7
    assert any("profile paid" in p and "JEV_FH_KEY" in p for p in report["problems"])
    monkeypatch.setenv("JEV_FH_KEY", "sk-test")
    assert _doctor_json(capsys, "--host", "claude-code")[0] == 0


def test_local_scope_uninstall_takes_back_its_gitignore_line(
    fake_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = fake_home / "app"
    (repo / ".git").mkdir(parents=True)
    monkeypatch.chdir(repo)
    assert main(["install", "claude-code", "--scope", "local"]) == 0
    assert (repo / ".gitignore").read_text(encoding="utf-8") == ".claude/settings.local.json\n"
    assert main(["uninstall", "claude-code", "--scope", "local"]) == 0
    assert sorted(p.name for p in repo.iterdir()) == [".git"]  # nothing Jev made is left
    (repo / ".gitignore").write_text("node_modules/\n", encoding="utf-8")  # the user's own
    assert main(["install", "claude-code", "--scope", "local"]) == 0
    assert main(["uninstall", "claude-code", "--scope", "local"]) == 0
    assert (repo / ".gitignore").read_text(encoding="utf-8") == "node_modules/\n"
