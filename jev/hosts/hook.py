"""The generic stop-hook runner: host stdin → current turn → :class:`jev.auditor.Auditor` → answer.

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
   :meth:`jev.auditor.Auditor.on_stop` decides; the decision becomes the host's answer.

Any exception on the way is caught: the hook answers with exit 0 and one notice line
(fail open) and appends the failure to ``<jev_home>/hook-errors.jsonl`` (stderr only when
even that is impossible). ``stop_hook_active`` is read but never trusted: Jev's per-turn
supplement counter in the store is the loop guard (hosts.md (Claude Code); Codex has no host-side
cap, §3.3).
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jev import safejson
from jev.errors import JevError, MaterialMissing
from jev.hosts.base import HookAnswer, HookInput, HookInputError, load_object
from jev.hosts.registry import adapter as host_adapter

if TYPE_CHECKING:
    from jev.auditor import Auditor, Decision
    from jev.domain import Material, Settings
    from jev.hosts.base import HostAdapter

__all__ = [
    "HookResult",
    "SessionIndex",
    "answer_for",
    "run_session_start_hook",
    "run_stop_hook",
]

#: Sessions remembered in the index (oldest dropped first).
MAX_SESSIONS = 200
#: Seconds a session-index writer waits for the lock before giving up.
LOCK_TIMEOUT_S = 5.0
#: A lock file older than this (seconds) is considered left behind by a killed process.
STALE_LOCK_S = 30.0

AuditorFactory = Callable[[str | None, str], "Auditor"]


@dataclass(frozen=True, slots=True)
class HookResult:
    """What the hook process writes and returns.

    Attributes:
        stdout: the host answer (JSON or "").
        stderr: diagnostic lines for the host's log ("" for none).
        exit_code: always 0 (fail open; never 2).
        decision: the auditor's decision when an audit ran (for tests and the bench).
        skipped: short reason when no audit ran ("" otherwise).
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

    @property
    def steers(self) -> bool:
        """True when the answer sends a supplement (a counted block) to the host."""
        return self.decision is not None and self.decision.action == "supplement"


# ----------------------------------------------------------------------- session index


def _jev_home() -> Path:
    from jev.settings import jev_home

    return jev_home()


class SessionIndex:
    """``<jev_home>/sessions.json``: where each session's transcript is, for ``jev retry``.

    Shape: ``{"sessions": {session_id: {"host", "transcript_path", "profile", "turn",
    "turn_number", "cwd", "updated", "material"?, "request"?, "last_steer"?}}}``.
    ``material`` is kept for hosts whose material does not come whole from a transcript
    (Gemini, Cursor); ``request``/``last_steer`` let the Gemini adapter recognise its own
    supplement coming back as a prompt. Writes are atomic and serialised by a lock file,
    so 20 concurrent hook processes never lose an entry.
    """

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or (_jev_home() / "sessions.json")

    def _load(self) -> dict[str, Any]:
        """The index; a broken file is quarantined (design.md §11: never stuck).

        A file that is not UTF-8, not JSON, nested too deep or not of the shape above
        is renamed to ``sessions.json.broken-<UTC timestamp>`` (reported once on
        stderr, with the reason) and the index starts empty, so later hooks work
        again. Entries that are not objects, or whose ``updated`` is not a number, are
        dropped.
        """
        try:
            raw = self.path.read_bytes()
        except OSError:
            return {"sessions": {}}
        try:
            data = safejson.loads(raw, max_depth=32)
            if not isinstance(data, dict) or not isinstance(data.get("sessions"), dict):
                raise safejson.JsonInputError("not an object with a 'sessions' object")
        except safejson.JsonInputError as exc:
            self._quarantine(exc.reason)
            return {"sessions": {}}
        data["sessions"] = {
            str(k): v
            for k, v in data["sessions"].items()
            if isinstance(v, dict) and isinstance(v.get("updated", 0), int | float)
        }
        return data

    def _quarantine(self, reason: str) -> None:
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        target = self.path.with_name(f"{self.path.name}.broken-{stamp}")
        try:
            os.replace(self.path, target)
        except OSError:
            return  # another hook moved it first: it reports it
        with contextlib.suppress(OSError, ValueError):
            sys.stderr.write(
                f"jev: the session index {self.path} was broken ({reason}); it was moved "
                f"to {target} and a new one is started. Earlier sessions cannot be "
                "retried with `jev retry`.\n"
            )

    def get(self, session: str) -> dict[str, Any] | None:
        """The entry of ``session``, or ``None``."""
        entry = self._load()["sessions"].get(session)
        return entry if isinstance(entry, dict) else None

    def latest(self, host: str | None = None) -> tuple[str, dict[str, Any]] | None:
        """``(session_id, entry)`` of the most recently updated session (of ``host``)."""
        best: tuple[str, dict[str, Any]] | None = None
        for session, entry in self._load()["sessions"].items():
            if not isinstance(entry, dict) or (host and entry.get("host") != host):
                continue
            if best is None or float(entry.get("updated", 0)) > float(best[1].get("updated", 0)):
                best = (session, entry)
        return best

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        lock = self.path.with_name(self.path.name + ".lock")
        deadline = time.monotonic() + LOCK_TIMEOUT_S
        while True:
            try:
                fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
                os.close(fd)
                break
            except FileExistsError:
                with contextlib.suppress(OSError):
                    if time.time() - lock.stat().st_mtime > STALE_LOCK_S:
                        lock.unlink()
                        continue
                if time.monotonic() > deadline:
                    raise JevError(
                        f"the session index {self.path} is locked by another process "
                        f"(lock file {lock}); remove the lock file if no Jev hook is running."
                    ) from None
                time.sleep(0.01)
        try:
            yield
        finally:
            with contextlib.suppress(OSError):
                lock.unlink()

    def update(self, session: str, **fields: Any) -> dict[str, Any]:
        """Merge ``fields`` into the entry of ``session`` (stamping ``updated``); return it.

        Raises:
            JevError: the lock cannot be taken within :data:`LOCK_TIMEOUT_S` seconds.
            OSError: the folder cannot be written.
        """
        from jev.store import redact

        # No state file holds a key: text fields are scrubbed like records (design.md §11).
        fields = redact(fields)
        from jev.store import redact

        # No state file holds a key: text fields are scrubbed like records (design.md §11).
        fields = redact(fields)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._locked():
            data = self._load()
            sessions: dict[str, Any] = data["sessions"]
            entry = dict(sessions.get(session) or {})
            entry.update(fields)
            entry["updated"] = time.time()
            sessions[session] = entry
            if len(sessions) > MAX_SESSIONS:
                ordered = sorted(sessions.items(), key=lambda kv: float(kv[1].get("updated", 0)))
                for old, _ in ordered[: len(sessions) - MAX_SESSIONS]:
                    del sessions[old]
            tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
            text = safejson.scrub_surrogates(json.dumps(data, ensure_ascii=False))[0]
            tmp.write_text(text, encoding="utf-8")
            os.replace(tmp, self.path)
        return entry


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
        path = _jev_home() / "hook-errors.jsonl"
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


# ----------------------------------------------------------------------- the decision


def answer_for(decision: Decision) -> HookAnswer:
    """Map an :class:`jev.auditor.Decision` to a host-neutral :class:`HookAnswer`.

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
    from jev.auditor import Auditor

    return Auditor(profile=profile, host=host)


def _session_of(hook: HookInput) -> str:
    if hook.session_id:
        return hook.session_id
    if hook.transcript_path:
        return Path(hook.transcript_path).stem
    return "unknown-session"


def _stop(
    hook: HookInput, adapter: HostAdapter, profile: str | None, make_auditor: AuditorFactory
) -> tuple[HookAnswer, Decision | None, str, tuple[str, str | None]]:
    where: list[Any] = ["", None]
    answer, decision, skipped = _stop_inner(hook, adapter, profile, make_auditor, where)
    return answer, decision, skipped, (str(where[0] or ""), where[1])


def _stop_inner(
    hook: HookInput,
    adapter: HostAdapter,
    profile: str | None,
    make_auditor: AuditorFactory,
    where: list[Any],
) -> tuple[HookAnswer, Decision | None, str]:
    if not hook.is_stop or hook.is_subagent:
        return HookAnswer(), None, "not a root-agent stop"
    from jev.settings import load_settings

    settings: Settings = load_settings(profile)
    if not settings.enabled:
        return HookAnswer(), None, f"profile {settings.profile} is disabled"
    if hook.permission_mode == "plan":
        return HookAnswer(), None, "plan mode"
    gated = adapter.gate(hook)
    if gated:
        return HookAnswer(), None, gated
    session = _session_of(hook)
    index = SessionIndex()
    try:
        turn = adapter.read_turn(hook, index, session)
    except MaterialMissing as exc:
        notice = f"Jev: the completion audit did not run: material missing ({_one_line(str(exc))})."
        return HookAnswer(notice=notice), None, "material missing"
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
    where[:] = [turn_key, settings.profile]
    auditor = make_auditor(settings.profile, hook.host)
    try:
        decision = auditor.on_stop(session, turn_key, material, turn_number=turn.number or None)
    finally:
        auditor.close()
    answer = answer_for(decision)
    if answer.steer is not None:
        sent = [s for s in entry.get("steers") or () if isinstance(s, dict)][-(MAX_STEERS - 1) :]
        sent.append(
            {"text": _norm(answer.steer), "turn": turn_key, "request": list(material.request)}
        )
        index.update(session, last_steer=answer.steer, steers=sent)
    return answer, decision, ""


#: Supplements remembered per session to recognise one coming back as a user message.
MAX_STEERS = 8


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
) -> HookResult:
    """Run one stop hook of ``host`` on its stdin text; never raises (fail open).

    Args:
        host: a registered host (:func:`jev.hosts.registry.host_names`).
        stdin_text: the hook JSON the host wrote to stdin.
        profile: ``--profile`` of the hook command (``None``: ``JEV_PROFILE``/default).
        make_auditor: builds the auditor from ``(profile, host)`` (tests pass their own).

    Returns:
        A :class:`HookResult` whose ``exit_code`` is 0.
    """
    session = ""
    try:
        adapter = host_adapter(host)
    except JevError as exc:
        return HookResult("", f"jev: {exc}\n", 0, skipped="unknown host")
    try:
        hook = adapter.parse(load_object(host, stdin_text))
    except HookInputError as exc:
        stdout, stderr = adapter.render(
            HookAnswer(notice=f"Jev: {exc}; the completion audit did not run.")
        )
        return HookResult(stdout, stderr, 0, skipped="bad stdin")
    try:
        session = _session_of(hook)
        answer, decision, skipped, where = _stop(hook, adapter, profile, make_auditor)
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
        )
    except Exception as exc:  # fail open: never a traceback, never a blocked turn
        logged = log_failure(host, session, exc)
        stdout, stderr = adapter.render(HookAnswer(notice=fail_open_notice(exc)), hook)
        if os.environ.get("JEV_DEBUG"):
            import traceback

            logged += traceback.format_exc()
        return HookResult(stdout, stderr + logged, 0, skipped="error")


def report_undelivered(
    result: HookResult, exc: BaseException, make_auditor: AuditorFactory = _default_auditor
) -> str:
    """The hook's answer could not be written: take the counted supplement back.

    Calls :meth:`jev.auditor.Auditor.undelivered` for the turn of ``result`` when it
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
        from jev.settings import load_settings

        settings = load_settings(profile)
        if not settings.enabled:
            return HookResult("", skipped=f"profile {settings.profile} is disabled")
        from jev.texts import system_prompt_section

        language = settings.language if settings.language in ("en", "zh") else "en"
        return HookResult(adapter.render_session_start(system_prompt_section(language)))
    except Exception as exc:
        return HookResult("", log_failure(host, "", exc), skipped="error")
