"""The ``stop`` line of a full-path stop hook in Jev's log (issue 24 item 4; :mod:`jev.log`).

:func:`log_stop` turns a :class:`jev.hosts.hook.HookResult` into one ``stop`` line:

* ``outcome=skipped reason=…`` — no audit ran: not a root-agent stop, a disabled
  profile, plan mode, an adapter's gate (e.g. background tasks), no Todo use, material
  missing, or the auditor answered without asking the judge (``busy``: another
  process audits the turn or this stop is a duplicate; ``exhausted``; ``cancelled``;
  the same stop again);
* ``outcome=audited verdict=… focus=… action=… counted=yes|no supplements=N`` — a
  judge (or the evidence step, ``evidence=yes``) gave a verdict; ``counted=yes`` when
  the answer sends a supplement, which is counted against ``max_supplements``;
* ``outcome=refused reason=…`` — not judged on purpose: input over ``evidence_chars``
  (``input_chars``/``budget_chars``, design.md §7) or a stdin that is not UTF-8;
* ``outcome=incomplete error_kind=… attempts=N`` — the judge gave no usable verdict;
* ``outcome=error error_kind=…`` — the hook failed open.

Every line also carries ``host``, ``session``, ``path=full``, ``profile``, ``ms`` (the
whole stop) and ``<step>_ms`` for each step that ran (:func:`jev.log.steps_so_far`).
Only Jev's own words and numbers: never the material, a reply or an error message.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from jev import log

if TYPE_CHECKING:
    from jev.hosts.hook import HookResult
    from jev.pipeline.decide import Decision

__all__ = ["describe", "log_stop"]

#: Why the auditor answered without an audit, by decision action.
_NOT_AUDITED = {
    "busy": "busy: another process is auditing this turn, or this stop is a duplicate",
    "exhausted": "exhausted: the turn's supplement budget or judge-call cap is used up",
    "cancelled": "cancelled: the turn was cancelled (jev cancel)",
    "stale": "stale: the turn moved on before the verdict was acted upon",
}
_OVER_BUDGET = "over-budget"


def describe(result: HookResult, host: str = "") -> dict[str, Any]:
    """The fields of ``result``'s ``stop`` line (without the step timings); ``host``
    names the host when the result does not (an unknown host, a bad stdin)."""
    fields: dict[str, Any] = {
        "host": result.host or host or None,
        "session": result.session or None,
        "path": "full",
        "profile": result.profile,
    }
    decision = result.decision
    if result.error_kind:
        fields.update(outcome="error", error_kind=result.error_kind)
    elif decision is None:
        refused = result.skipped == "stdin not UTF-8"
        fields.update(outcome="refused" if refused else "skipped", reason=result.skipped)
    else:
        fields.update(_of_decision(decision, steers=result.steers))
    return fields


def _of_decision(decision: Decision, *, steers: bool) -> dict[str, Any]:
    outcome = decision.outcome
    if outcome is None or outcome.status == "skipped":
        reason = _NOT_AUDITED.get(decision.action)
        if reason is None and outcome is not None:
            reason = outcome.reason or "no audit was due"
        if reason is None:
            reason = f"the same stop again: the earlier answer ({decision.action}) repeated"
        return {"outcome": "skipped", "reason": reason, "action": decision.action}
    judge = outcome.judge
    common: dict[str, Any] = {
        "action": decision.action,
        "provider": judge.provider if judge else None,
        "model": (judge.model or None) if judge else None,
    }
    if outcome.status == "verdict" and outcome.verdict is not None:
        state = decision.state
        return {
            "outcome": "audited",
            "verdict": outcome.verdict.assessment,
            "focus": outcome.verdict.focus.id,
            **common,
            "counted": steers,
            "supplements": state.supplements_used if state is not None else None,
            "evidence": True if outcome.evidence is not None else None,
            "attempts": outcome.attempts,
            "judge_ms": outcome.latency_ms,
        }
    if outcome.error_kind == _OVER_BUDGET:
        return {
            "outcome": "refused",
            "reason": "input over evidence_chars (nothing truncated, no judge call)",
            **common,
            "input_chars": outcome.input_chars,
            "budget_chars": outcome.budget_chars,
        }
    return {
        "outcome": "incomplete",
        "error_kind": outcome.error_kind or "judge",
        **common,
        "attempts": outcome.attempts,
    }


def log_stop(result: HookResult, ms: float, host: str = "") -> None:
    """Write ``result``'s ``stop`` line (``ms``: the whole stop; ``host`` as in
    :func:`describe`). Never raises."""
    try:
        fields = describe(result, host)
        fields["ms"] = ms
        for name, spent in log.steps_so_far().items():
            fields[f"{name}_ms"] = spent
        log.emit("stop", **fields)
    except Exception:  # a log never changes a hook's answer
        return
