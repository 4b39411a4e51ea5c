"""Constrained replies for model judges (design.md §5, §6; issue 12 item 4).

Where a provider supports it, each audit sends a JSON schema built for *this*
material: ``assessment`` is the five-value enum and ``focus`` an enum of exactly this
audit's position ids (``R1…``, ``T1…``, ``A1…``, ``none``, ``all``), so a model can
only answer with a valid verdict that points at a real position. The reply parser
(:mod:`jev.pipeline.parse`) stays exactly as strict: constraints prevent bad replies, they do
not excuse them.

Reply modes, strongest first, per provider:

==============  ==========================================================  ==============
provider        modes                                                       how
==============  ==========================================================  ==============
``openai``      ``json_schema`` → ``json_object`` → ``text``                ``response_format``
                                                                            (``strict: true``)
``ollama``      ``json_schema`` → ``json_object`` → ``text``                ``format``: the
                                                                            schema, then ``"json"``
``anthropic``   ``tool`` → ``text``                                         a forced tool whose
                                                                            ``input_schema`` is
                                                                            the schema
==============  ==========================================================  ==============

When a provider refuses a mode (HTTP 400/422 whose error names the parameter), the
same call is repeated once in the next mode, and :data:`MEMORY` remembers for the rest
of the run (the process) what that base URL accepts, so later audits start there.
Which mode produced a reply is returned in :attr:`jev.base.domain.JudgeAnswer.reply_mode`
and written to the audit record (``judge.reply_mode``).
"""

from __future__ import annotations

import threading
from typing import Any

from jev.base.domain import ASSESSMENTS, Numbering
from jev.judges._http import ProviderHTTPError

__all__ = [
    "ANTHROPIC_MODES",
    "CONFIDENCE_VALUES",
    "DIALECTS",
    "MAX_ENUM_IDS",
    "MEMORY",
    "OPENAI_MODES",
    "TOOL_NAME",
    "ModeMemory",
    "refuses_mode",
    "reply_schema",
]

#: OpenAI-compatible and Ollama modes, strongest first.
OPENAI_MODES: tuple[str, ...] = ("json_schema", "json_object", "text")
#: Anthropic modes, strongest first (the Messages API has no JSON mode).
ANTHROPIC_MODES: tuple[str, ...] = ("tool", "text")
#: The forced tool's name (Anthropic) and the schema's name (OpenAI).
TOOL_NAME = "record_verdict"
#: Above this many position ids the focus is left a free string (providers cap enum
#: sizes); the audit then starts in the next mode without remembering it.
MAX_ENUM_IDS = 400

#: Words in a provider's 400/422 error that say it refused the reply constraint.
_REFUSAL_MARKERS = (
    "response_format",
    "json_schema",
    "json schema",
    "json_object",
    "json mode",
    "json_mode",
    "structured output",
    "strict",
    "schema",
    "format",
    "tool_choice",
    "tools",
    "tool use",
    "tool_use",
)


#: ``confidence`` bounded by its form: grammar decoding does not enforce ``minimum`` /
#: ``maximum`` (a small model wrote ``1e15`` in 38 of 82 replies, issue 20 item 3), but
#: it does enforce an enum. The parser ignores a confidence that is still bad.
CONFIDENCE_VALUES: tuple[float, ...] = tuple(i / 10 for i in range(11))

#: Reply-schema dialects, strongest first: ``verdicts`` is one branch per
#: assessment, each with the focus ids that fit it, for grammar decoders (llama.cpp
#: ``llama-server``, Ollama) that would otherwise let
#: ``{"assessment": "complete", "focus": "all"}`` through; ``flat`` is one object
#: (OpenAI strict mode forbids ``anyOf`` at the root; an Anthropic tool's
#: ``input_schema`` must be an object).
DIALECTS: tuple[str, ...] = ("verdicts", "flat")


def _focus_ids(numbering: Numbering, assessment: str) -> list[str]:
    """The focus ids that fit ``assessment`` (the parser's ``focus-mismatch`` rule)."""
    real = [p.id for p in numbering.positions if p.id not in ("none", "all")]
    if assessment == "complete":
        return ["none", *real]
    if assessment == "unknown":
        return ["all", *real]
    return real


def reply_schema(numbering: Numbering, dialect: str = "flat") -> dict[str, Any]:
    """The JSON schema of a valid reply for this material (design.md §6).

    Args:
        numbering: the audit's numbered material.
        dialect: ``flat`` or ``verdicts`` (:data:`DIALECTS`).

    Returns:
        ``flat``: ``{"type": "object", "properties": {"assessment": {enum of the five
        assessments}, "focus": {enum of every position id, ``none`` and ``all``
        included}, "confidence": {enum of :data:`CONFIDENCE_VALUES`}}, "required": [all
        three], "additionalProperties": false}`` — valid for OpenAI strict mode (every
        property required, no extra keys), Ollama ``format`` and an Anthropic tool's
        ``input_schema``. ``verdicts``: ``{"anyOf": [one such object per assessment,
        its ``assessment`` a one-value enum and its ``focus`` only the ids that fit it,
        ``confidence`` optional]}``. With more than :data:`MAX_ENUM_IDS` ids, ``focus``
        is a plain string (and the dialect is ``flat``).

    Raises:
        ValueError: an unknown ``dialect``.
    """
    if dialect not in DIALECTS:
        raise ValueError(f"unknown reply-schema dialect {dialect!r}; known: {', '.join(DIALECTS)}")
    ids = [p.id for p in numbering.positions]
    confidence: dict[str, Any] = {
        "type": "number",
        "enum": list(CONFIDENCE_VALUES),
        "description": "0 to 1 in tenths, diagnostic only",
    }
    focus: dict[str, Any] = {"type": "string", "description": "the position id that matters most"}
    if dialect == "verdicts" and len(ids) <= MAX_ENUM_IDS:
        return {
            "anyOf": [
                {
                    "type": "object",
                    "properties": {
                        "assessment": {"type": "string", "enum": [assessment]},
                        "focus": {**focus, "enum": _focus_ids(numbering, assessment)},
                        "confidence": confidence,
                    },
                    "required": ["assessment", "focus"],
                    "additionalProperties": False,
                }
                for assessment in ASSESSMENTS
            ]
        }
    if len(ids) <= MAX_ENUM_IDS:
        focus["enum"] = ids
    return {
        "type": "object",
        "properties": {
            "assessment": {"type": "string", "enum": list(ASSESSMENTS)},
            "focus": focus,
            "confidence": confidence,
        },
        "required": ["assessment", "focus", "confidence"],
        "additionalProperties": False,
    }


def refuses_mode(exc: ProviderHTTPError) -> bool:
    """Whether an HTTP error is the provider refusing the reply constraint (400/422
    naming ``response_format``, ``json_schema``, ``format``, ``tools``, …)."""
    if exc.status not in (400, 422):
        return False
    text = f"{exc.provider_code} {exc.provider_message}".lower()
    return any(marker in text for marker in _REFUSAL_MARKERS)


class ModeMemory:
    """What each base URL accepted during this run (thread-safe, process-wide).

    ``start(url, modes)`` is the mode to try first: the remembered one, or the
    strongest. ``refused(url, mode, modes)`` records a refusal and returns the next
    mode to try (``None`` when ``mode`` was the last).
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._modes: dict[str, str] = {}

    def start(self, url: str, modes: tuple[str, ...]) -> str:
        """The mode the next call to ``url`` starts in."""
        with self._lock:
            mode = self._modes.get(url, modes[0])
        return mode if mode in modes else modes[0]

    def refused(self, url: str, mode: str, modes: tuple[str, ...]) -> str | None:
        """``url`` refused ``mode``: remember and return the next weaker mode."""
        i = modes.index(mode) if mode in modes else len(modes) - 1
        if i + 1 >= len(modes):
            return None
        nxt = modes[i + 1]
        with self._lock:
            current = self._modes.get(url, modes[0])
            if current not in modes or modes.index(current) < i + 1:
                self._modes[url] = nxt
        return nxt

    def get(self, url: str) -> str | None:
        """The remembered mode of ``url``, if any refusal was seen."""
        with self._lock:
            return self._modes.get(url)

    def clear(self) -> None:
        """Forget everything (tests; a new run)."""
        with self._lock:
            self._modes.clear()


#: The run's memory, shared by every judge instance.
MEMORY = ModeMemory()
