"""Small inline SVG charts for the overview page (no script, no external asset).

Each function returns SVG markup as :class:`markupsafe.Markup` (safe to place in a
template): every text inside is escaped here. Colours come from CSS classes
(``bar-<series>`` in ``jev.css``), so the page's Content-Security-Policy needs no
inline styles.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from markupsafe import Markup, escape

__all__ = ["axis_top", "histogram", "nice_max", "stacked_bars"]

_W, _H = 480, 210
_LEFT, _RIGHT, _TOP, _BOTTOM = 44, 10, 12, 28


def nice_max(value: float) -> float:
    """The smallest 1/2/5×10^k at or above ``value`` (1 for 0), for the y axis."""
    if value <= 0:
        return 1.0
    exp = math.floor(math.log10(value))
    for step in (1, 2, 5, 10):
        top = step * 10.0**exp
        if top >= value:
            return top
    return 10.0 ** (exp + 1)  # pragma: no cover - the loop always returns


def axis_top(value: float, *, ticks: int = 4, whole: bool = True) -> float:
    """Top of a y axis with ``ticks`` equal steps of 1/2/5×10^k covering ``value``.

    ``whole``: steps are at least 1 (counts), so tick labels are whole numbers.
    """
    step = nice_max(value / ticks) if value > 0 else 1.0
    if whole:
        step = max(1.0, step)
    return step * ticks


def _num(value: float) -> str:
    if value >= 1_000_000:
        return f"{value / 1_000_000:g}M"
    if value >= 1000:
        return f"{value / 1000:g}k"
    return f"{value:g}"


def _frame(top: float, title: str) -> list[str]:
    parts = [
        f'<svg class="chart" viewBox="0 0 {_W} {_H}" role="img" aria-label="{escape(title)}" '
        'xmlns="http://www.w3.org/2000/svg">',
        f"<title>{escape(title)}</title>",
    ]
    plot_h = _H - _TOP - _BOTTOM
    for i in range(5):
        y = _TOP + plot_h * i / 4
        value = top * (4 - i) / 4
        parts.append(
            f'<line class="grid" x1="{_LEFT}" y1="{y:.1f}" x2="{_W - _RIGHT}" y2="{y:.1f}"/>'
        )
        parts.append(
            f'<text x="{_LEFT - 6}" y="{y + 4:.1f}" text-anchor="end">{_num(value)}</text>'
        )
    parts.append(
        f'<line class="axis" x1="{_LEFT}" y1="{_H - _BOTTOM}" x2="{_W - _RIGHT}" '
        f'y2="{_H - _BOTTOM}"/>'
    )
    return parts


def stacked_bars(
    labels: Sequence[str], series: Sequence[tuple[str, Sequence[float]]], *, title: str
) -> Markup:
    """Stacked bars: one bar per label (e.g. a day), one segment per series.

    Args:
        labels: x-axis labels (ISO days are shortened to ``MM-DD``).
        series: ``(name, values)`` with one value per label; the name picks the CSS
            class ``bar-<name>``.
        title: the chart's accessible title.

    Returns:
        SVG markup; an empty-state SVG with the text "no data" when every value is 0.
    """
    totals = [sum(vals[i] for _, vals in series) for i in range(len(labels))]
    top = axis_top(max(totals, default=0))
    parts = _frame(top, title)
    plot_w = _W - _LEFT - _RIGHT
    plot_h = _H - _TOP - _BOTTOM
    if not labels or not any(totals):
        parts.append(
            f'<text x="{_LEFT + plot_w / 2:.0f}" y="{_TOP + plot_h / 2:.0f}" '
            'text-anchor="middle">no data</text></svg>'
        )
        return Markup("".join(parts))
    slot = plot_w / len(labels)
    bar = max(2.0, min(36.0, slot * 0.7))
    every = max(1, math.ceil(len(labels) / 12))
    for i, label in enumerate(labels):
        x = _LEFT + slot * i + (slot - bar) / 2
        y = float(_H - _BOTTOM)
        for name, values in series:
            value = values[i]
            if value <= 0:
                continue
            h = plot_h * value / top
            y -= h
            parts.append(
                f'<rect class="bar-{escape(name)}" x="{x:.1f}" y="{y:.1f}" width="{bar:.1f}" '
                f'height="{h:.1f}"><title>{escape(label)}: {escape(name)} {_num(value)}'
                "</title></rect>"
            )
        if i % every == 0:
            short = label[5:] if len(label) == 10 and label[4] == "-" else label
            parts.append(
                f'<text x="{x + bar / 2:.1f}" y="{_H - _BOTTOM + 16}" text-anchor="middle">'
                f"{escape(short)}</text>"
            )
    parts.append("</svg>")
    return Markup("".join(parts))


def histogram(
    values: Sequence[float],
    *,
    marks: Sequence[tuple[str, float | None]] = (),
    title: str,
    bins: int = 12,
) -> Markup:
    """A histogram of ``values`` with vertical marker lines (e.g. p50, p95).

    Args:
        values: the numbers (e.g. latencies in ms).
        marks: ``(label, value)`` lines drawn at ``value`` (skipped when ``None``).
        title: the chart's accessible title.
        bins: number of equal-width bins from 0 to the largest value.
    """
    high = nice_max(max(values, default=0))
    width = high / bins
    counts = [0] * bins
    for v in values:
        counts[min(bins - 1, int(v / width))] += 1
    top = axis_top(max(counts, default=0))
    parts = _frame(top, title)
    plot_w = _W - _LEFT - _RIGHT
    plot_h = _H - _TOP - _BOTTOM
    if not values:
        parts.append(
            f'<text x="{_LEFT + plot_w / 2:.0f}" y="{_TOP + plot_h / 2:.0f}" '
            'text-anchor="middle">no judge calls</text></svg>'
        )
        return Markup("".join(parts))
    slot = plot_w / bins
    for i, count in enumerate(counts):
        x = _LEFT + slot * i + 1
        if count:
            h = plot_h * count / top
            parts.append(
                f'<rect class="bar-plain" x="{x:.1f}" y="{_H - _BOTTOM - h:.1f}" '
                f'width="{slot - 2:.1f}" height="{h:.1f}"><title>{_num(i * width)}–'
                f"{_num((i + 1) * width)} ms: {count}</title></rect>"
            )
    for i in range(0, bins + 1, 3):
        parts.append(
            f'<text x="{_LEFT + slot * i:.1f}" y="{_H - _BOTTOM + 16}" text-anchor="middle">'
            f"{_num(i * width)}</text>"
        )
    for n, (label, value) in enumerate(marks):
        if value is None:
            continue
        x = _LEFT + plot_w * min(value, high) / high
        # the first label sits left of its line, the others right: p50/p95 never overlap
        tx, anchor = (x - 3, "end") if n == 0 else (x + 3, "start")
        parts.append(
            f'<line class="mark-line" x1="{x:.1f}" y1="{_TOP}" x2="{x:.1f}" y2="{_H - _BOTTOM}"/>'
            f'<text class="mark-label" x="{tx:.1f}" y="{_TOP + 10}" text-anchor="{anchor}">'
            f"{escape(label)}</text>"
        )
    parts.append("</svg>")
    return Markup("".join(parts))
