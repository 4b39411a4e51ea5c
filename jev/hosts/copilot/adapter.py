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
  as the **next prompt**, a new ``user.message`` (``delivery: "queued"``) with a new
  ``interactionId`` each round [M 1.0.102] (exit 2 only logs a warning). **No notice
  channel** [M 1.0.102]: Copilot drops ``systemMessage`` and hides the hook's stderr,
  in ``-p`` and in the TUI, so Jev's notices (needs-user, budget used up) reach the
  user only through ``jev report`` / ``jev records list``; doctor and the install
  output say so. The notice still goes to stderr (a later version may show it).
* **turn**: ``events.jsonl`` (:mod:`jev.hosts.copilot.transcript`): the turn is the
  typed prompt's ``interactionId``; Jev's own block reason coming back as a prompt
  continues it (same key, request and budget). The Todo list is the session's SQL
  ``todos`` table, read from ``session.db`` beside ``events.jsonl`` [M 1.0.102], else
  rebuilt from the ``sql`` tool calls. The hook often runs before Copilot has written
  the newest events, so :meth:`CopilotAdapter.read_turn` polls (every
  :data:`POLL_S`, at most :data:`CATCH_UP_S`) until the file logs this stop, and never
  judges the previous round's answer.
* **install**: ``{"version": 1, "hooks": {"agentStop": [{"type": "command", "bash",
  "powershell", "timeoutSec"}]}}`` in ``~/.copilot/hooks/jev.json`` (user, the
  default: always loaded [M 1.0.102]; ``$COPILOT_HOME/hooks`` when that is set) or
  ``<project>/.github/hooks/jev.json`` (project: loaded only when the folder is
  trusted — the trust prompt, ``--trust-folder`` or ``COPILOT_ALLOW_ALL=true`` —
  and silently skipped otherwise [M 1.0.102]; the cloud agent reads it from the
  default branch).
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jev.base.errors import MaterialMissing
from jev.hosts.adapter_kit import (
    FullHookAdapter,
    HookFileInstaller,
    decision_answer,
    newest_file,
    transcript_file,
)
from jev.hosts.base import HookAnswer, HookInput, HostAdapter, Installer, common_fields, text_field
from jev.hosts.copilot.transcript import read_current_turn
from jev.hosts.hook_commands import hook_command
from jev.hosts.readkit import supplement_test

if TYPE_CHECKING:
    from jev.hosts.hook import SessionIndex
    from jev.hosts.turns import Turn

__all__ = ["ADAPTER", "CATCH_UP_S", "POLL_S", "CopilotAdapter", "CopilotInstaller"]

#: Longest wait for ``events.jsonl`` to log the stop being audited (seconds); far
#: inside the hook's ``timeoutSec`` (the judge budget plus a margin).
CATCH_UP_S = 5.0
#: Seconds between two reads while waiting.
POLL_S = 0.05

_KINDS = {"agentstop": "stop", "stop": "stop", "subagentstop": "subagent-stop"}


class CopilotInstaller(HookFileInstaller):
    """Copilot CLI hook file (module docstring); flat layout, ``timeoutSec``. No Todo
    setting: the ``todos`` table is pre-created in every session. No notice channel."""

    scopes: tuple[str, ...] = ("user", "project")
    entries: tuple[tuple[str, str], ...] = (("agentStop", "copilot"),)
    user_folder: tuple[str, ...] = (".copilot", "hooks")
    project_folder: tuple[str, ...] = (".github", "hooks")
    file_name: str = "jev.json"
    program: str = "copilot"
    note_lines: tuple[str, ...] = (
        "Copilot CLI always loads ~/.copilot/hooks/*.json; a project's "
        ".github/hooks/*.json only when the folder is trusted (answer Copilot's trust "
        "prompt, or pass --trust-folder), else it skips it silently; the cloud agent "
        "reads it from the default branch.",
        "Copilot shows none of Jev's notices (needs-user, budget used up): read them "
        "with `jev report` or `jev records list`.",
    )
    layout: str = "flat"
    version: int | None = 1
    shows_notices: bool = False
    session_glob: str = ".copilot/session-state/*/events.jsonl"

    def config_path(self, scope: str, project: Path) -> Path:
        """The user file under ``$COPILOT_HOME/hooks`` when ``COPILOT_HOME`` is set
        (Copilot's configuration folder), else as :class:`HookFileInstaller`."""
        home = os.environ.get("COPILOT_HOME")
        if scope == "user" and home:
            return Path(home) / "hooks" / self.file_name
        return super().config_path(scope, project)

    def checks(self, scope: str, path: Path) -> tuple[str, ...]:
        """A project file loads only in a trusted folder (a warning: Jev cannot read
        Copilot's trust list)."""
        if scope != "project":
            return ()
        return (
            f"warning: copilot: {path} is loaded only when Copilot trusts "
            f"{path.parent.parent.parent} (its trust prompt, or --trust-folder); "
            "`jev install copilot` (user scope) works in every folder",
        )

    def newest_session(self) -> Path | None:
        """The newest ``session-state/*/events.jsonl`` under ``$COPILOT_HOME`` or
        ``~/.copilot``."""
        home = os.environ.get("COPILOT_HOME")
        if home:
            return newest_file(Path(home), "session-state/*/events.jsonl")
        return super().newest_session()

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
        """The current turn of ``events.jsonl`` once the file has caught up with this
        stop (module docstring): polled every :data:`POLL_S` for at most
        :data:`CATCH_UP_S` seconds.

        Raises:
            MaterialMissing: no transcript path; or the file is still missing, holds
                no turn, or has not logged this stop when the wait ends (the previous
                answer is never judged).
            UsageError: the file cannot be read.
        """
        entry = index.get(session) or {}
        steers = [*(entry.get("steers") or ()), entry.get("last_steer")]
        mark = hook.raw.get("timestamp")
        stamp = mark if isinstance(mark, int) and not isinstance(mark, bool) else None
        if not hook.transcript_path:
            transcript_file(hook, "transcriptPath")  # raises: no path
        end = time.monotonic() + CATCH_UP_S
        while True:
            try:
                path = transcript_file(hook, "transcriptPath")
                return read_current_turn(
                    path,
                    is_supplement=supplement_test(steers),
                    stop_timestamp=stamp,
                    wait_for_answer=True,
                )
            except MaterialMissing as exc:
                if time.monotonic() >= end:
                    raise MaterialMissing(
                        f"{exc} after {CATCH_UP_S:g} s of waiting, so this stop's answer "
                        "cannot be read and an older one is not judged"
                    ) from exc
            time.sleep(POLL_S)

    def read_file(self, path: str) -> Turn:
        """The current turn of the ``events.jsonl`` at ``path`` (``jev retry``)."""
        return read_current_turn(path)

    def render(self, answer: HookAnswer, hook: HookInput | None = None) -> tuple[str, str]:
        """``{"decision":"block","reason":…}`` to steer, "" otherwise; notices on stderr
        (which Copilot 1.0.102 does not show, module docstring)."""
        return decision_answer(answer, notice_on_stderr=True)


ADAPTER: HostAdapter = CopilotAdapter()
