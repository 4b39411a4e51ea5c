"""The supplement loop of one turn as a pure state machine (design.md §6, §8).

``decide(state, outcome, max_supplements) -> (state, action)`` is all there is: no
I/O, no clock, no randomness, stdlib only. It is imported on the hook's fast path
and by replay, which runs stored outcomes through it again.

States (``LoopState.status``)::

    auditing ──verdict complete──────────────▶ done          (action finish)
       │      ──verdict needs-user────────────▶ needs-user    (action hand-to-user)
       │      ──problem, budget left──────────▶ awaiting-supplement (action supplement k/N)
       │      ──problem, budget used up───────▶ exhausted     (action exhausted)
       │      ──outcome incomplete────────────▶ incomplete    (action incomplete)
       │      ──outcome skipped───────────────▶ (unchanged)   (action skip)
       └──────cancel()────────────────────────▶ cancelled     (action cancelled)

``awaiting-supplement`` and ``incomplete`` take the next outcome exactly like
``auditing``: the agent stopped again after a supplement, or the user retried an
incomplete audit (for example after raising ``evidence_chars``).

Counting rules (design.md §8, seed "怎样补充与复核"):

* The first normal audit is free. ``omission``, ``contradiction`` and ``unknown``
  (the problem verdicts) share one budget of ``max_supplements`` (N) supplements, so a
  chain of audits driven by Jev's own supplements has at most N+1 normal audits.
* A change of verdict never resets the count; the budget need not be used up.
* ``needs-user`` is never answered with a supplement.
* Incomplete audits and technical retries never count: ``audits`` and
  ``supplements_used`` only move on a valid verdict.

Final states and later stops in the same turn (a decision of this module, see
:func:`should_audit`):

* ``exhausted`` and ``cancelled`` are terminal for the turn: :func:`should_audit`
  is False, and :func:`decide` leaves the state as it is and repeats the terminal
  action whatever outcome it is given (the outcome is not counted).
* ``done`` and ``needs-user`` are final for the current stop, but when the same
  turn stops again (another stop gate kept the agent working, or the agent went on
  after handing over), that is a continuation: a new audit is allowed and decided
  as usual, and the supplement budget is NOT reset. Only Jev's own supplements spend
  the budget, so Jev can never send more than N supplements in a turn; every audit
  beyond the first follows a new stop of the agent.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from jev.base.domain import ASSESSMENTS, PROBLEM_ASSESSMENTS

if TYPE_CHECKING:
    from jev.base.domain import AuditOutcome

__all__ = [
    "ACTION_KINDS",
    "DEFAULT_MAX_SUPPLEMENTS",
    "FINAL_STATUSES",
    "MAX_SUPPLEMENTS_LIMIT",
    "STATUSES",
    "TERMINAL_STATUSES",
    "Action",
    "LoopState",
    "cancel",
    "decide",
    "end_reason",
    "should_audit",
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
#: Statuses after which no further audit runs in this turn (:func:`should_audit`).
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
    """What the host should do after one :func:`decide` or :func:`cancel` (design.md §8).

    Attributes:
        kind: one of :data:`ACTION_KINDS`:
            ``finish`` (let the turn end, verdict complete), ``supplement`` (send the
            supplement of round ``round`` into the same turn), ``hand-to-user``
            (needs-user: stop, show the notice), ``exhausted`` (budget used up: show the
            last verdict, no more supplements), ``incomplete`` (show the "audit did not
            complete" notice; the answer stays), ``cancelled``, ``skip`` (nothing to do),
            ``stale`` (design.md §14: the turn moved on before the verdict was acted upon;
            built by the caller for its records, never returned by :func:`decide`).
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


def should_audit(state: LoopState, max_supplements: int) -> bool:
    """Whether a stop in this turn should ask the judge at all (design.md §8).

    False once the turn's loop is ``exhausted`` (the last verdict stands, no more
    supplements and no more audits) or ``cancelled``; True otherwise, including after
    ``done``/``needs-user`` (a later stop of the same turn is a continuation, see the
    module docstring) and after an ``incomplete`` audit (retry).

    Raises:
        ValueError: for an invalid ``max_supplements``.
    """
    validate_max_supplements(max_supplements)
    return state.status not in TERMINAL_STATUSES


def decide(
    state: LoopState, outcome: AuditOutcome, max_supplements: int, *, steer: bool = True
) -> tuple[LoopState, Action]:
    """Fold one audit outcome into the turn's loop state; say what to do next (design.md §8).

    Args:
        state: the turn's state before this outcome (``LoopState()`` for a new turn).
        outcome: the audit attempt's result; only ``status``, ``verdict`` and
            ``reason`` are read.
        max_supplements: N, the profile's ``max_supplements`` (1 … 2**53-1).
        steer: whether the host can send a supplement into the turn now. False for a
            retry from the shell after the turn stopped (design.md §7: a retry "uses no
            supplement"): a problem verdict with budget left is then handed to the
            user (``needs-user`` / ``hand-to-user``) and nothing is counted.

    Returns:
        ``(new_state, action)``; see the module docstring for the table.

        * ``skipped`` -> state unchanged, action ``skip``.
        * ``incomplete`` -> status ``incomplete``, ``last_error`` = the reason, counts
          unchanged, action ``incomplete``.
        * verdict ``complete`` -> ``done`` / ``finish``; ``needs-user`` ->
          ``needs-user`` / ``hand-to-user``; a problem verdict with
          ``supplements_used < N`` -> ``awaiting-supplement`` / ``supplement`` with
          round ``supplements_used + 1``; a problem verdict otherwise -> ``exhausted``
          / ``exhausted``. Every verdict adds one audit and extends ``chain``.
        * a state already ``exhausted`` or ``cancelled`` is returned unchanged with
          its terminal action again, whatever the outcome.

    Raises:
        ValueError: for an invalid ``max_supplements``, an unknown outcome status, a
            ``verdict`` outcome without a verdict, or an unknown assessment.
    """
    maximum = validate_max_supplements(max_supplements)
    used = state.supplements_used
    if state.status == "cancelled":
        return state, Action("cancelled", used, maximum, "audit cancelled earlier in this turn")
    if state.status == "exhausted":
        return state, Action("exhausted", used, maximum, _exhausted_reason(state, maximum))

    if outcome.status == "skipped":
        return state, Action("skip", used, maximum, outcome.reason or "no audit was due")
    if outcome.status == "incomplete":
        reason = outcome.reason or "the audit did not complete"
        new = _replace(state, status="incomplete", last_error=reason)
        return new, Action("incomplete", used, maximum, reason)
    if outcome.status != "verdict":
        raise ValueError(f"unknown audit outcome status {outcome.status!r}")
    if outcome.verdict is None:
        raise ValueError("an outcome with status 'verdict' must carry a verdict")

    assessment = outcome.verdict.assessment
    if assessment not in ASSESSMENTS:
        raise ValueError(f"unknown assessment {assessment!r}; expected one of {ASSESSMENTS}")
    audited = _replace(
        state,
        audits=state.audits + 1,
        chain=(*state.chain, assessment),
        last_focus_id=outcome.verdict.focus.id,
        last_error=None,
    )
    if assessment == "complete":
        return _replace(audited, status="done"), Action("finish", used, maximum, "complete")
    if assessment == "needs-user":
        return (
            _replace(audited, status="needs-user"),
            Action("hand-to-user", used, maximum, "completion depends on the user"),
        )
    # A problem verdict: omission, contradiction or unknown share the budget.
    assert assessment in PROBLEM_ASSESSMENTS
    if used < maximum and not steer:
        return (
            _replace(audited, status="needs-user"),
            Action(
                "hand-to-user",
                used,
                maximum,
                f"{assessment}: shown to the user; the turn has stopped, no supplement sent",
            ),
        )
    if used < maximum:
        k = used + 1
        return (
            _replace(audited, status="awaiting-supplement", supplements_used=k),
            Action("supplement", k, maximum, f"{assessment}: supplement {k}/{maximum}"),
        )
    exhausted = _replace(audited, status="exhausted")
    return exhausted, Action("exhausted", used, maximum, _exhausted_reason(exhausted, maximum))


def cancel(
    state: LoopState, max_supplements: int = DEFAULT_MAX_SUPPLEMENTS
) -> tuple[LoopState, Action]:
    """End the turn's audit on the user's request (design.md §8 "cancel").

    Nothing is rewritten: the chain and counts are kept, the turn is declared
    neither a success nor a failure. Cancelling twice is harmless.

    Args:
        state: the turn's state.
        max_supplements: N in force, only copied into the returned action (pass the
            profile's value; the default is the shipped default 3, design.md §10).

    Returns:
        ``(state with status "cancelled", Action("cancelled", supplements_used, N))``.

    Raises:
        ValueError: for an invalid ``max_supplements``.
    """
    maximum = validate_max_supplements(max_supplements)
    new = _replace(state, status="cancelled")
    return new, Action("cancelled", state.supplements_used, maximum, "cancelled by the user")


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


def _exhausted_reason(state: LoopState, maximum: int) -> str:
    last = state.last_verdict or "problem"
    return f"{last} remains; supplement budget used up ({state.supplements_used}/{maximum})"


def _replace(state: LoopState, **changes: Any) -> LoopState:
    values = state.to_json()
    values["chain"] = state.chain
    values.update(changes)
    return LoopState(**values)
