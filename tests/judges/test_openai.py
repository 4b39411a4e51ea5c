"""The ``openai`` judge against a real HTTP server on 127.0.0.1 (design.md §6, §13)."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

import pytest

from jev.base.domain import JudgeInput, JudgeSettings, Numbering, Usage
from jev.base.errors import ContextLengthError, SettingsError, TransportError
from jev.judges import Judge, create_judge
from jev.judges.constrained import reply_schema
from jev.judges.openai_compat import OpenAIJudge
from tests.fakeserver import (
    FakeProvider,
    Reply,
    closed_port,
    openai_completion,
    openai_error,
)

from .conftest import SYSTEM, USER

GOOD = '{"assessment": "omission", "focus": "R1", "confidence": 0.8}'
KEY = "sk-test-0123456789abcdef"


def make(fake: FakeProvider, monkeypatch: pytest.MonkeyPatch, **kw: object) -> OpenAIJudge:
    monkeypatch.setenv("JEV_TEST_OPENAI_KEY", KEY)
    args: dict[str, object] = {
        "model": "judge-model",
        "base_url": fake.openai_base,
        "api_key_env": "JEV_TEST_OPENAI_KEY",
        "timeout_s": 2.0,
    }
    args.update(kw)
    return OpenAIJudge(**args)  # type: ignore[arg-type]


def test_good_reply_text_usage_model(
    fake_provider: FakeProvider,
    monkeypatch: pytest.MonkeyPatch,
    judge_input: JudgeInput,
    numbering: Numbering,
) -> None:
    fake_provider.script(
        openai_completion(GOOD, model="judge-model-2024", prompt_tokens=321, completion_tokens=17)
    )
    judge = make(fake_provider, monkeypatch)
    answer = judge.ask(judge_input, numbering)
    judge.close()
    assert answer.text == GOOD
    assert answer.usage == Usage(input_tokens=321, output_tokens=17)
    assert answer.model == "judge-model-2024"
    assert answer.latency_ms >= 0.0
    assert judge.info.provider == "openai" and judge.info.model == "judge-model"
    assert judge.info.heuristic is False
    assert isinstance(judge, Judge)


def test_exact_request_sent(
    fake_provider: FakeProvider,
    monkeypatch: pytest.MonkeyPatch,
    judge_input: JudgeInput,
    numbering: Numbering,
) -> None:
    fake_provider.script(openai_completion(GOOD))
    judge = make(fake_provider, monkeypatch)
    judge.ask(judge_input, numbering)
    judge.close()
    [req] = fake_provider.requests
    assert req.method == "POST"
    assert req.path == "/v1/chat/completions"
    assert req.headers["authorization"] == f"Bearer {KEY}"
    assert req.headers["content-type"] == "application/json"
    assert req.json == {
        "model": "judge-model",
        "messages": [
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": USER},
        ],
        "temperature": 0.0,
        "response_format": {
            "type": "json_schema",
            "json_schema": {
                "name": "record_verdict",
                "strict": True,
                # a server other than OpenAI's own: the per-verdict branches (issue 20)
                "schema": reply_schema(numbering, "verdicts"),
            },
        },
    }
    branches = req.json["response_format"]["json_schema"]["schema"]["anyOf"]
    assert [b["properties"]["focus"]["enum"] for b in branches][:2] == [
        ["none", "R1", "T1", "A1"],  # complete
        ["R1", "T1", "A1"],  # omission
    ]


def test_no_auth_header_without_key(
    fake_provider: FakeProvider,
    monkeypatch: pytest.MonkeyPatch,
    judge_input: JudgeInput,
    numbering: Numbering,
) -> None:
    monkeypatch.delenv("JEV_TEST_UNSET_KEY", raising=False)
    fake_provider.script(openai_completion(GOOD))
    judge = OpenAIJudge(
        model="qwen2.5:7b",
        base_url=fake_provider.openai_base + "/",
        api_key_env="JEV_TEST_UNSET_KEY",
        temperature=0.7,
    )
    assert judge.ask(judge_input, numbering).text == GOOD
    [req] = fake_provider.requests
    assert "authorization" not in req.headers
    assert req.path == "/v1/chat/completions"  # trailing slash not doubled
    assert req.json["temperature"] == 0.7


def test_base_url_used_as_given(
    fake_provider: FakeProvider, judge_input: JudgeInput, numbering: Numbering
) -> None:
    fake_provider.script(openai_completion(GOOD))
    judge = OpenAIJudge(model="m", base_url=fake_provider.url, api_key_env="JEV_NOPE")
    judge.ask(judge_input, numbering)
    assert fake_provider.requests[0].path == "/chat/completions"


def test_fenced_reply_returned_raw(
    fake_provider: FakeProvider,
    monkeypatch: pytest.MonkeyPatch,
    judge_input: JudgeInput,
    numbering: Numbering,
) -> None:
    fenced = f"```json\n{GOOD}\n```"
    fake_provider.script(openai_completion(fenced))
    assert make(fake_provider, monkeypatch).ask(judge_input, numbering).text == fenced


@pytest.mark.parametrize(
    "body",
    [
        openai_completion(GOOD, choices=False),
        openai_completion(None),
        {"id": "x", "object": "chat.completion", "model": "m"},
    ],
    ids=["empty-choices", "null-content", "no-choices"],
)
def test_missing_content_gives_empty_text(
    fake_provider: FakeProvider,
    monkeypatch: pytest.MonkeyPatch,
    judge_input: JudgeInput,
    numbering: Numbering,
    body: dict[str, object],
) -> None:
    fake_provider.script(body)
    answer = make(fake_provider, monkeypatch).ask(judge_input, numbering)
    assert answer.text == ""


def test_content_parts_are_joined(
    fake_provider: FakeProvider,
    monkeypatch: pytest.MonkeyPatch,
    judge_input: JudgeInput,
    numbering: Numbering,
) -> None:
    body = openai_completion("x")
    body["choices"][0]["message"]["content"] = [
        {"type": "text", "text": '{"assessment": '},
        {"type": "text", "text": '"complete", "focus": "none"}'},
    ]
    fake_provider.script(body)
    text = make(fake_provider, monkeypatch).ask(judge_input, numbering).text
    assert text == '{"assessment": "complete", "focus": "none"}'


def test_usage_absent_is_none(
    fake_provider: FakeProvider,
    monkeypatch: pytest.MonkeyPatch,
    judge_input: JudgeInput,
    numbering: Numbering,
) -> None:
    fake_provider.script(openai_completion(GOOD, prompt_tokens=None, completion_tokens=None))
    answer = make(fake_provider, monkeypatch).ask(judge_input, numbering)
    assert answer.usage is None
    assert answer.model == "fake-model"


def test_rate_limited_with_retry_after(
    fake_provider: FakeProvider,
    monkeypatch: pytest.MonkeyPatch,
    judge_input: JudgeInput,
    numbering: Numbering,
) -> None:
    fake_provider.script(
        openai_error(
            "Rate limit reached", status=429, type="rate_limit", headers={"Retry-After": "7"}
        )
    )
    with pytest.raises(TransportError) as info:
        make(fake_provider, monkeypatch).ask(judge_input, numbering)
    err = info.value
    assert err.kind == "rate-limited"
    assert err.status == 429
    assert err.retry_after_s == 7.0
    assert err.retryable is True
    assert "Rate limit reached" in str(err) and "wait 7 s" in str(err)
    assert fake_provider.count == 1  # the judge never retries by itself


def test_server_error_is_retryable_and_not_retried(
    fake_provider: FakeProvider,
    monkeypatch: pytest.MonkeyPatch,
    judge_input: JudgeInput,
    numbering: Numbering,
) -> None:
    fake_provider.script(Reply(status=500, body="upstream exploded"))
    with pytest.raises(TransportError) as info:
        make(fake_provider, monkeypatch).ask(judge_input, numbering)
    assert info.value.kind == "http-5xx"
    assert info.value.status == 500
    assert info.value.retryable is True
    assert info.value.retry_after_s is None
    assert "upstream exploded" in str(info.value)
    assert fake_provider.count == 1


def test_timeout(
    fake_provider: FakeProvider,
    monkeypatch: pytest.MonkeyPatch,
    judge_input: JudgeInput,
    numbering: Numbering,
) -> None:
    fake_provider.script(Reply(json=openai_completion(GOOD), delay_s=1.0))
    judge = make(fake_provider, monkeypatch, timeout_s=0.3)
    with pytest.raises(TransportError) as info:
        judge.ask(judge_input, numbering)
    err = info.value
    assert err.kind == "timeout" and err.retryable is True and err.status is None
    assert f"the openai judge at {fake_provider.openai_base} did not answer within 0.3 s" in str(
        err
    )
    assert "judge.timeout_s" in str(err)


def test_connection_refused(judge_input: JudgeInput, numbering: Numbering) -> None:
    base = f"http://127.0.0.1:{closed_port()}/v1"
    judge = OpenAIJudge(model="m", base_url=base, api_key_env="JEV_NOPE", timeout_s=2.0)
    with pytest.raises(TransportError) as info:
        judge.ask(judge_input, numbering)
    assert info.value.kind == "connection"
    assert info.value.retryable is True
    assert base in str(info.value) and "judge.base_url" in str(info.value)


def test_connection_dropped(
    fake_provider: FakeProvider,
    monkeypatch: pytest.MonkeyPatch,
    judge_input: JudgeInput,
    numbering: Numbering,
) -> None:
    fake_provider.script(Reply(close=True))
    with pytest.raises(TransportError) as info:
        make(fake_provider, monkeypatch).ask(judge_input, numbering)
    assert info.value.kind == "connection"


def test_non_json_body(
    fake_provider: FakeProvider,
    monkeypatch: pytest.MonkeyPatch,
    judge_input: JudgeInput,
    numbering: Numbering,
) -> None:
    fake_provider.script(Reply(status=200, body="<html>gateway</html>"))
    with pytest.raises(TransportError) as info:
        make(fake_provider, monkeypatch).ask(judge_input, numbering)
    assert info.value.kind == "bad-body"
    assert info.value.retryable is True
    assert info.value.status == 200
    assert "<html>gateway</html>" in str(info.value)


def test_json_that_is_not_an_object_is_bad_body(
    fake_provider: FakeProvider,
    monkeypatch: pytest.MonkeyPatch,
    judge_input: JudgeInput,
    numbering: Numbering,
) -> None:
    fake_provider.script(Reply(body="[1, 2]"))
    with pytest.raises(TransportError) as info:
        make(fake_provider, monkeypatch).ask(judge_input, numbering)
    assert info.value.kind == "bad-body"


@pytest.mark.parametrize(
    "reply",
    [
        openai_error(
            "This model's maximum context length is 8192 tokens. However, your messages "
            "resulted in 9000 tokens.",
            code="context_length_exceeded",
            param="messages",
        ),
        openai_error(
            "the request exceeds the available context size", type="exceed_context_size_error"
        ),
        Reply(status=413, body="Request Entity Too Large"),
    ],
    ids=["openai", "llama.cpp", "413"],
)
def test_context_length(
    fake_provider: FakeProvider,
    monkeypatch: pytest.MonkeyPatch,
    judge_input: JudgeInput,
    numbering: Numbering,
    reply: Reply,
) -> None:
    fake_provider.script(reply)
    with pytest.raises(ContextLengthError) as info:
        make(fake_provider, monkeypatch).ask(judge_input, numbering)
    err = info.value
    assert err.kind == "context-length"
    assert err.retryable is False
    assert err.status == reply.status
    assert "evidence_chars" in str(err)
    assert fake_provider.count == 1


def test_auth_error_names_the_variable(
    fake_provider: FakeProvider,
    monkeypatch: pytest.MonkeyPatch,
    judge_input: JudgeInput,
    numbering: Numbering,
) -> None:
    fake_provider.script(
        openai_error(
            f"Incorrect API key provided: {KEY[:7]}****cdef", status=401, code="invalid_api_key"
        )
    )
    with pytest.raises(TransportError) as info:
        make(fake_provider, monkeypatch).ask(judge_input, numbering)
    err = info.value
    assert err.kind == "auth" and err.status == 401 and err.retryable is False
    assert "JEV_TEST_OPENAI_KEY" in str(err) and "it is set" in str(err)
    assert KEY[:7] not in str(err)  # the provider's partial echo of the key is dropped


def test_auth_error_says_when_the_variable_is_unset(
    fake_provider: FakeProvider, judge_input: JudgeInput, numbering: Numbering
) -> None:
    fake_provider.script(openai_error("missing key", status=403))
    judge = OpenAIJudge(model="m", base_url=fake_provider.openai_base, api_key_env="JEV_NOPE")
    with pytest.raises(TransportError) as info:
        judge.ask(judge_input, numbering)
    assert info.value.kind == "auth"
    assert "JEV_NOPE" in str(info.value) and "it is not set" in str(info.value)


def test_default_key_variable(
    fake_provider: FakeProvider,
    monkeypatch: pytest.MonkeyPatch,
    judge_input: JudgeInput,
    numbering: Numbering,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-default-abcdef123456")
    fake_provider.script(openai_completion(GOOD))
    judge = OpenAIJudge(model="m", base_url=fake_provider.openai_base)
    judge.ask(judge_input, numbering)
    assert fake_provider.requests[0].headers["authorization"] == "Bearer sk-default-abcdef123456"
    assert judge.api_key_env == "OPENAI_API_KEY"


def test_other_4xx_not_retryable(
    fake_provider: FakeProvider,
    monkeypatch: pytest.MonkeyPatch,
    judge_input: JudgeInput,
    numbering: Numbering,
) -> None:
    fake_provider.script(
        openai_error("The model `nope` does not exist", status=404, code="model_not_found")
    )
    with pytest.raises(TransportError) as info:
        make(fake_provider, monkeypatch).ask(judge_input, numbering)
    assert info.value.kind == "http-4xx" and info.value.retryable is False
    assert "does not exist" in str(info.value) and "judge.model" in str(info.value)
    assert fake_provider.count == 1


def test_response_format_rejection_falls_back_and_remembers(
    fake_provider: FakeProvider,
    monkeypatch: pytest.MonkeyPatch,
    judge_input: JudgeInput,
    numbering: Numbering,
) -> None:
    refusal = openai_error(
        "Invalid parameter: 'response_format' of type 'json_schema' is not supported "
        "with this model.",
        param="response_format",
    )
    json_refusal = openai_error("response_format json_object unsupported", param="response_format")
    fake_provider.script(refusal, json_refusal, openai_completion(GOOD), openai_completion(GOOD))
    judge = make(fake_provider, monkeypatch)
    assert judge.json_mode is True and judge.reply_mode == "json_schema"
    answer = judge.ask(judge_input, numbering)
    assert answer.text == GOOD and answer.reply_mode == "text"
    assert judge.json_mode is False
    assert judge.ask(judge_input, numbering).reply_mode == "text"
    first, second, third, fourth = fake_provider.requests
    assert first.json["response_format"]["type"] == "json_schema"
    assert second.json["response_format"] == {"type": "json_object"}
    assert "response_format" not in third.json
    assert "response_format" not in fourth.json
    assert third.json["messages"] == first.json["messages"]
    # another judge on the same base URL starts where this run left off
    assert make(fake_provider, monkeypatch).reply_mode == "text"


def test_response_format_fallback_error_propagates(
    fake_provider: FakeProvider,
    monkeypatch: pytest.MonkeyPatch,
    judge_input: JudgeInput,
    numbering: Numbering,
) -> None:
    fake_provider.script(
        openai_error("response_format is not supported", status=422),
        Reply(status=503, body="busy"),
    )
    with pytest.raises(TransportError) as info:
        make(fake_provider, monkeypatch).ask(judge_input, numbering)
    assert info.value.kind == "http-5xx"
    assert fake_provider.count == 2


def test_error_object_with_status_200(
    fake_provider: FakeProvider,
    monkeypatch: pytest.MonkeyPatch,
    judge_input: JudgeInput,
    numbering: Numbering,
) -> None:
    fake_provider.script({"error": {"message": "provider overloaded", "code": 502}})
    with pytest.raises(TransportError) as info:
        make(fake_provider, monkeypatch).ask(judge_input, numbering)
    assert info.value.kind == "provider-error" and info.value.retryable is True
    assert "provider overloaded" in str(info.value)


def test_empty_model_refused() -> None:
    with pytest.raises(SettingsError, match=r"judge\.model"):
        OpenAIJudge(model="")


def test_created_from_settings(
    fake_provider: FakeProvider,
    monkeypatch: pytest.MonkeyPatch,
    judge_input: JudgeInput,
    numbering: Numbering,
) -> None:
    monkeypatch.setenv("MY_KEY", "sk-from-settings-999999")
    settings = JudgeSettings(
        provider="openai",
        model="deepseek-chat",
        base_url=fake_provider.openai_base,
        api_key_env="MY_KEY",
        timeout_s=3.0,
        temperature=0.2,
    )
    judge = create_judge(settings)
    assert isinstance(judge, OpenAIJudge)
    fake_provider.script(openai_completion(GOOD))
    judge.ask(judge_input, numbering)
    judge.close()
    judge.close()  # idempotent
    [req] = fake_provider.requests
    assert req.json["model"] == "deepseek-chat"
    assert req.json["temperature"] == 0.2
    assert req.headers["authorization"] == "Bearer sk-from-settings-999999"


def test_concurrent_calls_share_one_client(
    fake_provider: FakeProvider, monkeypatch: pytest.MonkeyPatch, numbering: Numbering
) -> None:
    def echo(request_json: dict[str, object]) -> dict[str, object]:
        user = request_json["messages"][1]["content"]  # type: ignore[index]
        return openai_completion(json.dumps({"echo": user}))

    fake_provider.default = echo
    judge = make(fake_provider, monkeypatch)
    inputs = [
        JudgeInput(system=SYSTEM, user=f"material {i}", language="en", template_hash="h")
        for i in range(12)
    ]

    def run() -> list[str]:
        with ThreadPoolExecutor(max_workers=4) as pool:
            return [a.text for a in pool.map(lambda ji: judge.ask(ji, numbering), inputs)]

    texts = run()
    assert texts == [json.dumps({"echo": f"material {i}"}) for i in range(12)]
    assert fake_provider.count == 12
    # The same judge (one client, reused) keeps working for a second batch.
    client = judge._poster._client
    assert run() == texts and judge._poster._client is client is not None


def test_rate_limit_then_json_mode_fallback(
    fake_provider: FakeProvider,
    monkeypatch: pytest.MonkeyPatch,
    judge_input: JudgeInput,
    numbering: Numbering,
) -> None:
    fake_provider.script(
        openai_error("slow down", status=429, headers={"retry-after-ms": "1500"}),
        openai_error("response_format unsupported"),
        openai_completion(GOOD),
    )
    judge = make(fake_provider, monkeypatch)
    with pytest.raises(TransportError) as info:
        judge.ask(judge_input, numbering)
    assert info.value.kind == "rate-limited" and info.value.retry_after_s == 1.5
    answer = judge.ask(judge_input, numbering)
    assert answer.text == GOOD and answer.reply_mode == "json_object"
    assert judge.reply_mode == "json_object" and judge.json_mode is True


def test_one_judge_shared_by_threads(
    fake_provider: FakeProvider, monkeypatch: pytest.MonkeyPatch, numbering: Numbering
) -> None:
    from concurrent.futures import ThreadPoolExecutor

    fake_provider.default = lambda body: openai_completion(body["messages"][1]["content"])
    judge = make(fake_provider, monkeypatch)
    inputs = [JudgeInput(SYSTEM, f"t{i}", "en", "h") for i in range(32)]
    with ThreadPoolExecutor(max_workers=16) as pool:
        texts = list(pool.map(lambda ji: judge.ask(ji, numbering).text, inputs))
    judge.close()
    assert texts == [f"t{i}" for i in range(32)]
    assert fake_provider.count == 32


def test_reply_echoing_the_key_is_redacted(
    fake_provider: FakeProvider,
    monkeypatch: pytest.MonkeyPatch,
    judge_input: JudgeInput,
    numbering: Numbering,
) -> None:
    """A provider (or proxy) that echoes the Authorization header back in its reply
    must not spread the key into records, eval reports or replay output."""
    echo = '{"assessment": "complete", "focus": "none", "note": "Bearer ' + KEY + '"}'
    fake_provider.script(openai_completion(echo))
    judge = make(fake_provider, monkeypatch)
    answer = judge.ask(judge_input, numbering)
    judge.close()
    assert KEY not in answer.text and KEY[:8] not in answer.text
    assert '"assessment": "complete"' in answer.text
