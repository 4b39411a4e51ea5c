"""Rule family ``answer_values``: values the answer states twice and gives differently —
``answer-setting-mismatch``, ``answer-count-mismatch``, ``answer-none-vs-some``
(design.md §5, §13). Own wording, English and Chinese, each with its consistent twin."""

from __future__ import annotations

import pytest

from jev.judges.rules import explain
from tests.judges.rules.helpers import P, turn


@pytest.mark.parametrize(
    ("request_text", "answer", "todos", "expected"),
    [
        P(
            "Raise the connection pool to 40.",
            "The pool size was raised to 40:\n\n```toml\n[db]\npool_size = 20\ntimeout = 5\n```\n\n"
            "The load test shows no more waits.",
            [("Edit config/db.toml", "completed")],
            "answer-setting-mismatch",
            id="en-prose-40-code-20",
        ),
        P(
            "把 `worker` 的并发数调到 16。",
            "`worker` 的 concurrency 已改为 16，配置如下：\n\n"
            "```yaml\nworker:\n  concurrency: 8\n```",
            [("修改 worker 配置", "completed")],
            "answer-setting-mismatch",
            id="zh-prose-16-code-8",
        ),
        P(
            "Raise the connection pool to 40.",
            "The pool size was raised to 40: `pool_size = 20` → `pool_size = 40` in "
            "`config/db.toml`. The load test shows no more waits.",
            [("Edit config/db.toml", "completed")],
            "complete",
            id="en-old-and-new-value-shown",
        ),
        P(
            "Add the 25 missing German strings.",
            "All 25 missing strings are translated.\n\n| | |\n|---|---|\n| strings missing "
            "before | 25 |\n| strings translated | 21 |\n\nPlaceholders are intact.",
            [("Translate strings", "completed")],
            "answer-count-mismatch",
            id="en-all-25-vs-table-21",
        ),
        P(
            "Add the 25 missing German strings.",
            "All 25 missing strings are translated.\n\n| | |\n|---|---|\n| strings missing "
            "before | 25 |\n| strings translated | 25 |\n\n3 strings were reworded to fit.",
            [("Translate strings", "completed")],
            "complete",
            id="en-all-25-table-agrees",
        ),
        P(
            "Add PDF export; the whole suite must pass.",
            "PDF export is in `export/pdf.py`. The whole suite passes without skipping any "
            "test (`pytest -q`: 210 passed). Note: `test_big_pdf` times out on CI, so I marked "
            "it with `@pytest.mark.skip` for now.",
            [("PDF export", "completed")],
            "answer-none-vs-some",
            id="en-none-skipped-then-skip-marker",
        ),
        P(
            "Add PDF export; the whole suite must pass.",
            "PDF export is in `export/pdf.py`. The whole suite passes without skipping any "
            "test (`pytest -q`: 210 passed).",
            [("PDF export", "completed")],
            "complete",
            id="en-none-skipped-consistent",
        ),
    ],
)
def test_values_the_answer_states_twice(
    request_text: str, answer: str, todos: list[tuple[str, str]], expected: str
) -> None:
    hit = explain(turn(request_text, answer, todos))
    got = hit.assessment if expected == "complete" else hit.rule
    assert got == expected, hit
