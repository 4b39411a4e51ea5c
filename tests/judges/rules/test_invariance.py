"""Invariance as a property (issue 22 item 1): every built-in labelled turn is judged as
it is and under generated meaning-neutral rewordings (:mod:`tests.judges.rules.rewordings`),
and no rewording may change the assessment. The default run checks every seventh turn;
the whole corpus runs under ``-m slow``."""

from __future__ import annotations

import pytest

from jev.base.domain import Material, TodoItem
from jev.judges.rules import explain
from jev.judges.rules._base import _core_answers, _filler
from jev.measure.benchmark import builtin_cases
from jev.measure.evaluate import Case
from jev.pipeline.material import number
from tests.judges.rules.helpers import turn
from tests.judges.rules.rewordings import rewordings

CASES = builtin_cases()


def _changes(cases: list[tuple[str, Case]]) -> list[str]:
    changed = []
    for set_name, case in cases:
        base = explain(number(case.material))
        for name, material in rewordings(case.material):
            hit = explain(number(material))
            if hit.assessment != base.assessment:
                changed.append(
                    f"{set_name}/{case.id} {name}: {base.assessment} ({base.rule}) → "
                    f"{hit.assessment} ({hit.rule})"
                )
    return changed


def test_every_seventh_turn_keeps_its_assessment_under_rewording() -> None:
    sample = CASES[::7]
    assert len(sample) > 50
    assert _changes(sample) == []


@pytest.mark.slow  # ~7,400 judgments
def test_every_builtin_turn_keeps_its_assessment_under_rewording() -> None:
    assert _changes(CASES) == []


def test_the_generator_makes_every_kind_of_rewording() -> None:
    material = Material(
        request=("Fix the login bug\nand add a test.",),
        todos=(TodoItem("Fix login", "completed"), TodoItem("Add test", "completed")),
        final_answer="I fixed it:\n\n- `auth.py` changed\n- test added\n\n1. ran pytest",
    )
    names = {name for name, _ in rewordings(material)}
    for kind in (
        "closing-0",
        "closing-other",
        "closing-two",
        "closing-same-line",
        "lead-0",
        "heading-0",
        "bullets-star",
        "bullets-numbered",
        "numbered-dash",
        "crlf",
        "blank-lines",
        "i-to-we",
        "todos-reversed",
    ):
        assert kind in names
    reworded = dict(rewordings(material))
    assert reworded["i-to-we"].final_answer.startswith("We fixed it")
    assert "`auth.py`" in reworded["i-to-we"].final_answer
    assert [t.content for t in reworded["todos-reversed"].todos] == ["Add test", "Fix login"]
    assert "\r\n" in reworded["crlf"].final_answer


@pytest.mark.parametrize(
    "text",
    [
        "Thanks!",
        "Hope this helps.",
        "Let me know if you have any other questions.",
        "谢谢！",
        "希望对你有帮助。",
        "有问题随时告诉我。",
        "## Summary",
        "Here is what I did:",
        "以下是总结：",
    ],
)
def test_filler_lines(text: str) -> None:
    assert _filler(text)


@pytest.mark.parametrize(
    "text",
    [
        "Thanks to the new index the report takes 20 ms.",
        "Thanks for waiting; the staging migration still fails.",
        "Let me know which region to deploy to.",
        "## Summary: 2 jobs still red",
        "Summary: done.",
        "以下接口仍未迁移：",
        "谢谢，不过 CI 还是红的。",
    ],
)
def test_content_is_not_filler(text: str) -> None:
    assert not _filler(text)


def test_a_closing_after_a_question_leaves_the_question_last() -> None:
    numbering = turn(
        "Deploy the new billing worker.",
        "The worker is built and tested.\n\nShould I deploy it to prod or to staging first?"
        "\n\nThanks for your patience!",
        [("Build worker", "completed"), ("Deploy worker", "pending")],
    )
    hit = explain(numbering)
    assert hit.assessment == "needs-user"
    core = _core_answers(numbering.of_kind("answer"))
    assert core[-1].text.startswith("Should I deploy")
