"""The audit record: one per audit attempt (design.md §11), and its JSON line form.

A :class:`Record` is a plain value, built by :func:`jev.pipeline.record.build_record`
(the audit's last step) and kept by :mod:`jev.store`, which sits below the pipeline
and so reads it from here. Its exported form is one JSON object per line
(JSONL), modelled by :class:`jev.base.record_model.RecordModel` (pydantic) and described by
``schemas/record.schema.json`` (a test keeps the two in agreement);
:func:`validate_record_json` checks a line's object (pydantic is imported only for a
record in doubt, so this module stays cheap on every audit). The SQLite layout lives in
:mod:`jev.store`; nothing here does I/O except reading the shipped schema.

``round`` is defined as the normal-audit round the attempt belongs to, 1-based: the
first audit of a turn is round 1, the audit after supplement *k* is round *k + 1*.
An incomplete, stale, skipped or cancelled attempt carries the round it was trying
to be (``loop_before.audits + 1``), so a technical failure and its successful retry
share one round number, and neither counts as an extra normal audit (design.md §6, §8).

Plain ``dict`` values (``material``, ``loop_before``, ``loop_after``, ``action``,
``settings``) keep the record independent of :mod:`jev.base.loop_state` and of future shapes of
the value types they were built from.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from functools import cache
from typing import Any

from jev.base.domain import Material
from jev.base.resources import data_file
from jev.base.schemacheck import certainly_valid

__all__ = [
    "HOSTS",
    "RECORD_STATUSES",
    "Record",
    "iso_utc",
    "parse_iso_utc",
    "validate_record_json",
]

#: Jev's own host adapters (design.md §12). Records of a custom agent loop may carry any
#: other name of letters, digits, ``.``, ``_`` and ``-`` (``Auditor(host=...)``).
HOSTS: tuple[str, ...] = ("claude-code", "codex", "gemini", "cursor", "api", "cli")
#: ``verdict`` (normal audit), ``skipped`` (no audit due), ``incomplete`` (no valid
#: verdict), ``stale`` (verdict no longer applies to the turn, design.md §14), ``cancelled``.
RECORD_STATUSES: tuple[str, ...] = ("verdict", "skipped", "incomplete", "stale", "cancelled")


def iso_utc(ts: float) -> str:
    """Format epoch seconds as ISO-8601 UTC with milliseconds, e.g.
    ``2026-05-09T07:35:25.123Z``."""
    moment = datetime.fromtimestamp(ts, UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def parse_iso_utc(text: str) -> float:
    """Parse an ISO-8601 timestamp (``Z`` or an offset; naive means UTC) into epoch
    seconds.

    Raises:
        ValueError: when ``text`` is not an ISO-8601 timestamp.
    """
    moment = datetime.fromisoformat(text)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


@dataclass(frozen=True, slots=True)
class Record:
    """One audit attempt of one turn (design.md §11, §14).

    Attributes:
        id: assigned by the store; ``None`` before insertion.
        created_at: ISO-8601 UTC time of the attempt (see :func:`iso_utc`).
        profile: settings profile in force.
        host: one of :data:`HOSTS`.
        session: the host's session id.
        turn: the turn key (stable within the turn).
        turn_number: 1-based turn index within the session, when known.
        round: normal-audit round, 1-based (see the module docstring).
        status: one of :data:`RECORD_STATUSES`.
        material: the full material in turn-file shape (``Material.to_json()``), or
            ``None`` when the attempt had none (e.g. cancelled, material missing).
        material_hash: ``Material.digest()`` of the material judged ("" if none).
        input_chars: characters of the rendered judge input, if rendered.
        budget_chars: ``evidence_chars`` in force, in characters.
        judge: ``{"provider", "model", "heuristic"}`` or ``None``.
        raw_replies: raw reply text of every judge call, in order (any sequence is
            stored as a tuple).
        assessment: the verdict's assessment, for ``status == "verdict"``/``"stale"``.
        focus: ``{"id", "kind", "index", "quote", "status"}`` of the focus position
            (``quote`` is the exact original text), or ``None``.
        confidence: the judge's diagnostic confidence, if given.
        loop_before: the per-turn loop state before the decision (``LoopState`` JSON).
        loop_after: the loop state after the decision.
        action: the loop's action JSON (``{"kind", "round", "max_supplements",
            "reason"}``), or ``None``.
        supplement_text: the supplement sent to the agent, if any.
        supplements_used: supplements used in this turn after the decision.
        max_supplements: the turn's supplement budget.
        error_kind: ``JevError.kind`` of a failure, if any.
        reason: why the attempt was skipped/incomplete/stale/cancelled ("" otherwise).
        latency_ms: summed judge latency in milliseconds.
        usage: ``{"input_tokens", "output_tokens"}`` when reported, else ``None``.
        attempts: judge calls made (1 + technical retries used; 0 when none).
        settings: ``Settings.to_json()`` snapshot (holds the key's variable NAME only).
        jev_version: Jev's version string.
        template_hash: hash of the prompt templates used ("" if none rendered).
        language: prompt language used (``en``/``zh``, "" if none).
        steer: whether the host could send a supplement back into the turn when this
            audit was decided (False for ``jev retry`` from a shell: the turn had
            already stopped, so a problem verdict is shown to the user instead).
        input_notes: what Jev changed in its input to read the material, as
            ``{"kind", "count", "where"}`` objects (:class:`jev.base.domain.InputNote`;
            today lone surrogates replaced by U+FFFD, design.md §11). Exported only when
            there are some, so the digest of a record without any is unchanged.
        evidence: when the evidence step decided the verdict (issue 21), what it saw:
            ``{"kind", "rule", "command", "exit_code", "quote"}``
            (:class:`jev.base.domain.EvidenceNote`; the judge is then ``evidence``).
            Exported only when set.
    """

    created_at: str
    profile: str
    host: str
    session: str
    turn: str
    round: int
    status: str
    id: int | None = None
    turn_number: int | None = None
    material: dict[str, Any] | None = None
    material_hash: str = ""
    input_chars: int | None = None
    budget_chars: int | None = None
    judge: dict[str, Any] | None = None
    raw_replies: Sequence[str] = ()
    assessment: str | None = None
    focus: dict[str, Any] | None = None
    confidence: float | None = None
    loop_before: dict[str, Any] | None = None
    loop_after: dict[str, Any] | None = None
    action: dict[str, Any] | None = None
    supplement_text: str | None = None
    supplements_used: int = 0
    max_supplements: int = 0
    error_kind: str | None = None
    reason: str = ""
    latency_ms: float = 0.0
    usage: dict[str, Any] | None = None
    attempts: int = 0
    settings: dict[str, Any] | None = None
    jev_version: str = ""
    template_hash: str = ""
    language: str = ""
    steer: bool = True
    input_notes: Sequence[dict[str, Any]] = ()
    evidence: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        # Accept any sequence of strings (e.g. a list) and keep an immutable tuple, so
        # equality does not depend on the container the caller used.
        if not isinstance(self.raw_replies, tuple):
            object.__setattr__(self, "raw_replies", tuple(self.raw_replies))
        if not isinstance(self.input_notes, tuple):
            object.__setattr__(self, "input_notes", tuple(self.input_notes))

    def to_json(self) -> dict[str, Any]:
        """Return the exported JSON object (one JSONL line; ``record.schema.json``)."""
        data: dict[str, Any] = {
            "id": self.id,
            "created_at": self.created_at,
            "profile": self.profile,
            "host": self.host,
            "session": self.session,
            "turn": self.turn,
            "turn_number": self.turn_number,
            "round": self.round,
            "status": self.status,
            "material": self.material,
            "material_hash": self.material_hash,
            "input_chars": self.input_chars,
            "budget_chars": self.budget_chars,
            "judge": self.judge,
            "raw_replies": list(self.raw_replies),
            "assessment": self.assessment,
            "focus": self.focus,
            "confidence": self.confidence,
            "loop_before": self.loop_before,
            "loop_after": self.loop_after,
            "action": self.action,
            "supplement_text": self.supplement_text,
            "supplements_used": self.supplements_used,
            "max_supplements": self.max_supplements,
            "error_kind": self.error_kind,
            "reason": self.reason,
            "latency_ms": self.latency_ms,
            "usage": self.usage,
            "attempts": self.attempts,
            "settings": self.settings,
            "jev_version": self.jev_version,
            "template_hash": self.template_hash,
            "language": self.language,
            "steer": self.steer,
        }
        if self.input_notes:
            data["input_notes"] = [dict(n) for n in self.input_notes]
        if self.evidence is not None:
            data["evidence"] = dict(self.evidence)
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Record:
        """Build a record from its exported JSON object.

        The caller validates first (:func:`validate_record_json`); this only converts.

        Raises:
            KeyError / TypeError / ValueError: when required fields are missing or of
                the wrong type (unvalidated input).
        """
        latency = data.get("latency_ms", 0.0)
        confidence = data.get("confidence")
        return cls(
            id=data.get("id"),
            created_at=str(data["created_at"]),
            profile=str(data["profile"]),
            host=str(data["host"]),
            session=str(data["session"]),
            turn=str(data["turn"]),
            turn_number=data.get("turn_number"),
            round=int(data["round"]),
            status=str(data["status"]),
            material=_dict_or_none(data.get("material")),
            material_hash=str(data.get("material_hash") or ""),
            input_chars=data.get("input_chars"),
            budget_chars=data.get("budget_chars"),
            judge=_dict_or_none(data.get("judge")),
            raw_replies=tuple(str(r) for r in data.get("raw_replies") or ()),
            assessment=data.get("assessment"),
            focus=_dict_or_none(data.get("focus")),
            confidence=None if confidence is None else float(confidence),
            loop_before=_dict_or_none(data.get("loop_before")),
            loop_after=_dict_or_none(data.get("loop_after")),
            action=_dict_or_none(data.get("action")),
            supplement_text=data.get("supplement_text"),
            supplements_used=int(data.get("supplements_used", 0)),
            max_supplements=int(data.get("max_supplements", 0)),
            error_kind=data.get("error_kind"),
            reason=str(data.get("reason") or ""),
            latency_ms=float(latency),
            usage=_dict_or_none(data.get("usage")),
            attempts=int(data.get("attempts", 0)),
            settings=_dict_or_none(data.get("settings")),
            jev_version=str(data.get("jev_version") or ""),
            template_hash=str(data.get("template_hash") or ""),
            language=str(data.get("language") or ""),
            steer=bool(data.get("steer", True)),
            input_notes=tuple(dict(n) for n in data.get("input_notes") or ()),
            evidence=_dict_or_none(data.get("evidence")),
        )

    def with_id(self, record_id: int | None) -> Record:
        """Return a copy with ``id`` replaced (the store assigns ids)."""
        return replace(self, id=record_id)

    def digest(self) -> str:
        """SHA-256 hex of the record's canonical JSON without ``id``.

        Two records with the same digest are the same attempt; ``import`` uses this
        to skip records a store already holds.
        """
        data = self.to_json()
        data.pop("id")
        blob = json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()

    def turn_key(self) -> tuple[str, str, str]:
        """``(host, session, turn)``: the per-turn state key this record belongs to."""
        return (self.host, self.session, self.turn)

    def material_value(self) -> Material | None:
        """The stored material as a :class:`jev.base.domain.Material` (``None`` if absent)."""
        if self.material is None:
            return None
        return Material.from_json(self.material)


def _dict_or_none(value: Any) -> dict[str, Any] | None:
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise TypeError(f"expected an object or null, got {type(value).__name__}")
    return dict(value)


@cache
def _schema() -> dict[str, Any]:
    schema: dict[str, Any] = json.loads(
        data_file("schemas", "record.schema.json").read_text("utf-8")
    )
    return schema


def validate_record_json(data: Any) -> None:
    """Check one exported record object against the record model (design.md §11).

    The authority is :class:`jev.base.record_model.RecordModel` (pydantic), which agrees
    with ``schemas/record.schema.json`` (a test checks both ways). A record that
    :func:`jev.base.schemacheck.certainly_valid` accepts against that schema at a glance (every
    record Jev writes) does not import pydantic, which costs ~100 ms of start-up.

    Raises:
        ValueError: naming the first offending field (JSON path, e.g.
            ``field focus/index``) and the problem.
    """
    if certainly_valid(_schema(), data):
        return
    # lazy: pydantic costs ~100 ms of start-up; only a record in doubt pays it.
    from pydantic import ValidationError

    from jev.base.record_model import RecordModel

    try:
        RecordModel.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = [str(p) for p in first["loc"]]
        if first["type"] in ("missing", "extra_forbidden"):
            loc = loc[:-1]  # named in the message; the place is the object holding it
        where = "/".join(loc) or "(top level)"
        raise ValueError(f"field {where}: {_problem(first)}") from None


#: JSON type names of pydantic's ``*_type`` errors.
_JSON_TYPES = {"int": "integer", "float": "number", "string": "string", "bool": "boolean"}


def _problem(error: Mapping[str, Any]) -> str:
    """A pydantic error in words that show the value (cut to 80 characters)."""
    kind, ctx = str(error["type"]), error.get("ctx") or {}
    shown = repr(error.get("input"))
    shown = shown if len(shown) <= 80 else shown[:79] + "…"
    if kind == "greater_than_equal":
        return f"{shown} is less than the minimum of {ctx.get('ge')}"
    if kind == "literal_error":
        return f"{shown} is not one of {ctx.get('expected')}"
    if kind == "string_pattern_mismatch":
        return f"{shown} does not match {ctx.get('pattern')!r}"
    if kind.endswith("_type") and kind[:-5] in _JSON_TYPES:
        return f"{shown} is not of type {_JSON_TYPES[kind[:-5]]!r}"
    name = str(error["loc"][-1]) if error["loc"] else ""
    if kind == "missing":
        return f"{name!r} is a required property"
    if kind == "extra_forbidden":
        return f"additional properties are not allowed ({name!r} was unexpected)"
    return str(error.get("msg", "invalid"))
