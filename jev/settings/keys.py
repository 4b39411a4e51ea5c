"""The settings keys of design.md §10: their table (:data:`KEYS`: kind, bounds, accepted
range in words, an example), the cheap :func:`certainly_valid` first look, the words of
a refusal, and parsing of command-line text (:func:`parse_text`).

Pure and stdlib-only: no file is read or written here (:mod:`jev.settings.profiles` loads and
saves profiles), and pydantic is not imported: the validating model of a profile is
:mod:`jev.settings.model`, built from this table. Every refusal is a
:class:`~jev.base.errors.SettingsError` naming the key, the accepted range and the command
that fixes it.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass

from jev import registry
from jev.base.errors import SettingsError
from jev.base.loop_state import MAX_SUPPLEMENTS_LIMIT

__all__ = [
    "BUILTIN_JUDGES",
    "KEYS",
    "MAX_CHECKS",
    "MAX_CHECK_CHARS",
    "TABLES",
    "KeySpec",
    "certainly_valid",
    "commands_ok",
    "env_name_ok",
    "fix_hint",
    "looks_like_secret",
    "parse_text",
    "refusal",
    "unknown_setting",
]

#: Judges always accepted for ``judge.provider`` without importing the registry.
BUILTIN_JUDGES: tuple[str, ...] = tuple(registry.BUILTIN_JUDGES)

_ENV_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_INT_TEXT_RE = re.compile(r"[+-]?[0-9]+")
_NUMBER_TEXT_RE = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")
_TRUE_WORDS = ("true", "yes", "on")
_FALSE_WORDS = ("false", "no", "off")
# Prefixes of well-known secret formats (case-sensitive: env var names are upper case).
_KEY_PREFIXES = (
    "sk-",
    "sk_",
    "pk_",
    "rk_",
    "ghp_",
    "gho_",
    "ghs_",
    "ghu_",
    "github_pat_",
    "glpat-",
    "hf_",
    "xoxb-",
    "xoxp-",
    "AIza",
)
_AWS_KEY_RE = re.compile(r"(?:AKIA|ASIA)[0-9A-Z]{16}")
#: Most commands ``evidence.checks`` may hold, and characters per command.
MAX_CHECKS = 20
MAX_CHECK_CHARS = 2000


@dataclass(frozen=True, slots=True)
class KeySpec:
    """One settings key (design.md §10 table).

    Attributes:
        key: dotted key as written on the command line (``judge.model``).
        kind: ``bool`` | ``int`` | ``number`` | ``choice`` | ``provider`` | ``str`` |
            ``url`` | ``env-name`` | ``commands`` (a list of command strings).
        accepted: human description of the accepted values (used in messages).
        low / high: inclusive bounds for ``int``; for ``number`` ``low`` is exclusive
            when ``low_exclusive`` is set.
        choices: accepted strings for ``choice``.
        example: a valid value to show in "how to fix" hints.
    """

    key: str
    kind: str
    accepted: str
    example: str
    low: float | None = None
    high: float | None = None
    low_exclusive: bool = False
    choices: tuple[str, ...] = ()


KEYS: dict[str, KeySpec] = {
    s.key: s
    for s in (
        KeySpec("enabled", "bool", "true or false", "true"),
        KeySpec(
            "max_supplements",
            "int",
            f"an integer 1 … {MAX_SUPPLEMENTS_LIMIT:,} (maximum automatic supplement rounds)",
            "3",
            low=1,
            high=MAX_SUPPLEMENTS_LIMIT,
        ),
        KeySpec(
            "evidence_chars",
            "int",
            "an integer 1 … 1,000,000 (characters of judge input)",
            "24000",
            low=1,
            high=1_000_000,
        ),
        KeySpec("language", "choice", "auto, en or zh", "auto", choices=("auto", "en", "zh")),
        KeySpec(
            "records_days",
            "int",
            "an integer 1 … 3650 (days of record retention)",
            "30",
            low=1,
            high=3650,
        ),
        KeySpec("judge.provider", "provider", "a registered judge name", "rules"),
        KeySpec("judge.model", "str", "a model name (text; empty = provider default)", '""'),
        KeySpec(
            "judge.base_url",
            "url",
            'an http(s) URL such as https://api.deepseek.com, or "" for the provider default',
            "https://api.example.com/v1",
        ),
        KeySpec(
            "judge.api_key_env",
            "env-name",
            "the NAME of an environment variable (letters, digits, _; not starting with a "
            'digit), or "" for the provider\'s usual variable',
            "DEEPSEEK_API_KEY",
        ),
        KeySpec(
            "judge.timeout_s",
            "number",
            "a number of seconds > 0 and <= 600 (the whole judge call)",
            "60",
            low=0,
            high=600,
            low_exclusive=True,
        ),
        KeySpec("judge.temperature", "number", "a number 0 … 2", "0", low=0, high=2),
        KeySpec(
            "judge.technical_retries",
            "int",
            "an integer 0 … 10 (extra judge calls after a response error)",
            "1",
            low=0,
            high=10,
        ),
        KeySpec(
            "evidence.transcript",
            "bool",
            "true or false (compare the report's claims with the turn's own runs)",
            "true",
        ),
        KeySpec(
            "evidence.checks",
            "commands",
            f"a JSON list of at most {MAX_CHECKS} commands, each non-empty text of at most "
            f"{MAX_CHECK_CHARS} characters without NUL, e.g. "
            '\'["python -m pytest -q", "ruff check ."]\' (run when an audit would end complete)',
            "'[\"python -m pytest -q\"]'",
        ),
        KeySpec(
            "evidence.check_timeout_s",
            "number",
            "a number of seconds > 0 and <= 3600 (per check)",
            "120",
            low=0,
            high=3600,
            low_exclusive=True,
        ),
    )
}
#: Tables of a profile document and their keys' prefix (``[judge]``, ``[evidence]``).
TABLES: tuple[str, ...] = ("judge", "evidence")


def fix_hint(key: str, profile: str | None) -> str:
    """The command that sets ``key`` to a valid example value in ``profile``."""
    spec = KEYS[key]
    where = f" --profile {profile}" if profile and profile != "default" else ""
    return f"run `jev settings set {key} {spec.example}{where}`"


def refusal(key: str, value: object, why: str = "", *, profile: str | None = None) -> SettingsError:
    """The refusal of ``value`` for ``key``: value, accepted range and the fixing command.

    ``judge.api_key_env`` values are never shown (they may be the key itself).
    """
    spec = KEYS[key]
    shown = repr(value) if not isinstance(value, bool) else str(value).lower()
    extra = f" ({why})" if why else ""
    return SettingsError(
        f"{key} = {shown} is refused{extra}: accepted is {spec.accepted}; {fix_hint(key, profile)}."
    )


def unknown_setting(key: str) -> SettingsError:
    """The refusal of a dotted key that is not in :data:`KEYS`."""
    return SettingsError(f"unknown setting {key!r}; known settings: {', '.join(KEYS)}.")


def looks_like_secret(value: str) -> bool:
    """Whether ``value`` looks like an API key rather than a variable name."""
    if value.startswith(_KEY_PREFIXES) or _AWS_KEY_RE.fullmatch(value):
        return True
    if len(value) > 100:
        return True
    # Long random-looking text (mixed case + digits, no underscore) is a key, not a name.
    return (
        len(value) >= 24
        and "_" not in value
        and any(c.islower() for c in value)
        and any(c.isdigit() for c in value)
    )


def env_name_ok(value: str) -> bool:
    """Whether ``value`` is a plain environment-variable name and not a key."""
    return bool(_ENV_NAME_RE.fullmatch(value)) and not looks_like_secret(value)


def commands_ok(value: object) -> bool:
    """Whether ``value`` is an accepted ``evidence.checks`` list: at most
    :data:`MAX_CHECKS` non-blank strings of at most :data:`MAX_CHECK_CHARS` characters,
    none holding NUL."""
    return (
        type(value) is list
        and len(value) <= MAX_CHECKS
        and all(
            type(c) is str and c.strip() and len(c) <= MAX_CHECK_CHARS and "\0" not in c
            for c in value
        )
    )


def certainly_valid(key: str, value: object) -> bool:
    """True only when ``value`` is certainly accepted for ``key`` (design.md §10).

    The cheap first look of every settings check: the shipped defaults and the usual
    values pass it without importing pydantic (~100 ms of start-up, see
    :mod:`jev.settings.model`). It never refuses: a False sends the value to the
    pydantic model, which decides and words the refusal. A test checks that a True
    is never wrong.
    """
    spec = KEYS.get(key)
    if spec is None:
        return False
    kind = type(value)
    if spec.kind == "commands":
        return commands_ok(value)
    if spec.kind == "bool":
        return kind is bool
    if spec.kind in ("int", "number"):
        if kind is not int and not (spec.kind == "number" and kind is float):
            return False
        assert isinstance(value, int | float)
        if not math.isfinite(value) or spec.low is None or spec.high is None:
            return False
        above = value > spec.low if spec.low_exclusive else value >= spec.low
        return above and value <= spec.high
    if kind is not str:
        return False
    assert isinstance(value, str)
    if spec.kind == "choice":
        return value in spec.choices
    if spec.kind == "provider":
        return value in BUILTIN_JUDGES
    if spec.kind == "url":
        return value == ""
    if spec.kind == "env-name":
        return value == "" or env_name_ok(value)
    return True  # "str": any text


def _commands_text(key: str, text: str, hint: str) -> object:
    """A JSON list of command strings (``[]`` for none) from command-line text."""
    try:
        value = json.loads(text) if text else []
    except ValueError:
        raise SettingsError(
            f"{key} = {text[:80]!r} is refused (not a JSON list): accepted is "
            f"{KEYS[key].accepted}; {hint}."
        ) from None
    return value


def parse_text(key: str, raw: str, *, profile: str | None = None, exact: bool = False) -> object:
    """Turn command-line (or form) text into the typed value for ``key``.

    The value is not yet checked against its range: :func:`jev.settings.profiles.parse_raw`
    parses with this, then validates.

    Rules: ``bool`` keys accept ``true/false``, ``yes/no``, ``on/off`` (any case);
    integer keys accept only decimal integer text (``"3"``; not ``"3.0"``, ``"1e3"``,
    ``"0x10"``, ``"true"``, ``"1_000"``); number keys accept decimal text
    (``"60"``, ``"2.5"``); text keys take the text as given.

    Args:
        key: a dotted key of :data:`KEYS`.
        raw: the text typed by the user.
        profile: only used to make the "how to fix" hint name the right profile.
        exact: refuse spaces around the text of a ``bool``/``int``/``number`` key
            instead of ignoring them (the settings page, ``jev ui``: what is saved is
            exactly what the field shows, design.md §10). The command line passes False:
            a shell argument such as ``" 7 "`` means 7.

    Raises:
        SettingsError: unknown key or unparsable text.
    """
    spec = KEYS.get(key)
    if spec is None:
        raise unknown_setting(key)
    hint = fix_hint(key, profile)
    text = raw.strip()
    if exact and text != raw and spec.kind in ("bool", "int", "number"):
        raise SettingsError(
            f"{key} = {raw!r} is refused (spaces around the value): accepted is "
            f"{spec.accepted}; remove the spaces."
        )
    value: object
    if spec.kind == "bool":
        low = text.lower()
        if low in _TRUE_WORDS:
            value = True
        elif low in _FALSE_WORDS:
            value = False
        else:
            raise SettingsError(
                f"{key} = {raw!r} is refused: accepted is true or false (also yes/no, "
                f"on/off); {hint}."
            )
    elif spec.kind == "int":
        if not _INT_TEXT_RE.fullmatch(text) or len(text) > 40:
            raise SettingsError(
                f"{key} = {raw!r} is refused (not a decimal integer): accepted is "
                f"{spec.accepted}; {hint}."
            )
        value = int(text)
    elif spec.kind == "number":
        if not _NUMBER_TEXT_RE.fullmatch(text) or len(text) > 40:
            raise SettingsError(
                f"{key} = {raw!r} is refused (not a decimal number): accepted is "
                f"{spec.accepted}; {hint}."
            )
        value = float(text) if "." in text else int(text)
    elif spec.kind == "commands":
        value = _commands_text(key, text, hint)
    elif spec.kind == "env-name":
        value = raw  # never stripped or echoed: the validation decides
    else:
        value = raw
    return value
