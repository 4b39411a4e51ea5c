"""Step 5 of an audit, with :mod:`jev.pipeline.ask`: the judge's reply parsed (design.md §6).

:func:`parse_reply` turns the reply text into a :class:`~jev.base.domain.Verdict`;
:class:`jev.pipeline.ask.Attempts` calls it on every answer (the first valid one wins).

Accepted shapes (surrounding whitespace ignored):

* a bare JSON object: ``{"assessment": "omission", "focus": "R2", "confidence": 0.8}``;
* exactly one markdown code fence (```` ``` ```` or ``~~~``, with or without a
  language tag such as ``json``) holding such an object;
* either of these after one leading ``<think>…</think>`` block, which some
  reasoning models put in their message content.

Anything else — prose before or after the object or fence, two objects, an array —
is ``reply-malformed``. Then, in this order:

1. the object is validated against ``schemas/judge-reply.schema.json`` (draft
   2020-12) after the assessment is normalised (surrounding whitespace stripped,
   lower-cased: ``"Complete"`` is accepted as ``complete``; ``"needs_user"`` or
   ``"done"`` are not). Missing keys or wrong types are ``reply-schema``; an
   assessment string outside the five is ``unknown-assessment``. Extra keys are
   allowed and ignored; ``"confidence": null`` means not given. A ``confidence`` that
   is not a number in 0…1 (``1e15``, sixty digits, ``"high"``, ``true``) is dropped as
   not given: a bad diagnostic field never costs a verdict (issue 20 item 3).
2. the focus id is normalised (whitespace stripped; ``r2`` → ``R2``, ``NONE`` →
   ``none``) and must name a position Jev generated (``unknown-focus``);
3. the focus must fit the assessment (``focus-mismatch``): ``omission``,
   ``contradiction`` and ``needs-user`` need a real position (R#/T#/A#);
   ``complete`` takes ``none`` or a real position, not ``all``; ``unknown`` takes
   ``all`` or a real position, not ``none``.

Every failure raises :class:`jev.base.errors.ResponseError` with its kind, a short message
saying what was wrong, and the raw text. Pure apart from reading the shipped schema
once; jsonschema is imported on first use.
"""

from __future__ import annotations

import json
import re
from functools import cache
from typing import TYPE_CHECKING, Any

from jev.base.domain import ASSESSMENTS, Numbering, Position, Verdict
from jev.base.errors import ResponseError
from jev.base.resources import data_file
from jev.base.safejson import too_deep
from jev.base.schemacheck import certainly_valid

if TYPE_CHECKING:
    from jsonschema.protocols import Validator

__all__ = ["REPLY_SCHEMA", "parse_reply"]

#: File name of the reply schema inside the shipped ``schemas/`` folder.
REPLY_SCHEMA = "judge-reply.schema.json"

_THINK = re.compile(r"\A\s*<think>.*?</think>", re.DOTALL)
_FENCE = re.compile(
    r"\A(?P<fence>`{3,}|~{3,})[ \t]*(?P<tag>[A-Za-z0-9_+.-]*)[ \t]*(?:\r?\n)?"
    r"(?P<body>.*?)(?:\r?\n)?[ \t]*(?P=fence)\Z",
    re.DOTALL,
)
_REAL_ID = re.compile(r"([RTA])([1-9][0-9]*)", re.IGNORECASE)
_REAL_KINDS = frozenset({"request", "todo", "answer"})
_SNIPPET = 40


def _short(value: Any) -> str:
    """A short repr of a model-supplied value for an error message."""
    text = repr(value)
    return text if len(text) <= _SNIPPET else text[: _SNIPPET - 1] + "…"


@cache
def _schema() -> dict[str, Any]:
    schema: dict[str, Any] = json.loads(data_file("schemas", REPLY_SCHEMA).read_text("utf-8"))
    return schema


@cache
def _validator() -> Validator:
    # lazy: jsonschema loads only for a reply that is not certainly valid (start-up cost).
    from jsonschema import Draft202012Validator

    validator: Validator = Draft202012Validator(_schema())
    return validator


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise ValueError(f"key {key!r} appears twice")
        result[key] = value
    return result


#: Deepest nesting accepted in a judge reply (levels); the contract needs 1.
_MAX_REPLY_DEPTH = 16
_DECODER = json.JSONDecoder(object_pairs_hook=_no_duplicates, parse_constant=_reject_constant)


def _extract_object(text: str) -> dict[str, Any]:
    """The one JSON object of the reply, or ResponseError(reply-missing|reply-malformed)."""
    if not text or text.isspace():
        raise ResponseError("reply-missing", "the judge's reply is empty", text)
    body = text.strip()
    think = _THINK.match(body)
    if think:
        body = body[think.end() :].strip()
        if not body:
            raise ResponseError("reply-missing", "the judge's reply holds only reasoning", text)
    if body[:3] in ("```", "~~~"):
        fence = _FENCE.match(body)
        if not fence:
            raise ResponseError(
                "reply-malformed",
                "the judge's reply is not exactly one closed code fence around a JSON object",
                text,
            )
        body = fence.group("body").strip()
        if not body:
            raise ResponseError("reply-missing", "the judge's code fence is empty", text)
    if not body.startswith("{"):
        raise ResponseError(
            "reply-malformed",
            "the judge's reply is not a JSON object (text or another JSON value around it)",
            text,
        )
    try:
        value, end = _DECODER.raw_decode(body)
    except RecursionError:
        value, end = None, -1
    except ValueError as exc:  # syntax, duplicate key, NaN, an int over 4,300 digits
        reason = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc).split(";")[0]
        raise ResponseError(
            "reply-malformed", f"the judge's reply is not valid JSON: {reason}", text
        ) from None
    if end < 0 or (
        body.count("{") + body.count("[") > _MAX_REPLY_DEPTH and too_deep(value, _MAX_REPLY_DEPTH)
    ):
        raise ResponseError(
            "reply-malformed",
            f"the judge's reply nests deeper than {_MAX_REPLY_DEPTH} levels",
            text,
        )
    rest = body[end:].strip()
    if rest:
        what = "several JSON values" if rest[:1] in "{[" else "text after the JSON object"
        raise ResponseError("reply-malformed", f"the judge's reply has {what}", text)
    if not isinstance(value, dict):  # pragma: no cover - body starts with "{"
        raise ResponseError("reply-malformed", "the judge's reply is not a JSON object", text)
    return value


def _normalise_focus(focus: str) -> str:
    focus = focus.strip()
    real = _REAL_ID.fullmatch(focus)
    if real:
        return real.group(1).upper() + real.group(2)
    return focus.lower() if focus.lower() in ("none", "all") else focus


def _check_fit(assessment: str, focus: Position, text: str) -> None:
    if assessment in ("omission", "contradiction", "needs-user"):
        if focus.kind not in _REAL_KINDS:
            raise ResponseError(
                "focus-mismatch",
                f"{assessment} needs a real position (R#, T# or A#), not {focus.id!r}",
                text,
            )
    elif assessment == "complete" and focus.kind == "all":
        raise ResponseError(
            "focus-mismatch", "complete takes 'none' or a real position, not 'all'", text
        )
    elif assessment == "unknown" and focus.kind == "none":
        raise ResponseError(
            "focus-mismatch", "unknown takes 'all' or a real position, not 'none'", text
        )


def _drop_bad_confidence(obj: dict[str, Any]) -> dict[str, Any]:
    """``obj`` without its ``confidence`` when that is not a finite number in 0…1."""
    value = obj.get("confidence")
    if value is None:
        return obj
    ok = isinstance(value, int | float) and not isinstance(value, bool)
    if ok:
        try:
            ok = 0.0 <= float(value) <= 1.0
        except OverflowError:  # an integer of hundreds of digits
            ok = False
    return obj if ok else {k: v for k, v in obj.items() if k != "confidence"}


def parse_reply(text: str, numbering: Numbering) -> Verdict:
    """Parse one raw judge reply into a verdict for this numbering (design.md §6).

    Args:
        text: the judge's raw message content (see the module docstring for the
            accepted shapes).
        numbering: the numbering the judge was shown; the focus must name one of its
            positions.

    Returns:
        A :class:`~jev.base.domain.Verdict` with the normalised assessment, the focus
        mapped back to its :class:`~jev.base.domain.Position` (kind, index, exact quote)
        and ``confidence`` as a float in 0…1 or ``None``.

    Raises:
        ResponseError: kind ``reply-missing`` (empty), ``reply-malformed`` (not one
            JSON object), ``reply-schema`` (keys/types/range), ``unknown-assessment``,
            ``unknown-focus`` or ``focus-mismatch``; ``raw`` carries ``text``.
    """
    obj = _drop_bad_confidence(_extract_object(text))
    assessment_raw = obj.get("assessment")
    if isinstance(assessment_raw, str):
        obj = {**obj, "assessment": assessment_raw.strip().lower()}
    errors = [] if certainly_valid(_schema(), obj) else list(_validator().iter_errors(obj))
    schema_errors = [
        e for e in errors if not (list(e.absolute_path) == ["assessment"] and e.validator == "enum")
    ]
    if schema_errors:
        first = min(schema_errors, key=lambda e: list(map(str, e.absolute_path)))
        where = "/".join(map(str, first.absolute_path)) or "reply"
        detail = first.message if len(first.message) <= 120 else first.message[:119] + "…"
        raise ResponseError(
            "reply-schema", f"the judge's reply breaks the reply schema at {where}: {detail}", text
        )
    if errors:
        raise ResponseError(
            "unknown-assessment",
            f"assessment {_short(assessment_raw)} is not one of {', '.join(ASSESSMENTS)}",
            text,
        )
    assessment: str = obj["assessment"]
    focus_id = _normalise_focus(obj["focus"])
    position = numbering.get(focus_id)
    if position is None:
        raise ResponseError(
            "unknown-focus", f"focus {_short(obj['focus'])} names no position of this audit", text
        )
    _check_fit(assessment, position, text)
    confidence = obj.get("confidence")
    return Verdict(
        assessment=assessment,
        focus=position,
        confidence=None if confidence is None else float(confidence),
    )
