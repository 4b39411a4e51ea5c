"""The shared stop-hook runner: host stdin → current turn → :class:`jev.auditor.Auditor` → answer.

One call of :func:`run_stop_hook` is one stop of one host (SPEC §2, §8, §12, §14):

1. parse the stdin (:mod:`jev.hosts.hookio`); bad stdin → a one-line notice;
2. not the root agent's stop (``SubagentStop``, ``agent_id``) → nothing;
3. the profile's ``enabled`` switch (cheapest check, before any transcript I/O);
4. host gates: Cursor ``status`` other than ``completed`` (aborted/error: the user
   stopped it or it failed), ``permission_mode: plan`` (a plan awaiting approval is the
   user's call), running background tasks (defer: no audit, nothing counted);
5. the current turn from the transcript, read backwards only as far as the turn's start
   (:func:`jev.hosts.transcript.read_current_turn`); the host's
   ``last_assistant_message`` wins over the transcript, which may lag (HOSTS.md §1.2);
6. no Todo use in this turn → nothing (the fast path ends here: no httpx, jinja2,
   jsonschema or pydantic was imported);
7. the turn is remembered in the session index (for ``jev retry``/``jev cancel``), then
   :meth:`jev.auditor.Auditor.on_stop` decides; the decision becomes the host answer.

Any exception on the way is caught: the hook answers with exit 0 and one notice line
(fail open) and appends the failure to ``<jev_home>/hook-errors.jsonl`` (stderr only when
even that is impossible). ``stop_hook_active`` is read but never trusted alone: Jev's
per-turn supplement counter in the store is the loop guard (HOSTS.md §1.6; Codex has no
host-side cap, §3.3).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jev.domain import TODO_STATUSES, Material, TodoItem
from jev.errors import JevError, MaterialMissing, UsageError
from jev.hosts.hookio import (
    HookAnswer,
    HookInput,
    HookInputError,
    parse_hook_input,
    render_answer,
    render_session_start,
)

if TYPE_CHECKING:
    from jev.auditor import Auditor, Decision
    from jev.domain import Settings
    from jev.hosts.transcript import Turn

__all__ = [
    "HookResult",
    "SessionIndex",
    "answer_for",
    "current_turn",
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
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {"sessions": {}}
        if not isinstance(data, dict) or not isinstance(data.get("sessions"), dict):
            return {"sessions": {}}
        return data

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
            tmp.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
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


# ----------------------------------------------------------------------- turn reading


def _gemini_messages(path: Path) -> list[dict[str, Any]]:
    """Messages of a Gemini CLI chat file: one JSON object, or JSONL whose record with
    ``messages`` is the conversation (claude-code-log ``providers/gemini.py``, which
    follows gemini-cli ``packages/core/src/services/chatRecordingTypes.ts``) [S]."""
    text = path.read_text(encoding="utf-8")
    try:
        whole = json.loads(text)
    except ValueError:
        whole = None
    candidates: list[Any] = [whole] if whole is not None else []
    if whole is None:
        for line in text.splitlines():
            with contextlib.suppress(ValueError):
                candidates.append(json.loads(line))
    for item in reversed(candidates):
        if isinstance(item, dict) and isinstance(item.get("messages"), list):
            return [m for m in item["messages"] if isinstance(m, dict)]
    raise MaterialMissing(
        f"{path}: no Gemini conversation record (an object with 'messages') in the transcript"
    )


def _message_text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p.get("text", "") if isinstance(p, dict) else str(p) for p in content]
        return "".join(str(p) for p in parts)
    return ""


# Gemini write_todos statuses beyond SPEC's three (geminicli.com/docs/tools/todos [V]):
# ``cancelled`` and ``blocked`` are not completed, so they map to ``pending`` and keep the
# original word in the content ("[cancelled] …") for the judge to see.


def gemini_todos(messages: list[dict[str, Any]], request: str) -> tuple[bool, tuple[TodoItem, ...]]:
    """Todo use and the latest Todo list of the turn opened by ``request`` (Gemini).

    The turn starts at the last ``user`` message whose text equals ``request`` (else the
    last ``user`` message). ``write_todos`` calls in ``gemini`` messages after it count;
    each carries the whole list (``todos[]`` of ``{description, status}``).
    """
    start = 0
    for index, message in enumerate(messages):
        is_user = message.get("type") == "user"
        if is_user and (not request or _message_text(message).strip() == request.strip()):
            start = index
    used = False
    todos: tuple[TodoItem, ...] = ()
    for message in messages[start:]:
        if message.get("type") != "gemini":
            continue
        for call in message.get("toolCalls") or ():
            if not isinstance(call, dict) or call.get("name") != "write_todos":
                continue
            args = call.get("args")
            items = args.get("todos") if isinstance(args, dict) else None
            if not isinstance(items, list):
                continue
            used = True
            converted: list[TodoItem] = []
            for item in items:
                if not isinstance(item, dict):
                    continue
                text = str(item.get("description") or item.get("content") or "")
                status = str(item.get("status") or "pending")
                if status not in TODO_STATUSES:  # cancelled, blocked, anything newer
                    text, status = f"[{status}] {text}", "pending"
                converted.append(TodoItem(text, status))
            todos = tuple(converted)
    return used, todos


def _turn(
    key: str, material: Material | None, status: str, reason: str, *, todo_used: bool
) -> Turn:
    from jev.hosts.transcript import Turn

    return Turn(
        number=0,
        key=key,
        material=material,
        todo_used=todo_used,
        status=status,
        reason=reason,
        ended_by_interrupt=False,
        opening="prompt" if material is not None else "missing",
    )


def _gemini_turn(hook: HookInput, index: SessionIndex, session: str) -> Turn:
    """The current Gemini turn (documented format only; see :func:`gemini_todos`).

    Jev's own ``deny`` reason comes back to Gemini as a new prompt (GEMDOCS
    ``AfterAgent``); when the prompt equals the last supplement Jev sent in this
    session, it is the same turn: the original request and turn key are kept.
    """
    prompt = hook.prompt or ""
    entry = index.get(session) or {}
    if entry.get("last_steer") and prompt.strip() == str(entry["last_steer"]).strip():
        key = str(entry.get("turn") or "")
        request = tuple(str(r) for r in entry.get("request") or ())
    else:
        stamp = str(hook.raw.get("timestamp") or time.time())
        key = "gemini:" + hashlib.sha256(f"{session}\n{stamp}\n{prompt}".encode()).hexdigest()[:32]
        request = (prompt,) if prompt else ()
    if not request or not key:
        return _turn(
            key or "unknown", None, "missing", "material missing: no prompt", todo_used=True
        )
    if not hook.transcript_path:
        return _turn(
            key, None, "skipped", "no readable transcript: Todo use unknown", todo_used=False
        )
    try:
        messages = _gemini_messages(Path(hook.transcript_path))
    except (OSError, MaterialMissing) as exc:
        return _turn(
            key, None, "skipped", f"transcript unreadable: {_one_line(str(exc))}", todo_used=False
        )
    used, todos = gemini_todos(messages, request[0])
    if not used:
        return _turn(key, None, "skipped", "no Todo use in this turn", todo_used=False)
    material = Material(request, todos, hook.last_assistant_message or "", todo_used=True)
    return _turn(key, material, "ready", "", todo_used=True)


def current_turn(hook: HookInput, index: SessionIndex, session: str) -> Turn:
    """Read the current root turn for ``hook`` (SPEC §3), per host.

    Raises:
        MaterialMissing: the transcript is missing or holds no turn, or (Cursor) no
            transcript can be read, so the material cannot be obtained.
        UsageError: the transcript cannot be read.
    """
    if hook.host == "gemini":
        return _gemini_turn(hook, index, session)
    path = hook.transcript_path
    if not path:
        raise MaterialMissing(
            f"the {hook.host} hook received no transcript_path, so the turn's request and "
            "Todo list cannot be read"
        )
    if not Path(path).is_file():
        what = "is not a file" if Path(path).exists() else "does not exist (yet)"
        raise MaterialMissing(f"the transcript {path} {what}")
    from jev.hosts.transcript import read_current_turn

    if hook.host == "cursor":
        # Cursor's transcript format is not documented (HOSTS.md §4 [U]): only a file
        # Jev recognises (a Claude-Code-style JSONL or a Jev turn file) is read.
        from jev.hosts.transcript import detect_format

        try:
            fmt: str = detect_format(path)
        except UsageError:
            raise MaterialMissing(
                f"the Cursor transcript {path} is in a format Jev cannot read"
            ) from None
    else:
        fmt = hook.host
    return read_current_turn(path, fmt, last_assistant_message=hook.last_assistant_message)


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
    hook: HookInput, profile: str | None, make_auditor: AuditorFactory
) -> tuple[HookAnswer, Decision | None, str, tuple[str, str | None]]:
    where: list[Any] = ["", None]
    answer, decision, skipped = _stop_inner(hook, profile, make_auditor, where)
    return answer, decision, skipped, (str(where[0] or ""), where[1])


def _stop_inner(
    hook: HookInput, profile: str | None, make_auditor: AuditorFactory, where: list[Any]
) -> tuple[HookAnswer, Decision | None, str]:
    if not hook.is_stop or hook.is_subagent:
        return HookAnswer(), None, "not a root-agent stop"
    from jev.settings import load_settings

    settings: Settings = load_settings(profile)
    if not settings.enabled:
        return HookAnswer(), None, f"profile {settings.profile} is disabled"
    if hook.host == "cursor" and (hook.status or "completed") != "completed":
        return HookAnswer(), None, f"cursor stop status {hook.status}"
    if hook.permission_mode == "plan":
        return HookAnswer(), None, "plan mode"
    if hook.running_tasks:
        return HookAnswer(), None, "deferred: background tasks running"
    session = _session_of(hook)
    index = SessionIndex()
    try:
        turn = current_turn(hook, index, session)
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
    if hook.host == "cursor" and hook.loop_count is not None:
        # Cursor counts its own follow-ups; Jev's counter stays the guard (HOSTS.md §4).
        print(f"jev: cursor loop_count={hook.loop_count}", file=sys.stderr)
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
    if hook.host in ("gemini", "cursor"):
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
        host: ``claude-code``, ``codex``, ``gemini`` or ``cursor``.
        stdin_text: the hook JSON the host wrote to stdin.
        profile: ``--profile`` of the hook command (``None``: ``JEV_PROFILE``/default).
        make_auditor: builds the auditor from ``(profile, host)`` (tests pass their own).

    Returns:
        A :class:`HookResult` whose ``exit_code`` is 0.
    """
    session = ""
    try:
        hook = parse_hook_input(host, stdin_text)
    except HookInputError as exc:
        stdout, stderr, code = render_answer(
            host, HookAnswer(notice=f"Jev: {exc}; the completion audit did not run.")
        )
        return HookResult(stdout, stderr, code, skipped="bad stdin")
    try:
        session = _session_of(hook)
        answer, decision, skipped, where = _stop(hook, profile, make_auditor)
        stdout, stderr, code = render_answer(host, answer)
        return HookResult(
            stdout,
            stderr,
            code,
            decision=decision,
            skipped=skipped,
            host=host,
            session=session,
            turn=where[0],
            profile=where[1],
        )
    except Exception as exc:  # fail open: never a traceback, never a blocked turn
        logged = log_failure(host, session, exc)
        stdout, stderr, code = render_answer(host, HookAnswer(notice=fail_open_notice(exc)))
        if os.environ.get("JEV_DEBUG"):
            import traceback

            logged += traceback.format_exc()
        return HookResult(stdout, stderr + logged, code, skipped="error")


def report_undelivered(
    result: HookResult, exc: BaseException, make_auditor: AuditorFactory = _default_auditor
) -> str:
    """The hook's answer could not be written: take the counted supplement back.

    Calls :meth:`jev.api.Auditor.undelivered` for the turn of ``result`` when it
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


def run_session_start_hook(stdin_text: str, *, profile: str | None = None) -> HookResult:
    """Claude Code ``SessionStart``: the system-prompt section when the profile is enabled.

    Bad stdin is ignored (the answer does not depend on it). A disabled profile, or any
    failure, prints nothing (SessionStart plain stdout would reach the model, so a
    notice there would be wrong; failures go to the hook-error log). Never raises.
    """
    del stdin_text  # the context does not depend on the session
    try:
        from jev.settings import load_settings

        settings = load_settings(profile)
        if not settings.enabled:
            return HookResult("", skipped=f"profile {settings.profile} is disabled")
        from jev.texts import system_prompt_section

        language = settings.language if settings.language in ("en", "zh") else "en"
        return HookResult(render_session_start(system_prompt_section(language)))
    except Exception as exc:
        return HookResult("", log_failure("claude-code", "", exc), skipped="error")
