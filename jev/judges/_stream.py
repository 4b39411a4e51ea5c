"""Bounded reading of a judge's HTTP response and the whole-call deadline (design.md §11).

Private to :mod:`jev.judges._http`: :class:`BoundedDecoder` decodes a body chunk by
chunk without ever holding more than its limit (gzip and deflate included), and
:class:`Deadline` ends a call at its deadline even while a read is blocked (a server
dripping one byte a second would otherwise renew httpx's per-read timeout forever).
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
import zlib
from collections.abc import Mapping
from typing import Any

import httpx

from jev.base import safejson

__all__ = [
    "BadEncoding",
    "BoundedDecoder",
    "Deadline",
    "DeadlinePassed",
    "Reply",
    "TooLarge",
    "json_bytes",
]


def json_bytes(body: Mapping[str, Any]) -> bytes:
    """The request body as compact UTF-8 JSON; lone surrogates become U+FFFD."""
    text = json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return safejson.scrub_surrogates(text)[0].encode("utf-8")


class TooLarge(Exception):
    """Internal: the decoded body passed its byte limit."""


class BadEncoding(Exception):
    """Internal: the body's Content-Encoding is unknown or its data is corrupt."""


class BoundedDecoder:
    """Decodes a response body chunk by chunk and never holds more than ``limit`` bytes.

    ``Content-Encoding`` ``gzip``/``x-gzip``/``deflate``/``identity`` are decoded here
    (not by httpx, which inflates a whole network chunk at once): each inflate step
    asks zlib for at most the room left plus one byte, so a 1 GiB gzip bomb costs
    at most ``limit`` bytes of memory before it is refused.

    Args:
        encoding: the response's ``Content-Encoding`` header ("" = identity).
        limit: most decoded bytes accepted (bytes, >= 0).

    Raises (from :meth:`feed`/:meth:`finish`):
        TooLarge: more than ``limit`` decoded bytes.
        BadEncoding: an unsupported encoding, or corrupt compressed data.
    """

    __slots__ = ("_inflater", "_parts", "limit", "size")

    def __init__(self, encoding: str, limit: int) -> None:
        self.limit = limit
        self.size = 0
        self._parts: list[bytes] = []
        layers = [e.strip().lower() for e in encoding.split(",") if e.strip()]
        layers = [e for e in layers if e != "identity"]
        self._inflater: Any = None
        if len(layers) > 1:
            raise BadEncoding(f"Content-Encoding {encoding[:40]!r} (several layers)")
        if layers:
            if layers[0] in ("gzip", "x-gzip"):
                self._inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
            elif layers[0] == "deflate":
                self._inflater = _DeflateInflater()
            else:
                raise BadEncoding(f"Content-Encoding {layers[0][:40]!r} is not supported")

    def feed(self, data: bytes) -> None:
        """Decode one raw chunk; raise ``TooLarge`` past the limit."""
        if self._inflater is None:
            self._add(data)
            return
        try:
            out = self._inflater.decompress(data, self.limit - self.size + 1)
            self._add(out)
            while self._inflater.unconsumed_tail:
                out = self._inflater.decompress(
                    self._inflater.unconsumed_tail, self.limit - self.size + 1
                )
                if not out:
                    break
                self._add(out)
        except zlib.error as exc:
            raise BadEncoding(f"corrupt compressed body ({exc})") from None

    def finish(self) -> bytes:
        """The whole decoded body."""
        if self._inflater is not None:
            try:
                self._add(self._inflater.flush(self.limit - self.size + 1))
            except zlib.error as exc:
                raise BadEncoding(f"corrupt compressed body ({exc})") from None
        return b"".join(self._parts)

    def partial(self) -> bytes:
        """What was decoded so far (for an error body cut at its limit)."""
        return b"".join(self._parts)

    @property
    def full(self) -> bool:
        """Whether the limit is reached (for bodies read only as an excerpt)."""
        return self.size >= self.limit

    def _add(self, data: bytes) -> None:
        if not data:
            return
        if self.size + len(data) > self.limit:
            raise TooLarge
        self.size += len(data)
        self._parts.append(data)


class _DeflateInflater:
    """``deflate`` is zlib-wrapped by the RFC but raw in the wild: accept both."""

    def __init__(self) -> None:
        self._first = True
        self._obj: Any = zlib.decompressobj()

    @property
    def unconsumed_tail(self) -> bytes:
        tail: bytes = self._obj.unconsumed_tail
        return tail

    def decompress(self, data: bytes, max_length: int) -> bytes:
        if self._first:
            self._first = False
            try:
                return bytes(self._obj.decompress(data, max_length))
            except zlib.error:
                self._obj = zlib.decompressobj(-zlib.MAX_WBITS)
        return bytes(self._obj.decompress(data, max_length))

    def flush(self, max_length: int) -> bytes:
        del max_length
        return bytes(self._obj.flush())


class Reply:
    """A finished HTTP exchange: status, headers and the (bounded) decoded body."""

    __slots__ = ("content", "headers", "status_code")

    def __init__(self, status_code: int, headers: httpx.Headers, content: bytes) -> None:
        self.status_code = status_code
        self.headers = headers
        self.content = content

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", errors="replace")


class DeadlinePassed(Exception):
    """Internal: the call's deadline passed between two reads."""


class Deadline:
    """The whole-call deadline of one HTTP exchange.

    httpx applies its timeout per operation, so a server sending one byte a second
    keeps a call alive forever. This watchdog learns the call's socket through
    httpcore's ``trace`` extension (``connection.connect_tcp.complete``) and, when
    ``seconds`` have passed, shuts it down: the blocked read returns at once and the
    caller reports ``timeout``. Connections are never reused (keep-alive is off), so
    every call has its own socket to watch.

    Args:
        seconds: the whole call's budget (seconds, > 0).
    """

    __slots__ = ("_lock", "_socks", "_timer", "ends_at", "fired")

    def __init__(self, seconds: float) -> None:
        self.ends_at = time.monotonic() + seconds
        self.fired = False
        self._socks: list[socket.socket] = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._fire)
        self._timer.daemon = True

    def __enter__(self) -> Deadline:
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._timer.cancel()

    def remaining(self) -> float:
        """Seconds left (never below 0.001, httpx refuses a zero timeout)."""
        return max(self.ends_at - time.monotonic(), 0.001)

    def check(self) -> None:
        """Raise :class:`DeadlinePassed` when the deadline has passed."""
        if self.fired or time.monotonic() >= self.ends_at:
            raise DeadlinePassed

    def trace(self, event: str, info: Mapping[str, Any]) -> None:
        """httpcore trace hook: remember the socket of each new connection."""
        if event not in ("connection.connect_tcp.complete", "connection.start_tls.complete"):
            return
        stream = info.get("return_value")
        sock = stream.get_extra_info("socket") if stream is not None else None
        if sock is None:
            return
        with self._lock:
            self._socks.append(sock)
            late = self.fired
        if late:
            self._shut(sock)

    def _fire(self) -> None:
        with self._lock:
            self.fired = True
            socks = list(self._socks)
        for sock in socks:
            self._shut(sock)

    @staticmethod
    def _shut(sock: socket.socket) -> None:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)
