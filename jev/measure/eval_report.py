"""``jev eval`` output: the text table, the cost line and the self-contained HTML page.

:func:`format_table` prints an :class:`~jev.measure.evaluate.EvalReport`; :func:`render_html`
renders ``prompts/eval_report.html.j2`` (inline SVG heat map and bars, no plotting
dependency).
"""

from __future__ import annotations

from typing import Any

from jev.base.domain import ASSESSMENTS
from jev.measure.evaluate import CaseResult, EvalReport
from jev.measure.metrics import INCOMPLETE, format_confusion, percentile
from jev.pipeline.render import render_template

__all__ = ["cost_text", "format_table", "html_context", "render_html"]


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value * 100:.1f}%"


def _num(value: float | None, digits: int = 3) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def _count(value: int | None) -> str:
    return "n/a" if value is None else f"{value:,}"


def _ms(value: float | None) -> str:
    return "n/a" if value is None else f"{value:,.0f} ms"


def cost_text(report: EvalReport) -> str:
    """Human text of the cost estimate ("free (offline heuristic)", "0.0123 USD", …)."""
    if report.judge.heuristic:
        return "free (offline heuristic)"
    amount = report.cost()
    if amount is None:
        tin, tout = report.tokens()
        if tin is None and tout is None:
            return "n/a (no token usage reported)"
        return f"n/a (no price for model {report.judge.model!r}; give --prices FILE)"
    return f"{amount:.4f} {report.prices.currency}"


def _incomplete_lines(report: EvalReport) -> list[str]:
    """Why audits did not complete: counts by error kind and the first reason of each."""
    kinds: dict[str, list[CaseResult]] = {}
    for r in report.results:
        if r.judged == INCOMPLETE:
            kinds.setdefault(r.error_kind or "unknown", []).append(r)
    return [
        f"  incomplete ({kind}) ×{len(rs)}: {rs[0].reason}" for kind, rs in sorted(kinds.items())
    ]


def format_table(report: EvalReport) -> str:
    """The terminal report: per-class table, summary lines, confusion matrix."""
    judge = report.judge
    model = f" {judge.model}" if judge.model else ""
    heuristic = " (heuristic)" if judge.heuristic else ""
    matrix = report.confusion()
    lines = [
        f"Jev eval: {len(report.results)} cases from {report.corpus} · judge "
        f"{judge.provider}{model}{heuristic}",
        "",
        f"{'assessment':<15}{'cases':>6}{'judged':>8}{'right':>7}{'recall':>9}"
        f"{'precision':>11}{'F1':>7}",
    ]
    for label in ASSESSMENTS:
        s = matrix.class_stats(label)
        lines.append(
            f"{label:<15}{s.support:>6}{s.predicted:>8}{s.correct:>7}{_pct(s.recall):>9}"
            f"{_pct(s.precision):>11}{s.f1:>7.3f}"
        )
    lat = report.latencies()
    tin, tout = report.tokens()
    hits = sum(1 for r in report.results if r.hit)
    lines += [
        "",
        f"accuracy {_pct(matrix.accuracy())} · macro-F1 {_num(matrix.macro_f1())} · "
        f"Cohen's κ {_num(matrix.kappa())}",
        f"focus hit rate {_pct(report.focus_hit_rate())} ({hits}/{report.verdicts} verdicts) · "
        f"assessment and focus right {_pct(report.strict_accuracy())}",
        f"response errors {_pct(report.response_error_rate())} of cases "
        f"({report.failed_calls()} of {report.calls()} judge calls failed)",
        *_incomplete_lines(report),
        f"latency p50 {_ms(percentile(lat, 50))} · p95 {_ms(percentile(lat, 95))} · "
        f"tokens in {'n/a' if tin is None else f'{tin:,}'} out "
        f"{'n/a' if tout is None else f'{tout:,}'} · cost {cost_text(report)}",
        "",
        "confusion matrix (rows: labelled, columns: judged)",
        *format_confusion(matrix),
    ]
    return "\n".join(lines)


def _heat_color(value: int, peak: int, diagonal: bool) -> str:
    """A fill colour for one heat-map cell: white → blue on the diagonal, white → red off it."""
    if value == 0 or peak == 0:
        return "#f7f7f7"
    share = 0.15 + 0.85 * value / peak
    base = (33, 102, 172) if diagonal else (178, 24, 43)
    r, g, b = (round(255 - (255 - c) * share) for c in base)
    return f"#{r:02x}{g:02x}{b:02x}"


def html_context(report: EvalReport) -> dict[str, Any]:
    """Everything ``eval_report.html.j2`` shows, precomputed (geometry in SVG pixels)."""
    matrix = report.confusion()
    labels = [lab for lab in matrix.labels if lab != INCOMPLETE or matrix.column_total(lab)]
    peak = max((matrix.count(e, j) for e in labels for j in labels), default=0)
    cell, left, top = 64, 130, 110
    cells = []
    for row, expected in enumerate(labels):
        for col, judged in enumerate(labels):
            value = matrix.count(expected, judged)
            fill = _heat_color(value, peak, expected == judged)
            cells.append(
                {
                    "x": left + col * cell,
                    "y": top + row * cell,
                    "value": value,
                    "fill": fill,
                    "text_fill": "#ffffff" if value and value / max(peak, 1) > 0.55 else "#222222",
                    "expected": expected,
                    "judged": judged,
                }
            )
    bars = []
    bar_height, gap = 22, 14
    for i, label in enumerate(ASSESSMENTS):
        s = matrix.class_stats(label)
        bars.append(
            {
                "label": label,
                "y": 30 + i * (2 * bar_height + gap),
                "recall": s.recall,
                "precision": s.precision,
                "recall_w": round(300 * (s.recall or 0.0), 1),
                "precision_w": round(300 * (s.precision or 0.0), 1),
                "recall_text": _pct(s.recall),
                "precision_text": _pct(s.precision),
                "support": s.support,
            }
        )
    lat = report.latencies()
    tin, tout = report.tokens()
    return {
        "report": report,
        "judge": report.judge,
        "labels": labels,
        "cells": cells,
        "cell": cell,
        "left": left,
        "top": top,
        "heat_width": left + cell * len(labels) + 20,
        "heat_height": top + cell * len(labels) + 20,
        "bars": bars,
        "bar_height": bar_height,
        "bars_height": 30 + len(ASSESSMENTS) * (2 * bar_height + gap) + 10,
        "summary": [
            ("cases", str(len(report.results))),
            ("accuracy", _pct(matrix.accuracy())),
            ("macro-F1", _num(matrix.macro_f1())),
            ("Cohen's κ", _num(matrix.kappa())),
            ("focus hit rate", _pct(report.focus_hit_rate())),
            ("response-error rate", _pct(report.response_error_rate())),
            ("latency p50 / p95", f"{_ms(percentile(lat, 50))} / {_ms(percentile(lat, 95))}"),
            ("tokens in / out", f"{_count(tin)} / {_count(tout)}"),
            ("estimated cost", cost_text(report)),
        ],
        "misses": [r for r in report.results if r.miss],
    }


def render_html(report: EvalReport) -> str:
    """The self-contained HTML page of the report (``prompts/eval_report.html.j2``).

    Inline CSS and SVG only: the confusion matrix as a heat map
    (``<svg id="confusion-heatmap">``), per-class recall/precision bars
    (``<svg id="class-bars">``) and the list of misses with their quotes
    (``<table id="misses">``). Every text from the corpus or the judge is HTML-escaped.
    """
    return render_template("eval_report.html.j2", **html_context(report))
