"""Jev's own log: why a stop was skipped, audited or refused (issue 24 item 4; design.md §11).

Off unless ``JEV_LOG`` is set (or ``jev hook … --debug``, which sets it to ``debug``
for that process). Then one line per event is appended to
``<jev_home>/logs/jev.log`` (:func:`log_path`), rotated at :data:`MAX_BYTES` bytes
(``JEV_LOG_MAX_BYTES`` overrides) with :data:`BACKUPS` older files
(``jev.log.1`` … ``jev.log.3``), so the folder stays under about
``(BACKUPS + 1) × MAX_BYTES`` bytes.

Levels (``JEV_LOG``): ``info`` — one ``stop`` line per hook stop and one ``judge``
line per judge call; ``debug`` — also one ``step`` line as each step of a stop ends
(``gate``, ``read_turn``, ``claim``, ``render``, ``evidence``, ``budget``,
``judge``, ``checks``, ``decide``, ``record``; the ``stop`` line sums them as
``<step>_ms``). ``off``/``0``/``no``/``false``/empty: nothing; any other value is
read as ``info``.

Line format (UTF-8), shown on two lines here, one line in the file::

    2026-12-01T22:10:00.123Z INFO stop pid=4242 host=claude-code session=s1 \
        path=fast outcome=skipped reason="no Todo use in this turn" ms=0.4

a UTC time with milliseconds, the level, the event (``stop``, ``judge`` or
``step``), then ``key=value`` fields, the process id first; a value with a space, a
quote, ``=`` or nothing in it is a JSON string; milliseconds have one decimal.
:func:`parse_line` reads a line back. Fields never hold a key or the material's
text: callers pass Jev's own words (reasons, kinds, names, counts, milliseconds);
every string is still one-lined, cut to :data:`MAX_VALUE_CHARS` characters and
scrubbed of the values of key-like environment variables (``*_API_KEY``,
``*_TOKEN``, ``*_SECRET``, ``*_KEY``, via :func:`jev.base.redaction.redact_secrets`).

Built on the stdlib ``logging`` with a ``RotatingFileHandler``: size-bounded
rotation and per-record formatting without a dependency or a hand-made rotation.
``logging`` costs several milliseconds to import, so it is imported only when a line
is written; without ``JEV_LOG`` the hook's fast path does not import this module at
all. Never raises: a log that cannot be written (a read-only folder, a full disk) is
dropped silently and never changes a hook's exit code or output. Rotation is per
process; two hook processes rotating at the same moment may lose one rotated file's
worth of lines (a debug log; the records in the store are the truth).
"""

from __future__ import annotations

import json
import os
import time

from jev.base.paths import jev_home_str

TYPE_CHECKING = False  # no ``typing`` import: this module may load on the fast path
if TYPE_CHECKING:
    from collections.abc import Iterator
    from logging import Logger
    from typing import Any

__all__ = [
    "BACKUPS",
    "ENV",
    "MAX_BYTES",
    "emit",
    "enabled",
    "level",
    "log_path",
    "parse_line",
    "recent_skips",
    "start_stop",
    "step",
    "steps_so_far",
    "timed",
]

#: Environment variable switching the log on: ``debug``, ``info`` or off.
ENV = "JEV_LOG"
#: Environment variable overriding :data:`MAX_BYTES` (bytes, >= 1024).
MAX_BYTES_ENV = "JEV_LOG_MAX_BYTES"
#: Size at which ``jev.log`` is rotated (bytes).
MAX_BYTES = 1 << 20
#: Rotated files kept (``jev.log.1`` … ``jev.log.3``).
BACKUPS = 3
#: Longest string value written (characters; longer ones end with ``…``).
MAX_VALUE_CHARS = 300

DEBUG = 10
INFO = 20
_NAMES = {DEBUG: "DEBUG", INFO: "INFO"}
_OFF = ("", "0", "off", "no", "false", "none")
_KEYLIKE = ("_API_KEY", "_TOKEN", "_SECRET", "_KEY", "_PASSWORD")

#: The current stop's step timings (``{step: ms}``), reset by :func:`start_stop`.
_steps: dict[str, float] = {}
#: ``(path, logger)`` of the configured file logger (reconfigured when the home moves).
_configured: list[Any] = []


def level() -> int | None:
    """The level from ``JEV_LOG``: 10 (debug), 20 (info) or ``None`` (off)."""
    raw = os.environ.get(ENV, "").strip().lower()
    if raw in _OFF:
        return None
    return DEBUG if raw in ("debug", "2", "trace") else INFO


def enabled(at: int = INFO) -> bool:
    """Whether a line of level ``at`` (10 debug, 20 info) is written."""
    current = level()
    return current is not None and current <= at


def log_path() -> str:
    """``<jev_home>/logs/jev.log`` (the folder is created on the first line written)."""
    return os.path.join(jev_home_str(), "logs", "jev.log")


# ----------------------------------------------------------------------- formatting


def _secrets() -> list[str]:
    return sorted(
        (
            value
            for name, value in os.environ.items()
            if len(value) >= 8 and name.upper().endswith(_KEYLIKE)
        ),
        key=len,
        reverse=True,
    )


def _value(value: object, secrets: list[str]) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.1f}"
    if isinstance(value, int):
        return str(value)
    text = " ".join(str(value).split())
    if secrets:
        # lazy: only when a key-like variable is set
        from jev.base.redaction import redact_secrets

        text = redact_secrets(text, secrets, "[REDACTED]")
    if len(text) > MAX_VALUE_CHARS:
        text = text[: MAX_VALUE_CHARS - 1] + "…"
    if not text or any(c in text for c in ' "=\\'):
        return json.dumps(text, ensure_ascii=False)
    return text


def format_fields(event: str, fields: dict[str, Any]) -> str:
    """``event key=value …`` (fields whose value is ``None`` are left out)."""
    secrets = _secrets()
    parts = [event]
    for key, value in fields.items():
        if value is None:
            continue
        parts.append(f"{key}={_value(value, secrets)}")
    return " ".join(parts)


def parse_line(line: str) -> dict[str, str] | None:
    """A log line as ``{"time", "level", "event", <fields>…}`` (strings), or ``None``
    for a line that is not one of Jev's."""
    head = line.rstrip("\n").split(" ", 3)
    if len(head) < 3 or not head[0].endswith("Z") or head[1] not in _NAMES.values():
        return None
    out = {"time": head[0], "level": head[1], "event": head[2]}
    rest = head[3] if len(head) > 3 else ""
    decoder = json.JSONDecoder()
    i = 0
    while i < len(rest):
        eq = rest.find("=", i)
        if eq < 0:
            return None
        key = rest[i:eq]
        if rest[eq + 1 : eq + 2] == '"':
            try:
                value, end = decoder.raw_decode(rest, eq + 1)
            except ValueError:
                return None
            out[key] = str(value)
        else:
            end = rest.find(" ", eq + 1)
            end = len(rest) if end < 0 else end
            out[key] = rest[eq + 1 : end]
        i = end + 1
    return out


# ----------------------------------------------------------------------- writing


def _logger() -> Logger:
    # lazy: logging costs milliseconds; only once a line is written (never on a silent path)
    import logging
    import logging.handlers

    path = log_path()
    if _configured and _configured[0] == path:
        logger: Logger = _configured[1]
        return logger
    logger = logging.getLogger("jev.log")
    logger.propagate = False
    for old in list(logger.handlers):
        logger.removeHandler(old)
        old.close()
    try:
        size = max(1024, int(os.environ.get(MAX_BYTES_ENV, "") or MAX_BYTES))
    except ValueError:
        size = MAX_BYTES

    class QuietRotatingHandler(logging.handlers.RotatingFileHandler):
        """Drops a line it cannot write, or a rotation that fails (no stderr)."""

        def handleError(self, record: logging.LogRecord) -> None:
            return

    handler: logging.Handler
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        handler = QuietRotatingHandler(
            path, maxBytes=size, backupCount=BACKUPS, encoding="utf-8", delay=True
        )
    except (OSError, ValueError):  # a folder that cannot be made: lines are dropped
        handler = logging.NullHandler()
    formatter = logging.Formatter(
        "%(asctime)s.%(msecs)03dZ %(levelname)s %(message)s", "%Y-%m-%dT%H:%M:%S"
    )
    formatter.converter = time.gmtime
    handler.setFormatter(formatter)
    logger.addHandler(handler)
    logger.setLevel(DEBUG)
    _configured[:] = [path, logger]
    return logger


def emit(event: str, at: int = INFO, **fields: Any) -> None:
    """Write one ``event`` line with ``fields`` when the log is on at level ``at``.

    Args:
        event: ``stop``, ``judge`` or ``step``.
        at: 20 (info) or 10 (debug).
        fields: Jev's own words only (never a key, never the material's text).

    Never raises.
    """
    try:
        if not enabled(at):
            return
        _logger().log(at, format_fields(event, {"pid": os.getpid(), **fields}))
    except Exception:  # a log never fails what it describes
        return


def start_stop() -> None:
    """Begin a stop: forget the previous stop's step timings."""
    _steps.clear()


def step(name: str, ms: float, **fields: Any) -> None:
    """One step of the current stop took ``ms`` milliseconds: kept for the ``stop``
    line (:func:`steps_so_far`) and, at debug level, written as a ``step`` line."""
    if level() is None:
        return
    _steps[name] = _steps.get(name, 0.0) + ms
    emit("step", DEBUG, step=name, ms=ms, **fields)


def steps_so_far() -> dict[str, float]:
    """``{step: ms}`` of the current stop, in the order the steps ran."""
    return dict(_steps)


class timed:
    """``with timed("render"): …`` reports the block's time as :func:`step` ``render``
    (a no-op when the log is off)."""

    __slots__ = ("_name", "_start")

    def __init__(self, name: str) -> None:
        self._name = name
        self._start = 0.0

    def __enter__(self) -> timed:
        self._start = time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        step(self._name, (time.perf_counter() - self._start) * 1000.0)


# ----------------------------------------------------------------------- reading


def _lines_newest_first(path: str) -> Iterator[str]:
    for name in [path, *(f"{path}.{n}" for n in range(1, BACKUPS + 1))]:
        try:
            with open(name, encoding="utf-8", errors="replace") as handle:
                lines = handle.readlines()
        except OSError:
            continue
        yield from reversed(lines)


def recent_skips(per_host: int = 3, path: str | None = None) -> dict[str, list[dict[str, str]]]:
    """The last ``per_host`` skip reasons per host from the log (newest first).

    Returns:
        ``{host: [{"time", "reason", "path"}, …]}`` from the ``stop`` lines with
        ``outcome=skipped``; ``{}`` when there is no log. Never raises.
    """
    found: dict[str, list[dict[str, str]]] = {}
    try:
        for line in _lines_newest_first(path or log_path()):
            entry = parse_line(line)
            if not entry or entry["event"] != "stop" or entry.get("outcome") != "skipped":
                continue
            host = entry.get("host", "")
            kept = found.setdefault(host, [])
            if len(kept) < per_host:
                kept.append(
                    {
                        "time": entry["time"],
                        "reason": entry.get("reason", ""),
                        "path": entry.get("path", ""),
                    }
                )
    except Exception:  # a damaged log says nothing
        return found
    return found
