"""Fixtures for the judge tests: a running fake provider and a small judge input."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from jev.base.domain import JudgeInput, Material, Numbering, Position, TodoItem
from tests.fakeserver import FakeProvider

SYSTEM = "RULES: answer with one JSON object."
USER = 'MATERIAL <<<\n{"R1": "Fix the parser."}\n>>>'


@pytest.fixture
def fake_provider() -> Iterator[FakeProvider]:
    """A started :class:`FakeProvider` on 127.0.0.1, stopped after the test."""
    with FakeProvider() as fake:
        yield fake


@pytest.fixture
def judge_input() -> JudgeInput:
    """A tiny rendered judge input (system rules + user material)."""
    return JudgeInput(system=SYSTEM, user=USER, language="en", template_hash="0" * 64)


@pytest.fixture
def numbering() -> Numbering:
    """A numbering matching :func:`judge_input` (built by hand, no jev.base.segments)."""
    material = Material(
        request=("Fix the parser.",),
        todos=(TodoItem("Fix the parser", "completed"),),
        final_answer="Fixed the parser.",
    )
    return Numbering(
        material=material,
        positions=(
            Position("R1", "request", 1, "Fix the parser.", message=1),
            Position("T1", "todo", 1, "Fix the parser", status="completed"),
            Position("A1", "answer", 1, "Fixed the parser."),
            Position("none", "none", 0, ""),
            Position("all", "all", 0, ""),
        ),
    )
