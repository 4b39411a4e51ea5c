"""The HTTP judges' httpx transport: name resolution inside the call's deadline
(design.md §6, §11; issue 11, issue 24 item 3).

``socket.getaddrinfo`` cannot be interrupted and takes no timeout: a resolver that
hangs (an unreachable DNS server, a broken ``/etc/resolv.conf``) would keep a judge
call — and the user's stop hook — alive for as long as the system resolver retries,
whatever ``judge.timeout_s`` says. :class:`ResolvingTransport` is the public seam
(an ``httpx.BaseTransport`` passed as ``transport=`` and in ``mounts=``) through which
:class:`jev.judges._http.JsonPoster` sends every request:

1. it resolves the URL's host in a daemon worker thread and waits at most the
   request's connect timeout (the call's remaining deadline); a resolver still busy
   then is abandoned (its thread ends when the resolver gives up; it holds nothing of
   the call) and the request ends as ``httpx.ConnectTimeout`` (Jev's ``timeout``); a
   name that does not resolve is ``httpx.ConnectError`` (Jev's ``connection``);
2. it sends the request to the addresses found, one after the other, each within what
   is left, through an ordinary ``httpx.HTTPTransport``: the URL names the pinned
   address, the ``Host`` header stays the original, and the ``sni_hostname`` request
   extension gives TLS the original host name, so SNI and certificate verification
   are for the host the user configured, never for the address. The next address is
   tried only when the TCP connection failed; a TLS failure (bad certificate) ends
   the request at once.

Behind a proxy from the environment (``HTTP_PROXY``/``HTTPS_PROXY``/``ALL_PROXY``/
``NO_PROXY``, read as httpx reads them, :func:`environment_mounts`) the proxy's host
name is the one resolved and pinned (the proxy resolves the judge's host) for
``http://`` and ``socks5(h)://`` proxies; an ``https://`` proxy named by host name is
connected to without pinning (TLS to a proxy has no SNI seam in httpx).

The resolver is injectable (``resolver=``, ``socket.getaddrinfo``'s signature), so
tests simulate a hanging or failing resolver through this seam instead of patching
the standard library.
"""

from __future__ import annotations

import ipaddress
import socket
import ssl
import threading
import time
import urllib.request
from collections.abc import Callable
from typing import Any

import httpx

__all__ = ["Resolver", "ResolvingTransport", "environment_mounts", "resolve"]

#: ``socket.getaddrinfo``'s shape: ``(host, port, family=0, type=0, ...) -> [(family,
#: type, proto, canonname, sockaddr), ...]``.
Resolver = Callable[..., list[tuple[Any, ...]]]
#: Proxy schemes whose host is resolved and pinned (no TLS to the proxy itself).
_PINNED_PROXY_SCHEMES = frozenset({"http", "socks5", "socks5h"})


def resolve(
    host: str, port: int, timeout: float | None, resolver: Resolver | None = None
) -> list[str]:
    """The addresses of ``host`` (in the resolver's order, without repeats), found
    within ``timeout`` seconds.

    Args:
        host: the host name.
        port: the TCP port.
        timeout: seconds to wait (``None``: no bound, the caller has none either).
        resolver: ``socket.getaddrinfo`` or a stand-in with its signature (``None``:
            ``socket.getaddrinfo`` as it is at call time).

    Raises:
        httpx.ConnectTimeout: the resolver did not answer in time.
        httpx.ConnectError: the name does not resolve (``socket.gaierror``).
    """
    lookup = resolver or socket.getaddrinfo
    box: list[Any] = []
    done = threading.Event()

    def work() -> None:
        try:
            box.append(lookup(host, port, type=socket.SOCK_STREAM))
        except OSError as exc:  # gaierror and friends
            box.append(exc)
        finally:
            done.set()

    threading.Thread(target=work, name="jev-resolve", daemon=True).start()
    if not done.wait(timeout):
        raise httpx.ConnectTimeout(f"resolving {host} took longer than {timeout:g} s")
    result = box[0]
    if isinstance(result, OSError):
        raise httpx.ConnectError(f"cannot resolve {host}: {result}")
    addresses: list[str] = []
    for _family, _type, _proto, _name, sockaddr in result:
        address = str(sockaddr[0])
        if address not in addresses:
            addresses.append(address)
    return addresses


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return True


def _is_tls_failure(exc: BaseException) -> bool:
    """Whether a connect failure came from the TLS handshake (not the TCP connect)."""
    seen: set[int] = set()
    cause: BaseException | None = exc
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, ssl.SSLError):
            return True
        seen.add(id(cause))
        cause = cause.__cause__ or cause.__context__
    return False


class ResolvingTransport(httpx.BaseTransport):
    """Resolves within the connect timeout, then connects to the pinned address
    (see the module docstring).

    Args:
        verify: the SSL context that verifies the judge's certificate (built once per
            judge by the caller).
        limits: the connection limits of the underlying ``httpx.HTTPTransport``.
        proxy: a proxy URL from the environment, or ``None`` for direct connections.
        resolver: ``socket.getaddrinfo``'s stand-in (``None``: the real one).

    Raises (from :meth:`handle_request`, besides httpx's own):
        httpx.ConnectTimeout: resolving or connecting took the connect timeout.
        httpx.ConnectError: no address resolves or accepts the connection.
    """

    def __init__(
        self,
        *,
        verify: ssl.SSLContext,
        limits: httpx.Limits,
        proxy: str | None = None,
        resolver: Resolver | None = None,
    ) -> None:
        self._verify = verify
        self._limits = limits
        self._resolver = resolver
        self._proxy = None if proxy is None else httpx.URL(proxy)
        self._lock = threading.Lock()
        #: one transport per pinned proxy address (``""``: the unpinned one)
        self._via: dict[str, httpx.HTTPTransport] = {}
        self._direct = (
            httpx.HTTPTransport(verify=verify, limits=limits)
            if proxy is None
            else self._proxied(None)
        )

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        """Send ``request`` through the pinned address of its host (or its proxy's)."""
        if self._proxy is None:
            host, port = request.url.host, request.url.port
            scheme = request.url.scheme
        else:
            host, port, scheme = self._proxy.host, self._proxy.port, self._proxy.scheme
            if scheme not in _PINNED_PROXY_SCHEMES:  # no SNI seam for TLS to a proxy
                return self._direct.handle_request(request)
        if not host or _is_ip(host):
            return self._direct.handle_request(request)
        timeouts: dict[str, Any] = dict(request.extensions.get("timeout") or {})
        connect = timeouts.get("connect")
        ends = None if connect is None else time.monotonic() + connect
        default_port = 443 if scheme == "https" else 80
        addresses = resolve(host, port or default_port, connect, self._resolver)
        last: httpx.ConnectError = httpx.ConnectError(f"{host} resolved to no address")
        for address in addresses:
            left = None if ends is None else ends - time.monotonic()
            if left is not None and left <= 0:
                raise httpx.ConnectTimeout(f"connecting to {host} took longer than {connect:g} s")
            extensions = {**request.extensions, "timeout": {**timeouts, "connect": left}}
            if self._proxy is None:
                transport: httpx.BaseTransport = self._direct
                pinned = httpx.Request(
                    request.method,
                    request.url.copy_with(host=address),
                    headers=request.headers,  # Host: the original name
                    stream=request.stream,
                    extensions={**extensions, "sni_hostname": host},
                )
            else:
                transport = self._proxied(address)
                pinned = httpx.Request(
                    request.method,
                    request.url,
                    headers=request.headers,
                    stream=request.stream,
                    extensions=extensions,
                )
            try:
                return transport.handle_request(pinned)
            except httpx.ConnectTimeout:
                raise
            except httpx.ConnectError as exc:
                if _is_tls_failure(exc):
                    raise
                last = exc
        raise last

    def _proxied(self, address: str | None) -> httpx.HTTPTransport:
        """The transport through the proxy, at ``address`` (``None``: its own name)."""
        assert self._proxy is not None
        key = address or ""
        with self._lock:
            transport = self._via.get(key)
            if transport is None:
                url = self._proxy if address is None else self._proxy.copy_with(host=address)
                transport = httpx.HTTPTransport(
                    verify=self._verify, limits=self._limits, proxy=httpx.Proxy(url=url)
                )
                self._via[key] = transport
            return transport

    def close(self) -> None:
        """Close every underlying connection pool (idempotent)."""
        with self._lock:
            pools = [*self._via.values()]
            self._via.clear()
        if self._proxy is None:
            pools.append(self._direct)
        for pool in pools:
            pool.close()


def environment_mounts(
    make: Callable[[str], httpx.BaseTransport],
) -> dict[str, httpx.BaseTransport | None]:
    """httpx's ``mounts`` for the proxies the environment names, as httpx's own
    ``trust_env`` reads them (``urllib.request.getproxies()``: ``HTTP_PROXY``,
    ``HTTPS_PROXY``, ``ALL_PROXY``, ``NO_PROXY``, and the system settings on Windows
    and macOS). httpx reads them only when no ``transport=`` is given, so a client
    built with :class:`ResolvingTransport` passes these.

    Args:
        make: builds the transport for one proxy URL.

    Returns:
        ``{url pattern: transport}``; ``None`` marks a ``NO_PROXY`` host (the client's
        own ``transport=`` is used for it).
    """
    info = urllib.request.getproxies()
    urls: dict[str, str | None] = {}
    for scheme in ("http", "https", "all"):
        if info.get(scheme):
            value = info[scheme]
            urls[f"{scheme}://"] = value if "://" in value else f"http://{value}"
    for name in (part.strip() for part in info.get("no", "").split(",")):
        if name == "*":
            return {}
        if not name:
            continue
        bare = name.split("/")[0]
        if "://" in name:
            urls[name] = None
        elif _is_version(bare, 4):
            urls[f"all://{name}"] = None
        elif _is_version(bare, 6):
            urls[f"all://[{name}]"] = None
        elif name.lower() == "localhost":
            urls[f"all://{name}"] = None
        else:
            urls[f"all://*{name}"] = None
    return {pattern: None if url is None else make(url) for pattern, url in urls.items()}


def _is_version(text: str, version: int) -> bool:
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return False
    return address.version == version
