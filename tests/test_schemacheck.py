"""``certainly_valid`` never says "valid" where jsonschema says "invalid".

For each shipped schema: real valid documents (golden records, labelled turn files,
judge replies) and 1,500 seeded random mutations of them (keys dropped,
values replaced by other JSON types, out-of-range numbers, bad strings, extra keys)
are checked against jsonschema. ``True`` from the fast check must always mean valid;
and it must say ``True`` for the plain valid documents (else it saves nothing).
"""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import jsonschema
import pytest

from jev.base.schemacheck import certainly_valid
from tests.conftest import FIXTURES, REPO

SCHEMAS = REPO / "schemas"
_VALUES: list[Any] = [
    None,
    True,
    False,
    0,
    1,
    -1,
    1.0,
    0.5,
    2,
    1e400,
    "",
    "x",
    "complete",
    "T1",
    "pending",
    "en",
    "2026-01-01T00:00:00Z",
    "a" * 70,
    [],
    ["x"],
    [1],
    {},
    {"content": "c", "status": "pending"},
]


def _schema(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((SCHEMAS / name).read_text("utf-8"))
    return data


def _records() -> list[dict[str, Any]]:
    path = FIXTURES / "golden" / "records.jsonl"
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def _turns() -> list[dict[str, Any]]:
    files = sorted((FIXTURES / "cases").glob("*.json"))[:40]
    return [json.loads(p.read_text("utf-8")) for p in files]


def _replies() -> list[dict[str, Any]]:
    return [
        {"assessment": "complete", "focus": "none"},
        {"assessment": "omission", "focus": "T3", "confidence": 0.8},
        {"assessment": "needs-user", "focus": "A2", "confidence": None, "why": "x"},
        {"assessment": "unknown", "focus": "all", "confidence": 1},
    ]


def _paths(doc: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(doc, dict):
        for key, value in doc.items():
            out += _paths(value, (*prefix, key))
    elif isinstance(doc, list):
        for i, value in enumerate(doc):
            out += _paths(value, (*prefix, i))
    return out


def _mutate(doc: Any, rng: random.Random) -> Any:
    doc = copy.deepcopy(doc)
    for _ in range(rng.randint(1, 3)):
        paths = [p for p in _paths(doc) if p]
        if not paths:
            return rng.choice(_VALUES)
        path = rng.choice(paths)
        parent = doc
        for part in path[:-1]:
            parent = parent[part]
        last = path[-1]
        action = rng.random()
        if action < 0.2 and isinstance(parent, dict):
            del parent[last]
        elif action < 0.3 and isinstance(parent, dict):
            parent["extra_" + str(rng.randint(0, 9))] = rng.choice(_VALUES)
        else:
            parent[last] = copy.deepcopy(rng.choice(_VALUES))
    return doc


@pytest.mark.parametrize(
    ("name", "documents"),
    [
        ("record.schema.json", _records),
        ("turn.schema.json", _turns),
        ("judge-reply.schema.json", _replies),
    ],
)
def test_certainly_valid_agrees_with_jsonschema(name: str, documents: Any) -> None:
    schema = _schema(name)
    validator = jsonschema.Draft202012Validator(schema)
    docs = documents()
    assert docs
    for doc in docs:
        assert validator.is_valid(doc)
        assert certainly_valid(schema, doc), doc  # the fast path is taken for real data
    rng = random.Random(13)
    said_valid = 0
    for i in range(1500):
        mutant = _mutate(docs[i % len(docs)], rng)
        if certainly_valid(schema, mutant):
            said_valid += 1
            assert validator.is_valid(mutant), mutant
    assert said_valid > 0  # some mutations stay valid and are recognised as such


def test_unknown_keywords_are_left_to_jsonschema() -> None:
    assert certainly_valid({"type": "string"}, "x")
    assert not certainly_valid({"type": "string", "format": "email"}, "x")
    assert not certainly_valid({"type": "object", "additionalProperties": {"type": "string"}}, {})
    assert not certainly_valid({"type": "integer"}, 1.0)  # valid, but not certain here
    assert not certainly_valid({"enum": [1]}, True)
