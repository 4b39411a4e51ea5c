"""Step 6 of an audit: the loop decides on the outcome; what the host is told (design.md §6, §8).

:func:`conclude` is the step: it folds an :class:`~jev.base.domain.AuditOutcome` into
the turn's loop state with :func:`decide` and renders the supplement or the one-line
notice (:mod:`jev.pipeline.texts`); :class:`Decision` is what a host acts on.

The supplement loop of one turn is a pure state machine over the values of
:mod:`jev.base.loop_state` (:class:`~jev.base.loop_state.LoopState`,
:class:`~jev.base.loop_state.Action`): ``decide(state, outcome, max_supplements) ->
(state, action)`` and :func:`cancel`, with no I/O, no clock and no randomness. Replay
runs stored outcomes through it again.

States (``LoopState.status``)::

    auditing ──verdict complete──────────────▶ done          (action finish)
       │      ──verdict needs-user────────────▶ needs-user    (action hand-to-user)
       │      ──problem, budget left──────────▶ awaiting-supplement (action supplement k/N)
       │      ──problem, budget used up───────▶ exhausted     (action exhausted)
       │      ──outcome incomplete────────────▶ incomplete    (action incomplete)
       │      ──outcome skipped───────────────▶ (unchanged)   (action skip)
       └──────cancel()────────────────────────▶ cancelled     (action cancelled)

``awaiting-supplement`` and ``incomplete`` take the next outcome exactly like
``auditing``: the agent stopped again after a supplement, or the user retried an
incomplete audit (for example after raising ``evidence_chars``).

Counting rules (design.md §8, seed "怎样补充与复核"):

* The first normal audit is free. ``omission``, ``contradiction`` and ``unknown``
  (the problem verdicts) share one budget of ``max_supplements`` (N) supplements, so a
  chain of audits driven by Jev's own supplements has at most N+1 normal audits.
* A change of verdict never resets the count; the budget need not be used up.
* ``needs-user`` is never answered with a supplement.
* Incomplete audits and technical retries never count: ``audits`` and
  ``supplements_used`` only move on a valid verdict.

Final states and later stops in the same turn (a decision of this module and of
:func:`jev.pipeline.gate.should_audit`):

* ``exhausted`` and ``cancelled`` are terminal for the turn:
  :func:`~jev.pipeline.gate.should_audit` is False, and :func:`decide` leaves the state
  as it is and repeats the terminal action whatever outcome it is given (the outcome
  is not counted).
* ``done`` and ``needs-user`` are final for the current stop, but when the same
  turn stops again (another stop gate kept the agent working, or the agent went on
  after handing over), that is a continuation: a new audit is allowed and decided
  as usual, and the supplement budget is NOT reset. Only Jev's own supplements spend
  the budget, so Jev can never send more than N supplements in a turn; every audit
  beyond the first follows a new stop of the agent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from jev.base.domain import ASSESSMENTS, PROBLEM_ASSESSMENTS, AuditOutcome, Settings
from jev.base.loop_state import (
    DEFAULT_MAX_SUPPLEMENTS,
    Action,
    LoopState,
    validate_max_supplements,
)
from jev.pipeline.texts import incomplete_notice, report_line, supplement_text

__all__ = [
    "ACTIONS",
    "Conclusion",
    "Decision",
    "cancel",
    "conclude",
    "decide",
    "notice_for",
    "ui_language",
]

#: Decision actions (design.md §8 plus host-side outcomes).
ACTIONS = (
    "finish",
    "supplement",
    "hand-to-user",
    "exhausted",
    "incomplete",
    "skip",
    "cancelled",
    "busy",
    "stale",
)


@dataclass(frozen=True, slots=True)
class Conclusion:
    """The loop's decision on one outcome, with its texts (see :func:`conclude`).

    Attributes:
        after: the turn's loop state after the decision.
        action: the loop's action.
        supplement: the supplement text for a ``supplement`` action, else ``None``.
        notice: the one-line report for the user ("" when there is nothing to say).
    """

    after: LoopState
    action: Action
    supplement: str | None
    notice: str


def conclude(
    before: LoopState,
    outcome: AuditOutcome,
    settings: Settings,
    *,
    steer: bool = True,
    with_notice: bool = True,
) -> Conclusion:
    """Step 6: decide the loop (:func:`decide`) and render its texts (design.md §8).

    Args:
        before: the turn's loop state before this outcome.
        outcome: the audit outcome.
        settings: the profile (``max_supplements``, UI language fallback).
        steer: whether a supplement can be sent into the turn now (False for
            ``jev audit`` and a shell ``jev retry``: a problem goes to the user).
        with_notice: render the user's notice (False: ``""``; offline replay, which
            compares only what records store).

    Raises:
        ValueError: for an invalid ``max_supplements`` or outcome (see ``decide``).
    """
    after, action = decide(before, outcome, settings.max_supplements, steer=steer)
    supplement = None
    if action.kind == "supplement" and outcome.verdict is not None:
        supplement = supplement_text(
            outcome.verdict, action, outcome.language or "en", outcome.evidence
        )
    focus = outcome.verdict.focus if outcome.verdict is not None else None
    notice = notice_for(after, action, focus, settings, outcome=outcome) if with_notice else ""
    return Conclusion(after, action, supplement, notice)


def notice_for(
    state: LoopState,
    action: Action,
    focus: Any,
    settings: Settings,
    *,
    outcome: AuditOutcome | None = None,
) -> str:
    language = (outcome.language if outcome is not None else "") or ui_language(settings)
    if action.kind == "incomplete":
        reason = outcome.reason if outcome is not None else action.reason
        return incomplete_notice(reason, language)
    return report_line(state, action, focus, language)


def ui_language(settings: Settings) -> str:
    return settings.language if settings.language in ("en", "zh") else "en"


@dataclass(frozen=True, slots=True)
class Decision:
    """What the host should do after an audit (or after deciding not to audit).

    Attributes:
        action: one of ``finish`` (turn ends normally), ``supplement`` (send
            :attr:`supplement` back into the same turn), ``hand-to-user`` (needs-user),
            ``exhausted`` (budget used up; show the last verdict), ``incomplete`` (the
            audit did not complete; the user may retry or cancel), ``skip`` (no audit
            was due), ``cancelled``, ``busy`` (another process is auditing this turn
            right now) or ``stale`` (the turn moved on before the verdict was acted on;
            nothing is sent, design.md §14).
        supplement: the supplement text for ``supplement``, else ``None``.
        notice: one short line for the user ("" when there is nothing to say).
        outcome: the audit outcome when an audit ran, else ``None``.
        state: the turn's loop state after the decision (``None`` for skip).
        record_id: id of the record written, if any.
    """

    action: str
    supplement: str | None = None
    notice: str = ""
    outcome: AuditOutcome | None = None
    state: LoopState | None = None
    record_id: int | None = None

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready summary (used as the stored decision of a turn)."""
        return {
            "action": self.action,
            "supplement": self.supplement,
            "notice": self.notice,
            "record_id": self.record_id,
        }


def decide(
    state: LoopState, outcome: AuditOutcome, max_supplements: int, *, steer: bool = True
) -> tuple[LoopState, Action]:
    """Fold one audit outcome into the turn's loop state; say what to do next (design.md §8).

    Args:
        state: the turn's state before this outcome (``LoopState()`` for a new turn).
        outcome: the audit attempt's result; only ``status``, ``verdict`` and
            ``reason`` are read.
        max_supplements: N, the profile's ``max_supplements`` (1 … 2**53-1).
        steer: whether the host can send a supplement into the turn now. False for a
            retry from the shell after the turn stopped (design.md §7: a retry "uses no
            supplement"): a problem verdict with budget left is then handed to the
            user (``needs-user`` / ``hand-to-user``) and nothing is counted.

    Returns:
        ``(new_state, action)``; see the module docstring for the table.

        * ``skipped`` -> state unchanged, action ``skip``.
        * ``incomplete`` -> status ``incomplete``, ``last_error`` = the reason, counts
          unchanged, action ``incomplete``.
        * verdict ``complete`` -> ``done`` / ``finish``; ``needs-user`` ->
          ``needs-user`` / ``hand-to-user``; a problem verdict with
          ``supplements_used < N`` -> ``awaiting-supplement`` / ``supplement`` with
          round ``supplements_used + 1``; a problem verdict otherwise -> ``exhausted``
          / ``exhausted``. Every verdict adds one audit and extends ``chain``.
        * a state already ``exhausted`` or ``cancelled`` is returned unchanged with
          its terminal action again, whatever the outcome.

    Raises:
        ValueError: for an invalid ``max_supplements``, an unknown outcome status, a
            ``verdict`` outcome without a verdict, or an unknown assessment.
    """
    maximum = validate_max_supplements(max_supplements)
    used = state.supplements_used
    if state.status == "cancelled":
        return state, Action("cancelled", used, maximum, "audit cancelled earlier in this turn")
    if state.status == "exhausted":
        return state, Action("exhausted", used, maximum, _exhausted_reason(state, maximum))

    if outcome.status == "skipped":
        return state, Action("skip", used, maximum, outcome.reason or "no audit was due")
    if outcome.status == "incomplete":
        reason = outcome.reason or "the audit did not complete"
        new = _replace(state, status="incomplete", last_error=reason)
        return new, Action("incomplete", used, maximum, reason)
    if outcome.status != "verdict":
        raise ValueError(f"unknown audit outcome status {outcome.status!r}")
    if outcome.verdict is None:
        raise ValueError("an outcome with status 'verdict' must carry a verdict")

    assessment = outcome.verdict.assessment
    if assessment not in ASSESSMENTS:
        raise ValueError(f"unknown assessment {assessment!r}; expected one of {ASSESSMENTS}")
    audited = _replace(
        state,
        audits=state.audits + 1,
        chain=(*state.chain, assessment),
        last_focus_id=outcome.verdict.focus.id,
        last_error=None,
    )
    if assessment == "complete":
        return _replace(audited, status="done"), Action("finish", used, maximum, "complete")
    if assessment == "needs-user":
        return (
            _replace(audited, status="needs-user"),
            Action("hand-to-user", used, maximum, "completion depends on the user"),
        )
    # A problem verdict: omission, contradiction or unknown share the budget.
    assert assessment in PROBLEM_ASSESSMENTS
    if used < maximum and not steer:
        return (
            _replace(audited, status="needs-user"),
            Action(
                "hand-to-user",
                used,
                maximum,
                f"{assessment}: shown to the user; the turn has stopped, no supplement sent",
            ),
        )
    if used < maximum:
        k = used + 1
        return (
            _replace(audited, status="awaiting-supplement", supplements_used=k),
            Action("supplement", k, maximum, f"{assessment}: supplement {k}/{maximum}"),
        )
    exhausted = _replace(audited, status="exhausted")
    return exhausted, Action("exhausted", used, maximum, _exhausted_reason(exhausted, maximum))


def cancel(
    state: LoopState, max_supplements: int = DEFAULT_MAX_SUPPLEMENTS
) -> tuple[LoopState, Action]:
    """End the turn's audit on the user's request (design.md §8 "cancel").

    Nothing is rewritten: the chain and counts are kept, the turn is declared
    neither a success nor a failure. Cancelling twice is harmless.

    Args:
        state: the turn's state.
        max_supplements: N in force, only copied into the returned action (pass the
            profile's value; the default is the shipped default 3, design.md §10).

    Returns:
        ``(state with status "cancelled", Action("cancelled", supplements_used, N))``.

    Raises:
        ValueError: for an invalid ``max_supplements``.
    """
    maximum = validate_max_supplements(max_supplements)
    new = _replace(state, status="cancelled")
    return new, Action("cancelled", state.supplements_used, maximum, "cancelled by the user")


def _exhausted_reason(state: LoopState, maximum: int) -> str:
    last = state.last_verdict or "problem"
    return f"{last} remains; supplement budget used up ({state.supplements_used}/{maximum})"


def _replace(state: LoopState, **changes: Any) -> LoopState:
    values = state.to_json()
    values["chain"] = state.chain
    values.update(changes)
    return LoopState(**values)
