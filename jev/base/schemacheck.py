"""A fast "certainly valid" check for Jev's own JSON Schemas, so jsonschema loads only on need.

Importing jsonschema costs tens of milliseconds (it loads every meta-schema), which
``jev audit`` and a hook's audit would pay on every run just to accept well-formed
input. :func:`certainly_valid` interprets the small subset of JSON Schema that
``schemas/`` uses and answers ``True`` only when the data is valid under it; the
callers then skip jsonschema. Anything else — invalid data, or a keyword this subset
does not know — answers ``False``, and the caller runs jsonschema, which stays the
authority and writes the error message. Every rule here is at least as strict as the
specification (``integer`` refuses ``1.0``; ``enum`` compares types too; ``oneOf``
needs the other branches to fail on ``type``), so a ``True`` is never wrong; a test
checks that against jsonschema on valid and mutated documents of each schema.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache
from typing import Any

__all__ = ["certainly_valid"]

#: Keywords that only annotate (no effect on validity).
_ANNOTATIONS = frozenset({"$schema", "$id", "title", "description", "default", "examples"})
#: Keywords this subset evaluates.
_KNOWN = frozenset(
    {
        "type",
        "enum",
        "minimum",
        "maximum",
        "minLength",
        "maxLength",
        "pattern",
        "required",
        "properties",
        "additionalProperties",
        "items",
        "minItems",
        "oneOf",
    }
)


@cache
def _regex(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def _is_type(value: Any, name: str) -> bool:
    if name == "null":
        return value is None
    if name == "boolean":
        return isinstance(value, bool)
    if name == "integer":
        return type(value) is int
    if name == "number":
        return type(value) in (int, float)
    if name == "string":
        return isinstance(value, str)
    if name == "array":
        return isinstance(value, list)
    if name == "object":
        return isinstance(value, dict)
    return False


def _type_fails(schema: Mapping[str, Any], value: Any) -> bool:
    """Whether ``value`` certainly fails ``schema`` on its ``type`` keyword alone."""
    kind = schema.get("type")
    if kind is None:
        return False
    names = [kind] if isinstance(kind, str) else list(kind)
    # integer-valued floats are integers to JSON Schema: not a certain failure
    if isinstance(value, float) and "integer" in names:
        return False
    return not any(_is_type(value, n) for n in names)


def certainly_valid(schema: Mapping[str, Any], value: Any) -> bool:
    """``True`` only if ``value`` is valid under ``schema`` (see the module docstring).

    Args:
        schema: a JSON Schema as loaded from ``schemas/`` (a dict).
        value: decoded JSON data.

    Returns:
        ``True``: valid, jsonschema need not run. ``False``: invalid, or not decidable
        here — run jsonschema.
    """
    for key in schema:
        if key not in _KNOWN and key not in _ANNOTATIONS:
            return False
    kind = schema.get("type")
    if kind is not None:
        names = [kind] if isinstance(kind, str) else list(kind)
        if not any(_is_type(value, n) for n in names):
            return False
    if "enum" in schema and not any(
        type(value) is type(option) and value == option for option in schema["enum"]
    ):
        return False
    if type(value) in (int, float):
        if "minimum" in schema and not value >= schema["minimum"]:
            return False
        if "maximum" in schema and not value <= schema["maximum"]:
            return False
    if isinstance(value, str):
        if "minLength" in schema and len(value) < schema["minLength"]:
            return False
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            return False
        if "pattern" in schema and not _regex(schema["pattern"]).search(value):
            return False
    if isinstance(value, list):
        if "minItems" in schema and len(value) < schema["minItems"]:
            return False
        items = schema.get("items")
        if items is not None and not all(certainly_valid(items, v) for v in value):
            return False
    if isinstance(value, dict) and not _object_valid(schema, value):
        return False
    if "oneOf" in schema:
        branches = schema["oneOf"]
        passing = [b for b in branches if certainly_valid(b, value)]
        if len(passing) != 1:
            return False
        if not all(b is passing[0] or _type_fails(b, value) for b in branches):
            return False
    return True


def _object_valid(schema: Mapping[str, Any], value: dict[str, Any]) -> bool:
    if any(name not in value for name in schema.get("required", ())):
        return False
    properties: Mapping[str, Any] = schema.get("properties", {})
    extra = schema.get("additionalProperties", True)
    if extra is False:
        if any(name not in properties for name in value):
            return False
    elif extra is not True:
        return False  # a schema for extra properties: not in this subset
    return all(
        certainly_valid(sub, value[name]) for name, sub in properties.items() if name in value
    )
