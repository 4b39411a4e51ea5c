"""Name resolution inside the judge call's deadline (design.md §11, issue 11).

``socket.getaddrinfo`` cannot be interrupted and takes no timeout: a resolver that
hangs (an unreachable DNS server, a broken ``/etc/resolv.conf``) would keep a judge
call — and the user's stop hook — alive for as long as the system resolver retries,
whatever ``judge.timeout_s`` says. :class:`ResolvingBackend` is the httpcore network
backend of :class:`jev.judges._http.JsonPoster`: it resolves the host in a daemon
worker thread and waits at most the connect timeout httpcore hands it (the call's
remaining deadline), then connects to the addresses found, one after the other, each
within what is left. A resolver still busy at the deadline is abandoned (its thread
ends when the resolver gives up; it holds nothing of the call) and the call ends as
``httpcore.ConnectTimeout`` (Jev's ``timeout``). TLS still verifies the host name:
httpcore passes the original host as SNI/``server_hostname``.
"""

from __future__ import annotations

import ipaddress
import socket
import threading
import time
from collections.abc import Iterable
from typing import Any

import httpcore

__all__ = ["ResolvingBackend", "install", "resolve"]

_AddrInfo = list[tuple[Any, ...]]


def resolve(host: str, port: int, timeout: float | None) -> _AddrInfo:
    """``socket.getaddrinfo(host, port, type=SOCK_STREAM)`` within ``timeout`` seconds.

    Args:
        host: the host name (an IP literal is returned at once).
        port: the TCP port.
        timeout: seconds to wait (``None``: no bound, the caller has none either).

    Raises:
        httpcore.ConnectTimeout: the resolver did not answer in time.
        httpcore.ConnectError: the name does not resolve (``socket.gaierror``).
    """
    box: list[Any] = []
    done = threading.Event()

    def work() -> None:
        try:
            box.append(socket.getaddrinfo(host, port, type=socket.SOCK_STREAM))
        except OSError as exc:  # gaierror and friends
            box.append(exc)
        finally:
            done.set()

    threading.Thread(target=work, name="jev-resolve", daemon=True).start()
    if not done.wait(timeout):
        raise httpcore.ConnectTimeout(f"resolving {host} took longer than {timeout:g} s")
    result = box[0]
    if isinstance(result, OSError):
        raise httpcore.ConnectError(f"cannot resolve {host}: {result}")
    infos: _AddrInfo = result
    return infos


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return True


class ResolvingBackend(httpcore.SyncBackend):
    """httpcore's sync backend with name resolution bounded by the connect timeout
    (see the module docstring)."""

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        """Resolve ``host`` within ``timeout`` seconds, then connect to its addresses
        in order within what is left.

        Raises:
            httpcore.ConnectTimeout: resolving or connecting took ``timeout``.
            httpcore.ConnectError: no address resolves or accepts the connection.
        """
        if _is_ip(host):
            return super().connect_tcp(host, port, timeout, local_address, socket_options)
        ends = None if timeout is None else time.monotonic() + timeout
        infos = resolve(host, port, timeout)
        last: Exception = httpcore.ConnectError(f"{host} resolved to no address")
        for _family, _type, _proto, _name, sockaddr in infos:
            left = None if ends is None else ends - time.monotonic()
            if left is not None and left <= 0:
                raise httpcore.ConnectTimeout(
                    f"connecting to {host} took longer than {timeout:g} s"
                )
            try:
                return super().connect_tcp(
                    str(sockaddr[0]), port, left, local_address, socket_options
                )
            except httpcore.ConnectTimeout:
                raise
            except httpcore.ConnectError as exc:
                last = exc
        raise last


def install(transport: Any) -> bool:
    """Make ``transport`` (an ``httpx.HTTPTransport``) resolve with
    :class:`ResolvingBackend`; True when it did.

    httpx builds its httpcore pool itself and offers no parameter for the network
    backend, so the pool's backend is replaced; a pool of another shape (a future
    httpx) is left alone and the caller's test (``tests/adversarial``) notices.
    """
    pool = getattr(transport, "_pool", None)
    if pool is None or not isinstance(
        getattr(pool, "_network_backend", None), httpcore.SyncBackend
    ):
        return False
    pool._network_backend = ResolvingBackend()
    return True
