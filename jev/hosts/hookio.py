"""Per-host stop-hook contracts: stdin JSON in, stdout JSON + exit code out (SPEC §12).

Pure and stdlib-only (the hook's fast path imports it for every stop). Four hosts:

=============  ======================  ===============================================
host           stop event              how Jev steers the agent back into the turn
=============  ======================  ===============================================
claude-code    ``Stop``                exit 0 + ``{"decision":"block","reason":…}``
codex          ``Stop``                exit 0 + ``{"decision":"block","reason":…}``
gemini         ``AfterAgent``          exit 0 + ``{"decision":"deny","reason":…}``
cursor         ``stop``                exit 0 + ``{"followup_message":…}``
=============  ======================  ===============================================

Sources (HOSTS.md §1.3, §1.4, §3.3, §4):

* Claude Code hooks reference (code.claude.com/docs hooks.md, "Stop input", "JSON
  output", "Stop decision control"): every stdin field except ``hook_event_name`` is
  optional across versions; exit 0 + ``decision: block`` is the one block form that
  behaves the same under the 2025-12 and the current contract, so Jev never exits 2.
  ``systemMessage`` is shown to the user, not to the model.
* Codex ``codex-rs/hooks/schema/generated/stop.command.{input,output}.schema.json``
  and ``codex-rs/hooks/src/events/stop.rs``: same block object; empty stdout on exit 0
  means "allow"; invalid JSON on exit 0 is a hook error, so Jev only ever prints JSON.
* Gemini CLI ``docs/hooks/reference.md`` (``AfterAgent``): ``decision: "deny"`` with a
  ``reason`` sent to the agent as a new prompt; stdout must be JSON only ("silence is
  mandatory"), so Jev prints ``{}`` when it has nothing to say.
* Cursor ``stop`` hook (third-party references, HOSTS.md §4 [S]): ``followup_message``
  is submitted as the next user message; ``status`` is ``completed|aborted|error``;
  ``loop_count`` counts earlier follow-ups. There is no documented user-notice field,
  so notices go to stderr.

Every exit code produced here is 0: a hook failure must never block a turn (fail open).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from jev.errors import UsageError

__all__ = [
    "HOSTS",
    "STOP_EVENTS",
    "HookAnswer",
    "HookInput",
    "HookInputError",
    "parse_hook_input",
    "render_answer",
    "render_session_start",
]

#: Hosts with a stop-hook adapter, in the order of the module table.
HOSTS: tuple[str, ...] = ("claude-code", "codex", "gemini", "cursor")

#: The event name (lower-cased) that marks "the root agent is about to stop", per host.
STOP_EVENTS: Mapping[str, str] = {
    "claude-code": "stop",
    "codex": "stop",
    "gemini": "afteragent",
    "cursor": "stop",
}

#: Events that are a subagent's stop: never audited (SPEC §2 root turns only).
_SUBAGENT_EVENTS = frozenset({"subagentstop"})

#: Background-task statuses that mean "finished"; any other status (Claude Code
#: documents ``running``) means the task is still going and the stop is deferred.
_FINISHED_TASK_STATUSES = frozenset(
    {
        "completed",
        "complete",
        "done",
        "failed",
        "error",
        "killed",
        "stopped",
        "cancelled",
        "canceled",
        "finished",
        "exited",
    }
)

#: Hard cap of Claude Code on ``systemMessage``/``additionalContext`` (characters);
#: longer text is replaced by a preview (HOSTS.md §1.4). Jev keeps notices below it.
MAX_OUTPUT_CHARS = 10_000


class HookInputError(UsageError):
    """The hook's stdin is not a JSON object with a ``hook_event_name`` (HOSTS.md §1.2).

    The hook answers it with a one-line notice and exit 0 (fail open).
    """

    kind = "hook-input"


@dataclass(frozen=True, slots=True)
class HookInput:
    """The host's stop-hook stdin, normalised across hosts.

    Attributes:
        host: one of :data:`HOSTS`.
        event: ``hook_event_name`` as sent (``Stop``, ``SubagentStop``, ``AfterAgent``,
            ``stop``, ``SessionStart`` …); for Gemini/Cursor the host's stop event when
            the field is absent.
        session_id: the host's session id ("" when absent; Cursor: ``conversation_id``).
        turn_id: the host's turn id when it sends one (Codex ``turn_id``, Cursor
            ``generation_id``), else "".
        transcript_path: path of the session transcript, or ``None`` (Codex may send
            null; Cursor usually sends none).
        cwd: the agent's working directory ("" when absent).
        permission_mode: ``default``, ``plan``, … ("" when absent).
        stop_hook_active: the host says it is already continuing because of a stop
            hook. Read, but never trusted alone: Jev's own per-turn counter guards
            the loop (HOSTS.md §1.6).
        last_assistant_message: the final answer as the host saw it (Claude Code
            ≥ 2.1.47, Codex; Gemini ``prompt_response``), or ``None``.
        agent_id: set when the hook fires inside a subagent (Claude Code ≥ 2.1.69).
        running_tasks: ids (or descriptions) of background tasks still running
            (Claude Code ``background_tasks``, ≥ 2.1.145).
        prompt: Gemini ``prompt`` (the user's request of this turn), else ``None``.
        status: Cursor ``status`` (``completed``/``aborted``/``error``), else ``None``.
        loop_count: Cursor ``loop_count``, else ``None``.
        source: SessionStart ``source`` (``startup``, ``resume``, ``clear``, ``compact``).
        raw: the whole stdin object, unknown fields included.
    """

    host: str
    event: str
    session_id: str = ""
    turn_id: str = ""
    transcript_path: str | None = None
    cwd: str = ""
    permission_mode: str = ""
    stop_hook_active: bool = False
    last_assistant_message: str | None = None
    agent_id: str | None = None
    running_tasks: tuple[str, ...] = ()
    prompt: str | None = None
    status: str | None = None
    loop_count: int | None = None
    source: str | None = None
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False)

    @property
    def is_stop(self) -> bool:
        """True when the event is this host's root-agent stop event."""
        return self.event.lower() == STOP_EVENTS.get(self.host, "stop")

    @property
    def is_subagent(self) -> bool:
        """True for ``SubagentStop`` or any event fired inside a subagent (SPEC §14)."""
        return self.event.lower() in _SUBAGENT_EVENTS or bool(self.agent_id)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _running_tasks(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list):
        return ()
    running: list[str] = []
    for index, task in enumerate(value):
        if not isinstance(task, Mapping):
            continue
        status = str(task.get("status") or "").strip().lower()
        if status in _FINISHED_TASK_STATUSES:
            continue
        label = task.get("id") or task.get("description") or task.get("name") or f"#{index + 1}"
        running.append(str(label))
    return tuple(running)


def parse_hook_input(host: str, text: str) -> HookInput:
    """Parse a host's hook stdin (a JSON object) into a :class:`HookInput`.

    Unknown fields are kept in ``raw`` and otherwise ignored; wrongly typed optional
    fields are treated as absent (hosts change field shapes between versions).

    Args:
        host: one of :data:`HOSTS`.
        text: the whole stdin text.

    Raises:
        HookInputError: empty stdin, not JSON, not an object, or (Claude Code, Codex)
            no ``hook_event_name``.
        UsageError: ``host`` is not one of :data:`HOSTS`.
    """
    if host not in HOSTS:
        raise UsageError(f"unknown host {host!r}; expected one of: {', '.join(HOSTS)}")
    if not text.strip():
        raise HookInputError(f"the {host} hook received empty stdin (expected the hook JSON)")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise HookInputError(
            f"the {host} hook stdin is not JSON ({exc.msg} at line {exc.lineno})"
        ) from None
    if not isinstance(data, dict):
        raise HookInputError(f"the {host} hook stdin is JSON but not an object")
    event = _text(data.get("hook_event_name")) or ""
    if not event:
        if host in ("gemini", "cursor"):
            # Gemini's base input and Cursor's stop input may omit it in older builds.
            event = "AfterAgent" if host == "gemini" else "stop"
        else:
            raise HookInputError(f"the {host} hook stdin has no hook_event_name")
    session_id = _text(data.get("session_id")) or ""
    turn_id = _text(data.get("turn_id")) or ""
    last_message = _text(data.get("last_assistant_message"))
    prompt: str | None = None
    status: str | None = None
    loop_count: int | None = None
    if host == "gemini":
        prompt = _text(data.get("prompt"))
        if last_message is None:
            last_message = _text(data.get("prompt_response"))
    if host == "cursor":
        session_id = session_id or _text(data.get("conversation_id")) or ""
        turn_id = turn_id or _text(data.get("generation_id")) or ""
        status = _text(data.get("status"))
        raw_count = data.get("loop_count")
        loop_count = (
            raw_count if isinstance(raw_count, int) and not isinstance(raw_count, bool) else None
        )
    transcript = _text(data.get("transcript_path")) or None
    agent_id = _text(data.get("agent_id")) or None
    return HookInput(
        host=host,
        event=event,
        session_id=session_id,
        turn_id=turn_id,
        transcript_path=transcript,
        cwd=_text(data.get("cwd")) or "",
        permission_mode=_text(data.get("permission_mode")) or "",
        stop_hook_active=data.get("stop_hook_active") is True,
        last_assistant_message=last_message,
        agent_id=agent_id,
        running_tasks=_running_tasks(data.get("background_tasks")),
        prompt=prompt,
        status=status,
        loop_count=loop_count,
        source=_text(data.get("source")),
        raw=data,
    )


@dataclass(frozen=True, slots=True)
class HookAnswer:
    """What the hook wants the host to do, before it is put in the host's words.

    Attributes:
        steer: text to send back into the same turn (a supplement), or ``None`` to
            let the turn stop.
        notice: one short line for the user ("" for nothing to say).
    """

    steer: str | None = None
    notice: str = ""


def _cap(text: str) -> str:
    if len(text) <= MAX_OUTPUT_CHARS:
        return text
    return text[: MAX_OUTPUT_CHARS - 1] + "…"


def render_answer(host: str, answer: HookAnswer) -> tuple[str, str, int]:
    """Put a :class:`HookAnswer` into the host's stop-hook output contract.

    Returns:
        ``(stdout, stderr, exit_code)``; ``stdout`` is "" or one JSON object followed
        by a newline; ``exit_code`` is always 0 (never 2, see the module docstring).

    Raises:
        UsageError: unknown host.
    """
    if host not in HOSTS:
        raise UsageError(f"unknown host {host!r}; expected one of: {', '.join(HOSTS)}")
    notice = _cap(answer.notice.strip())
    out: dict[str, Any] = {}
    err = ""
    if host in ("claude-code", "codex"):
        if answer.steer is not None:
            out["decision"] = "block"
            out["reason"] = answer.steer
        if notice:
            out["systemMessage"] = notice
    elif host == "gemini":
        if answer.steer is not None:
            out["decision"] = "deny"
            out["reason"] = answer.steer
        if notice:
            out["systemMessage"] = notice
    else:  # cursor
        if answer.steer is not None:
            out["followup_message"] = answer.steer
        if notice:
            err = notice + "\n"
    if not out:
        # Gemini and Cursor parse stdout as JSON: say "nothing" as an empty object.
        stdout = "{}\n" if host in ("gemini", "cursor") else ""
        return stdout, err, 0
    return json.dumps(out, ensure_ascii=False) + "\n", err, 0


def render_session_start(context: str | None) -> str:
    """Claude Code ``SessionStart`` output adding ``context`` to the conversation.

    Returns "" when ``context`` is ``None`` or blank (profile disabled: say nothing),
    else ``{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":…}}``
    plus a newline (HOSTS.md §1.8).
    """
    if context is None or not context.strip():
        return ""
    payload = {
        "hookSpecificOutput": {
            "hookEventName": "SessionStart",
            "additionalContext": _cap(context),
        }
    }
    return json.dumps(payload, ensure_ascii=False) + "\n"
