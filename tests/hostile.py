"""A hostile "judge" server on 127.0.0.1 for the adversarial suite (issue 11).

Unlike :mod:`tests.fakeserver` (a well-behaved provider), this server speaks raw
HTTP/1.1 over a socket so it can misbehave the ways a real remote server can::

    with HostileServer("endless") as server:
        ... judge base_url = server.base ...

Modes (``HostileServer.MODES``):

=================  ====================================================================
``endless``        200, chunked, 64 KiB chunks without end (up to 3 GiB)
``gzip-bomb``      200, ``Content-Encoding: gzip``, ~1 MiB expanding to 1 GiB of spaces
``drip-headers``   the status line and headers one byte per second, never finished
``drip-body``      headers at once, then the body one byte per second
``huge-line``      200, one 8 MiB line without a newline (Content-Length given)
``deep``           200, a JSON body nested 100,000 deep
``dup-choices``    200, an OpenAI body with ``"choices"`` twice (the second says complete)
``wrong-type``     200, ``text/html`` page instead of JSON
``redirect``       307 to another host
``echo-key``       200, a valid completion whose content and model echo the key
                   in transformed forms (see :func:`key_forms`)
=================  ====================================================================

Each connection is served by its own daemon thread; a client hanging up ends it.
"""

from __future__ import annotations

import json
import select
import socket
import struct
import threading
import time
import zlib
from typing import Any, Self

__all__ = ["HostileServer", "gzip_bomb", "key_forms"]

GIB = 1024**3
_CHUNK = 64 * 1024
_bomb_cache: list[bytes] = []


def gzip_bomb(size: int = GIB) -> bytes:
    """A gzip member that inflates to ``size`` bytes of spaces (~1 MiB for 1 GiB).

    One 4 MiB block is deflated once (ending in a full flush, so the next block starts
    from a clean state) and its bytes repeated: building a 1 GiB bomb takes well under
    a second instead of deflating 1 GiB.
    """
    if size == GIB and _bomb_cache:
        return _bomb_cache[0]
    block = b" " * (4 * 1024 * 1024)
    if size % len(block):
        raise ValueError("size must be a multiple of 4 MiB")
    comp = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    deflated = comp.compress(block) + comp.flush(zlib.Z_FULL_FLUSH)
    count = size // len(block)
    crc = 0
    for _ in range(count):
        crc = zlib.crc32(block, crc)
    final = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS).flush()
    header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff"
    trailer = struct.pack("<II", crc, size & 0xFFFFFFFF)
    data = header + deflated * count + final + trailer
    if size == GIB:
        _bomb_cache.append(data)
    return data


def key_forms(key: str) -> list[str]:
    """The transformed forms a provider may echo a key in: whole, upper-cased,
    lower-cased, without its prefix, and split in two halves."""
    bare = key.split("-", 2)[-1] if key.count("-") >= 2 else key
    half = len(key) // 2
    return [key, key.upper(), key.lower(), bare, bare.upper(), key[:half], key[half:]]


def _openai(content: str, **extra: Any) -> dict[str, Any]:
    return {
        "id": "x",
        "object": "chat.completion",
        "model": extra.pop("model", "m"),
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}}],
        **extra,
    }


class HostileServer:
    """Serve one hostile ``mode`` on an ephemeral 127.0.0.1 port (context manager).

    Args:
        mode: one of :attr:`MODES`.
        key: the sentinel key to echo (``echo-key`` mode).
        reply: the verdict JSON text a valid completion carries.

    Attributes:
        base: the OpenAI-style base URL (``http://127.0.0.1:PORT/v1``).
        url: ``http://127.0.0.1:PORT``.
        connections: how many connections were accepted.
        sent_bytes: how many body bytes were sent in total.
        served_s: per finished connection, seconds from the end of the request to
            the client hanging up (or the answer ending).
    """

    MODES = (
        "endless",
        "gzip-bomb",
        "drip-headers",
        "drip-body",
        "huge-line",
        "deep",
        "dup-choices",
        "wrong-type",
        "redirect",
        "echo-key",
    )

    def __init__(
        self,
        mode: str,
        *,
        key: str = "",
        reply: str = '{"assessment": "complete", "focus": "none", "quote": ""}',
    ) -> None:
        if mode not in self.MODES:
            raise ValueError(f"unknown mode {mode!r}")
        self.mode = mode
        self.key = key
        self.reply = reply
        self.connections = 0
        self.sent_bytes = 0
        self.served_s: list[float] = []
        self._stop = threading.Event()
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(16)
        self._sock.settimeout(0.2)
        port = self._sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"
        self.base = self.url + "/v1"
        self._thread = threading.Thread(target=self._accept_loop, daemon=True)

    def __enter__(self) -> Self:
        if self.mode == "gzip-bomb":
            gzip_bomb()  # build before the clock starts
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=2)
        self._sock.close()

    # -- serving -------------------------------------------------------------------

    def _accept_loop(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self.connections += 1
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _read_request(self, conn: socket.socket) -> None:
        conn.settimeout(10)
        data = b""
        while b"\r\n\r\n" not in data:
            piece = conn.recv(65536)
            if not piece:
                return
            data += piece
        head, _, rest = data.partition(b"\r\n\r\n")
        length = 0
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value.strip())
        while len(rest) < length:
            piece = conn.recv(65536)
            if not piece:
                return
            rest += piece

    def _serve(self, conn: socket.socket) -> None:
        started = time.monotonic()
        try:
            self._read_request(conn)
            started = time.monotonic()
            getattr(self, "_mode_" + self.mode.replace("-", "_"))(conn)
        except OSError:
            pass  # the client hung up: that is the point
        finally:
            self.served_s.append(time.monotonic() - started)
            conn.close()

    def _send(self, conn: socket.socket, status: str, headers: dict[str, str], body: bytes) -> None:
        lines = [f"HTTP/1.1 {status}"] + [f"{k}: {v}" for k, v in headers.items()]
        lines.append(f"Content-Length: {len(body)}")
        conn.sendall(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
        self.sent_bytes += len(body)

    def _json(self, conn: socket.socket, text: str | bytes) -> None:
        body = text.encode() if isinstance(text, str) else text
        self._send(conn, "200 OK", {"Content-Type": "application/json"}, body)

    def _mode_endless(self, conn: socket.socket) -> None:
        conn.sendall(
            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n"
        )
        chunk = b"%x\r\n" % _CHUNK + b"[" * _CHUNK + b"\r\n"
        while self.sent_bytes < 3 * GIB and not self._stop.is_set():
            conn.sendall(chunk)
            self.sent_bytes += _CHUNK

    def _mode_gzip_bomb(self, conn: socket.socket) -> None:
        body = gzip_bomb()
        headers = {"Content-Type": "application/json", "Content-Encoding": "gzip"}
        self._send(conn, "200 OK", headers, body)

    def _drip(self, conn: socket.socket, data: bytes) -> None:
        for i in range(len(data)):
            if self._stop.is_set():
                return
            conn.sendall(data[i : i + 1])
            self.sent_bytes += 1
            # Wait a second, but notice at once when the client hangs up.
            readable, _, _ = select.select([conn], [], [], 1.0)
            if readable and not conn.recv(1):
                return

    def _mode_drip_headers(self, conn: socket.socket) -> None:
        self._drip(conn, b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n" + b"X" * 999)

    def _mode_drip_body(self, conn: socket.socket) -> None:
        body = json.dumps(_openai(self.reply)).encode()
        conn.sendall(
            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
            + f"Content-Length: {len(body)}\r\n\r\n".encode()
        )
        self._drip(conn, body)

    def _mode_huge_line(self, conn: socket.socket) -> None:
        self._json(conn, b'{"choices": "' + b"A" * (8 * 1024 * 1024) + b'"}')

    def _mode_deep(self, conn: socket.socket) -> None:
        self._json(conn, b'{"choices": ' + b"[" * 100_000 + b"]" * 100_000 + b"}")

    def _mode_dup_choices(self, conn: socket.socket) -> None:
        first = json.dumps(_openai('{"assessment": "omission"}')["choices"])
        second = json.dumps(_openai(self.reply)["choices"])
        self._json(conn, f'{{"model": "m", "choices": {first}, "choices": {second}}}')

    def _mode_wrong_type(self, conn: socket.socket) -> None:
        page = b"<!doctype html><html><body><h1>Welcome to nginx!</h1></body></html>"
        self._send(conn, "200 OK", {"Content-Type": "text/html"}, page)

    def _mode_redirect(self, conn: socket.socket) -> None:
        headers = {"Location": "http://attacker.invalid/v1/chat/completions"}
        self._send(conn, "307 Temporary Redirect", headers, b"")

    def _mode_echo_key(self, conn: socket.socket) -> None:
        forms = key_forms(self.key)
        reply = json.loads(self.reply)
        reply["quote"] = " / ".join(forms)
        body = _openai(json.dumps(reply), model="m-" + forms[1])
        body["system_fingerprint"] = forms[3]
        self._json(conn, json.dumps(body))
