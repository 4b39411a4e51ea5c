"""The ``ollama`` judge: Ollama's native chat API with a constrained reply (design.md §13;
design.md §6).

One call is ``POST {base_url}/api/chat`` (default base ``http://localhost:11434``; a
trailing ``/v1`` or ``/api`` is tolerated) with the body::

    {"model": ..., "stream": false, "options": {"temperature": ...},
     "messages": [{"role": "system", "content": <rules>},
                  {"role": "user", "content": <material>}],
     "format": <this audit's JSON schema>}

``format`` carries the schema of :func:`jev.judges.constrained.reply_schema`
(``assessment`` enum, ``focus`` enum of this audit's position ids); an Ollama that
refuses it (HTTP 400 naming ``format``) is asked once more with ``"format": "json"``,
then without ``format``, and the base URL is remembered for the run. The reply text is
``message.content``; usage is ``prompt_eval_count`` / ``eval_count``. No key is sent
unless ``judge.api_key_env`` names a variable that holds one (a proxy in front of
Ollama), then as ``Authorization: Bearer``.
"""

from __future__ import annotations

import time
from typing import Any

from jev.base.domain import JudgeAnswer, JudgeInput, Numbering, Usage
from jev.base.errors import ContextLengthError, TransportError
from jev.judges._http import ProviderHTTPError, is_context_length_message
from jev.judges._http_judge import HttpJudge
from jev.judges.constrained import MAX_ENUM_IDS, MEMORY, OPENAI_MODES, refuses_mode, reply_schema

__all__ = ["DEFAULT_BASE_URL", "DEFAULT_KEY_ENV", "OllamaJudge"]

#: Used when ``judge.base_url`` is empty.
DEFAULT_BASE_URL = "http://localhost:11434"
#: Used when ``judge.api_key_env`` is empty (normally unset: Ollama needs no key).
DEFAULT_KEY_ENV = "OLLAMA_API_KEY"


class OllamaJudge(HttpJudge):
    """Judge over Ollama's ``/api/chat`` (see the module docstring).

    Args:
        model: model name (required; e.g. ``qwen2.5:7b``).
        base_url: server root ("" = :data:`DEFAULT_BASE_URL`).
        api_key_env: variable holding an optional bearer key ("" = ``OLLAMA_API_KEY``).
        timeout_s: seconds per call (> 0).
        temperature: sampling temperature.

    Raises:
        SettingsError: ``model`` is empty.
    """

    not_found_hint = (
        "check judge.model (`ollama list` names the models pulled), and that "
        "judge.base_url is an Ollama server (it answers /api/chat); a server that is not "
        "Ollama, such as llama-server or vLLM, is the openai provider: `jev settings set "
        "judge.provider openai` with its …/v1 base URL"
    )

    provider = "ollama"
    default_base_url = DEFAULT_BASE_URL
    default_key_env = DEFAULT_KEY_ENV
    model_example = "qwen2.5:7b"
    path = "/api/chat"
    #: A local Ollama needs no key (one behind a proxy may: OLLAMA_API_KEY is sent then).
    key_required = False

    @staticmethod
    def _base(url: str) -> str:
        base = url.rstrip("/")
        for tail in ("/v1", "/api"):
            if base.endswith(tail):
                base = base[: -len(tail)]
        return base

    @property
    def reply_mode(self) -> str:
        """The mode the next call starts in: ``json_schema``, ``json_object`` or ``text``."""
        return MEMORY.start(self.url, OPENAI_MODES)

    def ask(self, judge_input: JudgeInput, numbering: Numbering) -> JudgeAnswer:
        """POST one chat; return the raw reply text (see the module docstring).

        Raises:
            TransportError: timeout, connection, HTTP status or bad body.
            ContextLengthError: the server refused the input as too long.
        """
        mode = first = MEMORY.start(self.url, OPENAI_MODES)
        if mode == "json_schema" and len(numbering.positions) > MAX_ENUM_IDS:
            mode = first = "json_object"
        started = time.perf_counter()
        while True:
            try:
                data, latency_ms = self._poster.post(
                    self.url, self._headers(), self._body(judge_input, numbering, mode)
                )
                break
            except ProviderHTTPError as exc:
                nxt = MEMORY.refused(self.url, mode, OPENAI_MODES) if refuses_mode(exc) else None
                if nxt is None:
                    raise
                mode = nxt
        if mode != first:  # a refusal, then this call: both requests count
            latency_ms = (time.perf_counter() - started) * 1000.0
        return self._answer(data, latency_ms, mode)

    def _headers(self) -> dict[str, str]:
        headers = {"Accept": "application/json"}
        if self._key is not None:
            headers["Authorization"] = f"Bearer {self._key}"
        return headers

    def _body(self, judge_input: JudgeInput, numbering: Numbering, mode: str) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.info.model,
            "stream": False,
            "options": {"temperature": self.temperature},
            "messages": [
                {"role": "system", "content": judge_input.system},
                {"role": "user", "content": judge_input.user},
            ],
        }
        if mode == "json_schema":
            # Ollama decodes with a grammar: the per-verdict branches hold (issue 20 item 3)
            body["format"] = reply_schema(numbering, "verdicts")
        elif mode == "json_object":
            body["format"] = "json"
        return body

    def _answer(self, data: dict[str, Any], latency_ms: float, mode: str) -> JudgeAnswer:
        if "message" not in data and isinstance(data.get("error"), str):
            message = self._poster.redact(" ".join(data["error"].split()))[:300]
            if is_context_length_message(message):
                raise ContextLengthError(
                    f"{self._poster.label} refused the input as too long for the model: "
                    f"{message}; use a model with a larger context, or lower evidence_chars",
                    status=200,
                )
            raise TransportError(
                f"{self._poster.label} answered HTTP 200 with an error instead of a reply: "
                f"{message or '(no message)'}; retry, or check judge.model",
                kind="provider-error",
                status=200,
                retryable=True,
            )
        message_obj = data.get("message")
        content = message_obj.get("content") if isinstance(message_obj, dict) else None
        text = content if isinstance(content, str) else ""

        def count(key: str) -> int | None:
            value = data.get(key)
            return value if isinstance(value, int) and not isinstance(value, bool) else None

        tin, tout = count("prompt_eval_count"), count("eval_count")
        return JudgeAnswer(
            text=self._poster.redact(text),
            usage=None if tin is None and tout is None else Usage(tin, tout),
            model=data["model"] if isinstance(data.get("model"), str) else self.info.model,
            latency_ms=latency_ms,
            reply_mode=mode,
        )
