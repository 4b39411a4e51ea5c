"""Steps 1–4 of an audit: gate → positions → render → budget → ask / parse / retry.

:func:`run_audit` is one audit of a turn's material (design.md §2–§7): a turn without
Todo use is ``skipped`` (no judge call); the material is numbered
(:mod:`jev.base.segments`) and the whole judge input rendered (:mod:`jev.pipeline.render`); input
over ``evidence_chars`` is refused (``incomplete``, nothing truncated); then the
judge is asked, its reply parsed, and technical retries made as :mod:`jev.pipeline.ask`
says. :class:`jev.pipeline.audit.Auditor` runs it inside the turn's loop and record; eval
and live replay run it directly.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from jev.pipeline.budget import check_budget
from jev.pipeline.material import number

from jev import log
from jev.base.domain import (
    AuditOutcome,
    JudgeAnswer,
    JudgeInfo,
    JudgeInput,
    Material,
    Numbering,
    Settings,
)
from jev.base.errors import JudgeError, OverBudget, ResponseError
from jev.base.language import resolve_language
from jev.pipeline.ask import Attempts, ask_until_verdict, with_retry_note
from jev.pipeline.gate import SKIP_NO_TODO
from jev.pipeline.render import render_judge_input

if TYPE_CHECKING:
    from jev.evidence.step import EvidenceInput
    from jev.judges import Judge

__all__ = ["SKIP_NO_TODO", "Prepared", "budget_refusal", "prepare", "run_audit"]


@dataclass(frozen=True, slots=True)
class Prepared:
    """A rendered audit ready for the judge: numbering, judge input and language."""

    material: Material
    numbering: Numbering
    judge_input: JudgeInput
    language: str


def prepare(material: Material, settings: Settings, *, language: str | None = None) -> Prepared:
    """Number the material and render the whole judge input (design.md §4, §5).

    Args:
        material: the turn's material.
        settings: the effective profile (``language`` is used unless overridden).
        language: ``en``/``zh``/``auto`` to override ``settings.language``.

    Returns:
        The :class:`Prepared` audit. Budget is not checked here (see :func:`run_audit`).
    """
    numbering = number(material)
    lang = resolve_language(language or settings.language, material)
    return Prepared(material, numbering, render_judge_input(numbering, lang), lang)


def _gate(material: Material, settings: Settings, judge: JudgeInfo | None) -> AuditOutcome | None:
    if not material.todo_used:
        return AuditOutcome(
            status="skipped",
            reason=SKIP_NO_TODO,
            judge=judge,
            budget_chars=settings.evidence_chars,
            material_hash=material.digest(),
        )
    return None


def budget_refusal(
    prepared: Prepared, settings: Settings, judge: JudgeInfo | None = None
) -> AuditOutcome | None:
    """The ``incomplete`` outcome for input over ``evidence_chars``, else ``None`` (design.md §7).

    Counts the whole rendered judge input (rules + reference list + material) in
    characters; nothing is truncated.

    Args:
        prepared: the rendered audit (:func:`prepare`).
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


def _start(
    material: Material,
    settings: Settings,
    judge: Judge,
    language: str | None,
    evidence: EvidenceInput | None = None,
) -> tuple[Attempts, JudgeInput] | AuditOutcome:
    """Steps 1–3: the gated, evidence-decided or refused outcome, or the attempts ready
    for the judge."""
    gated = _gate(material, settings, judge.info)
    if gated is not None:
        return gated
    with log.timed("render"):
        prepared = prepare(material, settings, language=language)
    if evidence is not None:
        # lazy: the evidence step only when the caller passed the turn's runs or checks
        from jev.evidence.step import before_judge

        with log.timed("evidence"):
            decided = before_judge(
                prepared.numbering,
                settings,
                evidence,
                language=prepared.language,
                material_hash=material.digest(),
                template_hash=prepared.judge_input.template_hash,
            )
        if decided is not None:
            return replace(decided, input_chars=prepared.judge_input.chars)
    with log.timed("budget"):
        refused = budget_refusal(prepared, settings, judge.info)
    if refused is not None:
        return refused
    attempts = Attempts(
        numbering=prepared.numbering,
        input_chars=prepared.judge_input.chars,
        template_hash=prepared.judge_input.template_hash,
        language=prepared.language,
        material_hash=material.digest(),
        settings=settings,
        judge=judge.info,
    )
    return attempts, prepared.judge_input


def run_audit(
    material: Material,
    settings: Settings,
    judge: Judge,
    *,
    language: str | None = None,
    sleep: Callable[[float], None] = time.sleep,
    evidence: EvidenceInput | None = None,
) -> AuditOutcome:
    """Run one audit attempt of a turn's material: steps 1–4 (design.md §2–§7).

    Args:
        material: the turn's request, latest Todo list and final answer.
        settings: the effective profile (budget, language, judge retries).
        judge: any :class:`jev.judges.Judge`; asked once, plus at most
            ``settings.judge.technical_retries`` technical retries.
        language: overrides ``settings.language`` (``auto``/``en``/``zh``).
        sleep: called with the seconds to wait before a technical retry.
        evidence: the turn's runs and whether checks may run (issue 21,
            :mod:`jev.evidence.step`): a claim the turn's last matching run
            contradicts is ``contradiction`` with no judge call; a ``complete``
            verdict followed by a failed check is ``omission``. ``None``: no evidence
            step.

    Returns:
        ``skipped`` (no Todo use), ``verdict`` (a normal audit) or ``incomplete``
        (over budget: no judge call; or judge failure after the retries). Never raises
        for judge or budget problems; :class:`jev.base.errors.JevError` from rendering
        (e.g. a broken installation) propagates.
    """
    started = _start(material, settings, judge, language, evidence)
    if isinstance(started, AuditOutcome):
        return started
    attempts, judge_input = started

    def ask() -> JudgeAnswer:
        # a retry after a refused reply says what was wrong (issue 20 item 3)
        last = attempts.last_error
        asked = judge_input
        if attempts.calls > 1 and isinstance(last, ResponseError):
            asked = with_retry_note(judge_input, last.message)
        if log.level() is None:
            return judge.ask(asked, attempts.numbering)
        return _logged_ask(judge, asked, attempts)

    with log.timed("judge"):
        outcome = ask_until_verdict(attempts, ask, sleep)
    if evidence is None:
        return outcome
    # lazy: as in _start
    from jev.evidence.step import after_judge

    with log.timed("checks"):
        return after_judge(outcome, attempts.numbering, settings, evidence)


def _logged_ask(judge: Judge, asked: JudgeInput, attempts: Attempts) -> JudgeAnswer:
    """``judge.ask`` with one ``judge`` line in Jev's log (:mod:`jev.log`): provider,
    model, call number (a retry with ``retry_for``: the previous call's error kind,
    e.g. ``reply-malformed``), milliseconds and outcome — ``answered`` (with the
    reply's length in characters) or ``failed`` (the error's kind, class and HTTP
    status); never the input, the reply or an error message. Raises what
    ``judge.ask`` raises."""
    info = judge.info
    last = attempts.last_error
    fields: dict[str, Any] = {
        "provider": info.provider,
        "model": info.model or None,
        "call": attempts.calls,
        # a technical retry says what the previous call's problem was (its kind only)
        "retry_for": last.kind if attempts.calls > 1 and last is not None else None,
    }
    started = time.perf_counter()
    try:
        answer = judge.ask(asked, attempts.numbering)
    except JudgeError as exc:
        ms = (time.perf_counter() - started) * 1000.0
        status = getattr(exc, "status", None)
        log.emit(
            "judge",
            **fields,
            ms=ms,
            outcome="failed",
            error_kind=exc.kind,
            error=type(exc).__name__,
            http_status=status if isinstance(status, int) else None,
        )
        raise
    ms = (time.perf_counter() - started) * 1000.0
    log.emit(
        "judge",
        **{**fields, "model": answer.model or info.model or None},
        ms=ms,
        outcome="answered",
        reply_chars=len(answer.text),
        reply_mode=answer.reply_mode or None,
    )
    return answer
