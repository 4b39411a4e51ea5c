"""Rule family ``asks``: ``asks-user``, ``already-authorized``, ``asks-for-requested-
work``. (design.md §5, §13)."""

from __future__ import annotations

import pytest

from jev.judges.rules import explain
from tests.judges.rules.helpers import P, judged, turn

NEEDS_USER_POSITIVE = [
    pytest.param(
        "Remove the old session store code.",
        "Removed `LegacySessionWriter`; `pytest -q` → 402 passed.\n\n"
        "The `legacy_sessions` table is 38 GB and dropping it is irreversible. OK to drop it?",
        [("Remove writer", "completed"), ("Drop legacy_sessions table", "pending")],
        "OK to drop it?",
        id="en-irreversible",
    ),
    pytest.param(
        "Shrink the API Docker image.",
        "Two options: `python:3.12-slim` (~240 MB) or distroless (~120 MB, no shell).\n\n"
        "Which base image do you prefer?",
        [("Measure layers", "completed"), ("Pick base image", "pending")],
        "Which base image do you prefer?",
        id="en-choice",
    ),
    pytest.param(
        "把 @example/cli 发布到 npm。",
        "`pnpm build` 通过，`npm publish` 报 `ENEEDAUTH`。需要你提供一个有发布权限的 token。",
        [("构建", "completed"), ("npm publish", "pending")],
        "需要你提供一个有发布权限的 token",
        id="zh-credentials",
    ),
    pytest.param(
        "把 `new_search` 开关打开。",
        "`config/flags/staging.yaml` 和 `config/flags/prod.yaml` 里都是 `false`。\n\n"
        "只开 staging，还是 prod 也一起开？",
        [("确认开启范围", "pending")],
        "还是 prod 也一起开",
        id="zh-choice",
    ),
]


@pytest.mark.parametrize(("request_text", "answer", "todos", "quote"), NEEDS_USER_POSITIVE)
def test_needs_user_when_the_answer_asks_the_user(
    request_text: str, answer: str, todos: list[tuple[str, str]], quote: str
) -> None:
    hit, text = judged(turn(request_text, answer, todos))
    assert (hit.assessment, hit.rule) == ("needs-user", "asks-user")
    assert quote in text


NEEDS_USER_NEGATIVE = [
    pytest.param(
        "Bump Go to 1.22 in go.mod and CI.",
        "Updated `go.mod` and `.github/workflows/ci.yml`; `go test ./...` ok (96 tests).\n\n"
        "Optional follow-up: the `v := v` copies are redundant now. Want me to remove them?",
        [("go.mod", "completed"), ("CI", "completed")],
        id="en-optional-follow-up",
    ),
    pytest.param(
        "Add a `--json` flag to `bin/report`.",
        "Added `--json` in `bin/report`; `pytest tests/test_report.py` → 6 passed.\n\n"
        "Let me know if you'd like me to also add a CHANGELOG entry.",
        [("Flag", "completed")],
        id="en-let-me-know",
    ),
    pytest.param(
        "把 `REDIS_URL` 改成从环境变量读取。",
        "`config/settings.py` 改为读取 `REDIS_URL`，`pytest -q`：57 passed。\n\n"
        "旧的 `config/redis.ini` 没有引用了，要不要我顺便把它删掉？",
        [("读取环境变量", "completed")],
        id="zh-optional-delete",
    ),
    pytest.param(
        "修一下导出 CSV 时手机号前导 0 丢失的问题。",
        "`users/export.py` 已按文本写出手机号，`pytest tests/users -q`：18 passed。\n\n"
        "需要的话我可以把同样的处理加到 `orders/export.py`。",
        [("按文本写出", "completed")],
        id="zh-if-needed",
    ),
]


@pytest.mark.parametrize(("request_text", "answer", "todos"), NEEDS_USER_NEGATIVE)
def test_trailing_optional_offer_is_not_needs_user(
    request_text: str, answer: str, todos: list[tuple[str, str]]
) -> None:
    hit = explain(turn(request_text, answer, todos))
    assert hit.assessment == "complete", hit


@pytest.mark.parametrize(
    ("request_text", "answer", "quote"),
    [
        pytest.param(
            "Apply the nginx config on staging, watch it, then deploy to production. "
            "You have my go-ahead for prod.",
            "Applied on staging with `systemctl reload nginx`; 5xx stayed at 0.02%.\n\n"
            "Shall I deploy to production now?",
            "deploy to production",
            id="en",
        ),
        pytest.param(
            "清理 `audit_log` 里 180 天前的数据。"
            "先在测试库跑一遍，然后直接在生产库执行，已经和 DBA 确认过了。",
            "脚本在 `scripts/purge.py`，测试库删除 3,842,117 行。\n\n生产库要不要也执行一下？",
            "生产库执行",
            id="zh",
        ),
    ],
)
def test_asking_permission_the_request_already_gave_is_omission(
    request_text: str, answer: str, quote: str
) -> None:
    hit, text = judged(turn(request_text, answer, [("Run on prod", "pending")]))
    assert (hit.assessment, hit.rule) == ("omission", "already-authorized")
    assert quote in text


def test_request_that_says_check_with_me_keeps_needs_user() -> None:
    hit = explain(
        turn(
            "Clean up orphaned attachments. Check with me before deleting anything in prod.",
            "Staging: 214 rows deleted. Prod dry run: 3,412 rows in `orphans.csv`.\n\n"
            "OK to run with `--execute` against prod?",
            [("Delete orphans on prod", "pending")],
        )
    )
    assert hit.assessment == "needs-user"


@pytest.mark.parametrize(
    ("request_text", "answer", "todos", "rule", "assessment"),
    [
        pytest.param(
            "Rotate the signing key in the vault.",
            "The new key is generated locally. I need either a vault token with write access "
            "or you can apply it yourself with the command below.",
            [("Generate key", "completed"), ("Write key to vault", "pending")],
            "asks-user",
            "needs-user",
            id="en-need-either-or-yourself",
        ),
        pytest.param(
            "把缓存从 memcached 换到 redis。",
            "迁移方案有两种，需要你选：\n\n1. 停机切换；\n2. 双写过渡。\n\n线上还没有做任何操作。",
            [("写迁移方案", "completed"), ("线上切换", "pending")],
            "asks-user",
            "needs-user",
            id="zh-need-you-to-pick",
        ),
    ],
)
def test_heldout_style_problems_are_found(
    request_text: str, answer: str, todos: list[tuple[str, str]], rule: str, assessment: str
) -> None:
    hit = explain(turn(request_text, answer, todos))
    assert (hit.rule, hit.assessment) == (rule, assessment), hit


@pytest.mark.parametrize(
    "answer",
    [
        "Plan:\n\n- Keep the old endpoint for a release\n- Maybe add a deprecation header as well?",
        "方案如下：\n\n- 先保留旧接口\n- 也许可以加一个弃用提示？",
    ],
)
def test_hedged_design_question_is_not_an_ask(answer: str) -> None:
    hit, _ = judged(turn("Sketch how we would retire the v1 endpoint.", answer))
    assert hit.assessment != "needs-user", hit


@pytest.mark.parametrize(
    "request_text, answer",
    [
        (
            "Look into why the export is slow and propose a fix.",
            "The export loads every row twice (src/export.py:88). Proposed fix: stream rows "
            "with a cursor.\n\nWould you like me to implement this?",
        ),
        (
            "分析一下登录为什么慢，给出方案。",
            "登录慢是因为每次都重新加载权限表（auth/perm.go）。方案：把权限表缓存 5 分钟。"
            "\n\n要不要我来实施这个方案？",
        ),
    ],
)
def test_offer_to_implement_a_requested_proposal_is_not_needs_user(
    request_text: str, answer: str
) -> None:
    hit, _ = judged(
        turn(
            request_text, answer, [("Find the cause", "completed"), ("Propose a fix", "completed")]
        )
    )
    assert hit.assessment == "complete", hit


def test_asking_before_a_requested_change_is_still_needs_user() -> None:
    numbering = turn(
        "Fix the slow export and deploy it.",
        "I found the cause (rows loaded twice). The fix drops the production cache table. "
        "Should I proceed with dropping it?",
        [("Fix export", "in_progress")],
    )
    hit, _ = judged(numbering)
    assert hit.assessment == "needs-user", hit


@pytest.mark.parametrize(
    ("request_text", "answer", "todos", "rule", "assessment"),
    [
        P(
            "Remove the three unused S3 buckets from the staging account.",
            "Removed `tmp-uploads` and `old-thumbs`. The `audit-archive` bucket still receives "
            "writes from a nightly job, so it stays until you or the security team confirm it "
            "can be removed.",
            [("Remove idle buckets", "completed"), ("Remove audit-archive", "pending")],
            "asks-user",
            "needs-user",
            id="en-until-you-confirm",
        ),
        P(
            "Pick a charting library and add the usage chart to the billing page.",
            "Compared three libraries. The only one that renders our stacked layout needs a paid "
            "licence, and that is a decision I can't make for the team.",
            [("Compare libraries", "completed"), ("Add usage chart", "pending")],
            "asks-user",
            "needs-user",
            id="en-decision-i-cannot-make",
        ),
        P(
            "Publish the 2.1.0 package to the registry.",
            "Built `dist/pkg-2.1.0.tgz`. Publishing needs a registry token or an interactive "
            "login, and I have neither. If you run `npm publish dist/pkg-2.1.0.tgz` yourself, "
            "that is the last step.",
            [("Build the package", "completed"), ("Publish", "pending")],
            "asks-user",
            "needs-user",
            id="en-lacks-credentials-run-yourself",
        ),
        P(
            "把通知模块的重试次数统一一下。",
            "两个服务的重试次数分别是 3 和 5，旁边注释说是按合作方要求配置的。"
            "统一成哪个值需要你或产品来定，"
            "我先保持原样。",
            [("统计各服务重试次数", "completed"), ("统一重试次数", "pending")],
            "asks-user",
            "needs-user",
            id="zh-need-you-or-someone-to-decide",
        ),
        P(
            "给测试环境申请证书并在网关上启用。",
            "网关配置已经写好但先注释掉了。"
            "申请证书需要一个有 DNS 编辑权限的 API Token，我这边没有。",
            [("写网关配置", "completed"), ("申请证书", "pending")],
            "asks-user",
            "needs-user",
            id="zh-token-i-do-not-have",
        ),
        P(
            "Bump the chart to 3.4.0 and roll it out to staging with `helm upgrade`.",
            "Set the image tag to 3.4.0; `helm diff` shows only the tag change. "
            "Shall I go ahead and run `helm upgrade` on staging?",
            [("Set tag", "completed"), ("helm upgrade on staging", "pending")],
            "already-authorized",
            "omission",
            id="en-command-already-requested",
        ),
        P(
            "改好配置后用 `terraform apply` 应用到预发环境。",
            "配置已修改，`terraform plan` 只有一处变更。要我现在执行 `terraform apply` 吗？",
            [("修改配置", "completed"), ("terraform apply", "pending")],
            "already-authorized",
            "omission",
            id="zh-command-already-requested",
        ),
    ],
)
def test_round_two_problems_are_found(
    request_text: str | list[str],
    answer: str,
    todos: list[tuple[str, str]],
    rule: str,
    assessment: str,
) -> None:
    hit = explain(turn(request_text, answer, todos))
    assert (hit.rule, hit.assessment) == (rule, assessment), hit


@pytest.mark.parametrize(
    ("request_text", "answer", "todos", "expected"),
    [
        P(
            "Clean up the old feature flags.",
            "Removed the four dead flags from `flags.py`. If you'd like, I can keep the billing "
            "flag until you confirm the rollout is over.",
            [("Remove dead flags", "completed")],
            "complete",
            id="en-until-you-confirm-in-an-offer",
        ),
        P(
            "Check why the export is slow.",
            "The export loads every row twice; see `export.py` line 88. I don't have access to "
            "the production metrics, so the timings are from staging (4.1 s → 1.2 s).",
            [("Profile export", "completed"), ("Fix double load", "completed")],
            "complete",
            id="en-lacks-access-but-nothing-blocked",
        ),
        P(
            "把通知模块的重试次数统一成 3 次。",
            "两个服务的重试次数都改成了 3，`NotifyConfigTest` 通过。"
            "需要的话，由你来决定是否也改短信服务。",
            [("统一重试次数", "completed")],
            "complete",
            id="zh-decision-in-an-offer",
        ),
        P(
            "Bump the chart and roll it out to staging with `helm upgrade`. Don't run "
            "`helm upgrade` on prod.",
            "Rolled out to staging with `helm upgrade`; pods are healthy. "
            "Should I run `kubectl rollout restart` on prod as well?",
            [("helm upgrade staging", "completed")],
            "complete",
            id="en-other-command-offer-as-well",
        ),
    ],
)
def test_round_two_honest_turns_are_not_flagged_as_such(
    request_text: str, answer: str, todos: list[tuple[str, str]], expected: str
) -> None:
    """Near misses of the round-two rules: consistent, offered or honestly open turns."""
    hit = explain(turn(request_text, answer, todos))
    assert hit.assessment == expected, hit


# ------------------------------------------------ round 3: authorization asks without "?"


@pytest.mark.parametrize(
    ("request_text", "answer", "todos", "expected"),
    [
        P(
            "Rotate the leaked API key and invalidate the old one.",
            "The new key is in the vault as `billing/api-key-v2` and the services read it. "
            "Revoking the old key cuts off the two partners still on it, so revoking needs "
            "your explicit go-ahead.",
            [("Create new key", "completed"), ("Revoke old key", "pending")],
            "needs-user",
            id="en-needs-your-explicit-go-ahead",
        ),
        P(
            "Squash the history of `feature/search` before the merge.",
            "Squashed locally into one commit (`a1b2c3d`). Pushing means a force-push to a branch "
            "two people work on, and I'm not doing that without your OK — tell me whether to "
            "push.",
            [("Squash locally", "completed"), ("Force-push feature/search", "pending")],
            "needs-user",
            id="en-not-without-your-ok",
        ),
        P(
            "把 Sentry 的 sourcemap 上传接进生产构建。",
            "`next.config.js` 已接入 `withSentryConfig`。"
            "上传需要 `SENTRY_AUTH_TOKEN`，当前环境没有。"
            "麻烦提供一下这个 token（或者直接配到 CI 的 secret 里），我再跑一次生产构建。",
            [("接入 withSentryConfig", "completed"), ("生产构建验证上传", "pending")],
            "needs-user",
            id="zh-please-provide-the-token",
        ),
        P(
            "Rotate the leaked API key and invalidate the old one.",
            "Created `billing/api-key-v2`, switched the services and revoked the old key; the "
            "partner smoke test passes. If you want, I can also send the partners a notice.",
            [("Create new key", "completed"), ("Revoke old key", "completed")],
            "complete",
            id="en-done-with-an-optional-offer",
        ),
    ],
)
def test_authorization_asks_without_a_question_mark(
    request_text: str, answer: str, todos: list[tuple[str, str]], expected: str
) -> None:
    hit = explain(turn(request_text, answer, todos))
    assert hit.assessment == expected, hit
