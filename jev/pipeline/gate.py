"""Step 1 of an audit: the gate — does this stop ask the judge at all? (design.md §2, §8).

* :func:`gate` — a turn that used no Todo list is ``skipped``: no judge call, and
  the outcome says why (:data:`SKIP_NO_TODO`);
* :func:`should_audit` — a turn whose loop is ``exhausted`` or ``cancelled`` audits
  nothing more (the orchestrator asks it when it claims the turn).

A disabled profile is the first gate of a host's stop (:class:`jev.pipeline.audit.Auditor`
with ``honour_enabled``; the hook's fast path, :mod:`jev.hosts.fastpath`, checks it
earlier still).
"""

from __future__ import annotations

from jev.base.domain import AuditOutcome, JudgeInfo, Material, Settings
from jev.base.loop_state import TERMINAL_STATUSES, LoopState, validate_max_supplements

__all__ = ["SKIP_NO_TODO", "gate", "should_audit"]

#: The reason of a turn skipped because it used no Todo list (design.md §2).
SKIP_NO_TODO = "no Todo use in this turn"


def gate(material: Material, settings: Settings, judge: JudgeInfo | None) -> AuditOutcome | None:
    """The ``skipped`` outcome of a turn without Todo use, else ``None`` (audit it).

    Args:
        material: the turn's material (``todo_used`` is read).
        settings: the profile (its ``evidence_chars`` goes into the outcome).
        judge: the judge that would have been asked, if known.
    """
    if not material.todo_used:
        return AuditOutcome(
            status="skipped",
            reason=SKIP_NO_TODO,
            judge=judge,
            budget_chars=settings.evidence_chars,
            material_hash=material.digest(),
        )
    return None


def should_audit(state: LoopState, max_supplements: int) -> bool:
    """Whether a stop in this turn should ask the judge at all (design.md §8).

    False once the turn's loop is ``exhausted`` (the last verdict stands, no more
    supplements and no more audits) or ``cancelled``; True otherwise, including after
    ``done``/``needs-user`` (a later stop of the same turn is a continuation, see
    :mod:`jev.pipeline.decide`) and after an ``incomplete`` audit (retry).

    Raises:
        ValueError: for an invalid ``max_supplements``.
    """
    validate_max_supplements(max_supplements)
    return state.status not in TERMINAL_STATUSES
