"""The settings profile as pydantic models: every key's type, range and default (design.md §10).

:class:`ProfileModel` (with its ``[judge]`` table :class:`JudgeModel`) is the authority
on what a profile may hold: strict types (``"3"`` is not 3, ``true`` is not 1, ``3.0``
is not an integer), the bounds of :data:`jev.settings.keys.KEYS`, the judge registry
for ``judge.provider``, and Jev's own rules for ``judge.base_url`` (no credentials) and
``judge.api_key_env`` (a variable NAME, never the key). Unknown keys are refused
(``extra="forbid"``). Its defaults are the shipped ``settings/default.toml`` (a test
checks they agree).

:func:`refusals` turns a pydantic ``ValidationError`` into Jev's words: for each
refused key, the message a :class:`~jev.base.errors.SettingsError` carries (key, value
unless it may be a secret, accepted range, the command that fixes it);
:mod:`jev.settings.profiles` adds the file and line. Pydantic's own text is never shown: it
echoes the input, which may be an API key.

Importing this module imports pydantic (about 100 ms of start-up, more than the rest
of ``jev audit``), so :mod:`jev.settings.profiles` imports it only for a value that
:func:`jev.settings.keys.certainly_valid` cannot accept at a glance.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Literal
from urllib.parse import parse_qsl, urlsplit

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictFloat,
    StrictInt,
    ValidationError,
    ValidationInfo,
)
from pydantic_core import PydanticCustomError

from jev import registry
from jev.base.errors import SettingsError
from jev.settings.keys import (
    BUILTIN_JUDGES,
    KEYS,
    TABLES,
    commands_ok,
    env_name_ok,
    fix_hint,
    looks_like_secret,
    refusal,
    unknown_setting,
)

__all__ = [
    "EvidenceModel",
    "JudgeModel",
    "ProfileModel",
    "Refusal",
    "refusals",
    "validate_value",
]

# Query parameter names that carry a credential (case-insensitive, any separator).
_SECRET_PARAM_RE = re.compile(
    r"(?:^|[-_.])(?:api[-_.]?key|key|token|access[-_.]?token|secret|password|passwd|pwd|"
    r"apikey|auth|authorization|signature|sig|credential|credentials|bearer)$",
    re.IGNORECASE,
)
#: pydantic error type of Jev's own refusals (the message is in ``ctx["message"]``).
_REFUSED = "jev_refused"


def _bounds(key: str) -> Any:
    """``Field`` constraints of a numeric key, from its row of :data:`KEYS`."""
    spec = KEYS[key]
    if spec.low_exclusive:
        return Field(gt=spec.low, le=spec.high)
    return Field(ge=spec.low, le=spec.high)


def _profile(info: ValidationInfo) -> str | None:
    context = info.context
    return context.get("profile") if isinstance(context, Mapping) else None


def _refuse(error: SettingsError) -> PydanticCustomError:
    return PydanticCustomError(_REFUSED, "{message}", {"message": str(error)})


def _provider(value: str, info: ValidationInfo) -> str:
    key = "judge.provider"
    if value in BUILTIN_JUDGES or registry.lookup(value) is not None:
        return value
    raise _refuse(
        SettingsError(
            f"{key} = {value!r} is refused: not a registered judge; accepted: "
            f"{', '.join(registry.offered_judge_names())}; {fix_hint(key, _profile(info))}."
        )
    )


def _base_url(value: str, info: ValidationInfo) -> str:
    key, profile = "judge.base_url", _profile(info)
    if value == "":
        return value
    if any(c.isspace() for c in value) or any(ord(c) < 32 for c in value):
        raise _refuse(refusal(key, value, "contains spaces or control characters", profile=profile))
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018  (raises ValueError for a bad port)
    except ValueError as exc:
        raise _refuse(refusal(key, value, f"not a valid URL: {exc}", profile=profile)) from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise _refuse(refusal(key, value, "not an http(s) URL with a host", profile=profile))
    if parts.username or parts.password:
        raise _refuse(
            SettingsError(
                f"{key} is refused: the URL carries credentials (user:password@), which Jev "
                "never stores; put the key in an environment variable and name it with "
                "`jev settings set judge.api_key_env NAME`."
            )
        )
    for name, _ in parse_qsl(parts.query + "&" + parts.fragment, keep_blank_values=True):
        if _SECRET_PARAM_RE.search(name):
            # Never echo the value (nor the URL): it holds the key.
            raise _refuse(
                SettingsError(
                    f"{key} is refused: the URL carries a credential in its query "
                    f"({name[:40]}=…), which Jev never stores; remove it, put the key in an "
                    "environment variable and name it with `jev settings set "
                    "judge.api_key_env NAME`."
                )
            )
    return value


def _api_key_env(value: str, info: ValidationInfo) -> str:
    if value == "" or env_name_ok(value):
        return value
    key = "judge.api_key_env"
    # Never echo the value: it may be the key itself.
    if looks_like_secret(value) or len(value) >= 20:
        why = "the value looks like an API key (not shown)"
    else:
        why = "the value is not an environment-variable name (not shown)"
    raise _refuse(
        SettingsError(
            f"{key} is refused: {why}. {key} holds only the NAME of the environment "
            "variable that contains the key, e.g. DEEPSEEK_API_KEY; Jev never stores the "
            f"key itself. Put the key in that variable (export DEEPSEEK_API_KEY=…) and "
            f"{fix_hint(key, _profile(info))}."
        )
    )


_STRICT = ConfigDict(strict=True, extra="forbid", frozen=True)
# Numbers: an int or a float within the key's bounds. An int stays an int, so
# ``timeout_s = 60`` is saved back as 60, not 60.0 (and records keep their bytes).
_TimeoutS = (
    Annotated[StrictInt, _bounds("judge.timeout_s")]
    | Annotated[StrictFloat, _bounds("judge.timeout_s")]
)
_Temperature = (
    Annotated[StrictInt, _bounds("judge.temperature")]
    | Annotated[StrictFloat, _bounds("judge.temperature")]
)


class JudgeModel(BaseModel):
    """The ``[judge]`` table of a profile (design.md §10, §13)."""

    model_config = _STRICT

    provider: Annotated[str, AfterValidator(_provider)] = "rules"
    model: str = ""
    base_url: Annotated[str, AfterValidator(_base_url)] = ""
    api_key_env: Annotated[str, AfterValidator(_api_key_env)] = ""
    timeout_s: _TimeoutS = 60
    temperature: _Temperature = 0
    technical_retries: Annotated[int, _bounds("judge.technical_retries")] = 1


def _checks(value: Any, info: ValidationInfo) -> Any:
    key = "evidence.checks"
    if commands_ok(value):
        return value
    raise _refuse(
        refusal(key, value if type(value) is list else type(value).__name__, profile=_profile(info))
    )


_CheckTimeoutS = (
    Annotated[StrictInt, _bounds("evidence.check_timeout_s")]
    | Annotated[StrictFloat, _bounds("evidence.check_timeout_s")]
)


class EvidenceModel(BaseModel):
    """The ``[evidence]`` table of a profile (issue 21)."""

    model_config = _STRICT

    transcript: bool = True
    checks: Annotated[Any, AfterValidator(_checks)] = Field(default_factory=list)
    check_timeout_s: _CheckTimeoutS = 120


class ProfileModel(BaseModel):
    """One profile document, ``[judge]`` nested (design.md §10)."""

    model_config = _STRICT

    enabled: bool = False
    max_supplements: Annotated[int, _bounds("max_supplements")] = 3
    evidence_chars: Annotated[int, _bounds("evidence_chars")] = 24_000
    language: Literal["auto", "en", "zh"] = "auto"
    records_days: Annotated[int, _bounds("records_days")] = 30
    judge: JudgeModel = Field(default_factory=JudgeModel)
    evidence: EvidenceModel = Field(default_factory=EvidenceModel)


@dataclass(frozen=True, slots=True)
class Refusal:
    """One refused part of a profile document.

    Attributes:
        key: the dotted key (``max_supplements``, ``judge.timeout_s``); for a structural
            refusal the offending name (an unknown key, or ``judge``).
        message: the whole refusal in Jev's words (without file and line).
        structural: True for an unknown key or a ``judge`` that is not a table (the
            document's shape, not one value).
    """

    key: str
    message: str
    structural: bool = False


def _dotted(loc: tuple[int | str, ...]) -> str:
    if len(loc) >= 2 and loc[0] in TABLES:
        return f"{loc[0]}.{loc[1]}"
    return str(loc[0]) if loc else ""


def _words(error: Mapping[str, Any], profile: str | None) -> Refusal:
    """One pydantic error as a :class:`Refusal` (the same words as before pydantic)."""
    loc = tuple(error["loc"])
    kind, value = error["type"], error.get("input")
    if kind == "extra_forbidden":
        if len(loc) >= 2 and loc[0] in TABLES:
            table = str(loc[0])
            known = ", ".join(k[len(table) + 1 :] for k in KEYS if k.startswith(table + "."))
            message = f"unknown key {loc[1]!r} in [{table}]; known: {known}. Remove or rename it."
            return Refusal(str(loc[1]), message, structural=True)
        known = ", ".join(k for k in KEYS if "." not in k)
        tables = ", ".join(f"[{t}]" for t in TABLES)
        message = f"unknown key {loc[0]!r}; known: {known}, {tables}. Remove or rename it."
        return Refusal(str(loc[0]), message, structural=True)
    key = _dotted(loc)
    if key in TABLES:
        return Refusal(key, f"'{key}' must be a table ([{key}]); fix or remove it.", True)
    spec = KEYS[key]
    if kind == _REFUSED:
        return Refusal(key, str(error["ctx"]["message"]))
    if kind == "string_type" and spec.kind == "env-name":
        message = (
            f"{key} must be text (the NAME of an environment variable); {fix_hint(key, profile)}."
        )
        return Refusal(key, message)
    why = ""
    if kind == "string_type":
        why = "not text"
    elif kind in ("int_type", "float_type"):
        why = "not an integer" if spec.kind == "int" else "not a number"
    elif kind in ("greater_than", "greater_than_equal", "less_than", "less_than_equal"):
        finite = not isinstance(value, float) or math.isfinite(value)
        why = "out of range" if finite else "not a finite number"
    elif kind not in ("bool_type", "literal_error"):
        why = str(error.get("msg", ""))[:120]
    return Refusal(key, str(refusal(key, value, why, profile=profile)))


def refusals(document: Mapping[str, Any], profile: str | None = None) -> list[Refusal]:
    """Every refused part of a profile ``document`` (TOML shape, ``judge`` a table).

    Args:
        document: the profile as TOML gives it, complete or sparse (missing keys take
            the model's defaults, which are always valid).
        profile: only used to make the "how to fix" hints name the right profile.

    Returns:
        Structural refusals first, then one refusal per refused key in the document's
        key order; ``[]`` when the document is valid.
    """
    try:
        ProfileModel.model_validate(document, context={"profile": profile})
    except ValidationError as exc:
        found: dict[str, Refusal] = {}
        wrong_type: set[str] = set()
        for error in exc.errors():
            words = _words(error, profile)
            # A number is an int or a float: the union reports once per member, and
            # the member of the value's own type says what is wrong (out of range).
            if words.key not in found or words.key in wrong_type:
                found[words.key] = words
                if str(error["type"]).endswith("_type"):
                    wrong_type.add(words.key)
                else:
                    wrong_type.discard(words.key)
        order = [str(k) for k in document]
        for table in TABLES:
            sub = document.get(table)
            order += [f"{table}.{k}" for k in sub] if isinstance(sub, Mapping) else []

        def rank(r: Refusal) -> tuple[bool, int]:
            return (not r.structural, order.index(r.key) if r.key in order else len(order))

        return sorted(found.values(), key=rank)
    return []


def validate_value(key: str, value: object, *, profile: str | None = None) -> object:
    """Check one typed value against the model and return it (design.md §10).

    Raises:
        SettingsError: unknown key, wrong type or out of range, in the words of
            :func:`refusals`.
    """
    if key not in KEYS:
        raise unknown_setting(key)
    table, _, name = key.rpartition(".")
    document: dict[str, Any] = {table: {name: value}} if table else {name: value}
    problems = refusals(document, profile)
    if problems:
        raise SettingsError(problems[0].message)
    return value
