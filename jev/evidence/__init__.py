"""Evidence from the turn's own runs, and the project's checks on request (issue 21).

Two steps beside the judge, never feeding it (design.md §3: no tool output reaches the
judge):

* **transcript evidence** (``evidence.transcript``): the report's success claims
  ("all tests pass", "build succeeds", "测试全部通过" …) against the turn's last run of
  a matching command, read from the host's transcript; a disagreement is
  ``contradiction`` without a judge call (:func:`check_runs`);
* **checks on request** (``evidence.checks``): the commands the user configured, run
  when an audit would end ``complete``; a failing one is ``omission``
  (:func:`run_checks`, :func:`check_finding`).

Modules: :mod:`~jev.evidence.runs` (the run model, what a command runs),
:mod:`~jev.evidence.outcome` (a run's summary line and exit code),
:mod:`~jev.evidence.claims` (claims in the report), :mod:`~jev.evidence.finding`
(the verdict and its outcome), :mod:`~jev.evidence.checks` (running checks).
"""

from __future__ import annotations

from jev.evidence.checks import CheckResult, run_checks
from jev.evidence.finding import (
    EVIDENCE_PROVIDER,
    Finding,
    check_finding,
    check_runs,
    outcome_of,
)
from jev.evidence.runs import Run, command_kinds, run_from_json

__all__ = [
    "EVIDENCE_PROVIDER",
    "CheckResult",
    "Finding",
    "Run",
    "check_finding",
    "check_runs",
    "command_kinds",
    "outcome_of",
    "run_checks",
    "run_from_json",
]
