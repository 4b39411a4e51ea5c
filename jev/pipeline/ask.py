"""The judge calls of one audit: technical retries and their waits (design.md §6), sans I/O.

:func:`jev.pipeline.audit.run_audit` drives an :class:`Attempts`: it makes each call and
sleeps; this module only counts calls, parses each answer (the first valid reply
wins), decides whether and how long to wait before the next call, and builds the
:class:`~jev.base.domain.AuditOutcome`. Technical retries never count as normal audits.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Literal

from jev.base.domain import (
    AuditOutcome,
    JudgeAnswer,
    JudgeInfo,
    Numbering,
    Settings,
    Usage,
    Verdict,
)
from jev.base.errors import RETRY_AFTER_CAP_S, JudgeError, ResponseError, TransportError
from jev.pipeline.parse import parse_reply

__all__ = ["DEFAULT_BACKOFF_S", "MAX_RETRY_WAIT_S", "SKIP_NO_TODO", "Attempts", "ask_until_verdict"]

#: Wait before a technical retry when the provider gave no ``Retry-After`` (seconds).
DEFAULT_BACKOFF_S = 1.0
#: Upper bound on any single wait before a technical retry (seconds; the one
#: ``Retry-After`` cap, :data:`jev.base.errors.RETRY_AFTER_CAP_S`).
MAX_RETRY_WAIT_S = RETRY_AFTER_CAP_S
#: The reason of a turn skipped because it used no Todo list (design.md §2).
SKIP_NO_TODO = "no Todo use in this turn"


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


@dataclass(slots=True)
class Attempts:
    """Bookkeeping of the judge calls of one audit (shared by sync and async callers).

    Attributes:
        numbering: the numbered material (replies are parsed against it).
        input_chars: characters of the rendered judge input (``None``: not rendered).
        template_hash: hash of the prompt templates used.
        language: the prompt language (``en``/``zh``).
        material_hash: ``Material.digest()`` of the material judged.
        settings: the profile (``judge.technical_retries``, ``evidence_chars``).
        judge: which judge is asked.
        calls: judge calls made so far (the caller increments it before each call).
    """

    numbering: Numbering
    input_chars: int | None
    template_hash: str
    language: str
    material_hash: str
    settings: Settings
    judge: JudgeInfo | None
    calls: int = 0
    raw: list[str] = field(default_factory=list)
    usage: Usage | None = None
    latency_ms: float = 0.0
    last_error: JudgeError | None = None
    reply_mode: str = ""
    retried: list[str] = field(default_factory=list)

    @property
    def max_calls(self) -> int:
        """1 + ``judge.technical_retries``."""
        return 1 + max(0, self.settings.judge.technical_retries)

    def may_call(self) -> bool:
        """Whether another judge call is allowed."""
        return self.calls < self.max_calls

    def base(
        self,
        status: Literal["verdict", "incomplete"] = "incomplete",
        verdict: Verdict | None = None,
    ) -> AuditOutcome:
        """The outcome carrying everything gathered so far (``incomplete`` unless told)."""
        return AuditOutcome(
            status=status,
            verdict=verdict,
            judge=self.judge,
            input_chars=self.input_chars,
            budget_chars=self.settings.evidence_chars,
            raw_replies=tuple(self.raw),
            usage=self.usage,
            latency_ms=round(self.latency_ms, 3),
            attempts=self.calls,
            material_hash=self.material_hash,
            template_hash=self.template_hash,
            language=self.language,
            reply_mode=self.reply_mode,
        )

    def on_answer(self, answer: JudgeAnswer) -> AuditOutcome | None:
        """Parse one answer: the verdict outcome, or ``None`` to try again."""
        self.raw.append(answer.text)
        self.usage = _add_usage(self.usage, answer.usage)
        self.latency_ms += answer.latency_ms
        self.reply_mode = answer.reply_mode
        try:
            verdict = parse_reply(answer.text, self.numbering)
        except ResponseError as exc:
            self.last_error = exc
            self.retried.append(f"{exc.kind}: {exc.message}")
            return None
        outcome = self.base("verdict", verdict)
        if self.retried:  # the record says what the technical retries were for (issue 20)
            tries = "; ".join(self.retried)
            outcome = replace(outcome, reason=f"verdict after {self.calls} calls ({tries})")
        return outcome

    def on_error(self, exc: JudgeError, elapsed_ms: float = 0.0) -> float | None:
        """Record a failed call (``elapsed_ms`` it took, counted in the latency): seconds
        to wait before retrying, or ``None`` to stop."""
        self.last_error = exc
        self.latency_ms += max(0.0, elapsed_ms)
        self.retried.append(f"{exc.kind}: {' '.join(str(exc).split())[:160]}")
        if isinstance(exc, TransportError) and not exc.retryable:
            return None
        if self.calls >= self.max_calls:
            return None
        wait = exc.retry_after_s if isinstance(exc, TransportError) else None
        return min(MAX_RETRY_WAIT_S, wait if wait is not None else DEFAULT_BACKOFF_S)

    def incomplete(self) -> AuditOutcome:
        """The ``incomplete`` outcome after the last allowed call failed."""
        err = self.last_error
        kind = err.kind if err is not None else "judge"
        detail = str(err) if err is not None else "the judge gave no answer"
        tries = f" after {self.calls} call{'s' if self.calls != 1 else ''}"
        return replace(
            self.base(), error_kind=kind, reason=f"judge failure ({kind}){tries}: {detail}"
        )


def ask_until_verdict(
    attempts: Attempts, ask: Callable[[], JudgeAnswer], sleep: Callable[[float], None]
) -> AuditOutcome:
    """Call ``ask`` until a reply parses, technical retries run out, or a failure is final.

    The first valid reply wins (design.md §6). Used by :func:`jev.pipeline.audit.run_audit` (``ask``
    calls the judge) and by offline replay (``ask`` returns the stored replies in
    order, then raises the stored failure).

    Args:
        attempts: the bookkeeping of this audit (``calls`` is incremented here).
        ask: makes one judge call; raises :class:`~jev.base.errors.JudgeError` on failure.
        sleep: called with the seconds to wait before a technical retry.

    Returns:
        the ``verdict`` or ``incomplete`` outcome.
    """
    while attempts.may_call():
        attempts.calls += 1
        started = time.perf_counter()
        try:
            answer = ask()
        except JudgeError as exc:
            wait = attempts.on_error(exc, (time.perf_counter() - started) * 1000.0)
            if wait is None:
                break
            sleep(wait)
            continue
        outcome = attempts.on_answer(answer)
        if outcome is not None:
            return outcome
    return attempts.incomplete()
