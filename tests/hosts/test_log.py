"""Jev's log: why a stop was skipped, audited or refused (issue 24 item 4; jev/log.py).

Real ``jev hook claude-code`` processes with ``JEV_LOG`` set: the log names the fast
path's reasons (no Todo use, a disabled profile), an audited turn's verdict, focus
and counted supplement, its judge call and its steps; a log folder that cannot be
written changes neither the exit code nor the output; rotation bounds the size;
without ``JEV_LOG`` nothing is written and the fast path imports neither
``logging`` nor :mod:`jev.log`.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from jev import log
from jev.settings.profiles import save_settings
from tests.conftest import FIXTURES
from tests.settings.helpers import MAIN_SNIPPET, child_env

NO_TODO = FIXTURES / "real" / "claude-code-2.1.38_marot-spotter_short.jsonl"
AUDITED = FIXTURES / "hand" / "claude-tasks.jsonl"


def _payload(path: Path | str, session: str = "s-log") -> str:
    return json.dumps(
        {"hook_event_name": "Stop", "session_id": session, "transcript_path": str(path)}
    )


def _hook(
    payload: str, *args: str, host: str = "claude-code", **env: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", MAIN_SNIPPET, "hook", host, *args],
        input=payload,
        env=child_env(**env),
        capture_output=True,
        text=True,
        timeout=120,
    )


def _lines(home: Path) -> list[dict[str, str]]:
    text = (home / "logs" / "jev.log").read_text(encoding="utf-8")
    parsed = [log.parse_line(line) for line in text.splitlines()]
    assert all(parsed), text  # every line is one of Jev's
    return [p for p in parsed if p]


def _stops(home: Path) -> list[dict[str, str]]:
    return [line for line in _lines(home) if line["event"] == "stop"]


def test_a_turn_without_todo_use_is_logged_by_the_fast_path(jev_home: Path) -> None:
    save_settings(None, {"enabled": True})
    done = _hook(_payload(NO_TODO, "s-notodo"), JEV_LOG="info")
    assert done.returncode == 0 and done.stdout == ""
    [stop] = _stops(jev_home)
    assert stop["session"] == "s-notodo" and stop["host"] == "claude-code"
    assert stop["path"] == "fast" and stop["outcome"] == "skipped"
    assert stop["reason"] == "no Todo use in this turn"
    assert float(stop["ms"]) >= 0


def test_a_disabled_profile_is_logged_on_the_fast_and_the_full_path(jev_home: Path) -> None:
    # claude-code decides it on the fast path; gemini has none: its full hook decides
    missing = jev_home / "never-read.jsonl"
    assert _hook(_payload(missing, "s-off"), JEV_LOG="debug").returncode == 0
    gemini = json.dumps(
        {"hook_event_name": "AfterAgent", "session_id": "s-off-g", "transcript_path": "/x"}
    )
    assert _hook(gemini, host="gemini", JEV_LOG="debug").returncode == 0
    fast, full = _stops(jev_home)
    assert (fast["path"], fast["outcome"]) == ("fast", "skipped")
    assert fast["reason"] == "profile default is disabled"
    assert (full["host"], full["path"], full["outcome"]) == ("gemini", "full", "skipped")
    assert full["reason"] == "profile default is disabled"


def test_an_audited_turn_logs_verdict_focus_count_judge_call_and_steps(jev_home: Path) -> None:
    save_settings(None, {"enabled": True})
    done = _hook(
        _payload(AUDITED, "s-audit"), JEV_LOG="debug", OPENAI_API_KEY="sk-test-" + "k" * 30
    )
    assert done.returncode == 0 and '"decision": "block"' in done.stdout
    lines = _lines(jev_home)
    [stop] = [line for line in lines if line["event"] == "stop"]
    assert (stop["outcome"], stop["path"], stop["profile"]) == ("audited", "full", "default")
    assert stop["verdict"] and stop["focus"]  # the judge's assessment and focus id
    assert (stop["action"], stop["counted"], stop["supplements"]) == ("supplement", "yes", "1")
    for name in ("gate", "read_turn", "render", "judge", "decide", "record"):
        assert float(stop[f"{name}_ms"]) >= 0, name
    [judge] = [line for line in lines if line["event"] == "judge"]
    assert (judge["provider"], judge["call"], judge["outcome"]) == ("rules", "1", "answered")
    assert float(judge["ms"]) >= 0 and int(judge["reply_chars"]) > 0
    steps = {line["step"] for line in lines if line["event"] == "step"}
    assert {"gate", "read_turn", "render", "judge", "decide", "record"} <= steps
    assert len({line["pid"] for line in lines}) == 1  # one process, named on every line
    text = (jev_home / "logs" / "jev.log").read_text(encoding="utf-8")
    assert "Set up the package" not in text  # never the material
    assert "sk-test-" not in text and "kkkkkkkkkkkk" not in text  # never a key


def test_info_level_leaves_out_the_step_lines(jev_home: Path) -> None:
    save_settings(None, {"enabled": True})
    assert _hook(_payload(AUDITED, "s-info"), JEV_LOG="info").returncode == 0
    events = [line["event"] for line in _lines(jev_home)]
    assert events == ["judge", "stop"]


def test_debug_flag_logs_without_jev_log(jev_home: Path) -> None:
    save_settings(None, {"enabled": True})
    env = child_env()
    env.pop("JEV_LOG", None)
    done = subprocess.run(
        [sys.executable, "-c", MAIN_SNIPPET, "hook", "claude-code", "--debug"],
        input=_payload(NO_TODO, "s-flag"),
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0 and done.stderr == ""
    [stop] = _stops(jev_home)
    assert stop["reason"] == "no Todo use in this turn"


def test_without_jev_log_nothing_is_written(jev_home: Path) -> None:
    save_settings(None, {"enabled": True})
    for path, session in ((NO_TODO, "a"), (AUDITED, "b")):
        assert _hook(_payload(path, session), JEV_LOG="").returncode == 0
    assert not (jev_home / "logs").exists()


@pytest.mark.parametrize("breakage", ["logs-is-a-file", "log-is-a-folder"])
def test_a_log_that_cannot_be_written_changes_nothing(
    breakage: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    results = []
    for logging_on in (False, True):
        home = tmp_path / f"home-{logging_on}"
        monkeypatch.setenv("JEV_HOME", str(home))
        save_settings(None, {"enabled": True})
        if breakage == "logs-is-a-file":
            (home / "logs").write_text("not a folder")
        else:
            (home / "logs" / "jev.log").mkdir(parents=True)
        env = {"JEV_LOG": "debug" if logging_on else ""}
        runs = [_hook(_payload(p, "s-broken"), **env) for p in (NO_TODO, AUDITED)]
        results.append([(r.returncode, r.stdout, r.stderr) for r in runs])
        assert not (home / "hook-errors.jsonl").exists()
    assert results[0] == results[1]
    assert results[1][1][1]  # the audited turn still blocked


def test_rotation_bounds_the_size(jev_home: Path) -> None:
    code = (
        "from jev import log\n"
        "for n in range(400):\n"
        "    log.emit('stop', host='claude-code', outcome='skipped', reason='r' * 50, n=n)\n"
    )
    env = child_env(JEV_LOG="info", JEV_LOG_MAX_BYTES="2048")
    subprocess.run([sys.executable, "-c", code], env=env, check=True, timeout=60)
    folder = jev_home / "logs"
    names = sorted(p.name for p in folder.iterdir())
    assert names == ["jev.log", "jev.log.1", "jev.log.2", "jev.log.3"]
    assert all((folder / name).stat().st_size <= 2048 for name in names)
    newest = log.parse_line((folder / "jev.log").read_text().splitlines()[-1])
    assert newest is not None and newest["n"] == "399"


def test_lines_read_back_and_secrets_are_scrubbed(monkeypatch: pytest.MonkeyPatch) -> None:
    secret = "sk-live-" + "x1y2" * 8
    monkeypatch.setenv("SOME_PROVIDER_API_KEY", secret)
    text = log.format_fields(
        "judge", {"reason": f"401 for key {secret}", "model": "m", "ms": 12.345, "ok": True}
    )
    assert secret[:12] not in text and "[REDACTED]" in text
    parsed = log.parse_line("2026-12-01T22:10:00.123Z INFO " + text)
    assert parsed is not None
    assert (parsed["event"], parsed["model"], parsed["ms"], parsed["ok"]) == (
        "judge",
        "m",
        "12.3",
        "yes",
    )
    assert parsed["reason"].startswith("401 for key ")
    assert log.parse_line("not a Jev line") is None


def test_recent_skips_per_host_newest_first(jev_home: Path) -> None:
    save_settings(None, {"enabled": True})
    for session in ("one", "two", "three", "four"):
        assert _hook(_payload(NO_TODO, session), JEV_LOG="info").returncode == 0
    assert _hook(_payload(jev_home / "missing.jsonl", "gone"), JEV_LOG="info").returncode == 0
    skips = log.recent_skips(per_host=3)
    assert list(skips) == ["claude-code"]
    reasons = [s["reason"] for s in skips["claude-code"]]
    assert reasons == ["material missing", "no Todo use in this turn", "no Todo use in this turn"]


_MODULES = (
    "import atexit, sys\n"
    "out = sys.argv.pop(2)\n"
    "atexit.register(lambda: open(out, 'w').write('\\n'.join(sorted(sys.modules))))\n"
    "from jev.cli import main\n"
    "sys.exit(main(['hook', sys.argv[1]]))\n"
)


def test_the_fast_path_loads_no_logging_without_jev_log(jev_home: Path, tmp_path: Path) -> None:
    save_settings(None, {"enabled": True})
    out = tmp_path / "modules"
    done = subprocess.run(
        [sys.executable, "-c", _MODULES, "claude-code", str(out)],
        input=_payload(NO_TODO),
        env=child_env(JEV_LOG=""),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    modules = set(out.read_text().split())
    assert "jev.hosts.fastpath" in modules  # the fast path ran
    assert not {"logging", "jev.log", "jev.hosts.hook"} & modules


def test_doctor_shows_the_last_skip_reasons_per_host(jev_home: Path) -> None:
    save_settings(None, {"enabled": True})
    assert _hook(_payload(NO_TODO, "s-doc"), JEV_LOG="info").returncode == 0
    assert _hook(_payload(jev_home / "gone.jsonl", "s-doc2"), JEV_LOG="info").returncode == 0
    text = subprocess.run(
        [sys.executable, "-c", MAIN_SNIPPET, "doctor", "--host", "claude-code"],
        env=child_env(JEV_LOG=""),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert text.returncode in (0, 7), text.stderr  # 7: the hook is not installed here
    skipped = [line.strip() for line in text.stdout.splitlines() if "skipped 20" in line]
    assert len(skipped) == 2
    assert skipped[0].endswith(": material missing")
    assert skipped[1].endswith(": no Todo use in this turn")
    data = subprocess.run(
        [sys.executable, "-c", MAIN_SNIPPET, "doctor", "--host", "claude-code", "--json"],
        env=child_env(JEV_LOG=""),
        capture_output=True,
        text=True,
        timeout=120,
    )
    [host] = json.loads(data.stdout)["hosts"]
    assert [s["reason"] for s in host["recent_skips"]] == [
        "material missing",
        "no Todo use in this turn",
    ]
    assert [s["path"] for s in host["recent_skips"]] == ["full", "fast"]


def test_a_refused_turn_names_the_budget(jev_home: Path) -> None:
    save_settings(None, {"enabled": True, "evidence_chars": 300})
    assert _hook(_payload(AUDITED, "s-big"), JEV_LOG="info").returncode == 0
    [stop] = _stops(jev_home)
    assert stop["outcome"] == "refused" and "evidence_chars" in stop["reason"]
    assert int(stop["input_chars"]) > int(stop["budget_chars"]) == 300


def test_a_failed_judge_call_names_its_kind_not_its_message(jev_home: Path) -> None:
    judge = {
        "judge.provider": "openai",
        "judge.model": "m-test",
        "judge.base_url": "http://127.0.0.1:9/v1",  # the discard port: nothing listens
        "judge.technical_retries": 0,
        "judge.timeout_s": 5.0,
    }
    save_settings(None, {"enabled": True, **judge})
    key = "sk-test-" + "q" * 32
    done = _hook(_payload(AUDITED, "s-down"), JEV_LOG="info", OPENAI_API_KEY=key)
    assert done.returncode == 0
    lines = _lines(jev_home)
    [call] = [line for line in lines if line["event"] == "judge"]
    assert (call["provider"], call["model"], call["outcome"]) == ("openai", "m-test", "failed")
    assert call["error_kind"] and call["error"]
    [stop] = [line for line in lines if line["event"] == "stop"]
    assert stop["outcome"] == "incomplete" and stop["attempts"] == "1"
    text = (jev_home / "logs" / "jev.log").read_text(encoding="utf-8")
    assert "127.0.0.1" not in text and "qqqqqqqqqqqq" not in text


def test_a_technical_retry_names_the_previous_calls_problem(
    jev_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from jev.base.domain import Material
    from jev.judges.scripted import ScriptedJudge
    from jev.pipeline.audit import run_audit
    from jev.settings.profiles import load_settings

    monkeypatch.setenv("JEV_LOG", "info")
    material = Material(
        ("Write the docs.",), [{"content": "Write docs", "status": "completed"}], "Done.", True
    )
    judge = ScriptedJudge(["not json at all", '{"assessment": "complete", "focus": "none"}'])
    outcome = run_audit(material, load_settings(None), judge, sleep=lambda _s: None)
    assert outcome.status == "verdict" and outcome.attempts == 2
    calls = [line for line in _lines(jev_home) if line["event"] == "judge"]
    assert [c["call"] for c in calls] == ["1", "2"]
    assert "retry_for" not in calls[0] and calls[1]["retry_for"].startswith("reply-")
    assert all(c["outcome"] == "answered" and c["provider"] == "scripted" for c in calls)
    assert "not json" not in (jev_home / "logs" / "jev.log").read_text(encoding="utf-8")
