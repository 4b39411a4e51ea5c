"""Qwen Code: the Claude-style ``Stop`` hook (hosts.md (other hosts)).

Sources: QwenLM/qwen-code ``docs/users/features/hooks.md`` @00d06c8,
``packages/core/src/tools/todoWrite.ts`` @00f36e4 [V]; the transcript format from
``packages/core/src/services/chatRecordingService.ts``.

* **stdin**: Claude-style ``session_id``, ``transcript_path``, ``cwd``,
  ``hook_event_name`` (``Stop``/``SubagentStop``), ``stop_hook_active`` (hard-coded
  before QwenLM/qwen-code#11613, so never trusted), ``last_assistant_message``.
* **answer**: exit 0 + ``{"decision": "block", "reason": …}``; ``systemMessage`` for a
  notice; "" for nothing.
* **turn**: the session JSONL (:mod:`jev.hosts.qwen_transcript`: the active branch of
  ``ChatRecord``s, turns keyed by ``promptId``, ``todo_write``); the hook's
  ``last_assistant_message`` wins over a transcript that may lag.
* **install**: ``~/.qwen/settings.json`` (user) or ``<project>/.qwen/settings.json``,
  ``hooks.Stop[{hooks: [{type: "command", command, timeout}]}]`` with the command
  ``timeout`` in **milliseconds** (default 60000). ``todo_write`` is a core tool, on
  by default.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

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

if TYPE_CHECKING:
    from jev.hosts.hook import SessionIndex
    from jev.hosts.transcript import Turn

__all__ = ["ADAPTER", "QwenAdapter", "QwenInstaller", "claude_style_render"]


def claude_style_render(answer: HookAnswer) -> tuple[str, str]:
    """``{"decision":"block","reason":…}`` to steer, ``systemMessage`` for a notice,
    "" for nothing (the Claude Code Stop contract that Qwen Code and Droid follow)."""
    out: dict[str, Any] = {}
    if answer.steer is not None:
        out["decision"] = "block"
        out["reason"] = answer.steer
    notice = cap(answer.notice.strip())
    if notice:
        out["systemMessage"] = notice
    return (json_line(out) if out else ""), ""


def transcript_file(hook: HookInput) -> str:
    """The hook's transcript path when it is a file.

    Raises:
        MaterialMissing: no path, or not a file.
    """
    from jev.errors import MaterialMissing

    path = hook.transcript_path
    if not path:
        raise MaterialMissing(
            f"the {hook.host} hook received no transcript_path, so the turn's request and "
            "Todo list cannot be read"
        )
    if not Path(path).is_file():
        what = "is not a file" if Path(path).exists() else "does not exist (yet)"
        raise MaterialMissing(f"the transcript {path} {what}")
    return path


class QwenAdapter:
    """The Qwen Code adapter (see the module docstring and :class:`HostAdapter`)."""

    name = "qwen"
    hooks: Mapping[str, str] = {"qwen": "stop"}
    remember_material = True

    @property
    def installer(self) -> Installer | None:
        """``.qwen/settings.json`` (:class:`QwenInstaller`)."""
        return _INSTALLER

    def fast_kind(self, data: dict[str, Any]) -> str:
        """Always ``other``: every Qwen Code stop takes the full hook."""
        return "other"

    def quick_skip(self, data: dict[str, Any]) -> bool:
        """Never."""
        return False

    def parse(self, data: Mapping[str, Any]) -> HookInput:
        """The typed event (``Stop`` when ``hook_event_name`` is absent)."""
        event = text_field(data.get("hook_event_name")) or "Stop"
        kind = {"stop": "stop", "subagentstop": "subagent-stop"}.get(event.lower(), "other")
        return HookInput(host=self.name, event=event, kind=kind, **common_fields(data))

    def gate(self, hook: HookInput) -> str:
        """No Qwen-only gate."""
        return ""

    def read_turn(self, hook: HookInput, index: SessionIndex, session: str) -> Turn:
        """The current turn of the session JSONL (module docstring).

        Raises:
            MaterialMissing: no transcript file.
            UsageError: the file cannot be read.
        """
        from dataclasses import replace

        from jev.hosts.qwen_transcript import read_current_turn
        from jev.hosts.readkit import supplement_test

        entry = index.get(session) or {}
        steers = [*(entry.get("steers") or ()), entry.get("last_steer")]
        turn = read_current_turn(transcript_file(hook), is_supplement=supplement_test(steers))
        if hook.last_assistant_message is not None and turn.material is not None:
            material = replace(turn.material, final_answer=hook.last_assistant_message)
            turn = replace(turn, material=material)
        return turn

    def reread(self, entry: Mapping[str, Any]) -> Turn | None:
        """The current turn of the session's transcript (``jev retry``)."""
        path = entry.get("transcript_path")
        if not path or not Path(str(path)).is_file():
            return None
        from jev.hosts.qwen_transcript import read_current_turn

        return read_current_turn(str(path))

    def render(self, answer: HookAnswer, hook: HookInput | None = None) -> tuple[str, str]:
        """The Claude Code Stop contract (:func:`claude_style_render`)."""
        return claude_style_render(answer)

    def render_session_start(self, context: str | None) -> str:
        """Jev installs no Qwen Code session-start hook."""
        return ""


class QwenInstaller:
    """Qwen Code ``settings.json`` (module docstring); ``timeout`` in milliseconds."""

    scopes: tuple[str, ...] = ("user", "project")
    entries: tuple[tuple[str, str], ...] = (("Stop", "qwen"),)
    timeout_unit: str = "ms"

    def config_path(self, scope: str, project: Path) -> Path:
        """``~/.qwen/settings.json`` (user) or ``<project>/.qwen/settings.json``."""
        if scope == "user":
            return Path.home() / ".qwen" / "settings.json"
        return project / ".qwen" / "settings.json"

    def present(self) -> bool:
        """``~/.qwen`` exists, or ``qwen`` is on PATH."""
        import shutil

        return (Path.home() / ".qwen").is_dir() or shutil.which("qwen") is not None

    def handler(
        self, event: str, name: str, exe: Path, profile: str | None, timeout_s: int
    ) -> dict[str, Any]:
        """A ``command`` handler; ``timeout`` in ms covering the judge budget."""
        from jev.hosts.hook_commands import hook_command

        return {
            "type": "command",
            "command": hook_command(name, profile, exe),
            "timeout": timeout_s * 1000,
        }

    def todo_tool_settings(self, scope: str, project: Path) -> tuple[ConfigSetting, ...]:
        """None: ``todo_write`` is on by default."""
        return ()

    def notes(self) -> tuple[str, ...]:
        """Nothing to add."""
        return ()


_INSTALLER = QwenInstaller()
ADAPTER: HostAdapter = QwenAdapter()
