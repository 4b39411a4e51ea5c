"""Shared helpers of the rules judge's tests: small hand-written turns, numbered by the
real ``jev.pipeline.material.number`` (design.md §4)."""

from __future__ import annotations

import pytest

from jev.base.domain import JudgeInput, Material, Numbering, TodoItem
from jev.judges.rules import RuleHit, explain
from jev.pipeline.material import number

DUMMY_INPUT = JudgeInput(system="s", user="u", language="en", template_hash="0" * 64)

P = pytest.param


def turn(
    request: str | list[str],
    answer: str,
    todos: list[tuple[str, str]] | None = None,
) -> Numbering:
    """Number a small hand-written turn; ``todos`` are (content, status) pairs."""
    messages = (request,) if isinstance(request, str) else tuple(request)
    items = tuple(TodoItem(c, s) for c, s in (todos or []))
    return number(Material(request=messages, todos=items, final_answer=answer))


def judged(numbering: Numbering) -> tuple[RuleHit, str]:
    """The hit and the quoted focus text."""
    hit = explain(numbering)
    position = numbering.get(hit.focus)
    assert position is not None
    return hit, position.text
