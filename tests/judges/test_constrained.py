"""Constrained replies (issue 12 item 4): a per-audit schema, each mode and each
fallback exercised against the local fake provider on 127.0.0.1."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest

from jev.base.domain import JudgeInput, Material, Numbering
from jev.base.errors import TransportError
from jev.judges.anthropic import AnthropicJudge
from jev.judges.constrained import MAX_ENUM_IDS, MEMORY, reply_schema
from jev.judges.openai_compat import OpenAIJudge
from jev.pipeline.material import number
from jev.pipeline.parse import parse_reply
from tests.fakeserver import (
    FakeProvider,
    Reply,
    anthropic_error,
    anthropic_message,
    openai_completion,
    openai_error,
)

GOOD = '{"assessment": "omission", "focus": "T1", "confidence": 0.8}'


def _openai(fake: FakeProvider) -> OpenAIJudge:
    return OpenAIJudge(model="m", base_url=fake.openai_base, api_key_env="JEV_NO_KEY_SET")


def _anthropic(fake: FakeProvider) -> AnthropicJudge:
    return AnthropicJudge(model="c", base_url=fake.anthropic_base, api_key_env="JEV_NO_KEY_SET")


def _strict_provider(body: dict[str, Any]) -> dict[str, Any]:
    """Behaves like a provider honouring strict json_schema: answers with the first enum
    values, and only if the schema is well-formed and strict."""
    fmt = body.get("response_format") or {}
    if fmt.get("type") != "json_schema":
        return openai_error("expected json_schema", status=418)  # type: ignore[return-value]
    spec = fmt["json_schema"]
    assert spec["strict"] is True and spec["name"]
    schema = spec["schema"]
    jsonschema.Draft202012Validator.check_schema(schema)
    if "anyOf" in schema:  # the per-verdict branches (a grammar-decoding server)
        (branch,) = [
            b for b in schema["anyOf"] if b["properties"]["assessment"]["enum"] == ["omission"]
        ]
        ids = branch["properties"]["focus"]["enum"]
    else:
        ids = schema["properties"]["focus"]["enum"][:-2]  # without none and all
    reply = {
        "assessment": "omission",
        "focus": ids[-1],  # the last answer segment
        "confidence": 0.7,
    }
    jsonschema.validate(reply, schema)
    return openai_completion(json.dumps(reply))


def _openai_strict_provider(body: dict[str, Any]) -> dict[str, Any]:
    """Like OpenAI's strict mode: a schema with ``anyOf`` at its root is refused (400)."""
    schema = ((body.get("response_format") or {}).get("json_schema") or {}).get("schema") or {}
    if "anyOf" in schema:
        return openai_error(  # type: ignore[return-value]
            "Invalid schema for response_format 'record_verdict': schema must be a JSON "
            "Schema of 'type: \"object\"', got 'type: \"None\"'.",
            status=400,
        )
    return _strict_provider(body)


def test_branches_for_grammar_servers_flat_for_openai_strict(
    numbering: Numbering, judge_input: JudgeInput
) -> None:
    """Issue 20 item 3: the verdict/focus pairing goes into the schema where the server
    accepts it; a server that refuses a root ``anyOf`` gets the flat object, once."""
    from jev.judges.constrained import MEMORY
    from jev.judges.openai_compat import OpenAIJudge

    MEMORY.clear()
    flat = reply_schema(numbering)
    branches = reply_schema(numbering, "verdicts")
    assert "anyOf" not in flat and len(branches["anyOf"]) == 5
    for bad in (
        {"assessment": "complete", "focus": "all"},
        {"assessment": "unknown", "focus": "none"},
        {"assessment": "omission", "focus": "none"},
        {"assessment": "omission", "focus": "R1", "confidence": 1e15},
    ):
        assert not jsonschema.Draft202012Validator(branches).is_valid(bad), bad
    assert jsonschema.Draft202012Validator(branches).is_valid(
        {"assessment": "complete", "focus": "none"}
    )
    with FakeProvider(default=_openai_strict_provider) as fake:
        judge = OpenAIJudge(model="m", base_url=fake.openai_base, api_key_env="JEV_NO_KEY_SET")
        first = judge.ask(judge_input, numbering)
        second = judge.ask(judge_input, numbering)
        assert first.reply_mode == second.reply_mode == "json_schema"
        schemas = [r.json["response_format"]["json_schema"]["schema"] for r in fake.requests]
        assert ["anyOf" in x for x in schemas] == [True, False, False]  # refused once, remembered
    MEMORY.clear()


def test_schema_enumerates_exactly_this_audits_positions(
    numbering: Numbering, judge_input: JudgeInput
) -> None:
    schema = reply_schema(numbering)
    assert schema["properties"]["focus"]["enum"] == ["R1", "T1", "A1", "none", "all"]
    assert schema["properties"]["assessment"]["enum"] == [
        "complete",
        "omission",
        "contradiction",
        "needs-user",
        "unknown",
    ]
    assert schema["additionalProperties"] is False
    assert sorted(schema["required"]) == sorted(schema["properties"])  # strict mode rule
    jsonschema.validate({"assessment": "complete", "focus": "none", "confidence": 1}, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"assessment": "complete", "focus": "T9", "confidence": 1}, schema)


def test_openai_strict_schema_mode_end_to_end(judge_input: JudgeInput) -> None:
    numbering = number(
        Material.from_json(
            {
                "request": ["Fix the parser and add a test."],
                "todos": [{"content": "Add a test", "status": "pending"}],
                "final_answer": "Fixed the parser in `parse.py`. Tests later.",
            }
        )
    )
    with FakeProvider(default=_strict_provider) as fake:
        answer = _openai(fake).ask(judge_input, numbering)
        assert answer.reply_mode == "json_schema"
        verdict = parse_reply(answer.text, numbering)  # the same strict parser
        assert verdict.assessment == "omission" and verdict.focus.kind == "answer"
        [req] = fake.requests
        branches = req.json["response_format"]["json_schema"]["schema"]["anyOf"]
        ids = {
            b["properties"]["assessment"]["enum"][0]: b["properties"]["focus"]["enum"]
            for b in branches
        }
        real = [p.id for p in numbering.positions if p.kind not in ("none", "all")]
        assert ids["omission"] == real and ids["complete"] == ["none", *real]


def test_openai_falls_back_to_json_mode_then_remembers_per_base_url(
    judge_input: JudgeInput, numbering: Numbering
) -> None:
    refusal = openai_error("Invalid value for 'response_format.type': json_schema")
    with FakeProvider() as weak, FakeProvider(default=_strict_provider) as strong:
        weak.script(refusal, openai_completion(GOOD), openai_completion(GOOD))
        first = _openai(weak).ask(judge_input, numbering)
        assert first.text == GOOD and first.reply_mode == "json_object"
        second = _openai(weak).ask(judge_input, numbering)  # a new judge, same URL
        assert second.reply_mode == "json_object"
        kinds = [r.json.get("response_format", {}).get("type") for r in weak.requests]
        assert kinds == ["json_schema", "json_object", "json_object"]
        assert MEMORY.get(_openai(weak).url) == "json_object"
        # another base URL is unaffected
        assert _openai(strong).ask(judge_input, numbering).reply_mode == "json_schema"


def test_openai_other_400s_are_not_mistaken_for_a_refusal(
    judge_input: JudgeInput, numbering: Numbering
) -> None:
    with FakeProvider() as fake:
        fake.script(openai_error("The model `m` does not exist", status=404))
        with pytest.raises(TransportError):
            _openai(fake).ask(judge_input, numbering)
        assert fake.count == 1 and MEMORY.get(_openai(fake).url) is None


def test_openai_too_many_positions_uses_json_mode_for_that_audit_only(
    judge_input: JudgeInput,
) -> None:
    answer = "\n".join(f"- item {i} done." for i in range(MAX_ENUM_IDS + 5))
    big = number(Material.from_json({"request": ["x"], "todos": [], "final_answer": answer}))
    with FakeProvider() as fake:
        fake.script(openai_completion(GOOD))
        assert _openai(fake).ask(judge_input, big).reply_mode == "json_object"
        assert MEMORY.get(_openai(fake).url) is None


def test_anthropic_forced_tool_reply_is_parsed_as_strictly(
    judge_input: JudgeInput, numbering: Numbering
) -> None:
    body = anthropic_message("")
    body["content"] = [
        {"type": "tool_use", "id": "t1", "name": "record_verdict", "input": json.loads(GOOD)}
    ]
    with FakeProvider() as fake:
        fake.script(body)
        answer = _anthropic(fake).ask(judge_input, numbering)
        assert answer.reply_mode == "tool"
        assert json.loads(answer.text) == json.loads(GOOD)
        assert parse_reply(answer.text, numbering).focus.id == "T1"
        [req] = fake.requests
        assert req.json["tool_choice"] == {"type": "tool", "name": "record_verdict"}
        assert req.json["tools"][0]["input_schema"] == reply_schema(numbering)


def test_anthropic_refused_tools_fall_back_to_text_and_remember(
    judge_input: JudgeInput, numbering: Numbering
) -> None:
    with FakeProvider() as fake:
        fake.script(
            anthropic_error("invalid_request_error", "tools: this model does not support tools"),
            anthropic_message(GOOD),
            anthropic_message(GOOD),
        )
        first = _anthropic(fake).ask(judge_input, numbering)
        assert first.reply_mode == "text" and first.text == GOOD
        assert _anthropic(fake).ask(judge_input, numbering).reply_mode == "text"
        assert ["tools" in r.json for r in fake.requests] == [True, False, False]


def test_plain_text_refusal_after_last_mode_propagates(
    judge_input: JudgeInput, numbering: Numbering
) -> None:
    with FakeProvider() as fake:
        fake.script(
            openai_error("response_format json_schema unsupported"),
            openai_error("response_format json_object unsupported"),
            Reply(status=400, json={"error": {"message": "format is still wrong"}}),
        )
        with pytest.raises(TransportError):
            _openai(fake).ask(judge_input, numbering)
        assert fake.count == 3


def test_the_record_says_which_mode_was_used(
    jev_home: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from jev.base.record import validate_record_json
    from jev.cli import main
    from jev.store import Store
    from tests.conftest import FIXTURES

    case = FIXTURES / "cases" / "omission-no-tests-en-08.json"
    with FakeProvider(default=_strict_provider) as fake:
        args = ["audit", str(case), "--judge", "openai", "--model", "m", "--json"]
        code = main([*args, "--base-url", fake.openai_base, "--api-key-env", "JEV_NO_KEY_SET"])
    capsys.readouterr()
    assert code in (0, 4, 5)
    [record] = Store(jev_home / "jev.sqlite3").list_records()
    assert record.judge is not None and record.judge["reply_mode"] == "json_schema"
    validate_record_json(record.to_json())
    assert main(["records", "show", str(record.id)]) == 0
    card = capsys.readouterr().out
    assert "reply mode json_schema" in card
    assert "tokens: in 100 · out 12" in card  # the provider's usage, per audit


def _ollama_reply(content: str) -> dict[str, Any]:
    return {
        "model": "qwen2.5:7b",
        "message": {"role": "assistant", "content": content},
        "done": True,
        "prompt_eval_count": 321,
        "eval_count": 17,
    }


def test_ollama_format_schema_then_json_then_text(
    judge_input: JudgeInput, numbering: Numbering
) -> None:
    from jev.judges.ollama import OllamaJudge

    def strict(body: dict[str, Any]) -> Any:
        fmt = body.get("format")
        if not isinstance(fmt, dict):
            return Reply(status=400, json={"error": "expected a schema in format"})
        jsonschema.Draft202012Validator.check_schema(fmt)
        branches = {b["properties"]["assessment"]["enum"][0]: b for b in fmt["anyOf"]}
        assert branches["complete"]["properties"]["focus"]["enum"] == ["none", "R1", "T1", "A1"]
        assert branches["omission"]["properties"]["focus"]["enum"] == ["R1", "T1", "A1"]
        assert branches["unknown"]["properties"]["focus"]["enum"] == ["all", "R1", "T1", "A1"]
        return _ollama_reply(GOOD)

    with FakeProvider(default=strict) as fake:
        judge = OllamaJudge(model="qwen2.5:7b", base_url=fake.url + "/v1")
        answer = judge.ask(judge_input, numbering)
        assert answer.reply_mode == "json_schema" and answer.text == GOOD
        assert answer.usage is not None and answer.usage.input_tokens == 321
        [req] = fake.requests
        assert req.path == "/api/chat" and req.json["stream"] is False
    with FakeProvider() as old:
        old.script(
            Reply(status=400, json={"error": 'invalid format: expected "json" or empty'}),
            Reply(status=400, json={"error": "format json is not supported"}),
            _ollama_reply(GOOD),
            _ollama_reply(GOOD),
        )
        judge = OllamaJudge(model="m", base_url=old.url)
        assert judge.ask(judge_input, numbering).reply_mode == "text"
        assert judge.ask(judge_input, numbering).reply_mode == "text"
        formats = [r.json.get("format", "—") for r in old.requests]
        assert isinstance(formats[0], dict) and formats[1:] == ["json", "—", "—"]


def test_every_per_audit_schema_is_narrower_than_the_published_reply_schema(
    numbering: Numbering,
) -> None:
    """One source per contract (issue 24 item 3, design.md §15): the published
    ``schemas/judge-reply.schema.json`` is the reply contract; the schemas built per
    audit for constrained decoding may only narrow it. Every reply either dialect
    accepts is a valid reply under the published schema, and both name its five
    assessments exactly."""
    from jev.base.resources import data_file

    published = json.loads(data_file("schemas", "judge-reply.schema.json").read_text("utf-8"))
    contract = jsonschema.Draft202012Validator(published)
    assessments = published["properties"]["assessment"]["enum"]
    ids = [p.id for p in numbering.positions]
    for dialect in ("flat", "verdicts"):
        narrow = jsonschema.Draft202012Validator(reply_schema(numbering, dialect))
        accepted = 0
        for assessment in assessments:
            for focus in ids:
                for confidence in (0, 0.5, 1, None):
                    reply = {"assessment": assessment, "focus": focus, "confidence": confidence}
                    if narrow.is_valid(reply):
                        accepted += 1
                        assert contract.is_valid(reply), (dialect, reply)
        assert accepted, dialect
    flat = reply_schema(numbering, "flat")
    assert flat["properties"]["assessment"]["enum"] == assessments
    branches = reply_schema(numbering, "verdicts")["anyOf"]
    assert sorted(b["properties"]["assessment"]["enum"][0] for b in branches) == sorted(assessments)
