"""Scrubbing secrets from everything the store writes (design.md §11). Stdlib only.

The values of the known provider key variables (:data:`KEY_ENV_NAMES`), of the
variable named by a record's ``settings.judge.api_key_env`` and of any extra names
given to the store are replaced with ``[REDACTED]``, as are ``Authorization`` /
``x-api-key`` header values and ``Bearer`` tokens. Values shorter than 8 characters
are not treated as keys. A scrubbed material no longer matches its ``material_hash``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from typing import Any

from jev.base.record import Record
from jev.base.redaction import redact_secrets

__all__ = ["KEY_ENV_NAMES", "REDACTED", "record_key_env", "redact", "scrub", "secret_values"]

#: What a scrubbed secret is replaced with.
REDACTED = "[REDACTED]"
#: Provider key variables whose values never reach the store.
KEY_ENV_NAMES: tuple[str, ...] = (
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "DEEPSEEK_API_KEY",
    "OPENROUTER_API_KEY",
    "GROQ_API_KEY",
    "MISTRAL_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "TOGETHER_API_KEY",
    "XAI_API_KEY",
    "FIREWORKS_API_KEY",
    "DASHSCOPE_API_KEY",
    "MOONSHOT_API_KEY",
    "AZURE_OPENAI_API_KEY",
)
_MIN_SECRET_CHARS = 8

_HEADER_RE = re.compile(
    r"(?i)\b(authorization|x-api-key)(\"?\s*[:=]\s*\"?)(bearer\s+|basic\s+)?[^\s\"',;]+"
)
_BEARER_RE = re.compile(r"(?i)\bbearer\s+[A-Za-z0-9._~+/=-]{8,}")


def secret_values(extra_names: Sequence[str]) -> tuple[str, ...]:
    """The values (>= 8 characters, longest first) of the key variables and
    ``extra_names`` currently set in the environment."""
    values = {os.environ.get(name, "") for name in (*KEY_ENV_NAMES, *extra_names) if name}
    keep = [v for v in values if len(v) >= _MIN_SECRET_CHARS]
    return tuple(sorted(keep, key=len, reverse=True))


def scrub(value: Any, secrets: tuple[str, ...]) -> Any:
    """``value`` (str or JSON-like nesting) with ``secrets``, header values and
    ``Bearer`` tokens replaced by :data:`REDACTED`; tuples come back as lists."""
    if isinstance(value, str):
        # Any case, without its prefix, any 12-character fragment (jev.base.redaction).
        value = redact_secrets(value, secrets, REDACTED)
        value = _HEADER_RE.sub(
            lambda m: f"{m.group(1)}{m.group(2)}{m.group(3) or ''}{REDACTED}", value
        )
        return _BEARER_RE.sub(lambda m: m.group(0).split()[0] + " " + REDACTED, value)
    if isinstance(value, Mapping):
        return {scrub(k, secrets): scrub(v, secrets) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [scrub(v, secrets) for v in value]
    return value


def redact(value: Any, extra_env_names: Sequence[str] = ()) -> Any:
    """Return ``value`` (str, or JSON-like dict/list nesting) with secrets replaced.

    Replaces the values of :data:`KEY_ENV_NAMES` and ``extra_env_names`` found in the
    environment (when at least 8 characters long), ``Authorization``/``x-api-key``
    header values and ``Bearer`` tokens with :data:`REDACTED` (design.md §11). Tuples
    come back as lists.
    """
    return scrub(value, secret_values(extra_env_names))


def record_key_env(record: Record) -> tuple[str, ...]:
    """The record's ``settings.judge.api_key_env`` name as a 0- or 1-tuple."""
    judge = (record.settings or {}).get("judge")
    if isinstance(judge, Mapping):
        name = judge.get("api_key_env")
        if isinstance(name, str) and name:
            return (name,)
    return ()
