"""Judges that run an agent host's own CLI headless (design.md §13; issue 20 item 1).

A *host judge* asks the model the user already runs, through that host's command-line
program and the user's existing login: no key, no base URL. This module is the
host-neutral engine; each host's module (in its adapter folder) says only how to call
its CLI and where the reply is in the output (:meth:`CliJudge.command`,
:meth:`CliJudge.answer`). What the engine guarantees for every host:

* **a pure text call**: Jev's judge system prompt and the material go in, one reply
  comes out; the host's own tools are switched off where its CLI allows;
* **no recursion**: the child runs with :data:`jev.base.paths.JUDGE_CHILD_ENV` set, which
  turns every ``jev hook …`` in that process tree into a silent no-op (exit 0), so the
  judge's own headless session can never start another audit;
* **bounded**: one hard deadline per call (``judge.timeout_s``): the CLI runs in its
  own process group, killed whole at the deadline; stdout and stderr are read up to
  :data:`MAX_OUTPUT_BYTES` each (more kills the call); the CLI's working folder is an
  empty temporary folder removed afterwards;
* **typed failures, never a verdict**: a missing program, a non-zero exit, a timeout
  or an unreadable output is a :class:`~jev.base.errors.TransportError` with a one-line
  reason naming the fix; the reply text goes through the same strict parser as every
  judge (:mod:`jev.pipeline.parse`).

Error kinds: ``cli-missing`` (the program is not on PATH; not retried), ``timeout``
(killed at the deadline; not retried: the stop's wall time stays within
``judge.timeout_s`` plus start-up), ``cli-failed`` (non-zero exit; the CLI's last
stderr line is quoted; retried), ``cli-output`` (no reply in the output; retried),
``cli-too-large`` (output over the cap; not retried).
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, ClassVar, Self

from jev.base.domain import JudgeAnswer, JudgeInfo, JudgeInput, JudgeSettings, Numbering
from jev.base.errors import SettingsError, TransportError
from jev.base.paths import JUDGE_CHILD_ENV

__all__ = [
    "MAX_OUTPUT_BYTES",
    "CliCall",
    "CliJudge",
    "CliRun",
    "argv_model",
    "first_json_object",
    "quick_output",
]

#: The most a host CLI may print on stdout (and on stderr) in one judge call.
MAX_OUTPUT_BYTES = 4 * 1024 * 1024
#: The longest stderr excerpt quoted in an error (characters).
_STDERR_QUOTE = 300


@dataclass(frozen=True, slots=True)
class CliCall:
    """How to run the host CLI for one judge call.

    Attributes:
        argv: the program and its arguments (``argv[0]`` is looked up on PATH).
        stdin: text written to the CLI's standard input ("" = none).
        env: variables added to the inherited environment.
    """

    argv: tuple[str, ...]
    stdin: str = ""
    env: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class CliRun:
    """What the CLI did: exit code, stdout and stderr text, wall time (ms), and the
    temporary folder it ran in (still present while :meth:`CliJudge.answer` reads)."""

    code: int
    stdout: str
    stderr: str
    latency_ms: float
    folder: Path


class CliJudge(ABC):
    """The engine of a host judge (module docstring). Subclasses set :attr:`provider`
    (the ``judge.provider`` name, the host's ``jev install`` name), :attr:`program`,
    :attr:`fix_missing` (how to install the CLI), :attr:`reply_mode`, and implement
    :meth:`command` and :meth:`answer`.

    Args:
        model: the host's model name or alias ("" = the host's default model).
        timeout_s: the hard deadline of one call, in seconds (> 0).

    Raises:
        SettingsError: ``timeout_s`` is not positive.
    """

    provider: ClassVar[str] = ""
    program: ClassVar[str] = ""
    fix_missing: ClassVar[str] = ""
    reply_mode: ClassVar[str] = "text"

    def __init__(self, *, model: str = "", timeout_s: float = 60.0) -> None:
        if not timeout_s > 0:
            raise SettingsError(f"judge.timeout_s must be > 0 seconds, got {timeout_s!r}")
        self.model = model.strip()
        self.timeout_s = float(timeout_s)
        self.info = JudgeInfo(provider=self.provider, model=self.model, heuristic=False)

    @classmethod
    def login_status(cls) -> tuple[bool | None, str]:
        """A cheap check that the CLI can answer, for ``jev doctor`` (never a paid call):
        ``(True, how)`` logged in, ``(False, fix)`` certainly not, ``(None, why)`` when
        the CLI offers no such check. The default: not checked."""
        return None, f"{cls.program} offers no login check Jev can run for free"

    @classmethod
    def from_settings(cls, settings: JudgeSettings) -> Self:
        """Registry factory: ``judge.model`` and ``judge.timeout_s`` (design.md §10);
        ``base_url`` and ``api_key_env`` do not apply (the CLI's own login is used)."""
        return cls(model=settings.model, timeout_s=settings.timeout_s)

    # -- what a host says -----------------------------------------------------------

    @abstractmethod
    def command(self, judge_input: JudgeInput, numbering: Numbering, folder: Path) -> CliCall:
        """The CLI call for this judge input (``folder``: an empty temporary folder
        that is the CLI's working folder, for schema or output files)."""

    @abstractmethod
    def answer(self, run: CliRun) -> JudgeAnswer:
        """The reply in the CLI's output.

        Raises:
            TransportError: kind ``cli-output`` when the output holds no reply.
        """

    # -- the Judge protocol ---------------------------------------------------------

    def ask(self, judge_input: JudgeInput, numbering: Numbering) -> JudgeAnswer:
        """Run the CLI once under the deadline; return its reply (module docstring).

        Raises:
            TransportError: ``cli-missing``, ``timeout``, ``cli-failed``,
                ``cli-output`` or ``cli-too-large`` (module docstring).
        """
        with tempfile.TemporaryDirectory(prefix="jev-judge-") as tmp:
            folder = Path(tmp)
            call = self.command(judge_input, numbering, folder)
            run = self._run(call, folder)
            if run.code != 0:
                raise TransportError(
                    f"the {self.provider} judge's CLI ({call.argv[0]}) exited {run.code}"
                    f"{_stderr_tail(run.stderr)}; run it by hand to see why (is it logged "
                    "in?), or `jev settings set judge.provider rules`",
                    kind="cli-failed",
                    retryable=True,
                )
            return self.answer(run)

    def close(self) -> None:  # noqa: B027 - the Judge protocol's close; nothing to release
        """Nothing to release (each call is its own process)."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model={self.model!r}, timeout_s={self.timeout_s!r})"

    # -- the engine -----------------------------------------------------------------

    def _run(self, call: CliCall, folder: Path) -> CliRun:
        exe = shutil.which(call.argv[0])
        if exe is None:
            raise TransportError(
                f"the {self.provider} judge needs the {call.argv[0]} program, which is not "
                f"on PATH; {self.fix_missing or 'install it'}, or run "
                "`jev settings set judge.provider rules`",
                kind="cli-missing",
                retryable=False,
            )
        env = dict(os.environ)
        env.update(call.env)
        env[JUDGE_CHILD_ENV] = "1"
        started = time.perf_counter()
        try:
            proc = subprocess.Popen(
                [exe, *call.argv[1:]],
                cwd=folder,
                env=env,
                stdin=subprocess.PIPE if call.stdin else subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,  # its own process group, killed whole
            )
        except OSError as exc:
            if exc.errno == errno.E2BIG:
                raise TransportError(
                    f"the judge input is too long for the {self.provider} CLI's command "
                    "line; lower evidence_chars so such turns are refused before any call",
                    kind="cli-too-large",
                    retryable=False,
                ) from None
            raise TransportError(
                f"the {self.provider} judge could not start {exe}: {exc}; check the "
                "program, or `jev settings set judge.provider rules`",
                kind="cli-missing",
                retryable=False,
            ) from None
        out, err, overflow = _Capped(proc.stdout), _Capped(proc.stderr), threading.Event()
        readers = [
            threading.Thread(target=r.read, args=(overflow,), daemon=True) for r in (out, err)
        ]
        for reader in readers:
            reader.start()
        if call.stdin and proc.stdin is not None:
            threading.Thread(target=_feed, args=(proc.stdin, call.stdin), daemon=True).start()
        deadline = started + self.timeout_s
        timed_out = False
        while proc.poll() is None:
            if overflow.is_set() or time.perf_counter() >= deadline:
                timed_out = not overflow.is_set()
                _kill_group(proc)
                break
            overflow.wait(min(0.05, max(0.0, deadline - time.perf_counter())))
        proc.wait()
        for reader in readers:
            reader.join(timeout=1.0)
        latency_ms = (time.perf_counter() - started) * 1000.0
        if overflow.is_set():
            raise TransportError(
                f"the {self.provider} judge's CLI printed more than "
                f"{MAX_OUTPUT_BYTES // (1024 * 1024)} MiB; it was stopped",
                kind="cli-too-large",
                retryable=False,
            )
        if timed_out:
            raise TransportError(
                f"the {self.provider} judge's CLI did not answer within {self.timeout_s:g} s "
                "and was stopped; raise judge.timeout_s, or pick a faster judge.model",
                kind="timeout",
                retryable=False,
            )
        _kill_group(proc)  # nothing of the call outlives it (a helper left running)
        return CliRun(proc.returncode, out.text(), err.text(), latency_ms, folder)


class _Capped:
    """Reads a pipe to its end, keeping at most :data:`MAX_OUTPUT_BYTES`."""

    def __init__(self, pipe: IO[bytes] | None) -> None:
        self._pipe = pipe
        self._chunks: list[bytes] = []
        self._size = 0

    def read(self, overflow: threading.Event) -> None:
        if self._pipe is None:
            return
        try:
            while chunk := self._pipe.read1(65536) if hasattr(self._pipe, "read1") else b"":
                self._size += len(chunk)
                if self._size > MAX_OUTPUT_BYTES:
                    overflow.set()
                    return
                self._chunks.append(chunk)
        except (OSError, ValueError):
            return

    def text(self) -> str:
        return b"".join(self._chunks).decode("utf-8", "replace")


def _feed(pipe: IO[bytes], text: str) -> None:
    try:
        pipe.write(text.encode("utf-8"))
        pipe.close()
    except (OSError, ValueError):
        return


def _kill_group(proc: subprocess.Popen[Any]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError, OSError):
        return


def _stderr_tail(stderr: str) -> str:
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    if not lines:
        return ""
    last = lines[-1]
    if len(last) > _STDERR_QUOTE:
        last = last[: _STDERR_QUOTE - 1] + "…"
    return f": {last}"


def first_json_object(text: str) -> dict[str, Any] | None:
    """The first line-or-whole JSON object in ``text`` (CLIs may print a banner
    before their JSON), or ``None``."""
    stripped = text.strip()
    for candidate in (stripped, *reversed(stripped.splitlines())):
        candidate = candidate.strip()
        if not candidate.startswith("{"):
            continue
        try:
            value = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    return None


def argv_model(flag: str, model: str) -> Sequence[str]:
    """``(flag, model)`` when a model is set, else nothing (the host's default)."""
    return (flag, model) if model else ()


def quick_output(argv: Sequence[str], timeout_s: float = 10.0) -> tuple[int, str] | None:
    """``(exit code, stdout)`` of a short, free CLI command (a login check), or ``None``
    when it cannot run or does not finish within ``timeout_s`` seconds (then killed).
    Runs with :data:`jev.base.paths.JUDGE_CHILD_ENV` set, like a judge call."""
    exe = shutil.which(argv[0])
    if exe is None:
        return None
    env = dict(os.environ)
    env[JUDGE_CHILD_ENV] = "1"
    try:
        proc = subprocess.Popen(
            [exe, *argv[1:]],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            start_new_session=True,
        )
    except OSError:
        return None
    try:
        out, _ = proc.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        proc.communicate()
        return None
    return proc.returncode, out[:MAX_OUTPUT_BYTES].decode("utf-8", "replace")
