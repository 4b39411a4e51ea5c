"""The offline ``rules`` judge: deterministic, zero-cost, heuristic (design.md §5, §13).

It answers the same question as a model judge, from the numbered material alone
(:class:`~jev.base.domain.Numbering`), with a fixed list of general English and Chinese
rules. The first rule that fires wins; every rule names the position that is its
evidence and quotes both sides of its finding (the open item and the claim, the two
values, the condition and the act). When no rule can, the verdict is ``complete``: a
false alarm costs the agent a supplement round, so precision beats recall. The rules
read the answer without its filler (a closing "Thanks!", a leading "## Summary") and
with LF line ends, so wording that says nothing changes no verdict (issue 22). A model
judge remains the recommended setting; this one is the offline fallback.

Rules in priority order (:data:`RULES`; ids appear in the reply's ``rule`` key); each
rule function's docstring says exactly when it fires:

=================================  ==============  ==========================================
rule id                            assessment      kind
=================================  ==============  ==========================================
``condition-ignored``              omission        an act the request reserved for the user
``condition-triggered``            needs-user      a reserved act still open, the user told
``already-authorized``             omission        asks leave for what the request asked for
``asks-user``                      needs-user      ends asking the user to choose or provide
``asks-for-requested-work``        omission        asks whether to do open requested work
``user-only-blocker``              needs-user      blocked on what only the user can give
``partial-count-claimed-all``      contradiction   Todo N/M done, answer says all M
``open-item-claimed-passing``      contradiction   open / part-open Todo, answer claims it
``pending-item-claimed-done``      contradiction   pending Todo whose work the answer reports
``done-item-denied``               contradiction   completed Todo, answer denies that work
``number-mismatch``                contradiction   Todo and answer values of one unit differ
``version-mismatch``               contradiction   Todo sets version V, answer gives another
``green-claim-vs-failures``        contradiction   "suite is green" next to reported failures
``target-claimed-met``             contradiction   a measured value outside the request's
                                                   bound, and the answer claims it met
``claim-vs-evidence``              contradiction   all/none claimed against the answer's own
                                                   table, pasted output or a Todo's note
``all-done-with-open-items``       contradiction   "all done" while a Todo is open
``open-item``                      omission        a pending / in-progress Todo not descoped
``failures-remain``                omission        failures left in a run the request wanted
                                                   green, or in the tally of the asked run
``target-missed``                  omission        a measured value outside the bound
``later-ask-missing``              omission        a mid-turn ask whose named thing is absent
``answer-admits-unfinished``       omission        the answer says a part was not finished
``requested-deliverable-missing``  omission        asked tests / docs / changelog … absent
``requested-run-missing``          omission        asked test run with no result reported
``required-name-missing``          omission        a required named field never named
``thin-report``                    unknown         empty or bare answer, no evidence
``no-rule-fired``                  complete        nothing above fired
=================================  ==============  ==========================================

Package layout: one module per rule family (``scope``, ``asks``, ``claims``, ``numbers``,
``targets``, ``values``, ``later_asks``, ``outcomes``, ``open_items``, ``coverage``,
``thin``), each with its English and Chinese word lists in a ``<family>.toml`` file next
to it; shared parts (the per-material view, filler, token helpers, shared vocabulary in
``base.toml``) live in ``_base``. Sentences come from :func:`jev.base.segments.sentences`.

Stdlib only (``re``, ``tomllib``); pure CPU, no I/O after import; same numbering in,
same text out.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from jev.base.domain import JudgeAnswer, JudgeInfo, Numbering
from jev.judges.rules import (
    asks,
    claims,
    coverage,
    later_asks,
    numbers,
    open_items,
    outcomes,
    scope,
    targets,
    thin,
    values,
)
from jev.judges.rules._base import RuleHit, _View

if TYPE_CHECKING:
    from jev.base.domain import JudgeInput, JudgeSettings

__all__ = ["RULES", "RULE_IDS", "RuleHit", "RulesJudge", "explain"]

#: The rules in priority order: the first one that returns a hit wins.
RULES: tuple[tuple[str, Callable[[_View], RuleHit | None]], ...] = (
    ("condition-ignored", scope._rule_condition_ignored),
    ("condition-triggered", scope._rule_condition_triggered),
    ("asks-user", asks._rule_asks_user),
    ("user-only-blocker", scope._rule_user_only_blocker),
    ("partial-count-claimed-all", numbers._rule_partial_count),
    ("open-item-claimed-passing", claims._rule_open_item_claimed_passing),
    ("pending-item-claimed-done", claims._rule_pending_claimed_done),
    ("done-item-denied", claims._rule_done_item_denied),
    ("number-mismatch", numbers._rule_number_mismatch),
    ("version-mismatch", numbers._rule_version_mismatch),
    ("green-claim-vs-failures", outcomes._rule_green_claim_vs_failures),
    ("target-claimed-met", targets._rule_target_claimed_met),
    ("claim-vs-evidence", values._rule_claim_vs_evidence),
    ("all-done-with-open-items", open_items._rule_all_done_with_open_items),
    ("open-item", open_items._rule_open_item),
    ("failures-remain", outcomes._rule_failures_remain),
    ("target-missed", targets._rule_target_missed),
    ("later-ask-missing", later_asks._rule_later_ask_missing),
    ("answer-admits-unfinished", open_items._rule_admits_unfinished),
    ("requested-deliverable-missing", coverage._rule_deliverable_missing),
    ("requested-run-missing", coverage._rule_requested_run_missing),
    ("required-name-missing", coverage._rule_required_name_missing),
    ("thin-report", thin._rule_thin_report),
)

#: Every rule id the judge can report, ``no-rule-fired`` last.
RULE_IDS: tuple[str, ...] = (
    "already-authorized",
    "asks-for-requested-work",
    *(name for name, _ in RULES),
    "no-rule-fired",
)


def explain(numbering: Numbering) -> RuleHit:
    """Run the rules on one numbered material and say which fired (design.md §5, §13).

    Args:
        numbering: the material numbered by ``jev.pipeline.material.number``; Todo positions
            carry their status.

    Returns:
        The first rule hit in priority order, or ``complete`` with focus ``none``
        (rule ``no-rule-fired``). The focus id always exists in ``numbering`` and fits
        the assessment (real position for omission/contradiction/needs-user).

    Deterministic, no I/O; a few milliseconds at 24,000 characters.
    """
    view = _View(numbering)
    for _name, rule in RULES:
        hit = rule(view)
        if hit is not None:
            return hit
    return RuleHit(
        "no-rule-fired",
        "complete",
        "none",
        "no heuristic found an unfinished, contradicted or user-blocked requirement",
        0.5,
    )


class RulesJudge:
    """The offline heuristic judge (design.md §13): the embedded default judge.

    ``info`` is ``JudgeInfo(provider="rules", model="heuristic-v1", heuristic=True)``;
    every reply carries ``"heuristic": true`` and the ``rule`` that fired. It reads the
    structured ``numbering`` and ignores the rendered prompt text; it never raises
    transport errors and costs no tokens (``usage`` is ``None``).
    """

    info = JudgeInfo(provider="rules", model="heuristic-v1", heuristic=True)

    @classmethod
    def from_settings(cls, settings: JudgeSettings) -> RulesJudge:
        """Registry factory (``jev.judges.rules:RulesJudge.from_settings``).

        The rules judge has no options; ``settings`` (model, URL, key, timeout) is
        accepted and ignored.
        """
        del settings
        return cls()

    def ask(self, judge_input: JudgeInput, numbering: Numbering) -> JudgeAnswer:
        """Judge ``numbering``; return the JSON reply text a model would send.

        Args:
            judge_input: the rendered input (unused; kept for the Judge protocol).
            numbering: the numbered material.

        Returns:
            ``JudgeAnswer(text=<JSON with assessment, focus, confidence, rule,
            heuristic>, usage=None, model="heuristic-v1", latency_ms=<ms>)``.
        """
        del judge_input
        started = time.perf_counter()
        hit = explain(numbering)
        elapsed_ms = (time.perf_counter() - started) * 1000.0
        return JudgeAnswer(
            text=hit.to_reply(), usage=None, model=self.info.model, latency_ms=elapsed_ms
        )

    def close(self) -> None:
        """Nothing to release (idempotent)."""
