"""One deadline for the whole Stop hook (issue 23 item 1; design.md §6, §11, §12). Stdlib only.

A host kills a hook that outlives its ``timeout`` (the one ``jev install`` wrote:
:func:`jev.hosts.install.hook_timeout_s`), and a block the hook had counted would then
be lost. So one stop has one deadline, and every outside call the stop makes takes at
most the time left of it:

* the judge (each call's ``judge.timeout_s``, its retries and their waits: the host
  timeout is sized for them, :func:`hook_seconds`);
* the store (SQLite's busy timeout; PostgreSQL's statement, lock and idle timeouts
  and a socket deadline, :mod:`jev.store.postgres`);
* telemetry (:func:`jev.telemetry.export.export_records`, after the answer is written);
* and, last, a watchdog (:mod:`jev.cli.hook_cmd`) that writes the answer offered so
  far — the counted block, once there is one, else a notice — and ends the process
  at the deadline, whatever is still waiting.

The deadline is process-wide (one hook process is one stop): :func:`begin` starts it,
:func:`limit` sets its length once the profile is known, :func:`left` tells a part how
long it may take. Outside a hook (``jev audit``, the API) no deadline is set and
:func:`left` returns the part's own bound.
"""

from __future__ import annotations

import math
import os
import threading
import time

__all__ = [
    "ENV",
    "RESERVE_S",
    "begin",
    "clear",
    "hook_seconds",
    "left",
    "limit",
    "offer",
    "offered",
    "seconds",
]

#: Environment variable naming the host's hook timeout in seconds, when it is not the
#: one ``jev install`` wrote (a hand-edited host configuration; tests).
ENV = "JEV_HOOK_TIMEOUT_S"
#: Seconds kept back from the host's timeout to write the answer and exit.
RESERVE_S = 2.0
#: The hook timeout assumed before the profile is read (the shipped defaults' 210 s).
DEFAULT_HOOK_S = 210.0

_lock = threading.Lock()
_state: dict[str, object] = {}


def hook_seconds(timeout_s: float, retries: int, retry_wait_s: float, margin_s: float) -> float:
    """The host's hook timeout in seconds: :data:`ENV` when set to a positive number,
    else what ``jev install`` writes for these judge settings (every judge call its
    full time, one capped wait per retry, plus the margin), rounded up."""
    raw = os.environ.get(ENV, "").strip()
    try:
        value = float(raw) if raw else 0.0
    except ValueError:
        value = 0.0
    if value > 0 and math.isfinite(value):
        return value
    return float(math.ceil(timeout_s * (retries + 1) + retry_wait_s * retries + margin_s))


def begin(now: float | None = None) -> None:
    """Start the stop's deadline clock (the hook's first instruction); :func:`limit`
    sets its length (default :data:`DEFAULT_HOOK_S` or :data:`ENV`)."""
    with _lock:
        _state.clear()
        _state["t0"] = time.monotonic() if now is None else now
        raw = os.environ.get(ENV, "").strip()
        try:
            host_s = float(raw) if raw else DEFAULT_HOOK_S
        except ValueError:
            host_s = DEFAULT_HOOK_S
        if not (host_s > 0 and math.isfinite(host_s)):
            host_s = DEFAULT_HOOK_S
        _state["end"] = float(_state["t0"]) + max(host_s - RESERVE_S, 0.5)  # type: ignore[arg-type]


def limit(host_s: float) -> None:
    """Set the deadline to the host's hook timeout ``host_s`` (seconds from
    :func:`begin`) less :data:`RESERVE_S`; no effect before :func:`begin`."""
    with _lock:
        t0 = _state.get("t0")
        if isinstance(t0, float):
            _state["end"] = t0 + max(host_s - RESERVE_S, 0.5)


def seconds() -> float | None:
    """Seconds left until the deadline (may be ≤ 0), or ``None`` when none is set."""
    end = _state.get("end")
    if not isinstance(end, float):
        return None
    return end - time.monotonic()


def left(bound: float, floor: float = 0.05) -> float:
    """The time a part may take: ``bound`` (its own limit, seconds), cut to the time
    left of the deadline when one is set, never below ``floor``."""
    remaining = seconds()
    if remaining is None:
        return bound
    return max(min(bound, remaining), floor)


def offer(stdout: str) -> None:
    """The answer the watchdog writes if the deadline passes before the hook writes its
    own: a notice at first, the counted block as soon as one is decided."""
    _state["offer"] = stdout


def offered() -> str:
    """The answer last :func:`offer`-ed ("" for none)."""
    value = _state.get("offer")
    return value if isinstance(value, str) else ""


def clear() -> None:
    """Forget the deadline (tests running several stops in one process)."""
    with _lock:
        _state.clear()
