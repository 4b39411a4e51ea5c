"""Agreement metrics shared by ``jev eval`` and ``jev replay --live`` (pure, stdlib).

:class:`Confusion` is a confusion matrix of reference vs judged labels with per-class
counts, recall ("accuracy per assessment"), precision, F1, accuracy, macro-F1 and
Cohen's κ; :func:`percentile` is a nearest-rank percentile; :func:`format_confusion`
prints a matrix as aligned text.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from jev.base.domain import ASSESSMENTS

__all__ = ["INCOMPLETE", "ClassStats", "Confusion", "format_confusion", "percentile"]

#: The judged label of an audit that did not produce a verdict.
INCOMPLETE = "incomplete"


@dataclass(frozen=True, slots=True)
class ClassStats:
    """Counts and scores of one class of a :class:`Confusion`.

    Attributes:
        label: the class (an assessment).
        support: items whose expected (reference) label is this class.
        predicted: items judged as this class.
        correct: items expected and judged as this class.
        recall: ``correct / support`` (the "accuracy per assessment"), ``None`` when
            ``support == 0``.
        precision: ``correct / predicted``, ``None`` when ``predicted == 0``.
        f1: harmonic mean of precision and recall (0.0 when both are 0 or undefined
            with a non-empty class).
    """

    label: str
    support: int
    predicted: int
    correct: int
    recall: float | None
    precision: float | None
    f1: float

    def to_json(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "support": self.support,
            "predicted": self.predicted,
            "correct": self.correct,
            "recall": self.recall,
            "precision": self.precision,
            "f1": self.f1,
        }


class Confusion:
    """A confusion matrix of reference labels (rows) against judged labels (columns).

    Args:
        labels: the row/column labels in display order (default: the five
            assessments of design.md §5 plus :data:`INCOMPLETE`). Labels added with
            :meth:`add` that are not listed are appended.

    Cohen's κ and accuracy count every item; macro-F1 averages over the assessment
    classes that occur as reference or judged label (:data:`INCOMPLETE` is never a
    class of its own for F1 — it only lowers recall).
    """

    def __init__(self, labels: Sequence[str] = (*ASSESSMENTS, INCOMPLETE)) -> None:
        self.labels: list[str] = list(labels)
        self._counts: dict[tuple[str, str], int] = {}
        self.total = 0

    def add(self, expected: str, judged: str, count: int = 1) -> None:
        """Count ``count`` items with reference label ``expected`` judged as ``judged``."""
        for label in (expected, judged):
            if label not in self.labels:
                self.labels.append(label)
        key = (expected, judged)
        self._counts[key] = self._counts.get(key, 0) + count
        self.total += count

    def count(self, expected: str, judged: str) -> int:
        """Items with reference ``expected`` judged as ``judged``."""
        return self._counts.get((expected, judged), 0)

    def matrix(self) -> list[list[int]]:
        """Rows = reference labels, columns = judged labels, both in :attr:`labels` order."""
        return [[self.count(e, j) for j in self.labels] for e in self.labels]

    def row_total(self, expected: str) -> int:
        return sum(self.count(expected, j) for j in self.labels)

    def column_total(self, judged: str) -> int:
        return sum(self.count(e, judged) for e in self.labels)

    @property
    def agreed(self) -> int:
        """Items on the diagonal."""
        return sum(self.count(label, label) for label in self.labels)

    def accuracy(self) -> float | None:
        """Share of items on the diagonal (``None`` with no items)."""
        return None if self.total == 0 else self.agreed / self.total

    def class_stats(self, label: str) -> ClassStats:
        """Per-class counts, recall, precision and F1 of ``label``."""
        support = self.row_total(label)
        predicted = self.column_total(label)
        correct = self.count(label, label)
        recall = correct / support if support else None
        precision = correct / predicted if predicted else None
        p, r = precision or 0.0, recall or 0.0
        f1 = 2 * p * r / (p + r) if p + r > 0 else 0.0
        return ClassStats(label, support, predicted, correct, recall, precision, f1)

    def classes(self) -> list[str]:
        """Assessment classes that occur as reference or judged label, display order."""
        return [
            label
            for label in self.labels
            if label != INCOMPLETE and (self.row_total(label) or self.column_total(label))
        ]

    def macro_f1(self) -> float | None:
        """Unweighted mean F1 over :meth:`classes` (``None`` with no items)."""
        classes = self.classes()
        if not classes:
            return None
        return sum(self.class_stats(c).f1 for c in classes) / len(classes)

    def kappa(self) -> float | None:
        """Cohen's κ = (pₒ − pₑ) / (1 − pₑ) over every item.

        ``None`` when undefined: no items, or chance agreement pₑ = 1 (every item in
        one and the same class on both sides).
        """
        n = self.total
        if n == 0:
            return None
        observed = self.agreed / n
        chance = sum(self.row_total(lab) * self.column_total(lab) for lab in self.labels) / (n * n)
        if math.isclose(chance, 1.0):
            return None
        return (observed - chance) / (1.0 - chance)

    def to_json(self) -> dict[str, Any]:
        """``{labels, matrix, total, accuracy, macro_f1, kappa, classes: [ClassStats]}``."""
        return {
            "labels": list(self.labels),
            "matrix": self.matrix(),
            "total": self.total,
            "accuracy": self.accuracy(),
            "macro_f1": self.macro_f1(),
            "kappa": self.kappa(),
            "classes": [self.class_stats(c).to_json() for c in self.classes()],
        }


def percentile(values: Sequence[float], pct: float) -> float | None:
    """Nearest-rank percentile (``pct`` in 0 … 100) of ``values``; ``None`` when empty.

    Raises:
        ValueError: ``pct`` outside 0 … 100.
    """
    if not 0 <= pct <= 100:
        raise ValueError(f"percentile must be within 0 … 100, got {pct}")
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(pct / 100 * len(ordered)))
    return float(ordered[rank - 1])


def format_confusion(matrix: Confusion) -> list[str]:
    """The confusion matrix as aligned text lines (rows: reference, columns: judged)."""
    labels = matrix.labels
    width = max(len(label) for label in labels) + 2
    head = "expected \\ judged".ljust(width + 4) + "".join(lab.rjust(width) for lab in labels)
    lines = [head]
    for expected in labels:
        if not matrix.row_total(expected) and expected == INCOMPLETE:
            continue
        row = "".join(str(matrix.count(expected, j)).rjust(width) for j in labels)
        lines.append(expected.ljust(width + 4) + row)
    return lines
