"""Measure a judge on a labelled corpus of turns, and the agreement metrics replay shares
(design.md §11 "a labelled corpus of turns measures a judge").

:func:`load_cases` reads a corpus folder (``tests/fixtures/cases`` format, see
``/shared/cases/README.md``), :func:`evaluate` runs every case through the one live
audit path (:func:`jev.pipeline.audit.run_audit`) and returns an :class:`EvalReport`, scored
with the metrics of :mod:`jev.measure.metrics` (:class:`~jev.measure.metrics.Confusion`, shared with
``jev replay --live``); :meth:`EvalReport.to_json` serialises it and
:mod:`jev.measure.eval_report` prints or renders it.

A case whose audit ends ``incomplete`` (response error after the technical retries,
over budget) is judged ``incomplete``: an extra column of the confusion matrix,
counted wrong for accuracy and recall, and reported as the response-error rate.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jev.base.domain import ASSESSMENTS, Material, Position
from jev.base.errors import UsageError
from jev.evidence.runs import Run, run_from_json
from jev.evidence.step import EvidenceInput
from jev.measure.metrics import INCOMPLETE, ClassStats, Confusion, percentile
from jev.measure.report import load_prices as read_prices
from jev.pipeline.audit import run_audit

if TYPE_CHECKING:
    from jev.base.domain import AuditOutcome, JudgeInfo, Settings
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
    "load_case",
    "load_cases",
    "load_prices",
    "percentile",
]

#: Labelled focus kinds (corpus README) -> position kinds (design.md §4).
KIND_MAP: dict[str, str] = {
    "request": "request",
    "todo": "todo",
    "answer": "answer",
    "none": "none",
    "whole": "all",
}


# ---------------------------------------------------------------------------- corpus


@dataclass(frozen=True, slots=True)
class ExpectedFocus:
    """One acceptable focus: a labelled position kind (``request|todo|answer|none|whole``)
    and a substring the quote must contain (``None`` for ``none``/``whole``)."""

    kind: str
    contains: str | None = None

    @property
    def position_kind(self) -> str:
        """The design.md §4 position kind (``whole`` -> ``all``)."""
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
        runs: the turn's shell runs (the turn file's optional ``runs``, issue 21): the
            evidence step reads them, the judge never does.
    """

    id: str
    path: Path
    lang: str
    material: Material
    expected: str
    focus: tuple[ExpectedFocus, ...]
    rationale: str = ""
    runs: tuple[Run, ...] = ()


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
        runs=tuple(r for r in map(run_from_json, data.get("runs") or ()) if r is not None),
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

    Read by :func:`load_prices` from the one prices format of ``jev report --prices``
    (:func:`jev.measure.report.load_prices`): keys are ``provider/model`` or ``model``.
    """

    models: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    currency: str = "USD"

    def cost(
        self, model: str, input_tokens: int, output_tokens: int, provider: str = ""
    ) -> float | None:
        """Estimated cost of the tokens for ``model`` (``provider/model`` first);
        ``None`` when it has no price."""
        price = self.models.get(f"{provider}/{model}") if provider else None
        price = price or self.models.get(model)
        if price is None:
            return None
        return (input_tokens * price[0] + output_tokens * price[1]) / 1_000_000


def load_prices(path: Path) -> PriceTable:
    """Read a prices file: the same format as ``jev report --prices``
    (:func:`jev.measure.report.load_prices`, which also reads the older ``[models."name"]``
    ``input``/``output`` form).

    Raises:
        UsageError: unreadable file, invalid TOML/JSON, or an entry without
            non-negative numeric prices.
    """
    prices = read_prices(path)
    return PriceTable(dict(prices.table), prices.currency)


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
        return self.prices.cost(self.judge.model, tin or 0, tout or 0, provider=self.judge.provider)

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
    """Audit every case through :func:`jev.pipeline.audit.run_audit` and score it.

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
        evidence = EvidenceInput(runs=case.runs) if case.runs else None
        outcome = run_audit(case.material, settings, judge, sleep=sleep, evidence=evidence)
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
