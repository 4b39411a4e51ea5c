"""``jev hook HOOK [--profile P]``: the command a host runs at every stop (design.md §12).

Dispatched by :func:`jev.cli.main` before argparse is imported (the fast path). The
hook names are the registered hosts' (:func:`jev.hosts.registry.hook_names`): each
host's own name runs its stop hook (``claude-code``, ``codex``, ``gemini``, ``cursor``
…); ``claude-code-session-start`` runs Claude Code's ``SessionStart`` hook.

The hook JSON is read from stdin; the answer goes to stdout, as UTF-8 bytes whatever
the locale, in the host's contract (the host's adapter, :mod:`jev.hosts.base`). The
exit code is 0 for every outcome, failures included (fail open). Only a wrong command
line (unknown hook name or option) exits 1 — never 2, which Claude Code and Codex
would treat as "block the stop".
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
    return f"usage: jev hook {{{names}}} [--profile NAME]  (reads the hook JSON on stdin)"


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
        else:
            raise ValueError(f"unknown argument {head!r}")
    return name, profile or None


#: Most bytes of hook stdin read (64 MiB); a longer stdin is not a hook JSON.
MAX_STDIN_BYTES = 64 << 20


def _read_stdin() -> str:
    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:  # no stdin at all (closed by the host)
        return sys.stdin.read(MAX_STDIN_BYTES) if sys.stdin else ""
    data: bytes = stream.read(MAX_STDIN_BYTES + 1)
    if len(data) > MAX_STDIN_BYTES:
        return ""  # the full hook reports "empty stdin" and lets the stop through
    return data.decode("utf-8", errors="replace")


def main(argv: list[str]) -> int:
    """Run ``jev hook …`` with ``argv`` (the words after ``hook``); return the exit code.

    Writes the host answer to stdout and diagnostics to stderr. Returns 0 for every
    hook outcome; 1 only for a wrong command line. Everything after the command line
    — reading stdin, the fast path, the full hook, writing the answer — runs inside
    one fail-open guard (design.md §11, §12): any exception, ``RecursionError`` and
    ``MemoryError`` included, ends as exit 0 with a one-line notice on stderr, and a
    closed or full stdout/stderr never turns into a non-zero exit.
    """
    if argv[:1] in (["-h"], ["--help"]):
        print(_usage())
        return 0
    try:
        name, profile = _parse(list(argv))
    except ValueError as exc:
        print(f"jev hook: {exc}; {_usage()}", file=sys.stderr)
        return 1
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
    try:
        text = _read_stdin()
    except (OSError, ValueError, MemoryError):
        text = ""
    # lazy: the hook's fast path: nothing beyond os/sys before an audit is due
    from jev.hosts.registry import resolve_hook

    host, role = resolve_hook(name) or (name, "stop")
    if role == "stop":
        # lazy: the hook's fast path: nothing beyond os/sys before an audit is due
        from jev.hosts.fastpath import quick_skip

        if quick_skip(host, text, profile):
            return 0  # certainly nothing to do (see jev.hosts.fastpath)
        # lazy: the hook's fast path: nothing beyond os/sys before an audit is due
        from jev.hosts.hook import run_stop_hook

        result = run_stop_hook(host, text, profile=profile)
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
