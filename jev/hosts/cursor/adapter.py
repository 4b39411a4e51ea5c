"""Cursor: the ``stop`` hook (hosts.md (Cursor); cursor.com/docs/agent/hooks as quoted by
third-party references [S]).

* **stdin**: ``conversation_id`` (session), ``generation_id`` (turn), ``status``
  (``completed|aborted|error``), ``loop_count`` (follow-ups Cursor already submitted),
  ``transcript_path``, ``cursor_version``, ``workspace_roots``. Some Windows builds
  prefix stdin with a UTF-8 BOM (tolerated by :func:`jev.hosts.base.load_object`).
* **answer**: ``{"followup_message": …}``, which Cursor submits as the **next user
  message**; there is no documented user-notice field, so notices go to stderr; ``{}``
  for nothing.
* **turn**: the agent-transcript JSONL (:mod:`jev.hosts.cursor.transcript`). A user
  message that is Jev's own follow-up continues the audited turn (same key, request and
  budget). ``loop_count`` is cross-checked: when Cursor says follow-ups were submitted
  but the transcript's current turn shows none Jev recognises (a changed template, a
  transcript that lags), the turn Jev last steered in this conversation is kept.
  The older ``.txt`` transcript is named in the notice. A turn without Todo use is a
  silent skip. A stop whose ``status`` is not ``completed`` is not audited.
* **Claude Code hooks run by Cursor** (third-party hooks, hosts.md (Cursor)): a Cursor
  payload reaching ``jev hook claude-code`` is recognised there
  (:func:`jev.hosts.claude_code.adapter.from_cursor`) and skipped silently; the native
  Cursor hook audits the turn.
* **install**: ``~/.cursor/hooks.json`` (user) or ``<project>/.cursor/hooks.json``
  (project; trusted workspaces only): ``{"version": 1, "hooks": {"stop": [{"command",
  "type": "command", "timeout" (s), "loop_limit"}]}}`` with ``loop_limit`` no lower than
  the profile's ``max_supplements``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jev.hosts.adapter_kit import FullHookAdapter, HookFileInstaller, transcript_file
from jev.hosts.base import (
    HookAnswer,
    HookInput,
    HostAdapter,
    Installer,
    cap,
    common_fields,
    json_line,
    text_field,
)
from jev.hosts.cursor.transcript import current_turn_and_followups, read_current_turn
from jev.hosts.hook_commands import hook_command
from jev.hosts.readkit import supplement_test
from jev.settings.profiles import load_settings

if TYPE_CHECKING:
    from jev.hosts.hook import SessionIndex
    from jev.hosts.turns import Turn

__all__ = ["ADAPTER", "CursorAdapter", "CursorInstaller"]


class CursorInstaller(HookFileInstaller):
    """Cursor ``hooks.json`` (module docstring); flat layout, ``timeout`` in seconds.
    Cursor's Todo tool is on by default."""

    entries: tuple[tuple[str, str], ...] = (("stop", "cursor"),)
    user_folder: tuple[str, ...] = (".cursor",)
    project_folder: tuple[str, ...] = (".cursor",)
    file_name: str = "hooks.json"
    program: str = "cursor"
    note_lines: tuple[str, ...] = (
        "Cursor runs project hooks (.cursor/hooks.json) only in a trusted workspace.",
    )
    layout: str = "flat"
    version: int | None = 1

    def handler(
        self, event: str, name: str, exe: Path, profile: str | None, timeout_s: int
    ) -> dict[str, Any]:
        """``{"command", "type", "timeout", "loop_limit"}``; ``loop_limit`` is the
        profile's ``max_supplements`` (at least 1): Cursor's own cap never cuts Jev's
        budget short, and Jev's bound holds below it."""
        budget = load_settings(profile).max_supplements
        return {
            "command": hook_command(name, profile, exe),
            "type": "command",
            "timeout": self.timeout(name, timeout_s),
            "loop_limit": max(1, budget),
        }


class CursorAdapter(FullHookAdapter):
    """The Cursor adapter (see the module docstring and :class:`HostAdapter`)."""

    name = "cursor"
    hooks: Mapping[str, str] = {"cursor": "stop"}
    installer: Installer | None = CursorInstaller()

    def parse(self, data: Mapping[str, Any]) -> HookInput:
        """The typed event; ``stop`` when ``hook_event_name`` is absent."""
        fields = common_fields(data)
        fields["session_id"] = fields["session_id"] or text_field(data.get("conversation_id")) or ""
        fields["turn_id"] = fields["turn_id"] or text_field(data.get("generation_id")) or ""
        event = text_field(data.get("hook_event_name")) or "stop"
        raw_count = data.get("loop_count")
        count = (
            raw_count if isinstance(raw_count, int) and not isinstance(raw_count, bool) else None
        )
        kind = {"stop": "stop", "subagentstop": "subagent-stop"}.get(event.lower(), "other")
        return HookInput(
            host=self.name,
            event=event,
            kind=kind,
            status=text_field(data.get("status")),
            loop_count=count,
            **fields,
        )

    def gate(self, hook: HookInput) -> str:
        """A stop whose ``status`` is not ``completed`` (aborted by the user, or failed)
        is not audited."""
        if (hook.status or "completed") != "completed":
            return f"cursor stop status {hook.status}"
        return ""

    def read_turn(self, hook: HookInput, index: SessionIndex, session: str) -> Turn:
        """The current turn from the agent transcript (module docstring).

        Raises:
            MaterialMissing: no transcript, or the older ``.txt`` form.
            UsageError: the transcript cannot be read.
        """
        path = transcript_file(hook)
        entry = index.get(session) or {}
        steers = [*list(entry.get("steers") or ()), entry.get("last_steer")]
        turn, followups = current_turn_and_followups(path, is_supplement=supplement_test(steers))
        if (
            hook.loop_count
            and followups == 0
            and entry.get("turn")
            and entry.get("request")
            and turn.material is not None
        ):
            # Cursor submitted follow-ups but the transcript shows none Jev recognises:
            # the turn Jev last steered goes on (same key, request and budget).
            request = tuple(str(r) for r in entry["request"])
            turn = replace(
                turn, key=str(entry["turn"]), material=replace(turn.material, request=request)
            )
        return turn

    def read_file(self, path: str) -> Turn:
        """The current turn of the agent transcript at ``path`` (``jev retry``)."""
        return read_current_turn(path)

    def render(self, answer: HookAnswer, hook: HookInput | None = None) -> tuple[str, str]:
        """``{"followup_message":…}`` or ``{}``; the notice goes to stderr."""
        out: dict[str, Any] = {}
        if answer.steer is not None:
            out["followup_message"] = answer.steer
        notice = cap(answer.notice.strip())
        return json_line(out), (notice + "\n" if notice else "")


ADAPTER: HostAdapter = CursorAdapter()
