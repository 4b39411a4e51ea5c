"""Step 4 of an audit: the budget — refuse, never truncate (design.md §7).

:func:`budget_refusal` is the step: a rendered judge input (rules + reference list +
material) larger than the profile's ``evidence_chars`` is refused with an
``incomplete`` outcome and no judge call; nothing is ever cut to fit.
:func:`check_budget` is the check itself.
"""

from __future__ import annotations

from jev.base.domain import AuditOutcome, JudgeInfo, JudgeInput, Settings
from jev.base.errors import OverBudget, UsageError
from jev.pipeline.render import Prepared

__all__ = ["MAX_BUDGET_CHARS", "budget_refusal", "check_budget"]

#: Largest accepted ``evidence_chars`` (design.md §7, §10).
MAX_BUDGET_CHARS = 1_000_000


def budget_refusal(
    prepared: Prepared, settings: Settings, judge: JudgeInfo | None = None
) -> AuditOutcome | None:
    """The ``incomplete`` outcome for input over ``evidence_chars``, else ``None`` (design.md §7).

    Counts the whole rendered judge input (rules + reference list + material) in
    characters; nothing is truncated.

    Args:
        prepared: the rendered audit (:func:`jev.pipeline.render.render_audit`).
        settings: the settings whose ``evidence_chars`` applies.
        judge: the judge that would have been asked (for the outcome), if known.
    """
    try:
        check_budget(prepared.judge_input, settings.evidence_chars)
    except OverBudget as exc:
        return AuditOutcome(
            status="incomplete",
            reason=str(exc),
            error_kind=exc.kind,
            judge=judge,
            input_chars=exc.input_chars,
            budget_chars=exc.budget_chars,
            material_hash=prepared.material.digest(),
            template_hash=prepared.judge_input.template_hash,
            language=prepared.language,
        )
    return None


def check_budget(judge_input: JudgeInput, budget_chars: int) -> None:
    """Refuse a judge input larger than the budget; never truncate (design.md §7).

    Args:
        judge_input: the rendered input; its size is ``judge_input.chars``
            (characters of rules + reference list + material).
        budget_chars: ``evidence_chars``, an ``int`` in 1 … 1,000,000.

    Raises:
        UsageError: ``budget_chars`` is not an int (``bool`` is refused) or is outside
            1 … 1,000,000.
        OverBudget: ``judge_input.chars > budget_chars`` (carries both numbers).
    """
    if not isinstance(budget_chars, int) or isinstance(budget_chars, bool):
        raise UsageError(
            f"evidence_chars must be a whole number of characters, got {budget_chars!r}; "
            f"use an integer from 1 to {MAX_BUDGET_CHARS:,}."
        )
    if not 1 <= budget_chars <= MAX_BUDGET_CHARS:
        raise UsageError(
            f"evidence_chars must be from 1 to {MAX_BUDGET_CHARS:,} characters, "
            f"got {budget_chars:,}."
        )
    size = judge_input.chars
    if size > budget_chars:
        raise OverBudget(size, budget_chars)
