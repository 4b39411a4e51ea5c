"""The one boundary where httpx errors become :mod:`jev.base.errors` (design.md §6, §11, §13).

Both HTTP judges (``openai``, ``anthropic``) POST one JSON body per judge call through
:class:`JsonPoster` and get back the parsed JSON object plus the latency. Every failure
is classified here, never retried here (the core retries):

==========================================  =================================  =========
what happened                               raised                             retryable
==========================================  =================================  =========
whole call not done within ``timeout_s``,   ``TransportError(kind="timeout")``  yes
HTTP 408
connection refused, DNS failure, reset      ``TransportError(kind="connection")`` yes
invalid or non-http(s) URL                  ``kind="connection"``               no
HTTP 429                                    ``kind="rate-limited"`` +           yes
                                            ``retry_after_s`` (≤ 60 s)
HTTP 5xx (incl. Anthropic 529 overloaded)   ``kind="http-5xx"`` (+ Retry-After) yes
HTTP 401 / 403                              ``kind="auth"``                     no
HTTP 413, or 4xx naming a too-long prompt   :class:`~jev.base.errors.ContextLengthError` no
other HTTP 4xx (400, 404, 422, …)           ``kind="http-4xx"``                 no
other non-2xx (1xx/3xx: redirects)          ``kind="http-status"``              no
2xx body over ``max_reply_bytes`` decoded   ``kind="reply-too-large"``          yes
2xx whose body is not a JSON object (bad    ``kind="bad-body"``                 yes
JSON, nested > 64, duplicate keys, unknown
Content-Encoding, corrupt gzip)
==========================================  =================================  =========

Bounds: the whole call (name resolution, connect, TLS, send, receive) ends within
``timeout_s`` (at most :data:`MAX_TIMEOUT_S` = 600 s) plus :data:`CLOSE_MARGIN_S` (1 s)
to close the connection; the decoded body never exceeds ``max_reply_bytes`` (default 1 MiB) in
memory, gzip/deflate included (see :class:`JsonPoster`).

Status errors are raised as :class:`ProviderHTTPError` (a ``TransportError``) carrying
the provider's own short error message (``provider_message``), so a judge can do
capability negotiation (e.g. drop ``response_format`` once) without parsing text twice.

Secrets: messages are built here from the endpoint and status only; the provider's
error text is included after every configured secret is replaced by ``***``
(:func:`jev.base.redaction.redact_secrets`: any case, without prefix, any 12-character
fragment; 401/403
bodies are never included: OpenAI echoes part of the key there). httpx's own
exceptions are never chained (not even as ``__context__``), so no request object (which holds
the headers) is reachable from a Jev exception. Logs (logger ``jev.judges``) carry the
URL, status and latency, never headers or bodies.
"""

from __future__ import annotations

import logging
import ssl
import threading
import time
from collections.abc import Mapping, Sequence
from typing import Any

import httpx

from jev.base import safejson
from jev.base.errors import ContextLengthError, TransportError
from jev.base.redaction import redact_secrets
from jev.judges._stream import (
    BadEncoding,
    BoundedDecoder,
    Deadline,
    DeadlinePassed,
    Reply,
    TooLarge,
    json_bytes,
)
from jev.judges._transport import Resolver, ResolvingTransport, environment_mounts
from jev.judges._wire import (
    MAX_RETRY_AFTER_S,
    ProviderHTTPError,
    is_context_length_message,
    parse_retry_after,
    read_api_key,
)

__all__ = [
    "CLOSE_MARGIN_S",
    "ERROR_BODY_BYTES",
    "MAX_BODY_DEPTH",
    "MAX_REPLY_BYTES",
    "MAX_RETRY_AFTER_S",
    "MAX_TIMEOUT_S",
    "JsonPoster",
    "ProviderHTTPError",
    "is_context_length_message",
    "parse_retry_after",
    "read_api_key",
    "redact_secrets",
]

log = logging.getLogger("jev.judges")

#: Largest ``timeout_s`` accepted (seconds; the settings refuse more at save).
MAX_TIMEOUT_S = 600.0
#: Extra seconds a call may take after its deadline to close the connection.
CLOSE_MARGIN_S = 1.0
#: Default largest decoded 2xx body (bytes): 1 MiB, far above any verdict reply.
MAX_REPLY_BYTES = 1024 * 1024
#: Bytes of a non-2xx body read for its error message; the rest is never read.
ERROR_BODY_BYTES = 64 * 1024
#: Deepest JSON nesting accepted in an HTTP body (levels).
MAX_BODY_DEPTH = 64
#: Characters of a provider's error message kept in Jev's messages.
_EXCERPT_CHARS = 300


class JsonPoster:
    """POSTs JSON bodies to one provider endpoint and classifies every failure.

    One instance per judge, one ``httpx.Client`` per instance: created on first use
    and shared by every call (``httpx.Client`` is safe to share between threads, so
    concurrent callers — e.g. live replay's worker threads — share it; the SSL context
    is built once). Connections are not kept alive between calls, so each call owns
    its socket and its deadline can close it.

    Bounds (design.md §11, issue 11 "bounded under hostile input"):

    * **Deadline**: the whole call — connect, TLS, send, headers and body — ends
      within ``timeout_s`` (at most :data:`MAX_TIMEOUT_S`); closing takes at most
      :data:`CLOSE_MARGIN_S` more. A server that drips one byte a second is cut at
      the deadline (``kind="timeout"``), not kept alive by every byte
      (:class:`~jev.judges._stream.Deadline`). Name resolution is inside it too: a
      resolver that hangs is abandoned at the deadline (``kind="timeout"``): every
      request goes through :class:`~jev.judges._transport.ResolvingTransport`,
      which resolves within the deadline and connects to the pinned address (TLS
      still verifies the configured host name).
    * **Size**: a 2xx body is read raw while streaming and refused as soon as its
      decoded size passes ``max_reply_bytes`` (``kind="reply-too-large"``,
      retryable); gzip and deflate are inflated here in steps bounded by the room
      left. Error bodies are read only up to :data:`ERROR_BODY_BYTES`.
    * **Parse**: the body goes through :mod:`jev.base.safejson` (nesting limit
      :data:`MAX_BODY_DEPTH`, duplicate keys refused, digit limit) after every
      trace of the key is redacted — any failure is ``kind="bad-body"``.

    Args:
        label: who is being called, for messages, e.g. ``"the openai judge at
            https://api.openai.com/v1"``.
        timeout_s: seconds allowed for the whole call (0 < timeout_s <= 600).
        key_env: name of the environment variable that holds the API key, named in
            authentication messages (never its value).
        key_present: whether that variable held a key (to say "it is not set").
        secrets: strings that must never appear in any message (the API key).
        max_reply_bytes: largest decoded 2xx body accepted (bytes, 1 KiB … 256 MiB;
            0 = :data:`MAX_REPLY_BYTES`).
        resolver: stand-in for ``socket.getaddrinfo`` (same signature) used by the
            transport; ``None`` = the real one. The test seam for hanging or failing
            name resolution.

    Raises:
        ValueError: ``timeout_s`` or ``max_reply_bytes`` out of range.
    """

    __slots__ = (
        "_client",
        "_lock",
        "_resolver",
        "_secrets",
        "_ssl",
        "key_env",
        "key_present",
        "label",
        "max_reply_bytes",
        "not_found_hint",
        "timeout_s",
    )

    def __init__(
        self,
        *,
        label: str,
        timeout_s: float,
        key_env: str,
        key_present: bool,
        secrets: Sequence[str] = (),
        max_reply_bytes: int = 0,
        not_found_hint: str = "",
        resolver: Resolver | None = None,
    ) -> None:
        if not 0 < timeout_s <= MAX_TIMEOUT_S:
            raise ValueError(
                f"timeout_s must be > 0 and <= {MAX_TIMEOUT_S:g} seconds, got {timeout_s!r}"
            )
        limit = max_reply_bytes or MAX_REPLY_BYTES
        if not 1024 <= limit <= 256 * 1024 * 1024:
            raise ValueError(f"max_reply_bytes must be 1 KiB … 256 MiB, got {limit!r}")
        self.label = label
        self.not_found_hint = not_found_hint
        self.timeout_s = float(timeout_s)
        self.max_reply_bytes = limit
        self.key_env = key_env
        self.key_present = key_present
        self._secrets = tuple(s for s in secrets if s)
        self._client: httpx.Client | None = None
        self._ssl: ssl.SSLContext | None = None
        self._lock = threading.Lock()
        self._resolver = resolver

    def __repr__(self) -> str:
        return f"JsonPoster(label={self.label!r}, timeout_s={self.timeout_s!r})"

    # -- public -----------------------------------------------------------------

    def post(
        self, url: str, headers: Mapping[str, str], body: Mapping[str, Any]
    ) -> tuple[dict[str, Any], float]:
        """POST ``body`` as JSON to ``url``; return ``(json_object, latency_ms)``.

        Raises:
            TransportError: timeout, connection failure, HTTP error or bad body (see
                the module table); ``ContextLengthError`` for a too-long input.
        """
        client = self._sync_client()
        started = time.perf_counter()
        failure: TransportError | None = None
        reply: Reply | None = None
        payload = json_bytes(body)
        with Deadline(self.timeout_s) as deadline:
            try:
                reply = self._exchange(client, url, headers, payload, deadline)
            except DeadlinePassed:
                failure = self._timeout_error()
            except (httpx.HTTPError, httpx.InvalidURL) as exc:
                failure = (
                    self._timeout_error()
                    if deadline.fired or isinstance(exc, httpx.TimeoutException)
                    else self._translate_exception(exc)
                )
            except TooLarge:
                failure = self._too_large_error()
            except BadEncoding as exc:
                failure = self._bad_body_error(None, str(exc))
        if failure is not None or reply is None:
            # Raised outside the except block: no __context__ leads back to httpx's
            # request object (which holds the auth headers).
            raise failure or self._timeout_error()
        latency_ms = (time.perf_counter() - started) * 1000.0
        return self._finish(url, reply, latency_ms), latency_ms

    def _exchange(
        self,
        client: httpx.Client,
        url: str,
        headers: Mapping[str, str],
        payload: bytes,
        deadline: Deadline,
    ) -> Reply:
        sent = {
            "Content-Type": "application/json",
            "Accept-Encoding": "gzip, deflate",
            **dict(headers),
        }
        left = deadline.remaining()
        request = client.build_request(
            "POST",
            url,
            headers=sent,
            content=payload,
            timeout=httpx.Timeout(left),
            extensions={"trace": deadline.trace},
        )
        response = client.send(request, stream=True)
        try:
            ok = 200 <= response.status_code < 300
            limit = self.max_reply_bytes if ok else ERROR_BODY_BYTES
            decoder = BoundedDecoder(response.headers.get("content-encoding", ""), limit)
            try:
                for chunk in response.iter_raw():
                    deadline.check()
                    decoder.feed(chunk)
                    if not ok and decoder.full:
                        break
                content = decoder.finish()
            except (TooLarge, BadEncoding):
                if ok:
                    raise
                content = decoder.partial()
            deadline.check()
            return Reply(response.status_code, response.headers, content)
        finally:
            response.close()

    def close(self) -> None:
        """Close the sync connection pool (idempotent)."""
        with self._lock:
            client, self._client = self._client, None
        if client is not None:
            client.close()

    def _timeout_error(self) -> TransportError:
        log.debug("request to %s hit its %.1f s deadline", self.label, self.timeout_s)
        return TransportError(
            f"{self.label} did not answer within {self.timeout_s:g} s (the whole call, "
            "connect to last byte); raise judge.timeout_s (`jev settings set "
            "judge.timeout_s N`, at most 600) or check the server",
            kind="timeout",
        )

    def _too_large_error(self) -> TransportError:
        return TransportError(
            f"{self.label} sent a reply larger than {self.max_reply_bytes:,} bytes "
            "(decoded); it was cut off unread. Check that judge.base_url points at a "
            "model API, or retry",
            kind="reply-too-large",
            status=200,
            retryable=True,
        )

    def _bad_body_error(self, reply: Reply | None, why: str) -> TransportError:
        status = reply.status_code if reply is not None else None
        shown = f"HTTP {status}" if status is not None else "a reply"
        return TransportError(
            f"{self.label} answered {shown} but the body is not a usable JSON object "
            f"({why}); check that judge.base_url points at an OpenAI-compatible or "
            "Anthropic API, or retry",
            kind="bad-body",
            status=status,
            retryable=True,
        )

    def redact(self, text: str) -> str:
        """``text`` with every configured secret replaced by ``***`` (see
        :func:`jev.base.redaction.redact_secrets`: any case, with or without a provider
        prefix, any fragment of 12 or more characters)."""
        return redact_secrets(text, self._secrets)

    # -- internals ----------------------------------------------------------------

    def _sync_client(self) -> httpx.Client:
        with self._lock:
            if self._client is None:
                context = self._ssl_context()
                # No keep-alive: each call owns its socket, so its deadline can close
                # it (jev.judges._stream.Deadline).
                limits = httpx.Limits(max_keepalive_connections=0)

                def transport(proxy: str | None = None) -> ResolvingTransport:
                    # Name resolution inside the deadline (a hanging resolver is cut).
                    return ResolvingTransport(
                        verify=context, limits=limits, proxy=proxy, resolver=self._resolver
                    )

                self._client = httpx.Client(
                    timeout=self.timeout_s,
                    follow_redirects=False,
                    transport=transport(),
                    # httpx reads the environment's proxies only without transport=.
                    mounts=environment_mounts(transport),
                )
            return self._client

    def _ssl_context(self) -> ssl.SSLContext:
        # Building a verifying SSL context costs ~40 ms of CPU; build it once per
        # judge, not once per call. httpx honours SSL_CERT_FILE/SSL_CERT_DIR.
        context = self._ssl
        if context is None:
            context = self._ssl = httpx.create_ssl_context()
        return context

    def _finish(self, url: str, response: Reply, latency_ms: float) -> dict[str, Any]:
        log.debug("POST %s -> HTTP %s in %.0f ms", url, response.status_code, latency_ms)
        if not 200 <= response.status_code < 300:
            raise self._status_error(response)
        try:
            # Redacted before parsing: a key echoed anywhere (content, model, ids)
            # never reaches an answer, a record or a screen.
            text = self.redact(safejson.decode_utf8(response.content))
            data = safejson.loads(text, max_depth=MAX_BODY_DEPTH, unique_keys=True)
        except safejson.JsonInputError as exc:
            excerpt = self._excerpt(response.text) or "(empty)"
            raise self._bad_body_error(
                response, f"{exc.reason}; starts with: {excerpt[:120]!r}"
            ) from None
        if not isinstance(data, dict):
            excerpt = self._excerpt(response.text) or "(empty)"
            raise self._bad_body_error(response, f"starts with: {excerpt[:120]!r}")
        return data

    def _translate_exception(self, exc: httpx.HTTPError | httpx.InvalidURL) -> TransportError:
        name = type(exc).__name__
        log.debug("request to %s failed: %s", self.label, name)
        if isinstance(exc, httpx.InvalidURL | httpx.UnsupportedProtocol):
            return TransportError(
                f"{self.label} cannot be called: the URL is not a valid http(s) URL "
                f"({name}); fix judge.base_url (`jev settings set judge.base_url URL`)",
                kind="connection",
                retryable=False,
            )
        if isinstance(exc, httpx.TimeoutException):
            return TransportError(
                f"{self.label} did not answer within {self.timeout_s:g} s ({name}); raise "
                "judge.timeout_s (`jev settings set judge.timeout_s N`) or check the server",
                kind="timeout",
            )
        if isinstance(exc, httpx.TransportError):
            reason = self._excerpt(str(exc)) or name
            return TransportError(
                f"could not connect to {self.label} ({name}: {reason}); check "
                "judge.base_url, that the server is running, and the network",
                kind="connection",
            )
        return TransportError(
            f"the request to {self.label} failed ({name}); check judge.base_url and retry",
            kind="connection",
        )

    def _status_error(self, response: Reply) -> TransportError:
        status = response.status_code
        provider_message, provider_code = self._provider_error(response)
        detail = f": {provider_message}" if provider_message else ""
        retry_after = parse_retry_after(response.headers)

        def make(kind: str, message: str, retryable: bool) -> ProviderHTTPError:
            return ProviderHTTPError(
                message,
                kind=kind,
                status=status,
                retry_after_s=retry_after if retryable else None,
                retryable=retryable,
                provider_message=provider_message,
                provider_code=provider_code,
            )

        if status in (401, 403):
            state = "is set" if self.key_present else "is not set"
            return make(
                "auth",
                f"{self.label} refused the credentials (HTTP {status}); check that the "
                f"environment variable {self.key_env} holds a valid API key (it {state}) "
                "or set judge.api_key_env to the variable that does",
                False,
            )
        if status == 429:
            wait = f"; it asked to wait {retry_after:g} s" if retry_after is not None else ""
            return make(
                "rate-limited",
                f"{self.label} is rate-limiting requests (HTTP 429){wait}{detail}; retry "
                "later or lower the request rate",
                True,
            )
        if status >= 500:
            return make(
                "http-5xx",
                f"{self.label} had a server error (HTTP {status}){detail}; this is usually "
                "temporary: retry later or check the server",
                True,
            )
        if status == 408:
            return make(
                "timeout",
                f"{self.label} timed out the request (HTTP 408){detail}; retry, or raise "
                "judge.timeout_s",
                True,
            )
        context_text = f"{provider_code} {provider_message}"
        if status == 413 or (400 <= status < 500 and is_context_length_message(context_text)):
            return ContextLengthError(
                f"{self.label} refused the input as too long for the model (HTTP {status})"
                f"{detail}; use a model with a larger context, or lower evidence_chars so "
                "such turns are refused before any judge call",
                status=status,
            )
        if status == 404 and self.not_found_hint:
            return make(
                "http-4xx",
                f"{self.label} has no such route or model (HTTP 404){detail}; "
                f"{self.not_found_hint}",
                False,
            )
        if 400 <= status < 500:
            return make(
                "http-4xx",
                f"{self.label} rejected the request (HTTP {status}){detail}; check "
                "judge.model and judge.base_url",
                False,
            )
        return make(
            "http-status",
            f"{self.label} answered with unexpected HTTP {status} (redirects are not "
            "followed); check judge.base_url",
            False,
        )

    def _provider_error(self, response: Reply) -> tuple[str, str]:
        """The provider's ``(message, code)`` from an error body, redacted."""
        if response.status_code in (401, 403):
            return "", ""
        message = ""
        code = ""
        try:
            data = safejson.loads(response.content, max_depth=MAX_BODY_DEPTH)
        except safejson.JsonInputError:
            data = None
        if isinstance(data, dict):
            err = data.get("error", data)
            if isinstance(err, dict):
                if isinstance(err.get("message"), str):
                    message = err["message"]
                for key in ("code", "type"):
                    if isinstance(err.get(key), str) and err[key]:
                        code = err[key]
                        break
            elif isinstance(err, str):
                message = err
            if not message and isinstance(data.get("detail"), str):
                message = data["detail"]
        if not message:
            message = response.text
        return self._excerpt(message), self.redact(code)[:80]

    def _excerpt(self, text: str) -> str:
        flat = " ".join(self.redact(text).split())
        if len(flat) > _EXCERPT_CHARS:
            flat = flat[: _EXCERPT_CHARS - 1] + "…"
        return flat
