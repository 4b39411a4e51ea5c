"""Builders for loop tests: audit outcomes without a judge."""

from __future__ import annotations

from jev.base.domain import AuditOutcome, Position, Verdict

FOCUS_FOR = {
    "complete": "none",
    "omission": "R2",
    "contradiction": "T1",
    "needs-user": "R1",
    "unknown": "all",
}


def position(focus_id: str, text: str = "", status: str | None = None) -> Position:
    """A position with a plausible kind and index for ``focus_id``."""
    kinds = {"R": "request", "T": "todo", "A": "answer"}
    if focus_id in ("none", "all"):
        return Position(focus_id, focus_id, 0, "")  # type: ignore[arg-type]
    kind = kinds[focus_id[0]]
    return Position(
        focus_id,
        kind,
        int(focus_id[1:]),
        text or f"text of {focus_id}",  # type: ignore[arg-type]
        message=1 if kind == "request" else None,
        status=status if kind == "todo" else None,
    )


def verdict(assessment: str, focus_id: str | None = None) -> AuditOutcome:
    """An outcome with a valid verdict."""
    pos = position(focus_id or FOCUS_FOR[assessment])
    return AuditOutcome(status="verdict", verdict=Verdict(assessment, pos, 0.5))


def incomplete(reason: str = "judge timed out") -> AuditOutcome:
    return AuditOutcome(status="incomplete", reason=reason, error_kind="transport")


def skipped(reason: str = "no Todo use in this turn") -> AuditOutcome:
    return AuditOutcome(status="skipped", reason=reason)
