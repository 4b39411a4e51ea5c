"""Bind and run the ``jev ui`` server (standard library WSGI, one thread per request).

Why the standard library: the pages are a handful of forms and tables rendered with
jinja2 (already a runtime dependency); :mod:`wsgiref` plus
:class:`socketserver.ThreadingMixIn` serves them without a new dependency, and a
framework would add nothing the token/CSRF checks in :mod:`jev.ui.app` need.

The server binds 127.0.0.1 unless told otherwise: the settings decide whether an agent
is sent back into its turn and which judge (and bill) it uses, so they are only for
the person at this machine. A non-loopback ``host`` is accepted only when given
explicitly, with a warning (:meth:`UiServer.warning`).

Bounds (issue 23 item 2): a connection has :data:`READ_DEADLINE` seconds in all to send
its request line, headers and form body (each read also times out after
:data:`IDLE_TIMEOUT`), so slow or idle connections ("slowloris") are dropped instead of
holding a thread for ever; the body is read before the application runs, so a slow
judge call is not cut by the deadline. At most :data:`MAX_CONNECTIONS` connections are
served at once: beyond that, the connection that has been sending its request the
longest is closed to make room (only when every one is already being answered is a new
one answered 503), and the listen backlog is
:data:`LISTEN_BACKLOG`, so a burst of concurrent requests is queued, not reset.
"""

from __future__ import annotations

import contextlib
import io
import ipaddress
import secrets
import socket
import socketserver
import threading
import time
from pathlib import Path
from typing import Any
from wsgiref.simple_server import ServerHandler, WSGIRequestHandler, WSGIServer

from jev.base.errors import UsageError
from jev.ui.app import MAX_FORM_BYTES, UiApp

__all__ = [
    "DEFAULT_HOST",
    "IDLE_TIMEOUT",
    "LISTEN_BACKLOG",
    "LOOPBACK_HOSTS",
    "MAX_CONNECTIONS",
    "READ_DEADLINE",
    "UiServer",
    "is_loopback",
]

#: Address bound when ``--host`` is not given.
DEFAULT_HOST = "127.0.0.1"
#: ``Host`` header names accepted when the server listens on a loopback address.
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
#: Seconds one read from a connection may wait for data before the connection is closed.
IDLE_TIMEOUT = 5.0
#: Seconds a connection has in all to send its request line, headers and form body.
READ_DEADLINE = 10.0
#: Connections served at once (beyond: the oldest still sending its request is closed).
MAX_CONNECTIONS = 256
#: The listen backlog (connections the kernel queues before ``accept``).
LISTEN_BACKLOG = 1024
_BUSY = (
    b"HTTP/1.0 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n"
    b"Connection: close\r\n\r\njev ui is serving too many connections; retry in a moment.\n"
)


def is_loopback(host: str) -> bool:
    """Whether ``host`` (an address or ``localhost``) is a loopback address."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class _Handler(WSGIRequestHandler):
    """wsgiref's handler without a log line per request, with the read bounds.

    The request line, headers and form body are read under the server's
    :data:`READ_DEADLINE` watchdog (each read also under :data:`IDLE_TIMEOUT`); the
    application then gets the body from memory.
    """

    timeout = IDLE_TIMEOUT
    server: _ThreadingServer

    def log_message(self, format: str, *args: Any) -> None:
        return

    def handle(self) -> None:
        """Read one request within the deadline, then run the WSGI application."""
        self.server.watch(self.connection)
        try:
            self.raw_requestline = self.rfile.readline(65537)
            if len(self.raw_requestline) > 65536:
                self.requestline = self.request_version = self.command = ""
                self.send_error(414)
                return
            if not self.parse_request():  # an error answer was sent (or nothing came)
                return
            try:
                length = int(self.headers.get("Content-Length") or 0)
            except ValueError:
                length = 0
            # a body over the limit is not read: the application answers 413 from the length
            body = self.rfile.read(length) if 0 < length <= MAX_FORM_BYTES else b""
        except OSError:  # idle past IDLE_TIMEOUT, or shut down by the READ_DEADLINE watchdog
            self.close_connection = True
            return
        finally:
            self.server.unwatch(self.connection)
        handler = ServerHandler(
            io.BytesIO(body),
            self.wfile,  # type: ignore[arg-type]  # a BufferedIOBase, written with write()
            self.get_stderr(),
            self.get_environ(),
            multithread=True,
        )
        handler.request_handler = self  # type: ignore[attr-defined]  # wsgiref's back-pointer
        handler.run(self.server.get_app())  # type: ignore[arg-type]


class _ThreadingServer(socketserver.ThreadingMixIn, WSGIServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = LISTEN_BACKLOG

    def __init__(self, address: tuple[str, int], handler: type[_Handler]) -> None:
        self._reading: dict[socket.socket, float] = {}
        self._lock = threading.Lock()
        self._active = 0
        self._closed = threading.Event()
        super().__init__(address, handler)

    def server_activate(self) -> None:
        super().server_activate()
        threading.Thread(target=self._reap, name="jev-ui-reaper", daemon=True).start()

    def watch(self, conn: socket.socket) -> None:
        """Start the :data:`READ_DEADLINE` of ``conn`` (it is reading its request)."""
        with self._lock:
            self._reading[conn] = time.monotonic() + READ_DEADLINE

    def unwatch(self, conn: socket.socket) -> None:
        """``conn`` has sent its request (or failed): its deadline no longer applies."""
        with self._lock:
            self._reading.pop(conn, None)

    def _reap(self) -> None:
        """Shut down connections past their deadline, twice a second, until closed."""
        while not self._closed.wait(0.5):
            now = time.monotonic()
            with self._lock:
                late = [conn for conn, end in self._reading.items() if end <= now]
                for conn in late:
                    del self._reading[conn]
            for conn in late:
                with contextlib.suppress(OSError):  # the handler's read returns at once
                    conn.shutdown(socket.SHUT_RDWR)

    def process_request(self, request: Any, client_address: Any) -> None:
        with self._lock:
            oldest = None
            if self._active >= MAX_CONNECTIONS and self._reading:
                # full: the connection that has been sending its request longest makes way
                # (an idle or slow one), so a burst of them cannot lock out the page
                oldest = min(self._reading, key=self._reading.__getitem__)
                del self._reading[oldest]
            busy = self._active >= MAX_CONNECTIONS and oldest is None
            if not busy:
                self._active += 1
        if oldest is not None:
            with contextlib.suppress(OSError):
                oldest.shutdown(socket.SHUT_RDWR)
        if busy:
            with contextlib.suppress(OSError):
                request.settimeout(1.0)
                request.sendall(_BUSY)
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:  # no thread started (e.g. none left): not an active one
            with self._lock:
                self._active -= 1
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            with self._lock:
                self._active -= 1

    def server_close(self) -> None:
        self._closed.set()
        super().server_close()


class _ThreadingServer6(_ThreadingServer):
    address_family = socket.AF_INET6


class UiServer:
    """The ``jev ui`` server: a bound socket, a fresh token and CSRF value, the app.

    Args:
        host: address to bind (default 127.0.0.1; ``::1`` and other IPv6 addresses
            work too).
        port: TCP port; 0 picks a free one (read :attr:`port` / :attr:`url` after).
        store_path: records database (``None`` = ``$JEV_HOME/jev.sqlite3``).

    Raises:
        UsageError: the address cannot be bound (in use, not an address of this
            machine, no permission); the message says what to do.
    """

    def __init__(
        self, host: str = DEFAULT_HOST, port: int = 0, *, store_path: Path | None = None
    ) -> None:
        self.host = host
        self.token = secrets.token_urlsafe(24)
        csrf = secrets.token_urlsafe(24)
        loopback = is_loopback(host)
        allowed = (LOOPBACK_HOSTS | {host.lower().strip("[]")}) if loopback else None
        self.app = UiApp(token=self.token, csrf=csrf, allowed_hosts=allowed, store_path=store_path)
        server_cls = _ThreadingServer6 if ":" in host else _ThreadingServer
        try:
            self._server = server_cls((host.strip("[]"), port), _Handler)
        except OSError as exc:
            self.app.close()
            raise UsageError(
                f"cannot listen on {host}:{port}: {exc.strerror or exc}; choose another "
                "--port (0 picks a free one) or another --host."
            ) from None
        self._server.set_app(self.app)
        self.port: int = self._server.server_address[1]

    @property
    def url(self) -> str:
        """The address to open: ``http://HOST:PORT/<token>/`` (token included)."""
        shown = f"[{self.host.strip('[]')}]" if ":" in self.host else self.host
        return f"http://{shown}:{self.port}/{self.token}/"

    def warning(self) -> str:
        """A warning for a non-loopback bind address ("" for 127.0.0.1 / ::1 / localhost)."""
        if is_loopback(self.host):
            return ""
        return (
            f"warning: jev ui listens on {self.host}, not only on this machine's loopback "
            "address: anyone who can reach it and learns the address printed below can read "
            "your records and change your Jev settings. Use the default (127.0.0.1) unless "
            "you need this."
        )

    def serve_forever(self) -> None:
        """Serve until :meth:`shutdown` is called from another thread (or Ctrl-C)."""
        self._server.serve_forever(poll_interval=0.2)

    def shutdown(self) -> None:
        """Stop :meth:`serve_forever` (call from another thread)."""
        self._server.shutdown()

    def close(self) -> None:
        """Close the socket and the store."""
        self._server.server_close()
        self.app.close()

    def __enter__(self) -> UiServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
