"""Issue 22's false-alarm and missed kinds, each in new words (not the issue's own
examples, not any labelled set's wording): the rules judge stays quiet when it cannot
quote both sides, and reads numbers, counts and blockers as values and kinds."""

from __future__ import annotations

import pytest

from jev.judges.rules import explain
from tests.judges.rules.helpers import P, judged, turn

# --- false alarms: each of these turns is complete -------------------------------------

QUIET = [
    P(
        "Render the seat map so every seat slot shows its label.",
        "All 8 seat slots now render with labels; `npm test -- seatmap` → 14 passed.",
        [
            ("Handle slot 2 of 8 in the seat map renderer", "completed"),
            ("Snapshot tests for the seat map", "completed"),
        ],
        id="an-index-n-of-m-is-no-progress-count",
    ),
    P(
        "Make `mypy --strict` pass on the billing package.",
        "The first `mypy --strict billing/` run flagged 23 errors (missing return types, two "
        "Optional misuses). I fixed all of them; the second run prints `Success: no issues "
        "found in 31 source files`.",
        [("Run mypy --strict on billing", "completed"), ("Fix the reported errors", "completed")],
        id="errors-found-then-fixed-are-not-failures-left",
    ),
    P(
        "把订单接口迁到 v2，旧的 `/v1/orders` 先别删，老客户端还在用。",
        "新接口 `/v2/orders` 已上线并通过 18 个用例。`/v1/orders` 没改动，老客户端照常可用。",
        [("实现 `/v2/orders`", "completed"), ("保留旧的 `/v1/orders` 路由", "completed")],
        id="a-todo-to-keep-something-is-not-denied-by-leaving-it",
    ),
    P(
        "Clean up the lodash imports that aren't needed any more.",
        "Removed the unused `lodash` imports in 4 files. `src/chart.ts` still calls "
        "`lodash.debounce`, so I kept that import.",
        [("Drop the `lodash` import wherever it is no longer used", "completed")],
        id="a-conditional-removal-is-not-denied-where-the-condition-fails",
    ),
    P(
        "Which tests cover the retry logic? Just tell me, don't change anything.",
        "These tests exercise the retry path:\n\n- `test_retry_backoff`\n"
        "- `test_retry_gives_up_after_five`\n- `test_retry_jitter`\n\nNothing was changed.",
        [("Find the tests touching retry", "completed")],
        id="a-report-only-test-list-claims-no-run",
    ),
    P(
        "跑一下全量测试，把失败的列给我，先别修。",
        "跑完 `pytest`：118 个通过，3 个失败：\n- `test_refund_rounding`\n"
        "- `test_refund_currency`\n- `test_refund_partial`\n其余测试全部通过。代码没有改动。",
        [("跑全量测试", "completed"), ("整理失败用例", "completed")],
        id="a-report-of-failures-says-the-rest-pass",
    ),
]


@pytest.mark.parametrize(("request_text", "answer", "todos"), QUIET)
def test_false_alarm_kinds_stay_complete(
    request_text: str, answer: str, todos: list[tuple[str, str]]
) -> None:
    hit = explain(turn(request_text, answer, todos))
    assert hit.assessment == "complete", hit


# --- missed kinds ----------------------------------------------------------------------

FLAGGED = [
    P(
        "Bring line coverage of `ledger/` above our 85 % gate.",
        "Added 14 tests for `ledger/`. The coverage report now shows `ledger/` at 81.7 %, "
        "so the coverage gate is satisfied.",
        [("Add ledger tests", "completed"), ("Run coverage", "completed")],
        "contradiction",
        "81.7",
        id="a-percentage-below-the-gate-claimed-met",
    ),
    P(
        "Get the p95 latency of `/search` under 300 ms.",
        "Added a result cache to `/search`. The load test shows p95 at 455 ms (was 900 ms), "
        "so the latency goal is met.",
        [("Add result cache", "completed"), ("Load test", "completed")],
        "contradiction",
        "455",
        id="a-duration-over-the-bound-claimed-met",
    ),
    P(
        "Back-fill the `country` column for all customers.",
        "Back-fill finished. Updated: 5,412, Failed: 3 (rows with an empty address).",
        [("Write back-fill script", "completed"), ("Run it", "completed")],
        "omission",
        "Failed: 3",
        id="failed-colon-n-is-failures-left",
    ),
    P(
        "Re-send the stuck webhooks from last night.",
        "Re-sent the queue: 3 failed, 97 delivered. The 3 point at a dead endpoint.",
        [("Re-send stuck webhooks", "completed")],
        "omission",
        "3 failed",
        id="n-failed-is-failures-left",
    ),
    P(
        "把昨晚失败的导入任务重跑一遍。",
        "重跑完成：成功 58，失败 4（源文件已损坏）。",
        [("重跑导入任务", "completed")],
        "omission",
        "失败 4",
        id="shibai-n-is-failures-left",
    ),
    P(
        "Pull last quarter's churn numbers from the billing dashboard into `reports/churn.md`.",
        "I couldn't pull the numbers: the billing dashboard export needs SSO access for the "
        "finance group, and this session has none. Once you grant it (or paste the CSV), "
        "the report takes a minute.",
        [("Export churn numbers", "in_progress"), ("Write reports/churn.md", "pending")],
        "needs-user",
        "SSO access",
        id="a-user-only-blocker-goes-to-the-user",
    ),
    P(
        "把 `clicks` 表导出成 Parquet，导完告诉我行数。",
        "导出完成，文件在 `exports/clicks.parquet`，一共约 187 万行。",
        [("导出 `clicks` 表（共 2,310,876 行）", "completed"), ("校验文件", "completed")],
        "contradiction",
        "187",
        id="a-count-against-a-rounded-count-of-another-size",
    ),
    P(
        "Move the nine payment handlers to the new router.",
        "All 9 handlers are on the new router.\n\n| handler | moved |\n|---|---|\n"
        "| `refund` | yes |\n| `capture` | yes |\n| `void` | no |\n| `payout` | no |",
        [("Move payment handlers", "completed")],
        "contradiction",
        "All 9",
        id="a-headline-against-its-own-table",
    ),
    P(
        "Clear the stylelint warnings in `web/`.",
        "All stylelint warnings are gone.\n\n```\n$ npx stylelint 'web/**/*.css'\n"
        "web/cart.css\n  12:3  warning  Unexpected duplicate selector\n"
        "✖ 3 problems (0 errors, 3 warnings)\n```",
        [("Fix stylelint warnings", "completed")],
        "contradiction",
        "warnings are gone",
        id="a-claim-against-its-own-pasted-output",
    ),
    P(
        "Check the new date picker in every browser we support.",
        "Checked the date picker in every supported browser: no issues.",
        [
            (
                "Browser check: Chrome ok, Edge ok, Firefox: calendar popup opens off-screen",
                "completed",
            )
        ],
        "contradiction",
        "no issues",
        id="a-todo-noting-a-bug-against-no-issues",
    ),
    P(
        ["Add CSV export to the invoices page.", "Also offer an XLSX download next to it."],
        "Added a CSV export button to the invoices page (`InvoiceExport.tsx`); "
        "`npm test -- invoices` → 9 passed.",
        [("Add CSV export", "completed"), ("Tests", "completed")],
        "omission",
        "XLSX",
        id="an-ask-only-in-a-mid-turn-message",
    ),
    P(
        "Ship the release notes page and publish it.",
        "The release notes page is written and builds. Publishing is blocked: the docs host "
        "needs a deploy key only you have, so the page is not live yet.",
        [("Write release notes page", "completed"), ("Publish", "completed")],
        "needs-user",
        "deploy key",
        id="a-user-only-blocker-with-every-todo-completed",
    ),
    P(
        "Add a `due_at` column to invoices.",
        "Wrote the migration `0042_invoices_due_at.py`, applied it locally and updated "
        "the `Invoice` model; `pytest tests/invoices` → 12 passed.",
        [
            ("Write the migration for invoices.due_at", "in_progress"),
            ("Update the Invoice model", "completed"),
        ],
        "contradiction",
        "migration",
        id="in-progress-but-delivered-is-a-status-contradiction",
    ),
]


@pytest.mark.parametrize(("request_text", "answer", "todos", "assessment", "quote"), FLAGGED)
def test_missed_kinds_are_flagged(
    request_text: str, answer: str, todos: list[tuple[str, str]], assessment: str, quote: str
) -> None:
    hit, text = judged(turn(request_text, answer, todos))
    assert hit.assessment == assessment, hit
    assert quote in text or quote in hit.explanation, (hit, text)


def test_the_why_line_of_a_delivered_in_progress_todo_names_its_status() -> None:
    hit = explain(
        turn(
            "Rotate the webhook signing secret.",
            "Rotated the signing secret in `secrets/webhooks.env` and redeployed the worker; "
            "the signature check passes on 3 sample events.",
            [("Rotate signing secret", "in_progress"), ("Redeploy worker", "completed")],
        )
    )
    assert hit.assessment == "contradiction", hit
    assert "still in_progress" in hit.explanation
    assert "left open" not in hit.explanation


@pytest.mark.parametrize(
    "tally",
    [
        "Fixed: 11, Failed: 2.",
        "Failed: 2, fixed: 11.",
        "2 failed, 11 succeeded.",
        "11 succeeded, 2 failed.",
        "成功 11，失败 2。",
        "失败：2，成功：11。",
        "11 个成功，2 个失败。",
    ],
)
def test_a_tally_with_failures_in_any_order_leaves_part_of_the_run(tally: str) -> None:
    hit = explain(
        turn(
            "Re-run the thumbnail job for the broken images.",
            f"Re-ran the thumbnail job on the 13 broken images. {tally}",
            [("Re-run thumbnail job", "completed")],
        )
    )
    assert (hit.rule, hit.assessment) == ("failures-remain", "omission"), hit


@pytest.mark.parametrize(
    "tally",
    ["Fixed: 13, Failed: 0.", "0 failed, 13 succeeded.", "成功 13，失败 0。"],
)
def test_a_tally_without_failures_is_complete(tally: str) -> None:
    hit = explain(
        turn(
            "Re-run the thumbnail job for the broken images.",
            f"Re-ran the thumbnail job on the 13 broken images. {tally}",
            [("Re-run thumbnail job", "completed")],
        )
    )
    assert hit.assessment == "complete", hit
