"""The generic stop-hook runner: host stdin → current turn → ``Auditor`` → answer.

One call of :func:`run_stop_hook` is one stop of one host (design.md §2, §8, §12, §14). The
host's adapter (:mod:`jev.hosts.base`, looked up in :mod:`jev.hosts.registry`) does
everything host-specific; this module does the rest, the same for every host:

1. parse the stdin with the adapter; bad stdin → a one-line notice;
2. not the root agent's stop (a subagent's stop, any other event) → nothing;
3. the profile's ``enabled`` switch (cheapest check, before any transcript I/O);
4. ``permission_mode: plan`` (a plan awaiting approval is the user's call), then the
   adapter's own gates (e.g. work deferred for background tasks: no audit, nothing
   counted);
5. the current turn from the adapter (its transcript reader; the host's
   ``last_assistant_message`` wins over a transcript that may lag, hosts.md (Claude Code));
   Jev's own supplement coming back as a new user message keeps the turn's key and
   original request, so the per-turn budget cannot be reset by the host;
6. no Todo use in this turn → nothing;
7. the turn is remembered in the session index (for ``jev retry``/``jev cancel``), then
   :meth:`jev.pipeline.audit.Auditor.on_stop` decides; the decision becomes the host's answer.

Any exception on the way is caught: the hook answers with exit 0 and one notice line
(fail open) and appends the failure to ``<jev_home>/hook-errors.jsonl`` (stderr only when
even that is impossible). ``stop_hook_active`` is read but never trusted: Jev's per-turn
supplement counter in the store is the loop guard (hosts.md (Claude Code); Codex has no host-side
cap, §3.3).
"""

from __future__ import annotations

import json
import os
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jev import deadline, log
from jev.base.domain import InputNote, merge_notes, notes_sentence
from jev.base.errors import JevError, MaterialMissing, StoreDamaged
from jev.base.paths import jev_home_str
from jev.hosts.base import HookAnswer, HookInput, HookInputError, load_object
from jev.hosts.registry import adapter as host_adapter
from jev.hosts.session_index import SessionIndex
from jev.hosts.stopkit import refuse, stop_identity, timeout_notice
from jev.hosts.turns import counting, scrubbed
from jev.pipeline.texts import system_prompt_section
from jev.settings.profiles import load_settings

if TYPE_CHECKING:
    from jev.base.domain import Material, Settings
    from jev.base.record import Record
    from jev.hosts.base import HostAdapter
    from jev.pipeline.audit import Auditor
    from jev.pipeline.decide import Decision

__all__ = [
    "HookResult",
    "SessionIndex",
    "answer_for",
    "run_session_start_hook",
    "run_stop_hook",
]

AuditorFactory = Callable[[str | None, str], "Auditor"]


@dataclass(frozen=True, slots=True)
class HookResult:
    """What the hook process writes and returns.

    Attributes:
        stdout: the host answer (JSON or "").
        stderr: diagnostic lines for the host's log ("" for none).
        exit_code: always 0 (fail open; never 2).
        decision: the auditor's decision when an audit ran (for tests and the bench).
        skipped: short reason when no audit ran ("" otherwise; written to Jev's log,
            :mod:`jev.hosts.hooklog`).
        error_kind: the failure's kind when the hook failed open ("" otherwise).
    """

    stdout: str
    stderr: str = ""
    exit_code: int = 0
    decision: Decision | None = None
    skipped: str = ""
    host: str = ""
    session: str = ""
    turn: str = ""
    profile: str | None = None
    #: Records committed by this stop, to export after the answer is written
    #: (:func:`jev.telemetry.export.export_records`; issue 23).
    exports: tuple[Record, ...] = ()
    error_kind: str = ""

    @property
    def steers(self) -> bool:
        """True when the answer sends a supplement (a counted block) to the host."""
        return self.decision is not None and self.decision.action == "supplement"


# ----------------------------------------------------------------------- failure log


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def log_failure(host: str, session: str, exc: BaseException) -> str:
    """Append a hook failure to ``<jev_home>/hook-errors.jsonl``; return "" or a stderr line.

    The message is scrubbed of provider keys (:func:`jev.store.redact`). When the log
    cannot be written the failure goes to stderr only (the returned line).
    """
    kind = getattr(exc, "kind", None) or type(exc).__name__
    message = _one_line(str(exc))
    try:
        # lazy: a stop that audits nothing loads no store (here: only on a failure)
        from jev.store import redact

        message = str(redact(message))
        entry = {
            "time": time.time(),
            "host": host,
            "session": session,
            "kind": kind,
            "error": type(exc).__name__,
            "message": message,
        }
        path = Path(jev_home_str()) / "hook-errors.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(entry, ensure_ascii=False) + "\n")
        return ""
    except Exception as log_exc:  # the state folder itself is unusable: stderr only
        return (
            f"jev: hook failure could not be logged ({type(log_exc).__name__}): "
            f"{type(exc).__name__}: {message}\n"
        )


def fail_open_notice(exc: BaseException) -> str:
    """The one-line user notice for a failed hook: what happened, that the turn stops."""
    if isinstance(exc, JevError):
        what = _one_line(exc.message)
    else:
        what = f"internal error ({type(exc).__name__}: {_one_line(str(exc))[:200]})"
    what = what.rstrip(" .")
    return (
        f"Jev: the completion audit did not run: {what}. The turn stops as usual; "
        "details in hook-errors.jsonl under the Jev home folder."
    )


def rebuild_damaged_store(exc: StoreDamaged) -> str:
    """A damaged SQLite store on the hook path: move it aside, start a new one (design.md §11).

    The file is renamed ``<name>.broken-<UTC time>`` (:func:`jev.store.sqlite.quarantine`)
    and a new, empty store is created in its place, so later hooks work again; the
    current stop is not audited (fail open). Returns the one-line notice for this
    stop — it names both paths the one time the file is moved. Never raises.
    """
    # lazy: a stop that audits nothing loads no store (here: only for a damaged one)
    from jev.store import Store
    from jev.store.sqlite import quarantine

    moved = quarantine(exc)
    try:
        Store(exc.path).close()
        rebuilt = "a new one was started"
    except Exception as again:
        rebuilt = f"a new one could not be started ({_one_line(str(again))[:200]})"
    if moved is None:
        return fail_open_notice(exc)
    return (
        f"Jev: the completion audit did not run: the Jev database {exc.path} was damaged "
        f"or not a database; it was moved to {moved} and {rebuilt}. The turn stops as "
        "usual; later stops are audited again (records in the old file are not read)."
    )


# ----------------------------------------------------------------------- the decision


def with_notes(answer: HookAnswer, notes: Sequence[InputNote], decision: Decision) -> HookAnswer:
    """``answer`` whose notice also says what Jev changed in its input to read it
    (design.md §11), when an audit was decided; a silent answer (another process is
    auditing this turn, a stale verdict) stays silent."""
    if not notes or decision.action in ("busy", "stale"):
        return answer
    line = "Jev: " + notes_sentence(notes)
    notice = f"{answer.notice} {line}" if answer.notice else line
    return replace(answer, notice=notice)


def answer_for(decision: Decision) -> HookAnswer:
    """Map an :class:`jev.pipeline.decide.Decision` to a host-neutral :class:`HookAnswer`.

    ``supplement`` steers with the supplement text (and shows the report line);
    ``busy`` (another process audits this turn right now) and ``stale`` say nothing;
    every other action lets the turn stop with its notice (possibly "").
    """
    if decision.action == "supplement" and decision.supplement:
        return HookAnswer(steer=decision.supplement, notice=decision.notice)
    if decision.action in ("busy", "stale"):
        return HookAnswer()
    return HookAnswer(notice=decision.notice)


def _default_auditor(profile: str | None, host: str) -> Auditor:
    # lazy: a stop that is not audited never loads the orchestrator (judges, templates)
    from jev.pipeline.audit import Auditor

    installer = host_adapter(host).installer
    cap = installer.block_cap if installer is not None else None
    if cap is not None:
        settings = load_settings(profile)
        if settings.max_supplements > cap:
            # The host delivers at most `cap` blocks in a turn: a supplement past it
            # would be counted and never delivered (design.md §8). Doctor warns.
            return Auditor(settings=replace(settings, max_supplements=cap), host=host)
    return Auditor(profile=profile, host=host)


def _session_of(hook: HookInput) -> str:
    if hook.session_id:
        return hook.session_id
    if hook.transcript_path:
        return Path(hook.transcript_path).stem
    return "unknown-session"


def _stop(
    hook: HookInput,
    adapter: HostAdapter,
    profile: str | None,
    make_auditor: AuditorFactory,
    notes: Sequence[InputNote] = (),
    stop: str = "",
) -> tuple[HookAnswer, Decision | None, str, tuple[str, str | None, tuple[Record, ...]]]:
    where: list[Any] = ["", None, []]
    index = SessionIndex()
    try:
        answer, decision, skipped = _stop_inner(
            hook, adapter, profile, make_auditor, where, index, notes, stop
        )
    finally:
        index.close()
    return answer, decision, skipped, (str(where[0] or ""), where[1], tuple(where[2]))


def _stop_inner(
    hook: HookInput,
    adapter: HostAdapter,
    profile: str | None,
    make_auditor: AuditorFactory,
    where: list[Any],
    index: SessionIndex,
    stdin_notes: Sequence[InputNote] = (),
    stop: str = "",
) -> tuple[HookAnswer, Decision | None, str]:
    began = time.perf_counter()
    if not hook.is_stop or hook.is_subagent:
        return HookAnswer(), None, "not a root-agent stop"
    settings: Settings = load_settings(profile)
    if not settings.enabled:
        return HookAnswer(), None, f"profile {settings.profile} is disabled"
    _limit_deadline(settings)
    index.secret_env = tuple(n for n in (settings.judge.api_key_env,) if n)
    if hook.permission_mode == "plan":
        return HookAnswer(), None, "plan mode"
    gated = adapter.gate(hook)
    log.step("gate", (time.perf_counter() - began) * 1000.0)
    if gated:
        return HookAnswer(), None, gated
    session = _session_of(hook)
    try:
        with counting() as read, log.timed("read_turn"):  # lone surrogates replaced
            turn = adapter.read_turn(hook, index, session)
    except MaterialMissing as exc:
        notice = f"Jev: the completion audit did not run: material missing ({_one_line(str(exc))})."
        return HookAnswer(notice=notice), None, "material missing"
    # A reader that left lone surrogates: U+FFFD, counted (design.md §11).
    turn = scrubbed([turn], read.surrogates, "the transcript")[0]
    if turn.status == "skipped" or (turn.material is None and not turn.todo_used):
        return HookAnswer(), None, turn.reason or "skipped"
    if turn.status != "ready" or turn.material is None:
        notice = f"Jev: the completion audit did not run: {turn.reason or 'material missing'}."
        return HookAnswer(notice=notice), None, turn.reason or "material missing"
    material = turn.material
    turn_key = turn.key
    entry = index.get(session) or {}
    carried = _continuation_of(entry, material)
    if carried is not None:
        # Jev's own supplement came back as a new user message: same turn, same budget.
        turn_key, request = carried
        material = replace(material, request=request)
    fields: dict[str, Any] = {
        "host": hook.host,
        "transcript_path": hook.transcript_path,
        "profile": settings.profile,
        "turn": turn_key,
        "turn_number": turn.number or None,
        "cwd": hook.cwd,
        "request": list(material.request),
        "stop_hook_active": hook.stop_hook_active,
    }
    if adapter.remember_material:
        fields["material"] = material.to_json()
    index.update(session, **fields)
    where[:] = [turn_key, settings.profile, []]
    notes = merge_notes(stdin_notes, turn.notes)
    auditor = make_auditor(settings.profile, hook.host)
    auditor.unexported = where[2]  # exported after the answer is written (issue 23)
    # lazy: the evidence step only on the audit path, not on the hook's fast path
    from jev.evidence.step import stop_evidence

    # The turn's runs, and the user's checks in the hook's folder before the deadline
    # (issue 21; disabled profiles, subagent and plan-mode stops never get here).
    auditor.evidence = stop_evidence(turn.runs, hook.cwd, deadline.seconds())
    try:
        decision = auditor.on_stop(
            session, turn_key, material, turn_number=turn.number or None, notes=notes, stop=stop
        )
    finally:
        auditor.close()
    answer = with_notes(answer_for(decision), notes, decision)
    if answer.steer is not None:
        # Counted: from here on the block must reach the host (design.md §8), also
        # when the deadline passes first (the watchdog writes what is offered).
        deadline.offer(adapter.render(answer, hook)[0])
        sent = [s for s in entry.get("steers") or () if isinstance(s, dict)][-(MAX_STEERS - 1) :]
        sent.append(
            {"text": _norm(answer.steer), "turn": turn_key, "request": list(material.request)}
        )
        try:
            index.update(session, last_steer=answer.steer, steers=sent)
        except Exception as exc:  # the block is counted: it is delivered all the same
            log_failure(hook.host, session, exc)
    return answer, decision, ""


#: Supplements remembered per session to recognise one coming back as a user message.
MAX_STEERS = 8


def _limit_deadline(settings: Settings) -> None:
    """Size the stop's deadline (:mod:`jev.deadline`) to the host's hook timeout for
    this profile's judge settings, as ``jev install`` writes it (issue 23)."""
    from jev.hosts.install import TIMEOUT_MARGIN_S
    from jev.pipeline.ask import MAX_RETRY_WAIT_S

    judge = settings.judge
    retries = max(0, judge.technical_retries)
    # The user's checks run in the stop too (issue 21): ``jev install`` sized the host's
    # timeout for them; a host limit given in the environment is taken as it is.
    checks = settings.evidence.check_timeout_s * len(settings.evidence.checks)
    if os.environ.get(deadline.ENV, "").strip():
        checks = 0.0
    deadline.limit(
        deadline.hook_seconds(judge.timeout_s, retries, MAX_RETRY_WAIT_S, TIMEOUT_MARGIN_S) + checks
    )


def _norm(text: str) -> str:
    return " ".join(text.split())


def _continuation_of(
    entry: dict[str, Any], material: Material
) -> tuple[str, tuple[str, ...]] | None:
    """``(turn key, original request)`` when the turn's opening request is one of Jev's
    own supplements of this session (a host that hands the block's reason back as a
    new user message, issue 8 item 2), else ``None``."""
    if not material.request:
        return None
    opening = _norm(material.request[0])
    for sent in reversed(entry.get("steers") or ()):
        if not isinstance(sent, dict) or not sent.get("text") or not sent.get("turn"):
            continue
        if str(sent["text"]) in opening:
            request = tuple(str(r) for r in sent.get("request") or ()) or material.request
            return str(sent["turn"]), request
    return None


def run_stop_hook(
    host: str,
    stdin_text: str,
    *,
    profile: str | None = None,
    make_auditor: AuditorFactory = _default_auditor,
    refused: str = "",
) -> HookResult:
    """Run one stop hook of ``host`` on its stdin text; never raises (fail open).

    Args:
        host: a registered host (:func:`jev.hosts.registry.host_names`).
        stdin_text: the hook JSON the host wrote to stdin.
        profile: ``--profile`` of the hook command (``None``: ``JEV_PROFILE``/default).
        make_auditor: builds the auditor from ``(profile, host)`` (tests pass their own).
        refused: why the stdin's text cannot be trusted ("" when it can): a stdin that
            is not UTF-8 (:func:`jev.cli.hook_cmd.decode_stdin`). A root stop of an
            enabled profile is then not audited — its text would be mojibake — and
            answers with a notice saying so (issue 23).

    Returns:
        A :class:`HookResult` whose ``exit_code`` is 0. With ``JEV_LOG`` set, the stop
        is also described in one ``stop`` line of Jev's log (:mod:`jev.hosts.hooklog`).
    """
    if log.level() is None:
        return _run_stop_hook(host, stdin_text, profile, make_auditor, refused)
    # lazy: the stop line's composer only with JEV_LOG
    from jev.hosts.hooklog import log_stop

    log.start_stop()
    started = time.perf_counter()
    result = _run_stop_hook(host, stdin_text, profile, make_auditor, refused)
    log_stop(result, (time.perf_counter() - started) * 1000.0, host)
    return result


def _run_stop_hook(
    host: str,
    stdin_text: str,
    profile: str | None,
    make_auditor: AuditorFactory,
    refused: str,
) -> HookResult:
    session = ""
    try:
        adapter = host_adapter(host)
    except JevError as exc:
        return HookResult("", f"jev: {exc}\n", 0, skipped="unknown host")
    notes: list[InputNote] = []
    try:
        hook = adapter.parse(load_object(host, stdin_text, notes))
    except HookInputError as exc:
        stdout, stderr = adapter.render(
            HookAnswer(notice=f"Jev: {exc}; the completion audit did not run.")
        )
        return HookResult(stdout, stderr, 0, skipped="bad stdin")
    try:
        if refused:
            stdout, stderr, skipped = refuse(hook, adapter, profile, refused)
            return HookResult(stdout, stderr, 0, skipped=skipped, host=host)
        deadline.offer(adapter.render(HookAnswer(notice=timeout_notice()), hook)[0])
        session = _session_of(hook)
        stop = stop_identity(stdin_text, hook.transcript_path)
        answer, decision, skipped, where = _stop(hook, adapter, profile, make_auditor, notes, stop)
        stdout, stderr = adapter.render(answer, hook)
        return HookResult(
            stdout,
            stderr,
            0,
            decision=decision,
            skipped=skipped,
            host=host,
            session=session,
            turn=where[0],
            profile=where[1],
            exports=where[2],
        )
    except Exception as exc:  # fail open: never a traceback, never a blocked turn
        logged = log_failure(host, session, exc)
        notice = fail_open_notice(exc)
        if isinstance(exc, StoreDamaged):
            notice = rebuild_damaged_store(exc)
        stdout, stderr = adapter.render(HookAnswer(notice=notice), hook)
        if os.environ.get("JEV_DEBUG"):
            logged += traceback.format_exc()
        kind = str(getattr(exc, "kind", None) or type(exc).__name__)
        return HookResult(
            stdout, stderr + logged, 0, skipped="error", host=host, session=session, error_kind=kind
        )


def report_undelivered(
    result: HookResult, exc: BaseException, make_auditor: AuditorFactory = _default_auditor
) -> str:
    """The hook's answer could not be written: take the counted supplement back.

    Calls :meth:`jev.pipeline.audit.Auditor.undelivered` for the turn of ``result`` when it
    carried a supplement, and logs the failure to ``hook-errors.jsonl``. Never raises;
    returns a stderr line ("" when everything was recorded).
    """
    logged = log_failure(result.host, result.session, exc)
    if not result.steers or not result.turn:
        return logged
    try:
        auditor = make_auditor(result.profile, result.host)
        try:
            reason = f"the supplement could not be delivered to the host ({type(exc).__name__})"
            auditor.undelivered(result.session, result.turn, reason)
        finally:
            auditor.close()
    except Exception as undo_exc:
        logged += log_failure(result.host, result.session, undo_exc)
    return logged


def run_session_start_hook(stdin_text: str, *, host: str, profile: str | None = None) -> HookResult:
    """A host's session-start hook: the system-prompt section when the profile is enabled.

    Bad stdin is ignored (the answer does not depend on it). A disabled profile, or any
    failure, prints nothing (session-start plain stdout would reach the model, so a
    notice there would be wrong; failures go to the hook-error log). Never raises.

    Args:
        host: the host whose session-start contract renders the context.
    """
    del stdin_text  # the context does not depend on the session
    try:
        adapter = host_adapter(host)
        settings = load_settings(profile)
        if not settings.enabled:
            return HookResult("", skipped=f"profile {settings.profile} is disabled")

        language = settings.language if settings.language in ("en", "zh") else "en"
        # An adapter may name its host's Todo tools and the query that loads them
        # (``todo_hint() -> (tools, load)``; Claude Code's are deferred, hosts.md).
        hint = getattr(adapter, "todo_hint", None)
        tools, load = hint() if callable(hint) else ("", "")
        context = system_prompt_section(language, str(tools), str(load))
        return HookResult(adapter.render_session_start(context))
    except Exception as exc:
        return HookResult("", log_failure(host, "", exc), skipped="error")
