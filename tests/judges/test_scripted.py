"""The scripted judge (design.md §13: "a scripted/replay judge for tests and replay")."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from jev.base.domain import JudgeInput, JudgeSettings, Numbering
from jev.base.errors import ContextLengthError, SettingsError, TransportError
from jev.judges import Judge, create_judge
from jev.judges.scripted import LOG_ENV, REPLIES_ENV, ScriptedJudge, load_script

REPO = Path(__file__).resolve().parents[2]


def test_plays_entries_in_order(judge_input: JudgeInput, numbering: Numbering) -> None:
    boom = TransportError("scripted outage", kind="http-5xx", status=503)
    judge = ScriptedJudge(
        [
            "first",
            boom,
            lambda ji, num: f"{ji.language}:{len(num.positions)}",
        ],
        model="replay-model",
    )
    assert isinstance(judge, Judge)
    assert judge.remaining == 3
    first = judge.ask(judge_input, numbering)
    assert first.text == "first" and first.model == "replay-model" and first.usage is None
    with pytest.raises(TransportError) as info:
        judge.ask(judge_input, numbering)
    assert info.value is boom
    assert judge.ask(judge_input, numbering).text == "en:5"
    with pytest.raises(TransportError) as exhausted:
        judge.ask(judge_input, numbering)
    assert exhausted.value.kind == "script-exhausted"
    assert exhausted.value.retryable is False
    assert "call 4" in str(exhausted.value) and "3 entries" in str(exhausted.value)
    assert judge.calls == [judge_input] * 4
    assert judge.remaining == 0
    judge.close()


def test_info_is_configurable() -> None:
    judge = ScriptedJudge([], provider="rules", model="heuristic-v1", heuristic=True)
    assert (judge.info.provider, judge.info.model, judge.info.heuristic) == (
        "rules",
        "heuristic-v1",
        True,
    )


def test_concurrent_consumption_from_threads(judge_input: JudgeInput, numbering: Numbering) -> None:
    judge = ScriptedJudge([str(i) for i in range(20)])
    with ThreadPoolExecutor(max_workers=8) as pool:
        texts = [a.text for a in pool.map(lambda _: judge.ask(judge_input, numbering), range(20))]
    assert sorted(texts, key=int) == [str(i) for i in range(20)]
    assert len(judge.calls) == 20


def _write(path: Path, data: object) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_load_script_formats(tmp_path: Path) -> None:
    entries = load_script(
        _write(
            tmp_path / "r.json",
            [
                "reply",
                {"error": "timeout"},
                {"error": "rate-limited", "status": 429, "retry_after_s": 2, "message": "slow"},
                {"error": "auth", "status": 401, "retryable": False},
                {"error": "context-length", "status": 400},
            ],
        )
    )
    assert entries[0] == "reply"
    timeout, rate, auth, ctx = entries[1:]
    assert isinstance(timeout, TransportError) and timeout.kind == "timeout" and timeout.retryable
    assert isinstance(rate, TransportError)
    assert (rate.kind, rate.status, rate.retry_after_s, str(rate)) == (
        "rate-limited",
        429,
        2.0,
        "slow",
    )
    assert isinstance(auth, TransportError) and auth.retryable is False
    assert isinstance(ctx, ContextLengthError) and ctx.status == 400


@pytest.mark.parametrize(
    ("content", "match"),
    [
        ("not json", "not valid JSON"),
        ('{"a": 1}', "must be a JSON list"),
        ("[1]", "entry 1"),
        ('["ok", {"error": ""}]', "entry 2"),
    ],
)
def test_load_script_refuses_bad_files(tmp_path: Path, content: str, match: str) -> None:
    path = tmp_path / "r.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(SettingsError, match=match):
        load_script(path)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(SettingsError, match="cannot read"):
        load_script(tmp_path / "absent.json")


def test_from_settings_requires_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(REPLIES_ENV, raising=False)
    with pytest.raises(SettingsError, match=REPLIES_ENV):
        create_judge(JudgeSettings(provider="scripted"))


def test_from_settings_reads_file_and_logs(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    judge_input: JudgeInput,
    numbering: Numbering,
) -> None:
    replies = _write(tmp_path / "replies.json", ["one", {"error": "http-5xx", "status": 500}])
    log = tmp_path / "calls.jsonl"
    monkeypatch.setenv(REPLIES_ENV, str(replies))
    monkeypatch.setenv(LOG_ENV, str(log))
    judge = create_judge(JudgeSettings(provider="scripted", model="m-from-settings"))
    assert judge.info.provider == "scripted" and judge.info.model == "m-from-settings"
    assert judge.ask(judge_input, numbering).text == "one"
    with pytest.raises(TransportError) as info:
        judge.ask(judge_input, numbering)
    assert info.value.kind == "http-5xx" and info.value.status == 500
    with pytest.raises(TransportError, match="no reply left"):
        judge.ask(judge_input, numbering)
    lines = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert len(lines) == 3
    assert lines[0] == {
        "system": judge_input.system,
        "user": judge_input.user,
        "language": "en",
        "template_hash": judge_input.template_hash,
    }


def test_file_script_is_shared_across_processes(tmp_path: Path) -> None:
    replies = _write(tmp_path / "replies.json", ["alpha", "beta"])
    log = tmp_path / "calls.jsonl"
    code = (
        "from jev.base.domain import JudgeInput, JudgeSettings, Material, Numbering\n"
        "from jev.base.errors import TransportError\n"
        "from jev.judges import create_judge\n"
        "j = create_judge(JudgeSettings(provider='scripted'))\n"
        "n = Numbering(Material(('x',)), ())\n"
        "try:\n"
        "    print(j.ask(JudgeInput('s', 'u', 'en', 'h'), n).text)\n"
        "except TransportError as e:\n"
        "    print(e.kind)\n"
    )
    env = {**os.environ, REPLIES_ENV: str(replies), LOG_ENV: str(log)}
    outputs = [
        subprocess.run(
            [sys.executable, "-c", code],
            env=env,
            cwd=REPO,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        for _ in range(3)
    ]
    assert outputs == ["alpha", "beta", "script-exhausted"]
    assert len(log.read_text(encoding="utf-8").splitlines()) == 3
    # deleting the cursor starts the queue over
    (tmp_path / "replies.json.cursor").unlink()
    again = subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert again == "alpha"
