"""``jev retry`` and ``jev cancel``: act on the current turn of a hooked session (design.md §6–§8).

::

    jev retry  [--session S] [--profile P] [--json]
    jev cancel [--session S] [--json]

The session is the one named, else the most recently audited one, as remembered by
the stop hooks in the store's session index (:class:`jev.hosts.hook.SessionIndex`).

``retry`` re-reads the complete current material of that session's current turn from
its transcript (or, for hosts whose material came from the hook input — Gemini,
Cursor — the material remembered at the last stop) and audits it again with the saved
settings (design.md §7: "a retry reads the complete current material and the saved
settings again"). The agent is not running at that point, so the retry uses no
supplement: a problem verdict is shown to the user with its quote instead.

``cancel`` ends the audit of that turn without rewriting anything (design.md §8).

Exit codes follow ``jev audit``: 0 complete/cancelled/nothing to do, 3 incomplete,
4 a problem remains, 5 needs-user, 2 usage (no such session).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from jev.base.domain import Material
from jev.base.errors import UsageError
from jev.base.loop_state import LoopState, end_reason
from jev.base.terminal import visible
from jev.cli import EXIT_INCOMPLETE, EXIT_NEEDS_USER, EXIT_OK, EXIT_PROBLEM
from jev.hosts.hook import SessionIndex
from jev.hosts.registry import adapter, host_names
from jev.pipeline.audit import Auditor
from jev.store import Store, TurnKey

if TYPE_CHECKING:
    from jev.base.domain import Material
    from jev.pipeline.decide import Decision

__all__ = ["register", "run"]


def register(subparsers: Any) -> None:
    """Add the ``retry`` and ``cancel`` subcommands (once, whichever name asks)."""
    if "retry" in subparsers.choices:
        return
    retry = subparsers.add_parser(
        "retry",
        help="audit the current turn of the latest (or named) session again",
        description=(
            "Re-audit the current turn of a hooked session with its complete current "
            "material and the saved settings (e.g. after raising evidence_chars)."
        ),
    )
    retry.add_argument("--session", default=None, help="session id (default: the latest)")
    retry.add_argument("--profile", default=None, help="profile (default: the one the hook used)")
    retry.add_argument("--json", action="store_true", help="print the decision as JSON")
    cancel = subparsers.add_parser(
        "cancel",
        help="end the audit of the current turn without rewriting anything",
        description="End the completion audit of a hooked session's current turn.",
    )
    cancel.add_argument("--session", default=None, help="session id (default: the latest)")
    cancel.add_argument("--json", action="store_true", help="print the decision as JSON")


def _session(args: argparse.Namespace) -> tuple[str, dict[str, Any]]:
    index = SessionIndex()
    try:
        if args.session:
            entry = index.get(args.session)
            if entry is None:
                raise UsageError(
                    f"no hooked session {args.session!r} is known in the session index "
                    f"of {index.location}; run without --session for the latest one."
                )
            return args.session, entry
        latest = index.latest()
    finally:
        index.close()
    if latest is None:
        raise UsageError(
            "no hooked session is known yet on this machine: a stop hook records a "
            "session when it audits a turn (install one with `jev install claude-code`)."
        )
    return latest


def _current(session: str, entry: dict[str, Any]) -> tuple[str, Material | None, int | None, str]:
    """``(turn key, material or None, turn number, reason when None)``."""
    host = str(entry.get("host") or "")
    turn = adapter(host).reread(entry) if host in host_names() else None
    if turn is not None:
        if turn.status != "ready" or turn.material is None:
            return turn.key, None, None, turn.reason or turn.status
        return turn.key, turn.material, (entry.get("turn_number") or None), ""
    stored = entry.get("material")
    if isinstance(stored, dict):
        return str(entry.get("turn") or ""), Material.from_json(stored), None, ""
    return str(entry.get("turn") or ""), None, None, "the session's material was not remembered"


def _finished_state(host: str, session: str, turn: str) -> str | None:
    """Where the turn's audit ended, or ``None`` when a retry makes sense (the last
    audit was incomplete, or the turn has no audit state yet)."""
    with Store() as store:
        row = store.get_turn(TurnKey(host, session, turn))
    if row is None or not row.state:
        return None
    state = LoopState.from_json(row.state)
    if state.status in ("incomplete", "auditing"):
        return None
    return end_reason(state)


def _exit_code(decision: Decision) -> int:
    if decision.action == "incomplete":
        return EXIT_INCOMPLETE
    verdict = decision.outcome.verdict if decision.outcome is not None else None
    if verdict is not None:
        if verdict.assessment == "needs-user":
            return EXIT_NEEDS_USER
        return EXIT_OK if verdict.assessment == "complete" else EXIT_PROBLEM
    return EXIT_PROBLEM if decision.action == "exhausted" else EXIT_OK


def _print(decision: Decision, session: str, turn: str, as_json: bool) -> None:
    if as_json:
        data = decision.to_json()
        data.update({"session": session, "turn": turn})
        print(json.dumps(data, ensure_ascii=False))
        return
    print(f"session {session}, turn {turn}: {decision.action}")
    if decision.notice:
        print(visible(decision.notice))


def run(args: argparse.Namespace) -> int:
    """Run ``retry`` or ``cancel``; return the exit code (module docstring)."""
    session, entry = _session(args)
    host = str(entry.get("host") or "api")
    if args.command == "cancel":
        turn = str(entry.get("turn") or "")
        with Auditor(profile=entry.get("profile") or None, host=host) as auditor:
            decision = auditor.cancel(session, turn)
        _print(decision, session, turn, args.json)
        return 0
    turn, material, number, reason = _current(session, entry)
    if material is None:
        print(f"session {session}: nothing to retry: {reason}", file=sys.stderr)
        return 0
    profile = args.profile or entry.get("profile") or None
    finished = _finished_state(host, session, turn)
    if finished is not None:
        print(
            f"session {session}, turn {turn}: nothing to retry: the audit ended ({finished}). "
            "`jev retry` repeats an audit that did not complete; to audit the turn afresh "
            "run `jev audit` on its transcript."
        )
        return 0
    # An explicit retry audits even when the profile has since been disabled.
    with Auditor(profile=profile, host=host, honour_enabled=False) as auditor:
        decision = auditor.retry(session, turn, material, turn_number=number)
    _print(decision, session, turn, args.json)
    return _exit_code(decision)
