"""The offline ``rules`` judge: deterministic, zero-cost, heuristic (design.md §5, §13).

It answers the same question as a model judge, from the numbered material alone
(:class:`~jev.domain.Numbering`), with a fixed list of general English and Chinese
rules. The first rule that fires wins; every rule names the position that is its
evidence. When no rule is sure, the verdict is ``complete``: a false alarm costs the
agent a supplement round, so precision beats recall.

Rules, in priority order (ids appear in the reply's ``rule`` key):

============================  ==============  ===============================================
rule id                       assessment      fires when
============================  ==============  ===============================================
``condition-ignored``         omission        the request reserves an action for the user
                                              ("if there are duplicates, tell me first —
                                              don't merge anything") and the answer
                                              reports doing it (request-side ``scope``
                                              family, which runs first and also excuses
                                              open Todos the user deferred, limited, took
                                              over or stopped for review)
``condition-triggered``       needs-user      a reserved action is still open and the
                                              answer tells the user first, as asked
``withdrawal-misapplied``     omission        the answer leaves an item out "as you said"
                                              ("Skipped … the `Retry-After` header per your
                                              follow-up") but no user message withdrew it
``already-authorized``        omission        the answer asks permission for an action the
                                              request already asked for (e.g. "run it on prod
                                              too" vs "Should I also migrate prod?"), or for a
                                              command the request names (“with `helm upgrade`”)
``asks-user``                 needs-user      the answer ends by asking the user to choose,
                                              authorize, confirm or provide something needed
                                              to finish (not a trailing optional offer), or
                                              says so without a question anywhere in a turn
                                              that is visibly blocked ("I need credentials
                                              … or you can run it yourself", "until you
                                              confirm", "a decision I can't make", "需要你或
                                              财务来定"); in a turn with an open Todo or a
                                              "haven't done" note, saying it lacks a credential
                                              only the user can give ("I have neither",
                                              "Token … 我这边没有") counts too
``asks-for-requested-work``   omission        the answer asks whether to do requested work
                                              that is still open ("Should I also write the
                                              docs?") or to continue ("Shall I continue
                                              with the remaining four?") when the user set
                                              no stop
``user-only-blocker``         needs-user      an open Todo is blocked on something only the
                                              user can give (a credential, a token such as
                                              ``NPM_TOKEN``, access, a licence, a budget)
``partial-count-claimed-all`` contradiction   a Todo says N/M done (N < M) while the answer
                                              says all M ("all four …", "所有页面")
``open-item-claimed-passing`` contradiction   an unfinished or "still failing / not verified"
                                              Todo while the answer claims the same topic
                                              passed / verified / all fixed, or claims
                                              success in a sentence naming the open item's
                                              own identifier (its branch, job, file); a
                                              completed Todo whose note leaves part open
                                              ("— X waiting on finance", "3 warnings
                                              remain", "2 files still …", "portal 还没改",
                                              "其余 2 个…") against a claim of
                                              all ("every job", "no warnings", "都已统一")
``pending-item-claimed-done`` contradiction   a pending/in-progress Todo whose distinctive
                                              tokens the answer reports as done, or whose
                                              own leading action the answer reports in the
                                              past tense with its object ("Apply migration
                                              on staging" vs "Applied on staging")
``done-item-denied``          contradiction   a completed Todo while an answer clause (up to a
                                              contrast such as “…, only X”) denies that kind
                                              of work on the same topic or object ("I didn't
                                              add tests", "couldn't run", "没能验证", "保留了");
                                              the Todo's kind of work comes from its words, not
                                              its identifiers, and "X can't …" about a thing
                                              (not "I can't") is no denial
``number-mismatch``           contradiction   a Todo and the answer give different values with
                                              the same unit (passed counts, %, seconds)
``version-mismatch``          contradiction   a completed Todo sets a thing to version V while
                                              an answer clause naming it gives another
                                              version of the same shape (“stays at W”)
``setting-mismatch``          contradiction   a completed Todo sets a named setting to a number
                                              or boolean (“minReplicas 为 3”) while the answer
                                              shows it only at another value (an old value,
                                              “from 2” / “2 →”, does not count)
``none-claimed-vs-count``     contradiction   a completed Todo says none of a kind ("nothing
                                              destroyed", "no failures", "没有报错") while the
                                              answer reports a positive count ("1 to destroy")
``done-all-some-left``        contradiction   a completed "convert/migrate/replace all X" Todo
                                              while the answer says some X "are still" in the
                                              old state (“仍然是”)
``list-count-mismatch``       contradiction   “changed N files:” / “Files changed (N):”
                                              followed by a list of another length
``green-claim-vs-failures``   contradiction   “the whole suite is green” / “all N tests in X
                                              pass” / “both builds succeed” next to a run
                                              that reports failures (“the Android job is
                                              still failing”; not excused as unrelated)
``target-claimed-met``        contradiction   the request sets a bound ("meets our 80%
                                              coverage gate", "below 300 MB"), the report
                                              measures a value outside it ("78% (gate
                                              80%)") and the answer claims it met
``partial-pass-claimed-all``  contradiction   the answer reports fewer passes than cases
                                              ("the 48 cases …: 47 pass") and elsewhere
                                              claims every one ("for every fixture case")
``unchanged-claim-vs-change`` contradiction   “the public API is unchanged” next to a renamed
                                              public member (“`a.b` is now `a.c`”)
``all-claimed-some-deferred`` contradiction   “all N X were migrated” and “I'll port them
                                              later” / “还没替换” in another sentence
``answer-self-conflict``      contradiction   the answer reports an item both as changed and
                                              as left in place
``answer-setting-mismatch``   contradiction   the answer says a setting is now V ("batch size
                                              已改为 2000") while its own code shows another
                                              value (``batch_size: 1000``)
``answer-count-mismatch``     contradiction   "All 40 missing keys are translated" while
                                              another line gives fewer for the same noun and
                                              verb ("| keys translated | 36 |")
``answer-total-mismatch``     contradiction   the answer gives a count of done items and a
                                              total that disagrees ("Removed 12 flags" …
                                              "In total 9 flags were deleted")
``answer-none-vs-some``       contradiction   "no test was skipped" / "没有跳过任何用例" while
                                              the answer reports a skip marker it added
``all-done-with-open-items``  contradiction   the answer says all done while a Todo is open
``open-item``                 omission        a pending/in-progress Todo the user did not
                                              descope
``failures-remain``           omission        the request asked for passing/green/clean and the
                                              answer reports failures remaining or a partial
                                              pass count (“47 of 48 passed”, “48 个中 47 个
                                              通过”) (unless the
                                              request named one suite and the failure is
                                              explained as unrelated / pre-existing)
``target-missed``             omission        the report measures a value outside the
                                              request's bound ("1.21 GB → 412 MB" against
                                              "below 300 MB") and claims nothing about it
``constraint-violated``       omission        the request forbids a kind of change (public API,
                                              dependencies, schema, …) the answer reports
``answer-admits-unfinished``  omission        the answer says a part was not got to / not
                                              finished
``requested-deliverable-missing`` omission    the request asks to add tests / update docs,
                                              README, changelog / bump the version /
                                              regenerate the lockfile / provide a rollback
                                              script / mask (脱敏) a value, and neither the
                                              Todos nor the answer mention it (absence rules
                                              stay silent on a thin report)
``requested-item-declined``   omission        the answer says it did not do what the request
                                              asked ("I didn't add the index, because …",
                                              "所以我没有加缓存") without asking the user
``requested-run-missing``     omission        the request asks for a test run and the report
                                              gives no result of one (compiling is not
                                              running; a README or CI request asks for no
                                              run now)
``listed-item-missing``       omission        the request lists three or more things to act
                                              on (also after “On X:”); the Todos and answer
                                              name all but one (a part of an identifier such
                                              as ``deletion_protection`` counts as naming)
``request-clause-missing``    omission        a request sentence asks for two things ("add
                                              rate limiting … and lock the account after 5
                                              failed attempts"; "修复 X，另外把 Y …") and
                                              no word of the second shows up in the Todos
                                              or the answer (code words count)
``required-name-missing``     omission        a request clause requires a named field/flag
                                              (``request_id``), or adds one with "also
                                              include / also log" (``last_login``,
                                              TensorBoard), that the Todos and the answer
                                              never name
``thin-report``               unknown         the answer is empty or a bare "done" / "see the
                                              PR" without actions, paths, commands or results,
                                              and the Todos give no evidence either; a bare
                                              "Files changed:" list and a generic claim whose
                                              only specifics echo the request count as bare
``no-rule-fired``             complete        nothing above fired
============================  ==============  ===============================================

Package layout: one module per rule family (``scope``, ``asks``, ``claims``, ``numbers``,
``targets``, ``answer_conflicts``, ``answer_values``, ``outcomes``, ``open_items``,
``coverage``, ``thin``), each with
its English and Chinese word lists in a ``<family>.toml`` file next to it; shared parts
(the per-material view, token helpers, shared vocabulary in ``base.toml``) live in
``_base``. Sentences come from :func:`jev.positions.sentences`. The order in which the
rules run is the one list :data:`RULES` below.

Stdlib only (``re``, ``tomllib``); pure CPU, no I/O after import; same numbering in,
same text out.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from jev.domain import JudgeAnswer, JudgeInfo, Numbering
from jev.judges.rules._base import RuleHit, _View
from jev.judges.rules.answer_conflicts import (
    _rule_all_claimed_some_deferred,
    _rule_answer_self_conflict,
    _rule_done_all_some_left,
    _rule_unchanged_claim_vs_change,
)
from jev.judges.rules.answer_values import (
    _rule_answer_count_mismatch,
    _rule_answer_none_vs_some,
    _rule_answer_setting_mismatch,
    _rule_answer_total_mismatch,
)
from jev.judges.rules.asks import _rule_asks_user
from jev.judges.rules.claims import (
    _rule_done_item_denied,
    _rule_open_item_claimed_passing,
    _rule_pending_claimed_done,
)
from jev.judges.rules.coverage import (
    _rule_constraint_violated,
    _rule_deliverable_missing,
    _rule_listed_item_missing,
    _rule_request_clause_missing,
    _rule_requested_item_declined,
    _rule_requested_run_missing,
    _rule_required_name_missing,
)
from jev.judges.rules.numbers import (
    _rule_list_count_mismatch,
    _rule_none_claimed_vs_count,
    _rule_number_mismatch,
    _rule_partial_count,
    _rule_setting_mismatch,
    _rule_version_mismatch,
)
from jev.judges.rules.open_items import (
    _rule_admits_unfinished,
    _rule_all_done_with_open_items,
    _rule_open_item,
)
from jev.judges.rules.outcomes import (
    _rule_failures_remain,
    _rule_green_claim_vs_failures,
    _rule_partial_pass_claimed_all,
)
from jev.judges.rules.scope import (
    _rule_condition_ignored,
    _rule_condition_triggered,
    _rule_user_only_blocker,
    _rule_withdrawal_misapplied,
)
from jev.judges.rules.targets import _rule_target_claimed_met, _rule_target_missed
from jev.judges.rules.thin import _rule_thin_report
from jev.judges.rules.values import _rule_claim_vs_evidence, _rule_later_ask_missing

if TYPE_CHECKING:
    from jev.domain import JudgeInput, JudgeSettings

__all__ = ["RULES", "RULE_IDS", "RuleHit", "RulesJudge", "explain"]

#: The rules in priority order: the first one that returns a hit wins.
RULES: tuple[tuple[str, Callable[[_View], RuleHit | None]], ...] = (
    ("condition-ignored", _rule_condition_ignored),
    ("condition-triggered", _rule_condition_triggered),
    ("withdrawal-misapplied", _rule_withdrawal_misapplied),
    ("asks-user", _rule_asks_user),
    ("user-only-blocker", _rule_user_only_blocker),
    ("partial-count-claimed-all", _rule_partial_count),
    ("open-item-claimed-passing", _rule_open_item_claimed_passing),
    ("pending-item-claimed-done", _rule_pending_claimed_done),
    ("done-item-denied", _rule_done_item_denied),
    ("number-mismatch", _rule_number_mismatch),
    ("version-mismatch", _rule_version_mismatch),
    ("setting-mismatch", _rule_setting_mismatch),
    ("none-claimed-vs-count", _rule_none_claimed_vs_count),
    ("done-all-some-left", _rule_done_all_some_left),
    ("list-count-mismatch", _rule_list_count_mismatch),
    ("green-claim-vs-failures", _rule_green_claim_vs_failures),
    ("target-claimed-met", _rule_target_claimed_met),
    ("partial-pass-claimed-all", _rule_partial_pass_claimed_all),
    ("unchanged-claim-vs-change", _rule_unchanged_claim_vs_change),
    ("all-claimed-some-deferred", _rule_all_claimed_some_deferred),
    ("answer-self-conflict", _rule_answer_self_conflict),
    ("answer-setting-mismatch", _rule_answer_setting_mismatch),
    ("answer-count-mismatch", _rule_answer_count_mismatch),
    ("answer-total-mismatch", _rule_answer_total_mismatch),
    ("answer-none-vs-some", _rule_answer_none_vs_some),
    ("claim-vs-evidence", _rule_claim_vs_evidence),
    ("all-done-with-open-items", _rule_all_done_with_open_items),
    ("open-item", _rule_open_item),
    ("failures-remain", _rule_failures_remain),
    ("target-missed", _rule_target_missed),
    ("constraint-violated", _rule_constraint_violated),
    ("later-ask-missing", _rule_later_ask_missing),
    ("answer-admits-unfinished", _rule_admits_unfinished),
    ("requested-deliverable-missing", _rule_deliverable_missing),
    ("requested-item-declined", _rule_requested_item_declined),
    ("requested-run-missing", _rule_requested_run_missing),
    ("listed-item-missing", _rule_listed_item_missing),
    ("request-clause-missing", _rule_request_clause_missing),
    ("required-name-missing", _rule_required_name_missing),
    ("thin-report", _rule_thin_report),
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
        numbering: the material numbered by ``jev.positions.number``; Todo positions
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
