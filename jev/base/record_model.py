"""The audit record's exported JSON object as a pydantic model (design.md §11).

:class:`RecordModel` is the authority on what one JSONL line of ``jev records export``
may hold: every field of :class:`jev.base.record.Record`, its JSON type, bounds, patterns
and enums, nested objects closed (``extra="forbid"``) except ``action``. The published
contract ``schemas/record.schema.json`` is kept as a hand-written file (readable, with
descriptions, and in the JSON Schema subset that :mod:`jev.base.schemacheck` evaluates
without jsonschema); a test checks that it and ``RecordModel.model_json_schema()``
agree on fields, types, required fields, enums, bounds and patterns, and that both
accept and refuse the same documents.

Types are strict (JSON as ``json.loads`` gives it): ``"round": "1"`` and
``"round": 1.0`` are refused, ``true`` is not an integer.

Importing this module imports pydantic (about 100 ms of start-up), so
:func:`jev.base.record.validate_record_json` loads it only for a record that
:func:`jev.base.schemacheck.certainly_valid` cannot accept at a glance.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictFloat, StrictInt, StrictStr

__all__ = [
    "ActionModel",
    "EvidenceModel",
    "FocusModel",
    "InputNoteModel",
    "MaterialModel",
    "RecordJudgeModel",
    "RecordModel",
    "TodoModel",
    "UsageModel",
]

_CLOSED = ConfigDict(strict=True, extra="forbid")

_Count = Annotated[StrictInt, Field(ge=0)]
_Number = StrictInt | StrictFloat  # a JSON number: 1 and 1.5 alike
_Ms = Annotated[StrictInt, Field(ge=0)] | Annotated[StrictFloat, Field(ge=0)]


class TodoModel(BaseModel):
    """One Todo item of the material (``Material.to_json()``)."""

    model_config = _CLOSED
    content: StrictStr
    status: StrictStr


class MaterialModel(BaseModel):
    """The full material in turn-file shape (design.md §3)."""

    model_config = _CLOSED
    request: list[StrictStr]
    todos: list[TodoModel]
    final_answer: StrictStr
    todo_used: StrictBool


class RecordJudgeModel(BaseModel):
    """The judge that answered (design.md §13)."""

    model_config = _CLOSED
    provider: StrictStr
    model: StrictStr
    heuristic: StrictBool
    #: How the judge's reply was constrained (design.md §6); absent for judges without modes.
    # May be absent, never null: pydantic does not validate a default.
    reply_mode: Literal["json_schema", "json_object", "tool", "text"] = Field(
        default=None  # type: ignore[arg-type]
    )


class FocusModel(BaseModel):
    """The focus position of the verdict and its exact original text (design.md §4)."""

    model_config = _CLOSED
    id: Annotated[StrictStr, Field(pattern=r"^([RTA][1-9][0-9]*|none|all)$")]
    kind: Literal["request", "todo", "answer", "none", "all"]
    index: _Count
    quote: StrictStr
    status: StrictStr | None


class ActionModel(BaseModel):
    """The loop's action (``Action.to_json()``; more fields allowed)."""

    model_config = ConfigDict(strict=True, extra="allow")
    kind: Annotated[StrictStr, Field(min_length=1)]
    round: _Count
    max_supplements: _Count
    reason: StrictStr


class UsageModel(BaseModel):
    """Token usage when the judge reported it."""

    model_config = _CLOSED
    input_tokens: _Count | None
    output_tokens: _Count | None


class InputNoteModel(BaseModel):
    """What Jev changed in its input to read the material (``InputNote.to_json()``)."""

    model_config = _CLOSED
    kind: Annotated[StrictStr, Field(min_length=1)]
    count: Annotated[StrictInt, Field(ge=1)]
    where: StrictStr


class EvidenceModel(BaseModel):
    """What the evidence step saw when it decided the verdict (``EvidenceNote.to_json()``)."""

    model_config = _CLOSED
    kind: Literal["run", "check"]
    rule: Annotated[StrictStr, Field(min_length=1)]
    command: StrictStr
    exit_code: StrictInt | None
    quote: StrictStr


class RecordModel(BaseModel):
    """One audit attempt of one turn, as exported (design.md §11, §14).

    Every field but ``steer``, ``input_notes`` and ``evidence`` must be present; absent values are
    ``null``. The
    meaning of each field: :class:`jev.base.record.Record`.
    """

    model_config = _CLOSED

    id: Annotated[StrictInt, Field(ge=1)] | None
    created_at: Annotated[
        StrictStr,
        Field(pattern=r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$"),
    ]
    profile: Annotated[StrictStr, Field(min_length=1)]
    host: Annotated[StrictStr, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")]
    session: StrictStr
    turn: Annotated[StrictStr, Field(min_length=1)]
    turn_number: Annotated[StrictInt, Field(ge=1)] | None
    round: Annotated[StrictInt, Field(ge=1)]
    status: Literal["verdict", "skipped", "incomplete", "stale", "cancelled"]
    material: MaterialModel | None
    material_hash: Annotated[StrictStr, Field(pattern=r"^([0-9a-f]{64})?$")]
    input_chars: _Count | None
    budget_chars: Annotated[StrictInt, Field(ge=1)] | None
    judge: RecordJudgeModel | None
    raw_replies: list[StrictStr]
    assessment: Literal["complete", "omission", "contradiction", "needs-user", "unknown"] | None
    focus: FocusModel | None
    confidence: _Number | None
    loop_before: dict[str, Any] | None
    loop_after: dict[str, Any] | None
    action: ActionModel | None
    supplement_text: StrictStr | None
    supplements_used: _Count
    max_supplements: _Count
    error_kind: StrictStr | None
    reason: StrictStr
    latency_ms: _Ms
    usage: UsageModel | None
    attempts: _Count
    settings: dict[str, Any] | None
    jev_version: StrictStr
    template_hash: StrictStr
    language: Literal["", "en", "zh"]
    steer: StrictBool = True
    #: Absent when Jev changed nothing in its input (design.md §11); never null.
    input_notes: list[InputNoteModel] = Field(default=None)  # type: ignore[arg-type]
    #: Absent unless the evidence step decided the verdict (issue 21); never null.
    evidence: EvidenceModel = Field(default=None)  # type: ignore[assignment]
