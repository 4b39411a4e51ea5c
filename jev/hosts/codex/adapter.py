"""OpenAI Codex CLI: the ``Stop`` hook of the hooks framework (hosts.md (Codex CLI)).

* **stdin** (CODEX ``stop.command.input.schema.json``): ``session_id``, ``turn_id``,
  ``transcript_path`` (**string or null**), ``cwd``, ``hook_event_name``, ``model``,
  ``permission_mode``, ``stop_hook_active``, ``last_assistant_message`` (nullable).
* **answer** (``stop.command.output.schema.json``, ``additionalProperties: false``):
  ``decision: "block"`` + ``reason`` continues the **same turn** with the reason as a
  new user prompt; ``systemMessage`` is shown to the user. There is no host cap on
  blocks (openai/codex#37937): Jev's per-turn counter is the only bound.
* **turn**: the rollout JSONL named by ``transcript_path`` (:mod:`jev.hosts.codex.transcript`);
  the turn key is the host's ``turn_id``.
* **install**: ``~/.codex/hooks.json`` (user) or ``<project>/.codex/hooks.json``;
  ``timeout`` in seconds. Codex runs a new or changed hook only after the user
  trusts it (trust by hash): ``codex exec`` skips an untrusted hook silently
  (measured, 0.169.0). The TUI's "Hooks need review" screen stores the trust as
  ``[hooks.state."<hooks.json>:stop:<group>:<handler>"] trusted_hash`` in the user
  ``config.toml``; :func:`hook_trust_hash` computes that hash the way Codex does, so
  ``jev doctor`` can say whether Jev's hook is trusted (hosts.md (Codex CLI)).

Stdlib only at import time (the fast path imports this module for every stop).
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # no ``typing`` import on the fast path
if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path
    from typing import Any

    from jev.hosts.base import ConfigSetting, HookAnswer, HookInput, HostAdapter, Installer
    from jev.hosts.hook import SessionIndex
    from jev.hosts.transcript import Turn

__all__ = ["ADAPTER", "CodexAdapter"]


class CodexAdapter:
    """The Codex adapter (see the module docstring and :class:`HostAdapter`)."""

    name = "codex"
    hooks: Mapping[str, str] = {"codex": "stop"}
    remember_material = False

    @property
    def installer(self) -> Installer | None:
        """``hooks.json`` files and handler shape (:class:`CodexInstaller`)."""
        return _INSTALLER

    def fast_kind(self, data: dict[str, Any]) -> str:
        """``stop``, ``subagent-stop`` or ``other`` from the raw stdin object."""
        event = data.get("hook_event_name")
        if not isinstance(event, str):
            return "other"
        agent_id = data.get("agent_id")
        if event.lower() == "subagentstop" or (isinstance(agent_id, str) and agent_id):
            return "subagent-stop"
        return "stop" if event.lower() == "stop" else "other"

    def quick_skip(self, data: dict[str, Any]) -> bool:
        """Never: the rollout is not scanned on the fast path."""
        return False

    def parse(self, data: Mapping[str, Any]) -> HookInput:
        """The typed event (see :class:`jev.hosts.base.HookInput`).

        Raises:
            HookInputError: no ``hook_event_name``.
        """
        # lazy: the fast path imports this module at every stop (stdlib only at import)
        from jev.hosts.base import HookInput, HookInputError, common_fields

        event = data.get("hook_event_name")
        if not isinstance(event, str) or not event:
            raise HookInputError(f"the {self.name} hook stdin has no hook_event_name")
        kind = {"stop": "stop", "subagentstop": "subagent-stop", "sessionstart": "session-start"}
        return HookInput(
            host=self.name,
            event=event,
            kind=kind.get(event.lower(), "other"),
            **common_fields(data),
        )

    def gate(self, hook: HookInput) -> str:
        """No Codex-only gate."""
        return ""

    def read_turn(self, hook: HookInput, index: SessionIndex, session: str) -> Turn:
        """The current turn from the rollout (see the module docstring).

        ``transcript_path: null`` (a turn without a readable rollout) is a silent skip:
        Todo use cannot be known. Without ``last_assistant_message``, a rollout whose
        current turn ends in a tool call is not audited as if the turn were over.

        Raises:
            MaterialMissing: ``transcript_path`` names no file.
            UsageError: the rollout cannot be read.
        """
        # lazy: the fast path imports this module at every stop (stdlib only at import)
        from dataclasses import replace
        from pathlib import Path

        from jev.base.errors import MaterialMissing
        from jev.hosts.transcript import Turn, read_current_turn

        path = hook.transcript_path
        if not path:
            reason = "no readable transcript (transcript_path is null): Todo use unknown"
            return Turn(
                0, hook.turn_id or "unknown", None, False, "skipped", reason, False, "missing"
            )
        if not Path(path).is_file():
            what = "is not a file" if Path(path).exists() else "does not exist (yet)"
            raise MaterialMissing(f"the transcript {path} {what}")
        turn = read_current_turn(path, "codex", last_assistant_message=hook.last_assistant_message)
        if hook.last_assistant_message is None and _ends_in_tool(path):
            reason = "the transcript does not show the end of this turn (it ends in a tool call)"
            status = "missing" if turn.todo_used else "skipped"
            return replace(turn, material=None, status=status, reason=reason)
        return turn

    def reread(self, entry: Mapping[str, Any]) -> Turn | None:
        """The current turn of the session's rollout (``jev retry``)."""
        # lazy: the fast path imports this module at every stop (stdlib only at import)
        from jev.hosts.transcript import read_current_turn

        path = entry.get("transcript_path")
        return read_current_turn(str(path), "codex") if path else None

    def render(self, answer: HookAnswer, hook: HookInput | None = None) -> tuple[str, str]:
        """``{"decision":"block","reason":…}`` to steer, ``systemMessage`` for a notice,
        ``{"continue": true}`` for nothing."""
        # lazy: the fast path imports this module at every stop (stdlib only at import)
        from jev.hosts.base import cap, json_line

        out: dict[str, Any] = {}
        if answer.steer is not None:
            out["decision"] = "block"
            out["reason"] = answer.steer
        notice = cap(answer.notice.strip())
        if notice:
            out["systemMessage"] = notice
        # On allow, {"continue": true}: empty stdout was rejected as invalid Stop output
        # by some versions (warpdotdev/claude-code-warp#84, oraios/serena#1533) and {}
        # by others (zilliztech/memsearch#592); {"continue": true} passed (hosts.md (Codex CLI)).
        return json_line(out or {"continue": True}), ""

    def render_session_start(self, context: str | None) -> str:
        """Jev installs no Codex SessionStart hook."""
        return ""


class CodexInstaller:
    """Codex ``hooks.json`` files (hosts.md (Codex CLI)); ``timeout`` in seconds
    (``codex-rs/config/src/hook_config.rs``, openai/codex#35382)."""

    scopes: tuple[str, ...] = ("user", "project")
    entries: tuple[tuple[str, str], ...] = (("Stop", "codex"),)
    timeout_unit: str = "s"

    def config_path(self, scope: str, project: Path) -> Path:
        """``$CODEX_HOME/hooks.json`` or ``~/.codex/hooks.json`` (user),
        ``<project>/.codex/hooks.json`` (project)."""
        # lazy: the fast path imports this module at every stop (stdlib only at import)
        from pathlib import Path

        if scope == "user":
            root = os.environ.get("CODEX_HOME")
            base = Path(root).expanduser() if root else Path.home() / ".codex"
            return base / "hooks.json"
        return project / ".codex" / "hooks.json"

    def present(self) -> bool:
        """``$CODEX_HOME`` or ``~/.codex`` exists, or ``codex`` is on PATH."""
        # lazy: the fast path imports this module at every stop (stdlib only at import)
        import shutil
        from pathlib import Path

        root = os.environ.get("CODEX_HOME")
        folder = Path(root).expanduser() if root else Path.home() / ".codex"
        return folder.is_dir() or shutil.which("codex") is not None

    def handler(
        self, event: str, name: str, exe: Path, profile: str | None, timeout_s: int
    ) -> dict[str, Any]:
        """A ``command`` handler running ``jev hook <name>``."""
        # lazy: the fast path imports this module at every stop (stdlib only at import)
        from jev.hosts.hook_commands import hook_command

        return {
            "type": "command",
            "command": hook_command(name, profile, exe),
            "timeout": timeout_s,
        }

    def todo_tool_settings(self, scope: str, project: Path) -> tuple[ConfigSetting, ...]:
        """``[tools.update_plan] enabled = true`` in the scope's ``config.toml``.

        ``update_plan`` is registered only with it since 0.152.0 (openai/codex#41744;
        hosts.md (Codex CLI)); config layers sit next to ``hooks.json`` (§3.3)."""
        # lazy: the fast path imports this module at every stop (stdlib only at import)
        from jev.hosts.base import ConfigSetting

        folder = self.config_path(scope, project).parent
        return (
            ConfigSetting(
                path=folder / "config.toml",
                keys=("tools", "update_plan", "enabled"),
                value=True,
                what="plan tool update_plan",
            ),
        )

    #: ``jev doctor``'s word for this host's session file.
    session_noun = "rollout"

    def notes(self) -> tuple[str, ...]:
        """How to trust the hook: Codex skips an untrusted hook silently (hosts.md
        (Codex CLI), measured 0.169.0)."""
        return (
            "note: Codex runs a new or changed hook only after you trust it, and `codex exec` "
            "skips an untrusted hook without a word: start `codex` once and choose "
            '"Trust all and continue" on its "Hooks need review" screen (or review it in '
            "/hooks); for an automated run that already vets its hooks, `codex exec "
            "--dangerously-bypass-hook-trust` runs it untrusted. `jev doctor --host codex` "
            "says whether the hook is trusted.",
        )

    def scope_notes(self, scope: str) -> tuple[str, ...]:
        """The project-scope condition: Codex loads ``<project>/.codex`` only in a
        trusted project (hosts.md §0a)."""
        if scope != "project":
            return ()
        return (
            "note: Codex reads <project>/.codex/hooks.json only in a trusted project: trust "
            "the folder when `codex` asks, or run `codex exec --trust …` once in it.",
        )

    @property
    def block_cap(self) -> int | None:
        """No host cap (hosts.md §0a): only ``max_supplements`` bounds the blocks."""
        return None

    @property
    def notice_channel(self) -> bool:
        """The TUI shows ``systemMessage``; ``codex exec`` does not (hosts.md §0a)."""
        return True

    def checks(self, scope: str, path: Path) -> tuple[str, ...]:
        """Whether Codex will run Jev's hook in ``path``: its trust entry in the user
        ``config.toml`` matches the hook's current hash (:func:`hook_trust_hash`), the
        hook is not disabled there, and for ``scope`` ``project`` the project is trusted.

        Returns:
            One line per problem, naming the fix (``()`` when Codex runs the hook), and
            a ``warning:`` line: ``codex exec`` shows no ``systemMessage`` (measured,
            0.169.0), so Jev's notices reach only TUI users.
        """
        # lazy: the fast path imports this module at every stop (stdlib only at import)
        from jev.hosts.codex.trust import trust_problems

        return (
            *trust_problems(scope, path, self.config_path("user", path.parent)),
            "warning: codex: `codex exec` shows none of Jev's notices (needs-user, budget "
            "used up), only the TUI does; read them with `jev report` or `jev records list`",
        )

    def newest_session(self) -> Path | None:
        """The newest ``rollout-*.jsonl`` under ``$CODEX_HOME/sessions`` (default
        ``~/.codex/sessions``, laid out ``YYYY/MM/DD``), by modification time; ``None``
        when there is none."""
        # lazy: the fast path imports this module at every stop (stdlib only at import)
        from pathlib import Path

        from jev.hosts.codex.trust import newest_rollout

        return newest_rollout(self.config_path("user", Path.home()).parent / "sessions")


_INSTALLER = CodexInstaller()

#: Rollout ``response_item`` payload types of a tool call or its output.
_TOOL_ITEMS = frozenset(
    {
        "function_call",
        "function_call_output",
        "custom_tool_call",
        "custom_tool_call_output",
        "local_shell_call",
        "local_shell_call_output",
        "web_search_call",
    }
)
#: ``event_msg`` payload types that end a turn.
_END_EVENTS = frozenset({"task_complete", "turn_complete", "turn_aborted"})


def _ends_in_tool(path: str) -> bool:
    """True when the rollout's newest turn item is a tool call or output (the last
    64 KiB read; a final agent message or a turn-end event says False)."""
    # lazy: the fast path imports this module at every stop (stdlib only at import)
    import json

    try:
        with open(path, "rb") as handle:
            size = handle.seek(0, 2)
            handle.seek(max(0, size - (1 << 16)))
            lines = handle.read().split(b"\n")
    except OSError:
        return False
    for raw in reversed(lines):
        try:
            rec = json.loads(raw)
        except ValueError:
            continue
        payload = rec.get("payload") if isinstance(rec, dict) else None
        if not isinstance(payload, dict):
            continue
        kind = payload.get("type")
        if rec.get("type") == "event_msg" and kind in _END_EVENTS:
            return False
        if rec.get("type") == "response_item":
            if kind in _TOOL_ITEMS:
                return True
            if kind == "message" and payload.get("role") == "assistant":
                return False
    return False


ADAPTER: HostAdapter = CodexAdapter()
