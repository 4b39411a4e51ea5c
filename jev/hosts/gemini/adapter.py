"""Gemini CLI: the ``AfterAgent`` hook (hosts.md (Gemini CLI); gemini-cli@5411f113).

* **stdin** (``docs/hooks/reference.md``): ``session_id``, ``transcript_path`` ("" when
  nothing is recorded), ``cwd``, ``hook_event_name``, ``timestamp``, plus ``prompt``,
  ``prompt_response`` and ``stop_hook_active``. A UTF-8 BOM is tolerated.
* **retry shape** (``core/client.ts``): after a ``deny`` Gemini sends the reason as a new
  message with the **same prompt id**; the retry's AfterAgent carries ``prompt`` = the
  user's *original* request, ``prompt_response`` = every answer of this prompt so far,
  and ``stop_hook_active: true``. So the turn is never keyed by the hook's
  ``timestamp``: its key is the chat file's opening user message of the turn (its
  ``id``), and Jev's own supplement recorded as a user message continues that turn
  (:mod:`jev.hosts.gemini.transcript`). Without a chat file the key is the session plus
  the original prompt, which every retry repeats.
* **final answer**: the newest model message of the turn in the chat file; only when the
  file has none, ``prompt_response`` (on a retry of the same prompt cut after the
  previous stop's cumulative response) — never the cumulative text as a whole.
  ``stop_hook_active`` is **false** on a retry after a tool call (measured in 0.61.0):
  neither this nor Jev's budget relies on it.
* **answer**: ``{"decision": "deny", "reason": …}``; a notice goes in ``systemMessage``;
  stdout is JSON only ("silence is mandatory"), so ``{}`` when there is nothing to say.
  ``SessionStart`` answers ``hookSpecificOutput.additionalContext``.
* **install** (``docs/hooks/reference.md``, ``settingsSchema.ts``): ``AfterAgent`` and
  ``SessionStart`` in ``~/.gemini/settings.json`` (user) or
  ``<project>/.gemini/settings.json`` (project), ``timeout`` in **milliseconds**
  (default 60000, below Jev's judge budget), and ``experimental.taskTracker: true``:
  ``write_todos`` is registered only for ``gemini-2.x`` models, not for the default
  ``auto``, while the tracker tools exist for every model (``config.ts``; hosts.md
  §4.1). ``--no-todo-tools`` leaves it out.
* **doctor** (measured in the real CLI 0.61.0, hosts.md §0a): the Todo tool is there
  when ``experimental.taskTracker`` is true (``tracker_*`` tools, every model) *or*
  the model (``GEMINI_MODEL``, else ``model.name``) is a ``gemini-2.x`` one with the
  tracker off and ``useWriteTodos`` not false (``write_todos``):
  :meth:`GeminiInstaller.todo_tools_offered`. Block cap 10
  (:attr:`GeminiInstaller.host_block_cap`: Gemini's loop detection, not a hook limit;
  five identical tool calls in a row end the prompt without a further AfterAgent);
  ``systemMessage`` is shown (``-p``: "Hook system message: …" on
  stderr; a block also as "[WARNING] Agent execution blocked: …"). The newest
  session is ``~/.gemini/tmp/<project>/chats/session-*.jsonl``.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jev.base.errors import MaterialMissing
from jev.hosts.adapter_kit import FullHookAdapter, HookFileInstaller, decision_answer
from jev.hosts.base import (
    ConfigSetting,
    HookAnswer,
    HookInput,
    HostAdapter,
    Installer,
    cap,
    common_fields,
    json_line,
    text_field,
)
from jev.hosts.gemini.transcript import read_turns
from jev.hosts.hook_commands import hook_command
from jev.hosts.readkit import supplement_test
from jev.hosts.turns import Turn

if TYPE_CHECKING:
    from jev.hosts.hook import SessionIndex

__all__ = ["ADAPTER", "GeminiAdapter", "GeminiInstaller"]

#: The settings key that registers the tracker tools on every model (``settingsSchema.ts``).
TASK_TRACKER_KEYS = ("experimental", "taskTracker")
#: The models ``write_todos`` is registered for (``isGemini2Model``, gemini-cli 0.61.0).
_WRITE_TODOS_MODEL = re.compile(r"gemini-2(\.|$)")


def _norm(text: str) -> str:
    return " ".join(text.split())


def _prompt_key(session: str, prompt: str) -> str:
    digest = hashlib.sha256(f"{session}\n{_norm(prompt)}".encode()).hexdigest()[:32]
    return f"prompt:{digest}"


def _same_request(request: str, prompt: str) -> bool:
    """The chat file's opening text and the hook's ``prompt`` name the same request
    (``prompt`` may carry ``@file`` expansions or a ``<hook_context>`` block)."""
    a, b = _norm(request), _norm(prompt)
    return bool(a) and bool(b) and (a in b or b in a)


def _new_part(cumulative: str, previous: str) -> str:
    """The newest answer in a cumulative ``prompt_response``: the text after the
    previous stop's cumulative response when it is a prefix, else the whole."""
    if previous and cumulative.startswith(previous):
        rest = cumulative[len(previous) :].strip()
        return rest or cumulative
    return cumulative


def _unread(session: str, prompt: str, reason: str) -> Turn:
    """A skipped current turn keyed by the session and the hook's ``prompt`` (the chat
    file cannot show it)."""
    return Turn(
        number=0,
        key=_prompt_key(session, prompt),
        material=None,
        todo_used=False,
        status="skipped",
        reason=reason,
        ended_by_interrupt=False,
        opening="prompt" if prompt else "missing",
    )


class GeminiInstaller(HookFileInstaller):
    """Gemini CLI ``settings.json`` (module docstring); ``timeout`` in milliseconds."""

    entries: tuple[tuple[str, str], ...] = (
        ("AfterAgent", "gemini"),
        ("SessionStart", "gemini-session-start"),
    )
    timeout_unit: str = "ms"
    user_folder: tuple[str, ...] = (".gemini",)
    project_folder: tuple[str, ...] = (".gemini",)
    file_name: str = "settings.json"
    program: str = "gemini"
    #: Measured in 0.61.0: an agent repeating its answer word for word gets 10 blocks
    #: delivered; then Gemini's loop detection (10 identical 50-character chunks) stops
    #: calling the model while AfterAgent keeps firing, so an 11th block would be
    #: counted and never delivered (53 were, in one run). The hook clamps to it.
    host_block_cap: int | None = 10
    shows_notices: bool = True
    session_glob: str = ".gemini/tmp/*/chats/session-*.json*"
    _project: Path | None = None
    note_lines: tuple[str, ...] = (
        "Gemini CLI runs settings hooks only in a trusted folder; restart Gemini CLI "
        "so the task tracker tools load (they replace write_todos; with "
        "--no-todo-tools a gemini-2.x model keeps write_todos).",
    )

    def handler(
        self, event: str, name: str, exe: Path, profile: str | None, timeout_s: int
    ) -> dict[str, Any]:
        """A ``command`` handler with a ``name`` and a ``description``; ``timeout`` in
        ms covering the judge budget."""
        return {
            "type": "command",
            "command": hook_command(name, profile, exe),
            "name": "jev" if event == "AfterAgent" else "jev-session-start",
            "timeout": self.timeout(name, timeout_s),
            "description": "Jev completion audit",
        }

    def todo_tool_settings(self, scope: str, project: Path) -> tuple[ConfigSetting, ...]:
        """``experimental.taskTracker = true`` in the same ``settings.json``."""
        return (
            ConfigSetting(
                path=self.config_path(scope, project),
                keys=TASK_TRACKER_KEYS,
                value=True,
                what="Todo tools (task tracker)",
            ),
        )

    def todo_tools_offered(self, project: Path) -> bool:
        """Whether Gemini CLI offers a Todo tool with the user and project
        ``settings.json`` (the project file wins, as in Gemini's merge) and the
        environment (:meth:`offer`). For ``jev doctor``; remembers ``project`` for
        :attr:`todo_offer`."""
        self._project = project
        return bool(self.offer(project))

    @property
    def todo_offer(self) -> str:
        """What Gemini offers as its Todo tool, for ``jev doctor``'s "Todo tools" line
        (:meth:`offer` for the project of the last :meth:`todo_tools_offered`)."""
        return self.offer(self._project or Path.cwd())

    def offer(self, project: Path) -> str:
        """The Todo tool Gemini CLI 0.61 registers, or ``""`` for none:
        ``experimental.taskTracker`` true gives the ``tracker_*`` tools on every model;
        otherwise a ``gemini-2.x`` model (``GEMINI_MODEL``, else ``model.name``; the
        default ``auto`` is not one) with ``useWriteTodos`` not false gives
        ``write_todos`` (``config.ts``). An unreadable file counts as empty; ``-m`` on
        Gemini's command line is not visible here."""
        merged: dict[str, Any] = {}
        for scope in self.scopes:
            try:
                data = json.loads(self.config_path(scope, project).read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            if not isinstance(data, dict):
                continue
            for key in ("experimental", "model"):
                if isinstance(data.get(key), dict):
                    merged[key] = {**merged.get(key, {}), **data[key]}
            if "useWriteTodos" in data:
                merged["useWriteTodos"] = data["useWriteTodos"]
        if merged.get("experimental", {}).get("taskTracker") is True:
            return "tracker_* task tools (experimental.taskTracker; no write_todos)"
        model = os.environ.get("GEMINI_MODEL") or merged.get("model", {}).get("name")
        if (
            isinstance(model, str)
            and _WRITE_TODOS_MODEL.match(model) is not None
            and merged.get("useWriteTodos") is not False
        ):
            return f"write_todos (model {model})"
        return ""


class GeminiAdapter(FullHookAdapter):
    """The Gemini CLI adapter (see the module docstring and :class:`HostAdapter`).

    Every stop takes the full hook: the chat file must be replayed whole, so there is
    no cheap backward check."""

    name = "gemini"
    hooks: Mapping[str, str] = {"gemini": "stop", "gemini-session-start": "session-start"}
    installer: Installer | None = GeminiInstaller()

    def parse(self, data: Mapping[str, Any]) -> HookInput:
        """The typed event; ``AfterAgent`` when ``hook_event_name`` is absent.

        ``prompt_response`` is kept in ``raw`` only: it is cumulative on a retry, so it
        is not the final answer (module docstring).
        """
        fields = common_fields(data)
        event = text_field(data.get("hook_event_name")) or "AfterAgent"
        lowered = event.lower()
        kind = {"afteragent": "stop", "sessionstart": "session-start"}.get(lowered, "other")
        return HookInput(
            host=self.name, event=event, kind=kind, prompt=text_field(data.get("prompt")), **fields
        )

    def read_turn(self, hook: HookInput, index: SessionIndex, session: str) -> Turn:
        """The current turn: from the chat file when there is one (module docstring).

        Raises:
            UsageError: the chat file cannot be read.
        """
        entry = index.get(session) or {}
        prompt = hook.prompt or ""
        cumulative = text_field(hook.raw.get("prompt_response")) or ""
        # The previous stop's cumulative response counts when it answered the same
        # prompt: a retry repeats the original prompt, and stop_hook_active is false on
        # a retry after a tool call (measured in 0.61.0), so the flag cannot tell.
        same = hook.stop_hook_active or _norm(str(entry.get("prompt_of_response") or "")) == _norm(
            prompt
        )
        previous = str(entry.get("prompt_response") or "") if same else ""
        if cumulative:
            index.update(session, prompt_response=cumulative, prompt_of_response=prompt)
        path = hook.transcript_path
        if path and Path(path).is_file():
            steers = [*(entry.get("steers") or ()), entry.get("last_steer")]
            turns = read_turns(path, is_supplement=supplement_test(steers))
            if turns:
                turn = turns[-1]
                request = (
                    turn.material.request[0] if turn.material and turn.material.request else ""
                )
                if not prompt or _same_request(request, prompt) or turn.opening != "prompt":
                    if turn.material is not None and not turn.material.final_answer and cumulative:
                        answer = _new_part(cumulative, previous)
                        turn = replace(turn, material=replace(turn.material, final_answer=answer))
                    return replace(turn, number=0)
                return _unread(
                    session, prompt, "the chat file has not caught up with this prompt yet"
                )
        return _unread(session, prompt, "no chat file (Gemini recorded nothing): Todo use unknown")

    def read_file(self, path: str) -> Turn:
        """The current turn (``number`` 0) of the chat file at ``path``.

        Raises:
            MaterialMissing: the file holds no turn yet.
        """
        turns = read_turns(path)
        if not turns:
            raise MaterialMissing(f"{path}: the chat file holds no turn yet")
        return replace(turns[-1], number=0)

    def reread(self, entry: Mapping[str, Any]) -> Turn | None:
        """The current turn of the session's chat file (``jev retry``), else ``None``."""
        path = entry.get("transcript_path")
        if not path or not Path(str(path)).is_file():
            return None
        turns = read_turns(str(path))
        return replace(turns[-1], number=0) if turns else None

    def render(self, answer: HookAnswer, hook: HookInput | None = None) -> tuple[str, str]:
        """``{"decision":"deny","reason":…}``, ``systemMessage``, or ``{}``."""
        return decision_answer(answer, decision="deny", always_json=True)

    def render_session_start(self, context: str | None) -> str:
        """``{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":…}}``,
        or ``{}`` when there is nothing to add (stdout must be JSON)."""
        if context is None or not context.strip():
            return json_line({})
        return json_line(
            {
                "hookSpecificOutput": {
                    "hookEventName": "SessionStart",
                    "additionalContext": cap(context),
                }
            }
        )


ADAPTER: HostAdapter = GeminiAdapter()
