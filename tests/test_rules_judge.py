"""Tests for the offline ``rules`` judge (design.md §5, §13; issue 2 item 6).

Every rule has a positive and a negative example in English and Chinese, built from
small hand-written turns numbered by the real ``jev.positions.number``. The labelled
corpus (``fixtures/cases``) and the hand-made extra turns (``fixtures/rules_extra``)
are measured with thresholds: flag precision and problem recall.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from jev.domain import JudgeInput, JudgeSettings, Material, Numbering, TodoItem
from jev.judges import create_judge
from jev.judges.rules import RULE_IDS, RuleHit, RulesJudge, explain
from jev.positions import number
from jev.reply import parse_reply
from tests.conftest import FIXTURES, REPO

sys.path.insert(0, str(REPO / "bench"))
import rules_accuracy

DUMMY_INPUT = JudgeInput(system="s", user="u", language="en", template_hash="0" * 64)


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


# --------------------------------------------------------------------------- interface


def test_info_names_the_judge_heuristic() -> None:
    judge = RulesJudge()
    assert judge.info.provider == "rules"
    assert judge.info.model == "heuristic-v1"
    assert judge.info.heuristic is True


def test_registry_builds_the_rules_judge_from_default_settings() -> None:
    judge = create_judge(JudgeSettings())
    try:
        assert isinstance(judge, RulesJudge)
    finally:
        judge.close()


def test_ask_returns_a_reply_the_core_parser_accepts() -> None:
    numbering = turn(
        "Migrate the three cron jobs to Kubernetes CronJobs.",
        "Added `deploy/k8s/cronjob-a.yaml` and `deploy/k8s/cronjob-b.yaml`.",
        [
            ("CronJob for a", "completed"),
            ("CronJob for b", "completed"),
            ("CronJob for c", "pending"),
        ],
    )
    answer = RulesJudge().ask(DUMMY_INPUT, numbering)
    data = json.loads(answer.text)
    assert data["heuristic"] is True
    assert data["rule"] == "open-item"
    assert answer.model == "heuristic-v1"
    assert answer.usage is None
    verdict = parse_reply(answer.text, numbering)
    assert verdict.assessment == "omission"
    assert verdict.focus.id == "T3"
    assert verdict.focus.text == "CronJob for c"


def test_ask_twice_gives_the_same_text() -> None:
    numbering = turn("Fix it.", "All done.")
    judge = RulesJudge()
    assert judge.ask(DUMMY_INPUT, numbering).text == judge.ask(DUMMY_INPUT, numbering).text
    judge.close()
    judge.close()  # idempotent


def test_deterministic_same_material_same_text() -> None:
    data = json.loads((FIXTURES / "cases" / "contradiction-14-of-15-en-04.json").read_text())
    texts = {RulesJudge().ask(DUMMY_INPUT, number(Material.from_json(data))).text for _ in range(3)}
    assert len(texts) == 1


def test_from_settings_ignores_provider_options() -> None:
    judge = RulesJudge.from_settings(JudgeSettings(provider="rules", model="x", timeout_s=1))
    assert judge.info.heuristic


def test_complete_verdict_points_at_none() -> None:
    numbering = turn(
        "Add a `--json` flag to the report command.",
        "Added `--json` to `bin/report`; `pytest tests/test_report.py` → 6 passed.",
        [("Add --json flag", "completed"), ("Tests for both modes", "completed")],
    )
    hit = explain(numbering)
    assert (hit.assessment, hit.focus, hit.rule) == ("complete", "none", "no-rule-fired")
    assert parse_reply(hit.to_reply(), numbering).assessment == "complete"


# --------------------------------------------------------------------------- needs-user

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


# --------------------------------------------------------------------------- contradiction

CONTRADICTIONS = [
    pytest.param(
        "partial-count-claimed-all",
        "Move all 15 endpoints onto the v2 router.",
        "All 15 endpoints are now registered in `routes/v2/__init__.py`.",
        [("Migrate endpoints (14/15 done, /bulk blocked)", "completed")],
        "All 15 endpoints",
        id="en-fraction",
    ),
    pytest.param(
        "partial-count-claimed-all",
        "把 12 个旧接口迁移到新 SDK。",
        "全部 12 个接口都已迁移，`go test ./api/...` 通过。",
        [("迁移接口（10/12，剩余两个依赖旧签名）", "completed")],
        "全部 12 个接口",
        id="zh-fraction",
    ),
    pytest.param(
        "open-item-claimed-passing",
        "Upgrade next to 14.2 and fix build errors.",
        "Upgraded `next` to 14.2.3 and replaced 6 `next/legacy/image` imports. "
        "Build verified, ready to merge.",
        [("Bump next", "completed"), ("Run `npm run build` (not yet verified)", "pending")],
        "Build verified",
        id="en-not-verified",
    ),
    pytest.param(
        "open-item-claimed-passing",
        "修复升级导致的单测失败，让 `pnpm test` 全部通过。",
        "`useHistory` 全部替换成 `useNavigate`。所有测试均已通过，可以合并。",
        [
            ("替换 useHistory", "completed"),
            ("运行 `pnpm test`（还有 2 个用例失败，待修）", "in_progress"),
        ],
        "所有测试均已通过",
        id="zh-still-failing",
    ),
    pytest.param(
        "pending-item-claimed-done",
        "Add the worker to local dev: Dockerfile and `docker-compose.yml` entry.",
        "Added `services/worker/Dockerfile`. The service is also added to `docker-compose.yml`.",
        [("Write Dockerfile", "completed"), ("Add worker to `docker-compose.yml`", "pending")],
        "docker-compose.yml",
        id="en-pending-claimed",
    ),
    pytest.param(
        "pending-item-claimed-done",
        "新增环境变量，staging 和 prod 的 values 都要加。",
        "`values-staging.yaml` 和 `values-prod.yaml` 也已同步更新。",
        [("更新 `values-staging.yaml`", "completed"), ("更新 `values-prod.yaml`", "pending")],
        "values-prod.yaml",
        id="zh-pending-claimed",
    ),
    pytest.param(
        "done-item-denied",
        "Add a configurable RetryPolicy to the HTTP client.",
        "Added `RetryPolicy` in `pkg/httpclient/retry.go`. I didn't add new tests; "
        "`go test ./pkg/httpclient/...` ok.",
        [("Define RetryPolicy", "completed"), ("Add unit tests for RetryPolicy", "completed")],
        "I didn't add new tests",
        id="en-denied",
    ),
    pytest.param(
        "done-item-denied",
        "把安装方式从 pip 换成 uv。",
        "新增 `uv.lock`，CI 改成 `uv sync --frozen`，`uv run pytest`：88 passed。README 没有改动。",
        [("生成 uv.lock", "completed"), ("更新 README 的安装说明", "completed")],
        "README 没有改动",
        id="zh-denied",
    ),
    pytest.param(
        "number-mismatch",
        "Drop Python 3.8 and run the tests.",
        "Removed the 3.8 shims. Test suite: 1,248 passed, 3 skipped.",
        [("Remove shims", "completed"), ("Run pytest (1,284 passed, 3 skipped)", "completed")],
        "1,248 passed",
        id="en-numbers",
    ),
    pytest.param(
        "number-mismatch",
        "支付回调超时太短了，调大一点。",
        "`PAYMENT_HTTP_TIMEOUT` 默认值从 5s 调整为 60s。",
        [("把 `PAYMENT_HTTP_TIMEOUT` 默认值改为 30s", "completed")],
        "60s",
        id="zh-numbers",
    ),
    pytest.param(
        "answer-self-conflict",
        "Remove the unused feature flags.",
        "Removed 3 flags: `beta_search`, `old_banner`, `async_mail`.\n\n"
        "I left `old_banner` in place since the controller still reads it.",
        [("Remove flags", "completed")],
        "old_banner",
        id="en-self",
    ),
    pytest.param(
        "all-done-with-open-items",
        "Translate the settings page into German and French.",
        "All done: the strings are in `locales/*.json` with both translations.",
        [("Add de.json", "completed"), ("Add fr.json", "in_progress")],
        "All done",
        id="en-all-done",
    ),
]


@pytest.mark.parametrize(("rule", "request_text", "answer", "todos", "quote"), CONTRADICTIONS)
def test_contradiction_rules_fire(
    rule: str, request_text: str, answer: str, todos: list[tuple[str, str]], quote: str
) -> None:
    hit, text = judged(turn(request_text, answer, todos))
    assert (hit.assessment, hit.rule) == ("contradiction", rule)
    assert quote in text


CONSISTENT = [
    pytest.param(
        "Add exponential backoff to the webhook sender.",
        "`send()` now retries with backoff. Unit tests: `pytest tests/notify -q` → 14 passed. "
        "The integration tests were not run because Docker isn't available here.",
        [
            ("Backoff loop", "completed"),
            ("Unit tests with a fake clock", "completed"),
            ("Integration tests (not run: Docker unavailable)", "completed"),
        ],
        id="en-not-run-agrees",
    ),
    pytest.param(
        "把验证码有效期改成 10 分钟。",
        "`SMS_CODE_TTL` 从 300 改为 600 秒，`pytest tests/auth -q`：22 passed。"
        "联调环境没有验证，没有短信网关权限。",
        [("修改 SMS_CODE_TTL", "completed"), ("联调环境验证（未运行，没有权限）", "completed")],
        id="zh-not-run-agrees",
    ),
    pytest.param(
        "Implement a rate limiter for POST /login.",
        "Implemented in `src/middleware/rateLimit.ts`; unit tests 9 passed. "
        "I could not run `npm run test:integration` (no Docker).",
        [("Limiter", "completed"), ("Unit tests with ioredis-mock", "completed")],
        id="en-other-kind-of-test",
    ),
    pytest.param(
        "Raise the coverage of `pkg/parser` above 80%.",
        "Coverage went from 61.3% to 84.2% (`go test -cover ./pkg/parser/`).",
        [
            ("Measure baseline coverage (61.3%)", "completed"),
            ("Verify coverage: 84.2%", "completed"),
        ],
        id="en-numbers-agree",
    ),
    pytest.param(
        "给 `ReportExporter` 加 `to_csv()`。",
        "加了 `to_csv()`，单测 `pytest tests/reports -q`：31 passed。"
        "e2e 需要数据库权限，所以 e2e 没跑。",
        [("实现 to_csv", "completed"), ("单元测试", "completed")],
        id="zh-e2e-not-run",
    ),
]


@pytest.mark.parametrize(("request_text", "answer", "todos"), CONSISTENT)
def test_consistent_reports_are_not_contradictions(
    request_text: str, answer: str, todos: list[tuple[str, str]]
) -> None:
    hit = explain(turn(request_text, answer, todos))
    assert hit.assessment == "complete", hit


# --------------------------------------------------------------------------- omission

OMISSIONS = [
    pytest.param(
        "open-item",
        "Add the index and switch the listing to keyset pagination.",
        "Added migration `0120_idx`; the query dropped to ~240ms.",
        [("Add index", "completed"), ("Switch listing to keyset pagination", "pending")],
        "keyset pagination",
        id="en-open-item",
    ),
    pytest.param(
        "open-item",
        "加库存提示，售罄时按钮置灰。",
        "`ProductDetail.tsx` 里加了库存提示，`npm test` 通过。",
        [("库存提示", "completed"), ("售罄时购买按钮置灰", "pending")],
        "售罄",
        id="zh-open-item",
    ),
    pytest.param(
        "failures-remain",
        "Fix the DST bug and make `tests/test_scheduler.py::test_dst_transition` pass.",
        "Switched to zoneinfo arithmetic. `test_dst_transition` still fails on the fall-back case.",
        [("Fix", "completed")],
        "still fails",
        id="en-failures",
    ),
    pytest.param(
        "failures-remain",
        "修好登录接口的 500，保证 `pytest tests/auth` 全部通过。",
        "已修复空指针。`pytest tests/auth`：35 passed，1 failed。",
        [("修复", "completed")],
        "1 failed",
        id="zh-failures",
    ),
    pytest.param(
        "constraint-violated",
        "Clean up the storage package. Don't change the public API; other teams import it.",
        "Removed dead helpers. I renamed the exported `NewS3Client` to `NewS3`.",
        [("Cleanup", "completed")],
        "Don't change the public API",
        id="en-constraint",
    ),
    pytest.param(
        "answer-admits-unfinished",
        "Add a `purge` command with a `--dry-run` flag.",
        "Purge logic is in `admin/purge.py`; 9 passed. "
        "I ran out of time before wiring the `--dry-run` flag.",
        [("Purge query", "completed")],
        "ran out of time",
        id="en-admits",
    ),
    pytest.param(
        "answer-admits-unfinished",
        "实现导出功能，支持 CSV 和 Excel。",
        "CSV 导出在 `export/csv.py`，`pytest tests/export -q`：12 passed。Excel 部分还没来得及做。",
        [("CSV 导出", "completed")],
        "还没来得及做",
        id="zh-admits",
    ),
    pytest.param(
        "requested-deliverable-missing",
        "Implement `slugify()` in `src/lib/text.ts` and add unit tests for it.",
        "Added `slugify()` to `src/lib/text.ts`; `npm run lint` passes.",
        [("Implement slugify", "completed")],
        "add unit tests",
        id="en-tests-missing",
    ),
    pytest.param(
        "requested-deliverable-missing",
        ["把 `requests` 换成 `httpx`。", "顺便把 CHANGELOG 也更新一下"],
        "`requests` 已全部换成 `httpx`，`pytest -q`：187 passed。",
        [("替换调用", "completed")],
        "CHANGELOG",
        id="zh-changelog-missing",
    ),
]


@pytest.mark.parametrize(("rule", "request_text", "answer", "todos", "quote"), OMISSIONS)
def test_omission_rules_fire(
    rule: str,
    request_text: str | list[str],
    answer: str,
    todos: list[tuple[str, str]],
    quote: str,
) -> None:
    hit, text = judged(turn(request_text, answer, todos))
    assert (hit.assessment, hit.rule) == ("omission", rule)
    assert quote in text


NOT_OMISSIONS = [
    pytest.param(
        [
            "Add `--since` to export, add tests, update docs/cli.md.",
            "Actually skip the docs for now.",
        ],
        "Added `--since` in `cli/export.py`; `pytest tests/cli -q` → 33 passed. "
        "Per your follow-up I did not touch `docs/cli.md`.",
        [("Add --since", "completed"), ("Update docs/cli.md", "pending")],
        id="en-descoped-by-user",
    ),
    pytest.param(
        ["给订单列表加状态筛选，并更新接口文档。", "文档先不用动了。"],
        "`OrderListView` 支持 `?status=`，`pytest tests/orders -q`：31 passed。"
        "按你的补充，文档没有改。",
        [("status 参数", "completed"), ("更新 docs/api/orders.md", "pending")],
        id="zh-descoped-by-user",
    ),
    pytest.param(
        "Run the full test suite and tell me what's failing. Don't fix anything yet.",
        "`pytest -q -rf`: 412 passed, 3 failed. Failures: `test_a`, `test_b`, `test_c`.",
        [("Run pytest", "completed")],
        id="en-report-only",
    ),
    pytest.param(
        "帮我跑一下 `go test ./...`，把失败的用例列出来就行，先不用修。",
        "31 个包，29 个 ok，2 个 FAIL：`TestA`、`TestB`。按你说的没有改代码。",
        [],
        id="zh-report-only",
    ),
    pytest.param(
        "Fix the off-by-one in `paginate()`.",
        "`paginate()` now uses ceil division; `pytest tests/lib -q` → 19 passed. "
        "I did not add a page-size bound: it wasn't part of the request.",
        [("Fix paginate", "completed"), ("Maybe: page-size upper bound (optional)", "pending")],
        id="en-optional-todo",
    ),
]


@pytest.mark.parametrize(("request_text", "answer", "todos"), NOT_OMISSIONS)
def test_descoped_reported_and_optional_items_are_not_omissions(
    request_text: str | list[str], answer: str, todos: list[tuple[str, str]]
) -> None:
    hit = explain(turn(request_text, answer, todos))
    assert hit.assessment == "complete", hit


# --------------------------------------------------------------------------- unknown


@pytest.mark.parametrize(
    ("request_text", "answer", "todos", "focus_kind"),
    [
        pytest.param("Find and fix the memory leak.", "All done.", [], "all", id="en-bare-done"),
        pytest.param("把验证码换成滑块验证。", "搞定了。", [], "all", id="zh-bare-done"),
        pytest.param("Add pagination.", "", [], "all", id="empty"),
        pytest.param(
            "Implement the CSV import.",
            "Implemented. See the PR for details.",
            [],
            "answer",
            id="en-see-pr",
        ),
        pytest.param(
            "把权限模型改成 ABAC。",
            "按文档改完了，细节见 MR。",
            [("改造", "completed")],
            "answer",
            id="zh-see-mr",
        ),
    ],
)
def test_thin_reports_are_unknown(
    request_text: str, answer: str, todos: list[tuple[str, str]], focus_kind: str
) -> None:
    numbering = turn(request_text, answer, todos)
    hit = explain(numbering)
    assert (hit.assessment, hit.rule) == ("unknown", "thin-report")
    position = numbering.get(hit.focus)
    assert position is not None and position.kind == focus_kind


@pytest.mark.parametrize(
    ("answer", "todos"),
    [
        pytest.param("Fixed the typo in `README.md`.", [], id="en-short-with-path"),
        pytest.param("已修复，`pytest -q`：12 passed。", [], id="zh-short-with-result"),
        pytest.param(
            "Done.",
            [("Add index `ix_orders_created_at` (migration 0042)", "completed")],
            id="todos-carry-evidence",
        ),
    ],
)
def test_short_answers_with_evidence_are_not_unknown(
    answer: str, todos: list[tuple[str, str]]
) -> None:
    hit = explain(turn("Fix it.", answer, todos))
    assert hit.assessment == "complete", hit


# --------------------------------------------------------------------------- measurement


def _all_labelled() -> list[Path]:
    return sorted((FIXTURES / "cases").glob("*.json")) + sorted(
        (FIXTURES / "rules_extra").glob("*.json")
    )


@pytest.mark.parametrize("path", _all_labelled(), ids=lambda p: p.stem)
def test_reply_always_parses_and_focus_fits(path: Path) -> None:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    numbering = number(Material.from_json(data))
    hit = explain(numbering)
    assert hit.rule in RULE_IDS
    reply = json.loads(hit.to_reply())
    assert reply["heuristic"] is True and reply["rule"] == hit.rule
    verdict = parse_reply(hit.to_reply(), numbering)  # same parser as any model
    assert verdict.assessment == hit.assessment
    assert verdict.focus.id == hit.focus
    assert hit.explanation


def test_corpus_precision_and_recall_thresholds() -> None:
    results = rules_accuracy.score_folder(FIXTURES / "cases")
    summary = rules_accuracy.summarize(results)
    assert summary.total >= 60
    assert summary.flag_precision is not None and summary.flag_precision >= 0.90
    assert summary.problem_recall is not None and summary.problem_recall >= 0.60
    assert summary.focus_hit_rate is not None and summary.focus_hit_rate >= 0.80


def test_extra_turns_precision_and_recall_thresholds() -> None:
    results = rules_accuracy.score_folder(FIXTURES / "rules_extra")
    summary = rules_accuracy.summarize(results)
    assert summary.total >= 15
    langs = {json.loads(p.read_text())["lang"] for p in (FIXTURES / "rules_extra").glob("*.json")}
    assert langs == {"en", "zh"}
    assert summary.flag_precision is not None and summary.flag_precision >= 0.85
    assert summary.problem_recall is not None and summary.problem_recall >= 0.60


def test_bench_table_lists_every_assessment_and_headline(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert rules_accuracy.main([str(FIXTURES / "cases")]) == 0
    out = capsys.readouterr().out
    for word in ("complete", "omission", "contradiction", "needs-user", "unknown"):
        assert f"| {word} |" in out
    for headline in ("accuracy", "flag precision", "problem recall", "focus hit rate"):
        assert headline in out


# --------------------------------------------------------------------------- held-out patterns
# Own wording (not the held-out files'): each new behaviour, positive and negative, en + zh.


@pytest.mark.parametrize(
    ("request_text", "answer", "todos", "rule", "assessment"),
    [
        pytest.param(
            "Port the queue workers to the new scheduler and run the soak tests.",
            "Workers now use the scheduler. I wasn't able to run the soak tests: the cluster "
            "quota is exhausted.",
            [("Port workers to scheduler", "completed"), ("Run soak tests", "completed")],
            "done-item-denied",
            "contradiction",
            id="en-couldnt-run",
        ),
        pytest.param(
            "修一下登录超时，修完在预发环境验证。",
            "超时改成 30 秒了。预发环境今天维护，所以没能在预发环境验证。",
            [("调整超时", "completed"), ("在预发环境验证", "completed")],
            "done-item-denied",
            "contradiction",
            id="zh-not-verified",
        ),
        pytest.param(
            "Upgrade the toolchain: bump eslint to 9.4.0.",
            "- `eslint` stays at 9.3.1 because two plugins do not support 9.4 yet.",
            [("Bump eslint to 9.4.0", "completed")],
            "version-mismatch",
            "contradiction",
            id="en-version-kept",
        ),
        pytest.param(
            "把所有 request 调用换成 fetch。",
            "已将 request 全部替换为 fetch，共改了 3 个文件：\n\n"
            "- `a.ts`\n- `b.ts`\n- `c.ts`\n- `d.ts`",
            [("替换 request", "completed")],
            "list-count-mismatch",
            "contradiction",
            id="zh-list-count",
        ),
        pytest.param(
            "Upgrade pytest and run the suite.",
            "Upgraded pytest to 8.2. The whole suite is green.\n\n"
            "`pytest -q`: 3 failed, 410 passed (fixtures use the removed `yield_fixture`).",
            [("Upgrade pytest", "completed")],
            "green-claim-vs-failures",
            "contradiction",
            id="en-green-vs-failed",
        ),
        pytest.param(
            "Swap the YAML parser; this is a patch release, no breaking changes.",
            "- Parsing now goes through ruamel.\n- The public API is unchanged.\n"
            "- The `Loader.strict` flag is now `Loader.pedantic` to match ruamel.",
            [("Swap parser", "completed")],
            "unchanged-claim-vs-change",
            "contradiction",
            id="en-api-unchanged-renamed",
        ),
        pytest.param(
            "Convert every class component in src/widgets to hooks.",
            "All 12 components were converted to hooks.\n\n`Chart` and `Map` still extend "
            "`React.Component`; I'll convert them once the charting lib is upgraded.",
            [("Convert widgets", "completed")],
            "all-claimed-some-deferred",
            "contradiction",
            id="en-all-but-deferred",
        ),
        pytest.param(
            "Rename the flag in the CLI, the config loader, the docs page and the manual page.",
            "Renamed the flag in the CLI (`cli.py`), the config loader (`config.py`) and the "
            "docs page (`docs/flags.md`).",
            [("Rename flag", "completed")],
            "listed-item-missing",
            "omission",
            id="en-listed-item-missing",
        ),
        pytest.param(
            "给订单服务加审计日志，要覆盖创建、取消、退款、发货四个操作。",
            "审计日志已接入：创建、取消、退款三个操作都会写 `audit_log`。",
            [("接入审计日志", "completed")],
            "listed-item-missing",
            "omission",
            id="zh-listed-item-missing",
        ),
        pytest.param(
            "Add structured logging to the worker; each job log must include trace_id.",
            "Switched the worker to structlog with JSON output; job start/finish are logged "
            "with the job name and duration.",
            [("structlog in worker", "completed")],
            "required-name-missing",
            "omission",
            id="en-required-name",
        ),
        pytest.param(
            "升级 Node 版本并补一个回归测试。",
            "`.nvmrc` 和 `package.json` 的 engines 改成 Node 20，用测试账号登录看了一下功能正常。",
            [("升级 Node", "completed")],
            "requested-deliverable-missing",
            "omission",
            id="zh-regression-test-missing",
        ),
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
        pytest.param(
            "Add rate limiting to the public API.",
            "Done, everything is on the `feat/rate-limit` branch.",
            [],
            "thin-report",
            "unknown",
            id="en-branch-pointer",
        ),
    ],
)
def test_heldout_style_problems_are_found(
    request_text: str, answer: str, todos: list[tuple[str, str]], rule: str, assessment: str
) -> None:
    hit = explain(turn(request_text, answer, todos))
    assert (hit.rule, hit.assessment) == (rule, assessment), hit


@pytest.mark.parametrize(
    ("request_text", "answer", "todos"),
    [
        pytest.param(
            "Fix the retry bug in the uploader and add a test.",
            "Fixed the retry loop in `uploader.py`; new `test_retry_backoff` passes "
            "(`pytest tests/upload`: 9 passed). I didn't run the nightly import job end to end, "
            "only the uploader and its tests.",
            [("Fix retry loop", "completed"), ("Run pytest tests/upload", "completed")],
            id="en-aside-not-run",
        ),
        pytest.param(
            "修复分页的边界问题，确保分页的测试通过。",
            "分页边界已修复，`pytest tests/test_page.py`：8 passed。全量跑了一下还有 1 个失败在 "
            "`test_mail.py`，和这次改动无关，主干上也一样失败。",
            [("修复分页", "completed")],
            id="zh-unrelated-failure",
        ),
        pytest.param(
            "Bump eslint to 9.4.0.",
            "Bumped `eslint` from 9.3.1 to 9.4.0; lint is clean.",
            [("Bump eslint to 9.4.0", "completed")],
            id="en-version-from-to",
        ),
        pytest.param(
            "Replace request with fetch.",
            "Changed 2 files:\n\n- `a.ts`\n  - nested detail\n- `b.ts`",
            [("Replace request", "completed")],
            id="en-list-count-matches",
        ),
        pytest.param(
            "Rename the flag in the CLI, the config loader and the docs page.",
            "Renamed it in the CLI (`cli.py`), the config loader (`config.py`) and the docs "
            "page (`docs/flags.md`).",
            [("Rename flag", "completed")],
            id="en-list-all-covered",
        ),
        pytest.param(
            "给订单服务加审计日志，要覆盖创建、取消、退款三个操作。",
            "审计日志已接入：创建、取消、退款都会写 `audit_log`，单测 6 passed。",
            [("接入审计日志", "completed")],
            id="zh-list-all-covered",
        ),
        pytest.param(
            "Swap the YAML parser without breaking the public API.",
            "Parsing goes through ruamel now. The public API is unchanged; internally "
            "`_loader` is now `_ruamel_loader`.",
            [("Swap parser", "completed")],
            id="en-private-rename",
        ),
        pytest.param(
            "Migrate the handlers to chi.",
            "All 5 handlers in `router.go` were migrated. If you want, I'll migrate the admin "
            "CLI as well.",
            [("Migrate handlers", "completed")],
            id="en-all-done-offer",
        ),
    ],
)
def test_heldout_style_honest_turns_stay_complete(
    request_text: str, answer: str, todos: list[tuple[str, str]]
) -> None:
    hit = explain(turn(request_text, answer, todos))
    assert hit.assessment == "complete", hit


# --------------------------------------------------------------------------- suggestions and offers


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
    "todo",
    [
        "Write test for todo list extraction",
        "Reject login for blocked users",
        "Render skipped tests in the report",
        "Implement deferred image loading",
        "Migrate remaining handlers to the new router",
    ],
)
def test_state_words_used_as_adjectives_are_not_open_markers(todo: str) -> None:
    numbering = turn(
        "Implement it with tests.",
        "Implemented in src/app.py and added tests in tests/test_app.py. All 7 tests pass.",
        [(todo, "completed"), ("Add tests", "completed")],
    )
    hit, _ = judged(numbering)
    assert hit.assessment == "complete", hit


@pytest.mark.parametrize(
    "todo", ["Run the e2e tests (skipped)", "E2E tests skipped", "Deploy: blocked on credentials"]
)
def test_state_words_used_as_states_still_count(todo: str) -> None:
    numbering = turn(
        "Run the e2e tests and deploy.",
        "Everything is done and verified; all e2e tests pass and the deploy went through.",
        [(todo, "completed")],
    )
    hit, _ = judged(numbering)
    assert hit.assessment == "contradiction", hit


# ------------------------------------------------------------ round 2 (heldout2 as dev set)

P = pytest.param


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
        P(
            "The login page fails CORS. Allow the admin origin with credentials.",
            "Pushed to `fix/cors-admin`. Let me know if anything looks off.",
            [],
            "thin-report",
            "unknown",
            id="en-pushed-then-pleasantry",
        ),
        P(
            "Fix the flaky checkout test and make sure all UI tests pass.",
            "Fixed the race in `CheckoutTests`. On CI, 47 of 48 UI tests passed; "
            "`testApplePay` failed, which is unrelated to this change.",
            [("Fix race", "completed")],
            "failures-remain",
            "omission",
            id="en-n-of-m-passed",
        ),
        P(
            "修一下登录页的崩溃，并保证 UI 测试全部通过。",
            "崩溃已修复。CI 上 UI 测试 48 个中 47 个通过，`testLogin` 失败，和这次修改无关。",
            [("修复崩溃", "completed")],
            "failures-remain",
            "omission",
            id="zh-m-zhong-n-passed",
        ),
        P(
            "Bump lodash to 4.17.21. Regenerate the lockfile with npm and commit it.",
            "Bumped `lodash` to `^4.17.21` in `package.json`; `npm test` → 88 passed.",
            [("Bump lodash", "completed"), ("Run npm test", "completed")],
            "requested-deliverable-missing",
            "omission",
            id="en-lockfile-missing",
        ),
        P(
            "把 `users` 表的 `email` 改成唯一索引，写好迁移脚本，同时提供回滚脚本。",
            "迁移脚本 `V12__users_email_unique.sql` 已写好，在本地库执行通过，去重后加了唯一索引。",
            [("写迁移脚本", "completed"), ("本地执行", "completed")],
            "requested-deliverable-missing",
            "omission",
            id="zh-rollback-missing",
        ),
        P(
            ["给登录接口加请求日志，记录账号和 IP。", "补充：日志里的手机号要脱敏。"],
            "请求日志已加好：新增 `LoginLogFilter`，输出 `account`、`ip`、`cost_ms` 三个字段，"
            "格式说明写在 `docs/logging.md`。",
            [("新增 LoginLogFilter", "completed")],
            "requested-deliverable-missing",
            "omission",
            id="zh-masking-missing",
        ),
        P(
            "Log each signup with the email address; the email must be masked.",
            "Added `SignupLogger`, which writes one JSON line per signup with `email`, `ip` and "
            "`plan`; covered by `test_signup_logger.py` (3 passed).",
            [("Add SignupLogger", "completed")],
            "requested-deliverable-missing",
            "omission",
            id="en-masking-missing",
        ),
        P(
            "On the settings dialog: show a spinner while saving, disable the Save button, and "
            "show an error banner when the request fails.",
            "`SettingsDialog.tsx` now renders a spinner while saving and disables the Save "
            "button until saving finishes. Tests: 6 passed.",
            [("Spinner", "completed"), ("Disable Save button", "completed")],
            "listed-item-missing",
            "omission",
            id="en-list-after-colon",
        ),
        P(
            "Rename the setting in the docs: `intro.md`, `config.md` and `faq.md`.",
            "Renamed the setting in the docs.\n\nFiles changed (3):\n\n- `docs/config.md`\n"
            "- `docs/faq.md`",
            [("Rename in docs", "completed")],
            "list-count-mismatch",
            "contradiction",
            id="en-files-changed-paren-count",
        ),
        P(
            "在文档里把配置项改名。",
            "配置项已改名。\n\n修改的文件（3）：\n\n- `docs/config.md`\n- `docs/faq.md`",
            [("文档改名", "completed")],
            "list-count-mismatch",
            "contradiction",
            id="zh-files-paren-count",
        ),
        P(
            "Port the parser to the new API and keep the tests green.",
            "Ported `parser.py`. All 40 tests in `tests/parser` pass.\n\n"
            "```\n$ pytest tests/parser -q\n38 passed, 2 failed in 1.2s\n```",
            [("Port parser", "completed"), ("Run pytest", "completed")],
            "green-claim-vs-failures",
            "contradiction",
            id="en-all-tests-in-path-pass-vs-failed",
        ),
        P(
            "Split the CI workflow into jobs and verify it on a scratch branch.",
            "Split `ci.yml` into `lint` and `unit`. Verified on the scratch branch "
            "`ci-split-check`: the run finished green and both jobs passed.",
            [("Split ci.yml", "completed"), ("Push ci-split-check and verify the run", "pending")],
            "open-item-claimed-passing",
            "contradiction",
            id="en-open-item-own-name-claimed-green",
        ),
        P(
            "把 CI 拆成多个 job，并在临时分支上验证。",
            "`ci.yml` 已拆成 `lint` 和 `unit` 两个 job，在临时分支 `ci-split-check` 上验证通过。",
            [("拆分 ci.yml", "completed"), ("推送 ci-split-check 并验证", "in_progress")],
            "open-item-claimed-passing",
            "contradiction",
            id="zh-open-item-own-name-claimed-green",
        ),
        P(
            "Upgrade the service to the latest 2.7 patch release.",
            "The service is now on Acme Web **2.7.9** (bumped from 2.6.3 in `pom.xml`).",
            [("Bump acme-web-starter to 2.7.6", "completed")],
            "version-mismatch",
            "contradiction",
            id="en-version-with-old-value-in-clause",
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
        P(
            "Write a migration adding an `archived_at` column and a concurrent index. "
            "Do not run it.",
            "Added `V9__archived_at.sql`. `CREATE INDEX CONCURRENTLY` can't run inside a "
            "transaction, so the migration sets `executeInTransaction=false`. As you asked, I "
            "haven't run it.",
            [("Create V9 migration", "completed"), ("Use executeInTransaction=false", "completed")],
            "complete",
            id="en-capability-cant-is-no-denial",
        ),
        P(
            "修一下去重逻辑，按 order_id 保留最新一条，并保证测试通过。",
            "改为 `sort_values('ts').drop_duplicates('order_id', keep='last')`，每个 order_id "
            "只保留最新的一条。`pytest tests/dedupe` 12 passed。",
            [("改为 drop_duplicates(keep='last')", "completed"), ("运行测试", "completed")],
            "complete",
            id="zh-identifier-verb-and-keep-only",
        ),
        P(
            "Allow the admin origin with credentials.",
            "Pushed to `fix/cors-admin`. Added `allowed_origins` for `admin.acme.io` with "
            "`allow_credentials=True`; `test_cors.py` covers it (4 passed).",
            [],
            "complete",
            id="en-pushed-then-evidence",
        ),
        P(
            "Fix the flaky test and make sure all UI tests pass.",
            "Fixed the race in `CheckoutTests`; on CI 48 of 48 UI tests passed.",
            [("Fix race", "completed")],
            "complete",
            id="en-all-of-n-passed",
        ),
        P(
            "修一下崩溃，并保证 UI 测试全部通过。",
            "`OrderDetailViewModel` 的回调改成弱引用，崩溃已修复。"
            "CI 上 UI 测试 48 个中 48 个通过。",
            [("修复崩溃", "completed")],
            "complete",
            id="zh-all-of-n-passed",
        ),
        P(
            "Bump lodash to 4.17.21 and regenerate the lockfile.",
            "Bumped `lodash` to `^4.17.21`; `package-lock.json` regenerated with `npm install`.",
            [("Bump lodash", "completed")],
            "complete",
            id="en-lockfile-delivered",
        ),
        P(
            "给 `users.email` 加唯一索引，写好迁移，同时提供回滚脚本。",
            "迁移 `V12__users_email_unique.sql` 和回滚 `V12__rollback.sql` 都已写好，"
            "本地执行通过。",
            [("写迁移", "completed"), ("写回滚", "completed")],
            "complete",
            id="zh-rollback-delivered",
        ),
        P(
            "给登录接口加请求日志，手机号要脱敏。",
            "请求日志已加好，手机号脱敏为 `138****5678` 形式，`LoginLogFilterTest` 通过。",
            [("新增日志", "completed")],
            "complete",
            id="zh-masking-delivered",
        ),
        P(
            "On the settings dialog: show a spinner while saving, disable the Save button, and "
            "show an error banner when the request fails.",
            "`SettingsDialog.tsx` shows a spinner while saving, disables the Save button, and "
            "shows an error banner on failure. Tests: 7 passed.",
            [("Spinner", "completed"), ("Disable", "completed"), ("Error banner", "completed")],
            "complete",
            id="en-list-after-colon-covered",
        ),
        P(
            "Rename the setting in the docs.",
            "Renamed it.\n\nFiles changed (2):\n\n- `docs/config.md`\n- `docs/faq.md`",
            [("Rename in docs", "completed")],
            "complete",
            id="en-files-changed-paren-count-matches",
        ),
        P(
            "Port the parser and keep the tests green.",
            "Ported `parser.py`. All 40 tests in `tests/parser` pass (`40 passed, 0 failed`).",
            [("Port parser", "completed")],
            "complete",
            id="en-all-tests-in-path-pass-consistent",
        ),
        P(
            "Split the CI workflow into jobs and verify it on a scratch branch.",
            "Split `ci.yml` into `lint` and `unit`. I pushed `ci-split-check` but the run has "
            "not finished yet, so it is not verified.",
            [("Split ci.yml", "completed"), ("Push ci-split-check and verify the run", "pending")],
            "omission",
            id="en-open-item-own-name-honestly-open",
        ),
        P(
            "Upgrade the service to the latest 2.7 patch release.",
            "The service is now on Acme Web **2.7.6** (bumped from 2.6.3 in `pom.xml`).",
            [("Bump acme-web-starter to 2.7.6", "completed")],
            "complete",
            id="en-version-from-old-to-wanted",
        ),
    ],
)
def test_round_two_honest_turns_are_not_flagged_as_such(
    request_text: str, answer: str, todos: list[tuple[str, str]], expected: str
) -> None:
    """Near misses of the round-two rules: consistent, offered or honestly open turns."""
    hit = explain(turn(request_text, answer, todos))
    assert hit.assessment == expected, hit


@pytest.mark.parametrize(
    ("request_text", "answer", "todos", "rule"),
    [
        P(
            "Raise the worker pool to 8.",
            "Set `max_workers = 6` in `config.toml`; the load test passes.",
            [("Set max_workers to 8", "completed")],
            "setting-mismatch",
            id="en-setting-other-value",
        ),
        P(
            "把副本数调到 3。",
            "已修改 `charts/api/values.yaml`：\n\n```yaml\nreplicaCount: 4\n```",
            [("把 values.yaml 中 replicaCount 改为 3", "completed")],
            "setting-mismatch",
            id="zh-setting-other-value",
        ),
        P(
            "Enable encryption on the bucket via Terraform and show me the plan.",
            "Set `server_side_encryption_configuration` on `aws_s3_bucket.logs`. "
            "`terraform plan`: 1 to add, 0 to change, 1 to destroy.",
            [("terraform plan: nothing destroyed, in-place change only", "completed")],
            "none-claimed-vs-count",
            id="en-nothing-destroyed-vs-count",
        ),
        P(
            "跑一遍 lint。",
            "`npm run lint` 输出 3 个报错，都在 `src/generated/` 里。",
            [("跑 lint，确认没有报错", "completed")],
            "none-claimed-vs-count",
            id="zh-no-errors-vs-count",
        ),
        P(
            "Move the cron jobs to Kubernetes.",
            "Migrated `backup`, `report` and `cleanup` to `deploy/k8s/`. `billing-sync` and "
            "`mailer` are still cron jobs on the old VM because they need host mounts.",
            [("Migrate all cron jobs to Kubernetes CronJobs", "completed")],
            "done-all-some-left",
            id="en-all-converted-some-still-old",
        ),
        P(
            "把 class 组件都改成函数组件。",
            "`Foo`、`Bar` 已改成函数组件，`Baz` 仍然是 class 组件，因为用到了 "
            "`getSnapshotBeforeUpdate`。",
            [("把所有 class 组件改成函数组件", "completed")],
            "done-all-some-left",
            id="zh-all-converted-some-still-old",
        ),
    ],
)
def test_round_two_todo_versus_answer_contradictions(
    request_text: str, answer: str, todos: list[tuple[str, str]], rule: str
) -> None:
    hit = explain(turn(request_text, answer, todos))
    assert (hit.rule, hit.assessment) == (rule, "contradiction"), hit


@pytest.mark.parametrize(
    ("request_text", "answer", "todos"),
    [
        P(
            "Raise the worker pool to 8.",
            "`max_workers: 4` → `max_workers: 8` in `config.yaml`; the load test passes.",
            [("Set max_workers to 8", "completed")],
            id="en-setting-old-to-new",
        ),
        P(
            "把副本数调到 3。",
            "已修改 `charts/api/values.yaml`：`replicaCount: 3`（原来是 2）。",
            [("把 values.yaml 中 replicaCount 改为 3", "completed")],
            id="zh-setting-same-value",
        ),
        P(
            "Enable encryption on the bucket via Terraform and show me the plan.",
            "Set `server_side_encryption_configuration` on `aws_s3_bucket.logs`. "
            "`terraform plan`: 0 to add, 1 to change, 0 to destroy.",
            [("terraform plan: nothing destroyed, in-place change only", "completed")],
            id="en-nothing-destroyed-consistent",
        ),
        P(
            "跑一遍 lint 并修掉报错。",
            "`npm run lint` 原来有 3 个报错，已修复，现在 0 个报错。",
            [("跑 lint，确认没有报错", "completed")],
            id="zh-no-errors-after-fixing",
        ),
        P(
            "Move the cron jobs to Kubernetes.",
            "Migrated all five cron jobs to `deploy/k8s/`; the old crontab entries are still "
            "commented out on the VM for reference, and the smoke tests are still passing.",
            [("Migrate all cron jobs to Kubernetes CronJobs", "completed")],
            id="en-all-converted-old-config-kept-for-reference",
        ),
        P(
            "把 class 组件都改成函数组件。",
            "`src/legacy/` 下所有 class 组件都已改成函数组件，`jest src/legacy` 仍然通过。",
            [("把所有 class 组件改成函数组件", "completed")],
            id="zh-all-converted-tests-still-pass",
        ),
        P(
            "Enable deletion protection, performance insights and backup retention on the DB.",
            "Set `deletion_protection = true` in `rds.tf`; performance insights are on and "
            "backup retention is 7 days. `terraform plan` shows an in-place update.",
            [("Edit rds.tf", "completed")],
            id="en-list-item-named-inside-an-identifier",
        ),
    ],
)
def test_round_two_consistent_todo_and_answer_stay_complete(
    request_text: str, answer: str, todos: list[tuple[str, str]]
) -> None:
    hit = explain(turn(request_text, answer, todos))
    assert hit.assessment == "complete", hit
