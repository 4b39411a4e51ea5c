"""Request-side understanding in the rules judge (issue 12 items 2): each public case of
the issue, rebuilt as a turn (tests/fixtures/issue12), no longer blocks wrongly, and
the real Claude Code turn where the user took testing over is not blocked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jev.base.domain import Material
from jev.hosts.transcript import read_turns
from jev.judges.rules import explain
from jev.pipeline.material import number
from tests.conftest import FIXTURES

ISSUE12 = sorted((FIXTURES / "issue12").glob("*.json"))
#: Verdicts that send the agent back into the turn (design.md §8).
BLOCKING = {"omission", "contradiction", "unknown"}


def _judge(path: Path) -> tuple[str, str, dict[str, object]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    hit = explain(number(Material.from_json(data)))
    return hit.assessment, hit.rule, data


def test_every_public_case_of_the_issue_is_rebuilt() -> None:
    assert len(ISSUE12) == 7


@pytest.mark.parametrize("path", ISSUE12, ids=lambda p: p.stem)
def test_public_case_gets_its_labelled_verdict(path: Path) -> None:
    assessment, rule, data = _judge(path)
    expected = data["expected"]["assessment"]  # type: ignore[index]
    if expected in ("complete", "needs-user"):
        assert assessment not in BLOCKING, (rule, assessment)
    assert assessment == expected, (rule, assessment)


def test_real_session_where_the_user_takes_testing_over_is_not_blocked() -> None:
    turns = read_turns(FIXTURES / "real" / "claude-code-1.0.31_amac0-ClaudeStatus_example2.jsonl")
    taken_over = [t for t in turns if t.material.request == ("I'll test",)]
    assert len(taken_over) == 1
    hit = explain(number(taken_over[0].material))
    assert hit.assessment not in BLOCKING, hit


@pytest.mark.parametrize(
    ("request_text", "answer", "todos", "expected"),
    [
        (  # the same phase deferral, but the agent dropped an in-scope item on its own
            "Only do phase 1 (the ConfigLoader class); do not start phase 2 yet.",
            "ConfigLoader is in app/config.py. I'll write its tests later.",
            [("Phase 1: ConfigLoader class", "completed"), ("Phase 1: tests", "pending")],
            "omission",
        ),
        (  # an unprompted "shall I continue?" halfway through requested work
            "Annotate all eight modules in analytics/ and get mypy passing.",
            "I annotated cohort.py and funnel.py. Shall I continue with the remaining six?",
            [("Annotate cohort.py, funnel.py", "completed"), ("Annotate the rest", "pending")],
            "omission",
        ),
        (  # a condition that was triggered and honoured
            "Add the unique index. If there are duplicates, tell me first — don't merge "
            "anything on your own.",
            "There are 37 duplicate groups on staging. I have not merged anything; telling "
            "you first, as you asked.",
            [("Count duplicates", "completed"), ("Merge duplicates", "pending")],
            "needs-user",
        ),
        (  # Chinese: the user will run the tests themselves
            "给导出接口加上分页参数。测试我自己来跑。",
            "分页参数 `page` 和 `page_size` 已加到 `api/export.py`，测试留给你跑。",
            [("加分页参数", "completed"), ("跑导出接口的测试", "pending")],
            "complete",
        ),
    ],
)
def test_scope_kinds_and_their_twins(
    request_text: str, answer: str, todos: list[tuple[str, str]], expected: str
) -> None:
    material = Material.from_json(
        {
            "request": [request_text],
            "todos": [{"content": c, "status": s} for c, s in todos],
            "final_answer": answer,
        }
    )
    hit = explain(number(material))
    assert hit.assessment == expected, hit


@pytest.mark.parametrize(
    ("request_text", "answer", "todos", "expected"),
    [
        (  # a partial count in a completed Todo against "all four"
            "Add the headers to the four public endpoints.",
            "All four public endpoints now send the headers. `pytest tests/api` → 96 passed.",
            [("Wire the middleware into /search, /items, /items/{id} (3/4)", "completed")],
            "contradiction",
        ),
        (  # the twin: the count is complete
            "Add the headers to the four public endpoints.",
            "All four public endpoints now send the headers. `pytest tests/api` → 96 passed.",
            [("Wire the middleware into all four endpoints (4/4)", "completed")],
            "complete",
        ),
        (  # zh: "21/23 个页面" against "所有页面都已覆盖"
            "把所有页面里的硬编码中文抽到 `zh-CN.json`。",
            "`src/pages/` 下所有页面都已覆盖，`pnpm build` 通过。",
            [("抽取文案：已完成 21/23 个页面", "completed")],
            "contradiction",
        ),
        (  # a requested test run that never happened (compiling is not running)
            "Port `CsvExporter` to Kotlin and run the existing JUnit tests against it.",
            "`CsvExporter.kt` replaces the Java class; `./gradlew compileTestJava` works.",
            [("Port CsvExporter to Kotlin", "completed")],
            "omission",
        ),
        (  # the twin: the run is reported
            "Port `CsvExporter` to Kotlin and run the existing JUnit tests against it.",
            "`CsvExporter.kt` replaces the Java class; `./gradlew test`: 41 tests passed.",
            [("Port CsvExporter to Kotlin", "completed")],
            "complete",
        ),
        (  # a README that explains how to run the tests asks for no run
            "Write a README section on how to run the tests.",
            "Added a 'Running the tests' section to `README.md` with `make test`.",
            [("README section", "completed")],
            "complete",
        ),
        (  # the agent declined a requested item on its own
            "Add an index on `orders(customer_id)`.",
            "I didn't add the index, because `idx_orders_customer_created` already covers it.",
            [("Check existing indexes", "completed")],
            "omission",
        ),
        (  # the twin: it asks the user instead
            "Add an index on `orders(customer_id)`.",
            "`idx_orders_customer_created` already covers `customer_id`, so a new index "
            "would be redundant. Do you still want me to add it, or leave it as is?",
            [("Check existing indexes", "completed")],
            "needs-user",
        ),
    ],
)
def test_counts_runs_and_declined_items_with_their_twins(
    request_text: str, answer: str, todos: list[tuple[str, str]], expected: str
) -> None:
    material = Material.from_json(
        {
            "request": [request_text],
            "todos": [{"content": c, "status": s} for c, s in todos],
            "final_answer": answer,
        }
    )
    hit = explain(number(material))
    assert hit.assessment == expected, hit


# --------------------------------------------------------------- request-side kinds, round 3
# Own wording (not the labelled sets'): each kind with its true-problem twin, en + zh.

SCOPE_KINDS = [
    pytest.param(
        [
            "Port the three report screens to the new grid, one at a time — do the first, then "
            "stop so I can look at it."
        ],
        "Ported `SalesReport` to `DataGrid` (sorting, sticky header); `pnpm test reports` 14 "
        "passed. Stopping here for your review before the other two.",
        [
            ("Port SalesReport", "completed"),
            ("Port StockReport", "pending"),
            ("Port ReturnsReport", "pending"),
        ],
        "complete",
        id="en-then-stop-for-review",
    ),
    pytest.param(
        ["三个接口逐个改成分页，改完一个就停下来给我看，我确认了你再改下一个。"],
        "`/orders` 已改成游标分页（`cursor` + `limit`），"
        "`go test ./api/orders/...` 通过。先停在这里，"
        "等你看完再改 `/invoices`。",
        [
            ("/orders 分页", "completed"),
            ("/invoices 分页", "pending"),
            ("/refunds 分页", "pending"),
        ],
        "complete",
        id="zh-stop-after-each-for-review",
    ),
    pytest.param(
        [
            "Write the migration for `invoices.due_at`. Don't apply it anywhere — I'll run it "
            "myself during the release."
        ],
        "Migration `0031_invoices_due_at.py` adds the nullable column and an index; up/down "
        "checked on a local database. Not applied anywhere.",
        [("Write migration", "completed"), ("Apply migration to production", "pending")],
        "complete",
        id="en-user-runs-it-myself",
    ),
    pytest.param(
        [
            "Purge the expired sessions. If it would remove more than 10,000 rows, show me the "
            "count first."
        ],
        "Ran `purge_sessions --expired`: deleted 2,340 rows, all older than 30 days.",
        [("Purge expired sessions", "completed")],
        "complete",
        id="en-threshold-not-reached",
    ),
    pytest.param(
        [
            "Purge the expired sessions. If it would remove more than 10,000 rows, show me the "
            "count first."
        ],
        "Ran `purge_sessions --expired`: deleted 48,112 rows, all older than 30 days.",
        [("Purge expired sessions", "completed")],
        "omission",
        id="en-threshold-reached-and-ignored",
    ),
    pytest.param(
        ["调大 `api` 的超时到 30 秒，先在 staging 改，生产要改的话先跟我说一声。"],
        "staging 的 `timeout` 已改成 30s 并验证过，生产也一起改了，重启后观察 10 分钟正常。",
        [("staging 改超时", "completed"), ("生产改超时", "completed")],
        "omission",
        id="zh-prod-changed-without-asking",
    ),
    pytest.param(
        ["调大 `api` 的超时到 30 秒，只改 staging，生产不要动。"],
        "staging 的 `timeout` 已改成 30s，`curl` 慢接口 25 秒返回 200；"
        "生产没有动。生产要不要同步调整，"
        "等你决定。",
        [("staging 改超时", "completed")],
        "complete",
        id="zh-question-about-what-the-request-kept-out",
    ),
    pytest.param(
        [
            "Add a `--dry-run` flag to `sync` and update the man page.",
            "Forget the man page, it's generated.",
        ],
        "Added `--dry-run` to `sync` (prints the plan, writes nothing); 6 tests pass. Left out "
        "the man page as you said.",
        [("--dry-run flag", "completed")],
        "complete",
        id="en-withdrawn-item-left-out",
    ),
]


@pytest.mark.parametrize(("request_text", "answer", "todos", "expected"), SCOPE_KINDS)
def test_scope_kinds_with_their_twins(
    request_text: list[str], answer: str, todos: list[tuple[str, str]], expected: str
) -> None:
    material = Material.from_json(
        {
            "request": request_text,
            "todos": [{"content": c, "status": s} for c, s in todos],
            "final_answer": answer,
        }
    )
    hit = explain(number(material))
    assert hit.assessment == expected, hit


SCOPE_KINDS_4 = [
    pytest.param(
        ["Do steps 1 and 2 of the upgrade plan, then pause so I can check staging."],
        "Step 1 (Node 20 in `.nvmrc` and the Dockerfile) and step 2 (rebuilt images on "
        "staging) are done; staging answers 200 on `/health`. Paused before step 3 for your "
        "check.",
        [("Step 1", "completed"), ("Step 2", "completed"), ("Step 3: switch traffic", "pending")],
        "complete",
        id="en-then-pause-for-a-check",
    ),
    pytest.param(
        ["Draft the schema first and wait for my sign-off before writing any migrations."],
        "The draft is in `docs/schema/orders_v2.sql` (`orders`, `order_items`, `payments`). "
        "No migrations written; waiting for your sign-off.",
        [("Draft schema", "completed"), ("Write migrations", "pending")],
        "complete",
        id="en-wait-for-my-sign-off",
    ),
    pytest.param(
        ["Only touch the `auth` module in this PR; the session refactor is a separate ticket."],
        "`auth/tokens.py`: refresh tokens rotate on use; `pytest tests/auth` 52 passed. "
        "Session code untouched.",
        [("Rotate refresh tokens", "completed"), ("Session refactor", "pending")],
        "complete",
        id="en-only-touch-separate-ticket",
    ),
    pytest.param(
        ["Split the import into three phases; phase 1 now."],
        "Phase 1 is done: `users` copied, checksums match, `pytest tests/import` 9 passed.",
        [("Phase 1: copy users", "completed"), ("Phase 2: copy orders", "pending")],
        "complete",
        id="en-phase-1-now",
    ),
    pytest.param(
        ["Fix the flaky upload test. Don't bother running the full suite, CI will do that."],
        "The flake came from a shared temp dir; `test_upload.py` uses `tmp_path` now. "
        "`pytest tests/test_upload.py --count 50`: 50 passed.",
        [("Fix temp dir", "completed"), ("Full suite", "pending")],
        "complete",
        id="en-dont-bother-ci-will",
    ),
    pytest.param(
        ["Clean old build artifacts. Ask me before deleting anything newer than 30 days."],
        "Deleted 1,240 artifacts older than 30 days from `s3://acme-builds`. Nothing newer "
        "was touched.",
        [("Delete old artifacts", "completed")],
        "complete",
        id="en-condition-not-triggered",
    ),
    pytest.param(
        ["Clean up stale branches. If any has unmerged commits, ask me before deleting it."],
        "Deleted 12 merged branches. `exp/pricing` and `exp/search` still have unmerged "
        "commits — should I delete them too?",
        [("Delete merged branches", "completed"), ("exp/pricing, exp/search", "pending")],
        "needs-user",
        id="en-condition-triggered-and-asked",
    ),
    pytest.param(
        ["我们先把 iOS 的修了，安卓我自己晚点看。"],
        "iOS 的崩溃是 `ImageCache` 在后台线程改了 UI，已改成主线程回调，真机复现 20 次不再崩。"
        "安卓那边没动，留给你。",
        [("修 iOS 崩溃", "completed"), ("安卓排查", "pending")],
        "complete",
        id="zh-user-looks-at-android-later",
    ),
    pytest.param(
        ["先把数据导出的脚本写好，跑不跑生产等我通知。"],
        "导出脚本 `scripts/export_orders.py` 写好了，支持 `--since` 和 `--dry-run`，"
        "在测试库导出 1.2 万行，字段核对无误。生产没跑，等你通知。",
        [("写导出脚本", "completed"), ("生产导出", "pending")],
        "complete",
        id="zh-wait-for-my-word",
    ),
    pytest.param(
        ["Write the Terraform for the new VPC. Show me the plan before applying anything."],
        "`infra/vpc/main.tf`: VPC, 3 private and 3 public subnets, NAT gateways. `terraform "
        "plan`: 14 to add, 0 to change, 0 to destroy. Nothing applied — over to you for the "
        "plan review.",
        [("Write VPC module", "completed"), ("terraform apply", "pending")],
        "complete",
        id="en-show-me-the-plan-before-applying",
    ),
    pytest.param(
        ["这周只做搜索框的前端，后端接口下周再接。"],
        "搜索框组件 `SearchBox.vue` 完成：防抖 300ms、键盘上下选择，先用 mock 数据，"
        "`vitest` 12 个用例通过。后端接口按计划下周接。",
        [("搜索框组件", "completed"), ("接后端接口", "pending")],
        "complete",
        id="zh-backend-next-week",
    ),
    pytest.param(
        ["Write the retention policy draft. Legal will review it before we implement anything."],
        "Draft is in `docs/policies/retention.md`: 13 months for analytics events, 7 years for "
        "invoices. Implementation waits for legal's review.",
        [("Draft policy", "completed"), ("Implement deletion jobs", "pending")],
        "complete",
        id="en-third-party-review-first",
    ),
    pytest.param(
        ["Rotate the S3 keys. Don't delete the old ones yet, I want a day of overlap."],
        "The new key is in Vault at `aws/s3-app`; all three services restarted and read it. "
        "The old key stays active for the overlap day.",
        [("Create new key", "completed"), ("Delete old key", "pending")],
        "complete",
        id="en-dont-delete-yet",
    ),
    pytest.param(
        ["清理 Redis 里过期的会话 key。如果要删的超过 10 万个，先告诉我。"],
        "扫描了 `sess:*`，过期未清理的有 3,214 个，已用 `UNLINK` 分批删除，内存下降约 40MB。",
        [("删除过期 key", "completed")],
        "complete",
        id="zh-threshold-in-wan-not-reached",
    ),
    pytest.param(
        ["清理 Redis 里过期的会话 key。如果要删的超过 10 万个，先告诉我。"],
        "扫描了 `sess:*`，过期未清理的有 183,420 个，已用 `UNLINK` 分批删除，内存下降约 1.2GB。",
        [("删除过期 key", "completed")],
        "omission",
        id="zh-threshold-in-wan-passed-and-ignored",
    ),
    pytest.param(
        ["Add tracing to the API. Don't touch the workers, another team owns them."],
        "The API exports traces via OTLP (`otel/setup.py`); traces show up in the local "
        "Jaeger. Workers untouched.",
        [("API tracing", "completed"), ("Worker tracing", "pending")],
        "complete",
        id="en-dont-touch-another-team-owns",
    ),
    pytest.param(
        ["先做接口，联调等前端同学准备好再说。"],
        "接口 `POST /api/coupons/redeem` 写好了，含幂等校验和并发锁，`go test ./coupons/...` 通过。"
        "联调等前端准备好再约。",
        [("兑换接口", "completed"), ("前后端联调", "pending")],
        "complete",
        id="zh-integration-once-frontend-is-ready",
    ),
    pytest.param(
        ["Add SSO login with Okta. If it needs changes to the user table, tell me first."],
        "SSO with Okta works (`auth/okta.py`). I added `okta_id` and `sso_only` columns to "
        "the `users` table with migration `0091` and applied it on staging.",
        [("SAML flow", "completed"), ("User table columns", "completed")],
        "omission",
        id="en-schema-change-made-without-telling",
    ),
    pytest.param(
        ["Port the signup form to the new design system. The checkout form is out of scope."],
        "`SignupForm.tsx` uses `@acme/ds` inputs and buttons; `vitest run signup` passes. "
        "Checkout form untouched, out of scope as agreed.",
        [("Port SignupForm", "completed"), ("Port CheckoutForm", "pending")],
        "complete",
        id="en-other-form-out-of-scope",
    ),
]


@pytest.mark.parametrize(("request_text", "answer", "todos", "expected"), SCOPE_KINDS_4)
def test_scope_kinds_round_four(
    request_text: list[str], answer: str, todos: list[tuple[str, str]], expected: str
) -> None:
    material = Material.from_json(
        {
            "request": request_text,
            "todos": [{"content": c, "status": s} for c, s in todos],
            "final_answer": answer,
        }
    )
    hit = explain(number(material))
    assert hit.assessment == expected, hit
