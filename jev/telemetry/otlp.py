"""One bounded OTLP/HTTP POST, stdlib only (design.md §11 "the export is bounded"; issue 23).

The OpenTelemetry SDK's exporter posts with ``requests``: its timeout bounds each socket
read, not the call, so a collector answering one byte a second kept a Stop hook running
past 120 s; and it reads the whole response body, so a collector sending an endless
body took the hook to 5.4 GB. This module sends the encoded spans itself, with:

* **one hard time bound** for the whole call — name resolution (in a daemon thread,
  abandoned at the bound), connect, TLS handshake, send and receive: every socket
  operation gets the time left, and a timer shuts the socket down at the bound, which
  wakes any read or write still waiting;
* **a size bound** on what is read back: the status line and headers, at most
  :data:`MAX_REPLY_BYTES`; the body is never read (OTLP success is the 2xx status).

:func:`post` raises :class:`OtlpSendError` with a short reason; the caller
(:mod:`jev.telemetry.export`) turns it into its one-line notice.
"""

from __future__ import annotations

import contextlib
import os
import socket
import ssl
import threading
import time
import urllib.parse
from collections.abc import Mapping

__all__ = ["MAX_REPLY_BYTES", "OtlpSendError", "otlp_headers", "post"]

#: Most bytes of the collector's answer read (status line and headers), 64 KiB.
MAX_REPLY_BYTES = 64 * 1024


class OtlpSendError(Exception):
    """The spans were not accepted: ``str(exc)`` says why (timeout, refused, HTTP 503 …)."""


def otlp_headers(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The extra request headers of ``OTEL_EXPORTER_OTLP_HEADERS`` and
    ``OTEL_EXPORTER_OTLP_TRACES_HEADERS`` (the latter wins per key): ``k=v,k2=v2``,
    URL-encoded values, as the OpenTelemetry specification defines. Malformed
    entries are skipped."""
    env = os.environ if environ is None else environ
    headers: dict[str, str] = {}
    for name in ("OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS"):
        for part in env.get(name, "").split(","):
            key, sep, value = part.partition("=")
            key = key.strip()
            if not sep or not key or any(c in key for c in "\r\n:"):
                continue
            value = urllib.parse.unquote(value.strip())
            if "\r" in value or "\n" in value:
                continue
            headers[key] = value
    return headers


def _resolve(host: str, port: int, seconds: float) -> tuple[object, ...]:
    """The first address of ``host`` within ``seconds`` (the resolver runs in a daemon
    thread that is abandoned at the bound)."""
    found: list[object] = []

    def run() -> None:
        try:
            found.append(socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0])
        except OSError as exc:
            found.append(exc)

    thread = threading.Thread(target=run, name="jev-otlp-dns", daemon=True)
    thread.start()
    thread.join(max(seconds, 0.0))
    if not found:
        raise OtlpSendError(f"the name {host} did not resolve within the bound")
    if isinstance(found[0], OSError):
        raise OtlpSendError(f"the name {host} does not resolve ({found[0]})")
    info = found[0]
    assert isinstance(info, tuple)
    return info


def post(url: str, body: bytes, headers: Mapping[str, str], seconds: float) -> int:
    """POST ``body`` to ``url`` and return the HTTP status (2xx), all within ``seconds``.

    Args:
        url: ``http://`` or ``https://`` OTLP traces URL.
        body: the encoded request (protobuf).
        headers: extra headers (``Content-Type`` included by the caller).
        seconds: the hard bound for the whole call (> 0).

    Raises:
        OtlpSendError: not accepted within the bound: the reason (timeout, connection
            refused, TLS failure, an answer that is not HTTP or over
            :data:`MAX_REPLY_BYTES` without the end of its headers, a non-2xx status).
    """
    end = time.monotonic() + seconds
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise OtlpSendError(f"not an http(s) URL: {url}")
    host = parts.hostname
    port = parts.port or (443 if parts.scheme == "https" else 80)
    family, kind, proto, _, address = _resolve(host, port, end - time.monotonic())
    sock = socket.socket(family, kind, proto)  # type: ignore[arg-type]
    stopper = threading.Timer(max(end - time.monotonic(), 0.0), _shut, (sock,))
    stopper.daemon = True
    stopper.start()
    try:
        return _exchange(sock, parts, host, port, address, body, headers, end)
    except (OSError, ValueError) as exc:
        if time.monotonic() >= end - 0.01:
            raise OtlpSendError(f"no answer within {seconds:g} s") from None
        raise OtlpSendError(f"{type(exc).__name__}: {exc}") from None
    finally:
        stopper.cancel()
        _shut(sock)
        sock.close()


def _shut(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)


def _left(end: float) -> float:
    left = end - time.monotonic()
    if left <= 0:
        raise TimeoutError("the bound passed")
    return left


def _exchange(
    sock: socket.socket,
    parts: urllib.parse.SplitResult,
    host: str,
    port: int,
    address: object,
    body: bytes,
    headers: Mapping[str, str],
    end: float,
) -> int:
    sock.settimeout(_left(end))
    sock.connect(address)  # type: ignore[arg-type]
    conn: socket.socket = sock
    if parts.scheme == "https":
        context = ssl.create_default_context(
            cafile=os.environ.get("OTEL_EXPORTER_OTLP_CERTIFICATE") or None
        )
        conn = context.wrap_socket(sock, server_hostname=host, do_handshake_on_connect=False)
        conn.settimeout(_left(end))
        conn.do_handshake()
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    lines = [
        f"POST {path} HTTP/1.1",
        f"Host: {f'[{host}]' if ':' in host else host}:{port}",
        f"Content-Length: {len(body)}",
        "Connection: close",
    ]
    lines += [f"{k}: {v}" for k, v in headers.items()]
    head = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1", "replace")
    conn.settimeout(_left(end))
    conn.sendall(head + body)
    reply = b""
    while b"\r\n\r\n" not in reply and b"\n\n" not in reply:
        if len(reply) >= MAX_REPLY_BYTES:
            raise OtlpSendError(
                f"the collector's answer has no end of headers in {len(reply)} bytes"
            )
        conn.settimeout(_left(end))
        chunk = conn.recv(min(16384, MAX_REPLY_BYTES - len(reply)))
        if not chunk:
            break
        reply += chunk
    status_line = reply.split(b"\n", 1)[0].decode("latin-1").strip()
    fields = status_line.split()
    if len(fields) < 2 or not fields[0].startswith("HTTP/") or not fields[1].isdigit():
        raise OtlpSendError(f"the collector did not answer HTTP ({status_line[:80]!r})")
    status = int(fields[1])
    if not 200 <= status < 300:
        raise OtlpSendError(f"HTTP {status}")
    return status
