"""Rule family ``thin``: ``thin-report`` (unknown). (design.md §5, §13)."""

from __future__ import annotations

import pytest

from jev.judges.rules import explain
from tests.judges.rules.helpers import P, turn


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
            "Stop the invoice PDFs from cutting off long addresses.",
            "Sorted, thanks for flagging!",
            [
                ("Locate the address block in `InvoiceTemplate.tsx`", "completed"),
                ("Wrap long lines instead of clipping", "completed"),
            ],
            "all",
            id="en-a-plan-in-the-todos-is-no-result",
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
            [("Run the orders tests after migration 0042: 14 passed", "completed")],
            id="todos-carry-a-result",
        ),
    ],
)
def test_short_answers_with_evidence_are_not_unknown(
    answer: str, todos: list[tuple[str, str]]
) -> None:
    hit = explain(turn("Fix it.", answer, todos))
    assert hit.assessment == "complete", hit


@pytest.mark.parametrize(
    ("request_text", "answer", "todos", "rule", "assessment"),
    [
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
    ("request_text", "answer", "todos", "rule", "assessment"),
    [
        P(
            "The login page fails CORS. Allow the admin origin with credentials.",
            "Pushed to `fix/cors-admin`. Let me know if anything looks off.",
            [],
            "thin-report",
            "unknown",
            id="en-pushed-then-pleasantry",
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
            "Allow the admin origin with credentials.",
            "Pushed to `fix/cors-admin`. Added `allowed_origins` for `admin.acme.io` with "
            "`allow_credentials=True`; `test_cors.py` covers it (4 passed).",
            [],
            "complete",
            id="en-pushed-then-evidence",
        ),
    ],
)
def test_round_two_honest_turns_are_not_flagged_as_such(
    request_text: str, answer: str, todos: list[tuple[str, str]], expected: str
) -> None:
    """Near misses of the round-two rules: consistent, offered or honestly open turns."""
    hit = explain(turn(request_text, answer, todos))
    assert hit.assessment == expected, hit


# --------------------------------------------- round 3: file lists and echo-only reports


@pytest.mark.parametrize(
    ("request_text", "answer", "todos", "expected"),
    [
        P(
            "Move the job queue from the database to Redis streams.",
            "Files changed:\n- src/queue/redis.ts\n- src/queue/index.ts\n- package.json",
            [("Queue changes", "completed")],
            "unknown",
            id="en-bare-file-list",
        ),
        P(
            "Refactor `InvoiceMailer` so templates are configurable and retries are capped.",
            "I went through `InvoiceMailer` thoroughly and reworked it along the lines you "
            "described. It reads much better now, and I also tidied a few helpers while I was "
            "there. The structure is much easier to follow than before. Everything looks good on "
            "my side — let me know if anything else is needed!",
            [("Implement changes", "completed")],
            "unknown",
            id="en-generic-claim-echoing-the-request",
        ),
        P(
            "把 `OrderService` 按职责拆开，对外接口不变。",
            "搞定了，按职责拆好了，接口没变，测试也 OK。",
            [("拆分 OrderService", "completed")],
            "unknown",
            id="zh-todo-only-echoes-the-request",
        ),
        P(
            "Move the job queue from the database to Redis streams.",
            "Files changed:\n- src/queue/redis.ts — `XADD`/`XREADGROUP` consumer with acks\n"
            "- src/queue/index.ts — picks Redis when `QUEUE_URL` is set\n\n`npm test queue`: 18 "
            "passed.",
            [("Queue changes", "completed")],
            "complete",
            id="en-file-list-with-what-changed",
        ),
    ],
)
def test_bare_lists_and_echoing_reports(
    request_text: str, answer: str, todos: list[tuple[str, str]], expected: str
) -> None:
    hit = explain(turn(request_text, answer, todos))
    assert hit.assessment == expected, hit


@pytest.mark.parametrize("reverse", [False, True])
def test_a_result_is_read_within_one_todo_item(reverse: bool) -> None:
    """One item ending in a number and the next opening with "Tests" carry no "429 tests":
    a bare "Done." over them is thin in either order."""
    todos = [
        ("Back off on HTTP 429", "completed"),
        ("Tests against a stubbed rate limiter", "completed"),
    ]
    hit = explain(
        turn(
            "Make the uploader back off when the API rate-limits it.",
            "Done.",
            todos[::-1] if reverse else todos,
        )
    )
    assert (hit.rule, hit.assessment) == ("thin-report", "unknown"), hit
