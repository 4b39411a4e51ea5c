"""The one boundary where httpx errors become :mod:`jev.errors` (SPEC §6, §11, §13).

Both HTTP judges (``openai``, ``anthropic``) POST one JSON body per judge call through
:class:`JsonPoster` and get back the parsed JSON object plus the latency. Every failure
is classified here, never retried here (the core retries):

==========================================  =================================  =========
what happened                               raised                             retryable
==========================================  =================================  =========
no answer within ``timeout_s``, HTTP 408    ``TransportError(kind="timeout")``  yes
connection refused, DNS failure, reset      ``TransportError(kind="connection")`` yes
invalid or non-http(s) URL                  ``kind="connection"``               no
HTTP 429                                    ``kind="rate-limited"`` +           yes
                                            ``retry_after_s`` (≤ 60 s)
HTTP 5xx (incl. Anthropic 529 overloaded)   ``kind="http-5xx"`` (+ Retry-After) yes
HTTP 401 / 403                              ``kind="auth"``                     no
HTTP 413, or 4xx naming a too-long prompt   :class:`~jev.errors.ContextLengthError` no
other HTTP 4xx (400, 404, 422, …)           ``kind="http-4xx"``                 no
other non-2xx (1xx/3xx: redirects)          ``kind="http-status"``              no
2xx whose body is not a JSON object         ``kind="bad-body"``                 yes
==========================================  =================================  =========

Status errors are raised as :class:`ProviderHTTPError` (a ``TransportError``) carrying
the provider's own short error message (``provider_message``), so a judge can do
capability negotiation (e.g. drop ``response_format`` once) without parsing text twice.

Secrets: messages are built here from the endpoint and status only; the provider's
error text is included after every configured secret is replaced by ``***`` (401/403
bodies are never included: OpenAI echoes part of the key there). httpx's own
exceptions are never chained (not even as ``__context__``), so no request object (which holds
the headers) is reachable from a Jev exception. Logs (logger ``jev.judges``) carry the
URL, status and latency, never headers or bodies.
"""

from __future__ import annotations

import email.utils
import json
import logging
import math
import os
import re
import ssl
import threading
import time
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, Self

import httpx

from jev.domain import JudgeInfo, JudgeSettings
from jev.errors import RETRY_AFTER_CAP_S, ContextLengthError, SettingsError, TransportError

__all__ = [
    "MAX_RETRY_AFTER_S",
    "HttpJudge",
    "JsonPoster",
    "ProviderHTTPError",
    "is_context_length_message",
    "parse_retry_after",
    "read_api_key",
]

log = logging.getLogger("jev.judges")

#: Longest wait (seconds) honoured from a ``Retry-After`` header; larger values are capped.
MAX_RETRY_AFTER_S = RETRY_AFTER_CAP_S
#: Characters of a provider's error message kept in Jev's messages.
_EXCERPT_CHARS = 300

# Lower-case phrases providers use when the input does not fit the model's context:
# OpenAI / DeepSeek / vLLM ("maximum context length"), OpenAI code
# "context_length_exceeded", Anthropic ("prompt is too long"), llama.cpp
# ("exceeds the available context size", type "exceed_context_size_error"), others.
_CONTEXT_MARKERS = (
    "context_length_exceeded",
    "maximum context length",
    "context length exceeded",
    "context window",
    "exceeds the available context",
    "exceed_context_size",
    "prompt is too long",
    "too many tokens",
    "input is too long",
    "reduce the length",
    "string_above_max_length",
)


class ProviderHTTPError(TransportError):
    """A non-2xx HTTP status from the provider (SPEC §6), already classified.

    Attributes:
        provider_message: the provider's own error message (``error.message`` of the
            JSON body, else the start of the body), with secrets replaced by ``***``,
            at most 300 characters; ``""`` for 401/403 (never shown).
        provider_code: ``error.code`` or ``error.type`` of the JSON body, if any.
    """

    def __init__(
        self,
        message: str,
        *,
        kind: str,
        status: int,
        retry_after_s: float | None,
        retryable: bool,
        provider_message: str,
        provider_code: str,
    ) -> None:
        super().__init__(
            message, kind=kind, status=status, retry_after_s=retry_after_s, retryable=retryable
        )
        self.provider_message = provider_message
        self.provider_code = provider_code


def parse_retry_after(headers: Mapping[str, str], *, now: datetime | None = None) -> float | None:
    """Seconds to wait before retrying, from response headers, capped at 60 s.

    Reads ``retry-after-ms`` (milliseconds, sent by OpenAI) first, then
    ``Retry-After`` as delay-seconds (integer or decimal) or an HTTP-date (RFC 9110
    §10.2.3). Negative delays and dates in the past give ``0.0``.

    Args:
        headers: response headers (case-insensitive mapping, e.g. ``httpx.Headers``).
        now: the current time for HTTP-dates (defaults to the system clock, UTC).

    Returns:
        the delay in seconds (0 … :data:`MAX_RETRY_AFTER_S`), or ``None`` when no
        usable header is present.
    """
    lowered = {k.lower(): v for k, v in headers.items()}
    raw_ms = lowered.get("retry-after-ms", "").strip()
    if raw_ms:
        try:
            ms = float(raw_ms)
        except ValueError:
            ms = math.nan
        if math.isfinite(ms):
            return _clamp_delay(ms / 1000.0)
    raw = lowered.get("retry-after", "").strip()
    if not raw:
        return None
    try:
        seconds = float(raw)
    except ValueError:
        seconds = math.nan
    if math.isfinite(seconds):
        return _clamp_delay(seconds)
    try:
        when = email.utils.parsedate_to_datetime(raw)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    current = now or datetime.now(UTC)
    return _clamp_delay((when - current).total_seconds())


def _clamp_delay(seconds: float) -> float:
    return min(max(seconds, 0.0), MAX_RETRY_AFTER_S)


def read_api_key(env_name: str, environ: Mapping[str, str] | None = None) -> str | None:
    """The API key held by environment variable ``env_name``, or ``None`` when unset
    or blank (SPEC §10: only the variable's name is ever stored). Surrounding
    whitespace is stripped. ``environ`` defaults to :data:`os.environ`.

    Raises:
        SettingsError: the value contains inner spaces, control or non-ASCII
            characters (the message names the variable, never the value).
    """
    source = os.environ if environ is None else environ
    value = source.get(env_name, "").strip()
    if value and not (value.isascii() and value.isprintable() and " " not in value):
        # An HTTP header cannot carry it, and httpx's encoding error would quote it.
        raise SettingsError(
            f"the environment variable {env_name} does not hold a usable API key (it "
            "contains spaces, control or non-ASCII characters); set it to the key "
            "exactly as the provider issued it"
        )
    return value or None


def is_context_length_message(text: str) -> bool:
    """True when a provider's error text says the input exceeds the model's context.

    Matches OpenAI (``context_length_exceeded``, "maximum context length"), Anthropic
    ("prompt is too long"), llama.cpp, vLLM and DeepSeek wordings (SPEC §7: the
    character budget does not promise the provider's token capacity).
    """
    lowered = text.lower()
    return any(marker in lowered for marker in _CONTEXT_MARKERS)


class JsonPoster:
    """POSTs JSON bodies to one provider endpoint and classifies every failure.

    One instance per judge, one ``httpx.Client`` per instance: created on first use
    and reused by every call (``httpx.Client`` is safe to share between threads, so
    concurrent callers — e.g. live replay's worker threads — share its connection
    pool; the SSL context is built once).

    Args:
        label: who is being called, for messages, e.g. ``"the openai judge at
            https://api.openai.com/v1"``.
        timeout_s: seconds allowed for the whole call (connect, write, read) (> 0).
        key_env: name of the environment variable that holds the API key, named in
            authentication messages (never its value).
        key_present: whether that variable held a key (to say "it is not set").
        secrets: strings that must never appear in any message (the API key).
    """

    __slots__ = (
        "_client",
        "_lock",
        "_secrets",
        "_ssl",
        "key_env",
        "key_present",
        "label",
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
    ) -> None:
        if not timeout_s > 0:
            raise ValueError(f"timeout_s must be > 0 seconds, got {timeout_s!r}")
        self.label = label
        self.timeout_s = float(timeout_s)
        self.key_env = key_env
        self.key_present = key_present
        self._secrets = tuple(s for s in secrets if s)
        self._client: httpx.Client | None = None
        self._ssl: ssl.SSLContext | None = None
        self._lock = threading.Lock()

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
        try:
            response = client.post(url, headers=dict(headers), json=body)
        except (httpx.HTTPError, httpx.InvalidURL) as exc:
            failure = self._translate_exception(exc)
        if failure is not None:
            # Raised outside the except block: no __context__ leads back to httpx's
            # request object (which holds the auth headers).
            raise failure
        latency_ms = (time.perf_counter() - started) * 1000.0
        return self._finish(url, response, latency_ms), latency_ms

    def close(self) -> None:
        """Close the sync connection pool (idempotent)."""
        with self._lock:
            client, self._client = self._client, None
        if client is not None:
            client.close()

    def redact(self, text: str) -> str:
        """``text`` with every configured secret (and any ``sk-…`` token starting
        with the same 8 characters) replaced by ``***``."""
        for secret in self._secrets:
            text = text.replace(secret, "***")
            if len(secret) >= 8:
                text = re.sub(re.escape(secret[:8]) + r"\S*", "***", text)
        return text

    # -- internals ----------------------------------------------------------------

    def _sync_client(self) -> httpx.Client:
        with self._lock:
            if self._client is None:
                self._client = httpx.Client(
                    timeout=self.timeout_s, follow_redirects=False, verify=self._ssl_context()
                )
            return self._client

    def _ssl_context(self) -> ssl.SSLContext:
        # Building a verifying SSL context costs ~40 ms of CPU; build it once per
        # judge, not once per call. httpx honours SSL_CERT_FILE/SSL_CERT_DIR.
        context = self._ssl
        if context is None:
            context = self._ssl = httpx.create_ssl_context()
        return context

    def _finish(self, url: str, response: httpx.Response, latency_ms: float) -> dict[str, Any]:
        log.debug("POST %s -> HTTP %s in %.0f ms", url, response.status_code, latency_ms)
        if not 200 <= response.status_code < 300:
            raise self._status_error(response)
        try:
            data = json.loads(response.content)
        except (ValueError, UnicodeDecodeError):
            data = None
        if not isinstance(data, dict):
            excerpt = self._excerpt(response.text) or "(empty)"
            raise TransportError(
                f"{self.label} answered HTTP {response.status_code} but the body is not a "
                f"JSON object (starts with: {excerpt!r}); check that judge.base_url points "
                "at an OpenAI-compatible or Anthropic API, or retry",
                kind="bad-body",
                status=response.status_code,
                retryable=True,
            )
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

    def _status_error(self, response: httpx.Response) -> TransportError:
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

    def _provider_error(self, response: httpx.Response) -> tuple[str, str]:
        """The provider's ``(message, code)`` from an error body, redacted."""
        if response.status_code in (401, 403):
            return "", ""
        message = ""
        code = ""
        try:
            data = json.loads(response.content)
        except (ValueError, UnicodeDecodeError):
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
            try:
                message = response.text
            except (UnicodeDecodeError, LookupError):
                message = ""
        return self._excerpt(message), self.redact(code)[:80]

    def _excerpt(self, text: str) -> str:
        flat = " ".join(self.redact(text).split())
        if len(flat) > _EXCERPT_CHARS:
            flat = flat[: _EXCERPT_CHARS - 1] + "…"
        return flat


class HttpJudge:
    """What every HTTP judge shares: settings checks, the key, the poster, repr, close.

    Subclasses set :attr:`provider`, :attr:`default_base_url`, :attr:`default_key_env`
    and :attr:`model_example`, may override :meth:`_base` to normalise the base URL,
    and implement ``ask`` (the :class:`jev.judges.Judge` protocol).

    Args:
        model: model name (required).
        base_url: API base ("" = :attr:`default_base_url`).
        api_key_env: environment variable holding the key ("" = :attr:`default_key_env`).
        timeout_s: seconds per call (> 0).
        temperature: sampling temperature.
        environ: where to read the key (defaults to :data:`os.environ`).

    Raises:
        SettingsError: ``model`` is empty, or the key variable holds an unusable value.
    """

    provider = ""
    default_base_url = ""
    default_key_env = ""
    model_example = ""

    def __init__(
        self,
        *,
        model: str,
        base_url: str = "",
        api_key_env: str = "",
        timeout_s: float = 60.0,
        temperature: float = 0.0,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        if not model.strip():
            raise SettingsError(
                f"judge.model is empty; the {self.provider} judge needs a model name, e.g. "
                f"`jev settings set judge.model {self.model_example}`"
            )
        self.base_url = self._base(base_url or self.default_base_url)
        self.api_key_env = api_key_env or self.default_key_env
        self.temperature = float(temperature)
        self.info = JudgeInfo(provider=self.provider, model=model, heuristic=False)
        key = read_api_key(self.api_key_env, environ)
        self._key = key
        self._poster = JsonPoster(
            label=f"the {self.provider} judge at {self.base_url}",
            timeout_s=timeout_s,
            key_env=self.api_key_env,
            key_present=key is not None,
            secrets=(key,) if key else (),
        )
        self.url = self.base_url + self.path
        self._configure()

    #: Appended to the base URL to form the endpoint.
    path = ""

    def _configure(self) -> None:
        """Per-provider state set up after the shared fields (override as needed)."""

    @classmethod
    def from_settings(cls, settings: JudgeSettings) -> Self:
        """Registry factory: build from a profile's ``[judge]`` table (SPEC §10).

        Raises:
            SettingsError: ``judge.model`` is empty.
        """
        return cls(
            model=settings.model,
            base_url=settings.base_url,
            api_key_env=settings.api_key_env,
            timeout_s=settings.timeout_s,
            temperature=settings.temperature,
        )

    @staticmethod
    def _base(url: str) -> str:
        return url.rstrip("/")

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(model={self.info.model!r}, base_url={self.base_url!r}, "
            f"api_key_env={self.api_key_env!r}, key_set={self._key is not None})"
        )

    def close(self) -> None:
        """Close the connection pool (idempotent)."""
        self._poster.close()
