"""The record model (jev/base/record_model.py) and schemas/record.schema.json agree.

The schema file is the published contract (kept by hand: descriptions, and the subset
that ``jev.base.schemacheck`` evaluates without jsonschema); the pydantic model is what
validates. Both ways are checked: their facts (fields, JSON types, required fields,
closed objects, enums, bounds, patterns) are equal, and on the golden records and
seeded mutations of them the model and jsonschema accept and refuse the same documents.
"""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import jsonschema
import pytest
from pydantic import ValidationError

from jev.base.record import validate_record_json
from jev.base.record_model import RecordModel
from jev.base.schemacheck import certainly_valid
from tests.conftest import FIXTURES, REPO

SCHEMA: dict[str, Any] = json.loads((REPO / "schemas" / "record.schema.json").read_text("utf-8"))
_FACTS = ("minimum", "exclusiveMinimum", "maximum", "minLength", "pattern")


def _deref(node: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        node = root["$defs"][node["$ref"].rsplit("/", 1)[1]]
    return node


def _facts(node: dict[str, Any], root: dict[str, Any], path: str, out: dict[str, Any]) -> None:
    """Collect comparable facts of a (sub)schema, keyed by the field's path."""
    node = _deref(node, root)
    types: set[str] = set()
    enum: set[str] = set()
    for branch in node.get("anyOf") or node.get("oneOf") or [node]:
        branch = _deref(branch, root)
        kind = branch.get("type")
        types |= {kind} if isinstance(kind, str) else set(kind or ())
        for value in branch.get("enum", ()):
            types.add("null" if value is None else "string")
            if value is not None:
                enum.add(value)
        for fact in _FACTS:
            if fact in branch:
                out[f"{path}.{fact}"] = branch[fact]
        if "properties" in branch:
            out[f"{path}.required"] = sorted(branch.get("required", ()))
            out[f"{path}.closed"] = branch.get("additionalProperties") is False
            for name, sub in branch["properties"].items():
                _facts(sub, root, f"{path}/{name}", out)
        if "items" in branch:
            _facts(branch["items"], root, f"{path}[]", out)
    if "number" in types:
        types.discard("integer")  # an int-or-float union is a JSON number
    out[f"{path}.types"] = sorted(types)
    if enum:
        out[f"{path}.enum"] = sorted(enum)


def _all_facts(schema: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    _facts(schema, schema, "", out)
    return out


def test_model_and_schema_file_state_the_same_facts() -> None:
    from_file = _all_facts(SCHEMA)
    from_model = _all_facts(RecordModel.model_json_schema())
    assert from_model == from_file
    assert from_file["/status.enum"] == ["cancelled", "incomplete", "skipped", "stale", "verdict"]
    assert "steer" not in from_file[".required"] and len(from_file[".required"]) == 33


def _records() -> list[dict[str, Any]]:
    path = FIXTURES / "golden" / "records.jsonl"
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


# No integer-valued float: JSON Schema calls 1.0 an integer, the model (strict) does not.
_VALUES: list[Any] = [
    None,
    True,
    False,
    0,
    1,
    -1,
    0.5,
    -0.5,
    1e400,
    "",
    "x",
    "complete",
    "T1",
    "R0",
    "none",
    "en",
    "json_schema",
    "2026-01-01T00:00:00Z",
    "a" * 64,
    "0" * 64,
    [],
    ["x"],
    [1],
    {},
    {"content": "c", "status": "pending"},
    {"kind": "k", "round": 0, "max_supplements": 0, "reason": ""},
]


def _paths(doc: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix] if prefix else []
    if isinstance(doc, dict):
        for key, value in doc.items():
            found += _paths(value, (*prefix, key))
    elif isinstance(doc, list):
        for index, value in enumerate(doc):
            found += _paths(value, (*prefix, index))
    return found


def _mutate(doc: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    out = copy.deepcopy(doc)
    path = rng.choice(_paths(out))
    parent: Any = out
    for step in path[:-1]:
        parent = parent[step]
    last = path[-1]
    move = rng.random()
    if move < 0.15 and isinstance(parent, dict):
        del parent[last]
    elif move < 0.25 and isinstance(parent, dict):
        parent["extra_" + str(rng.randint(0, 9))] = rng.choice(_VALUES)
    else:
        parent[last] = copy.deepcopy(rng.choice(_VALUES))
    return out


def _model_accepts(doc: Any) -> bool:
    try:
        RecordModel.model_validate(doc)
    except ValidationError:
        return False
    return True


def test_model_and_jsonschema_accept_and_refuse_the_same_records() -> None:
    validator = jsonschema.Draft202012Validator(SCHEMA)
    rng = random.Random(13)
    records = _records()
    refused = 0
    for record in records:
        assert _model_accepts(record) and validator.is_valid(record)
    for _ in range(1500):
        doc = _mutate(rng.choice(records), rng)
        by_schema = validator.is_valid(doc)
        assert _model_accepts(doc) == by_schema, doc
        if certainly_valid(SCHEMA, doc):
            assert by_schema
        refused += not by_schema
    assert refused > 500  # the mutations really test refusals


@pytest.mark.parametrize(
    ("field", "value", "words"),
    [
        ("round", 0, "field round: 0 is less than the minimum of 1"),
        ("round", "1", "field round: '1' is not of type 'integer'"),
        ("status", "done", "field status: 'done' is not one of 'verdict'"),
        ("material_hash", "xyz", "field material_hash: 'xyz' does not match"),
    ],
)
def test_refusals_name_the_field_and_show_the_value(field: str, value: Any, words: str) -> None:
    doc = _records()[0]
    doc[field] = value
    with pytest.raises(ValueError) as info:
        validate_record_json(doc)
    assert str(info.value).startswith(words)
