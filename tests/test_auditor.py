"""The audit orchestrator (design.md §2, §5–§7): one judge call, technical retries, budget."""

from __future__ import annotations

import json

import pytest

from jev.base.domain import Material, Settings, TodoItem
from jev.base.errors import ContextLengthError, TransportError
from jev.judges.scripted import ScriptedJudge
from jev.pipeline.audit import run_audit
from jev.pipeline.gate import SKIP_NO_TODO

MATERIAL = Material(
    request=("Fix the parser and update the README.",),
    todos=(TodoItem("Fix the parser", "completed"), TodoItem("Update README", "pending")),
    final_answer="Fixed the parser in src/parse.py; pytest -q: 14 passed.",
)
GOOD = json.dumps({"assessment": "omission", "focus": "T2", "confidence": 0.8})


def settings(**kw: object) -> Settings:
    from dataclasses import replace

    from jev.base.domain import JudgeSettings

    judge_kw = {k[6:]: v for k, v in kw.items() if k.startswith("judge_")}
    top = {k: v for k, v in kw.items() if not k.startswith("judge_")}
    return replace(Settings(), judge=replace(JudgeSettings(), **judge_kw), **top)  # type: ignore[arg-type]


def test_one_call_one_verdict_with_quote() -> None:
    judge = ScriptedJudge([GOOD])
    outcome = run_audit(MATERIAL, settings(), judge)
    assert outcome.status == "verdict"
    assert outcome.verdict is not None
    assert outcome.verdict.assessment == "omission"
    assert outcome.verdict.focus.id == "T2"
    assert outcome.verdict.focus.text == "Update README"
    assert outcome.verdict.focus.status == "pending"
    assert len(judge.calls) == 1
    assert outcome.attempts == 1
    assert outcome.raw_replies == (GOOD,)
    assert outcome.input_chars == judge.calls[0].chars
    assert outcome.material_hash == MATERIAL.digest()


def test_no_todo_use_is_skipped_without_a_call() -> None:
    judge = ScriptedJudge([])
    m = Material(request=("hi",), final_answer="hello", todo_used=False)
    outcome = run_audit(m, settings(), judge)
    assert outcome.status == "skipped" and outcome.reason == SKIP_NO_TODO
    assert judge.calls == []


def test_pending_items_do_not_skip_the_audit() -> None:
    judge = ScriptedJudge(['{"assessment": "omission", "focus": "T1"}'])
    m = Material(request=("do it",), todos=(TodoItem("a", "pending"),), final_answer="")
    assert run_audit(m, settings(), judge).status == "verdict"


def test_over_budget_refuses_without_calling_or_truncating() -> None:
    judge = ScriptedJudge([GOOD])
    outcome = run_audit(MATERIAL, settings(evidence_chars=100), judge)
    assert outcome.status == "incomplete"
    assert outcome.error_kind == "over-budget"
    assert judge.calls == []
    assert outcome.budget_chars == 100
    assert outcome.input_chars is not None and outcome.input_chars > 100
    assert f"{outcome.input_chars:,}" in outcome.reason and "100" in outcome.reason


def test_response_error_is_retried_once_then_verdict() -> None:
    sleeps: list[float] = []
    judge = ScriptedJudge(["not json", GOOD])
    outcome = run_audit(MATERIAL, settings(), judge, sleep=sleeps.append)
    assert outcome.status == "verdict"
    assert outcome.attempts == 2 and len(judge.calls) == 2
    assert outcome.raw_replies == ("not json", GOOD)
    assert sleeps == []  # a bad reply is re-asked at once; no backoff needed


def test_retries_exhausted_is_incomplete_with_reason() -> None:
    judge = ScriptedJudge(['{"assessment": "done", "focus": "none"}', "{}"])
    outcome = run_audit(MATERIAL, settings(), judge, sleep=lambda s: None)
    assert outcome.status == "incomplete"
    assert outcome.error_kind == "reply-schema"
    assert "after 2 calls" in outcome.reason


def test_retry_after_is_honoured() -> None:
    sleeps: list[float] = []
    judge = ScriptedJudge(
        [TransportError("busy", kind="rate-limited", status=429, retry_after_s=7), GOOD]
    )
    outcome = run_audit(MATERIAL, settings(), judge, sleep=sleeps.append)
    assert outcome.status == "verdict"
    assert sleeps == [7]


def test_non_retryable_transport_error_stops_at_once() -> None:
    judge = ScriptedJudge([ContextLengthError("too long", status=400), GOOD])
    outcome = run_audit(MATERIAL, settings(judge_technical_retries=3), judge, sleep=lambda s: None)
    assert outcome.status == "incomplete"
    assert outcome.error_kind == "context-length"
    assert len(judge.calls) == 1


def test_zero_technical_retries_means_one_call() -> None:
    judge = ScriptedJudge(["garbage", GOOD])
    outcome = run_audit(MATERIAL, settings(judge_technical_retries=0), judge, sleep=lambda s: None)
    assert outcome.status == "incomplete" and len(judge.calls) == 1


def test_valid_unknown_is_a_verdict_not_retried() -> None:
    judge = ScriptedJudge(['{"assessment": "unknown", "focus": "all"}', GOOD])
    outcome = run_audit(MATERIAL, settings(), judge)
    assert outcome.status == "verdict" and outcome.verdict is not None
    assert outcome.verdict.assessment == "unknown" and outcome.verdict.focus.kind == "all"
    assert len(judge.calls) == 1


@pytest.mark.parametrize("language, marker", [("zh", "zh"), ("en", "en")])
def test_language_override(language: str, marker: str) -> None:
    judge = ScriptedJudge([GOOD])
    outcome = run_audit(MATERIAL, settings(), judge, language=language)
    assert outcome.language == marker == judge.calls[0].language


def test_a_retry_after_a_refused_reply_says_what_was_wrong() -> None:
    """Issue 20 item 3: a technical retry never resends the byte-identical prompt (a
    server's prompt cache at temperature 0 would return the same invalid reply)."""
    from jev.base.domain import JudgeAnswer, JudgeInfo, JudgeInput, Numbering

    seen: list[JudgeInput] = []
    replies = iter(['{"assessment": "complete", "focus": "all"}', GOOD])

    class Recording:
        info = JudgeInfo(provider="recording", model="m")

        def ask(self, judge_input: JudgeInput, numbering: Numbering) -> JudgeAnswer:
            seen.append(judge_input)
            return JudgeAnswer(text=next(replies))

    outcome = run_audit(MATERIAL, settings(judge_technical_retries=1), Recording())  # type: ignore[arg-type]
    assert outcome.status == "verdict" and outcome.attempts == 2
    first, second = seen
    assert first.system == second.system and second.user.startswith(first.user)
    note = second.user[len(first.user) :]
    assert "not accepted" in note and "complete" in note and "JSON object only" in note


def test_a_timed_out_call_that_was_retried_stays_in_the_record() -> None:
    """Issue 20 item 3: the timeout's time counts in the latency and the reason names it."""
    import time

    from jev.base.domain import JudgeAnswer, JudgeInfo, JudgeInput, Numbering

    calls = []

    class SlowThenGood:
        info = JudgeInfo(provider="recording", model="m")

        def ask(self, judge_input: JudgeInput, numbering: Numbering) -> JudgeAnswer:
            calls.append(1)
            if len(calls) == 1:
                time.sleep(0.05)
                raise TransportError("the judge did not answer within 0.05 s", kind="timeout")
            return JudgeAnswer(text=GOOD, latency_ms=1.0)

    outcome = run_audit(
        MATERIAL,
        settings(judge_technical_retries=1),
        SlowThenGood(),
        sleep=lambda s: None,  # type: ignore[arg-type]
    )
    assert outcome.status == "verdict" and outcome.attempts == 2
    assert outcome.latency_ms >= 50.0
    assert "timeout" in outcome.reason and "0.05 s" in outcome.reason
