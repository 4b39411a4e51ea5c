"""Cursor: the ``stop`` hook (HOSTS.md §4.2; third-party references [S]).

Moved unchanged from the generic runner (issue 8 item 1); the Cursor engineer's
adapter replaces it.

* **stdin**: ``conversation_id``/``generation_id`` stand for session and turn;
  ``status`` is ``completed|aborted|error``; ``loop_count`` counts earlier follow-ups.
* **answer**: ``followup_message`` is submitted as the next user message; there is no
  documented user-notice field, so notices go to stderr; ``{}`` for nothing.
* **turn**: Cursor's transcript format is not documented (HOSTS.md §4 [U]): only a
  file Jev recognises (a Claude-Code-style JSONL or a Jev turn file) is read.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jev.errors import MaterialMissing, UsageError
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

if TYPE_CHECKING:
    from jev.hosts.hook import SessionIndex
    from jev.hosts.transcript import Turn

__all__ = ["ADAPTER", "CursorAdapter"]


class CursorAdapter:
    """The Cursor adapter (see the module docstring and :class:`HostAdapter`)."""

    name = "cursor"
    hooks: Mapping[str, str] = {"cursor": "stop"}
    remember_material = True

    @property
    def installer(self) -> Installer | None:
        """None: Cursor hooks are configured by hand (README)."""
        return None

    def fast_kind(self, data: dict[str, Any]) -> str:
        """Always ``other``: every Cursor stop takes the full hook."""
        return "other"

    def quick_skip(self, data: dict[str, Any]) -> bool:
        """Never."""
        return False

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
        lowered = event.lower()
        kind = (
            "stop"
            if lowered == "stop"
            else ("subagent-stop" if lowered == "subagentstop" else "other")
        )
        return HookInput(
            host=self.name,
            event=event,
            kind=kind,
            status=text_field(data.get("status")),
            loop_count=count,
            **fields,
        )

    def gate(self, hook: HookInput) -> str:
        """A stop whose ``status`` is not ``completed`` (the user aborted it, or it
        failed) is not audited."""
        if (hook.status or "completed") != "completed":
            return f"cursor stop status {hook.status}"
        if hook.loop_count is not None:
            # Cursor counts its own follow-ups; Jev's counter stays the guard (HOSTS.md §4).
            print(f"jev: cursor loop_count={hook.loop_count}", file=sys.stderr)
        return ""

    def read_turn(self, hook: HookInput, index: SessionIndex, session: str) -> Turn:
        """The current turn from a transcript Jev recognises.

        Raises:
            MaterialMissing: no transcript, or one in a format Jev cannot read.
        """
        from jev.hosts.transcript import detect_format, read_current_turn

        path = hook.transcript_path
        if not path:
            raise MaterialMissing(
                f"the {self.name} hook received no transcript_path, so the turn's request "
                "and Todo list cannot be read"
            )
        if not Path(path).is_file():
            what = "is not a file" if Path(path).exists() else "does not exist (yet)"
            raise MaterialMissing(f"the transcript {path} {what}")
        try:
            fmt: str = detect_format(path)
        except UsageError:
            raise MaterialMissing(
                f"the Cursor transcript {path} is in a format Jev cannot read"
            ) from None
        return read_current_turn(path, fmt, last_assistant_message=hook.last_assistant_message)

    def reread(self, entry: Mapping[str, Any]) -> Turn | None:
        """None: the material remembered in the session index is used."""
        return None

    def render(self, answer: HookAnswer, hook: HookInput | None = None) -> tuple[str, str]:
        """``{"followup_message":…}`` or ``{}``; the notice goes to stderr."""
        out: dict[str, Any] = {}
        if answer.steer is not None:
            out["followup_message"] = answer.steer
        notice = cap(answer.notice.strip())
        return json_line(out), (notice + "\n" if notice else "")

    def render_session_start(self, context: str | None) -> str:
        """Jev installs no Cursor session-start hook."""
        return ""


ADAPTER: HostAdapter = CursorAdapter()
