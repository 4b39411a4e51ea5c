"""``jev audit PATH``: audit one turn (or every turn) of a turn file or a session transcript.

An explicit request: it runs whatever the profile's ``enabled`` switch says (hooks
honour the switch). With no judge configured and none given, the offline rules judge
is used and said to be used. Exit codes: see :mod:`jev.cli`.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import tempfile
import time
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from jev.base.domain import notes_sentence
from jev.base.errors import JevError, MaterialMissing, StoreError, UsageError
from jev.base.terminal import json_visible, visible
from jev.cli import EXIT_INCOMPLETE, EXIT_NEEDS_USER, EXIT_OK, EXIT_PROBLEM
from jev.evidence.step import EvidenceInput
from jev.hosts.transcript import detect_format, formats, read_turns, skip_running
from jev.pipeline.audit import Auditor
from jev.settings.profiles import load_settings, require_profile, validate_settings
from jev.store import Store

if TYPE_CHECKING:
    from jev.base.domain import AuditOutcome, Settings
    from jev.hosts.transcript import Turn
    from jev.judges import Judge
    from jev.pipeline.decide import Decision

__all__ = ["register", "run"]

#: Severity order for the exit code of a multi-turn run (worst wins).
_SEVERITY = {EXIT_OK: 0, EXIT_PROBLEM: 1, EXIT_NEEDS_USER: 2, EXIT_INCOMPLETE: 3}


def register(sub: Any) -> None:
    """Add the ``audit`` subcommand to the ``jev`` parser."""
    p: argparse.ArgumentParser = sub.add_parser(
        "audit",
        help="audit a turn file or a session transcript",
        description=(
            "Audit the current (last) turn of PATH, or --turn N, or --all-turns. PATH is a "
            "generic turn JSON file or a session transcript of Claude Code, Codex, Gemini CLI, "
            "Cursor, Copilot CLI, Qwen Code or Factory Droid."
        ),
    )
    p.add_argument(
        "path",
        metavar="PATH",
        help="turn file (.json) or session transcript (.jsonl); - reads it from stdin",
    )
    p.add_argument(
        "--from",
        dest="fmt",
        choices=("auto", *formats()),
        default="auto",
        help="input format (default: detected from the file)",
    )
    which = p.add_mutually_exclusive_group()
    which.add_argument(
        "--turn", type=int, metavar="N", help="audit turn N (1-based) of a transcript"
    )
    which.add_argument(
        "--all-turns", action="store_true", help="consider every turn of the transcript"
    )
    p.add_argument(
        "--profile", metavar="P", help="settings profile (default: JEV_PROFILE or 'default')"
    )
    p.add_argument(
        "--judge", metavar="NAME", help="judge: rules, openai, anthropic (overrides the profile)"
    )
    p.add_argument("--model", metavar="M", help="judge model name")
    p.add_argument(
        "--base-url", metavar="URL", help="judge base URL (OpenAI-compatible or Anthropic)"
    )
    p.add_argument(
        "--api-key-env", metavar="NAME", help="environment variable that holds the API key"
    )
    p.add_argument("--language", choices=("auto", "en", "zh"), help="prompt language")
    p.add_argument(
        "--evidence-chars",
        type=int,
        metavar="N",
        help="budget of rendered judge input (1..1,000,000)",
    )
    p.add_argument(
        "--include-running",
        action="store_true",
        help="also audit turns the file shows still running (default: skipped, "
        "'the turn has not ended')",
    )
    p.add_argument(
        "--evidence",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="compare the report's claims ('all tests pass', 'build succeeds' …) with the "
        "turn's own last runs (default: the profile's evidence.transcript)",
    )
    p.add_argument(
        "--checks",
        action="store_true",
        help="also run the profile's evidence.checks in the current folder when a turn "
        "would end complete (never run without this flag)",
    )
    p.add_argument("--json", action="store_true", help="JSON Lines: one object per turn considered")
    p.add_argument("--no-record", action="store_true", help="do not write audit records")


def _effective_settings(args: argparse.Namespace) -> tuple[Settings, bool]:
    """Profile settings with command-line overrides; also whether a judge was chosen."""
    settings = load_settings(require_profile(args.profile))
    judge = settings.judge
    overrides: dict[str, Any] = {}
    if args.judge:
        overrides["provider"] = args.judge
    if args.model is not None:
        overrides["model"] = args.model
    if args.base_url is not None:
        overrides["base_url"] = args.base_url
    if args.api_key_env is not None:
        overrides["api_key_env"] = args.api_key_env
    if overrides:
        judge = replace(judge, **overrides)
    top: dict[str, Any] = {"judge": judge}
    if args.language:
        top["language"] = args.language
    if args.evidence_chars is not None:
        if not 1 <= args.evidence_chars <= 1_000_000:
            raise UsageError(
                f"--evidence-chars {args.evidence_chars} is out of range: "
                "give 1 … 1,000,000 characters"
            )
        top["evidence_chars"] = args.evidence_chars
    settings = validate_settings(replace(settings, **top))
    chosen = bool(args.judge) or settings.judge.provider != "rules"
    return settings, chosen


def _select(turns: list[Turn], args: argparse.Namespace) -> list[Turn]:
    if not turns:
        raise MaterialMissing(f"material missing: no turn found in {_shown(args)}")
    if args.all_turns:
        return turns
    if args.turn is not None:
        if not 1 <= args.turn <= len(turns):
            raise UsageError(f"--turn {args.turn}: {_shown(args)} has turns 1 … {len(turns)}")
        return [turns[args.turn - 1]]
    return [turns[-1]]


def _check_format(args: argparse.Namespace) -> None:
    """Refuse ``--from FORMAT`` for a file that is recognisably another format."""
    if args.fmt == "auto":
        return
    try:
        found = detect_format(args.path)
    except UsageError:
        return  # not recognisable: let the chosen reader say what is wrong
    if found != args.fmt:
        raise UsageError(
            f"{_shown(args)} looks like a {found} file, not {args.fmt}; "
            f"use --from {found} or --from auto"
        )


def _exit_for(outcome_status: str, assessment: str | None) -> int:
    if outcome_status == "incomplete":
        return EXIT_INCOMPLETE
    if assessment == "needs-user":
        return EXIT_NEEDS_USER
    if assessment in ("omission", "contradiction", "unknown"):
        return EXIT_PROBLEM
    return EXIT_OK


def _result(
    turn: Turn, outcome: AuditOutcome | None, settings: Settings, judge: Judge
) -> dict[str, Any]:
    """The JSON object for one turn considered (also the basis of the human line)."""
    info = judge.info
    base: dict[str, Any] = {
        "turn": turn.number,
        "key": turn.key,
        "status": "skipped",
        "assessment": None,
        "focus": None,
        "reason": turn.reason,
        "judge": info.to_json(),
        "input_chars": None,
        "budget_chars": settings.evidence_chars,
        "usage": None,
        "latency_ms": None,
        "error_kind": None,
        "rule": None,
        "why": None,
        "input_notes": [n.to_json() for n in turn.notes],
        "evidence": None,
    }
    if turn.status == "missing":
        base.update(status="incomplete", error_kind="material-missing")
        return base
    if outcome is None:
        return base
    base.update(
        status=outcome.status,
        reason=outcome.reason,
        input_chars=outcome.input_chars,
        usage=outcome.usage.to_json() if outcome.usage else None,
        latency_ms=outcome.latency_ms if outcome.status != "skipped" else None,
        error_kind=outcome.error_kind,
    )
    if outcome.verdict is not None:
        f = outcome.verdict.focus
        base["assessment"] = outcome.verdict.assessment
        base["focus"] = {"id": f.id, "kind": f.kind, "quote": f.text}
        if outcome.evidence is not None and outcome.judge is not None:
            # Decided by the evidence step (issue 21), not by the judge.
            note = outcome.evidence
            base["judge"] = outcome.judge.to_json()
            base["evidence"] = note.to_json()
            base["rule"] = note.rule
            code = "" if note.exit_code is None else f" (exit code {note.exit_code})"
            base["why"] = f"{note.kind} {json.dumps(note.command)}{code}: {json.dumps(note.quote)}"
        elif info.heuristic and outcome.raw_replies:
            try:
                reply = json.loads(outcome.raw_replies[-1])
            except ValueError:
                reply = None
            if isinstance(reply, dict):
                base["rule"] = reply.get("rule")
                base["why"] = reply.get("why")
    return base


def _human(result: dict[str, Any], chosen: bool, unused_model: str = "") -> str:
    """One turn's human lines; ``unused_model`` is a ``judge.model`` (or ``--model``)
    given while the provider stays ``rules``: said so instead of "no model"."""
    n = result["turn"]
    status = result["status"]
    if status == "skipped":
        return f"turn {n}: skipped: {result['reason']}"
    if status == "incomplete":
        reason = result["reason"]
        if result["error_kind"] == "material-missing":
            text = (
                reason if reason.startswith("material missing") else f"material missing: {reason}"
            )
            return f"turn {n}: {text}"
        if result["error_kind"] == "over-budget":
            return f"turn {n}: over budget; the audit did not complete: {reason}"
        return f"turn {n}: audit incomplete: {reason}"
    judge = result["judge"]
    label = judge["provider"] + (f" ({judge['model']})" if judge["model"] else "")
    if judge["heuristic"]:
        label += ", heuristic"
        if result.get("rule"):
            label += f" rule {result['rule']}"
        if not chosen and unused_model:
            label += (
                f"; judge.model {unused_model} is set but judge.provider is rules, so the "
                "offline rules judge was used: run `jev settings set judge.provider openai` "
                "(or anthropic, ollama), or pass --judge"
            )
        elif not chosen:
            label += "; no model configured, offline rules judge used"
    focus = result["focus"]
    lines = [f"turn {n}: {result['assessment']}"]
    if focus["kind"] not in ("none", "all"):
        quote = json.dumps(focus["quote"], ensure_ascii=False)
        lines.append(f"  focus {focus['id']} ({focus['kind']}): {quote}")
    else:
        lines.append(f"  focus {focus['id']}")
    if result.get("why"):
        lines.append(f"  why: {result['why']}")
    lines.append(f"  judge: {label}")
    lines.append(f"  input {result['input_chars']:,} of {result['budget_chars']:,} characters")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    """Run ``jev audit``; returns the exit code (worst over the turns considered).

    ``PATH`` ``-`` reads the turn file or transcript from standard input (it is kept in
    a temporary file for the run, so every reader works on it unchanged); messages
    name it ``<stdin>``, never the temporary path.
    """
    if args.path != "-":
        return _run(args)
    data = sys.stdin.buffer.read()
    with tempfile.TemporaryDirectory(prefix="jev-stdin-") as folder:
        path = os.path.join(folder, "stdin" + _stdin_suffix(data))
        with open(path, "wb") as handle:
            handle.write(data)
        args.path = path
        args.shown_path = STDIN_NAME
        try:
            return _run(args)
        except JevError as exc:
            exc.message = exc.message.replace(path, STDIN_NAME)
            raise


#: How standard input is named in messages.
STDIN_NAME = "<stdin>"


def _shown(args: argparse.Namespace) -> str:
    """The input as named to the user: the path, or ``<stdin>``."""
    shown: str = getattr(args, "shown_path", None) or args.path
    return shown


def _stdin_suffix(data: bytes) -> str:
    """``.json`` for one JSON document (a turn file), else ``.jsonl`` (a transcript)."""
    try:
        json.loads(data)
    except RecursionError:  # one document nested too deep: its reader says so (exit 2)
        return ".json"
    except ValueError:
        return ".jsonl"
    return ".json"


def _open_store(args: argparse.Namespace) -> Store:
    """The records store: Jev's database, or an in-memory one for ``--no-record`` (and,
    with a warning, when the database cannot be opened: the audit still runs)."""
    if not args.no_record:
        try:
            return Store()
        except JevError as exc:
            print(f"jev: warning: audit records will not be written: {exc}", file=sys.stderr)
    return Store(":memory:")


def _run(args: argparse.Namespace) -> int:
    """Audit the selected turns through the one orchestrator (:class:`Auditor`).

    ``jev audit`` steers no agent: each turn is audited with :meth:`Auditor.audit`
    (a problem verdict is shown to the user, no supplement is counted), and each run
    is its own session (``cli-<time>-<pid>-<path hash>``), so separate runs never
    merge into one chain.
    """
    settings, chosen = _effective_settings(args)
    _check_format(args)
    try:
        turns = read_turns(args.path, args.fmt)
        if not getattr(args, "include_running", False):
            turns = skip_running(turns)
        every = turns
        turns = _select(turns, args)
    except MaterialMissing as exc:
        msg = str(exc).replace(args.path, _shown(args))
        if args.json:
            print(
                json.dumps(
                    {"turn": None, "status": "incomplete", "error_kind": exc.kind, "reason": msg}
                )
            )
        else:
            print(
                visible(msg if msg.startswith("material missing") else f"material missing: {msg}")
            )
        return EXIT_INCOMPLETE

    notes = list(dict.fromkeys(n for t in turns for n in t.notes))
    if notes:
        # Said once, before the verdicts: the audit went on with U+FFFD (design.md §11).
        print(visible(f"jev: note: {_shown(args)}: {notes_sentence(notes)}"), file=sys.stderr)
    worst = EXIT_OK
    results: list[dict[str, Any]] = []
    session = _run_session(args.path)
    store = _open_store(args)
    auditor = Auditor(settings=settings, store=store, host="cli", honour_enabled=False)
    unrecorded: list[Auditor] = []  # the in-memory auditor once the store failed
    with store, auditor:
        judge = auditor.judge()
        for turn in turns:
            outcome = None
            if turn.status == "ready" and turn.material is not None:
                auditor.evidence = _evidence_for(turn, args)
                decision = _audit_recorded(auditor, unrecorded, session, turn)
                outcome = decision.outcome
            result = _result(turn, outcome, settings, judge)
            results.append(result)
            code = _exit_for(result["status"], result["assessment"])
            worst = max(worst, code, key=lambda c: _SEVERITY[c])
            if args.json:
                print(json_visible(json.dumps(result, ensure_ascii=False)), flush=True)
            else:
                print(visible(_human(result, chosen, settings.judge.model)), flush=True)
                print(_earlier_todo_hint(every, turns, result), end="")
    if not args.json and len(results) > 1:
        audited = sum(1 for r in results if r["status"] == "verdict")
        skipped = sum(1 for r in results if r["status"] == "skipped")
        incomplete = sum(1 for r in results if r["status"] == "incomplete")
        print(
            f"{len(results)} turns: {audited} audited, {skipped} skipped, {incomplete} incomplete"
        )
    return worst


def _earlier_todo_hint(every: list[Turn], chosen: list[Turn], result: dict[str, Any]) -> str:
    """A hint line when the one turn audited by default (the last) was skipped for no
    Todo use while earlier turns of the file used a Todo list (issue 23 item 4); else ""."""
    if len(chosen) != 1 or chosen[0] is not every[-1] or result["status"] != "skipped":
        return ""
    if chosen[0].todo_used or len(every) < 2:
        return ""
    used = [str(n) for n, t in enumerate(every[:-1], start=1) if t.todo_used]
    if not used:
        return ""
    which = f"turn {used[0]}" if len(used) == 1 else f"turns {', '.join(used)}"
    return (
        f"  hint: {which} of {len(every)} used a Todo list; only the last turn is audited "
        f"by default: add --all-turns (or --turn {used[-1]})\n"
    )


def _audit_recorded(
    auditor: Auditor, unrecorded: list[Auditor], session: str, turn: Turn
) -> Decision:
    """Audit ``turn`` and record it; when the store fails (locked by another process
    for longer than its busy timeout, full disk, a server that does not answer), the
    verdict is still given, from an in-memory store, with one warning that the record
    was not written (issue 23 item 3): never exit 1 for a verdict the judge gave."""
    assert turn.material is not None
    args = (session, turn.key, turn.material)
    if unrecorded:
        unrecorded[0].evidence = auditor.evidence
    if not unrecorded:
        try:
            return auditor.audit(*args, turn_number=turn.number, notes=turn.notes)
        except StoreError as exc:
            print(
                visible(
                    f"jev: warning: the audit record was not written: {exc} The verdict "
                    "below is given all the same; it is not stored."
                ),
                file=sys.stderr,
            )
            settings = auditor.settings()
            unrecorded.append(
                Auditor(
                    settings=settings,
                    judge=auditor.judge(settings),
                    store=Store(":memory:"),
                    host=auditor.host,
                    honour_enabled=False,
                )
            )
    return unrecorded[0].audit(*args, turn_number=turn.number, notes=turn.notes)


def _evidence_for(turn: Turn, args: argparse.Namespace) -> EvidenceInput:
    """The evidence step's input for one turn: its runs, ``--evidence``/``--no-evidence``,
    and the profile's checks only with ``--checks`` (in the current folder)."""
    checks = bool(getattr(args, "checks", False))
    return EvidenceInput(
        runs=turn.runs,
        cwd=os.getcwd() if checks else None,
        checks=checks,
        transcript=getattr(args, "evidence", None),
    )


_RUN_SESSION: dict[str, str] = {}


def _run_session(path: str) -> str:
    """The session id of this ``jev audit`` run for ``path`` (stable within the run)."""
    if path not in _RUN_SESSION:
        digest = hashlib.sha256(os.path.abspath(path).encode()).hexdigest()[:8]
        stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime())
        _RUN_SESSION[path] = f"cli-{stamp}-{os.getpid()}-{digest}"
    return _RUN_SESSION[path]
