"""The values of one turn's supplement loop: :class:`LoopState` and :class:`Action` (design.md §8).

A turn's loop state (its status, the normal audits done, the supplements used, the
chain of verdicts) and the action decided on it are plain values: the store keeps the
state in the turn's row, records keep both as JSON, and replay reads them back. The
transitions live in the pipeline: :func:`jev.pipeline.gate.should_audit` (whether a
stop audits at all) and :func:`jev.pipeline.decide.decide` / :func:`~jev.pipeline.decide.cancel`
(the state machine, drawn in :mod:`jev.pipeline.decide`). :func:`validate_max_supplements`
is here so that the settings, below the pipeline, check ``max_supplements`` with the
loop's own rule. No I/O, stdlib only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from jev.base.domain import ASSESSMENTS

__all__ = [
    "ACTION_KINDS",
    "DEFAULT_MAX_SUPPLEMENTS",
    "FINAL_STATUSES",
    "MAX_SUPPLEMENTS_LIMIT",
    "STATUSES",
    "TERMINAL_STATUSES",
    "Action",
    "LoopState",
    "end_reason",
    "validate_max_supplements",
]

#: Largest accepted ``max_supplements`` (design.md §10: a positive safe integer, 2**53-1).
MAX_SUPPLEMENTS_LIMIT = 2**53 - 1

#: The shipped default of ``max_supplements`` (design.md §10).
DEFAULT_MAX_SUPPLEMENTS = 3

#: Every ``LoopState.status``.
STATUSES: tuple[str, ...] = (
    "auditing",
    "awaiting-supplement",
    "done",
    "needs-user",
    "exhausted",
    "incomplete",
    "cancelled",
)
#: Statuses after which the current stop needs nothing more from Jev.
FINAL_STATUSES: frozenset[str] = frozenset({"done", "needs-user", "exhausted", "cancelled"})
#: Statuses after which no further audit runs in this turn
#: (:func:`jev.pipeline.gate.should_audit`).
TERMINAL_STATUSES: frozenset[str] = frozenset({"exhausted", "cancelled"})
#: Every ``Action.kind``.
ACTION_KINDS: tuple[str, ...] = (
    "finish",
    "supplement",
    "hand-to-user",
    "exhausted",
    "incomplete",
    "cancelled",
    "skip",
    "stale",
)


def validate_max_supplements(max_supplements: object) -> int:
    """Return ``max_supplements`` if it is an accepted value (design.md §10).

    Accepted: an ``int`` (not ``bool``) in 1 … 2**53-1.

    Raises:
        ValueError: for any other value (including ``True``, ``3.0`` and ``"3"``).
    """
    if (
        isinstance(max_supplements, bool)
        or not isinstance(max_supplements, int)
        or not 1 <= max_supplements <= MAX_SUPPLEMENTS_LIMIT
    ):
        raise ValueError(
            f"max_supplements must be an integer from 1 to {MAX_SUPPLEMENTS_LIMIT}, "
            f"got {max_supplements!r}"
        )
    return max_supplements


def _require_count(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    return value


@dataclass(frozen=True, slots=True)
class LoopState:
    """Where one turn's supplement loop stands (design.md §8, §11 "per-turn loop state").

    Attributes:
        status: one of :data:`STATUSES`.
        audits: normal audits done in this turn (valid verdicts only).
        supplements_used: supplements sent in this turn (0 … N).
        chain: the verdicts of the normal audits, in order (``len(chain) == audits``).
        last_focus_id: focus id of the latest normal audit (``R2``, ``T1``, ``all`` …).
        last_error: reason of the latest incomplete audit, cleared by the next verdict.

    Raises:
        ValueError: on construction with an unknown status or verdict, a negative
            count, or ``len(chain) != audits``.
    """

    status: str = "auditing"
    audits: int = 0
    supplements_used: int = 0
    chain: tuple[str, ...] = ()
    last_focus_id: str | None = None
    last_error: str | None = None

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"unknown loop status {self.status!r}; expected one of {STATUSES}")
        _require_count("audits", self.audits)
        _require_count("supplements_used", self.supplements_used)
        for verdict in self.chain:
            if verdict not in ASSESSMENTS:
                raise ValueError(f"unknown verdict {verdict!r} in loop chain")
        if len(self.chain) != self.audits:
            raise ValueError(
                f"loop chain has {len(self.chain)} verdicts but audits is {self.audits}"
            )

    @property
    def final(self) -> bool:
        """True when the current stop needs nothing more from Jev (:data:`FINAL_STATUSES`)."""
        return self.status in FINAL_STATUSES

    @property
    def last_verdict(self) -> str | None:
        """The latest normal audit's verdict, or ``None`` before the first one."""
        return self.chain[-1] if self.chain else None

    def to_json(self) -> dict[str, Any]:
        """Plain JSON object with exactly the attribute names (``chain`` as a list)."""
        return {
            "status": self.status,
            "audits": self.audits,
            "supplements_used": self.supplements_used,
            "chain": list(self.chain),
            "last_focus_id": self.last_focus_id,
            "last_error": self.last_error,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> LoopState:
        """Inverse of :meth:`to_json`. Missing keys take their defaults.

        Raises:
            ValueError: when a value is of the wrong type or out of range.
        """
        chain = data.get("chain", ())
        if not isinstance(chain, list | tuple) or not all(isinstance(v, str) for v in chain):
            raise ValueError(f"loop chain must be a list of verdict strings, got {chain!r}")
        for key in ("last_focus_id", "last_error"):
            if data.get(key) is not None and not isinstance(data.get(key), str):
                raise ValueError(f"{key} must be a string or null, got {data.get(key)!r}")
        status = data.get("status", "auditing")
        if not isinstance(status, str):
            raise ValueError(f"loop status must be a string, got {status!r}")
        return cls(
            status=status,
            audits=data.get("audits", 0),
            supplements_used=data.get("supplements_used", 0),
            chain=tuple(chain),
            last_focus_id=data.get("last_focus_id"),
            last_error=data.get("last_error"),
        )


@dataclass(frozen=True, slots=True)
class Action:
    """What the host should do after one :func:`~jev.pipeline.decide.decide` or
    :func:`~jev.pipeline.decide.cancel` (design.md §8).

    Attributes:
        kind: one of :data:`ACTION_KINDS`:
            ``finish`` (let the turn end, verdict complete), ``supplement`` (send the
            supplement of round ``round`` into the same turn), ``hand-to-user``
            (needs-user: stop, show the notice), ``exhausted`` (budget used up: show the
            last verdict, no more supplements), ``incomplete`` (show the "audit did not
            complete" notice; the answer stays), ``cancelled``, ``skip`` (nothing to do),
            ``stale`` (design.md §14: the turn moved on before the verdict was acted upon;
            built by the caller for its records, never returned by ``decide``).
        round: for ``supplement`` the 1-based round k of this supplement; for every
            other kind the number of supplements used so far.
        max_supplements: the N in force when the action was decided.
        reason: a short English diagnostic for records and logs (user-facing text in
            both languages comes from :mod:`jev.pipeline.texts`).

    Raises:
        ValueError: on construction with an unknown kind, a negative round or an
            invalid ``max_supplements``.
    """

    kind: str
    round: int
    max_supplements: int
    reason: str = ""

    def __post_init__(self) -> None:
        if self.kind not in ACTION_KINDS:
            raise ValueError(f"unknown action kind {self.kind!r}; expected one of {ACTION_KINDS}")
        _require_count("round", self.round)
        validate_max_supplements(self.max_supplements)

    def to_json(self) -> dict[str, Any]:
        """Plain JSON object ``{kind, round, max_supplements, reason}``."""
        return {
            "kind": self.kind,
            "round": self.round,
            "max_supplements": self.max_supplements,
            "reason": self.reason,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Action:
        """Inverse of :meth:`to_json`.

        Raises:
            ValueError: when a key is missing or a value is invalid.
        """
        try:
            kind, round_, maximum = data["kind"], data["round"], data["max_supplements"]
        except KeyError as exc:
            raise ValueError(f"action is missing the key {exc.args[0]!r}") from None
        reason = data.get("reason", "")
        if not isinstance(kind, str) or not isinstance(reason, str):
            raise ValueError(f"action kind and reason must be strings, got {kind!r}, {reason!r}")
        return cls(kind=kind, round=round_, max_supplements=maximum, reason=reason)


def end_reason(state: LoopState, max_supplements: int | None = None) -> str:
    """A short English description of where the loop stands, for reports and records.

    Examples: ``"complete"``, ``"needs user"``, ``"supplement budget used up (3/3)"``,
    ``"audit incomplete: judge timed out"``, ``"cancelled"``,
    ``"awaiting the agent after supplement 1/3"``, ``"not audited yet"``.

    Args:
        state: the loop state.
        max_supplements: N, shown as the denominator when given.
    """
    used = state.supplements_used
    of = f"{used}/{max_supplements}" if max_supplements is not None else str(used)
    reasons = {
        "auditing": "not audited yet",
        "awaiting-supplement": f"awaiting the agent after supplement {of}",
        "done": "complete",
        "needs-user": "needs user"
        if not state.chain or state.chain[-1] == "needs-user"
        else f"{state.chain[-1]}: shown to the user; no supplement sent",
        "exhausted": f"supplement budget used up ({of})",
        "incomplete": f"audit incomplete: {state.last_error or 'unknown reason'}",
        "cancelled": "cancelled",
    }
    return reasons[state.status]
