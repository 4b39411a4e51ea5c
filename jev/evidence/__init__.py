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
Importing this package imports none of its modules: the Stop hook's readers import
:mod:`jev.evidence.runs` alone (stdlib, cheap) on their path.
"""
