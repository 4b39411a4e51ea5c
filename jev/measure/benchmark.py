"""The built-in benchmark: labelled turns shipped inside Jev, a versioned result file,
and results side by side (design.md §13; issue 12 item 5).

``jev eval --builtin`` measures any judge on the labelled sets that ship with Jev
(:data:`BUILTIN_SETS`, stored as ``jev/corpus/<set>/*.json`` in the wheel and as
``tests/fixtures/<set>/`` in the repository), prints one row per set and the usual
per-class table, and with ``--json FILE`` writes a result file in the versioned shape
:data:`RESULT_SCHEMA`, so results from different users, judges and models can be put
side by side with ``jev eval --compare A.json B.json``.

Figures per set (:func:`figures`): turns, verdicts, exact (assessment right), flag
precision (of turns flagged with any verdict but ``complete``, the share labelled with
a problem), problem recall (of turns labelled with a problem, the share flagged),
focus hit (of right verdicts, the share whose focus matches the label), macro-F1,
Cohen's κ, per-class precision/recall/F1, response-error rate, latency p50/p95 (ms),
tokens per audit (reported by the provider, and Jev's own estimate of the rendered
input with the share a prompt cache can reuse: the fixed rules text) and cost per 100
audits (with ``--prices``).
"""

from __future__ import annotations

import hashlib
import json
import statistics
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from jev import __version__
from jev.base.domain import ASSESSMENTS, Material, Settings
from jev.base.errors import UsageError
from jev.base.resources import data_dir
from jev.measure.evaluate import INCOMPLETE, Case, EvalReport, load_cases, percentile
from jev.pipeline.material import number
from jev.pipeline.render import render_audit

__all__ = [
    "BUILTIN_SETS",
    "RESULT_SCHEMA",
    "builtin_cases",
    "compare_table",
    "corpus_dir",
    "corpus_version",
    "estimate_tokens",
    "figures",
    "load_result",
    "result_json",
    "sets_table",
]

#: The result file's shape and version (``jev eval --json FILE``).
RESULT_SCHEMA = "jev-eval-result/1"

#: The shipped labelled sets, in the order docs/accuracy.md lists them, with their role for
#: the rules judge (a set used for tuning stops being an estimate for it).
BUILTIN_SETS: tuple[tuple[str, str], ...] = (
    ("cases", "development (the rules were written on it)"),
    ("rules_extra", "development"),
    ("heldout", "blind at first, then used for tuning"),
    ("heldout2", "blind at first, then used for tuning"),
    ("heldout3", "blind at first, then used for tuning"),
    ("cases_round2", "development for issue 12"),
    ("issue12", "the issue's public cases, development"),
    ("heldout4", "blind at first, then used for tuning"),
    ("heldout5", "blind until issue 22's third round, then used for tuning"),
    ("heldout6", "blind until issue 22's third round, then used for tuning"),
    ("heldout7", "blind (issue 22: measured once, before any change), then used for tuning"),
    ("heldout8", "blind (measured once, before any change), then used for tuning"),
    ("heldout9", "blind (measured once, before any change), then used for tuning"),
    ("heldout10", "blind (measured once, before any change), then used for tuning"),
    ("heldout11", "blind (measured once, before any change), then used for tuning"),
    ("heldout12", "blind (measured once, before any change), then used for tuning"),
    ("heldout13", "blind (measured once, before any change), then used for tuning"),
    ("heldout14", "blind (measured once, before any change), then used for tuning"),
    ("heldout15", "blind (measured once, before any change), then used for tuning"),
    ("heldout16", "blind (measured once, before any change), then used for tuning"),
    ("heldout17", "blind (measured once, before any change), then used for tuning"),
    ("heldout18", "blind (measured once, before any change), then used for tuning"),
    ("heldout19", "blind (issue 22's last measurement, once), then its false alarms fixed"),
    ("heldout20", "blind (issue 22's last measurement, once), then its false alarms fixed"),
    ("heldout21", "blind, never used for tuning (measured once at the end of stop 28)"),
    ("heldout22", "blind (measured once at 23550f8, before any change), then used for tuning"),
    ("heldout23", "blind, never tuned on (measured once at 8c0cb60; one order bug fixed)"),
    ("heldout24", "blind (measured once at 2d943e0), then its false alarms fixed"),
    ("evidence", "development for the evidence step (issue 21): turns with runs"),
)
_PROBLEMS = frozenset(ASSESSMENTS) - {"complete"}


def corpus_dir() -> Path:
    """The folder holding the shipped sets (``jev/corpus`` in a wheel,
    ``tests/fixtures`` in the repository).

    Raises:
        UsageError: when the installation has no corpus (reinstall with ``pip install .``).
    """
    try:
        return data_dir("corpus")
    except FileNotFoundError as exc:
        raise UsageError(f"{exc}; the built-in benchmark needs it") from None


def builtin_cases(names: Sequence[str] = ()) -> list[tuple[str, Case]]:
    """``(set name, case)`` for every shipped case of ``names`` (all sets when empty).

    Raises:
        UsageError: for an unknown set name.
    """
    known = [name for name, _ in BUILTIN_SETS]
    unknown = [n for n in names if n not in known]
    if unknown:
        raise UsageError(f"unknown built-in set {unknown[0]!r}; the sets are {', '.join(known)}")
    root = corpus_dir()
    return [
        (name, case)
        for name in (names or known)
        if (root / name).is_dir()
        for case in load_cases(root / name)
    ]


def corpus_version(names: Sequence[str] = ()) -> str:
    """``"sha256:<16 hex>"`` over the shipped files of ``names`` (all sets when empty):
    two results with the same version were measured on byte-identical turns."""
    root = corpus_dir()
    digest = hashlib.sha256()
    for name in names or [n for n, _ in BUILTIN_SETS]:
        for path in sorted((root / name).glob("*.json")):
            digest.update(f"{name}/{path.name}\n".encode())
            digest.update(path.read_bytes())
    return "sha256:" + digest.hexdigest()[:16]


def estimate_tokens(text: str) -> int:
    """A provider-neutral token estimate: ~4 ASCII characters per token, ~1 token per
    other character (CJK). Real counts come from the provider's usage report."""
    ascii_chars = sum(1 for ch in text if ch.isascii())
    return round(ascii_chars / 4 + (len(text) - ascii_chars))


def _rendered_tokens(material: Material) -> tuple[int, int] | None:
    """(fixed rules tokens, whole input tokens) of the judge input for ``material``."""
    judge_input = render_audit(number(material), Settings()).judge_input
    return estimate_tokens(judge_input.system), estimate_tokens(
        judge_input.system + judge_input.user
    )


def _ratio(num: int, den: int) -> float | None:
    return None if den == 0 else num / den


def figures(report: EvalReport, *, estimate: bool = True) -> dict[str, Any]:
    """The benchmark figures of one report (see the module docstring); rates in 0…1,
    ``None`` where undefined."""
    results = report.results
    flagged = [r for r in results if r.judged not in ("complete", INCOMPLETE)]
    problems = [r for r in results if r.case.expected in _PROBLEMS]
    right = [r for r in results if r.correct]
    confusion = report.confusion()
    lat = report.latencies()
    calls = report.calls()
    tin, tout = report.tokens()
    per_class = {
        label: {
            "support": stats.support,
            "precision": stats.precision,
            "recall": stats.recall,
            "f1": stats.f1,
        }
        for label in ASSESSMENTS
        for stats in [confusion.class_stats(label)]
    }
    cost = report.cost()
    out: dict[str, Any] = {
        "turns": len(results),
        "verdicts": report.verdicts,
        "exact": _ratio(len(right), len(results)),
        "flag_precision": _ratio(
            sum(1 for r in flagged if r.case.expected in _PROBLEMS), len(flagged)
        ),
        "flagged": len(flagged),
        "problem_recall": _ratio(
            sum(1 for r in problems if r.judged not in ("complete", INCOMPLETE)), len(problems)
        ),
        "problems": len(problems),
        "focus_hit": _ratio(sum(1 for r in right if r.hit), len(right)),
        "macro_f1": confusion.macro_f1(),
        "kappa": confusion.kappa(),
        "per_class": per_class,
        "response_error_rate": report.response_error_rate(),
        "latency_ms": {"p50": percentile(lat, 50), "p95": percentile(lat, 95)},
        "tokens_per_audit": {
            "input": None if tin is None or not calls else tin / max(1, report.verdicts),
            "output": None if tout is None or not calls else tout / max(1, report.verdicts),
        },
        "cost_per_100_audits": None if cost is None or not results else cost * 100 / len(results),
    }
    if estimate:
        sizes = [s for s in (_rendered_tokens(r.case.material) for r in results) if s]
        if sizes:
            out["estimated_input_tokens"] = {
                "rules": sizes[0][0],
                "median": statistics.median(total for _, total in sizes),
                "cacheable_share": statistics.median(rules / total for rules, total in sizes),
            }
    return out


def result_json(
    report: EvalReport, sets: Sequence[str], *, corpus: str, version: str
) -> dict[str, Any]:
    """The versioned result object (:data:`RESULT_SCHEMA`) of a benchmark run."""
    by_set: dict[str, Any] = {}
    for name in sets:
        subset = [r for r in report.results if r.case.path.parent.name == name]
        if subset:
            by_set[name] = figures(replace(report, results=subset), estimate=False)
    return {
        "schema": RESULT_SCHEMA,
        "judge": report.judge.to_json(),
        "corpus": {"name": corpus, "version": version, "sets": list(by_set)},
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "jev_version": __version__,
        "figures": figures(report),
        "sets": by_set,
        "results": [r.to_json() for r in report.results],
    }


def load_result(path: Path) -> dict[str, Any]:
    """Read a result file written by ``jev eval --json FILE``.

    Raises:
        UsageError: unreadable, not JSON, or not a :data:`RESULT_SCHEMA` object.
    """
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise UsageError(f"cannot read result file {path}: {exc}") from None
    if not isinstance(data, dict) or data.get("schema") != RESULT_SCHEMA:
        raise UsageError(
            f'{path} is not a Jev eval result (expected "schema": "{RESULT_SCHEMA}"); '
            "write one with jev eval --builtin --json FILE"
        )
    return data


def _pct(value: Any) -> str:
    return "n/a" if value is None else f"{value * 100:.0f} %"


def sets_table(result: dict[str, Any]) -> str:
    """Markdown table: one row per set (turns, exact, flag precision, problem recall,
    focus hit of right verdicts) — the rules-judge table of docs/accuracy.md."""
    roles = dict(BUILTIN_SETS)
    lines = [
        "| set | role | turns | exact verdict | flag precision | problem recall "
        "| focus hit (of right verdicts) |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, fig in result["sets"].items():
        lines.append(
            f"| `{name}` | {roles.get(name, '')} | {fig['turns']} | {_pct(fig['exact'])} "
            f"| {_pct(fig['flag_precision'])} ({fig['flagged']} flagged) "
            f"| {_pct(fig['problem_recall'])} (of {fig['problems']}) "
            f"| {_pct(fig['focus_hit'])} |"
        )
    return "\n".join(lines)


_COMPARE_ROWS: tuple[tuple[str, str], ...] = (
    ("exact", "exact verdict"),
    ("flag_precision", "flag precision"),
    ("problem_recall", "problem recall"),
    ("focus_hit", "focus hit (of right verdicts)"),
    ("macro_f1", "macro-F1"),
    ("kappa", "Cohen's κ"),
    ("response_error_rate", "response errors"),
)


def _cell(key: str, fig: dict[str, Any]) -> str:
    value = fig.get(key)
    if value is None:
        return "n/a"
    if key in ("macro_f1", "kappa"):
        return f"{value:.3f}"
    return f"{value * 100:.1f} %"


def compare_table(results: Sequence[dict[str, Any]], names: Sequence[str]) -> str:
    """Results side by side: one column per result, one row per figure (overall, then
    exact verdict per set); a different corpus version is said in the header."""
    heads = [f"{r['judge']['provider']} {r['judge'].get('model', '')}".strip() for r in results]
    width = max(30, *(len(h) + 2 for h in heads))
    out = [f"{'':32}" + "".join(f"{h:>{width}}" for h in heads)]
    out.append(f"{'file':32}" + "".join(f"{Path(n).name:>{width}}" for n in names))
    versions = {r["corpus"]["version"] for r in results}
    out.append(
        f"{'corpus':32}"
        + "".join(f"{r['corpus']['version']:>{width}}" for r in results)
        + ("" if len(versions) == 1 else "   (different corpora: compare with care)")
    )
    out.append(f"{'date':32}" + "".join(f"{r['date']:>{width}}" for r in results))
    out.append("")
    for key, label in _COMPARE_ROWS:
        out.append(f"{label:32}" + "".join(f"{_cell(key, r['figures']):>{width}}" for r in results))
    lat = [r["figures"]["latency_ms"] for r in results]
    out.append(
        f"{'latency p50 / p95 (ms)':32}"
        + "".join(f"{_ms(x['p50']) + ' / ' + _ms(x['p95']):>{width}}" for x in lat)
    )
    tok = [r["figures"]["tokens_per_audit"] for r in results]
    out.append(
        f"{'tokens per audit (in / out)':32}"
        + "".join(f"{_n(t['input']) + ' / ' + _n(t['output']):>{width}}" for t in tok)
    )
    out.append(
        f"{'cost per 100 audits':32}"
        + "".join(f"{_n(r['figures']['cost_per_100_audits'], 4):>{width}}" for r in results)
    )
    set_names = [n for n, _ in BUILTIN_SETS if any(n in r["sets"] for r in results)]
    if set_names:
        out.append("")
        out.append("exact verdict per set")
        for name in set_names:
            out.append(
                f"  {name:30}"
                + "".join(
                    f"{_cell('exact', r['sets'][name]) if name in r['sets'] else '—':>{width}}"
                    for r in results
                )
            )
    return "\n".join(out)


def _ms(value: Any) -> str:
    return "n/a" if value is None else f"{value:.0f}"


def _n(value: Any, digits: int = 0) -> str:
    if value is None:
        return "n/a"
    return f"{value:,.{digits}f}"
