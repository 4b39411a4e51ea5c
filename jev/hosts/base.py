"""What a host adapter is: the typed stop event, the answer, and the adapter protocol.

Jev talks to each agent host through one host package, ``jev/hosts/<host>/`` (design.md
§12; issues 8 item 1, 24 item 2): its ``adapter.py`` holds the adapter (``ADAPTER``, a
:class:`HostAdapter`) and its ``fileformat.py`` the transcript format (a
:class:`TranscriptFormat`). The adapter knows everything that differs between hosts:

* the **fast path** (:meth:`HostAdapter.quick_skip`): stdlib only, no ``typing`` or
  ``dataclasses`` at import time — says when a stop certainly needs nothing;
* **parsing** the hook's stdin into a :class:`HookInput` (the typed stop event: kind,
  session, the host's own turn/prompt identity, transcript path, last assistant
  message, flags such as ``stop_hook_active``, background work, permission mode,
  loop count);
* **gates** only the host knows (work deferred for background tasks, a Cursor stop
  that was aborted) — :meth:`HostAdapter.gate`;
* **reading** the current turn's material and deriving its turn key
  (:meth:`HostAdapter.read_turn`, :meth:`HostAdapter.reread`);
* **rendering** the answer (block / allow / notice) in the host's output contract
  (:meth:`HostAdapter.render`);
* its **installer** (:attr:`HostAdapter.installer`: files, shape, timeout unit).

The generic runner (:mod:`jev.hosts.hook`) does the rest for every host: fast path,
profile switch, plan mode, subagent stops, audit, supplement loop, records, fail-open.
Its ``fileformat`` module says how ``jev audit`` recognises the host's transcript and
reads its turns. Adding a host is one new host package plus its tests, registered in
:mod:`jev.hosts.registry` (one line, or one entry point of a third-party distribution);
no other module names a host, and import-linter keeps host packages from importing
each other.

Every exit code a hook produces is 0: a hook failure must never block a turn (fail
open). Never exit 2, which Claude Code and Codex treat as "block the stop".

Stop payloads are parsed by the adapters' stdlib code (:func:`common_fields`,
:func:`text_field`), not by pydantic models like profiles and records: the full hook
runs on every stop of a host without a fast path, and importing pydantic would more
than double such a stop (design.md §12; ``tests/hosts/test_hook_imports.py``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from jev.base import safejson
from jev.base.domain import InputNote
from jev.base.errors import UsageError

if TYPE_CHECKING:
    from jev.hosts.hook import SessionIndex
    from jev.hosts.transcript import Turn
    from jev.hosts.turns import LineStats

__all__ = [
    "EVENT_KINDS",
    "MAX_OUTPUT_CHARS",
    "ConfigSetting",
    "HookAnswer",
    "HookInput",
    "HookInputError",
    "HostAdapter",
    "Installer",
    "StopEvent",
    "TranscriptFormat",
    "cap",
    "common_fields",
    "json_line",
    "load_object",
    "running_tasks",
    "text_field",
]

#: ``HookInput.kind`` values: the host's root-agent stop, a subagent's stop, a session
#: start, anything else (ignored).
EVENT_KINDS: tuple[str, ...] = ("stop", "subagent-stop", "session-start", "other")

#: Hard cap of Claude Code on ``systemMessage``/``additionalContext`` (characters);
#: longer text is replaced by a preview (hosts.md (Claude Code)). Jev keeps its output below it.
MAX_OUTPUT_CHARS = 10_000

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


class HookInputError(UsageError):
    """The hook's stdin is not a JSON object the host's adapter can read (hosts.md (Claude Code)).

    The hook answers it with a one-line notice and exit 0 (fail open).
    """

    kind = "hook-input"


@dataclass(frozen=True, slots=True)
class HookInput:
    """The host's hook stdin as a typed event, normalised across hosts.

    Attributes:
        host: the adapter's name (``HostAdapter.name``).
        event: ``hook_event_name`` as sent (``Stop``, ``SubagentStop``, ``AfterAgent``,
            ``stop``, ``SessionStart`` …), or the host's stop event when absent.
        kind: one of :data:`EVENT_KINDS`, decided by the adapter.
        session_id: the host's session id ("" when absent).
        turn_id: the host's own turn id when it sends one (Codex ``turn_id``, Cursor
            ``generation_id``), else "".
        prompt_id: the host's id of the user prompt being processed (Claude Code
            ``prompt_id``, ≥ 2.1.196), else "".
        transcript_path: path of the session transcript, or ``None``.
        cwd: the agent's working directory ("" when absent).
        permission_mode: ``default``, ``plan``, … ("" when absent).
        stop_hook_active: the host says it is already continuing because of a stop
            hook (``None`` when absent or not a boolean). Read, never trusted: Jev's own
            per-turn counter in the store is the loop guard (hosts.md (Claude Code), §3.3).
        last_assistant_message: the final answer as the host saw it, or ``None``.
        agent_id: set when the hook fires inside a subagent.
        running_tasks: ids (or descriptions) of background tasks still running.
        crons: ids of scheduled wake-ups of the session (Claude Code ``session_crons``).
        prompt: the user's request as the host passes it (Gemini ``prompt``), else
            ``None``.
        status: the host's stop status (Cursor ``completed``/``aborted``/``error``).
        loop_count: the host's own count of earlier follow-ups (Cursor), else ``None``.
        source: SessionStart ``source`` (``startup``, ``resume``, ``clear``, ``compact``).
        raw: the whole stdin object, unknown fields included.
    """

    host: str
    event: str
    kind: str = "stop"
    session_id: str = ""
    turn_id: str = ""
    prompt_id: str = ""
    transcript_path: str | None = None
    cwd: str = ""
    permission_mode: str = ""
    stop_hook_active: bool | None = None
    last_assistant_message: str | None = None
    agent_id: str | None = None
    running_tasks: tuple[str, ...] = ()
    crons: tuple[str, ...] = ()
    prompt: str | None = None
    status: str | None = None
    loop_count: int | None = None
    source: str | None = None
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False)

    @property
    def is_stop(self) -> bool:
        """True for the host's root-agent stop event."""
        return self.kind == "stop"

    @property
    def is_subagent(self) -> bool:
        """True for a subagent's stop or any event fired inside a subagent (design.md §14)."""
        return self.kind == "subagent-stop" or bool(self.agent_id)


#: The name the issue uses for the typed stop event.
StopEvent = HookInput


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


@dataclass(frozen=True, slots=True)
class ConfigSetting:
    """One setting Jev adds to a host's configuration file at install.

    Attributes:
        path: the file (``.json`` or ``.toml``; may be the hook configuration file).
        keys: the key path inside the file, e.g. ``("env", "CLAUDE_CODE_ENABLE_TODO_TOOLS")``.
        value: the value Jev writes (a string or a boolean).
        what: a few words for the install output ("Todo tools").
    """

    path: Path
    keys: tuple[str, ...]
    value: str | bool
    what: str


class Installer(Protocol):
    """How ``jev install HOST`` wires Jev into one host (design.md §12; issue 8 items 1, 4).

    Attributes:
        scopes: the scopes the host has (``user`` first: the default).
        entries: ``(event, hook name)`` pairs Jev installs (``Stop`` → ``jev hook X``).
        timeout_unit: the unit of the handler's ``timeout`` field (``s`` or ``ms``).
    """

    scopes: tuple[str, ...]
    entries: tuple[tuple[str, str], ...]
    timeout_unit: str

    def config_path(self, scope: str, project: Path) -> Path:
        """The hook configuration file at ``scope`` (``project`` is the project root)."""
        ...

    def present(self) -> bool:
        """True when the host is found on this machine (its user configuration folder
        or its program on ``PATH``), for ``jev doctor``."""
        ...

    def handler(
        self, event: str, name: str, exe: Path, profile: str | None, timeout_s: int
    ) -> dict[str, Any]:
        """The handler object Jev writes for ``event`` running ``jev hook <name>``."""
        ...

    def todo_tool_settings(self, scope: str, project: Path) -> tuple[ConfigSetting, ...]:
        """The settings that make the host's Todo tool available at ``scope`` (issue 8
        item 4: without a Todo list Jev has nothing to audit, design.md §2); ``()`` when the
        host needs none. Written at install unless ``--no-todo-tools``; taken back at
        uninstall only when Jev added them."""
        ...

    def notes(self) -> tuple[str, ...]:
        """Lines printed after a successful install (e.g. "re-trust the hook")."""
        ...

    @property
    def block_cap(self) -> int | None:
        """How many consecutive stop blocks the host delivers before it overrides
        Jev, or ``None`` when the host has no cap (hosts.md §0a). ``jev doctor``
        warns when ``max_supplements`` is above it."""
        ...

    @property
    def notice_channel(self) -> bool:
        """Whether the host shows Jev's notices (needs-user, budget used up) to the
        user. A host without one is named by ``jev doctor`` and in README."""
        ...

    def checks(self, scope: str, path: Path) -> tuple[str, ...]:
        """Host-specific problems of the install at ``scope`` (its hook file
        ``path``), each one line naming the fix: hook trust, a Todo-tool switch the
        host really reads, … ``()`` when there is none. For ``jev doctor``."""
        ...

    def newest_session(self) -> Path | None:
        """The newest session transcript this host wrote on this machine, or
        ``None`` (none, or the host keeps none Jev reads). ``jev doctor`` reads it
        the way the hook would, to prove the reader still understands the host."""
        ...


class HostAdapter(Protocol):
    """One agent host, as the generic runner and the CLI need it (module docstring).

    Attributes:
        name: the host's name (``claude-code``), used in ``jev hook NAME``, records and
            turn keys.
        hooks: ``{hook name: role}`` the host's ``jev hook`` names map to; roles are
            ``stop`` and ``session-start``.
        remember_material: whether the session index keeps the material (hosts whose
            transcript cannot be re-read later, for ``jev retry``).
    """

    name: str
    hooks: Mapping[str, str]
    remember_material: bool

    @property
    def installer(self) -> Installer | None:
        """How to install the hooks, or ``None`` when they are set by hand."""
        ...

    def fast_kind(self, data: dict[str, Any]) -> str:
        """``stop``, ``subagent-stop`` or ``other`` from the raw stdin object, when the
        fast path may decide (stdlib only, never raises); ``other`` sends every stop of
        the host to the full runner."""
        ...

    def quick_skip(self, data: dict[str, Any]) -> bool:
        """True only when the root stop ``data`` certainly has no Todo use in its turn
        (the fast path's host part; stdlib only, never raises)."""
        ...

    def parse(self, data: Mapping[str, Any]) -> HookInput:
        """The typed event of the stdin object ``data``.

        Raises:
            HookInputError: a required field is missing.
        """
        ...

    def gate(self, hook: HookInput) -> str:
        """ "" to go on, or the reason this root stop is not audited now (no count)."""
        ...

    def read_turn(self, hook: HookInput, index: SessionIndex, session: str) -> Turn:
        """The current root turn of the stop (design.md §3).

        Raises:
            MaterialMissing: the material cannot be obtained.
            UsageError: the transcript cannot be read.
        """
        ...

    def reread(self, entry: Mapping[str, Any]) -> Turn | None:
        """The current turn of a session-index entry (``jev retry``), or ``None`` when
        the host's material is only the one remembered in the entry."""
        ...

    def render(self, answer: HookAnswer, hook: HookInput | None = None) -> tuple[str, str]:
        """``(stdout, stderr)`` of the answer in the host's stop-hook contract.

        ``hook`` is the parsed event when there is one (``None`` for unreadable stdin),
        so a host whose contract depends on its version can choose the form."""
        ...

    def render_session_start(self, context: str | None) -> str:
        """Stdout of the host's session-start hook adding ``context`` ("" for nothing)."""
        ...


class TranscriptFormat(Protocol):
    """A host's transcript format: the ``fileformat`` module of its host package.

    Stdlib only at import (``jev audit`` imports every host's to sniff a file); the
    reader is imported inside :meth:`read_turns` / :meth:`read_current_turn`.

    Attributes:
        SNIFF_RANK: the order in which format detection asks the hosts about a head
            record (lower first; built-in ranks are 10-70, the Claude Code catch-all
            last).
        LABEL: what such a file is called in an input note (``"the transcript"``,
            Codex ``"the rollout"``).
    """

    SNIFF_RANK: int
    LABEL: str

    def sniff_head(self, head: bytes) -> bool:
        """True when the head of the file (its first lines, BOM removed) is this host's
        non-JSON transcript."""
        ...

    def sniff_record(self, rec: dict[str, object]) -> bool:
        """True when one JSON object line of the file's head is this host's record."""
        ...

    def sniff_document(self, doc: object) -> bool:
        """True when the whole file, parsed as one JSON document, is this host's."""
        ...

    def read_turns(self, path: Path, stats: LineStats) -> list[Turn]:
        """Every turn of the file, numbered 1, 2, …; lone surrogates replaced are
        added to ``stats``.

        Raises:
            UsageError: the file cannot be read.
        """
        ...

    def read_current_turn(self, path: Path, stats: LineStats) -> Turn:
        """The file's current (last) turn, read backwards where the format allows.

        Raises:
            UsageError: the file cannot be read.
            MaterialMissing: the file holds no turn.
        """
        ...


# ----------------------------------------------------------------------- helpers


#: Deepest nesting accepted in hook stdin (levels); real hook JSON nests < 10.
_STDIN_MAX_DEPTH = 64


def load_object(host: str, text: str, notes: list[InputNote] | None = None) -> dict[str, Any]:
    """The hook stdin ``text`` as a JSON object.

    Lone surrogates (``"\\ud83d"``) in any field become U+FFFD; with ``notes`` given,
    one :class:`jev.base.domain.InputNote` per field that held some is appended to it
    (``where``: ``"hook input field session_id"``), so the hook can say so and the
    record keeps it (design.md §11).

    Raises:
        HookInputError: empty, not JSON, or not an object.
    """
    if not text.strip():
        raise HookInputError(f"the {host} hook received empty stdin (expected the hook JSON)")
    try:
        parsed = safejson.parse(text.lstrip("\ufeff"), max_depth=_STDIN_MAX_DEPTH, scrub=False)
    except safejson.JsonInputError as exc:  # syntax, too deep, digit limit, NaN
        raise HookInputError(f"the {host} hook stdin is not usable JSON ({exc})") from None
    data = parsed.value
    if not isinstance(data, dict):
        raise HookInputError(f"the {host} hook stdin is JSON but not an object")
    clean: dict[str, Any] = {}
    for key, value in data.items():
        fixed_key, n = safejson.scrub_surrogates(key)
        fixed, m = safejson.scrub_value(value)
        clean[fixed_key] = fixed
        if (n or m) and notes is not None:
            name = fixed_key if _FIELD_NAME_RE.fullmatch(fixed_key) else "(unnamed)"
            notes.append(InputNote("lone-surrogates", n + m, f"hook input field {name}"))
    return clean


_FIELD_NAME_RE = re.compile(r"[A-Za-z0-9_.-]{1,40}")


def text_field(value: Any) -> str | None:
    """``value`` when it is a string, else ``None`` (hosts change field shapes)."""
    return value if isinstance(value, str) else None


def running_tasks(value: Any) -> tuple[str, ...]:
    """Labels of the entries of a ``background_tasks``-like list not yet finished."""
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


def common_fields(data: Mapping[str, Any]) -> dict[str, Any]:
    """The :class:`HookInput` fields most hosts send under the Claude Code names
    (``session_id``, ``transcript_path``, ``cwd``, ``permission_mode``,
    ``stop_hook_active``, ``last_assistant_message``, ``agent_id``, ``source``,
    ``turn_id``, ``prompt_id``); wrongly typed fields are treated as absent."""
    active = data.get("stop_hook_active")
    return {
        "session_id": text_field(data.get("session_id")) or "",
        "turn_id": text_field(data.get("turn_id")) or "",
        "prompt_id": text_field(data.get("prompt_id")) or "",
        "transcript_path": text_field(data.get("transcript_path")) or None,
        "cwd": text_field(data.get("cwd")) or "",
        "permission_mode": text_field(data.get("permission_mode")) or "",
        "stop_hook_active": active if isinstance(active, bool) else None,
        "last_assistant_message": text_field(data.get("last_assistant_message")),
        "agent_id": text_field(data.get("agent_id")) or None,
        "source": text_field(data.get("source")),
        "raw": data,
    }


def cap(text: str) -> str:
    """``text`` cut to :data:`MAX_OUTPUT_CHARS` characters (with ``…``)."""
    if len(text) <= MAX_OUTPUT_CHARS:
        return text
    return text[: MAX_OUTPUT_CHARS - 1] + "…"


def json_line(payload: Mapping[str, Any]) -> str:
    """One JSON object plus a newline (non-ASCII kept; the hook writes UTF-8 bytes)."""
    return json.dumps(payload, ensure_ascii=False) + "\n"
