"""Measure the offline ``rules`` judge on labelled turns and print a markdown table.

Usage::

    python bench/rules_accuracy.py [FOLDER ...] [--details]

Each FOLDER holds labelled turns in the ``cases/`` format (default: the repo's
``tests/fixtures/cases``, ``tests/fixtures/rules_extra``, ``tests/fixtures/heldout`` and
``tests/fixtures/heldout2``; all four have been used to tune the rules). For each folder it prints:
per expected assessment the count, the number predicted correctly and the confusion
matrix row; overall accuracy; flag precision (of the turns flagged with any verdict but
``complete``, the share whose label is not ``complete`` either); problem recall (of the
turns labelled with a problem, the share flagged); the focus hit rate (over turns whose
assessment was right, the share whose focus has the labelled kind and contains the
labelled text or an ``alt``). ``--details`` lists every miss with the rule that fired.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

from jev.base.domain import ASSESSMENTS, Material, Numbering
from jev.judges.rules import RuleHit, explain
from jev.pipeline.material import number

REPO = Path(__file__).resolve().parent.parent
DEFAULT_FOLDERS = (
    REPO / "tests" / "fixtures" / "cases",
    REPO / "tests" / "fixtures" / "rules_extra",
    REPO / "tests" / "fixtures" / "heldout",
    REPO / "tests" / "fixtures" / "heldout2",
)
_KIND = {"whole": "all"}


@dataclass(frozen=True)
class Scored:
    """One labelled turn and what the rules judge said about it."""

    case_id: str
    expected: str
    predicted: str
    focus_hit: bool
    hit: RuleHit


def focus_matches(numbering: Numbering, focus_id: str, expected_focus: dict[str, object]) -> bool:
    """True when the focus position has a labelled kind and contains the labelled text."""
    position = numbering.get(focus_id)
    if position is None:
        return False
    options = [expected_focus, *list(expected_focus.get("alt") or [])]  # type: ignore[call-overload]
    for option in options:
        kind = _KIND.get(str(option.get("kind")), str(option.get("kind")))
        contains = option.get("contains")
        if position.kind == kind and (contains is None or str(contains) in position.text):
            return True
    return False


def score_folder(folder: Path) -> list[Scored]:
    """Run the rules judge on every ``*.json`` labelled turn in ``folder`` (sorted)."""
    results = []
    for path in sorted(folder.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        numbering = number(Material.from_json(data))
        hit = explain(numbering)
        expected = data["expected"]
        results.append(
            Scored(
                case_id=str(data.get("id", path.stem)),
                expected=str(expected["assessment"]),
                predicted=hit.assessment,
                focus_hit=focus_matches(numbering, hit.focus, expected["focus"]),
                hit=hit,
            )
        )
    return results


@dataclass(frozen=True)
class Summary:
    """Headline numbers (fractions in 0..1; ``None`` when the denominator is 0)."""

    total: int
    accuracy: float | None
    flag_precision: float | None
    problem_recall: float | None
    focus_hit_rate: float | None
    flagged: int
    problems: int


def _ratio(num: int, den: int) -> float | None:
    return num / den if den else None


def summarize(results: list[Scored]) -> Summary:
    """Accuracy, flag precision, problem recall and focus hit rate of ``results``."""
    correct = [r for r in results if r.expected == r.predicted]
    flagged = [r for r in results if r.predicted != "complete"]
    problems = [r for r in results if r.expected != "complete"]
    return Summary(
        total=len(results),
        accuracy=_ratio(len(correct), len(results)),
        flag_precision=_ratio(sum(r.expected != "complete" for r in flagged), len(flagged)),
        problem_recall=_ratio(sum(r.predicted != "complete" for r in problems), len(problems)),
        focus_hit_rate=_ratio(sum(r.focus_hit for r in correct), len(correct)),
        flagged=len(flagged),
        problems=len(problems),
    )


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.0%}"


def markdown_table(title: str, results: list[Scored]) -> str:
    """The markdown report for one folder: confusion matrix plus headline numbers."""
    lines = [f"### {title} ({len(results)} turns)", ""]
    header = "| expected \\ predicted | count | correct | " + " | ".join(ASSESSMENTS) + " |"
    lines += [header, "|" + "---|" * (3 + len(ASSESSMENTS))]
    for expected in ASSESSMENTS:
        rows = [r for r in results if r.expected == expected]
        if not rows:
            continue
        cells = [str(sum(r.predicted == p for r in rows)) for p in ASSESSMENTS]
        correct = sum(r.predicted == expected for r in rows)
        lines.append(f"| {expected} | {len(rows)} | {correct} | " + " | ".join(cells) + " |")
    s = summarize(results)
    lines += [
        "",
        f"- accuracy (exact assessment): {_pct(s.accuracy)}",
        f"- flag precision (flagged turns that have a problem): {_pct(s.flag_precision)}"
        f" of {s.flagged}",
        f"- problem recall (problem turns flagged): {_pct(s.problem_recall)} of {s.problems}",
        f"- focus hit rate (of correct assessments): {_pct(s.focus_hit_rate)}",
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    """Print the table for each folder; ``--details`` adds every miss."""
    details = "--details" in argv
    folders = [Path(a) for a in argv if not a.startswith("--")] or list(DEFAULT_FOLDERS)
    for folder in folders:
        if not folder.is_dir():
            print(f"no such folder: {folder}", file=sys.stderr)
            return 2
        results = score_folder(folder)
        print(
            markdown_table(
                str(folder.relative_to(REPO) if folder.is_relative_to(REPO) else folder), results
            )
        )
        if details:
            for r in results:
                mark = "ok " if r.expected == r.predicted else "MISS"
                focus = "" if r.focus_hit or r.expected != r.predicted else " (focus miss)"
                print(
                    f"{mark} {r.case_id}: expected {r.expected}, got {r.predicted} "
                    f"[{r.hit.rule} -> {r.hit.focus}]{focus}"
                )
            print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
