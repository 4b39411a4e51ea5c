"""The ``scripted`` judge: canned replies for tests and replay (design.md §11, §13).

**For tests, not for real audits.** In Python, build it directly::

    judge = ScriptedJudge(['{"assessment": "complete", "focus": "none"}',
                           TransportError("down", kind="timeout")])

Each ``ask`` consumes the next entry: a ``str`` is returned as the
reply text, an exception instance is raised, a callable ``(JudgeInput, Numbering) ->
str`` is called and its result returned. When the script is used up the call raises
``TransportError(kind="script-exhausted", retryable=False)``, so a test that makes
one call too many fails loudly instead of looping. Every input is recorded in
:attr:`ScriptedJudge.calls` so tests can assert "exactly one judge call".

From settings (``judge.provider = "scripted"``, e.g. in CLI subprocess tests) the
replies come from the JSON file named by the environment variable
``JEV_SCRIPTED_REPLIES``: a list whose entries are reply strings or error objects
``{"error": KIND, "message": "...", "status": 500, "retryable": true,
"retry_after_s": 1.5}`` (``KIND`` ``"context-length"`` raises
:class:`~jev.base.errors.ContextLengthError`, any other kind a ``TransportError`` of that
kind). That file is a queue shared by every process that uses it: the N-th judge call
across all processes gets entry N; the count is kept next to it in
``<file>.cursor`` (delete that file to start over). If ``JEV_SCRIPTED_LOG`` names a
file, every call appends one JSON line ``{"system", "user", "language",
"template_hash"}`` to it, so a test can count calls made by subprocesses.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from jev.base.domain import JudgeAnswer, JudgeInfo, JudgeInput, JudgeSettings, Numbering
from jev.base.errors import ContextLengthError, SettingsError, TransportError

__all__ = ["LOG_ENV", "REPLIES_ENV", "ScriptEntry", "ScriptedJudge", "load_script"]

#: Environment variable naming the JSON reply file used by :meth:`ScriptedJudge.from_settings`.
REPLIES_ENV = "JEV_SCRIPTED_REPLIES"
#: Environment variable naming an optional JSONL file receiving every judge input.
LOG_ENV = "JEV_SCRIPTED_LOG"

#: One scripted step: reply text, an exception to raise, or a function of the input.
ScriptEntry = str | BaseException | Callable[[JudgeInput, Numbering], str]


class ScriptedJudge:
    """A judge that plays back a fixed script (see the module docstring).

    Args:
        replies: the script, consumed in order.
        provider: ``info.provider`` to report (default ``"scripted"``).
        model: ``info.model`` and ``JudgeAnswer.model`` to report.
        heuristic: ``info.heuristic`` to report.

    Attributes:
        calls: every :class:`~jev.base.domain.JudgeInput` asked, in order (also the calls
            that raised or found the script exhausted).
    """

    def __init__(
        self,
        replies: Sequence[ScriptEntry],
        *,
        provider: str = "scripted",
        model: str = "scripted",
        heuristic: bool = False,
    ) -> None:
        self._replies: list[ScriptEntry] = list(replies)
        self._next = 0
        self._lock = threading.Lock()
        self.calls: list[JudgeInput] = []
        self.info = JudgeInfo(provider=provider, model=model, heuristic=heuristic)

    @classmethod
    def from_settings(cls, settings: JudgeSettings) -> ScriptedJudge:
        """Registry factory: replies from the file named by ``JEV_SCRIPTED_REPLIES``.

        ``settings.model`` ("" = ``"scripted"``) is reported as the model.

        Raises:
            SettingsError: the variable is unset, or the file is unreadable or not a
                JSON list of strings / error objects.
        """
        raw_path = os.environ.get(REPLIES_ENV, "").strip()
        if not raw_path:
            raise SettingsError(
                f"the scripted judge is for tests: set {REPLIES_ENV} to a JSON file "
                "holding a list of reply strings, or choose another judge.provider"
            )
        path = Path(raw_path)
        entries = load_script(path)
        log_path = os.environ.get(LOG_ENV, "").strip()
        return _FileScriptedJudge(
            entries,
            cursor=path.with_name(path.name + ".cursor"),
            log=Path(log_path) if log_path else None,
            model=settings.model or "scripted",
        )

    def __repr__(self) -> str:
        return f"ScriptedJudge(calls={len(self.calls)}, remaining={self.remaining})"

    @property
    def remaining(self) -> int:
        """Entries not consumed yet."""
        with self._lock:
            return max(len(self._replies) - self._next, 0)

    # -- Judge protocol -----------------------------------------------------------

    def ask(self, judge_input: JudgeInput, numbering: Numbering) -> JudgeAnswer:
        """Play the next entry (see the module docstring).

        Raises:
            TransportError: ``kind="script-exhausted"`` when no entry is left; or
                whatever exception the entry holds.
        """
        started = time.perf_counter()
        with self._lock:
            self.calls.append(judge_input)
        entry = self._take()
        if isinstance(entry, BaseException):
            raise entry
        text = entry if isinstance(entry, str) else entry(judge_input, numbering)
        return JudgeAnswer(
            text=text,
            usage=None,
            model=self.info.model,
            latency_ms=(time.perf_counter() - started) * 1000.0,
        )

    def close(self) -> None:
        """Nothing to release."""

    # -- internals ----------------------------------------------------------------

    def _take(self) -> ScriptEntry:
        with self._lock:
            index = self._next
            self._next += 1
        return self._entry(index)

    def _entry(self, index: int) -> ScriptEntry:
        if index >= len(self._replies):
            raise TransportError(
                f"the scripted judge has no reply left (call {index + 1}, script has "
                f"{len(self._replies)} entries); add replies to the script",
                kind="script-exhausted",
                retryable=False,
            )
        return self._replies[index]


class _FileScriptedJudge(ScriptedJudge):
    """File-backed script whose position is shared across processes (``.cursor``)."""

    def __init__(
        self, replies: Sequence[ScriptEntry], *, cursor: Path, log: Path | None, model: str
    ) -> None:
        super().__init__(replies, model=model)
        self._cursor = cursor
        self._log = log

    @property
    def remaining(self) -> int:
        with self._lock:
            return max(len(self._replies) - _read_cursor(self._cursor), 0)

    def _take(self) -> ScriptEntry:
        with self._lock:
            index = _advance_cursor(self._cursor)
        return self._entry(index)

    def ask(self, judge_input: JudgeInput, numbering: Numbering) -> JudgeAnswer:
        if self._log is not None:
            line = json.dumps(
                {
                    "system": judge_input.system,
                    "user": judge_input.user,
                    "language": judge_input.language,
                    "template_hash": judge_input.template_hash,
                },
                ensure_ascii=False,
            )
            with self._log.open("a", encoding="utf-8") as fh:
                fh.write(line + "\n")
        return super().ask(judge_input, numbering)


def load_script(path: Path) -> list[ScriptEntry]:
    """Read a scripted-judge reply file (see the module docstring for the format).

    Args:
        path: JSON file holding a list of strings and/or error objects.

    Returns:
        the entries: strings stay strings, error objects become exception instances.

    Raises:
        SettingsError: unreadable file, invalid JSON, or an entry of the wrong shape.
    """
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise SettingsError(
            f"cannot read the scripted judge's replies {path} ({type(exc).__name__}); "
            f"check {REPLIES_ENV}"
        ) from None
    except ValueError as exc:
        raise SettingsError(
            f"the scripted judge's replies {path} are not valid JSON ({exc}); fix the file"
        ) from None
    if not isinstance(data, list):
        raise SettingsError(f"the scripted judge's replies {path} must be a JSON list")
    return [_entry_from_json(item, i, path) for i, item in enumerate(data, start=1)]


def _entry_from_json(item: Any, number: int, path: Path) -> ScriptEntry:
    if isinstance(item, str):
        return item
    if isinstance(item, dict) and isinstance(item.get("error"), str) and item["error"]:
        kind = item["error"]
        message = str(item.get("message") or f"scripted {kind} error")
        status = item.get("status")
        status = status if isinstance(status, int) and not isinstance(status, bool) else None
        if kind == "context-length":
            return ContextLengthError(message, status=status)
        retry_after = item.get("retry_after_s")
        return TransportError(
            message,
            kind=kind,
            status=status,
            retry_after_s=float(retry_after) if isinstance(retry_after, int | float) else None,
            retryable=bool(item.get("retryable", True)),
        )
    raise SettingsError(
        f"entry {number} of the scripted judge's replies {path} must be a string or an "
        'object like {"error": "timeout"}'
    )


def _read_cursor(cursor: Path) -> int:
    try:
        text = cursor.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return 0
    return int(text) if text.isdigit() else 0


def _advance_cursor(cursor: Path) -> int:
    """Return the index to use and store index + 1, under an exclusive file lock."""
    fd = os.open(cursor, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        _lock_fd(fd)
        raw = os.read(fd, 64).decode("ascii", errors="replace").strip()
        index = int(raw) if raw.isdigit() else 0
        os.lseek(fd, 0, os.SEEK_SET)
        os.ftruncate(fd, 0)
        os.write(fd, str(index + 1).encode("ascii"))
        return index
    finally:
        os.close(fd)  # closing releases the lock


def _lock_fd(fd: int) -> None:
    try:
        # lazy: fcntl is POSIX only
        import fcntl
    except ImportError:  # pragma: no cover - Windows: best effort without a lock
        return
    fcntl.flock(fd, fcntl.LOCK_EX)
