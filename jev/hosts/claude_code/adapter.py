"""Claude Code: ``Stop``/``SubagentStop``/``SessionStart`` hooks (hosts.md (Claude Code), §2).

* **stdin** (CCDOCS hooks.md "Common input fields", "Stop input"): every field except
  ``hook_event_name`` is optional across versions. ``prompt_id`` (≥ 2.1.196) names the
  user prompt being processed; ``background_tasks``/``session_crons`` (≥ 2.1.145) say
  the session is paused waiting for background work, not done.
* **answer** (CCDOCS hooks.md "JSON output", "Stop decision control"): exit 0 +
  ``{"decision":"block","reason":…}`` behaves the same under the 2025-12 and current
  contracts, so Jev never exits 2; ``systemMessage`` is shown to the user only.
* **turn**: the transcript JSONL read backwards to the last typed prompt
  (:mod:`jev.hosts.claude_code.transcript`); ``last_assistant_message`` wins over the transcript,
  which "may lag" (hosts.md (Claude Code)).
* **install**: ``~/.claude/settings.json`` (user), ``.claude/settings.json`` (project),
  ``.claude/settings.local.json`` (local); ``timeout`` in seconds (hosts.md (Claude Code)).

Stdlib only at import time (the fast path imports this module for every stop).
"""

from __future__ import annotations

import json
import os

from jev.hosts.backread import LineTooLong, lines_backward
from jev.hosts.ccformat.records import TODO_TOOLS, classify_user

TYPE_CHECKING = False  # no ``typing`` import on the fast path
if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path
    from typing import Any

    from jev.hosts.base import ConfigSetting, HookAnswer, HookInput, HostAdapter, Installer
    from jev.hosts.hook import SessionIndex
    from jev.hosts.transcript import Turn

__all__ = [
    "ADAPTER",
    "TODO_TOOLS_ENV",
    "ClaudeCodeAdapter",
    "ClaudeCodeInstaller",
]

#: The variable that makes the Todo/Task tools available on every model (≥ 2.1.233).
TODO_TOOLS_ENV = "CLAUDE_CODE_ENABLE_TODO_TOOLS"
_MARKERS = tuple(f'"{name}"'.encode() for name in sorted(TODO_TOOLS))
#: A line longer than this (bytes) is left to the full reader.
_MAX_LINE = 4 << 20


class ClaudeCodeAdapter:
    """The Claude Code adapter (see the module docstring and :class:`HostAdapter`)."""

    name = "claude-code"
    hooks: Mapping[str, str] = {"claude-code": "stop", "claude-code-session-start": "session-start"}
    remember_material = False
    #: Claude Code version of the transcript read last ("" unknown); picks the answer form.
    version = ""

    @property
    def installer(self) -> Installer | None:
        """Settings files and handler shape (:class:`ClaudeCodeInstaller`)."""
        return _INSTALLER

    # -- fast path (stdlib only) ---------------------------------------------------

    def fast_kind(self, data: dict[str, Any]) -> str:
        """``stop``, ``subagent-stop`` or ``other`` from the raw stdin object; ``other``
        for a Cursor payload (:func:`from_cursor`)."""
        if from_cursor(data):
            return "other"
        event = data.get("hook_event_name")
        if not isinstance(event, str):
            return "other"
        agent_id = data.get("agent_id")
        if event.lower() == "subagentstop" or (isinstance(agent_id, str) and agent_id):
            return "subagent-stop"
        return "stop" if event.lower() == "stop" else "other"

    def quick_skip(self, data: dict[str, Any]) -> bool:
        """True when, reading the transcript backwards from its end to the last real
        typed prompt (classified by :func:`jev.hosts.ccformat.records.classify_user`, the
        reader's own rule), no line names a Todo tool. A turn starts at or after the
        last typed prompt, so the current turn has no Todo use and would be skipped."""
        path = data.get("transcript_path")
        if data.get("background_tasks") or data.get("session_crons") or not isinstance(path, str):
            return False
        if not os.path.isfile(path):  # a FIFO, device or folder is never opened here
            return False
        try:
            return _no_todo_since_last_prompt(path)
        except (OSError, ValueError, RecursionError):
            return False

    # -- full path ---------------------------------------------------------------

    def parse(self, data: Mapping[str, Any]) -> HookInput:
        """The typed event (see :class:`jev.hosts.base.HookInput`).

        Raises:
            HookInputError: no ``hook_event_name``.
        """
        # lazy: the fast path imports this module at every stop (stdlib only at import)
        from jev.hosts.base import HookInput, HookInputError, common_fields, running_tasks

        event = data.get("hook_event_name")
        if not isinstance(event, str) or not event:
            raise HookInputError(f"the {self.name} hook stdin has no hook_event_name")
        lowered = event.lower()
        kind = {"stop": "stop", "subagentstop": "subagent-stop", "sessionstart": "session-start"}
        return HookInput(
            host=self.name,
            event=event,
            kind="other" if from_cursor(data) else kind.get(lowered, "other"),
            running_tasks=running_tasks(data.get("background_tasks")),
            crons=running_tasks(data.get("session_crons")),
            **common_fields(data),
        )

    def gate(self, hook: HookInput) -> str:
        """A stop while background tasks run or crons are scheduled is paused work,
        not the end of the turn (CCDOCS hooks.md "Stop input"): deferred, nothing counted.

        A stop after :func:`block_cap` blocks in a row (no tool call since) of which
        some came from another Stop hook is not audited: the host would override a
        further block, so a supplement sent now would be counted and never delivered
        (design.md §8; hosts.md (Claude Code)). When every block of the row was Jev's,
        the turn's budget (capped at the host's limit by the hook) is used up and the
        audit runs to give its notice."""
        # lazy: the fast path imports this module at every stop (stdlib only at import)
        from jev.hosts.claude_code.facts import BLOCK_CAP_ENV, block_cap, blocks_in_a_row

        if hook.running_tasks:
            return "deferred: background tasks running"
        cap = block_cap(os.environ)
        path = hook.transcript_path
        if path and os.path.isfile(path):
            row, foreign = blocks_in_a_row(path)
            if row >= cap and foreign:
                return (
                    f"not audited: Claude Code delivers at most {cap} Stop blocks in a row "
                    f"({BLOCK_CAP_ENV}), other hooks' blocks included, and overrides the next"
                )
        return ""

    def todo_hint(self) -> tuple[str, str]:
        """The Todo tools and their ``ToolSearch`` query for the SessionStart context
        (:func:`todo_offer` of the hook's environment, which has the settings ``env``)."""
        # lazy: the fast path imports this module at every stop (stdlib only at import)
        from jev.hosts.claude_code.facts import todo_offer

        return todo_offer(os.environ)

    def read_turn(self, hook: HookInput, index: SessionIndex, session: str) -> Turn:
        """The current turn from the transcript (see the module docstring).

        Raises:
            MaterialMissing: no ``transcript_path``, or it is not a file.
            UsageError: the transcript cannot be read.
        """
        # lazy: the fast path imports this module at every stop (stdlib only at import)
        from dataclasses import replace

        from jev.hosts.adapter_kit import transcript_file
        from jev.hosts.transcript import read_current_turn

        path = transcript_file(hook)
        turn = read_current_turn(
            path, "claude-code", last_assistant_message=hook.last_assistant_message
        )
        tail = _tail(path)
        self.version = tail.version
        lagging = ""
        if hook.prompt_id and tail.prompt_ids and hook.prompt_id not in tail.prompt_ids:
            # hosts.md (Claude Code): never audit the previous turn's request against this answer.
            lagging = "the transcript has not caught up with this prompt yet"
        elif hook.last_assistant_message is None and tail.in_tool:
            lagging = "the transcript does not show the end of this turn (it ends in a tool call)"
        if lagging:
            status = "missing" if turn.todo_used else "skipped"
            return replace(turn, material=None, status=status, reason=lagging)
        return turn

    def reread(self, entry: Mapping[str, Any]) -> Turn | None:
        """The current turn of the session's transcript (``jev retry``)."""
        # lazy: the fast path imports this module at every stop (stdlib only at import)
        from jev.hosts.transcript import read_current_turn

        path = entry.get("transcript_path")
        return read_current_turn(str(path), "claude-code") if path else None

    def render(self, answer: HookAnswer, hook: HookInput | None = None) -> tuple[str, str]:
        """To steer: ``hookSpecificOutput.additionalContext`` when the transcript shows
        Claude Code ≥ 2.1.163, else ``{"decision":"block","reason":…}``;
        ``systemMessage`` for a notice; "" for nothing (hosts.md (Claude Code))."""
        # lazy: the fast path imports this module at every stop (stdlib only at import)
        from jev.hosts.base import cap, json_line

        out: dict[str, Any] = {}
        if (
            answer.steer is not None
            and hook is not None
            and _at_least(self.version, STOP_CONTEXT_SINCE)
        ):
            # Non-error continuation: not shown to the user as a hook error; same loop
            # protections as a block (hosts.md (Claude Code), hooks.md "Stop decision control").
            out["hookSpecificOutput"] = {
                "hookEventName": "Stop",
                "additionalContext": cap(answer.steer),
            }
        elif answer.steer is not None:
            out["decision"] = "block"
            out["reason"] = answer.steer
        notice = cap(answer.notice.strip())
        if notice:
            out["systemMessage"] = notice
        return (json_line(out) if out else ""), ""

    def render_session_start(self, context: str | None) -> str:
        """``SessionStart`` output adding ``context`` to the conversation, or "" for
        nothing: ``{"hookSpecificOutput":{"hookEventName":"SessionStart",
        "additionalContext":…}}`` (hosts.md (Claude Code))."""
        # lazy: the fast path imports this module at every stop (stdlib only at import)
        from jev.hosts.base import cap, json_line

        if context is None or not context.strip():
            return ""
        payload = {
            "hookSpecificOutput": {
                "hookEventName": "SessionStart",
                "additionalContext": cap(context),
            }
        }
        return json_line(payload)


def from_cursor(data: Mapping[str, Any]) -> bool:
    """True for a Cursor payload reaching the Claude Code hook: Cursor runs the Claude
    Code settings hooks when third-party hooks are on (hosts.md (Cursor)). Its turn is the
    Cursor hook's to audit (``jev install cursor``), so this hook stays silent. A Cursor
    payload carries ``cursor_version``, or ``conversation_id`` + ``generation_id``
    without ``session_id``. Stdlib only, never raises."""
    if "cursor_version" in data:
        return True
    return "conversation_id" in data and "generation_id" in data and "session_id" not in data


#: First Claude Code version with exec-form hooks (``args``; changelog 2.1.139).
EXEC_FORM_SINCE = "2.1.139"
#: First Claude Code version with non-error Stop feedback (``additionalContext``, 2.1.163).
STOP_CONTEXT_SINCE = "2.1.163"


def _version_tuple(text: str) -> tuple[int, ...]:
    parts: list[int] = []
    for piece in text.strip().split(" ", 1)[0].split("."):
        digits = "".join(ch for ch in piece if ch.isdigit())
        if not digits:
            break
        parts.append(int(digits))
    return tuple(parts)


def _at_least(version: str, minimum: str) -> bool:
    """True when ``version`` (e.g. ``2.1.240``) is known and ≥ ``minimum``."""
    have = _version_tuple(version)
    return bool(have) and have >= _version_tuple(minimum)


def installed_version() -> str:
    """The version printed by ``claude --version`` ("" when Claude Code is not on PATH
    or does not answer within 10 s). The installer writes exec-form hooks only for a
    version known to read them; an older host would run ``jev`` without arguments."""
    # lazy: the fast path imports this module at every stop (stdlib only at import)
    import shutil
    import subprocess

    program = shutil.which("claude")
    if program is None:
        return ""
    try:
        proc = subprocess.run(
            [program, "--version"], capture_output=True, text=True, timeout=10, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    return proc.stdout.strip() if proc.returncode == 0 else ""


class ClaudeCodeInstaller:
    """Claude Code settings files (hosts.md (Claude Code)); ``timeout`` in seconds."""

    scopes: tuple[str, ...] = ("user", "project", "local")
    entries: tuple[tuple[str, str], ...] = (
        ("Stop", "claude-code"),
        ("SessionStart", "claude-code-session-start"),
    )
    timeout_unit: str = "s"

    def config_path(self, scope: str, project: Path) -> Path:
        """``$CLAUDE_CONFIG_DIR/settings.json`` or ``~/.claude/settings.json`` (user),
        ``<project>/.claude/settings.json`` (project), ``….local.json`` (local)."""
        # lazy: the fast path imports this module at every stop (stdlib only at import)
        from pathlib import Path

        if scope == "user":
            root = os.environ.get("CLAUDE_CONFIG_DIR")
            base = Path(root).expanduser() if root else Path.home() / ".claude"
            return base / "settings.json"
        name = "settings.json" if scope == "project" else "settings.local.json"
        return project / ".claude" / name

    def present(self) -> bool:
        """``$CLAUDE_CONFIG_DIR`` or ``~/.claude`` exists, or ``claude`` is on PATH."""
        # lazy: the fast path imports this module at every stop (stdlib only at import)
        import shutil
        from pathlib import Path

        root = os.environ.get("CLAUDE_CONFIG_DIR")
        folder = Path(root).expanduser() if root else Path.home() / ".claude"
        return folder.is_dir() or shutil.which("claude") is not None

    def handler(
        self, event: str, name: str, exe: Path, profile: str | None, timeout_s: int
    ) -> dict[str, Any]:
        """A ``command`` handler running ``jev hook <name>``."""
        # lazy: the fast path imports this module at every stop (stdlib only at import)
        from jev.hosts.hook_commands import SESSION_START_TIMEOUT_S, STATUS_MESSAGE, hook_command

        handler: dict[str, Any] = {"type": "command"}
        if _at_least(installed_version(), EXEC_FORM_SINCE):
            # Exec form: no shell, so a Windows path survives Git Bash and PowerShell.
            args = ["hook", name, *(["--profile", profile] if profile else [])]
            handler.update(command=str(exe), args=args)
        else:
            handler["command"] = hook_command(name, profile, exe)
        handler["timeout"] = SESSION_START_TIMEOUT_S if event == "SessionStart" else timeout_s
        if event == "Stop":
            handler["statusMessage"] = STATUS_MESSAGE
        return handler

    def todo_tool_settings(self, scope: str, project: Path) -> tuple[ConfigSetting, ...]:
        """``env.CLAUDE_CODE_ENABLE_TODO_TOOLS = "1"`` in the scope's settings file.

        Since 2.1.233 the Todo/Task tools are not given to newer models without it
        (hosts.md (Claude Code), changelog 2.1.233; CCTOOLS-268). A settings ``env`` block is
        read "directly from the file" and accepts any documented variable (env-vars.md
        "In settings files", settings-reference.md ``env``), and field reports confirm
        it restores the tools (anthropics/claude-code#80015, #87057)."""
        # lazy: the fast path imports this module at every stop (stdlib only at import)
        from jev.hosts.base import ConfigSetting

        return (
            ConfigSetting(
                path=self.config_path(scope, project),
                keys=("env", TODO_TOOLS_ENV),
                value="1",
                what="Todo tools",
            ),
        )

    def notes(self) -> tuple[str, ...]:
        """Nothing to add."""
        return ()

    @property
    def block_cap(self) -> int | None:
        """:func:`block_cap` of this environment and the user settings ``env``: 8
        consecutive blocks unless ``CLAUDE_CODE_STOP_HOOK_BLOCK_CAP`` says otherwise;
        the host overrides the next one (hosts.md §0a)."""
        # lazy: the fast path imports this module at every stop (stdlib only at import)
        from jev.hosts.claude_code.facts import block_cap

        return block_cap({**self._user_env(), **os.environ})

    @property
    def notice_channel(self) -> bool:
        """``systemMessage`` is shown in the TUI and as a ``system``/``informational``
        event ("Stop says: …") in ``-p --output-format stream-json``; plain ``-p`` text
        output shows none (measured, 2.1.328)."""
        return True

    def plugin_hooks(self) -> dict[str, Path]:
        """``{"plugin": <hooks.json>}`` when the Jev plugin is installed and enabled
        (:func:`jev.hosts.claude_code.facts.plugin_hooks`), else ``{}``. For ``jev doctor``: the
        plugin's hooks are not in a settings file."""
        # lazy: the fast path imports this module at every stop (stdlib only at import)
        from pathlib import Path

        from jev.hosts.claude_code.facts import plugin_hooks

        files = [self.config_path(scope, Path.cwd()) for scope in self.scopes]
        hooks = plugin_hooks(files[0].parent, files)
        return {"plugin": hooks} if hooks is not None else {}

    def checks(self, scope: str, path: Path) -> tuple[str, ...]:
        """``"disableAllHooks": true`` in the scope's settings file turns every hook off
        (hosts.md (Claude Code) §1.1); the plugin's hooks run the ``jev`` on PATH."""
        # lazy: the fast path imports this module at every stop (stdlib only at import)
        import shutil

        from jev.hosts.claude_code.facts import settings_file

        if scope == "plugin":
            lines = []
            if shutil.which("jev") is None:
                lines.append(
                    f"claude-code: the Jev plugin ({path}) runs the jev on PATH, and there "
                    "is none; install it (pipx install jev) so that Claude Code finds it"
                )
            env = {**self._user_env(), **os.environ}
            if env.get(TODO_TOOLS_ENV) != "1":
                lines.append(
                    f"warning: claude-code: the plugin cannot switch the Todo tools on; add "
                    f'"env": {{"{TODO_TOOLS_ENV}": "1"}} to {self.config_path("user", path)} '
                    "yourself (`jev install claude-code` would add a second Stop hook)"
                )
            return tuple(lines)
        if settings_file(path).get("disableAllHooks") is True:
            return (
                f'claude-code: {path} has "disableAllHooks": true, so Claude Code runs '
                "no hook and Jev never audits; remove that key",
            )
        return ()

    @property
    def todo_offer(self) -> str:
        """What the host really offers as its Todo tool, for ``jev doctor``: the tool
        names and how the model loads them (:func:`todo_offer` of this environment and
        the user settings ``env``)."""
        # lazy: the fast path imports this module at every stop (stdlib only at import)
        from jev.hosts.claude_code.facts import todo_offer

        names, query = todo_offer({**self._user_env(), **os.environ})
        if not query:
            return f"{names} (top-level tools)"
        return f"{names} as deferred tools, loaded with ToolSearch {query!r}"

    def newest_session(self) -> Path | None:
        """The newest session under ``$CLAUDE_CONFIG_DIR/projects`` or
        ``~/.claude/projects`` (:func:`jev.hosts.claude_code.facts.newest_session`)."""
        # lazy: the fast path imports this module at every stop (stdlib only at import)
        from pathlib import Path

        from jev.hosts.claude_code.facts import newest_session

        return newest_session(self.config_path("user", Path.cwd()).parent)

    def _user_env(self) -> dict[str, str]:
        """The ``env`` block of the user settings file."""
        # lazy: the fast path imports this module at every stop (stdlib only at import)
        from pathlib import Path

        from jev.hosts.claude_code.facts import settings_env

        return settings_env(self.config_path("user", Path.cwd()))


_INSTALLER = ClaudeCodeInstaller()


class _Tail:
    """What the end of a transcript says: the newest record's ``version``, every
    ``promptId`` since the last typed prompt (its own included; a task notification
    gets its own id), whether the turn ends in a tool call."""

    def __init__(self) -> None:
        self.version = ""
        self.prompt_ids: set[str] = set()
        self.in_tool: bool | None = None


def _tail(path: str) -> _Tail:
    """Read the transcript backwards to its last typed prompt (at most 4 MiB)."""
    tail = _Tail()
    try:
        start = os.path.getsize(path) - _MAX_LINE  # lines starting before it are not read
        for offset, raw in lines_backward(path, max_line=_MAX_LINE):
            if offset < start or _tail_line(tail, raw):
                return tail
    except (OSError, LineTooLong):
        pass
    return tail


def _tail_line(tail: _Tail, raw: bytes) -> bool:
    """Fold one line (newest first) into ``tail``; True when the last prompt is found."""
    try:
        rec = json.loads(raw)
    except ValueError:
        return False
    if not isinstance(rec, dict) or rec.get("isSidechain") is True:
        return False
    if not tail.version and isinstance(rec.get("version"), str):
        tail.version = rec["version"]
    if isinstance(rec.get("promptId"), str):
        tail.prompt_ids.add(rec["promptId"])
    kind = rec.get("type")
    message = rec.get("message")
    blocks = message.get("content") if isinstance(message, dict) else None
    if kind == "user":
        what, _ = classify_user(rec)
        if tail.in_tool is None:
            tail.in_tool = what == "tool_result"
        if what == "prompt":
            return True
    elif kind == "assistant" and tail.in_tool is None:
        calls = [b for b in blocks or () if isinstance(b, dict) and b.get("type") == "tool_use"]
        tail.in_tool = bool(calls)
    elif kind == "system" and tail.in_tool is None and rec.get("subtype") in _END_SUBTYPES:
        tail.in_tool = False
    return False


#: ``system`` records written when a turn ends (hosts.md (Claude Code)).
_END_SUBTYPES = frozenset({"stop_hook_summary", "turn_duration"})


def _no_todo_since_last_prompt(path: str) -> bool:
    """True when no Todo-tool name appears after (and in) the last typed-prompt record."""
    try:
        for _, raw in lines_backward(path, max_line=_MAX_LINE):
            verdict = _line_verdict(raw)
            if verdict is not None:
                return verdict
    except LineTooLong:
        return False  # a pathological line: let the full reader deal with it
    return False  # no typed prompt at all: the full hook decides (material missing, …)


def _line_verdict(raw: bytes) -> bool | None:
    """False at a Todo-tool mention, True at a typed prompt, None to keep reading."""
    if any(marker in raw for marker in _MARKERS):
        return False
    if b'"user"' not in raw:
        return None
    try:
        rec = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(rec, dict) or rec.get("type") != "user" or rec.get("isSidechain") is True:
        return None
    kind, _ = classify_user(rec)
    return True if kind == "prompt" else None


ADAPTER: HostAdapter = ClaudeCodeAdapter()
