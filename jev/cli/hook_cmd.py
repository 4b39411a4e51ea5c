"""``jev hook HOOK [--profile P] [--debug]``: the command a host runs at every stop (design.md §12).

Dispatched by :func:`jev.cli.main` before argparse is imported (the fast path). The
hook names are the registered hosts' (:func:`jev.hosts.registry.hook_names`): each
host's own name runs its stop hook (``claude-code``, ``codex``, ``gemini``, ``cursor``
…); ``claude-code-session-start`` runs Claude Code's ``SessionStart`` hook.

The hook JSON is read from stdin; the answer goes to stdout, as UTF-8 bytes whatever
the locale, in the host's contract (the host's adapter, :mod:`jev.hosts.base`). The
exit code is 0 for every outcome, failures included (fail open) — a wrong command line
(unknown hook name or option, e.g. a typo in a hand-edited hook file) too: it lets the
stop through with a notice on stderr naming the hook names (issue 23 item 4), and never
exits 2, which Claude Code and Codex would treat as "block the stop".

A stop that needs the full hook runs under one deadline (:mod:`jev.deadline`, issue
23): a watchdog writes the answer decided so far and exits 0 when it passes, and the
audit's telemetry is exported only after the answer is written. A stdin that is not
UTF-8 is decoded only by its BOM or a named encoding (:func:`decode_stdin`), else the
stop is refused with a notice.

With ``JEV_LOG`` set (or ``--debug``: ``JEV_LOG=debug`` for this process), every stop
writes why it was skipped, audited or refused to ``<jev_home>/logs/jev.log``
(:mod:`jev.log`), the fast path's skips included; without it nothing more is imported
or read on the fast path.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # no ``typing`` import on the fast path
if TYPE_CHECKING:
    from typing import TextIO

__all__ = ["main"]


def _usage() -> str:
    # lazy: the hook's fast path: nothing beyond os/sys before an audit is due
    from jev.hosts.registry import hook_names

    names = ",".join(hook_names())
    return (
        f"usage: jev hook {{{names}}} [--profile NAME] [--debug]  (reads the hook JSON on stdin;"
        " --debug: log this stop to logs/jev.log under the Jev home, as JEV_LOG=debug)"
    )


def _parse(argv: list[str]) -> tuple[str, str | None]:
    # lazy: the hook's fast path: nothing beyond os/sys before an audit is due
    from jev.hosts.registry import resolve_hook

    if not argv or resolve_hook(argv[0]) is None:
        raise ValueError(f"unknown or missing hook name {argv[:1]!r}")
    name, rest = argv[0], argv[1:]
    profile: str | None = None
    while rest:
        head = rest.pop(0)
        if head == "--profile" and rest:
            profile = rest.pop(0)
        elif head.startswith("--profile="):
            profile = head.split("=", 1)[1]
        elif head == "--debug":  # as JEV_LOG=debug for this stop (jev.log; issue 24)
            os.environ["JEV_LOG"] = "debug"
        else:
            raise ValueError(f"unknown argument {head!r}")
    return name, profile or None


#: Most bytes of hook stdin read (64 MiB); a longer stdin is not a hook JSON.
MAX_STDIN_BYTES = 64 << 20


#: Environment variable naming the encoding of a hook stdin that is not UTF-8 (a
#: shell whose code page is not UTF-8 that cannot be changed), e.g. ``cp936``.
ENCODING_ENV = "JEV_HOOK_ENCODING"


def _read_stdin() -> tuple[str, str]:
    """The hook stdin as text, and ``""`` or why it could not be read as text."""
    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:  # no stdin at all (closed by the host)
        return (sys.stdin.read(MAX_STDIN_BYTES) if sys.stdin else ""), ""
    data: bytes = stream.read(MAX_STDIN_BYTES + 1)
    if len(data) > MAX_STDIN_BYTES:
        return "", ""  # the full hook reports "empty stdin" and lets the stop through
    return decode_stdin(data)


def decode_stdin(data: bytes, environ: dict[str, str] | None = None) -> tuple[str, str]:
    """Decode a hook stdin (issue 23 item 3): ``(text, problem)``.

    Hosts write UTF-8. A stdin that is not UTF-8 (a GBK/cp936 payload from a Chinese
    Windows shell) must never be judged as mojibake — an admission of unfinished
    work read as garbage would let the turn pass. So, in order:

    1. UTF-8 (a leading BOM dropped);
    2. UTF-16/UTF-32 with their BOM;
    3. the encoding named by :data:`ENCODING_ENV`, then, on Windows, the ANSI code
       page (``locale.getpreferredencoding``) when it is not UTF-8 — each strictly;
    4. else the text with U+FFFD for the bad bytes, and ``problem`` names the first
       bad byte and what to do: the full hook then refuses the stop with a notice.

    Never raises.
    """
    try:
        return data.decode("utf-8").removeprefix("\ufeff"), ""
    except UnicodeDecodeError as exc:
        bad = exc
    for bom, codec in (
        (b"\xff\xfe\x00\x00", "utf-32"),
        (b"\x00\x00\xfe\xff", "utf-32"),
        (b"\xff\xfe", "utf-16"),
        (b"\xfe\xff", "utf-16"),
    ):
        if data.startswith(bom):
            try:
                return data.decode(codec), ""
            except UnicodeDecodeError:
                break
    env = os.environ if environ is None else environ
    codecs = [env.get(ENCODING_ENV, "").strip()]
    if os.name == "nt":
        # lazy: only for a stdin that is not UTF-8
        import locale

        codecs.append(locale.getpreferredencoding(False))
    for codec in codecs:
        if not codec or codec.lower().replace("-", "").replace("_", "") in ("utf8", "ascii"):
            continue
        try:
            return data.decode(codec), ""
        except (UnicodeDecodeError, LookupError):
            continue
    problem = (
        f"the hook's input is not UTF-8 (byte 0x{data[bad.start]:02x} at offset {bad.start}), "
        "so its text cannot be read reliably; set the shell or host to UTF-8 (Windows: "
        f"chcp 65001), or name the input's encoding in {ENCODING_ENV} (e.g. cp936)"
    )
    return data.decode("utf-8", errors="replace"), problem


def main(argv: list[str]) -> int:
    """Run ``jev hook …`` with ``argv`` (the words after ``hook``); return the exit code.

    Writes the host answer to stdout and diagnostics to stderr. Returns 0 for every
    hook outcome, a wrong command line included (a notice on stderr). Everything after
    the command line — reading stdin, the fast path, the full hook, writing the answer — runs inside
    one fail-open guard (design.md §11, §12): any exception, ``RecursionError`` and
    ``MemoryError`` included, ends as exit 0 with a one-line notice on stderr, and a
    closed or full stdout/stderr never turns into a non-zero exit.
    """
    if argv[:1] in (["-h"], ["--help"]):
        print(_usage())
        return 0
    try:
        name, profile = _parse(list(argv))
    except ValueError as exc:  # a hook ALWAYS exits 0: the stop goes through unaudited
        print(
            f"jev hook: {exc}; no audit ran and the stop was let through. Fix the hook "
            f"command in the host's hook file (or run `jev install HOST` again). {_usage()}",
            file=sys.stderr,
        )
        return 0
    try:
        return _run(name, profile)
    except BaseException as exc:  # fail open: a hook ALWAYS exits 0
        # lazy: the hook's fast path: nothing beyond os/sys before an audit is due
        import contextlib

        with contextlib.suppress(BaseException):
            _write_utf8(
                sys.stderr,
                f"jev hook: internal error ({type(exc).__name__}); the stop was let "
                "through unaudited. Run `jev audit` on the transcript to see more.\n",
            )
        _silence_broken_streams()
        return 0


def _run(name: str, profile: str | None) -> int:
    logging_on = bool(os.environ.get("JEV_LOG"))  # jev.log: off → not even a clock read
    if logging_on:
        # lazy: only with JEV_LOG (a builtin module: microseconds)
        import time

        started = time.perf_counter()
    try:
        text, refused = _read_stdin()
    except (OSError, ValueError, MemoryError):
        text, refused = "", ""
    # lazy: the hook's fast path: nothing beyond os/sys before an audit is due
    from jev.hosts.registry import resolve_hook

    host, role = resolve_hook(name) or (name, "stop")
    if role == "stop":
        # lazy: the hook's fast path: nothing beyond os/sys before an audit is due
        from jev.hosts.fastpath import skip_reason

        reason = skip_reason(host, text, profile)
        if reason:  # certainly nothing to do (see jev.hosts.fastpath)
            if logging_on:
                _log_fast_skip(host, text, reason, (time.perf_counter() - started) * 1000.0)
            return 0
        return _run_stop(host, text, profile, refused)
    else:
        # lazy: the hook's fast path: nothing beyond os/sys before an audit is due
        from jev.hosts.hook import run_session_start_hook

        result = run_session_start_hook(text, profile=profile, host=host)
    if result.stdout:
        try:
            _write_utf8(sys.stdout, result.stdout)
        except Exception as exc:  # the host is gone or the pipe is closed
            # lazy: the hook's fast path: nothing beyond os/sys before an audit is due
            from dataclasses import replace

            from jev.hosts.hook import report_undelivered

            extra = report_undelivered(result, exc)
            result = replace(result, stderr=result.stderr + extra)
    if result.stderr:
        # lazy: the hook's fast path: nothing beyond os/sys before an audit is due
        import contextlib

        with contextlib.suppress(Exception):  # nowhere left to say it
            _write_utf8(sys.stderr, result.stderr)
    _silence_broken_streams()
    return result.exit_code


def _run_stop(host: str, text: str, profile: str | None, refused: str = "") -> int:
    """The full Stop hook under one deadline (:mod:`jev.deadline`; issue 23 item 1).

    A watchdog thread writes the answer offered so far (the counted block, or a notice)
    and ends the process with exit 0 when the deadline passes first; otherwise the
    answer is written here, and only then are the audit's records exported to an OTLP
    collector (bounded by the time left), so a slow collector never delays or loses
    the block.
    """
    # lazy: the hook's fast path: nothing beyond os/sys before an audit is due
    import threading
    from dataclasses import replace

    from jev import deadline
    from jev.hosts.hook import report_undelivered, run_stop_hook

    deadline.begin()
    out_lock = threading.Lock()
    delivered: list[bool] = []
    finished = threading.Event()  # set when this stop is over: the watchdog ends

    def watchdog() -> None:
        while not finished.is_set():
            left = deadline.seconds()
            if left is None or left <= 0:
                break
            finished.wait(min(left, 0.5))
        if finished.is_set() or not out_lock.acquire(timeout=1.0) or delivered:
            return  # the main thread is writing the answer right now, or has
        stdout = deadline.offered()
        try:
            if stdout:
                try:
                    os.write(1, stdout.encode("utf-8"))
                except OSError:  # the host is gone: said in the log below
                    stdout = ""
            _log_deadline(host, stdout)
        finally:
            os._exit(0)

    guard = threading.Thread(target=watchdog, name="jev-deadline", daemon=True)
    guard.start()
    try:
        result = run_stop_hook(host, text, profile=profile, refused=refused)
        with out_lock:
            delivered.append(True)
            if result.stdout:
                try:
                    _write_utf8(sys.stdout, result.stdout)
                except Exception as exc:  # the host is gone or the pipe is closed
                    extra = report_undelivered(result, exc)
                    result = replace(result, stderr=result.stderr + extra)
        stderr = result.stderr
        if result.exports:
            # lazy: the exporter only when records were committed
            from jev.telemetry.export import export_records

            left = deadline.seconds()
            notice = export_records(result.exports, seconds=None if left is None else left)
            if notice:
                stderr += notice + "\n"
    finally:
        finished.set()
        deadline.clear()  # in-process callers (tests) run later code without it
    if stderr:
        # lazy: the hook's fast path: nothing beyond os/sys before an audit is due
        import contextlib

        with contextlib.suppress(Exception):  # nowhere left to say it
            _write_utf8(sys.stderr, stderr)
    _silence_broken_streams()
    return result.exit_code


def _log_fast_skip(host: str, text: str, reason: str, ms: float) -> None:
    """The ``stop`` line of a stop the fast path skipped (:mod:`jev.log`; never raises)."""
    try:
        import json

        from jev import log

        data = json.loads(text)
        session = data.get("session_id") if isinstance(data, dict) else None
        log.emit(
            "stop",
            host=host,
            session=str(session or "") or None,
            path="fast",
            outcome="skipped",
            reason=reason,
            ms=ms,
        )
    except Exception:  # a log never changes a hook's answer
        return


def _log_deadline(host: str, stdout: str) -> None:
    """Record in ``hook-errors.jsonl`` that the stop passed its deadline (never raises)."""
    try:
        from jev.base.errors import JevError
        from jev.hosts.hook import log_failure

        what = "the answer decided so far was written" if stdout else "nothing was written"
        log_failure(
            host,
            "",
            JevError(
                "the stop passed its deadline before the hook finished (a judge, the store "
                "or the telemetry collector did not answer in time); "
                + what
                + " (the counted supplement, when one was decided); if the store was "
                "committing a supplement at that moment, it may be counted without being "
                "delivered"
            ),
        )
    except BaseException:  # the deadline passed: nothing may delay the exit
        return


def _silence_broken_streams() -> None:
    """Point a closed, full or broken stdout/stderr at /dev/null, so the
    interpreter's exit-time flush cannot turn into a non-zero exit."""
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is None:
                continue
            stream.flush()
        except (OSError, ValueError):
            try:
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, stream.fileno())
                os.close(devnull)
            except (OSError, ValueError):
                pass


def _write_utf8(stream: TextIO | None, text: str) -> None:
    """Write ``text`` to ``stream`` as UTF-8 bytes, whatever the locale's encoding.

    A Windows pipe's code page (``cp1252``) cannot encode an emoji or ``→``; writing
    the bytes to the binary buffer avoids that (issue 8, "deliver, then count").

    Raises:
        OSError: the stream cannot be written (closed pipe).
    """
    if stream is None:
        raise OSError("no stream to write the hook answer to")
    data = text.encode("utf-8")
    buffer = getattr(stream, "buffer", None)
    if buffer is None:
        stream.write(text)
        stream.flush()
        return
    stream.flush()
    buffer.write(data)
    buffer.flush()
