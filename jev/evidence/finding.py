"""The evidence step's verdict: a report's claim against the turn's last matching run,
or a failed check the user configured (issue 21).

:func:`check_runs` pairs each success claim of the report (:mod:`jev.evidence.claims`)
with the turn's **last** run of a command of the same kind (:mod:`jev.evidence.runs`)
and reads that run's outcome (:mod:`jev.evidence.outcome`). A claim the last run
contradicts — and that the report does not itself correct by stating the failure — is
a :class:`Finding`: ``contradiction``, focus on the claim's position. No matching run,
an unreadable outcome or a passing run changes nothing.

:func:`outcome_of` turns a finding into the :class:`~jev.base.domain.AuditOutcome` of a
normal audit decided without a judge call: judge ``evidence``, the rule as its model,
one raw reply in the judge's own JSON shape (so replay parses it like any reply), and
the :class:`~jev.base.domain.EvidenceNote` the supplement quotes and the record keeps.

Pure and stdlib-only.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from jev.base.domain import AuditOutcome, EvidenceNote, JudgeInfo, Numbering, Position, Verdict
from jev.evidence.checks import CheckResult, failing_tail
from jev.evidence.claims import admits_failure, find_claims
from jev.evidence.outcome import read_outcome
from jev.evidence.runs import Run, command_kinds, same_check

__all__ = [
    "EVIDENCE_PROVIDER",
    "Finding",
    "check_finding",
    "check_runs",
    "counts_agree",
    "focus_for_check",
    "last_run_of",
    "named_checks",
    "outcome_of",
    "recheck",
    "reply_text",
]

_CODE = re.compile(r"`([^`\n]+)`")
#: The judge name written to records for verdicts the evidence step decided.
EVIDENCE_PROVIDER = "evidence"


@dataclass(frozen=True, slots=True)
class Finding:
    """A verdict decided from evidence.

    Attributes:
        assessment: ``contradiction`` (a claim vs the last run) or ``omission`` (a
            failed check).
        focus: the position the verdict points at.
        note: what was seen (command, exit code, quoted line, rule).
    """

    assessment: str
    focus: Position
    note: EvidenceNote


def named_checks(text: str, kind: str) -> list[str]:
    """The commands of ``kind`` a claim's text quotes as inline code (`` `pytest tests/api
    -q` → 142 passed``): the claim is about those runs, not any run of its kind."""
    return [c for c in _CODE.findall(text) if kind in command_kinds(c)]


def last_run_of(runs: Sequence[Run], kind: str, named: Sequence[str] = ()) -> Run | None:
    """The turn's last run whose command runs ``kind`` — and, when the claim quotes
    commands (``named``), one of those (:func:`jev.evidence.runs.same_check`); ``None``
    when there is no such run."""
    for run in reversed(runs):
        if kind in command_kinds(run.command) and (
            not named or any(same_check(n, run.command) for n in named)
        ):
            return run
    return None


def check_runs(numbering: Numbering, runs: Sequence[Run]) -> Finding | None:
    """The first claim of the report that the turn's last matching run contradicts.

    Args:
        numbering: the numbered material (claims are read from its answer positions
            and completed Todo items).
        runs: the turn's shell runs, in order (current turn only).

    Returns:
        A ``contradiction`` :class:`Finding` focused on the claim, or ``None``.
    """
    if not runs:
        return None
    for claim in find_claims(numbering):
        run = last_run_of(runs, claim.kind, named_checks(claim.position.text, claim.kind))
        if run is None:
            continue
        outcome = read_outcome(run, claim.kind)
        if outcome is None or outcome.passed or admits_failure(numbering, claim.kind):
            continue
        if not counts_agree(claim.phrase, outcome.line):
            continue
        rule = f"{claim.kind}-claim-vs-last-run"
        note = EvidenceNote("run", rule, run.command, run.exit_code, outcome.line)
        return Finding("contradiction", claim.position, note)
    return None


def focus_for_check(numbering: Numbering) -> Position:
    """Where a failed check points: the final answer's last position (where the turn
    reports itself done), else the last completed Todo item, else the first request
    position."""
    answer = numbering.of_kind("answer")
    done = [p for p in numbering.of_kind("todo") if p.status == "completed"]
    request = numbering.of_kind("request")
    for found in (answer, done, request):
        if found:
            return found[-1] if found is not request else found[0]
    return numbering.positions[0]


_COUNT = re.compile(r"(\d[\d,]*)\s*(passed|passing|failed|failing|failures?|errors?|total)\b")
_NUMBER = re.compile(r"\d[\d,]*")


def counts_agree(phrase: str, line: str) -> bool:
    """Whether a claim's numbers can be about the run whose summary ``line`` is quoted:
    a claim without a number (other than 0), or a line without counts, always can; else
    one of the claim's numbers must be the run's passed count or its total ("12 passed"
    against ``1 failed, 11 passed``: the same 12 tests; against ``2 failed, 88 passed``:
    another run, so no contradiction is read from it)."""
    claimed = {int(n.replace(",", "")) for n in _NUMBER.findall(phrase)} - {0}
    counts = [(int(n.replace(",", "")), word) for n, word in _COUNT.findall(line)]
    if not claimed or not counts:
        return True
    passed = sum(n for n, word in counts if word in ("passed", "passing"))
    totals = [n for n, word in counts if word == "total"]
    total = totals[-1] if totals else sum(n for n, _ in counts)
    return bool(claimed & {passed, total})


def check_finding(numbering: Numbering, results: Sequence[CheckResult]) -> Finding | None:
    """The ``omission`` :class:`Finding` of the first failed check in ``results``
    (``None`` when all passed): focus :func:`focus_for_check`, the note naming the
    command and quoting its failing tail (:func:`jev.evidence.checks.failing_tail`)."""
    for result in results:
        if result.passed:
            continue
        rule = "check-timed-out" if result.timed_out else "check-failed"
        note = EvidenceNote("check", rule, result.command, result.exit_code, failing_tail(result))
        return Finding("omission", focus_for_check(numbering), note)
    return None


def recheck(note: EvidenceNote, numbering: Numbering, focus_id: str) -> str:
    """Whether today's code decides a stored evidence verdict again (replay, design.md
    §11): ``""`` when it does, else what differs. A ``run`` note is checked from what
    the record keeps — the claim at ``focus_id``, the command and the quoted summary
    line — since the whole output is never stored; a ``check`` note is not re-run."""
    if note.kind != "run":
        return ""
    kind = note.rule.split("-", 1)[0]
    if kind not in command_kinds(note.command):
        return f"the command {note.command!r} is no longer read as a {kind} run"
    if not any(c.kind == kind and c.position.id == focus_id for c in find_claims(numbering)):
        return f"no {kind} claim is found at {focus_id} any more"
    if admits_failure(numbering, kind):
        return f"the report is now read as stating the {kind} failure itself"
    outcome = read_outcome(Run(note.command, note.exit_code, note.quote), kind)
    if outcome is None or outcome.passed:
        return f"the quoted line {note.quote!r} is no longer read as a failed {kind} run"
    return ""


def reply_text(finding: Finding) -> str:
    """The finding as a judge reply (``{"assessment", "focus"}``), parsed like any reply."""
    return json.dumps({"assessment": finding.assessment, "focus": finding.focus.id})


def outcome_of(
    finding: Finding,
    *,
    material_hash: str,
    language: str,
    budget_chars: int | None = None,
    template_hash: str = "",
) -> AuditOutcome:
    """The normal-audit outcome of ``finding``: no judge call (``attempts`` 0), judge
    ``evidence`` with the rule as its model, one raw reply (:func:`reply_text`)."""
    return AuditOutcome(
        status="verdict",
        verdict=Verdict(finding.assessment, finding.focus),
        judge=JudgeInfo(EVIDENCE_PROVIDER, finding.note.rule),
        budget_chars=budget_chars,
        raw_replies=(reply_text(finding),),
        attempts=0,
        material_hash=material_hash,
        template_hash=template_hash,
        language=language,
        evidence=finding.note,
    )
