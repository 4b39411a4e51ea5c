"""The ``anthropic`` judge: Anthropic Messages API over httpx (design.md §13).

One call is ``POST {base_url}/v1/messages`` with headers ``x-api-key`` (only when the
variable named by ``judge.api_key_env``, default ``ANTHROPIC_API_KEY``, holds a
value) and ``anthropic-version: 2023-06-01``, and the body::

    {"model": ..., "max_tokens": 256, "temperature": ...,
     "system": [{"type": "text", "text": <rules>,
                 "cache_control": {"type": "ephemeral"}}],
     "messages": [{"role": "user", "content": <material>}]}

With a constrained reply (:mod:`jev.judges.constrained`, mode ``tool``) the body also
has ``tools: [{"name": "record_verdict", "input_schema": <this audit's schema>}]`` and
``tool_choice: {"type": "tool", "name": "record_verdict"}``: the model must answer
through that tool, and the reply text is the tool call's ``input`` as JSON. If the
provider refuses tools (HTTP 400/422 naming them) the same call is repeated once as
plain text, and the base URL is remembered for the run. The mode used is
:attr:`JudgeAnswer.reply_mode`.

The system block carries ``cache_control`` so the fixed rules (identical across
audits, design.md §5) are a prompt-cache prefix; prompts shorter than the model's minimum
cacheable length are simply processed uncached (no error).

``judge.base_url`` is the API root like the SDK's ``ANTHROPIC_BASE_URL`` (default
``https://api.anthropic.com``); a trailing ``/v1`` is tolerated and not doubled.

The reply text is the concatenation of the ``text`` blocks of ``content`` (an empty
list gives ``""``, which the core turns into ``reply-missing``). Usage: input tokens
are ``input_tokens`` plus any ``cache_creation_input_tokens`` and
``cache_read_input_tokens`` (the whole prompt), output tokens are ``output_tokens``.

Errors are classified by :mod:`jev.judges._http`: 429 (with ``retry-after``) and 529
``overloaded_error`` are retryable; ``invalid_request_error`` "prompt is too long" is
a :class:`~jev.base.errors.ContextLengthError`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from typing import Any

from jev.base.domain import JudgeAnswer, JudgeInput, Numbering, Usage
from jev.base.errors import ContextLengthError, TransportError
from jev.judges._http import ProviderHTTPError, is_context_length_message
from jev.judges._http_judge import HttpJudge
from jev.judges.constrained import ANTHROPIC_MODES, MEMORY, TOOL_NAME, refuses_mode, reply_schema

__all__ = [
    "ANTHROPIC_VERSION",
    "DEFAULT_BASE_URL",
    "DEFAULT_KEY_ENV",
    "MAX_TOKENS",
    "AnthropicJudge",
]

#: Used when ``judge.base_url`` is empty.
DEFAULT_BASE_URL = "https://api.anthropic.com"
#: Used when ``judge.api_key_env`` is empty.
DEFAULT_KEY_ENV = "ANTHROPIC_API_KEY"
#: The ``anthropic-version`` header value.
ANTHROPIC_VERSION = "2023-06-01"
#: ``max_tokens`` per reply: the verdict JSON is a few dozen tokens.
MAX_TOKENS = 256


class AnthropicJudge(HttpJudge):
    """Judge over the Anthropic Messages API (see the module docstring).

    Args:
        model: model name (required; e.g. ``claude-haiku-4-5``).
        base_url: API root ("" = :data:`DEFAULT_BASE_URL`).
        api_key_env: environment variable holding the key ("" = ``ANTHROPIC_API_KEY``).
        timeout_s: seconds per call (> 0).
        temperature: sampling temperature (Anthropic accepts 0 … 1).
        max_tokens: reply token cap.
        environ: where to read the key (defaults to :data:`os.environ`).

    Raises:
        SettingsError: ``model`` is empty.
    """

    provider = "anthropic"
    default_base_url = DEFAULT_BASE_URL
    default_key_env = DEFAULT_KEY_ENV
    model_example = "claude-haiku-4-5"
    path = "/v1/messages"

    def __init__(
        self,
        *,
        model: str,
        base_url: str = "",
        api_key_env: str = "",
        timeout_s: float = 60.0,
        temperature: float = 0.0,
        max_tokens: int = MAX_TOKENS,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(
            model=model,
            base_url=base_url,
            api_key_env=api_key_env,
            timeout_s=timeout_s,
            temperature=temperature,
            environ=environ,
        )
        self.max_tokens = int(max_tokens)

    @staticmethod
    def _base(url: str) -> str:
        base = url.rstrip("/")
        return base[: -len("/v1")] if base.endswith("/v1") else base

    # -- Judge protocol -----------------------------------------------------------

    def ask(self, judge_input: JudgeInput, numbering: Numbering) -> JudgeAnswer:
        """POST one message; return the raw reply text (see the module docstring).

        Raises:
            TransportError: timeout, connection, HTTP status or bad body.
            ContextLengthError: "prompt is too long" and similar.
        """
        mode = first = MEMORY.start(self.url, ANTHROPIC_MODES)
        started = time.perf_counter()
        while True:
            try:
                data, latency_ms = self._poster.post(
                    self.url, self._headers(), self._body(judge_input, numbering, mode)
                )
                break
            except ProviderHTTPError as exc:
                mode = self._next_mode(exc, mode)
        if mode != first:  # a refusal, then this call: both requests count
            latency_ms = (time.perf_counter() - started) * 1000.0
        return self._answer(data, latency_ms, mode)

    @property
    def reply_mode(self) -> str:
        """The mode the next call starts in: ``tool`` or ``text``."""
        return MEMORY.start(self.url, ANTHROPIC_MODES)

    def _next_mode(self, exc: ProviderHTTPError, mode: str) -> str:
        """The mode to retry in after ``exc``; re-raises when it is no refusal."""
        nxt = MEMORY.refused(self.url, mode, ANTHROPIC_MODES) if refuses_mode(exc) else None
        if nxt is None:
            raise exc
        return nxt

    # -- internals ----------------------------------------------------------------

    def _headers(self) -> dict[str, str]:
        headers = {"Accept": "application/json", "anthropic-version": ANTHROPIC_VERSION}
        if self._key is not None:
            headers["x-api-key"] = self._key
        return headers

    def _body(self, judge_input: JudgeInput, numbering: Numbering, mode: str) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.info.model,
            "max_tokens": self.max_tokens,
            "temperature": self.temperature,
            "system": [
                {
                    "type": "text",
                    "text": judge_input.system,
                    "cache_control": {"type": "ephemeral"},
                }
            ],
            "messages": [{"role": "user", "content": judge_input.user}],
        }
        if mode == "tool":
            body["tools"] = [
                {
                    "name": TOOL_NAME,
                    "description": "Record the audit's verdict and the position it rests on.",
                    "input_schema": reply_schema(numbering),
                }
            ]
            body["tool_choice"] = {"type": "tool", "name": TOOL_NAME}
        return body

    def _answer(self, data: dict[str, Any], latency_ms: float, mode: str) -> JudgeAnswer:
        if data.get("type") == "error":
            err = data.get("error")
            raw = err.get("message", "") if isinstance(err, dict) else ""
            message = self._poster.redact(" ".join(str(raw).split()))[:300]
            if is_context_length_message(message):
                raise ContextLengthError(
                    f"{self._poster.label} refused the input as too long for the model: "
                    f"{message}; use a model with a larger context, or lower evidence_chars",
                    status=200,
                )
            raise TransportError(
                f"{self._poster.label} answered HTTP 200 with an error instead of a "
                f"message: {message or '(no message)'}; retry, or check judge.model",
                kind="provider-error",
                status=200,
                retryable=True,
            )
        content = data.get("content")
        text = ""
        if isinstance(content, list):
            text = "".join(
                block["text"]
                for block in content
                if isinstance(block, dict)
                and block.get("type") == "text"
                and isinstance(block.get("text"), str)
            )
            if mode == "tool":
                calls = [
                    block["input"]
                    for block in content
                    if isinstance(block, dict)
                    and block.get("type") == "tool_use"
                    and isinstance(block.get("input"), dict)
                ]
                if calls:  # the forced tool's input is the reply; parsed as strictly
                    text = json.dumps(calls[0], ensure_ascii=False)
        usage = data.get("usage")
        return JudgeAnswer(
            text=self._poster.redact(text),  # a provider echoing the key never spreads it
            usage=_usage(usage) if isinstance(usage, dict) else None,
            model=data["model"] if isinstance(data.get("model"), str) else self.info.model,
            latency_ms=latency_ms,
            reply_mode=mode,
        )


def _usage(usage: dict[str, Any]) -> Usage:
    def num(key: str) -> int | None:
        value = usage.get(key)
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    parts = [
        num(k) for k in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    ]
    present = [p for p in parts if p is not None]
    return Usage(
        input_tokens=sum(present) if parts[0] is not None else None,
        output_tokens=num("output_tokens"),
    )
