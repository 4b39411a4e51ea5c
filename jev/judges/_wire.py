"""Provider wire conventions shared by the HTTP judges (design.md §6, §10, §13).

``Retry-After`` parsing, the wording providers use for a too-long input, and reading
the API key from its environment variable. Re-exported by :mod:`jev.judges._http`.
"""

from __future__ import annotations

import email.utils
import math
import os
from collections.abc import Mapping
from datetime import UTC, datetime

from jev.base.errors import RETRY_AFTER_CAP_S, SettingsError, TransportError

__all__ = [
    "MAX_RETRY_AFTER_S",
    "ProviderHTTPError",
    "is_context_length_message",
    "parse_retry_after",
    "read_api_key",
]

#: Longest wait (seconds) honoured from a ``Retry-After`` header; larger values are capped.
MAX_RETRY_AFTER_S = RETRY_AFTER_CAP_S

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
    or blank (design.md §10: only the variable's name is ever stored). Surrounding
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
    ("prompt is too long"), llama.cpp, vLLM and DeepSeek wordings (design.md §7: the
    character budget does not promise the provider's token capacity).
    """
    lowered = text.lower()
    return any(marker in lowered for marker in _CONTEXT_MARKERS)


class ProviderHTTPError(TransportError):
    """A non-2xx HTTP status from the provider (design.md §6), already classified.

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
