"""The ``later_asks`` family: an ask only in a mid-turn message (``later-ask-missing``)."""

from __future__ import annotations

import pytest

from jev.judges.rules import explain
from tests.judges.rules.helpers import judged, turn


def test_later_ask_missing() -> None:
    hit, text = judged(
        turn(
            ["Add a JSON export of the audit log.", "Also write it gzip-compressed as `.gz`."],
            "Added `GET /audit/export` returning JSON; `pytest tests/audit` → 7 passed.",
            [("Add JSON export", "completed")],
        )
    )
    assert (hit.rule, hit.assessment) == ("later-ask-missing", "omission")
    assert "`.gz`" in text


@pytest.mark.parametrize(
    "later",
    [
        "Also keep it fast.",  # names no thing
        "Also, FYI the CI runner is slow today.",  # a remark, not an ask
        "Also: should the export include `deleted_at`?",  # a question, not an ask
        "Also gzip it as `.gz`.",  # answered below
    ],
)
def test_later_ask_missing_stays_quiet(later: str) -> None:
    hit = explain(
        turn(
            ["Add a JSON export of the audit log.", later],
            "Added `GET /audit/export` returning JSON, written gzip-compressed (`.gz`); "
            "`pytest tests/audit` → 7 passed.",
            [("Add JSON export", "completed")],
        )
    )
    assert hit.rule != "later-ask-missing"


@pytest.mark.parametrize(
    ("later", "answer"),
    [
        (
            "One more thing: throttle the retries at 2 Hz, the upstream rate-limits us.",
            "Retries now back off exponentially in `sync/retry.py`; `pytest tests/sync` → "
            "14 passed.",
        ),
        (
            "Oh and the export's timestamps have to be UTC, see `docs/export_format.md`.",
            "The nightly export now writes `orders.csv` with the new `region` column; "
            "`pytest tests/export` → 9 passed.",
        ),
    ],
    ids=["value-cap-at", "modal-requirement"],
)
def test_a_later_requirement_without_also_is_an_ask(later: str, answer: str) -> None:
    hit = explain(
        turn(["Rework the sync job as discussed.", later], answer, [("Rework", "completed")])
    )
    assert (hit.rule, hit.assessment, hit.focus) == ("later-ask-missing", "omission", "R2"), hit


def test_a_later_prohibition_is_no_ask() -> None:
    hit = explain(
        turn(
            ["Rework the sync job as discussed.", "It must not touch `legacy/ftp_push.py`."],
            "The sync job is reworked in `sync/job.py`; `pytest tests/sync` → 14 passed.",
            [("Rework", "completed")],
        )
    )
    assert hit.rule != "later-ask-missing", hit
