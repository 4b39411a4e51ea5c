"""Run the project checks the user configured (``evidence.checks``, issue 21).

:func:`run_checks` runs each command in the turn's working folder, one after the
other, and stops at the first that fails. A command runs without a shell unless its
text needs one (pipes, ``&&``, redirections, ``$VAR``, globs, quotes the splitter
cannot take): then ``/bin/sh -c`` (``cmd /c`` on Windows). Each runs in its own
process group (session) and the whole group is killed at its deadline —
``evidence.check_timeout_s``, cut to what is left of the stop's overall deadline — so
a check that hangs (or leaves children behind) costs that much and no more. Output
is read up to :data:`MAX_CAPTURE_BYTES`; only its tail is kept.

Commands only ever come from the user's settings, never from the transcript or the
agent. Nothing here decides a verdict: :func:`jev.evidence.finding.check_finding`
does.
"""

from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = ["MAX_CAPTURE_BYTES", "TAIL_CHARS", "CheckResult", "failing_tail", "run_checks"]

#: Bytes of a check's output read at most (the rest is left unread in the temp file).
MAX_CAPTURE_BYTES = 1_000_000
#: Characters of a failing check's output quoted back (its tail).
TAIL_CHARS = 400
_NEEDS_SHELL = re.compile(r"[|&;<>()$`*?\[\]{}~!\n]|^\s*\w+=")


@dataclass(frozen=True, slots=True)
class CheckResult:
    """One check's run.

    Attributes:
        command: the command text as configured.
        exit_code: its exit status; ``None`` when it was killed at its deadline or
            could not start.
        output: the tail of its combined stdout and stderr (decoded, replacement
            characters for bad bytes).
        seconds: wall time it took.
        timed_out: killed at its deadline.
        error: why it could not start ("" when it started).
    """

    command: str
    exit_code: int | None
    output: str
    seconds: float
    timed_out: bool = False
    error: str = ""

    @property
    def passed(self) -> bool:
        """Exit status 0."""
        return self.exit_code == 0


def _argv(command: str) -> list[str]:
    if _NEEDS_SHELL.search(command):
        if os.name == "nt":  # pragma: no cover - Windows
            return ["cmd", "/c", command]
        return ["/bin/sh", "-c", command]
    try:
        return shlex.split(command)
    except ValueError:
        return ["/bin/sh", "-c", command]


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    if os.name == "nt":  # pragma: no cover - Windows
        proc.kill()
        return
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()


def run_one(command: str, cwd: str | Path, timeout_s: float) -> CheckResult:
    """Run one check in ``cwd`` with a deadline of ``timeout_s`` seconds (module
    docstring). Never raises: a command that cannot start is a failed check whose
    ``error`` says why."""
    started = time.monotonic()
    with tempfile.TemporaryFile() as sink:
        try:
            proc = subprocess.Popen(
                _argv(command),
                cwd=str(cwd),
                stdin=subprocess.DEVNULL,
                stdout=sink,
                stderr=subprocess.STDOUT,
                start_new_session=os.name != "nt",
            )
        except (OSError, ValueError) as exc:
            detail = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
            why = f"could not start: {detail}"
            return CheckResult(command, None, why, time.monotonic() - started, error=why)
        timed_out = False
        try:
            code: int | None = proc.wait(timeout=max(0.01, timeout_s))
        except subprocess.TimeoutExpired:
            timed_out = True
            _kill_group(proc)
            proc.wait()
            code = None
        else:
            _kill_group(proc)  # children it left behind share its group: end them too
        sink.seek(0)
        size = sink.seek(0, os.SEEK_END)
        sink.seek(max(0, size - MAX_CAPTURE_BYTES))
        output = sink.read(MAX_CAPTURE_BYTES).decode("utf-8", "replace")
    if timed_out:
        output += f"\n[killed after {timeout_s:g} s: evidence.check_timeout_s]"
    return CheckResult(command, code, output[-8000:], time.monotonic() - started, timed_out)


def run_checks(
    commands: Sequence[str],
    cwd: str | Path,
    timeout_s: float,
    *,
    deadline: float | None = None,
) -> list[CheckResult]:
    """Run ``commands`` in order in ``cwd``; stop after the first that fails.

    Args:
        commands: the user's ``evidence.checks``.
        cwd: the turn's working folder (from the hook input).
        timeout_s: ``evidence.check_timeout_s``, per check.
        deadline: a :func:`time.monotonic` time by which everything must have ended
            (the stop's overall deadline); each check's timeout is cut to it, and
            checks not started by then are not run.

    Returns:
        The results of the checks that ran, in order.
    """
    results: list[CheckResult] = []
    for command in commands:
        left = timeout_s if deadline is None else min(timeout_s, deadline - time.monotonic())
        if left <= 0:
            break
        result = run_one(command, cwd, left)
        results.append(result)
        if not result.passed:
            break
    return results


def failing_tail(result: CheckResult, limit: int = TAIL_CHARS) -> str:
    """The last non-empty lines of a failed check's output, at most ``limit`` characters
    (cut at a line start when possible)."""
    text = "\n".join(line.rstrip() for line in result.output.strip().splitlines() if line.strip())
    if len(text) <= limit:
        return text or (result.error or f"exit code {result.exit_code}")
    tail = text[-limit:]
    cut = tail.find("\n")
    return "…" + (tail[cut + 1 :] if 0 <= cut < limit // 2 else tail)
