"""Factory Droid: the Claude-style ``Stop`` hook (hosts.md (other hosts)).

Sources: docs.factory.ai ``reference/hooks-reference`` [V]; the session file format
from third-party readers [S] (:mod:`jev.hosts.droid.transcript`).

* **stdin**: Claude-style ``session_id``, ``transcript_path``, ``cwd``,
  ``hook_event_name`` (``Stop``/``SubagentStop``), ``stop_hook_active``; camelCase
  names (``sessionId``, ``transcriptPath``, ``hookEventName``) reported by third
  parties are read too.
* **answer**: exit 0 + ``{"decision": "block", "reason": …}``; ``systemMessage`` for a
  notice.
* **turn**: the session JSONL read by the Claude Code rules
  (:mod:`jev.hosts.droid.transcript`).
* **install**: ``~/.factory/hooks.json`` (user) or ``<project>/.factory/hooks.json``,
  ``hooks.Stop[{hooks: [{type: "command", command, timeout}]}]``, ``timeout`` in
  seconds. ``TodoWrite`` is on by default.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from jev.hosts.adapter_kit import (
    FullHookAdapter,
    HookFileInstaller,
    decision_answer,
    transcript_file,
    with_final_answer,
)
from jev.hosts.base import HookAnswer, HookInput, HostAdapter, Installer, common_fields, text_field
from jev.hosts.droid.transcript import read_current_turn

if TYPE_CHECKING:
    from jev.hosts.hook import SessionIndex
    from jev.hosts.turns import Turn

__all__ = ["ADAPTER", "DroidAdapter", "DroidInstaller"]

_CAMEL = {
    "session_id": "sessionId",
    "transcript_path": "transcriptPath",
    "permission_mode": "permissionMode",
    "stop_hook_active": "stopHookActive",
    "last_assistant_message": "lastAssistantMessage",
}


class DroidInstaller(HookFileInstaller):
    """Factory Droid ``hooks.json`` (module docstring); ``timeout`` in seconds.
    ``TodoWrite`` is on by default."""

    entries: tuple[tuple[str, str], ...] = (("Stop", "droid"),)
    user_folder: tuple[str, ...] = (".factory",)
    project_folder: tuple[str, ...] = (".factory",)
    file_name: str = "hooks.json"
    program: str = "droid"


class DroidAdapter(FullHookAdapter):
    """The Factory Droid adapter (see the module docstring and :class:`HostAdapter`)."""

    name = "droid"
    hooks: Mapping[str, str] = {"droid": "stop"}
    installer: Installer | None = DroidInstaller()

    def parse(self, data: Mapping[str, Any]) -> HookInput:
        """The typed event from snake_case or camelCase fields."""
        merged = dict(data)
        for snake, camel in _CAMEL.items():
            if snake not in merged and camel in merged:
                merged[snake] = merged[camel]
        event = (
            text_field(data.get("hook_event_name"))
            or text_field(data.get("hookEventName"))
            or "Stop"
        )
        kind = {"stop": "stop", "subagentstop": "subagent-stop"}.get(event.lower(), "other")
        fields = common_fields(merged)
        fields["raw"] = data
        return HookInput(host=self.name, event=event, kind=kind, **fields)

    def read_turn(self, hook: HookInput, index: SessionIndex, session: str) -> Turn:
        """The current turn (Claude Code rules on Droid lines).

        Raises:
            MaterialMissing: no transcript file.
            UsageError: the file cannot be read.
        """
        return with_final_answer(read_current_turn(transcript_file(hook)), hook)

    def read_file(self, path: str) -> Turn:
        """The current turn of the session file at ``path`` (``jev retry``)."""
        return read_current_turn(path)

    def render(self, answer: HookAnswer, hook: HookInput | None = None) -> tuple[str, str]:
        """The Claude Code Stop contract (:func:`jev.hosts.adapter_kit.decision_answer`)."""
        return decision_answer(answer)


ADAPTER: HostAdapter = DroidAdapter()
