"""Where the evidence step sits in an audit: before the judge and after it (issue 21).

:func:`before_judge` compares the report's claims with the turn's runs
(``evidence.transcript``) and returns a ``contradiction`` outcome decided without a
judge call, or ``None``. :func:`after_judge` runs the user's checks
(``evidence.checks``) when the judge's verdict is ``complete`` and the caller allows
checks (a root hook stop, or ``jev audit --checks``), and turns a failed check into
``omission``. :func:`jev.pipeline.audit.run_audit` calls both; everything else (budget,
loop, record, replay) treats the outcome like any normal audit's.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, replace

from jev.base.domain import AuditOutcome, Numbering, Settings
from jev.evidence.checks import run_checks
from jev.evidence.finding import check_finding, check_runs, outcome_of
from jev.evidence.runs import Run

__all__ = [
    "CHECKS_RESERVE_S",
    "EvidenceInput",
    "after_judge",
    "before_judge",
    "checks_time_s",
    "stop_evidence",
]

#: Seconds of a stop's deadline kept back from the user's checks (record, answer).
CHECKS_RESERVE_S = 5.0


@dataclass(frozen=True, slots=True)
class EvidenceInput:
    """What the evidence step may use in one audit.

    Attributes:
        runs: the current turn's shell runs, in order (from the host's transcript or
            the turn file's ``runs``).
        cwd: the turn's working folder, where checks run (``None``/"": no checks).
        checks: whether the user's ``evidence.checks`` may run in this audit (True for
            a root stop from a hook on an enabled profile, or ``jev audit --checks``).
        transcript: overrides ``evidence.transcript`` (``jev audit --evidence`` /
            ``--no-evidence``); ``None`` follows the profile.
        deadline: :func:`time.monotonic` time by which checks must have ended (the
            stop's overall deadline), or ``None``.
    """

    runs: tuple[Run, ...] = ()
    cwd: str | None = None
    checks: bool = False
    transcript: bool | None = None
    deadline: float | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.runs, tuple):
            object.__setattr__(self, "runs", tuple(self.runs))


def stop_evidence(runs: Sequence[Run], cwd: str, left_s: float | None) -> EvidenceInput:
    """The evidence of a root hook stop: the turn's ``runs``, and the user's checks in
    the hook's ``cwd``, ending :data:`CHECKS_RESERVE_S` before the stop's deadline
    (``left_s``: seconds left of it, ``None`` when there is none)."""
    end = None if left_s is None else time.monotonic() + max(0.0, left_s - CHECKS_RESERVE_S)
    return EvidenceInput(runs=tuple(runs), cwd=cwd or None, checks=True, deadline=end)


def checks_time_s(settings: Settings) -> float:
    """Seconds the configured checks may take at most: ``check_timeout_s`` × checks."""
    return settings.evidence.check_timeout_s * len(settings.evidence.checks)


def before_judge(
    numbering: Numbering,
    settings: Settings,
    evidence: EvidenceInput,
    *,
    language: str,
    material_hash: str,
    template_hash: str = "",
) -> AuditOutcome | None:
    """The ``contradiction`` outcome when a claim of the report disagrees with the
    turn's last matching run, else ``None`` (nothing changes)."""
    use = settings.evidence.transcript if evidence.transcript is None else evidence.transcript
    if not use or not evidence.runs:
        return None
    finding = check_runs(numbering, evidence.runs)
    if finding is None:
        return None
    return outcome_of(
        finding,
        material_hash=material_hash,
        language=language,
        budget_chars=settings.evidence_chars,
        template_hash=template_hash,
    )


def after_judge(
    outcome: AuditOutcome,
    numbering: Numbering,
    settings: Settings,
    evidence: EvidenceInput,
    *,
    commands: Sequence[str] | None = None,
) -> AuditOutcome:
    """``outcome``, or the ``omission`` outcome of the first failed check when the
    verdict is ``complete`` and checks may run (see :class:`EvidenceInput`).

    The judge's calls, latency and usage are kept on the new outcome (the judge was
    asked); its reply is replaced by the evidence reply, so replay reproduces the
    ``omission``. ``commands`` overrides ``settings.evidence.checks`` (tests).
    """
    checks = tuple(settings.evidence.checks if commands is None else commands)
    verdict = outcome.verdict
    if (
        not checks
        or not evidence.checks
        or not evidence.cwd
        or outcome.status != "verdict"
        or verdict is None
        or verdict.assessment != "complete"
    ):
        return outcome
    deadline = evidence.deadline
    if deadline is not None and deadline <= time.monotonic():
        return outcome
    results = run_checks(checks, evidence.cwd, settings.evidence.check_timeout_s, deadline=deadline)
    finding = check_finding(numbering, results)
    if finding is None:
        return outcome
    decided = outcome_of(
        finding,
        material_hash=outcome.material_hash,
        language=outcome.language,
        budget_chars=outcome.budget_chars,
        template_hash=outcome.template_hash,
    )
    return replace(
        decided,
        attempts=outcome.attempts,
        latency_ms=outcome.latency_ms,
        usage=outcome.usage,
        input_chars=outcome.input_chars,
    )
