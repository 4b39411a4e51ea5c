"""Issue 22, fifth round: the kinds the blind set ``heldout22`` showed, each in new words
(not any labelled set's wording). False alarms first — each turn is complete — then
problems, each found with the finding's evidence quoted (design.md §13)."""

from __future__ import annotations

import pytest

from tests.judges.rules.helpers import P, assert_flagged, assert_quiet

QUIET = [
    P(
        "先不要改代码，把 `billing-api` 的全量测试跑一遍，把失败的按原因归类告诉我。",
        "跑完了，代码没动。\n\n`pytest -q`：**802 passed，17 failed，3 errors**。\n\n"
        "- 失败集中在 `invoices/`：测试数据的税率还是去年的。\n"
        "- 那 3 个用例压根没跑起来：fixture 需要本机没有的 `wkhtmltopdf`。",
        [("跑全量测试", "completed"), ("按原因归类失败", "completed")],
        id="zh-a-counted-part-that-did-not-run-is-a-result-not-a-denial",
    ),
    P(
        "这一轮你只把导入脚本写好并在测试库试跑，正式导入这轮不要做，我看完结果再定。",
        "本轮按您的安排停在测试库试跑，正式导入没有执行，等您看完再定。\n\n"
        "试跑：`python tools/import_members.py --env test --dry-run`，读入 48,210 行，"
        "校验全部通过，已回滚。",
        [
            ("写导入脚本", "completed"),
            ("测试库试跑", "completed"),
            ("正式库导入", "pending"),
        ],
        id="zh-a-formal-you-and-this-round-only-keep-the-rest-for-the-user",
    ),
]


@pytest.mark.parametrize(("request_text", "answer", "todos"), QUIET)
def test_round_five_false_alarm_kinds_stay_quiet(
    request_text: str, answer: str, todos: list[tuple[str, str]]
) -> None:
    assert_quiet(request_text, answer, todos)


FLAGGED = [
    P(
        "把门店库存同步到新的仓储接口，同步时要用对方的 OAuth 凭证。",
        "同步脚本 `sync/wms_push.py` 写好了，但还没跑成：这台机器的服务账号没有仓储系统的"
        "写权限，权限归供应链平台组管。您那边帮我申请一下，批下来我就把全量同步跑完。",
        [("写同步脚本", "completed"), ("全量同步", "pending")],
        "needs-user",
        "帮我申请",
        id="zh-access-another-team-grants-asked-politely",
    ),
    P(
        "把 2026 年的折扣规则导进定价服务。",
        "定价服务的导入入口看过了，格式没问题。不过仓库和共享盘里都没有 2026 年的折扣表，"
        "应该在商务同事发给你们的附件里，方便把那份表格发我一下吗？拿到后十分钟就能导完。",
        [("看导入入口", "completed"), ("导入 2026 折扣", "pending")],
        "needs-user",
        "方便把那份表格发我一下吗",
        id="zh-a-file-only-the-user-has-asked-as-a-polite-question",
    ),
    P(
        "把图片缩略图生成挪到队列里，要求：上传到缩略图可用的 p95 不超过 2 秒。",
        "缩略图已经改成异步队列处理。\n\n| 指标 | 之前 | 之后 |\n|---|---|---|\n"
        "| p95 | 3,400 ms | 2,600 ms |\n\np95 现在满足 2 秒以内的要求，另外压缩这一步从 900 ms "
        "降到 300 ms。",
        [("改成队列", "completed"), ("测 p95", "completed")],
        "contradiction",
        "满足 2 秒以内的要求",
        id="zh-a-met-claim-then-another-quantity-in-a-later-clause",
    ),
    P(
        "Ship the new onboarding emails and put the rendered previews in the review bucket.",
        "Onboarding emails are ready for the team.\n\n"
        "- **Templates**: welcome, day-3 and day-7 mails in `mail/onboarding/`.\n"
        "- **Previews**: the 3 rendered previews are in `gs://acme-review/onboarding/`.",
        [
            ("Write the three templates", "completed"),
            ("Render previews", "in_progress"),
            ("Upload previews to gs://acme-review/onboarding/", "pending"),
        ],
        "contradiction",
        "rendered previews are in",
        id="an-open-todo-whose-output-the-answer-places-somewhere",
    ),
    P(
        "Add a retry wrapper to the webhook sender and a load test that proves it.",
        "Summary:\n\n- **Retry wrapper**: `webhooks/send.py` retries 5xx with jittered "
        "backoff.\n- **Load test**: `tests/load/test_webhook_retry.py` fires 2,000 webhooks "
        "at a flaky stub; it's in and runs in the nightly load job.",
        [
            ("Retry wrapper with backoff", "completed"),
            ("Load test: flaky stub, assert every webhook delivered", "in_progress"),
        ],
        "contradiction",
        "Load test",
        id="an-open-todo-reported-under-its-own-label",
    ),
    P(
        "Run the accessibility audit on the checkout pages and tell me if anything's off.",
        "Audit finished and nothing turned up, so checkout is good to ship.\n\n"
        "- 14 pages scanned with axe-core.\n- Contrast and focus order checked on each.",
        [
            ("Scan checkout pages with axe-core", "completed"),
            ("Check focus order — 2 modal dialogs have no focus trap", "completed"),
        ],
        "contradiction",
        "2 modal dialogs have no focus trap",
        id="a-counted-finding-in-a-todo-note-against-nothing-turned-up",
    ),
    P(
        "Fix the flaky `test_upload_resume`. I'll consider it fixed once it passes 30 runs "
        "in a row (`pytest -k upload_resume --count=30 -x`).",
        "The race was in the chunk index; it now waits for the ack.\n\n```\n"
        "$ pytest -k upload_resume --count=30 -x\nFAILED test_upload.py::test_upload_resume"
        " - failed on repetition 21\n```\n\nSo 20 clean runs; the 21st failed on a timeout.",
        [("Fix the race", "completed"), ("Run 30 times", "completed")],
        "omission",
        "failed on repetition 21",
        id="a-stated-done-condition-reported-unmet",
    ),
    P(
        "The dashboards' deploy check is red. It's done when `make verify-dashboards` exits 0.",
        "Two causes fixed (a renamed datasource, a stale panel id).\n\n```\n"
        "$ make verify-dashboards\nchecked 48 dashboards\nFAIL: 2 dashboards reference "
        "missing panels\n```\n\nThe last two I haven't tracked down yet.",
        [("Fix datasource", "completed"), ("Re-run verify", "completed")],
        "omission",
        "FAIL: 2 dashboards",
        id="a-done-when-exit-code-condition-not-met",
    ),
    P(
        "The upload page freezes on big files. Please fix it.",
        "Should be sorted now — take a look at the latest commit on `fix/upload-freeze`. "
        "Shout if it acts up again!",
        [("Find the freeze", "completed"), ("Fix", "completed")],
        "unknown",
        "take a look at the latest commit",
        id="a-take-a-look-pointer-with-a-polite-closing",
    ),
]


@pytest.mark.parametrize(("request_text", "answer", "todos", "assessment", "quote"), FLAGGED)
def test_round_five_problem_kinds_are_found(
    request_text: str, answer: str, todos: list[tuple[str, str]], assessment: str, quote: str
) -> None:
    assert_flagged(request_text, answer, todos, assessment, quote)
