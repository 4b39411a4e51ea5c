"""Live replay against a local OpenAI-compatible fake server: concurrency, kill, resume, κ."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from jev.base.domain import JudgeSettings, Settings
from jev.cli import main
from jev.judges.scripted import ScriptedJudge
from jev.measure.live import live_replay
from jev.measure.replay_source import iter_jsonl
from tests.conftest import REPO
from tests.fakeserver import FakeProvider, Reply, openai_completion
from tests.replay.conftest import golden_lines, write_jsonl

_MAIN = "import sys; from jev.cli import main; sys.exit(main())"
N_RECORDS = 500
#: Requests the fake judge answers before it holds the rest (see the kill test).
GATE = 150


def _live_records(n: int) -> list[dict[str, Any]]:
    """``n`` audited records: even ones stored complete, odd ones stored omission at T3;
    the request of each carries its number so the fake can answer per record."""
    complete = next(r for r in golden_lines() if r["session"] == "verdict-complete")
    omission = next(r for r in golden_lines() if r["session"] == "verdict-omission")
    out = []
    for i in range(n):
        base = json.loads(json.dumps(omission if i % 2 else complete))
        base["session"] = f"live-{i}"
        base["turn"] = f"live-{i}-turn"
        base["id"] = i + 1
        base["material"]["request"] = [base["material"]["request"][0] + f" (ticket #{i})"]
        out.append(base)
    return out


def _answer(body: Any) -> Reply:
    """Odd tickets: omission at T3, even: complete — except every 10th ticket, where the
    fake disagrees with the stored verdict (so κ is below 1)."""
    user = body["messages"][-1]["content"]
    ticket = int(user.split("(ticket #", 1)[1].split(")", 1)[0])
    omission = ticket % 2 == 1
    if ticket % 10 == 0:
        omission = not omission
    reply = (
        '{"assessment": "omission", "focus": "T3"}'
        if omission
        else '{"assessment": "complete", "focus": "none"}'
    )
    return Reply(
        json=openai_completion(reply, prompt_tokens=900, completion_tokens=9), delay_s=0.01
    )


def _start(source: Path, out: Path, base_url: str, *extra: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO), "JEV_TEST_KEY": "sk-test-0123456789"}
    return subprocess.Popen(
        [
            sys.executable,
            "-c",
            _MAIN,
            "replay",
            str(source),
            "--live",
            "--judge",
            "openai",
            "--model",
            "fake-model",
            "--base-url",
            base_url,
            "--api-key-env",
            "JEV_TEST_KEY",
            "--concurrency",
            "16",
            "--out",
            str(out),
            *extra,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def _lines(path: Path) -> list[str]:
    if not path.exists():
        return []
    # Only finished lines: a line the running replay is still writing has no newline yet,
    # and counting it would race the writer on a loaded machine.
    finished = path.read_text("utf-8").split("\n")[:-1]
    return [line for line in finished if line.strip()]


@pytest.mark.slow
def test_live_replay_killed_half_way_resumes_and_reports_kappa(tmp_path: Path) -> None:
    source = write_jsonl(tmp_path / "records.jsonl", _live_records(N_RECORDS))
    out = tmp_path / "answers.jsonl"
    # A gate instead of timing: the fake answers GATE requests, then holds every further
    # one until released, so the first run is always still running when it is killed.
    gate, served, lock = threading.Event(), [0], threading.Lock()

    def gated(body: Any) -> Reply:
        with lock:
            served[0] += 1
            held = served[0] > GATE
        if held:
            gate.wait(timeout=300)
        return _answer(body)

    with FakeProvider(default=gated) as fake:
        first = _start(source, out, fake.openai_base)
        deadline = time.monotonic() + 300
        while len(_lines(out)) < GATE and first.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)  # polls for a state (GATE lines written), not for time
        assert first.poll() is None, "the first run ended before it could be killed"
        assert len(_lines(out)) == GATE
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=30)
        gate.set()
        answered_before = {json.loads(line)["key"] for line in _lines(out)}
        assert len(answered_before) == GATE
        asked_before = fake.count

        second = _start(source, out, fake.openai_base, "--resume")
        stdout, stderr = second.communicate(timeout=300)
        assert second.returncode == 0, stderr
        total_requests = fake.count

    lines = [json.loads(line) for line in _lines(out)]
    keys = [line["key"] for line in lines]
    assert len(keys) == len(set(keys)) == N_RECORDS
    assert answered_before <= set(keys)
    # Nobody answered is asked twice: beyond them, only the calls held at the gate when
    # the first run was killed (at most --concurrency 16) are asked again.
    asked_again = total_requests - N_RECORDS
    assert 0 <= asked_again <= 16
    assert total_requests - asked_before == N_RECORDS - GATE
    # Agreement: every 10th ticket disagrees -> 450/500 agree, kappa 0.8.
    assert "agreement 90.0% of 500" in stdout
    assert "Cohen's κ 0.800" in stdout
    assert "focus agreement 90.0% (450/500)" in stdout
    live = lines[0]["live"]
    assert live["usage"] == {"input_tokens": 900, "output_tokens": 9}
    assert live["judge"]["provider"] == "openai"
    assert "sk-test-0123456789" not in out.read_text("utf-8")


def test_existing_output_needs_resume(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = write_jsonl(tmp_path / "records.jsonl", _live_records(2))
    out = tmp_path / "answers.jsonl"
    out.write_text('{"key": "x"}\n', "utf-8")
    code = main(["replay", str(source), "--live", "--judge", "rules", "--out", str(out)])
    assert code == 2
    assert "--resume" in capsys.readouterr().err
    assert main(["replay", str(source), "--live", "--out", str(out)]) == 2  # no --judge


def test_live_replay_honours_retry_after_and_counts_non_audits(tmp_path: Path) -> None:
    records = _live_records(3)
    cancelled = next(r for r in golden_lines() if r["status"] == "cancelled")
    source = write_jsonl(tmp_path / "records.jsonl", [*records, cancelled])
    out = tmp_path / "answers.jsonl"
    from jev.base.errors import TransportError

    judge = ScriptedJudge(
        [
            TransportError("slow down", kind="rate-limited", status=429, retry_after_s=2.5),
            '{"assessment": "complete", "focus": "none"}',
            '{"assessment": "omission", "focus": "T3"}',
            '{"assessment": "complete", "focus": "none"}',
        ]
    )
    waits: list[float] = []
    settings = Settings(judge=JudgeSettings(provider="scripted", technical_retries=1))

    summary = live_replay(
        iter_jsonl(source), settings, judge, out, concurrency=1, sleep=waits.append
    )
    assert waits == [2.5]
    assert (summary.read, summary.asked, summary.not_audited) == (4, 3, 1)
    first = json.loads(_lines(out)[0])
    assert first["live"]["attempts"] == 2
    assert summary.agreement.confusion.total == 3


def test_live_from_the_store_with_progress_and_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from jev.store import Store
    from tests.replay.conftest import GOLDEN

    with Store() as store:
        store.import_report(GOLDEN)
    out = tmp_path / "answers.jsonl"
    args = ["replay", "--store", "--live", "--judge", "rules", "--out", str(out)]
    assert main([*args, "--progress", "--json"]) == 0
    captured = capsys.readouterr()
    report = json.loads(captured.out)
    audited = [r for r in golden_lines() if r["status"] in ("verdict", "incomplete")]
    assert report["asked"] == len(audited)
    assert report["not_audited"] == len(golden_lines()) - len(audited)
    assert report["agreement"]["pairs"] == len(audited)
    assert "jev replay --live" in captured.err and "records" in captured.err
    # Everything answered: a resumed run asks nothing.
    assert main([*args, "--resume", "--json"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["asked"] == 0 and again["resumed"] == len(audited)
    assert again["agreement"]["pairs"] == len(audited)


def test_resume_cuts_a_line_left_unfinished_by_a_kill(tmp_path: Path) -> None:
    records = _live_records(3)
    source = write_jsonl(tmp_path / "records.jsonl", records)
    out = tmp_path / "answers.jsonl"
    settings = Settings(judge=JudgeSettings(provider="rules"))
    from jev.judges.rules import RulesJudge

    live_replay(iter_jsonl(source), settings, RulesJudge(), out)
    whole = _lines(out)
    out.write_text(whole[0] + "\n" + whole[1][: len(whole[1]) // 2], "utf-8")  # killed mid-line
    summary = live_replay(iter_jsonl(source), settings, RulesJudge(), out, resume=True)
    assert (summary.resumed, summary.asked) == (1, 2)
    keys = [json.loads(line)["key"] for line in _lines(out)]  # every line is whole JSON
    assert sorted(keys) == sorted(json.loads(line)["key"] for line in whole)
