"""What the adapters of hosts without a fast path share (design.md §12): an adapter base
whose every stop takes the full hook, an installer described as data, and the common
stop answer.

An adapter module still holds everything that differs for its host (payload fields,
gates, the transcript reader, the answer's fields, the handler shape); this module
holds only what several adapters would otherwise write again, and names no host.

* :class:`FullHookAdapter` — ``fast_kind`` is always ``other`` (no cheap backward check),
  no host-only gate, no session-start answer, and ``jev retry`` re-reads the session's
  transcript with the adapter's :meth:`~FullHookAdapter.read_file`.
* :class:`HookFileInstaller` — one JSON hook file per scope, ``~/<user folder>/<file>``
  and ``<project>/<project folder>/<file>``; the events, the timeout unit (``s`` or
  ``ms``), the program that shows the host is present and the notes are data.
* :func:`decision_answer` — ``{"decision": "block", "reason": …}`` to send the agent
  back into the turn, the notice in ``systemMessage`` (or on stderr).
* :func:`transcript_file`, :func:`with_final_answer` — the checks and the final-answer
  rule (the hook's ``last_assistant_message`` wins over a transcript that may lag)
  several ``read_turn`` methods share.
"""

from __future__ import annotations

import shutil
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jev.base.errors import MaterialMissing
from jev.hosts.base import ConfigSetting, HookAnswer, HookInput, cap, json_line
from jev.hosts.hook_commands import SESSION_START_TIMEOUT_S, hook_command
from jev.hosts.registry import resolve_hook

if TYPE_CHECKING:
    from jev.hosts.base import Installer
    from jev.hosts.turns import Turn

__all__ = [
    "FullHookAdapter",
    "HookFileInstaller",
    "decision_answer",
    "transcript_file",
    "with_final_answer",
]


def decision_answer(
    answer: HookAnswer,
    *,
    decision: str = "block",
    notice_on_stderr: bool = False,
    always_json: bool = False,
) -> tuple[str, str]:
    """``(stdout, stderr)`` of the common stop contract (design.md §12).

    Args:
        answer: what the hook wants the host to do.
        decision: the word that continues the turn (``block``; some hosts say ``deny``).
        notice_on_stderr: the host shows no notice field, so the notice (capped at
            :data:`jev.hosts.base.MAX_OUTPUT_CHARS` characters) goes to stderr instead
            of ``systemMessage``.
        always_json: stdout must be JSON even when there is nothing to say (``{}``);
            otherwise it is "" then.

    Returns:
        ``{"decision": decision, "reason": steer}`` when steering, plus
        ``systemMessage`` for a notice, as one JSON line; stderr "" or the notice line.
    """
    out: dict[str, Any] = {}
    if answer.steer is not None:
        out["decision"] = decision
        out["reason"] = answer.steer
    notice = cap(answer.notice.strip())
    err = ""
    if notice and notice_on_stderr:
        err = notice + "\n"
    elif notice:
        out["systemMessage"] = notice
    return (json_line(out) if out or always_json else ""), err


def transcript_file(hook: HookInput, field: str = "transcript_path") -> str:
    """The hook's transcript path when it is a file.

    Args:
        hook: the parsed stop event.
        field: the payload field's name as the host spells it, for the message.

    Raises:
        MaterialMissing: no path, or not a file (the message says which).
    """
    path = hook.transcript_path
    if not path:
        raise MaterialMissing(
            f"the {hook.host} hook received no {field}, so the turn's request and "
            "Todo list cannot be read"
        )
    if not Path(path).is_file():
        what = "is not a file" if Path(path).exists() else "does not exist (yet)"
        raise MaterialMissing(f"the transcript {path} {what}")
    return path


def with_final_answer(turn: Turn, hook: HookInput) -> Turn:
    """``turn`` with the hook's ``last_assistant_message`` as its final answer when the
    host sent one and the turn has material (the transcript may lag behind the hook)."""
    if hook.last_assistant_message is None or turn.material is None:
        return turn
    material = replace(turn.material, final_answer=hook.last_assistant_message)
    return replace(turn, material=material)


class FullHookAdapter(ABC):
    """Base of an adapter whose every stop takes the full hook (:class:`HostAdapter`).

    A subclass sets ``name``, ``hooks`` and ``installer`` and writes ``parse``,
    ``read_turn``, ``render`` and :meth:`read_file`; it overrides the rest only where
    its host differs.
    """

    name: str
    hooks: Mapping[str, str]
    remember_material = True
    installer: Installer | None = None

    def fast_kind(self, data: dict[str, Any]) -> str:
        """Always ``other``: every stop takes the full hook."""
        return "other"

    def quick_skip(self, data: dict[str, Any]) -> bool:
        """Never (see :meth:`fast_kind`)."""
        return False

    def gate(self, hook: HookInput) -> str:
        """No host-only gate: ""."""
        return ""

    @abstractmethod
    def read_file(self, path: str) -> Turn:
        """The current turn (``number`` 0) of the transcript at ``path``.

        Raises:
            MaterialMissing: the file holds no turn yet.
            UsageError: the file cannot be read.
        """

    def reread(self, entry: Mapping[str, Any]) -> Turn | None:
        """The current turn of the session's transcript (``jev retry``), or ``None``
        when the entry names no transcript file."""
        path = entry.get("transcript_path")
        if not path or not Path(str(path)).is_file():
            return None
        return self.read_file(str(path))

    def render_session_start(self, context: str | None) -> str:
        """Jev installs no session-start hook for the host: ""."""
        return ""


def newest_file(root: Path, pattern: str) -> Path | None:
    """The most recently modified file under ``root`` matching the glob ``pattern``
    (relative to ``root``, ``**`` allowed), or ``None`` when ``pattern`` is empty or
    nothing matches. Unreadable folders are skipped."""
    if not pattern:
        return None
    best: tuple[float, Path] | None = None
    try:
        for path in root.glob(pattern):
            try:
                mtime = path.stat().st_mtime
            except OSError:
                continue
            if path.is_file() and (best is None or mtime > best[0]):
                best = (mtime, path)
    except OSError:
        return None
    return best[1] if best else None


class HookFileInstaller:
    """An installer whose hooks live in one JSON file per scope, described as data
    (:class:`jev.hosts.base.Installer`; design.md §12).

    Attributes:
        scopes: the scopes (``user`` first: the default).
        entries: ``(event, hook name)`` pairs Jev installs.
        timeout_unit: ``s`` or ``ms``, the unit of the handler's ``timeout``.
        user_folder: the folders under the home folder that hold the user-scope file;
            the first one's existence shows the host is present.
        project_folder: the folders under the project root that hold the project file.
        file_name: the hook file's name.
        program: the host's program, whose presence on ``PATH`` shows the host.
        note_lines: printed after a successful install.
        layout: ``grouped`` (event → matcher groups → handlers) or ``flat`` (event →
            handlers).
        version: a schema version the file carries at its top, or ``None``.
    """

    scopes: tuple[str, ...] = ("user", "project")
    entries: tuple[tuple[str, str], ...] = ()
    timeout_unit: str = "s"
    user_folder: tuple[str, ...] = ()
    project_folder: tuple[str, ...] = ()
    file_name: str = ""
    program: str = ""
    note_lines: tuple[str, ...] = ()
    layout: str = "grouped"
    version: int | None = None
    host_block_cap: int | None = None
    shows_notices: bool = True
    session_glob: str = ""

    def config_path(self, scope: str, project: Path) -> Path:
        """``~/<user folder>/<file>`` (user) or ``<project>/<project folder>/<file>``."""
        if scope == "user":
            return Path.home().joinpath(*self.user_folder, self.file_name)
        return project.joinpath(*self.project_folder, self.file_name)

    def present(self) -> bool:
        """The user folder exists, or :attr:`program` is on ``PATH``."""
        folder = Path.home().joinpath(*self.user_folder[:1])
        return folder.is_dir() or shutil.which(self.program) is not None

    def timeout(self, name: str, timeout_s: int) -> int:
        """The handler's timeout for hook ``name`` in :attr:`timeout_unit`: the judge
        budget ``timeout_s`` (seconds) for a stop hook, :data:`SESSION_START_TIMEOUT_S`
        for a session-start hook."""
        resolved = resolve_hook(name)
        seconds = (
            SESSION_START_TIMEOUT_S
            if resolved is not None and resolved[1] == "session-start"
            else timeout_s
        )
        return seconds * 1000 if self.timeout_unit == "ms" else seconds

    def handler(
        self, event: str, name: str, exe: Path, profile: str | None, timeout_s: int
    ) -> dict[str, Any]:
        """``{"type": "command", "command": …, "timeout": …}`` running ``jev hook <name>``
        (:meth:`timeout`)."""
        return {
            "type": "command",
            "command": hook_command(name, profile, exe),
            "timeout": self.timeout(name, timeout_s),
        }

    def todo_tool_settings(self, scope: str, project: Path) -> tuple[ConfigSetting, ...]:
        """None by default: the host's Todo tool is on."""
        return ()

    def notes(self) -> tuple[str, ...]:
        """:attr:`note_lines`."""
        return self.note_lines

    @property
    def block_cap(self) -> int | None:
        """:attr:`host_block_cap` (:meth:`jev.hosts.base.Installer.block_cap`)."""
        return self.host_block_cap

    @property
    def notice_channel(self) -> bool:
        """:attr:`shows_notices` (:meth:`jev.hosts.base.Installer.notice_channel`)."""
        return self.shows_notices

    def checks(self, scope: str, path: Path) -> tuple[str, ...]:
        """None by default (:meth:`jev.hosts.base.Installer.checks`)."""
        return ()

    def newest_session(self) -> Path | None:
        """The newest file matching :attr:`session_glob` under the home folder, or
        ``None`` (:meth:`jev.hosts.base.Installer.newest_session`)."""
        return newest_file(Path.home(), self.session_glob)
