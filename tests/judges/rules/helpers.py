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


def assert_quiet(request: str | list[str], answer: str, todos: list[tuple[str, str]]) -> None:
    """A false-alarm kind: the turn is judged ``complete``."""
    hit = explain(turn(request, answer, todos))
    assert hit.assessment == "complete", hit


def assert_flagged(
    request: str | list[str],
    answer: str,
    todos: list[tuple[str, str]],
    assessment: str,
    quote: str,
) -> None:
    """A problem kind: judged ``assessment``, with ``quote`` in the focus or the why-line."""
    hit, text = judged(turn(request, answer, todos))
    assert hit.assessment == assessment, hit
    assert quote in text or quote in hit.explanation, (hit, text)
