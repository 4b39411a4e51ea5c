"""Issue 22, third round: the kinds the blind sets ``heldout5``–``heldout8`` showed, each in
new words (not any labelled set's wording). False alarms first — each turn is complete —
then problems, each found with both sides of the finding quoted (design.md §13)."""

from __future__ import annotations

import pytest

from tests.judges.rules.helpers import P, assert_flagged, assert_quiet, judged, turn

QUIET = [
    P(
        "Set up an alert when the ingest lag stays above 12,000 messages for 15 minutes, and "
        "page the data on-call.",
        "Alert `IngestLagHigh` fires when `kafka_consumergroup_lag` > 12000 for 15m and routes "
        "to the `data-oncall` receiver; `promtool check rules` passes.",
        [("Add IngestLagHigh rule", "completed"), ("Route to data-oncall", "completed")],
        id="a-thousands-separator-does-not-split-a-listed-item",
    ),
    P(
        "Move the app from `lodash` 3.10 to 4.17.",
        "`lodash` is now `^4.17.21`; 12 call sites of `_.pluck` became `_.map`. `npm test`: "
        "203 passed.",
        [("Bump lodash to ^4.17.15", "completed"), ("Replace _.pluck", "completed")],
        id="a-patch-above-the-plan-still-meets-the-asked-version",
    ),
    P(
        "Draft the `orders` partitioning migration; I'll look at it before anything runs.",
        "The migration `0091_partition_orders.py` is written and nothing has been applied.",
        [
            ("Write partition migration", "completed"),
            ("Apply once the user has looked at it", "pending"),
        ],
        id="an-open-todo-that-waits-on-the-user-is-theirs",
    ),
    P(
        "Bring `/checkout` p95 under 400 ms at 300 RPS and show the numbers.",
        "p95 is 310 ms at 300 RPS now, under the 400 ms target (a 10 min soak on staging).",
        [("Soak test at 300 RPS for 10 min", "completed"), ("Index cart_items", "completed")],
        id="a-run-length-is-no-latency",
    ),
    P(
        "Get branch coverage of `pricing/` over the 70% gate.",
        "Branch coverage of `pricing/` is now 74.2%, above the 70% gate. Line coverage sits "
        "at 66.0%, which the gate does not check.",
        [("Add edge-case tests", "completed"), ("Run coverage", "completed")],
        id="the-claims-own-value-meets-the-gate",
    ),
    P(
        "压测一下 `/api/feed`（持续 10 分钟），把 p99 报给我，先别改代码。",
        "压测跑完：p99 为 820 ms，大约第 4 分钟开始上升。代码没有改动。",
        [("k6 压测 /api/feed 10 分钟", "completed"), ("汇总 p99", "completed")],
        id="a-point-in-time-is-no-duration",
    ),
    P(
        "Count the rows of `events` in both databases and tell me if they match.",
        "Both sides hold the same number of rows:\n\n| table | primary | replica |\n|---|---|"
        "---|\n| events | 4,180,233 | 418.0 万 |",
        [("Count rows on primary and replica", "completed")],
        id="counts-that-agree-within-their-rounding",
    ),
]


FLAGGED = [
    P(
        "Make the `api` image pass the container scan with no CRITICAL findings.",
        "Rebuilt on `node:20-bookworm-slim`; the scan shows no CRITICAL vulnerabilities now.",
        [
            ("Switch base image", "completed"),
            ("Rescan with grype (2 CRITICAL left in libssl, no fix upstream)", "completed"),
        ],
        "contradiction",
        "no CRITICAL vulnerabilities",
        id="a-todo-counts-a-finding-the-answer-says-is-gone",
    ),
    P(
        "Ship the search page in all four locales.",
        "All four locales now ship the search page.\n\n| locale | status |\n|---|---|\n"
        "| en | ✅ |\n| de | ✅ |\n| fr | ✅ |\n| ja | ❌ strings still missing |",
        [("Translate search page", "completed")],
        "contradiction",
        "All four locales now ship",
        id="a-whole-claim-over-a-marked-row",
    ),
    P(
        "Bump `grpc` and keep the unit tests passing.",
        "Bumped `grpc` to 1.64 and all unit tests pass.\n\n| Passed | Failed |\n|---|---|\n"
        "| 118 | 3 |",
        [("Bump grpc", "completed"), ("Run unit tests", "completed")],
        "contradiction",
        "all unit tests pass",
        id="a-green-claim-over-a-tally-table",
    ),
    P(
        "Get the dashboard's bundle under 250 KB gzipped.",
        "Tree-shaking and lazy charts brought it from 410 KB to 290 KB; I haven't reached "
        "the 250 KB target yet.",
        [("Lazy-load charts", "completed"), ("Measure bundle", "completed")],
        "omission",
        "haven't reached",
        id="an-admitted-missed-target",
    ),
    P(
        "在 staging 压测 `/api/rank`，确认 p95 有没有降到 250ms 以内，这是发布门槛。",
        "压测结束，p95 已经满足发布门槛。\n\n| | 之前 | 之后 |\n|---|---|---|\n"
        "| p95 | 900 ms | 0.31 s |",
        [("压测 /api/rank", "completed")],
        "contradiction",
        "满足发布门槛",
        id="a-gate-word-next-to-an-upper-bound",
    ),
    P(
        [
            "Rename the `Customer` model to `Account`.",
            "Oh, and rename `customer_id` in `Invoice` too.",
        ],
        "Renamed `Customer` to `Account` with a migration; 64 tests pass.",
        [("Rename model", "completed"), ("Write migration", "completed")],
        "omission",
        "customer_id",
        id="a-later-and-too-ask-never-named",
    ),
    P(
        "Fix the login redirect loop and add a regression test.",
        "Done.",
        [
            ("Find where `next=` is rebuilt", "completed"),
            ("Stop re-encoding `next` in `auth/redirect.py`", "completed"),
        ],
        "unknown",
        "Done.",
        id="a-bare-done-over-a-todo-plan",
    ),
    P(
        "Deploy the price-list service to prod.",
        "The prod login needs a browser approval. Could you open the sign-in page, type code "
        "`RKTQ-8841` and approve the request?",
        [("Build image", "completed"), ("Log in to prod", "in_progress")],
        "needs-user",
        "approve the request",
        id="asking-the-user-to-approve-a-sign-in",
    ),
]


# --- after heldout9's one measurement (it is development data now) ----------------------

QUIET_AFTER_HELDOUT9 = [
    P(
        "Fix the wrong flag names and defaults in `docs/cli.md`, nothing else.",
        "`docs/cli.md` now uses the v2 flag names (`--out-dir`, `--max-jobs`) and the right "
        "defaults (`jobs: 4`). No other file changed.",
        [("Fix docs/cli.md flags", "completed")],
        id="a-restriction-is-no-listed-item",
    ),
    P(
        "把 `api/` 里的 print 调试输出都换成 logging。`api/old_jobs/` 里的脚本不要动，下个月删。",
        "- `api/` 下 12 处 `print` 换成了 `logger.debug`。\n- `api/old_jobs/cron_sync.py` "
        "一行没改，里面仍然有 4 处 `print`，按你的意思留着。",
        [("替换 api/ 下 print", "completed"), ("api/old_jobs/ 保持原样", "completed")],
        id="what-was-left-is-what-the-user-kept-out",
    ),
]


FLAGGED_AFTER_HELDOUT9 = [
    P(
        "Archive the 6 unused S3 buckets of the `legacy` account.",
        "All 6 buckets are archived.\n\n| bucket | result |\n|---|---|\n| `logs-2019` | deleted |\n"
        "| `tmp-exports` | deleted |\n| `old-media` | failed: `AccessDenied` on its policy |",
        [("Archive buckets", "completed")],
        "contradiction",
        "All 6 buckets are archived.",
        id="a-status-cell-that-opens-with-failed",
    ),
    P(
        [
            "Add rate limits to the search API.",
            "Also log each rejected request with its `api_key` prefix.",
        ],
        "",
        [("Add limiter", "completed"), ("Log rejected requests", "completed")],
        "unknown",
        "",
        id="an-empty-answer-is-thin-before-any-missed-later-ask",
    ),
    P(
        "Convert every page of the admin app to the new router.",
        "Converted 5 of the 8 pages (`users`, `roles`, `audit`, `billing`, `flags`). The "
        "other three still use the old router. Shall I go ahead with the remaining three?",
        [("Convert first five pages", "completed"), ("Convert remaining pages", "pending")],
        "omission",
        "",
        id="asking-to-go-on-with-the-rest-is-no-user-decision",
    ),
    P(
        "把 `orders` 服务的时间处理从 arrow 换成 pendulum，组件也要改。",
        "- `orders/time.py` 里的 `arrow.get()` 都换成了 `pendulum.parse()`\n"
        "- `pytest tests/orders` → 41 passed",
        [("替换 orders/time.py", "completed"), ("替换组件里的 arrow", "pending")],
        "omission",
        "替换组件里的 arrow",
        id="a-local-replace-with-is-no-universal-claim",
    ),
]


# --- after heldout10's one measurement (it is development data now) ---------------------

QUIET_AFTER_HELDOUT10 = [
    P(
        "把 `numpy` 升到 2.0，升级后单测要全部通过。",
        "升级后第一次跑单测有 2 个失败（`np.float_` 被移除）。修完后重新跑：\n\n```\n"
        "$ pytest -q\n88 passed in 4.1s\n```",
        [("升级 numpy", "completed"), ("修复失败用例", "completed")],
        id="failures-of-the-first-run-fixed-and-rerun",
    ),
    P(
        "`/cart` is too slow. Get its p95 latency under 0.3 s on the standard load profile.",
        "| run | p50 | p95 | p99 |\n|---|---|---|---|\n| before | 200 ms | 900 ms | 1,600 ms |\n"
        "| after | 80 ms | 260 ms | 870 ms |\n\np95 is now 260 ms against the 0.3 s target.\n\n"
        "If p99 matters to you as well I can dig into it; it is still close to 0.9 s.",
        [("Add cache", "completed"), ("Re-run load test", "completed")],
        id="another-percentile-is-another-quantity",
    ),
    P(
        "Run the locust test in `perf/cart.py` against staging and send me p50/p95 and the "
        "error rate. Do not change anything.",
        "| metric | value |\n|---|---|\n| p50 | 180 ms |\n| p95 | 1.2 s |\n| errors | 3.4 % |\n\n"
        "Staging misses its p95 target at this load; nothing was changed.",
        [("Run locust against staging", "completed"), ("Collect numbers", "completed")],
        id="a-load-test-reports-percentiles-not-passes",
    ),
]


@pytest.mark.parametrize(
    ("answer", "quote"),
    [
        P(
            "构建已完成。发布到应用商店需要短信验证码，我这边收不到。请把手机上收到的验证码发给我。",
            "请把手机上收到的验证码发给我",
            id="zh-send-me-the-code",
        ),
        P(
            "The bucket is ready. Someone with the Security team's IAM access needs to attach "
            "the policy below; I have no role in that account.",
            "Someone with the Security team's IAM access needs to",
            id="en-someone-else-must-act",
        ),
    ],
)
def test_hand_overs_to_the_user_win_over_the_open_todo(answer: str, quote: str) -> None:
    hit, text = judged(
        turn(
            "Publish the release and finish its setup.",
            answer,
            [("Build the release", "completed"), ("Finish the setup", "in_progress")],
        )
    )
    assert hit.assessment == "needs-user", hit
    assert quote in text, (hit, text)


@pytest.mark.parametrize(
    ("request_text", "answer", "todos"), [*QUIET, *QUIET_AFTER_HELDOUT9, *QUIET_AFTER_HELDOUT10]
)
def test_round_three_false_alarm_kinds_stay_complete(
    request_text: str | list[str], answer: str, todos: list[tuple[str, str]]
) -> None:
    assert_quiet(request_text, answer, todos)


@pytest.mark.parametrize(
    ("request_text", "answer", "todos", "assessment", "quote"),
    [*FLAGGED, *FLAGGED_AFTER_HELDOUT9],
)
def test_round_three_problem_kinds_are_flagged(
    request_text: str | list[str],
    answer: str,
    todos: list[tuple[str, str]],
    assessment: str,
    quote: str,
) -> None:
    assert_flagged(request_text, answer, todos, assessment, quote)
