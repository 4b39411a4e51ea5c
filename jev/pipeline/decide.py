"""Step 5 of an audit: the loop's decision on an outcome, and what the host is told.

:func:`conclude` folds an :class:`~jev.base.domain.AuditOutcome` into the turn's loop state
(:func:`jev.pipeline.decide.decide`, design.md §8) and renders the supplement or the one-line notice
(:mod:`jev.pipeline.texts`); :class:`Decision` is what a host acts on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from jev.base.domain import AuditOutcome, Settings
from jev.base.loop_state import Action, LoopState
from jev.pipeline.decide import decide
from jev.pipeline.texts import incomplete_notice, report_line, supplement_text

__all__ = ["ACTIONS", "Conclusion", "Decision", "conclude", "notice_for", "ui_language"]

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
    """Step 5: decide the loop (:func:`jev.pipeline.decide.decide`) and render its texts (design.md §8).

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
