"""The httpx boundary: Retry-After parsing, status classification, secrets (design.md §6, §11)."""

from __future__ import annotations

import logging
import traceback
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import httpx
import pytest

from jev.base.domain import JudgeAnswer, JudgeInput, Numbering
from jev.base.errors import SettingsError, TransportError
from jev.judges._http import (
    MAX_RETRY_AFTER_S,
    JsonPoster,
    is_context_length_message,
    parse_retry_after,
)
from jev.judges.anthropic import AnthropicJudge
from jev.judges.openai_compat import OpenAIJudge
from tests.fakeserver import (
    FakeProvider,
    Reply,
    anthropic_error,
    anthropic_message,
    closed_port,
    openai_completion,
    openai_error,
)

SENTINEL = "sk-SENTINEL-7f3a9c2e5b1d4f6a8c0e2b4d6f8a1c3e"
NOW = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


# -- Retry-After ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"Retry-After": "7"}, 7.0),
        ({"retry-after": "2.5"}, 2.5),
        ({"Retry-After": "0"}, 0.0),
        ({"Retry-After": "-3"}, 0.0),
        ({"Retry-After": "86400"}, MAX_RETRY_AFTER_S),
        ({"Retry-After": format_datetime(NOW + timedelta(seconds=30), usegmt=True)}, 30.0),
        ({"Retry-After": format_datetime(NOW - timedelta(seconds=30), usegmt=True)}, 0.0),
        (
            {"Retry-After": format_datetime(NOW + timedelta(hours=2), usegmt=True)},
            MAX_RETRY_AFTER_S,
        ),
        ({"retry-after-ms": "1500", "Retry-After": "9"}, 1.5),
        ({"retry-after-ms": "soon", "Retry-After": "9"}, 9.0),
        ({"Retry-After": "whenever"}, None),
        ({"Retry-After": "nan"}, None),
        ({}, None),
    ],
)
def test_parse_retry_after(headers: dict[str, str], expected: float | None) -> None:
    assert parse_retry_after(headers, now=NOW) == expected


def test_parse_retry_after_case_insensitive_httpx_headers() -> None:
    assert parse_retry_after(httpx.Headers({"RETRY-AFTER": "4"}), now=NOW) == 4.0


@pytest.mark.parametrize(
    "text",
    [
        "This model's maximum context length is 8192 tokens",
        "context_length_exceeded",
        "prompt is too long: 210000 tokens > 200000 maximum",
        "the request exceeds the available context size, try increasing it",
        "Input is too long for requested model.",
        "Too many tokens in the prompt",
    ],
)
def test_context_length_wordings(text: str) -> None:
    assert is_context_length_message(text)


@pytest.mark.parametrize("text", ["Invalid model", "temperature out of range", ""])
def test_not_context_length(text: str) -> None:
    assert not is_context_length_message(text)


def test_poster_refuses_bad_timeout() -> None:
    with pytest.raises(ValueError, match="timeout_s"):
        JsonPoster(label="x", timeout_s=0, key_env="K", key_present=False)


# -- status classification ----------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "kind", "retryable"),
    [
        (Reply(status=408, body="slow"), "timeout", True),
        (Reply(status=409, body="conflict"), "http-4xx", False),
        (Reply(status=422, json={"detail": "bad field"}), "http-4xx", False),
        (Reply(status=502, body="bad gateway"), "http-5xx", True),
        (Reply(status=302, headers={"Location": "http://example.invalid/"}), "http-status", False),
    ],
)
def test_status_classification(
    fake_provider: FakeProvider, reply: Reply, kind: str, retryable: bool
) -> None:
    fake_provider.script(reply)
    poster = JsonPoster(label="the test judge", timeout_s=2.0, key_env="K", key_present=False)
    with pytest.raises(TransportError) as info:
        poster.post(fake_provider.openai_base + "/chat/completions", {}, {"a": 1})
    poster.close()
    assert info.value.kind == kind
    assert info.value.retryable is retryable
    assert info.value.status == reply.status


def test_provider_detail_field_is_quoted(fake_provider: FakeProvider) -> None:
    fake_provider.script(Reply(status=422, json={"detail": "messages: field required"}))
    poster = JsonPoster(label="the test judge", timeout_s=2.0, key_env="K", key_present=False)
    with pytest.raises(TransportError, match="messages: field required"):
        poster.post(fake_provider.url + "/v1/messages", {}, {})


def test_unknown_path_is_http_4xx(fake_provider: FakeProvider) -> None:
    poster = JsonPoster(label="the test judge", timeout_s=2.0, key_env="K", key_present=False)
    with pytest.raises(TransportError) as info:
        poster.post(fake_provider.url + "/v2/nothing", {}, {})
    assert info.value.kind == "http-4xx" and info.value.status == 404


def test_ollama_404_from_a_server_that_is_not_ollama_names_the_openai_provider(
    fake_provider: FakeProvider,
) -> None:
    """Issue 20 item 3: llama-server has no /api/chat; "check judge.model" misled."""
    from jev.base.domain import JudgeInput, Material
    from jev.judges.ollama import OllamaJudge
    from jev.pipeline.material import number

    numbering = number(Material(("Fix it",)))
    fake_provider.script(Reply(status=404, body="File Not Found"))
    judge = OllamaJudge(model="qwen2.5:7b", base_url=fake_provider.url)
    with pytest.raises(TransportError) as info:
        judge.ask(JudgeInput("rules", "material", "en", "h"), numbering)
    assert info.value.status == 404
    assert "not Ollama" in str(info.value) and "judge.provider openai" in str(info.value)


def test_5xx_keeps_retry_after(fake_provider: FakeProvider) -> None:
    fake_provider.script(Reply(status=503, body="maintenance", headers={"Retry-After": "5"}))
    poster = JsonPoster(label="the test judge", timeout_s=2.0, key_env="K", key_present=False)
    with pytest.raises(TransportError) as info:
        poster.post(fake_provider.openai_base + "/chat/completions", {}, {})
    assert info.value.retry_after_s == 5.0


def test_long_provider_message_is_shortened(fake_provider: FakeProvider) -> None:
    fake_provider.script(Reply(status=500, body="x" * 5000))
    poster = JsonPoster(label="the test judge", timeout_s=2.0, key_env="K", key_present=False)
    with pytest.raises(TransportError) as info:
        poster.post(fake_provider.openai_base + "/chat/completions", {}, {})
    assert len(str(info.value)) < 600


# -- the key never leaks ------------------------------------------------------------


def _leak_free(obj: object) -> None:
    texts = [str(obj), repr(obj)]
    if isinstance(obj, BaseException):
        texts += [repr(a) for a in obj.args]
        texts += [repr(v) for v in vars(obj).values()]
        texts.append("".join(traceback.format_exception(obj)))
        assert obj.__cause__ is None
        assert obj.__context__ is None or not isinstance(obj.__context__, httpx.HTTPError)
    for text in texts:
        assert SENTINEL not in text
        assert SENTINEL[:12] not in text


LEAKY_REPLIES = {
    "ok": Reply(json=openai_completion('{"assessment": "complete", "focus": "none"}')),
    "401-echo": openai_error(f"Incorrect API key provided: {SENTINEL}", status=401),
    "400-echo": openai_error(f"bad key {SENTINEL} in header"),
    "429": openai_error(f"slow down {SENTINEL}", status=429, headers={"Retry-After": "1"}),
    "500": Reply(status=500, body=f"crash while handling Bearer {SENTINEL}"),
    "context": openai_error(f"maximum context length exceeded for {SENTINEL}"),
    "bad-body": Reply(body=f"not json {SENTINEL}"),
    "200-error": Reply(json={"error": {"message": f"boom {SENTINEL}"}}),
    "timeout": Reply(json=openai_completion("late"), delay_s=3.0),
    "drop": Reply(close=True),
    "format": openai_error(f"response_format unsupported {SENTINEL}"),
}


@pytest.mark.parametrize("case", sorted(LEAKY_REPLIES))
def test_sentinel_key_never_leaks_openai(
    fake_provider: FakeProvider,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    judge_input: JudgeInput,
    numbering: Numbering,
    case: str,
) -> None:
    caplog.set_level(logging.DEBUG)
    monkeypatch.setenv("JEV_SENTINEL_KEY", SENTINEL)
    fake_provider.script(LEAKY_REPLIES[case], Reply(status=500, body=f"again {SENTINEL}"))
    judge = OpenAIJudge(
        model="m",
        base_url=fake_provider.openai_base,
        api_key_env="JEV_SENTINEL_KEY",
        # Short only where the reply is late on purpose; generous elsewhere, so a loaded
        # machine cannot turn another case into a timeout before its request is seen.
        timeout_s=1.0 if case == "timeout" else 10.0,
    )
    _leak_free(judge)
    result: JudgeAnswer | BaseException
    try:
        result = judge.ask(judge_input, numbering)
    except TransportError as exc:
        result = exc
    judge.close()
    assert fake_provider.requests[0].headers["authorization"] == f"Bearer {SENTINEL}"
    _leak_free(result)
    assert SENTINEL not in caplog.text
    assert SENTINEL[:12] not in caplog.text
    if case == "ok":
        assert isinstance(result, JudgeAnswer)
    else:
        assert isinstance(result, TransportError)


@pytest.mark.parametrize(
    "reply",
    [
        anthropic_error("authentication_error", f"invalid x-api-key {SENTINEL}", status=401),
        anthropic_error("invalid_request_error", f"prompt is too long {SENTINEL}"),
        anthropic_error("overloaded_error", f"Overloaded {SENTINEL}", status=529),
        Reply(json=anthropic_message("ok")),
    ],
    ids=["401", "too-long", "529", "ok"],
)
def test_sentinel_key_never_leaks_anthropic(
    fake_provider: FakeProvider,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    judge_input: JudgeInput,
    numbering: Numbering,
    reply: Reply,
) -> None:
    caplog.set_level(logging.DEBUG)
    monkeypatch.setenv("JEV_SENTINEL_KEY", SENTINEL)
    fake_provider.script(reply)
    judge = AnthropicJudge(
        model="m", base_url=fake_provider.url, api_key_env="JEV_SENTINEL_KEY", timeout_s=2.0
    )
    _leak_free(judge)
    result: JudgeAnswer | BaseException
    try:
        result = judge.ask(judge_input, numbering)
    except TransportError as exc:
        result = exc
    assert fake_provider.requests[0].headers["x-api-key"] == SENTINEL
    _leak_free(result)
    assert SENTINEL not in caplog.text


def test_sentinel_never_leaks_on_connection_refused(
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    judge_input: JudgeInput,
    numbering: Numbering,
) -> None:
    caplog.set_level(logging.DEBUG)
    monkeypatch.setenv("JEV_SENTINEL_KEY", SENTINEL)
    judge = OpenAIJudge(
        model="m",
        base_url=f"http://127.0.0.1:{closed_port()}/v1",
        api_key_env="JEV_SENTINEL_KEY",
        timeout_s=2.0,
    )
    with pytest.raises(TransportError) as info:
        judge.ask(judge_input, numbering)
    _leak_free(info.value)
    assert SENTINEL not in caplog.text


def test_provider_text_is_redacted_not_dropped(
    fake_provider: FakeProvider,
    monkeypatch: pytest.MonkeyPatch,
    judge_input: JudgeInput,
    numbering: Numbering,
) -> None:
    monkeypatch.setenv("JEV_SENTINEL_KEY", SENTINEL)
    fake_provider.script(openai_error(f"bad key {SENTINEL} in header"))
    judge = OpenAIJudge(
        model="m", base_url=fake_provider.openai_base, api_key_env="JEV_SENTINEL_KEY"
    )
    with pytest.raises(TransportError, match=r"bad key \*\*\* in header"):
        judge.ask(judge_input, numbering)


@pytest.mark.parametrize("base_url", ["ftp://127.0.0.1/v1", "http://[::1/v1"])
def test_invalid_base_url_is_not_retryable(
    base_url: str, judge_input: JudgeInput, numbering: Numbering
) -> None:
    judge = OpenAIJudge(model="m", base_url=base_url, api_key_env="JEV_NOPE")
    with pytest.raises(TransportError) as info:
        judge.ask(judge_input, numbering)
    assert info.value.kind == "connection" and info.value.retryable is False
    assert "judge.base_url" in str(info.value)


@pytest.mark.parametrize("bad", ["sk-abc déf", "sk-abc\x01def", "sk-abc def"])
def test_unusable_key_refused_without_echo(monkeypatch: pytest.MonkeyPatch, bad: str) -> None:
    monkeypatch.setenv("JEV_BAD_KEY", bad)
    for judge_cls in (OpenAIJudge, AnthropicJudge):
        with pytest.raises(SettingsError) as info:
            judge_cls(model="m", api_key_env="JEV_BAD_KEY")
        assert "JEV_BAD_KEY" in str(info.value)
        assert "sk-abc" not in str(info.value) and "sk-abc" not in repr(info.value.args)


def test_key_whitespace_is_stripped(
    fake_provider: FakeProvider,
    monkeypatch: pytest.MonkeyPatch,
    judge_input: JudgeInput,
    numbering: Numbering,
) -> None:
    monkeypatch.setenv("JEV_PADDED_KEY", "  sk-padded-123456\n")
    fake_provider.script(openai_completion("x"))
    judge = OpenAIJudge(model="m", base_url=fake_provider.openai_base, api_key_env="JEV_PADDED_KEY")
    judge.ask(judge_input, numbering)
    assert fake_provider.requests[0].headers["authorization"] == "Bearer sk-padded-123456"
