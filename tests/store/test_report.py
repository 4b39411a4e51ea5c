"""``jev report`` on both backends: exact figures for a known set of records, the
``--by`` groups, prices, JSON, and flat memory in the number of records."""

from __future__ import annotations

import json
import time
import tracemalloc
from dataclasses import replace
from pathlib import Path

import pytest

from jev.base.errors import UsageError
from jev.base.record import iso_utc
from jev.measure.report import LatencyHistogram, Report, load_prices
from jev.store import Store
from tests.store.helpers import DAY, DbTarget, three_round_turn
from tests.store.test_records_cli import jev


def _seed(store: Store, now: float) -> None:
    """Day 1: a caught turn (omission, contradiction, complete) on claude-code.
    Day 2 on codex, profile web: a needs-user hand-off, an exhausted budget and one
    incomplete audit (timeout)."""
    for record in three_round_turn(now - 2 * DAY, session="s1", turn="t1"):
        store.add_record(record)
    base = three_round_turn(now - DAY, session="s2", turn="t2")[0]
    day2 = iso_utc(now - DAY)
    common = {"host": "codex", "profile": "web", "created_at": day2}
    store.add_record(
        replace(base, **common, turn="t2", assessment="needs-user",
                action={"kind": "hand-to-user", "round": 1, "max_supplements": 3, "reason": ""})
    )  # fmt: skip
    store.add_record(
        replace(base, **common, turn="t3", assessment="omission", latency_ms=3000.0,
                action={"kind": "exhausted", "round": 4, "max_supplements": 3, "reason": ""})
    )  # fmt: skip
    store.add_record(
        replace(base, **common, turn="t4", status="incomplete", assessment=None, focus=None,
                error_kind="timeout", reason="judge timed out", usage=None, latency_ms=0.0,
                attempts=2, supplement_text=None,
                action={"kind": "incomplete", "round": 1, "max_supplements": 3, "reason": "x"})
    )  # fmt: skip


def test_report_figures_on_both_backends(db: DbTarget, jev_home: Path, tmp_path: Path) -> None:
    now = time.time()
    with Store(db(jev_home / "jev.sqlite3")) as store:
        _seed(store, now)
        old = replace(three_round_turn(now - 30 * DAY, session="old", turn="old")[0])
        store.add_record(old, records_days=60)
    prices = tmp_path / "prices.toml"
    prices.write_text(
        '["openai/deepseek-chat"]\ninput_per_million = 1.0\noutput_per_million = 10.0\n', "utf-8"
    )
    out = jev(jev_home, "report", "--json", "--by", "host", "--prices", str(prices))
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    total = data["total"]
    assert data["records"] == 6  # the 30-day-old record is outside the default 7 days
    assert total["audits"] == 6
    assert total["verdicts"] == {"complete": 1, "contradiction": 1, "needs-user": 1, "omission": 2}
    assert (total["blocks"], total["catches"]) == (2, 1)
    assert (total["needs_user"], total["exhausted"]) == (1, 1)
    assert total["incomplete"] == {"timeout": 1}
    tokens_in = (901 + 902 + 903) + 2 * 901
    assert total["tokens"] == {"input": tokens_in, "output": 12 * 5}
    assert total["cost_usd"] == pytest.approx((tokens_in * 1.0 + 60 * 10.0) / 1e6)
    assert total["latency_ms"]["n"] == 5
    assert 412.5 <= total["latency_ms"]["p50"] <= 412.5 * 1.05
    assert 3000 <= total["latency_ms"]["p95"] <= 3000 * 1.05
    assert set(data["groups"]) == {"claude-code", "codex"}
    assert data["groups"]["claude-code"]["catches"] == 1
    assert data["groups"]["codex"]["audits"] == 3
    text = jev(jev_home, "report", "--by", "day", "--since", "60d")
    assert text.returncode == 0, text.stderr
    assert "7 records" in text.stdout and "· by day" in text.stdout
    assert "verdicts: complete 1, contradiction 1, needs-user 1, omission 3" in text.stdout
    assert "incomplete by reason: timeout 1" in text.stdout
    by_profile = json.loads(jev(jev_home, "report", "--by", "project", "--json").stdout)
    assert set(by_profile["groups"]) == {"default", "web"}


def test_report_store_url_option(tmp_path: Path, jev_home: Path) -> None:
    other = tmp_path / "elsewhere.sqlite3"
    with Store(other) as store:
        _seed(store, time.time())
    local = json.loads(jev(jev_home, "report", "--json").stdout)
    assert local["records"] == 0
    remote = json.loads(
        jev(jev_home, "report", "--json", "--store-url", f"sqlite:///{other}").stdout
    )
    assert remote["records"] == 6


def test_bad_prices_and_since_are_usage_errors(tmp_path: Path, jev_home: Path) -> None:
    bad = tmp_path / "p.toml"
    bad.write_text('[m]\ninput_per_million = "cheap"\n', "utf-8")
    with pytest.raises(UsageError, match="input_per_million and output_per_million"):
        load_prices(bad)
    result = jev(jev_home, "report", "--prices", str(bad))
    assert result.returncode == 2 and "jev:" in result.stderr
    assert jev(jev_home, "report", "--since", "whenever").returncode == 2


def test_latency_histogram_percentiles_are_within_five_percent() -> None:
    hist = LatencyHistogram()
    values = [float(v) for v in range(1, 10_001)]
    for v in values:
        hist.add(v)
    for q, exact in ((0.5, 5_000.0), (0.95, 9_500.0)):
        got = hist.percentile(q)
        assert got is not None and exact <= got <= exact * 1.05 + 1


@pytest.mark.slow  # traces the memory of 33,000 records twice
def test_report_memory_is_flat_in_the_number_of_records() -> None:
    template = three_round_turn()

    def stream(n: int):  # many turns, each a full three-round chain
        for i in range(n // 3):
            for record in template:
                yield replace(record, turn=f"t{i}")

    def peak(n: int) -> int:
        tracemalloc.start()
        Report(by="day").add_all(stream(n))
        _, top = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        return top

    small, large = peak(3_000), peak(30_000)
    assert large < small * 2  # ten times the records, not ten times the memory
