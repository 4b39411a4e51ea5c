"""The ``anthropic`` judge against a real HTTP server on 127.0.0.1 (design.md §6, §13)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from jev.base.domain import JudgeInput, JudgeSettings, Numbering, Usage
from jev.base.errors import ContextLengthError, SettingsError, TransportError
from jev.judges import Judge, create_judge
from jev.judges.anthropic import ANTHROPIC_VERSION, MAX_TOKENS, AnthropicJudge
from jev.judges.constrained import reply_schema
from tests.fakeserver import FakeProvider, Reply, anthropic_error, anthropic_message

from .conftest import SYSTEM, USER

GOOD = '{"assessment": "complete", "focus": "none"}'
KEY = "sk-ant-test-abcdef0123456789"


def make(fake: FakeProvider, monkeypatch: pytest.MonkeyPatch, **kw: object) -> AnthropicJudge:
    monkeypatch.setenv("JEV_TEST_ANTHROPIC_KEY", KEY)
    args: dict[str, object] = {
        "model": "claude-test",
        "base_url": fake.anthropic_base,
        "api_key_env": "JEV_TEST_ANTHROPIC_KEY",
        "timeout_s": 2.0,
    }
    args.update(kw)
    return AnthropicJudge(**args)  # type: ignore[arg-type]


def test_good_reply_and_exact_request(
    fake_provider: FakeProvider,
    monkeypatch: pytest.MonkeyPatch,
    judge_input: JudgeInput,
    numbering: Numbering,
) -> None:
    fake_provider.script(anthropic_message(GOOD, model="claude-test-2025", input_tokens=50))
    judge = make(fake_provider, monkeypatch)
    answer = judge.ask(judge_input, numbering)
    judge.close()
    assert answer.text == GOOD
    assert answer.model == "claude-test-2025"
    assert answer.usage == Usage(input_tokens=50, output_tokens=15)
    assert isinstance(judge, Judge)
    assert judge.info.provider == "anthropic" and judge.info.model == "claude-test"
    [req] = fake_provider.requests
    assert req.path == "/v1/messages"
    assert req.headers["x-api-key"] == KEY
    assert req.headers["anthropic-version"] == ANTHROPIC_VERSION
    assert "authorization" not in req.headers
    assert req.json == {
        "model": "claude-test",
        "max_tokens": MAX_TOKENS,
        "temperature": 0.0,
        "system": [{"type": "text", "text": SYSTEM, "cache_control": {"type": "ephemeral"}}],
        "messages": [{"role": "user", "content": USER}],
        "tools": [
            {
                "name": "record_verdict",
                "description": "Record the audit's verdict and the position it rests on.",
                "input_schema": reply_schema(numbering),
            }
        ],
        "tool_choice": {"type": "tool", "name": "record_verdict"},
    }
    assert answer.reply_mode == "tool"


def test_text_blocks_concatenated_and_cache_usage_summed(
    fake_provider: FakeProvider,
    monkeypatch: pytest.MonkeyPatch,
    judge_input: JudgeInput,
    numbering: Numbering,
) -> None:
    body = anthropic_message(['{"assessment": ', '"complete", "focus": "none"}'])
    body["content"].insert(0, {"type": "thinking", "thinking": "hmm", "signature": "x"})
    body["usage"] = {
        "input_tokens": 10,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 900,
        "output_tokens": 20,
    }
    fake_provider.script(body)
    answer = make(fake_provider, monkeypatch).ask(judge_input, numbering)
    assert answer.text == GOOD
    assert answer.usage == Usage(input_tokens=910, output_tokens=20)


def test_empty_content_gives_empty_text(
    fake_provider: FakeProvider,
    monkeypatch: pytest.MonkeyPatch,
    judge_input: JudgeInput,
    numbering: Numbering,
) -> None:
    body = anthropic_message([])
    fake_provider.script(body)
    assert make(fake_provider, monkeypatch).ask(judge_input, numbering).text == ""


def test_base_url_with_v1_not_doubled_and_no_key(
    fake_provider: FakeProvider, judge_input: JudgeInput, numbering: Numbering
) -> None:
    fake_provider.script(anthropic_message(GOOD))
    judge = AnthropicJudge(
        model="m", base_url=fake_provider.url + "/v1/", api_key_env="JEV_NOPE", temperature=0.5
    )
    judge.ask(judge_input, numbering)
    [req] = fake_provider.requests
    assert req.path == "/v1/messages"
    assert "x-api-key" not in req.headers
    assert req.json["temperature"] == 0.5


def test_rate_limited(
    fake_provider: FakeProvider,
    monkeypatch: pytest.MonkeyPatch,
    judge_input: JudgeInput,
    numbering: Numbering,
) -> None:
    fake_provider.script(
        anthropic_error(
            "rate_limit_error",
            "Number of requests has exceeded your rate limit",
            status=429,
            headers={"retry-after": "12"},
        )
    )
    with pytest.raises(TransportError) as info:
        make(fake_provider, monkeypatch).ask(judge_input, numbering)
    assert info.value.kind == "rate-limited"
    assert info.value.retry_after_s == 12.0 and info.value.retryable is True


def test_overloaded_529_is_retryable(
    fake_provider: FakeProvider,
    monkeypatch: pytest.MonkeyPatch,
    judge_input: JudgeInput,
    numbering: Numbering,
) -> None:
    fake_provider.script(anthropic_error("overloaded_error", "Overloaded", status=529))
    with pytest.raises(TransportError) as info:
        make(fake_provider, monkeypatch).ask(judge_input, numbering)
    assert info.value.kind == "http-5xx"
    assert info.value.status == 529 and info.value.retryable is True
    assert "Overloaded" in str(info.value)


def test_prompt_too_long(
    fake_provider: FakeProvider,
    monkeypatch: pytest.MonkeyPatch,
    judge_input: JudgeInput,
    numbering: Numbering,
) -> None:
    fake_provider.script(
        anthropic_error(
            "invalid_request_error", "prompt is too long: 210000 tokens > 200000 maximum"
        )
    )
    with pytest.raises(ContextLengthError) as info:
        make(fake_provider, monkeypatch).ask(judge_input, numbering)
    assert info.value.retryable is False and info.value.status == 400
    assert "210000 tokens" in str(info.value)


def test_other_invalid_request_is_http_4xx(
    fake_provider: FakeProvider,
    monkeypatch: pytest.MonkeyPatch,
    judge_input: JudgeInput,
    numbering: Numbering,
) -> None:
    fake_provider.script(
        anthropic_error("invalid_request_error", "temperature: range: 0..1", status=400)
    )
    with pytest.raises(TransportError) as info:
        make(fake_provider, monkeypatch).ask(judge_input, numbering)
    assert type(info.value) is not ContextLengthError
    assert info.value.kind == "http-4xx" and info.value.retryable is False
    assert "temperature: range: 0..1" in str(info.value)


def test_auth_error_names_default_variable(
    fake_provider: FakeProvider,
    monkeypatch: pytest.MonkeyPatch,
    judge_input: JudgeInput,
    numbering: Numbering,
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    fake_provider.script(anthropic_error("authentication_error", "invalid x-api-key", status=401))
    judge = AnthropicJudge(model="m", base_url=fake_provider.anthropic_base)
    with pytest.raises(TransportError) as info:
        judge.ask(judge_input, numbering)
    assert info.value.kind == "auth" and info.value.retryable is False
    assert "ANTHROPIC_API_KEY" in str(info.value) and "not set" in str(info.value)


def test_error_envelope_with_status_200(
    fake_provider: FakeProvider,
    monkeypatch: pytest.MonkeyPatch,
    judge_input: JudgeInput,
    numbering: Numbering,
) -> None:
    fake_provider.script(
        Reply(
            json={"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
        )
    )
    with pytest.raises(TransportError) as info:
        make(fake_provider, monkeypatch).ask(judge_input, numbering)
    assert info.value.kind == "provider-error" and info.value.retryable is True


def test_timeout(
    fake_provider: FakeProvider,
    monkeypatch: pytest.MonkeyPatch,
    judge_input: JudgeInput,
    numbering: Numbering,
) -> None:
    fake_provider.script(Reply(json=anthropic_message(GOOD), delay_s=1.0))
    with pytest.raises(TransportError) as info:
        make(fake_provider, monkeypatch, timeout_s=0.3).ask(judge_input, numbering)
    assert info.value.kind == "timeout"
    assert f"the anthropic judge at {fake_provider.anthropic_base}" in str(info.value)


def test_empty_model_refused() -> None:
    with pytest.raises(SettingsError, match=r"judge\.model"):
        AnthropicJudge(model=" ")


def test_from_settings_and_async_concurrency(
    fake_provider: FakeProvider, monkeypatch: pytest.MonkeyPatch, numbering: Numbering
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    judge = create_judge(
        JudgeSettings(provider="anthropic", model="claude-x", base_url=fake_provider.url)
    )
    assert isinstance(judge, AnthropicJudge)

    def echo(request_json: dict[str, object]) -> dict[str, object]:
        return anthropic_message(request_json["messages"][0]["content"])  # type: ignore[index]

    fake_provider.default = echo
    inputs = [JudgeInput(SYSTEM, f"m{i}", "en", "h") for i in range(8)]

    with ThreadPoolExecutor(max_workers=4) as pool:
        texts = [a.text for a in pool.map(lambda ji: judge.ask(ji, numbering), inputs)]
    assert texts == [f"m{i}" for i in range(8)]
    assert {r.headers["x-api-key"] for r in fake_provider.requests} == {KEY}
    judge.close()
