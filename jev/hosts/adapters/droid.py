"""Factory Droid: the Claude-style ``Stop`` hook (hosts.md (other hosts)).

Sources: docs.factory.ai ``reference/hooks-reference`` [V]; the session file format
from third-party readers [S] (:mod:`jev.hosts.droid_transcript`).

* **stdin**: Claude-style ``session_id``, ``transcript_path``, ``cwd``,
  ``hook_event_name`` (``Stop``/``SubagentStop``), ``stop_hook_active``; camelCase
  names (``sessionId``, ``transcriptPath``, ``hookEventName``) reported by third
  parties are read too.
* **answer**: exit 0 + ``{"decision": "block", "reason": …}``; ``systemMessage`` for a
  notice.
* **turn**: the session JSONL read by the Claude Code rules
  (:mod:`jev.hosts.droid_transcript`).
* **install**: ``~/.factory/hooks.json`` (user) or ``<project>/.factory/hooks.json``,
  ``hooks.Stop[{hooks: [{type: "command", command, timeout}]}]``, ``timeout`` in
  seconds. ``TodoWrite`` is on by default.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jev.hosts.adapters.qwen import claude_style_render, transcript_file
from jev.hosts.base import (
    ConfigSetting,
    HookAnswer,
    HookInput,
    HostAdapter,
    Installer,
    common_fields,
    text_field,
)

if TYPE_CHECKING:
    from jev.hosts.hook import SessionIndex
    from jev.hosts.transcript import Turn

__all__ = ["ADAPTER", "DroidAdapter", "DroidInstaller"]

_CAMEL = {
    "session_id": "sessionId",
    "transcript_path": "transcriptPath",
    "permission_mode": "permissionMode",
    "stop_hook_active": "stopHookActive",
    "last_assistant_message": "lastAssistantMessage",
}


class DroidAdapter:
    """The Factory Droid adapter (see the module docstring and :class:`HostAdapter`)."""

    name = "droid"
    hooks: Mapping[str, str] = {"droid": "stop"}
    remember_material = True

    @property
    def installer(self) -> Installer | None:
        """``.factory/hooks.json`` (:class:`DroidInstaller`)."""
        return _INSTALLER

    def fast_kind(self, data: dict[str, Any]) -> str:
        """Always ``other``: every Droid stop takes the full hook."""
        return "other"

    def quick_skip(self, data: dict[str, Any]) -> bool:
        """Never."""
        return False

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

    def gate(self, hook: HookInput) -> str:
        """No Droid-only gate."""
        return ""

    def read_turn(self, hook: HookInput, index: SessionIndex, session: str) -> Turn:
        """The current turn (Claude Code rules on Droid lines).

        Raises:
            MaterialMissing: no transcript file.
            UsageError: the file cannot be read.
        """
        from dataclasses import replace

        from jev.hosts.droid_transcript import read_current_turn

        turn = read_current_turn(transcript_file(hook))
        if hook.last_assistant_message is not None and turn.material is not None:
            material = replace(turn.material, final_answer=hook.last_assistant_message)
            turn = replace(turn, material=material)
        return turn

    def reread(self, entry: Mapping[str, Any]) -> Turn | None:
        """The current turn of the session's file (``jev retry``)."""
        path = entry.get("transcript_path")
        if not path or not Path(str(path)).is_file():
            return None
        from jev.hosts.droid_transcript import read_current_turn

        return read_current_turn(str(path))

    def render(self, answer: HookAnswer, hook: HookInput | None = None) -> tuple[str, str]:
        """The Claude Code Stop contract."""
        return claude_style_render(answer)

    def render_session_start(self, context: str | None) -> str:
        """Jev installs no Droid session-start hook."""
        return ""


class DroidInstaller:
    """Factory Droid ``hooks.json`` (module docstring); ``timeout`` in seconds."""

    scopes: tuple[str, ...] = ("user", "project")
    entries: tuple[tuple[str, str], ...] = (("Stop", "droid"),)
    timeout_unit: str = "s"

    def config_path(self, scope: str, project: Path) -> Path:
        """``~/.factory/hooks.json`` (user) or ``<project>/.factory/hooks.json``."""
        if scope == "user":
            return Path.home() / ".factory" / "hooks.json"
        return project / ".factory" / "hooks.json"

    def present(self) -> bool:
        """``~/.factory`` exists, or ``droid`` is on PATH."""
        import shutil

        return (Path.home() / ".factory").is_dir() or shutil.which("droid") is not None

    def handler(
        self, event: str, name: str, exe: Path, profile: str | None, timeout_s: int
    ) -> dict[str, Any]:
        """A ``command`` handler; ``timeout`` in seconds."""
        from jev.hosts.hook_commands import hook_command

        return {
            "type": "command",
            "command": hook_command(name, profile, exe),
            "timeout": timeout_s,
        }

    def todo_tool_settings(self, scope: str, project: Path) -> tuple[ConfigSetting, ...]:
        """None: ``TodoWrite`` is on by default."""
        return ()

    def notes(self) -> tuple[str, ...]:
        """Nothing to add."""
        return ()


_INSTALLER = DroidInstaller()
ADAPTER: HostAdapter = DroidAdapter()
