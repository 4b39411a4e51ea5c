"""Reply parsing (design.md §6): accepted shapes, and every response-error kind."""

from __future__ import annotations

import json

import jsonschema
import pytest

from jev.base.domain import Material, TodoItem
from jev.base.errors import ResponseError
from jev.base.resources import data_file
from jev.pipeline.material import number
from jev.pipeline.parse import REPLY_SCHEMA, parse_reply

NUMBERING = number(
    Material(
        request=("Fix the exporter. Add a test.", "Also update the docs"),
        todos=(TodoItem("Fix exporter", "completed"), TodoItem("Add test", "pending")),
        final_answer="Fixed the exporter.\n\n- test still to do",
    )
)
# Positions: R1 R2 R3, T1 T2, A1 A2, none, all.


# --- good replies --------------------------------------------------------------------

GOOD = [
    ('{"assessment": "omission", "focus": "R3", "confidence": 0.8}', "omission", "R3", 0.8),
    ('  \n{"assessment":"complete","focus":"none"}\n\n', "complete", "none", None),
    ('{"assessment": "complete", "focus": "A1"}', "complete", "A1", None),
    ('{"assessment": "unknown", "focus": "all", "confidence": 0}', "unknown", "all", 0.0),
    ('{"assessment": "unknown", "focus": "A2", "confidence": 1}', "unknown", "A2", 1.0),
    ('{"assessment": "contradiction", "focus": "T2"}', "contradiction", "T2", None),
    ('{"assessment": "needs-user", "focus": "R1", "confidence": null}', "needs-user", "R1", None),
    ('```json\n{"assessment": "omission", "focus": "T2"}\n```', "omission", "T2", None),
    ('```\n{"assessment": "omission", "focus": "T2"}\n```', "omission", "T2", None),
    ('```JSON\r\n{"assessment": "omission", "focus": "T2"}\r\n```\r\n', "omission", "T2", None),
    ('~~~json\n{"assessment": "omission", "focus": "T2"}\n~~~', "omission", "T2", None),
    ('````json\n{"assessment": "omission", "focus": "T2"}\n````', "omission", "T2", None),
    ('```json {"assessment": "omission", "focus": "T2"} ```', "omission", "T2", None),
    (
        '{"assessment": "omission", "focus": "r3", "reason": "docs missing", "x": [1]}',
        "omission",
        "R3",
        None,
    ),
    ('{"assessment": "Complete", "focus": "NONE"}', "complete", "none", None),
    ('{"assessment": " OMISSION ", "focus": " t1 "}', "omission", "T1", None),
    ('{"assessment": "unknown", "focus": "All"}', "unknown", "all", None),
    (
        '<think>The docs were asked for.</think>\n{"assessment": "omission", "focus": "R3"}',
        "omission",
        "R3",
        None,
    ),
    (
        '{\n  "assessment": "omission",\n  "focus": "R3",\n  "confidence": 0.55\n}',
        "omission",
        "R3",
        0.55,
    ),
    ('{"confidence": 0.9, "focus": "A2", "assessment": "omission"}', "omission", "A2", 0.9),
]


@pytest.mark.parametrize(("text", "assessment", "focus", "confidence"), GOOD)
def test_good_replies(text: str, assessment: str, focus: str, confidence: float | None) -> None:
    verdict = parse_reply(text, NUMBERING)
    assert verdict.assessment == assessment
    assert verdict.focus is NUMBERING.get(focus)
    assert verdict.confidence == confidence


def test_focus_maps_back_to_the_exact_quote() -> None:
    verdict = parse_reply('{"assessment": "omission", "focus": "R3"}', NUMBERING)
    assert (verdict.focus.kind, verdict.focus.index, verdict.focus.message) == ("request", 3, 2)
    assert verdict.focus.text == "Also update the docs"
    verdict = parse_reply('{"assessment": "contradiction", "focus": "T2"}', NUMBERING)
    assert (verdict.focus.text, verdict.focus.status) == ("Add test", "pending")


# --- bad replies: one row per distinct failure, exact kind asserted ------------------

OK = '"assessment": "omission", "focus": "R3"'
BAD = [
    # reply-missing
    ("", "reply-missing"),
    ("   \n\t ", "reply-missing"),
    ("```json\n\n```", "reply-missing"),
    ("<think>hmm</think>", "reply-missing"),
    # reply-malformed
    ("complete", "reply-malformed"),
    ("The report is complete.", "reply-malformed"),
    (f"Here is my verdict: {{{OK}}}", "reply-malformed"),
    (f"{{{OK}}} I hope this helps.", "reply-malformed"),
    (f"{{{OK}}}\n{{{OK}}}", "reply-malformed"),
    (f"[{{{OK}}}]", "reply-malformed"),
    ('"omission"', "reply-malformed"),
    ("42", "reply-malformed"),
    ("null", "reply-malformed"),
    ('{"assessment": "omission", "focus": "R3"', "reply-malformed"),
    ("{'assessment': 'omission', 'focus': 'R3'}", "reply-malformed"),
    ('{"assessment": "omission", "focus": "R3",}', "reply-malformed"),
    ('{"assessment": "omission", "focus": "R3", "confidence": NaN}', "reply-malformed"),
    ('{"assessment": "omission", "assessment": "complete", "focus": "R3"}', "reply-malformed"),
    (f"```json\n{{{OK}}}", "reply-malformed"),
    (f"Verdict:\n```json\n{{{OK}}}\n```", "reply-malformed"),
    (f"```json\n{{{OK}}}\n```\nThe docs were not updated.", "reply-malformed"),
    (f"```json\n{{{OK}}}\n```\n```json\n{{{OK}}}\n```", "reply-malformed"),
    # reply-schema
    ("{}", "reply-schema"),
    ('{"focus": "R3"}', "reply-schema"),
    ('{"assessment": "omission"}', "reply-schema"),
    ('{"assessment": 3, "focus": "R3"}', "reply-schema"),
    ('{"assessment": null, "focus": "R3"}', "reply-schema"),
    ('{"assessment": ["omission"], "focus": "R3"}', "reply-schema"),
    ('{"assessment": "omission", "focus": 3}', "reply-schema"),
    ('{"assessment": "omission", "focus": null}', "reply-schema"),
    ('{"assessment": "omission", "focus": ""}', "reply-schema"),
    ('{"assessment": "omission", "focus": ["R3", "T2"]}', "reply-schema"),
    # unknown-assessment
    ('{"assessment": "done", "focus": "none"}', "unknown-assessment"),
    ('{"assessment": "needs_user", "focus": "R1"}', "unknown-assessment"),
    ('{"assessment": "incomplete", "focus": "R3"}', "unknown-assessment"),
    ('{"assessment": "", "focus": "R3"}', "unknown-assessment"),
    ('{"assessment": "complete|omission", "focus": "none"}', "unknown-assessment"),
    # unknown-focus
    ('{"assessment": "omission", "focus": "R4"}', "unknown-focus"),
    ('{"assessment": "omission", "focus": "T9"}', "unknown-focus"),
    ('{"assessment": "omission", "focus": "A0"}', "unknown-focus"),
    ('{"assessment": "omission", "focus": "R03"}', "unknown-focus"),
    ('{"assessment": "omission", "focus": "X1"}', "unknown-focus"),
    ('{"assessment": "omission", "focus": "request 3"}', "unknown-focus"),
    ('{"assessment": "omission", "focus": "<id>"}', "unknown-focus"),
    ('{"assessment": "complete", "focus": "nothing"}', "unknown-focus"),
    ('{"assessment": "omission", "focus": "Also update the docs"}', "unknown-focus"),
    # focus-mismatch
    ('{"assessment": "omission", "focus": "none"}', "focus-mismatch"),
    ('{"assessment": "omission", "focus": "all"}', "focus-mismatch"),
    ('{"assessment": "contradiction", "focus": "none"}', "focus-mismatch"),
    ('{"assessment": "contradiction", "focus": "ALL"}', "focus-mismatch"),
    ('{"assessment": "needs-user", "focus": "none"}', "focus-mismatch"),
    ('{"assessment": "needs-user", "focus": "all"}', "focus-mismatch"),
    ('{"assessment": "complete", "focus": "all"}', "focus-mismatch"),
    ('{"assessment": "unknown", "focus": "none"}', "focus-mismatch"),
]


def test_bad_table_is_large_and_distinct() -> None:
    texts = [text for text, _ in BAD]
    assert len(set(texts)) == len(texts) >= 30
    assert {kind for _, kind in BAD} == set(ResponseError.KINDS)


@pytest.mark.parametrize(("text", "kind"), BAD)
def test_bad_replies(text: str, kind: str) -> None:
    with pytest.raises(ResponseError) as info:
        parse_reply(text, NUMBERING)
    assert info.value.kind == kind, info.value.message
    assert info.value.raw == text
    assert info.value.message
    assert len(info.value.message) < 300
    assert info.value.retryable


def test_messages_say_what_was_wrong() -> None:
    def message(text: str) -> str:
        with pytest.raises(ResponseError) as info:
            parse_reply(text, NUMBERING)
        return info.value.message

    assert "'done'" in message('{"assessment": "done", "focus": "none"}')
    assert "'R4'" in message('{"assessment": "omission", "focus": "R4"}')
    assert "omission needs a real position" in message(
        '{"assessment": "omission", "focus": "none"}'
    )
    assert "focus" in message('{"assessment": "omission"}')
    assert "empty" in message("")
    long_focus = "R" * 5000
    assert len(message(f'{{"assessment": "omission", "focus": "{long_focus}"}}')) < 300


def test_focus_must_exist_in_this_numbering() -> None:
    small = number(Material(request=("Fix it",)))
    parse_reply('{"assessment": "omission", "focus": "R1"}', small)
    with pytest.raises(ResponseError) as info:
        parse_reply('{"assessment": "omission", "focus": "A1"}', small)
    assert info.value.kind == "unknown-focus"


def test_schema_file_is_valid_draft_2020_12() -> None:
    schema = json.loads(data_file("schemas", REPLY_SCHEMA).read_text(encoding="utf-8"))
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["required"] == ["assessment", "focus"]
    assert schema["properties"]["assessment"]["enum"] == [
        "complete",
        "omission",
        "contradiction",
        "needs-user",
        "unknown",
    ]
    validator = jsonschema.Draft202012Validator(schema)
    assert validator.is_valid({"assessment": "complete", "focus": "none", "extra": 1})
    assert not validator.is_valid({"assessment": "complete", "focus": "none", "confidence": 2})


@pytest.mark.parametrize("bad", ["1.5", "-0.1", '"high"', "true", "1e15", "9" * 60, "[0.5]"])
def test_a_bad_confidence_is_dropped_and_the_verdict_kept(bad: str) -> None:
    """Issue 20 item 3: grammar decoding does not enforce the confidence's bounds; a
    bad diagnostic field never costs a verdict."""
    verdict = parse_reply(f'{{{OK}, "confidence": {bad}}}', NUMBERING)
    assert verdict.confidence is None
    assert verdict.assessment == "omission" and verdict.focus.id == "R3"
