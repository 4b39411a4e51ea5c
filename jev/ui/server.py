"""Bind and run the ``jev ui`` server (standard library WSGI, one thread per request).

Why the standard library: the pages are a handful of forms and tables rendered with
jinja2 (already a runtime dependency); :mod:`wsgiref` plus
:class:`socketserver.ThreadingMixIn` serves them without a new dependency, and a
framework would add nothing the token/CSRF checks in :mod:`jev.ui.app` need.

The server binds 127.0.0.1 unless told otherwise: the settings decide whether an agent
is sent back into its turn and which judge (and bill) it uses, so they are only for
the person at this machine. A non-loopback ``host`` is accepted only when given
explicitly, with a warning (:meth:`UiServer.warning`).
"""

from __future__ import annotations

import ipaddress
import secrets
import socket
import socketserver
from pathlib import Path
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer

from jev.errors import UsageError
from jev.ui.app import UiApp

__all__ = ["DEFAULT_HOST", "LOOPBACK_HOSTS", "UiServer", "is_loopback"]

#: Address bound when ``--host`` is not given.
DEFAULT_HOST = "127.0.0.1"
#: ``Host`` header names accepted when the server listens on a loopback address.
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})


def is_loopback(host: str) -> bool:
    """Whether ``host`` (an address or ``localhost``) is a loopback address."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class _Handler(WSGIRequestHandler):
    """wsgiref's handler without a log line per request (the terminal stays readable)."""

    def log_message(self, format: str, *args: Any) -> None:
        return


class _ThreadingServer(socketserver.ThreadingMixIn, WSGIServer):
    daemon_threads = True
    allow_reuse_address = True


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
