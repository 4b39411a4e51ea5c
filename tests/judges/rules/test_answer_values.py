"""Rule family ``answer_values``: values the answer states twice and gives differently —
``answer-setting-mismatch``, ``answer-count-mismatch``, ``answer-total-mismatch``,
``answer-none-vs-some``
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
        P(
            "Drop the stale cron entries.",
            "Dropped 8 stale cron entries from `deploy/crontab`. Overall 6 entries were removed "
            "and the scheduler reloaded.",
            [("Drop stale cron entries", "completed")],
            "answer-total-mismatch",
            id="en-dropped-8-total-6",
        ),
        P(
            "Drop the stale cron entries.",
            "Dropped 3 stale cron entries from `deploy/crontab` and 5 entries from "
            "`deploy/crontab.eu`. Overall 8 entries were removed and the scheduler reloaded.",
            [("Drop stale cron entries", "completed")],
            "complete",
            id="en-total-is-the-sum",
        ),
        P(
            "归档过期的工单。",
            "一共归档了 40 条工单，都移到了 `archive` 表。汇总：本次处理了 35 条过期工单。",
            [("归档过期工单", "completed")],
            "answer-total-mismatch",
            id="zh-two-totals-differ",
        ),
        P(
            "归档过期的工单。",
            "一共归档了 40 条工单，都移到了 `archive` 表。汇总：本次处理了 40 条过期工单，"
            "还剩 3 条等负责人确认。",
            [("归档过期工单", "completed")],
            "complete",
            id="zh-two-totals-agree",
        ),
        P(
            "删掉没用的环境变量。",
            "清理了 6 个废弃的环境变量，见 `deploy/.env.example`。总计删除 4 个环境变量。",
            [("清理环境变量", "completed")],
            "answer-total-mismatch",
            id="zh-cleaned-6-total-4",
        ),
        P(
            "Clean up the dead code in the billing module.",
            "Deleted 4 unused helpers from `billing/old.py` and 3 from `billing/utils.py`. "
            "Summary: 7 helpers removed (52 passed).",
            [("Remove dead code", "completed")],
            "complete",
            id="en-part-without-its-noun",
        ),
    ],
)
def test_values_the_answer_states_twice(
    request_text: str, answer: str, todos: list[tuple[str, str]], expected: str
) -> None:
    hit = explain(turn(request_text, answer, todos))
    got = hit.assessment if expected == "complete" else hit.rule
    assert got == expected, hit
