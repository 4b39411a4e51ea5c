"""The ``openai`` judge: any OpenAI-compatible Chat Completions endpoint (design.md §13).

Works with OpenAI, DeepSeek, OpenRouter, vLLM, llama.cpp server, LM Studio and
Ollama. ``judge.base_url`` is used as given plus ``/chat/completions`` (exactly like
the OpenAI SDK's ``base_url``), so it normally ends in ``/v1``:

==============  ==========================================
provider        judge.base_url
==============  ==========================================
OpenAI          ``""`` (= ``https://api.openai.com/v1``)
DeepSeek        ``https://api.deepseek.com/v1``
Ollama          ``http://localhost:11434/v1`` (no key needed)
vLLM / LM Studio  ``http://HOST:PORT/v1``
==============  ==========================================

The key comes from the environment variable named by ``judge.api_key_env`` (default
``OPENAI_API_KEY``); the ``Authorization: Bearer`` header is sent only when that
variable holds a value, so local servers work without one.

One call sends exactly two messages, ``system`` = the fixed rules and ``user`` = the
material (design.md §5: rules first so providers can cache the prefix), with
``temperature`` and a constrained reply (:mod:`jev.judges.constrained`):
``response_format: {"type": "json_schema", "json_schema": {"name": "record_verdict",
"strict": true, "schema": <this audit's schema>}}``. If the provider refuses it (HTTP
400/422 naming the parameter), the same call is repeated once with
``{"type": "json_object"}``, then once more without ``response_format``; what a base
URL accepted is remembered for the rest of the run — capability negotiation, not a
technical retry. The mode used is :attr:`JudgeAnswer.reply_mode`.

The reply text is ``choices[0].message.content`` (text parts joined when the
provider sends a list). An empty ``choices`` list or a missing/null content gives a
:class:`~jev.base.domain.JudgeAnswer` with ``text=""``: the core's reply parser turns that
into the ``reply-missing`` response error, so every unusable reply is classified in
one place (``jev.pipeline.parse``).
"""

from __future__ import annotations

import threading
import time
from typing import Any

from jev.base.domain import JudgeAnswer, JudgeInput, Numbering, Usage
from jev.base.errors import ContextLengthError, TransportError
from jev.judges._http import ProviderHTTPError, is_context_length_message
from jev.judges._http_judge import HttpJudge
from jev.judges.constrained import (
    DIALECTS,
    MAX_ENUM_IDS,
    MEMORY,
    OPENAI_MODES,
    TOOL_NAME,
    refuses_mode,
    reply_schema,
)

__all__ = ["DEFAULT_BASE_URL", "DEFAULT_KEY_ENV", "OpenAIJudge"]

#: Used when ``judge.base_url`` is empty.
DEFAULT_BASE_URL = "https://api.openai.com/v1"
#: Used when ``judge.api_key_env`` is empty.
DEFAULT_KEY_ENV = "OPENAI_API_KEY"


class OpenAIJudge(HttpJudge):
    """Judge over OpenAI-compatible Chat Completions (see the module docstring).

    Args:
        model: model name sent as ``model`` (required; e.g. ``gpt-4o-mini``,
            ``deepseek-chat``, ``qwen2.5:7b`` for Ollama).
        base_url: API base ("" = :data:`DEFAULT_BASE_URL`); ``/chat/completions`` is
            appended after stripping a trailing ``/``.
        api_key_env: environment variable holding the key ("" = ``OPENAI_API_KEY``).
        timeout_s: seconds per call (> 0).
        temperature: sampling temperature (0 … 2).
        environ: where to read the key (defaults to :data:`os.environ`).

    Raises:
        SettingsError: ``model`` is empty.
    """

    provider = "openai"
    default_base_url = DEFAULT_BASE_URL
    default_key_env = DEFAULT_KEY_ENV
    model_example = "gpt-4o-mini (or the name your OpenAI-compatible server serves)"

    path = "/chat/completions"

    def _configure(self) -> None:
        self._lock = threading.Lock()

    @property
    def json_mode(self) -> bool:
        """Whether a ``response_format`` is still sent to this base URL (False once the
        provider refused both the schema and JSON mode)."""
        return MEMORY.start(self.url, OPENAI_MODES) != "text"

    @property
    def reply_mode(self) -> str:
        """The mode the next call starts in: ``json_schema``, ``json_object`` or ``text``."""
        return MEMORY.start(self.url, OPENAI_MODES)

    # -- Judge protocol -----------------------------------------------------------

    def ask(self, judge_input: JudgeInput, numbering: Numbering) -> JudgeAnswer:
        """POST one chat completion; return its raw content (see the module docstring).

        Raises:
            TransportError: timeout, connection, HTTP status or bad body
                (classified by :mod:`jev.judges._http`).
            ContextLengthError: the provider refused the input as too long.
        """
        mode = first = self._first_mode(numbering)
        started = time.perf_counter()
        while True:
            try:
                data, latency_ms = self._poster.post(
                    self.url, self._headers(), self._body(judge_input, numbering, mode)
                )
                break
            except ProviderHTTPError as exc:
                if mode == "json_schema" and self._dialect() == "verdicts" and _refuses_root(exc):
                    MEMORY.refused(self._dialect_key, "verdicts", DIALECTS)
                    continue  # the same mode, one flat object (OpenAI strict's shape)
                mode = self._next_mode(exc, mode)
        if mode != first:  # a refusal, then this call: both requests count
            latency_ms = (time.perf_counter() - started) * 1000.0
        return self._answer(data, latency_ms, mode)

    # -- internals ----------------------------------------------------------------

    def _first_mode(self, numbering: Numbering) -> str:
        mode = MEMORY.start(self.url, OPENAI_MODES)
        if mode == "json_schema" and len(numbering.positions) > MAX_ENUM_IDS:
            return "json_object"  # too many ids for an enum: this audit only
        return mode

    @property
    def _dialect_key(self) -> str:
        return f"{self.url}#reply-schema"

    def _dialect(self) -> str:
        """``flat`` for OpenAI's own API (strict mode forbids ``anyOf`` at the root) and
        for a server that refused the branches once; ``verdicts`` otherwise (issue 20
        item 3: grammar decoders such as llama-server enforce the verdict/focus pairing
        only when the schema spells it out)."""
        if self.url.startswith(DEFAULT_BASE_URL):
            return "flat"
        return MEMORY.start(self._dialect_key, DIALECTS)

    def _next_mode(self, exc: ProviderHTTPError, mode: str) -> str:
        """The mode to retry in after ``exc``; re-raises when it is no refusal."""
        nxt = MEMORY.refused(self.url, mode, OPENAI_MODES) if refuses_mode(exc) else None
        if nxt is None:
            raise exc
        return nxt

    def _headers(self) -> dict[str, str]:
        headers = {"Accept": "application/json"}
        if self._key is not None:
            headers["Authorization"] = f"Bearer {self._key}"
        return headers

    def _body(self, judge_input: JudgeInput, numbering: Numbering, mode: str) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.info.model,
            "messages": [
                {"role": "system", "content": judge_input.system},
                {"role": "user", "content": judge_input.user},
            ],
            "temperature": self.temperature,
        }
        if mode == "json_schema":
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {
                    "name": TOOL_NAME,
                    "strict": True,
                    "schema": reply_schema(numbering, self._dialect()),
                },
            }
        elif mode == "json_object":
            body["response_format"] = {"type": "json_object"}
        return body

    def _answer(self, data: dict[str, Any], latency_ms: float, mode: str) -> JudgeAnswer:
        if "choices" not in data and "error" in data:
            # Some gateways answer HTTP 200 with an error object instead of a status.
            err = data["error"]
            raw = err.get("message", "") if isinstance(err, dict) else str(err)
            message = self._poster.redact(" ".join(str(raw).split()))[:300]
            if is_context_length_message(message):
                raise ContextLengthError(
                    f"{self._poster.label} refused the input as too long for the model: "
                    f"{message}; use a model with a larger context, or lower evidence_chars",
                    status=200,
                )
            raise TransportError(
                f"{self._poster.label} answered HTTP 200 with an error instead of a "
                f"completion: {message or '(no message)'}; retry, or check judge.model",
                kind="provider-error",
                status=200,
                retryable=True,
            )
        text = ""
        choices = data.get("choices")
        if isinstance(choices, list) and choices and isinstance(choices[0], dict):
            message_obj = choices[0].get("message")
            if isinstance(message_obj, dict):
                text = _content_text(message_obj.get("content"))
        usage = data.get("usage")
        return JudgeAnswer(
            text=self._poster.redact(text),  # a provider echoing the key never spreads it
            usage=Usage(
                input_tokens=_int_or_none(usage, "prompt_tokens"),
                output_tokens=_int_or_none(usage, "completion_tokens"),
            )
            if isinstance(usage, dict)
            else None,
            model=data["model"] if isinstance(data.get("model"), str) else self.info.model,
            latency_ms=latency_ms,
            reply_mode=mode,
        )


def _refuses_root(exc: ProviderHTTPError) -> bool:
    """A 400/422 that refuses the per-verdict ``anyOf`` at the schema's root (OpenAI
    strict: "schema must be … 'type: "object"'"), not the reply constraint as such."""
    text = f"{exc.provider_code} {exc.provider_message}".lower()
    return refuses_mode(exc) and any(w in text for w in ("anyof", "root", "object"))


def _content_text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [
            part["text"]
            for part in content
            if isinstance(part, dict) and isinstance(part.get("text"), str)
        ]
        return "".join(parts)
    return ""


def _int_or_none(usage: dict[str, Any], key: str) -> int | None:
    value = usage.get(key)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    return None
