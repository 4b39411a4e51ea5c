"""GitHub Copilot CLI: the ``agentStop`` hook (hosts.md (other hosts)).

Sources: docs.github.com ``copilot-cli-reference/cli-hooks-reference`` and
``customize-copilot/use-hooks`` [V]; github/docs#43876 (payload) [S]; the two real
Copilot CLI 1.0.74 sessions in ``tests/fixtures/real/`` (their ``hook.start`` events
log eight real ``agentStop`` inputs).

* **stdin**: camelCase ``{timestamp (ms), cwd, sessionId, transcriptPath, stopReason:
  "end_turn", stop_hook_active}`` (the real files); a Claude-style variant with
  ``hook_event_name: "Stop"`` and snake_case fields is also reported [U] and read the
  same way. A subagent's stop arrives as ``agentStop`` too, with the tool call id as
  ``sessionId`` and an empty ``transcriptPath`` (real file): never audited.
* **answer**: exit 0 + ``{"decision": "block", "reason": …}``; the reason is enqueued
  as the **next prompt** (exit 2 only logs a warning). Copilot shows no hook
  notice field, so notices go to stderr.
* **turn**: ``events.jsonl`` (:mod:`jev.hosts.copilot_transcript`): the turn is the
  typed prompt's ``interactionId``; Jev's own block reason coming back as a prompt
  continues it (same key, request and budget). The Todo list is the session's SQL
  ``todos`` table, read from the host's session database when one sits next to
  ``events.jsonl``, else rebuilt from the ``sql`` tool calls.
* **install**: ``{"version": 1, "hooks": {"agentStop": [{"type": "command", "bash",
  "powershell", "timeoutSec"}]}}`` in ``<project>/.github/hooks/jev.json`` (the CLI
  loads ``.github/hooks/*.json`` from the working folder; the cloud agent from the
  default branch) or ``~/.copilot/hooks/jev.json`` (user; whether the CLI loads it is
  not verified, hosts.md).
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
)
from jev.hosts.base import HookAnswer, HookInput, HostAdapter, Installer, common_fields, text_field
from jev.hosts.copilot_transcript import read_current_turn
from jev.hosts.hook_commands import hook_command
from jev.hosts.readkit import supplement_test

if TYPE_CHECKING:
    from jev.hosts.hook import SessionIndex
    from jev.hosts.turns import Turn

__all__ = ["ADAPTER", "CopilotAdapter", "CopilotInstaller"]

_KINDS = {"agentstop": "stop", "stop": "stop", "subagentstop": "subagent-stop"}


class CopilotInstaller(HookFileInstaller):
    """Copilot CLI hook file (module docstring); flat layout, ``timeoutSec``. No Todo
    setting: the ``todos`` table is pre-created in every session."""

    scopes: tuple[str, ...] = ("project", "user")
    entries: tuple[tuple[str, str], ...] = (("agentStop", "copilot"),)
    user_folder: tuple[str, ...] = (".copilot", "hooks")
    project_folder: tuple[str, ...] = (".github", "hooks")
    file_name: str = "jev.json"
    program: str = "copilot"
    note_lines: tuple[str, ...] = (
        "Copilot CLI loads .github/hooks/*.json from the folder it runs in; the cloud "
        "agent only from the default branch.",
    )
    layout: str = "flat"
    version: int | None = 1

    def handler(
        self, event: str, name: str, exe: Path, profile: str | None, timeout_s: int
    ) -> dict[str, Any]:
        """``{"type", "bash", "powershell", "timeoutSec"}``; PowerShell needs the call
        operator ``&`` in front of a quoted path."""
        command = hook_command(name, profile, exe)
        return {
            "type": "command",
            "bash": command,
            "powershell": f"& {command}",
            "timeoutSec": self.timeout(name, timeout_s),
        }


class CopilotAdapter(FullHookAdapter):
    """The Copilot CLI adapter (see the module docstring and :class:`HostAdapter`)."""

    name = "copilot"
    hooks: Mapping[str, str] = {"copilot": "stop"}
    installer: Installer | None = CopilotInstaller()

    def parse(self, data: Mapping[str, Any]) -> HookInput:
        """The typed event from the camelCase or the Claude-style payload."""
        fields = common_fields(data)
        fields["session_id"] = fields["session_id"] or text_field(data.get("sessionId")) or ""
        fields["transcript_path"] = (
            fields["transcript_path"] or text_field(data.get("transcriptPath")) or None
        )
        if fields["stop_hook_active"] is None:
            active = data.get("stopHookActive")
            fields["stop_hook_active"] = active if isinstance(active, bool) else None
        event = (
            text_field(data.get("hook_event_name"))
            or text_field(data.get("hookEventName"))
            or "agentStop"
        )
        kind = _KINDS.get(event.lower(), "other")
        if (
            kind == "stop"
            and not fields["transcript_path"]
            and fields["session_id"].startswith("toolu_")
        ):
            kind = "subagent-stop"  # a subagent's stop (real 1.0.74 file)
        return HookInput(host=self.name, event=event, kind=kind, **fields)

    def gate(self, hook: HookInput) -> str:
        """A stop for another reason than the end of the agent's turn is not audited."""
        reason = text_field(hook.raw.get("stopReason"))
        if reason and reason != "end_turn":
            return f"copilot stop reason {reason}"
        return ""

    def read_turn(self, hook: HookInput, index: SessionIndex, session: str) -> Turn:
        """The current turn of ``events.jsonl`` (module docstring).

        Raises:
            MaterialMissing: no transcript path, or not a file.
            UsageError: the file cannot be read.
        """
        path = transcript_file(hook, "transcriptPath")
        entry = index.get(session) or {}
        steers = [*(entry.get("steers") or ()), entry.get("last_steer")]
        return read_current_turn(path, is_supplement=supplement_test(steers))

    def read_file(self, path: str) -> Turn:
        """The current turn of the ``events.jsonl`` at ``path`` (``jev retry``)."""
        return read_current_turn(path)

    def render(self, answer: HookAnswer, hook: HookInput | None = None) -> tuple[str, str]:
        """``{"decision":"block","reason":…}`` to steer, "" otherwise; notices on stderr."""
        return decision_answer(answer, notice_on_stderr=True)


ADAPTER: HostAdapter = CopilotAdapter()
