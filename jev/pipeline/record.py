"""Step 7 of an audit: the record of one audit attempt (design.md §11).

:func:`build_record` turns the turn's key, the settings, the loop state before and
after the decision, the action and the outcome into a :class:`jev.base.record.Record`
(the value :mod:`jev.store` keeps). The round, the material hash and the judge are
decided here; ``round`` is defined in :mod:`jev.base.record`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from jev import __version__
from jev.base.record import HOSTS, RECORD_STATUSES, Record, iso_utc

if TYPE_CHECKING:
    from jev.base.domain import AuditOutcome, InputNote, Material, Settings
    from jev.base.loop_state import Action, LoopState
    from jev.store import TurnKey

__all__ = ["build_record"]

_HOST_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


def build_record(
    key: TurnKey,
    settings: Settings,
    before: LoopState,
    after: LoopState,
    action: Action,
    outcome: AuditOutcome | None,
    material: Material | None,
    turn_number: int | None = None,
    *,
    status: str,
    supplement: str | None = None,
    now: float,
    steer: bool = True,
    input_notes: Sequence[InputNote] = (),
) -> Record:
    """Build the record of one audit attempt (design.md §11) — the only record builder.

    :class:`jev.pipeline.audit.Auditor` calls it for every hook, API, ``jev audit`` and
    ``jev retry`` attempt; the tests build their records with it too.

    Args:
        key: host + session + turn ids (``TurnKey``).
        settings: the settings in force (snapshot; holds the key's variable NAME only).
        before, after: the turn's loop state before and after the decision.
        action: the loop's action.
        outcome: the audit outcome (``None`` for a cancel).
        material: the full material judged (``None``: none, e.g. a cancel).
        turn_number: 1-based turn number in the session, if known.
        status: one of :data:`RECORD_STATUSES`.
        supplement: the supplement text sent, if any.
        now: epoch seconds of the attempt (the caller's clock).
        steer: whether a supplement could be sent (False for ``jev audit`` and a
            shell ``jev retry``).
        input_notes: what was changed in the input to read the material (design.md §11).

    Raises:
        ValueError: for an invalid host name or an unknown status.
    """
    if not _HOST_RE.fullmatch(key.host):
        raise ValueError(
            f"invalid host name {key.host!r}: use letters, digits, '.', '_' or '-' "
            f"(at most 64), e.g. one of {HOSTS}"
        )
    if status not in RECORD_STATUSES:
        raise ValueError(f"unknown record status {status!r}; expected {RECORD_STATUSES}")
    verdict = outcome.verdict if outcome is not None else None
    focus: dict[str, Any] | None = None
    if verdict is not None:
        f = verdict.focus
        focus = {"id": f.id, "kind": f.kind, "index": f.index, "quote": f.text, "status": f.status}
    if outcome is not None and outcome.judge is not None:
        judge = outcome.judge.to_json()
        if outcome.reply_mode:  # how the reply was constrained (design.md §6)
            judge["reply_mode"] = outcome.reply_mode
    else:
        judge = {
            "provider": settings.judge.provider,
            "model": settings.judge.model,
            "heuristic": settings.judge.provider == "rules",
        }
    if outcome is not None and outcome.material_hash:
        material_hash = outcome.material_hash
    else:
        material_hash = material.digest() if material is not None else ""
    return Record(
        id=None,
        created_at=iso_utc(now),
        profile=settings.profile,
        host=key.host,
        session=key.session,
        turn=key.turn,
        turn_number=turn_number,
        round=after.audits if status == "verdict" else before.audits + 1,
        status=status,
        material=material.to_json() if material is not None else None,
        material_hash=material_hash,
        input_chars=outcome.input_chars if outcome is not None else None,
        budget_chars=settings.evidence_chars,
        judge=judge,
        raw_replies=tuple(outcome.raw_replies) if outcome is not None else (),
        assessment=verdict.assessment if verdict is not None else None,
        focus=focus,
        confidence=verdict.confidence if verdict is not None else None,
        loop_before=before.to_json(),
        loop_after=after.to_json(),
        action=action.to_json(),
        supplement_text=supplement,
        supplements_used=after.supplements_used,
        max_supplements=settings.max_supplements,
        error_kind=outcome.error_kind if outcome is not None else None,
        reason=outcome.reason if outcome is not None else action.reason,
        latency_ms=float(outcome.latency_ms) if outcome is not None else 0.0,
        usage=outcome.usage.to_json() if outcome is not None and outcome.usage else None,
        attempts=outcome.attempts if outcome is not None else 0,
        settings=settings.to_json(),
        jev_version=__version__,
        template_hash=outcome.template_hash if outcome is not None else "",
        language=outcome.language if outcome is not None else "",
        steer=steer,
        input_notes=tuple(n.to_json() for n in input_notes),
        evidence=outcome.evidence.to_json() if outcome is not None and outcome.evidence else None,
    )
