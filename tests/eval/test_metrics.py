"""Metrics of jev.measure.evaluate checked against hand-computed values."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jev.base.domain import Position
from jev.base.errors import UsageError
from jev.measure.evaluate import (
    INCOMPLETE,
    Confusion,
    ExpectedFocus,
    focus_hit,
    load_case,
    load_cases,
    load_prices,
    percentile,
)
from tests.conftest import FIXTURES


def test_confusion_scores_match_hand_computation() -> None:
    # 10 items: complete 4/5 right (1 judged omission), omission 3/4 right
    # (1 judged complete), unknown 0/1 (judged incomplete).
    m = Confusion()
    m.add("complete", "complete", 4)
    m.add("complete", "omission")
    m.add("omission", "omission", 3)
    m.add("omission", "complete")
    m.add("unknown", INCOMPLETE)
    assert m.total == 10 and m.agreed == 7
    assert m.accuracy() == pytest.approx(0.7)
    c = m.class_stats("complete")
    assert (c.support, c.predicted, c.correct) == (5, 5, 4)
    assert c.recall == pytest.approx(0.8) and c.precision == pytest.approx(0.8)
    o = m.class_stats("omission")
    assert o.recall == pytest.approx(0.75) and o.precision == pytest.approx(0.75)
    u = m.class_stats("unknown")
    assert u.recall == 0.0 and u.precision is None and u.f1 == 0.0
    assert m.classes() == ["complete", "omission", "unknown"]
    assert m.macro_f1() == pytest.approx((0.8 + 0.75 + 0.0) / 3)
    # p_o = 0.7; p_e = (5*5 + 4*4 + 1*0 + 0*1) / 100 = 0.41; kappa = 0.29 / 0.59
    assert m.kappa() == pytest.approx(0.29 / 0.59)
    assert m.matrix()[0][:2] == [4, 1]


def test_kappa_edge_cases() -> None:
    assert Confusion().kappa() is None and Confusion().accuracy() is None
    same = Confusion()
    same.add("complete", "complete", 5)
    assert same.kappa() is None  # chance agreement is 1: undefined
    opposite = Confusion()
    opposite.add("complete", "omission", 2)
    opposite.add("omission", "complete", 2)
    assert opposite.kappa() == pytest.approx(-1.0)


def test_percentile_nearest_rank() -> None:
    values = [float(v) for v in range(1, 101)]
    assert percentile(values, 50) == 50.0
    assert percentile(values, 95) == 95.0
    assert percentile([3.0, 1.0, 2.0], 50) == 2.0
    assert percentile([], 50) is None
    with pytest.raises(ValueError):
        percentile(values, 101)


def test_focus_hit_kind_substring_and_alt() -> None:
    todo = Position("T2", "todo", 2, "Run the integration tests", status="pending")
    whole = Position("all", "all", 0, "")
    label = (ExpectedFocus("todo", "integration"), ExpectedFocus("answer", "42 passed"))
    assert focus_hit(todo, label)
    assert not focus_hit(Position("T1", "todo", 1, "Fix the parser"), label)
    assert focus_hit(Position("A3", "answer", 3, "Result: 42 passed."), label)
    assert not focus_hit(Position("R1", "request", 1, "integration"), label)
    assert focus_hit(whole, (ExpectedFocus("whole"),))
    assert not focus_hit(whole, (ExpectedFocus("none"),))
    assert not focus_hit(None, label)


def test_cases_load_and_bad_cases_are_usage_errors(tmp_path: Path) -> None:
    cases = load_cases(FIXTURES / "cases")
    assert len(cases) == 64
    assert {c.expected for c in cases} == {
        "complete",
        "omission",
        "contradiction",
        "needs-user",
        "unknown",
    }
    good = json.loads((FIXTURES / "cases" / cases[0].path.name).read_text("utf-8"))
    bad = dict(good, expected={"assessment": "done", "focus": {"kind": "none"}})
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad), "utf-8")
    with pytest.raises(UsageError, match=r"expected\.assessment"):
        load_case(path)
    path.write_text("{", "utf-8")
    with pytest.raises(UsageError, match="not valid JSON"):
        load_case(path)
    with pytest.raises(UsageError, match="not a folder of labelled cases"):
        load_cases(tmp_path / "missing")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(UsageError, match="holds no labelled case"):
        load_cases(empty)


def test_price_table(tmp_path: Path) -> None:
    path = tmp_path / "prices.toml"
    path.write_text('currency = "EUR"\n[models."m-1"]\ninput = 2.0\noutput = 8\n', "utf-8")
    table = load_prices(path)
    assert table.currency == "EUR"
    assert table.cost("m-1", 1_000_000, 500_000) == pytest.approx(6.0)
    assert table.cost("other", 1, 1) is None
    path.write_text('[models."m-1"]\ninput = "cheap"\n', "utf-8")
    with pytest.raises(UsageError, match="numeric input and output"):
        load_prices(path)
