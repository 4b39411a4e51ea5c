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

__all__ = ["ADAPTER", "CopilotAdapter", "CopilotInstaller"]

_KINDS = {"agentstop": "stop", "stop": "stop", "subagentstop": "subagent-stop"}


class CopilotAdapter:
    """The Copilot CLI adapter (see the module docstring and :class:`HostAdapter`)."""

    name = "copilot"
    hooks: Mapping[str, str] = {"copilot": "stop"}
    remember_material = True

    @property
    def installer(self) -> Installer | None:
        """``.github/hooks/jev.json`` (:class:`CopilotInstaller`)."""
        return _INSTALLER

    def fast_kind(self, data: dict[str, Any]) -> str:
        """Always ``other``: every Copilot stop takes the full hook."""
        return "other"

    def quick_skip(self, data: dict[str, Any]) -> bool:
        """Never."""
        return False

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
        from jev.errors import MaterialMissing
        from jev.hosts.copilot_transcript import read_current_turn
        from jev.hosts.readkit import supplement_test

        path = hook.transcript_path
        if not path:
            raise MaterialMissing(
                "the copilot hook received no transcriptPath, so the turn's request and "
                "Todo list cannot be read"
            )
        if not Path(path).is_file():
            what = "is not a file" if Path(path).exists() else "does not exist (yet)"
            raise MaterialMissing(f"the transcript {path} {what}")
        entry = index.get(session) or {}
        steers = [*(entry.get("steers") or ()), entry.get("last_steer")]
        return read_current_turn(path, is_supplement=supplement_test(steers))

    def reread(self, entry: Mapping[str, Any]) -> Turn | None:
        """The current turn of the session's ``events.jsonl`` (``jev retry``)."""
        path = entry.get("transcript_path")
        if not path or not Path(str(path)).is_file():
            return None
        from jev.hosts.copilot_transcript import read_current_turn

        return read_current_turn(str(path))

    def render(self, answer: HookAnswer, hook: HookInput | None = None) -> tuple[str, str]:
        """``{"decision":"block","reason":…}`` to steer, "" otherwise; notices on stderr."""
        notice = cap(answer.notice.strip())
        err = notice + "\n" if notice else ""
        if answer.steer is None:
            return "", err
        return json_line({"decision": "block", "reason": answer.steer}), err

    def render_session_start(self, context: str | None) -> str:
        """Jev installs no Copilot session-start hook."""
        return ""


class CopilotInstaller:
    """Copilot CLI hook file (module docstring); flat layout, ``timeoutSec``."""

    scopes: tuple[str, ...] = ("project", "user")
    entries: tuple[tuple[str, str], ...] = (("agentStop", "copilot"),)
    timeout_unit: str = "s"
    layout: str = "flat"
    version: int | None = 1

    def config_path(self, scope: str, project: Path) -> Path:
        """``<project>/.github/hooks/jev.json`` or ``~/.copilot/hooks/jev.json``."""
        if scope == "user":
            return Path.home() / ".copilot" / "hooks" / "jev.json"
        return project / ".github" / "hooks" / "jev.json"

    def present(self) -> bool:
        """``~/.copilot`` exists, or ``copilot`` is on PATH."""
        import shutil

        return (Path.home() / ".copilot").is_dir() or shutil.which("copilot") is not None

    def handler(
        self, event: str, name: str, exe: Path, profile: str | None, timeout_s: int
    ) -> dict[str, Any]:
        """``{"type", "bash", "powershell", "timeoutSec"}``; PowerShell needs the call
        operator ``&`` in front of a quoted path."""
        from jev.hosts.hook_commands import hook_command

        command = hook_command(name, profile, exe)
        return {
            "type": "command",
            "bash": command,
            "powershell": f"& {command}",
            "timeoutSec": timeout_s,
        }

    def todo_tool_settings(self, scope: str, project: Path) -> tuple[ConfigSetting, ...]:
        """None: the ``todos`` table is pre-created in every session."""
        return ()

    def notes(self) -> tuple[str, ...]:
        """Where the file is loaded from."""
        return (
            "Copilot CLI loads .github/hooks/*.json from the folder it runs in; the cloud "
            "agent only from the default branch.",
        )


_INSTALLER = CopilotInstaller()
ADAPTER: HostAdapter = CopilotAdapter()
