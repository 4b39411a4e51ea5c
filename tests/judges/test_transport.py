"""The HTTP judges' transport seam (issue 24 item 3, design.md §6, §11).

:class:`jev.judges._transport.ResolvingTransport` resolves the judge's host within
the call's deadline and connects to the pinned address; TLS still verifies the
configured host name (SNI and certificate). The tests drive it through its seam (a
stand-in resolver given to :class:`JsonPoster`), never by patching httpx or the
standard library: a TLS server on 127.0.0.1 with a certificate for ``judge.test``,
an HTTP proxy named by host name, and the environment's proxy rules.
"""

from __future__ import annotations

import json
import shutil
import socket
import ssl
import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest

from jev.base.errors import TransportError
from jev.judges._http import JsonPoster
from jev.judges._transport import environment_mounts

_PROXY_VARS = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY")


@pytest.fixture(autouse=True)
def _no_proxies(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in _PROXY_VARS:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)


class _Resolver:
    """``socket.getaddrinfo``'s stand-in: ``{host: [addresses]}``, every ask kept."""

    def __init__(self, table: dict[str, list[str]]) -> None:
        self.table = table
        self.asked: list[tuple[str, int]] = []

    def __call__(self, host: str, port: int, *args: Any, **kwargs: Any) -> list[Any]:
        self.asked.append((host, port))
        if host not in self.table:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (a, port)) for a in self.table[host]]


class _Server:
    """A JSON server on 127.0.0.1 (TLS when given a context) that keeps what it saw."""

    def __init__(self, context: ssl.SSLContext | None = None) -> None:
        self.seen: list[dict[str, str]] = []
        self.sni: list[str | None] = []
        seen = self.seen

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                self.rfile.read(length)
                seen.append({"line": self.requestline, "host": self.headers.get("Host", "")})
                body = json.dumps({"ok": True}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        if context is not None:
            context.sni_callback = lambda sock, name, ctx: self.sni.append(name)  # type: ignore[assignment]
            self.httpd.socket = context.wrap_socket(self.httpd.socket, server_side=True)
        self.port = self.httpd.server_address[1]

    def __enter__(self) -> _Server:
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def _openssl(*args: str) -> None:
    subprocess.run(["openssl", *args], check=True, capture_output=True, timeout=60)


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A CA, and certificates signed by it for ``judge.test`` and ``other.test``."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    folder = tmp_path_factory.mktemp("certs")
    ca_key, ca = folder / "ca.key", folder / "ca.pem"
    _openssl(
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-days",
        "2",
        "-subj",
        "/CN=jev test CA",
        "-keyout",
        str(ca_key),
        "-out",
        str(ca),
    )
    for name in ("judge.test", "other.test"):
        key, csr, pem = (folder / f"{name}.{ext}" for ext in ("key", "csr", "pem"))
        ext = folder / f"{name}.ext"
        ext.write_text(
            f"subjectAltName=DNS:{name}\nbasicConstraints=CA:FALSE\n"
            "keyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n"
            "authorityKeyIdentifier=keyid\nsubjectKeyIdentifier=hash\n"
        )
        _openssl(
            *f"req -newkey rsa:2048 -nodes -subj /CN={name}".split(),
            "-keyout",
            str(key),
            "-out",
            str(csr),
        )
        _openssl(
            *["x509", "-req", "-CAcreateserial", "-days", "2"],
            "-in",
            str(csr),
            "-CA",
            str(ca),
            "-CAkey",
            str(ca_key),
            "-extfile",
            str(ext),
            "-out",
            str(pem),
        )
    return folder


def _tls(certs: Path, name: str) -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(certs / f"{name}.pem", certs / f"{name}.key")
    return context


def _poster(resolver: Any, timeout_s: float = 10) -> JsonPoster:
    return JsonPoster(
        label="the judge", timeout_s=timeout_s, key_env="K", key_present=False, resolver=resolver
    )


@pytest.fixture
def trust(certs: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("SSL_CERT_FILE", str(certs / "ca.pem"))
    yield


def test_tls_goes_to_the_pinned_address_and_verifies_the_configured_name(
    certs: Path, trust: None
) -> None:
    resolver = _Resolver({"judge.test": ["127.0.0.1"]})
    with _Server(_tls(certs, "judge.test")) as server:
        data, _ms = _poster(resolver).post(f"https://judge.test:{server.port}/v1/x", {}, {"a": 1})
    assert data == {"ok": True}
    assert resolver.asked == [("judge.test", server.port)]
    assert server.sni == ["judge.test"]  # SNI: the name, not the address
    assert server.seen == [{"line": "POST /v1/x HTTP/1.1", "host": f"judge.test:{server.port}"}]


def test_certificate_for_another_name_is_refused_and_no_other_address_is_tried(
    certs: Path, trust: None
) -> None:
    # 127.0.0.2 refuses the port: had the transport tried it after the TLS failure,
    # the message would say "refused" instead of naming the certificate.
    resolver = _Resolver({"judge.test": ["127.0.0.1", "127.0.0.2"]})
    with _Server(_tls(certs, "other.test")) as server, pytest.raises(TransportError) as info:
        _poster(resolver).post(f"https://judge.test:{server.port}/v1/x", {}, {})
    assert info.value.kind == "connection"
    assert "CERTIFICATE_VERIFY_FAILED" in str(info.value) and "refused" not in str(info.value)
    assert server.seen == []


def test_an_address_that_refuses_is_followed_by_the_next() -> None:
    resolver = _Resolver({"judge.test": ["127.0.0.2", "127.0.0.1"]})
    with _Server() as server:
        data, _ms = _poster(resolver).post(f"http://judge.test:{server.port}/v1/x", {}, {})
    assert data == {"ok": True}
    assert server.seen[0]["host"] == f"judge.test:{server.port}"


def test_an_ip_literal_is_not_resolved() -> None:
    resolver = _Resolver({})
    with _Server() as server:
        _poster(resolver).post(f"http://127.0.0.1:{server.port}/v1/x", {}, {})
    assert resolver.asked == []


def test_http_proxy_from_the_environment_is_resolved_and_pinned(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    resolver = _Resolver({"proxy.test": ["127.0.0.1"]})
    with _Server() as proxy:
        monkeypatch.setenv("HTTP_PROXY", f"http://proxy.test:{proxy.port}")
        data, _ms = _poster(resolver).post("http://judge.invalid/v1/x", {}, {})
    assert data == {"ok": True}
    assert resolver.asked == [("proxy.test", proxy.port)]  # the proxy resolves the judge
    assert proxy.seen[0]["line"] == "POST http://judge.invalid/v1/x HTTP/1.1"


def test_no_proxy_host_goes_direct_through_the_resolver(monkeypatch: pytest.MonkeyPatch) -> None:
    resolver = _Resolver({"judge.test": ["127.0.0.1"]})
    with _Server() as server:
        monkeypatch.setenv("HTTP_PROXY", "http://proxy.invalid:9")
        monkeypatch.setenv("NO_PROXY", "judge.test")
        _poster(resolver).post(f"http://judge.test:{server.port}/v1/x", {}, {})
    assert resolver.asked == [("judge.test", server.port)]


@pytest.mark.parametrize(
    "env",
    [
        {},
        {"HTTP_PROXY": "proxy:3128"},
        {"HTTPS_PROXY": "http://u:p@proxy:3128", "NO_PROXY": "localhost,10.0.0.1,::1,.corp,x.org"},
        {"ALL_PROXY": "socks5://s:1080", "NO_PROXY": "http://skip.me"},
        {"HTTP_PROXY": "http://p:1", "NO_PROXY": "*"},
    ],
)
def test_environment_proxies_are_read_as_httpx_reads_them(
    env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    utils = pytest.importorskip("httpx._utils")
    theirs = getattr(utils, "get_environment_proxies", None)
    if theirs is None:
        pytest.skip("httpx no longer has get_environment_proxies")
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    ours = environment_mounts(_Named)
    assert {k: None if v is None else v.url for k, v in ours.items()} == theirs()  # type: ignore[attr-defined]


class _Named(httpx.BaseTransport):
    def __init__(self, url: str) -> None:
        self.url = url


def test_socks_proxy_host_is_resolved_and_pinned(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("socksio")  # httpx's SOCKS support (its `socks` extra)
    resolver = _Resolver({"proxy.test": ["127.0.0.2"]})  # 127.0.0.2 refuses: no proxy runs
    monkeypatch.setenv("ALL_PROXY", "socks5://proxy.test:1080")
    with pytest.raises(TransportError) as info:
        _poster(resolver).post("http://judge.invalid/v1/x", {}, {})
    assert info.value.kind == "connection"
    assert resolver.asked == [("proxy.test", 1080)]
