"""The one audit orchestrator: material → positions → render → budget → judge → verdict.

One call of :func:`run_audit` is one audit attempt of SPEC §5–§7:

1. gate: a turn without Todo use is ``skipped`` (SPEC §2; the ``enabled`` switch and
   the root-turn rule are the caller's, because ``jev audit`` is an explicit request);
2. number the material (:mod:`jev.positions`) and render the whole judge input in the
   profile's language (:mod:`jev.render`);
3. refuse input over ``evidence_chars`` (SPEC §7): ``incomplete``, no judge call;
4. ask the judge exactly once, parse and map the reply (:mod:`jev.reply`); on a
   response error or a retryable transport failure, make up to
   ``judge.technical_retries`` further calls, honouring ``Retry-After`` (SPEC §6);
   technical retries never count as normal audits;
5. return an :class:`~jev.domain.AuditOutcome`: ``verdict`` or ``incomplete``.

The judge, the sleep function and the language override are arguments, so tests and
replay swap them without patching. No loop decision and no storage happen here (see
:mod:`jev.loop` and :mod:`jev.api`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from jev.domain import (
    AuditOutcome,
    JudgeAnswer,
    JudgeInfo,
    JudgeInput,
    Material,
    Numbering,
    Settings,
    Usage,
)
from jev.errors import JudgeError, OverBudget, TransportError

if TYPE_CHECKING:
    from jev.judges import Judge

__all__ = [
    "DEFAULT_BACKOFF_S",
    "MAX_RETRY_WAIT_S",
    "Prepared",
    "prepare",
    "run_audit",
    "run_audit_async",
]

#: Wait before a technical retry when the provider gave no ``Retry-After`` (seconds).
DEFAULT_BACKOFF_S = 1.0
#: Upper bound on any single wait before a technical retry (seconds).
MAX_RETRY_WAIT_S = 60.0

SKIP_NO_TODO = "no Todo use in this turn"


@dataclass(frozen=True, slots=True)
class Prepared:
    """A rendered audit ready for the judge: numbering, judge input and language."""

    material: Material
    numbering: Numbering
    judge_input: JudgeInput
    language: str


def prepare(material: Material, settings: Settings, *, language: str | None = None) -> Prepared:
    """Number the material and render the whole judge input (SPEC §4, §5).

    Args:
        material: the turn's material.
        settings: the effective profile (``language`` is used unless overridden).
        language: ``en``/``zh``/``auto`` to override ``settings.language``.

    Returns:
        The :class:`Prepared` audit. Budget is not checked here (see :func:`run_audit`).
    """
    from jev.language import resolve_language
    from jev.positions import number
    from jev.render import render_judge_input

    numbering = number(material)
    lang = resolve_language(language or settings.language, material)
    return Prepared(material, numbering, render_judge_input(numbering, lang), lang)


def _add_usage(total: Usage | None, more: Usage | None) -> Usage | None:
    if more is None:
        return total
    if total is None:
        return more

    def plus(a: int | None, b: int | None) -> int | None:
        return None if a is None and b is None else (a or 0) + (b or 0)

    return Usage(
        plus(total.input_tokens, more.input_tokens), plus(total.output_tokens, more.output_tokens)
    )


class _Attempts:
    """Sans-I/O bookkeeping of the judge calls of one audit (shared by sync and async)."""

    def __init__(self, prepared: Prepared, settings: Settings, judge: Judge) -> None:
        self.prepared = prepared
        self.settings = settings
        self.judge = judge
        self.raw: list[str] = []
        self.usage: Usage | None = None
        self.latency_ms = 0.0
        self.calls = 0
        self.last_error: JudgeError | None = None

    @property
    def max_calls(self) -> int:
        return 1 + max(0, self.settings.judge.technical_retries)

    def base(self) -> AuditOutcome:
        p = self.prepared
        return AuditOutcome(
            status="incomplete",
            judge=self.judge.info,
            input_chars=p.judge_input.chars,
            budget_chars=self.settings.evidence_chars,
            raw_replies=tuple(self.raw),
            usage=self.usage,
            latency_ms=round(self.latency_ms, 3),
            attempts=self.calls,
            material_hash=p.material.digest(),
            template_hash=p.judge_input.template_hash,
            language=p.language,
        )

    def on_answer(self, answer: JudgeAnswer) -> AuditOutcome | None:
        """Parse one answer. Returns the verdict outcome, or None to try again."""
        from jev.errors import ResponseError
        from jev.reply import parse_reply

        self.raw.append(answer.text)
        self.usage = _add_usage(self.usage, answer.usage)
        self.latency_ms += answer.latency_ms
        try:
            verdict = parse_reply(answer.text, self.prepared.numbering)
        except ResponseError as exc:
            self.last_error = exc
            return None
        return replace(self.base(), status="verdict", verdict=verdict)

    def on_error(self, exc: JudgeError) -> float | None:
        """Record a failed call. Returns seconds to wait before retrying, or None to stop."""
        self.last_error = exc
        if isinstance(exc, TransportError) and not exc.retryable:
            return None
        if self.calls >= self.max_calls:
            return None
        wait = exc.retry_after_s if isinstance(exc, TransportError) else None
        return min(MAX_RETRY_WAIT_S, wait if wait is not None else DEFAULT_BACKOFF_S)

    def may_call(self) -> bool:
        return self.calls < self.max_calls

    def incomplete(self) -> AuditOutcome:
        err = self.last_error
        kind = err.kind if err is not None else "judge"
        detail = str(err) if err is not None else "the judge gave no answer"
        tries = f" after {self.calls} call{'s' if self.calls != 1 else ''}"
        return replace(
            self.base(), error_kind=kind, reason=f"judge failure ({kind}){tries}: {detail}"
        )


def _gate(material: Material, settings: Settings, judge: Judge) -> AuditOutcome | None:
    if not material.todo_used:
        return AuditOutcome(
            status="skipped",
            reason=SKIP_NO_TODO,
            judge=judge.info,
            budget_chars=settings.evidence_chars,
            material_hash=material.digest(),
        )
    return None


def budget_refusal(
    prepared: Prepared, settings: Settings, judge: JudgeInfo | None = None
) -> AuditOutcome | None:
    """The ``incomplete`` outcome for input over ``evidence_chars``, else ``None`` (SPEC §7).

    Counts the whole rendered judge input (rules + reference list + material) in
    characters; nothing is truncated. Shared by the live path and offline replay.

    Args:
        prepared: the rendered audit (:func:`prepare`).
        settings: the settings whose ``evidence_chars`` applies.
        judge: the judge that would have been asked (for the outcome), if known.
    """
    from jev.render import check_budget

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


def run_audit(
    material: Material,
    settings: Settings,
    judge: Judge,
    *,
    language: str | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> AuditOutcome:
    """Run one audit attempt of a turn's material (SPEC §2–§7).

    Args:
        material: the turn's request, latest Todo list and final answer.
        settings: the effective profile (budget, language, judge retries).
        judge: any :class:`jev.judges.Judge`; asked once, plus at most
            ``settings.judge.technical_retries`` technical retries.
        language: overrides ``settings.language`` (``auto``/``en``/``zh``).
        sleep: called with the seconds to wait before a technical retry.

    Returns:
        ``skipped`` (no Todo use), ``verdict`` (a normal audit) or ``incomplete``
        (over budget: no judge call; or judge failure after the retries). Never raises
        for judge or budget problems; :class:`jev.errors.JevError` from rendering
        (e.g. a broken installation) propagates.
    """
    gated = _gate(material, settings, judge)
    if gated is not None:
        return gated
    prepared = prepare(material, settings, language=language)
    refused = budget_refusal(prepared, settings, judge.info)
    if refused is not None:
        return refused
    attempts = _Attempts(prepared, settings, judge)
    while attempts.may_call():
        attempts.calls += 1
        try:
            answer = judge.ask(prepared.judge_input, prepared.numbering)
        except JudgeError as exc:
            wait = attempts.on_error(exc)
            if wait is None:
                break
            sleep(wait)
            continue
        outcome = attempts.on_answer(answer)
        if outcome is not None:
            return outcome
    return attempts.incomplete()


async def run_audit_async(
    material: Material,
    settings: Settings,
    judge: Judge,
    *,
    language: str | None = None,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
) -> AuditOutcome:
    """Asynchronous :func:`run_audit` (same contract), for bounded-concurrency replay."""
    gated = _gate(material, settings, judge)
    if gated is not None:
        return gated
    prepared = prepare(material, settings, language=language)
    refused = budget_refusal(prepared, settings, judge.info)
    if refused is not None:
        return refused
    attempts = _Attempts(prepared, settings, judge)
    while attempts.may_call():
        attempts.calls += 1
        try:
            answer = await judge.ask_async(prepared.judge_input, prepared.numbering)
        except JudgeError as exc:
            wait = attempts.on_error(exc)
            if wait is None:
                break
            await sleep(wait)
            continue
        outcome = attempts.on_answer(answer)
        if outcome is not None:
            return outcome
    return attempts.incomplete()
