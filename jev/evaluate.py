"""Measure a judge on a labelled corpus of turns, and the agreement metrics replay shares
(SPEC §11 "a labelled corpus of turns measures a judge").

Two layers:

* **metrics** (pure, stdlib): :class:`Confusion` (a confusion matrix of expected vs
  judged labels) with per-class counts, recall ("accuracy per assessment"), precision,
  F1, accuracy, macro-F1 and Cohen's κ; :func:`percentile`; :func:`focus_hit`.
  ``jev replay --live`` uses the same :class:`Confusion` for its agreement report.
* **evaluation**: :func:`load_cases` reads a corpus folder (``tests/fixtures/cases``
  format, see ``/shared/cases/README.md``), :func:`evaluate` runs every case through
  the one live audit path (:func:`jev.auditor.run_audit`) and returns an
  :class:`EvalReport`; :func:`format_table` prints it, :meth:`EvalReport.to_json`
  serialises it and :func:`render_html` renders the self-contained HTML page
  (``prompts/eval_report.html.j2``: inline SVG heat map and bars, no plotting
  dependency).

A case whose audit ends ``incomplete`` (response error after the technical retries,
over budget) is judged ``incomplete``: an extra column of the confusion matrix,
counted wrong for accuracy and recall, and reported as the response-error rate.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jev.auditor import run_audit
from jev.domain import ASSESSMENTS, Material, Position
from jev.errors import UsageError

if TYPE_CHECKING:
    from jev.domain import AuditOutcome, JudgeInfo, Settings
    from jev.judges import Judge

__all__ = [
    "INCOMPLETE",
    "KIND_MAP",
    "Case",
    "CaseResult",
    "ClassStats",
    "Confusion",
    "EvalReport",
    "ExpectedFocus",
    "PriceTable",
    "evaluate",
    "focus_hit",
    "format_table",
    "load_case",
    "load_cases",
    "load_prices",
    "percentile",
    "render_html",
]

#: The judged label of a case whose audit did not produce a verdict.
INCOMPLETE = "incomplete"
#: Labelled focus kinds (corpus README) -> position kinds (SPEC §4).
KIND_MAP: dict[str, str] = {
    "request": "request",
    "todo": "todo",
    "answer": "answer",
    "none": "none",
    "whole": "all",
}


# ---------------------------------------------------------------------------- metrics


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
            assessments of SPEC §5 plus :data:`INCOMPLETE`). Labels added with
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


# ---------------------------------------------------------------------------- corpus


@dataclass(frozen=True, slots=True)
class ExpectedFocus:
    """One acceptable focus: a labelled position kind (``request|todo|answer|none|whole``)
    and a substring the quote must contain (``None`` for ``none``/``whole``)."""

    kind: str
    contains: str | None = None

    @property
    def position_kind(self) -> str:
        """The SPEC §4 position kind (``whole`` -> ``all``)."""
        return KIND_MAP[self.kind]

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "contains": self.contains}


@dataclass(frozen=True, slots=True)
class Case:
    """One labelled turn of the corpus.

    Attributes:
        id: the case id (file stem when the file has none).
        path: where it was read from.
        lang: the labelled language (``en``/``zh``/"").
        material: request, Todo list, final answer.
        expected: the labelled assessment.
        focus: the labelled focus followed by its ``alt`` entries.
        rationale: why the label (free text).
    """

    id: str
    path: Path
    lang: str
    material: Material
    expected: str
    focus: tuple[ExpectedFocus, ...]
    rationale: str = ""


def _focus_from(data: Any, where: str) -> ExpectedFocus:
    if not isinstance(data, Mapping) or data.get("kind") not in KIND_MAP:
        raise UsageError(
            f"{where}: a focus needs a kind among {', '.join(KIND_MAP)}; fix the case file"
        )
    contains = data.get("contains")
    if contains is not None and not isinstance(contains, str):
        raise UsageError(f"{where}: focus.contains must be a string or null; fix the case file")
    return ExpectedFocus(str(data["kind"]), contains)


def load_case(path: Path) -> Case:
    """Read one labelled case file (corpus README format).

    Raises:
        UsageError: unreadable file, invalid JSON, or a missing/invalid ``request``,
            ``todos``, ``final_answer``, ``expected.assessment`` or ``expected.focus``;
            the message names the file.
    """
    where = str(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read the case {where} ({exc}); check the path") from None
    except json.JSONDecodeError as exc:
        raise UsageError(f"the case {where} is not valid JSON ({exc.msg}); fix it") from None
    if not isinstance(data, dict):
        raise UsageError(f"the case {where} must hold a JSON object")
    request = data.get("request")
    todos = data.get("todos")
    if not isinstance(request, list) or not all(isinstance(r, str) for r in request):
        raise UsageError(f"{where}: request must be a list of strings; fix the case file")
    if not isinstance(todos, list) or not all(
        isinstance(t, dict)
        and isinstance(t.get("content"), str)
        and isinstance(t.get("status"), str)
        for t in todos
    ):
        raise UsageError(
            f"{where}: todos must be a list of {{content, status}} objects; fix the case file"
        )
    if not isinstance(data.get("final_answer"), str):
        raise UsageError(f"{where}: final_answer must be a string; fix the case file")
    expected = data.get("expected")
    if not isinstance(expected, dict) or expected.get("assessment") not in ASSESSMENTS:
        raise UsageError(
            f"{where}: expected.assessment must be one of {', '.join(ASSESSMENTS)}; "
            "fix the case file"
        )
    main = _focus_from(expected.get("focus"), where)
    alts_raw = (expected.get("focus") or {}).get("alt") or []
    if not isinstance(alts_raw, list):
        raise UsageError(f"{where}: expected.focus.alt must be a list; fix the case file")
    alts = tuple(_focus_from(a, where) for a in alts_raw)
    return Case(
        id=str(data.get("id") or path.stem),
        path=path,
        lang=str(data.get("lang") or ""),
        material=Material.from_json(data),
        expected=str(expected["assessment"]),
        focus=(main, *alts),
        rationale=str(data.get("rationale") or ""),
    )


def load_cases(folder: Path) -> list[Case]:
    """Every ``*.json`` case of ``folder`` (sorted by file name).

    Raises:
        UsageError: ``folder`` is not a folder, holds no case file, or a case is invalid.
    """
    if not folder.is_dir():
        raise UsageError(f"{folder} is not a folder of labelled cases (*.json); check the path")
    paths = sorted(folder.glob("*.json"))
    if not paths:
        raise UsageError(f"{folder} holds no labelled case (*.json); check the path")
    return [load_case(p) for p in paths]


def focus_hit(focus: Position | None, expected: Sequence[ExpectedFocus]) -> bool:
    """Whether a judged focus matches the labelled one or one of its ``alt`` entries.

    A match: the position's kind equals the labelled kind (``whole`` = ``all``) and,
    when the label gives ``contains``, the position's exact text contains it.
    """
    if focus is None:
        return False
    for want in expected:
        if focus.kind != want.position_kind:
            continue
        if want.contains is None or want.contains in focus.text:
            return True
    return False


# ---------------------------------------------------------------------------- prices


@dataclass(frozen=True, slots=True)
class PriceTable:
    """Prices per million tokens by model name (input, output), and their currency.

    TOML form (``--prices FILE``)::

        currency = "USD"            # optional, default USD
        [models."gpt-4o-mini"]
        input = 0.15                # per million input tokens
        output = 0.60               # per million output tokens
    """

    models: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    currency: str = "USD"

    def cost(self, model: str, input_tokens: int, output_tokens: int) -> float | None:
        """Estimated cost of the tokens for ``model``; ``None`` when it has no price."""
        price = self.models.get(model)
        if price is None:
            return None
        return (input_tokens * price[0] + output_tokens * price[1]) / 1_000_000


def load_prices(path: Path) -> PriceTable:
    """Read a price table (see :class:`PriceTable`).

    Raises:
        UsageError: unreadable file, invalid TOML, or a model without numeric
            non-negative ``input`` and ``output`` prices.
    """
    import tomllib

    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read the price table {path} ({exc}); check the path") from None
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"the price table {path} is not valid TOML ({exc}); fix it") from None
    models = data.get("models", {})
    if not isinstance(models, dict):
        raise UsageError(f"{path}: [models] must be a table of model names; fix the file")
    table: dict[str, tuple[float, float]] = {}
    for name, entry in models.items():
        ok = isinstance(entry, dict) and all(
            isinstance(entry.get(k), int | float)
            and not isinstance(entry.get(k), bool)
            and entry[k] >= 0
            for k in ("input", "output")
        )
        if not ok:
            raise UsageError(
                f"{path}: models.{name!r} needs numeric input and output prices per "
                "million tokens (>= 0); fix the file"
            )
        table[str(name)] = (float(entry["input"]), float(entry["output"]))
    currency = data.get("currency", "USD")
    return PriceTable(table, str(currency))


# ---------------------------------------------------------------------------- evaluation


@dataclass(frozen=True, slots=True)
class CaseResult:
    """One case's audit against its label.

    Attributes:
        case: the labelled case.
        judged: the judged assessment, or :data:`INCOMPLETE`.
        focus: the judged focus position (``None`` when incomplete).
        hit: whether :attr:`focus` matches the label (:func:`focus_hit`).
        error_kind: why the audit was incomplete, if it was.
        reason: the incomplete audit's reason ("" for verdicts).
        latency_ms: summed judge latency, milliseconds.
        attempts: judge calls made.
        input_tokens, output_tokens: reported token usage (``None`` when not reported).
        raw_replies: the judge's raw replies, in order.
    """

    case: Case
    judged: str
    focus: Position | None
    hit: bool
    error_kind: str | None
    reason: str
    latency_ms: float
    attempts: int
    input_tokens: int | None
    output_tokens: int | None
    raw_replies: tuple[str, ...]

    @property
    def correct(self) -> bool:
        """The judged assessment equals the label."""
        return self.judged == self.case.expected

    @property
    def miss(self) -> bool:
        """Wrong assessment, or a right one with a focus that misses the label."""
        return not (self.correct and self.hit)

    def to_json(self) -> dict[str, Any]:
        focus = self.focus
        return {
            "id": self.case.id,
            "lang": self.case.lang,
            "expected": self.case.expected,
            "expected_focus": [f.to_json() for f in self.case.focus],
            "judged": self.judged,
            "correct": self.correct,
            "focus": None
            if focus is None
            else {"id": focus.id, "kind": focus.kind, "quote": focus.text},
            "focus_hit": self.hit,
            "error_kind": self.error_kind,
            "reason": self.reason,
            "latency_ms": self.latency_ms,
            "attempts": self.attempts,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "raw_replies": list(self.raw_replies),
        }


def result_of(case: Case, outcome: AuditOutcome) -> CaseResult:
    """Score one audit outcome against its case's label."""
    verdict = outcome.verdict if outcome.status == "verdict" else None
    focus = verdict.focus if verdict is not None else None
    usage = outcome.usage
    return CaseResult(
        case=case,
        judged=verdict.assessment if verdict is not None else INCOMPLETE,
        focus=focus,
        hit=focus_hit(focus, case.focus),
        error_kind=outcome.error_kind,
        reason=outcome.reason,
        latency_ms=float(outcome.latency_ms),
        attempts=outcome.attempts,
        input_tokens=None if usage is None else usage.input_tokens,
        output_tokens=None if usage is None else usage.output_tokens,
        raw_replies=tuple(outcome.raw_replies),
    )


@dataclass(slots=True)
class EvalReport:
    """The measurement of one judge on one corpus (see the module docstring).

    Attributes:
        judge: provider, model, heuristic flag of the judge measured.
        corpus: the corpus folder.
        results: one :class:`CaseResult` per case, corpus order.
        prices: the price table used for the cost estimate.
        elapsed_s: wall time of the whole run, seconds.
    """

    judge: JudgeInfo
    corpus: str
    results: list[CaseResult]
    prices: PriceTable = field(default_factory=PriceTable)
    elapsed_s: float = 0.0

    def confusion(self) -> Confusion:
        """Reference assessment (rows) vs judged assessment (columns)."""
        matrix = Confusion()
        for r in self.results:
            matrix.add(r.case.expected, r.judged)
        return matrix

    @property
    def verdicts(self) -> int:
        """Cases that got a valid verdict."""
        return sum(1 for r in self.results if r.judged != INCOMPLETE)

    def focus_hit_rate(self) -> float | None:
        """Focus hits / cases with a verdict (``None`` without verdicts)."""
        n = self.verdicts
        return None if n == 0 else sum(1 for r in self.results if r.hit) / n

    def strict_accuracy(self) -> float | None:
        """Share of cases with the right assessment AND a focus hit."""
        n = len(self.results)
        return None if n == 0 else sum(1 for r in self.results if not r.miss) / n

    def response_error_rate(self) -> float | None:
        """Share of cases without a valid verdict (response errors after retries)."""
        n = len(self.results)
        return None if n == 0 else (n - self.verdicts) / n

    def calls(self) -> int:
        """Judge calls made in total (technical retries included)."""
        return sum(r.attempts for r in self.results)

    def failed_calls(self) -> int:
        """Judge calls that did not give a verdict (calls − verdicts)."""
        return max(0, self.calls() - self.verdicts)

    def latencies(self) -> list[float]:
        """Summed judge latency (ms) of every case that called the judge."""
        return [r.latency_ms for r in self.results if r.attempts > 0]

    def tokens(self) -> tuple[int | None, int | None]:
        """(input, output) tokens summed over the cases that reported them."""
        ins = [r.input_tokens for r in self.results if r.input_tokens is not None]
        outs = [r.output_tokens for r in self.results if r.output_tokens is not None]
        return (sum(ins) if ins else None, sum(outs) if outs else None)

    def cost(self) -> float | None:
        """Estimated cost from :attr:`prices` (0.0 for an offline heuristic judge;
        ``None`` when the model has no price or no tokens were reported)."""
        if self.judge.heuristic:
            return 0.0
        tin, tout = self.tokens()
        if tin is None and tout is None:
            return None
        return self.prices.cost(self.judge.model, tin or 0, tout or 0)

    def to_json(self) -> dict[str, Any]:
        """The whole report as one JSON object (``jev eval --json``)."""
        tin, tout = self.tokens()
        lat = self.latencies()
        return {
            "corpus": self.corpus,
            "judge": self.judge.to_json(),
            "cases": len(self.results),
            "verdicts": self.verdicts,
            "confusion": self.confusion().to_json(),
            "focus_hit_rate": self.focus_hit_rate(),
            "strict_accuracy": self.strict_accuracy(),
            "response_error_rate": self.response_error_rate(),
            "calls": self.calls(),
            "failed_calls": self.failed_calls(),
            "latency_ms": {"p50": percentile(lat, 50), "p95": percentile(lat, 95)},
            "tokens": {"input": tin, "output": tout},
            "cost": {"amount": self.cost(), "currency": self.prices.currency},
            "elapsed_s": self.elapsed_s,
            "results": [r.to_json() for r in self.results],
        }


def evaluate(
    cases: Iterable[Case],
    settings: Settings,
    judge: Judge,
    *,
    corpus: str = "",
    prices: PriceTable | None = None,
    sleep: Callable[[float], None] = time.sleep,
    on_result: Callable[[CaseResult], None] | None = None,
) -> EvalReport:
    """Audit every case through :func:`jev.auditor.run_audit` and score it.

    Args:
        cases: the labelled cases.
        settings: the profile in force (budget, language, technical retries).
        judge: the judge measured (not closed here).
        corpus: a label for the report (the folder).
        prices: price table for the cost estimate.
        sleep: the wait before technical retries (seconds).
        on_result: called after each case (progress display).

    Returns:
        The :class:`EvalReport`. Judge failures count as ``incomplete`` results,
        never raise.
    """
    started = time.perf_counter()
    results: list[CaseResult] = []
    for case in cases:
        outcome = run_audit(case.material, settings, judge, sleep=sleep)
        result = result_of(case, outcome)
        results.append(result)
        if on_result is not None:
            on_result(result)
    return EvalReport(
        judge=judge.info,
        corpus=corpus,
        results=results,
        prices=prices or PriceTable(),
        elapsed_s=time.perf_counter() - started,
    )


# ---------------------------------------------------------------------------- output


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
    from jev.render import render_template

    return render_template("eval_report.html.j2", **html_context(report))
