"""What Jev did, in a real headless Chromium (issue 14 items 3 and 4).

The store is filled the way hosts fill it (:mod:`tests.ui.seed`: the Auditor with a
real HTTP judge on 127.0.0.1). The turns page lists the turns with their chains; the
turn page shows the three-round chain with each round's numbered material, the quoted
focus highlighted in its context, the supplement sent and the raw reply; the
overview's numbers equal a direct count over the store's records.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from jev.store import Store, default_store_path
from tests.fakeserver import running_provider
from tests.ui.conftest import Browser, UiProcess, start_ui
from tests.ui.seed import ANSWER_2_CLAIM, REINDEX, SEEDED, seed

pytestmark = pytest.mark.browser

DOCS = Path(__file__).resolve().parents[2] / "docs"


def screenshot(page: object, name: str, tmp: Path) -> Path:
    """Save a full-page screenshot as ``name``: into docs/ when ``JEV_UPDATE_DOCS=1``
    (how README's pictures are made), else into ``tmp`` (so test runs leave the
    checkout clean). Either way the file must be a real, non-trivial PNG."""
    folder = DOCS if os.environ.get("JEV_UPDATE_DOCS") == "1" else tmp
    folder.mkdir(exist_ok=True)
    path = folder / name
    page.screenshot(path=str(path), full_page=True)  # type: ignore[attr-defined]
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000
    width = int.from_bytes(data[16:20], "big")
    assert width == 1280
    return path


def _seed_base() -> float:
    """Noon UTC of today: the seed's "today", "yesterday" and "two days ago" records keep
    their days even when the test runs across midnight."""
    from datetime import UTC, datetime

    today = datetime.now(UTC).date()
    return datetime(today.year, today.month, today.day, 12, tzinfo=UTC).timestamp()


SEED_BASE = _seed_base()


@pytest.fixture
def seeded_ui() -> Iterator[UiProcess]:
    with running_provider() as fake:
        seed(default_store_path(), fake, now=SEED_BASE)
    server = start_ui()
    try:
        yield server
    finally:
        server.stop()


def direct_counts() -> dict[str, object]:
    """Count straight from the store's records (not through jev.ui)."""
    with Store(default_store_path()) as store:
        records = list(store.iter_records())
    by_turn: dict[tuple[str, str, str], list[object]] = {}
    for r in records:
        by_turn.setdefault(r.turn_key(), []).append(r)
    catches = 0
    for rows in by_turn.values():
        kinds = [
            ("S" if (r.action or {}).get("kind") == "supplement" else "")  # type: ignore[attr-defined]
            + ("C" if r.assessment == "complete" else "")  # type: ignore[attr-defined]
            for r in rows
        ]
        joined = "".join(kinds)
        catches += int("S" in joined and "C" in joined[joined.index("S") :])
    verdicts = [r for r in records if r.status == "verdict"]
    return {
        "turns": len(by_turn),
        "audits": len(verdicts),
        "blocks": sum((r.action or {}).get("kind") == "supplement" for r in records),
        "catches": catches,
        "handoffs": sum(
            (r.action or {}).get("kind") == "hand-to-user" and r.assessment == "needs-user"
            for r in records
        ),
        "incomplete": sum(r.status == "incomplete" for r in records),
        "input_tokens": sum((r.usage or {}).get("input_tokens") or 0 for r in records),
        "output_tokens": sum((r.usage or {}).get("output_tokens") or 0 for r in records),
        "verdicts": {
            a: sum(r.assessment == a for r in verdicts)
            for a in ("complete", "omission", "contradiction", "needs-user", "unknown")
        },
    }


def test_turns_and_three_round_chain(
    browser: Browser, seeded_ui: UiProcess, tmp_path: Path
) -> None:
    page = browser.page
    page.goto(seeded_ui.url + "turns")
    rows = page.locator("#turns tbody tr")
    assert rows.count() == SEEDED.turns
    chain_row = page.locator('tr[data-turn="turn-chain"]')
    assert chain_row.locator(".verdict").all_inner_texts() == [
        "omission",
        "contradiction",
        "complete",
    ]
    assert "2/3" in chain_row.inner_text() and "complete" in chain_row.inner_text()

    # filters: verdict, host, profile, session, date range
    page.select_option('select[name="verdict"]', "needs-user")
    page.click("#filters button")
    assert page.locator("#turns tbody tr").count() == 1
    assert page.locator('tr[data-turn="turn-handoff"]').count() == 1
    page.goto(seeded_ui.url + "turns?host=codex")
    assert page.locator("#turns tbody tr").count() == 1
    page.goto(seeded_ui.url + "turns?profile=web")
    assert page.locator("#turns tbody tr").count() == 1
    page.goto(seeded_ui.url + "turns?session=sess-delta")
    assert page.locator("#turns tbody tr").count() == 2
    page.goto(seeded_ui.url + "turns?verdict=incomplete")
    assert page.locator("#turns tbody tr").count() == 2
    from datetime import UTC, datetime

    today = datetime.fromtimestamp(SEED_BASE, UTC).date().isoformat()
    page.goto(seeded_ui.url + f"turns?from={today}&to={today}")
    assert page.locator("#turns tbody tr").count() == 3
    page.goto(seeded_ui.url + "turns?from=not-a-day")
    assert "must be a day" in page.content()

    # the turn page: three rounds, focus highlighted in its context
    page.goto(seeded_ui.url + "turns")
    page.click('tr[data-turn="turn-chain"] a')
    assert page.locator("section.round").count() == 3
    round1 = page.locator("#round-1")
    mark = round1.locator("mark.focus")
    assert mark.count() == 1 and REINDEX in mark.inner_text()
    assert "pending" in mark.inner_text()
    assert round1.locator(".supplement").inner_text().count(REINDEX) == 1
    assert "1/3" in round1.locator(".supplement").inner_text()
    assert '"focus": "T3"' in round1.locator("pre.raw").inner_text()
    round2 = page.locator("#round-2")
    mark2 = round2.locator("mark.focus#focus-A2")
    assert mark2.inner_text().endswith(ANSWER_2_CLAIM)
    # in context: the highlighted sentence sits inside the whole final answer
    answer = mark2.locator("xpath=..").inner_text()
    assert (
        answer.index("three CronJobs")
        < answer.index(ANSWER_2_CLAIM)
        < answer.index("Schedules were")
    )
    assert page.locator("#round-3 mark.focus").count() == 0
    assert "in 1000 · out 20" in page.locator("#round-3 .tokens").inner_text()
    assert page.locator("#round-3 .latency").inner_text().endswith(" ms")
    assert page.locator("#end").inner_text() == "complete"
    screenshot(page, "ui-turn.png", tmp_path)
    assert browser.outside(seeded_ui.origin) == []


def test_overview_equals_direct_count(browser: Browser, seeded_ui: UiProcess) -> None:
    page = browser.page
    page.goto(seeded_ui.url + "overview")
    shown = {
        name: int(page.locator(f'[data-stat="{name}"]').inner_text())
        for name in (
            "turns",
            "audits",
            "blocks",
            "catches",
            "handoffs",
            "incomplete",
            "input_tokens",
            "output_tokens",
        )
    }
    direct = direct_counts()
    assert shown == {k: direct[k] for k in shown}
    # and both equal what the seed wrote by construction
    assert shown == {k: getattr(SEEDED, k) for k in shown}
    verdicts = {
        a: int(page.locator(f'[data-verdict="{a}"]').inner_text())
        for a in ("complete", "omission", "contradiction", "needs-user", "unknown")
    }
    assert verdicts == direct["verdicts"]
    assert page.locator('[data-why="over-budget"]').inner_text() == "1"
    assert page.locator("svg.chart").count() == 3
    assert page.locator("svg.chart rect").count() > 0
    assert page.locator('[data-stat="p50"]').inner_text().endswith("ms")
    page.goto(seeded_ui.url + "overview?profile=web")
    assert page.locator('[data-stat="handoffs"]').inner_text() == "1"
    assert page.locator('[data-stat="blocks"]').inner_text() == "0"
    assert browser.outside(seeded_ui.origin) == []


def test_settings_screenshot(browser: Browser, seeded_ui: UiProcess, tmp_path: Path) -> None:
    """The README's settings picture: a profile with saved values and a judge test."""
    page = browser.page
    page.goto(seeded_ui.url + "settings?profile=default")
    page.click("#enabled-toggle")
    page.fill("#new-profile", "web")
    page.click("#create-profile button")
    page.fill("#f-max_supplements", "2")
    page.click("#save")
    page.click("#test-judge")
    assert page.locator("#jt-verdict").inner_text() == "omission"
    assert os.path.exists(str(default_store_path()))
    screenshot(page, "ui-settings.png", tmp_path)
    assert browser.outside(seeded_ui.origin) == []
