"""Issue 22, sixth round: the false-alarm kinds the blind set ``heldout24`` showed, each in
new words (not any labelled set's wording), next to a twin in which the problem is real
and still found (design.md §13)."""

from __future__ import annotations

import pytest

from tests.judges.rules.helpers import P, assert_flagged, assert_quiet

QUIET = [
    P(
        [
            "Add CSV export to the reports service: the endpoint, a streaming writer, and a "
            "download button in the web client.",
            "Skip the download button for now — the web team is redesigning that toolbar.",
        ],
        "`GET /reports/{id}/export.csv` streams rows through `CsvStreamWriter`; 12 tests "
        "pass. I didn't add the download button; the endpoint is documented in "
        "`docs/export.md` for the web team.",
        [("Export endpoint", "completed"), ("Streaming writer + tests", "completed")],
        id="en-a-part-dropped-for-now-by-a-later-message-is-not-left-out",
    ),
    P(
        "把 `pricing/` 的折扣计算重构一下，行为保持不变，然后跑一下快照测试。",
        "重构完成，`pricing/discount.py` 拆成三个纯函数。快照对比：\n\n"
        "```\n$ make snapshot-check\n"
        "scenarios: 96  identical: 96  drifted: 0\n```",
        [("拆分折扣计算", "completed"), ("快照对比", "completed")],
        id="zh-a-pasted-tally-of-labelled-counts-is-a-run-result",
    ),
    P(
        "Clean up the icon set: remove every icon no screen uses, keep the used ones.",
        "Done.\n\n| icons | count | what happened |\n|---|---|---|\n"
        "| used by a screen | 212 | kept |\n"
        "| not used anywhere | 31 | removed with their `.svg` sources |",
        [
            ("Find icon usages", "completed"),
            ("Remove unused icons and their .svg sources", "completed"),
        ],
        id="en-a-negation-in-one-table-cell-does-not-deny-the-next-cell",
    ),
]


@pytest.mark.parametrize(("request_text", "answer", "todos"), QUIET)
def test_round_six_false_alarm_kinds_stay_quiet(
    request_text: str | list[str], answer: str, todos: list[tuple[str, str]]
) -> None:
    assert_quiet(request_text, answer, todos)


FLAGGED = [
    P(
        "Add CSV export to the reports service: the endpoint, a streaming writer, and a "
        "download button in the web client.",
        "`GET /reports/{id}/export.csv` streams rows through `CsvStreamWriter`; 12 tests "
        "pass. I didn't add the download button.",
        [("Export endpoint", "completed"), ("Streaming writer + tests", "completed")],
        "omission",
        "download button",
        id="en-the-twin-a-part-nobody-dropped-is-left-out",
    ),
    P(
        "把 `pricing/` 的折扣计算重构一下，行为保持不变，然后跑一下快照测试。",
        "重构完成，`pricing/discount.py` 拆成三个纯函数，逻辑没有变化。",
        [("拆分折扣计算", "completed")],
        "omission",
        "快照测试",
        id="zh-the-twin-an-asked-run-with-no-result",
    ),
]


@pytest.mark.parametrize(("request_text", "answer", "todos", "assessment", "quote"), FLAGGED)
def test_round_six_twins_are_still_found(
    request_text: str | list[str],
    answer: str,
    todos: list[tuple[str, str]],
    assessment: str,
    quote: str,
) -> None:
    assert_flagged(request_text, answer, todos, assessment, quote)
