"""Qwen Code: the Claude-style ``Stop`` hook (hosts.md (other hosts)).

Sources: QwenLM/qwen-code ``docs/users/features/hooks.md`` @00d06c8,
``packages/core/src/tools/todoWrite.ts`` @00f36e4 [V]; the transcript format from
``packages/core/src/services/chatRecordingService.ts``.

* **stdin**: Claude-style ``session_id``, ``transcript_path``, ``cwd``,
  ``hook_event_name`` (``Stop``/``SubagentStop``), ``stop_hook_active`` (hard-coded
  before QwenLM/qwen-code#11613, so never trusted), ``last_assistant_message``.
* **answer**: exit 0 + ``{"decision": "block", "reason": …}``; ``systemMessage`` for a
  notice; "" for nothing.
* **turn**: the session JSONL ``~/.qwen/projects/<project slug>/chats/<session>.jsonl``
  (:mod:`jev.hosts.qwen.transcript`: the active branch of ``ChatRecord``s,
  ``todo_write``); 0.24.4 writes no ``promptId``, so a turn is keyed by its user
  record's ``uuid`` [M]. The block reason is not written to the chat file [M]. The
  hook's ``last_assistant_message`` wins over a transcript that may lag.
* **install**: ``~/.qwen/settings.json`` (user) or ``<project>/.qwen/settings.json``,
  ``hooks.Stop[{hooks: [{type: "command", command, timeout}]}]`` with the command
  ``timeout`` in **milliseconds** (default 60000), and ``tools.todoWrite.enabled:
  true``: 0.24.4 registers ``todo_write`` only with it [M] (hosts.md §0a).
* **what the user sees** [M]: ``-p`` prints ``systemMessage`` on stderr; the TUI shows
  every block as "Stop hook error: <reason>". Qwen takes 8 blocks per prompt and
  delivers 7 (a tool call between stops does not reset the count), so its block cap
  is 7.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jev.hosts.adapter_kit import (
    FullHookAdapter,
    HookFileInstaller,
    decision_answer,
    transcript_file,
    with_final_answer,
)
from jev.hosts.base import (
    ConfigSetting,
    HookAnswer,
    HookInput,
    HostAdapter,
    Installer,
    common_fields,
    text_field,
)
from jev.hosts.qwen.transcript import read_current_turn
from jev.hosts.readkit import supplement_test

if TYPE_CHECKING:
    from jev.hosts.hook import SessionIndex
    from jev.hosts.turns import Turn

__all__ = ["ADAPTER", "TODO_WRITE_KEYS", "QwenAdapter", "QwenInstaller"]


#: The Qwen setting that registers ``todo_write`` (off by default in 0.24.4 [M]).
TODO_WRITE_KEYS: tuple[str, ...] = ("tools", "todoWrite", "enabled")


class QwenInstaller(HookFileInstaller):
    """Qwen Code ``settings.json`` (module docstring); ``timeout`` in milliseconds;
    ``tools.todoWrite.enabled`` turns the Todo tool on; the block cap is 7 (8 blocks
    per prompt, 7 delivered)."""

    entries: tuple[tuple[str, str], ...] = (("Stop", "qwen"),)
    timeout_unit: str = "ms"
    user_folder: tuple[str, ...] = (".qwen",)
    project_folder: tuple[str, ...] = (".qwen",)
    file_name: str = "settings.json"
    program: str = "qwen"
    host_block_cap: int | None = 7
    shows_notices: bool = True
    session_glob: str = ".qwen/projects/*/chats/*.jsonl"

    def todo_tool_settings(self, scope: str, project: Path) -> tuple[ConfigSetting, ...]:
        """``tools.todoWrite.enabled = true`` in the scope's ``settings.json`` (Qwen
        0.24.4 offers ``todo_write`` only with it, hosts.md §0a)."""
        return (
            ConfigSetting(
                path=self.config_path(scope, project),
                keys=TODO_WRITE_KEYS,
                value=True,
                what="Todo tool todo_write",
            ),
        )


class QwenAdapter(FullHookAdapter):
    """The Qwen Code adapter (see the module docstring and :class:`HostAdapter`)."""

    name = "qwen"
    hooks: Mapping[str, str] = {"qwen": "stop"}
    installer: Installer | None = QwenInstaller()

    def parse(self, data: Mapping[str, Any]) -> HookInput:
        """The typed event (``Stop`` when ``hook_event_name`` is absent)."""
        event = text_field(data.get("hook_event_name")) or "Stop"
        kind = {"stop": "stop", "subagentstop": "subagent-stop"}.get(event.lower(), "other")
        return HookInput(host=self.name, event=event, kind=kind, **common_fields(data))

    def read_turn(self, hook: HookInput, index: SessionIndex, session: str) -> Turn:
        """The current turn of the session JSONL (module docstring).

        Raises:
            MaterialMissing: no transcript file.
            UsageError: the file cannot be read.
        """
        entry = index.get(session) or {}
        steers = [*(entry.get("steers") or ()), entry.get("last_steer")]
        turn = read_current_turn(transcript_file(hook), is_supplement=supplement_test(steers))
        return with_final_answer(turn, hook)

    def read_file(self, path: str) -> Turn:
        """The current turn of the transcript at ``path`` (``jev retry``)."""
        return read_current_turn(path)

    def render(self, answer: HookAnswer, hook: HookInput | None = None) -> tuple[str, str]:
        """The common stop contract (:func:`jev.hosts.adapter_kit.decision_answer`)."""
        return decision_answer(answer)


ADAPTER: HostAdapter = QwenAdapter()
