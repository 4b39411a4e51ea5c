"""The settings keys of design.md §10: their table (:data:`KEYS`), validation of a typed
value (:func:`validate_value`) and parsing of command-line text (:func:`parse_raw`).

Pure: no file is read or written here (:mod:`jev.settings` loads and saves profiles).
Every refusal is a :class:`~jev.errors.SettingsError` naming the key, the accepted
range and the command that fixes it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass

from jev import registry
from jev.errors import SettingsError
from jev.loop import MAX_SUPPLEMENTS_LIMIT

__all__ = ["BUILTIN_JUDGES", "KEYS", "KeySpec", "parse_raw", "validate_value"]

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
# Query parameter names that carry a credential (case-insensitive, any separator).
_SECRET_PARAM_RE = re.compile(
    r"(?:^|[-_.])(?:api[-_.]?key|key|token|access[-_.]?token|secret|password|passwd|pwd|"
    r"apikey|auth|authorization|signature|sig|credential|credentials|bearer)$",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class KeySpec:
    """One settings key (design.md §10 table).

    Attributes:
        key: dotted key as written on the command line (``judge.model``).
        kind: ``bool`` | ``int`` | ``number`` | ``choice`` | ``provider`` | ``str`` |
            ``url`` | ``env-name``.
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
    )
}


def _fix_hint(key: str, profile: str | None) -> str:
    spec = KEYS[key]
    where = f" --profile {profile}" if profile and profile != "default" else ""
    return f"run `jev settings set {key} {spec.example}{where}`"


def _builtin_or_registered(name: str) -> tuple[bool, list[str]]:
    if name in BUILTIN_JUDGES:
        return True, list(BUILTIN_JUDGES)
    # A non-built-in name: ask the registry (in-process registrations and plugins).
    return registry.lookup(name) is not None, registry.judge_names()


def _looks_like_secret(value: str) -> bool:
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


def validate_value(key: str, value: object, *, profile: str | None = None) -> object:
    """Check one typed value against design.md §10 and return it (normalised).

    Args:
        key: a dotted key of :data:`KEYS` (``max_supplements``, ``judge.model``, …).
        value: the typed value (``int``, ``float``, ``bool`` or ``str`` as TOML gives them).
            Strings are NOT converted: ``"3"`` for ``max_supplements`` is refused.
        profile: only used to make the "how to fix" hint name the right profile.

    Returns:
        The value (``str`` values of ``judge.base_url``/``api_key_env`` unchanged).

    Raises:
        SettingsError: unknown key, wrong type or out of range. The message names the key,
            the value given (never for ``judge.api_key_env``), the accepted range and the
            command that fixes it.
    """
    spec = KEYS.get(key)
    if spec is None:
        raise SettingsError(f"unknown setting {key!r}; known settings: {', '.join(KEYS)}.")
    hint = _fix_hint(key, profile)

    def refuse(why: str = "") -> SettingsError:
        shown = repr(value) if not isinstance(value, bool) else str(value).lower()
        extra = f" ({why})" if why else ""
        return SettingsError(
            f"{key} = {shown} is refused{extra}: accepted is {spec.accepted}; {hint}."
        )

    if spec.kind == "bool":
        if not isinstance(value, bool):
            raise refuse()
        return value
    if spec.kind == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            raise refuse("not an integer")
        assert spec.low is not None and spec.high is not None
        if not spec.low <= value <= spec.high:
            raise refuse("out of range")
        return value
    if spec.kind == "number":
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise refuse("not a number")
        if isinstance(value, float) and not math.isfinite(value):
            raise refuse("not a finite number")
        low, high = spec.low, spec.high
        if low is not None and (value <= low if spec.low_exclusive else value < low):
            raise refuse("out of range")
        if high is not None and value > high:
            raise refuse("out of range")
        return value
    if not isinstance(value, str):
        if spec.kind == "env-name":
            raise SettingsError(
                f"{key} must be text (the NAME of an environment variable); {hint}."
            )
        raise refuse("not text")
    if spec.kind == "choice":
        if value not in spec.choices:
            raise refuse()
        return value
    if spec.kind == "provider":
        ok, names = _builtin_or_registered(value)
        if not ok:
            raise SettingsError(
                f"{key} = {value!r} is refused: not a registered judge; accepted: "
                f"{', '.join(names)}; {hint}."
            )
        return value
    if spec.kind == "url":
        return _validate_url(key, value, refuse)
    if spec.kind == "env-name":
        return _validate_env_name(key, value, hint)
    return value  # "str": any text


def _validate_url(key: str, value: str, refuse: Callable[[str], SettingsError]) -> str:
    if value == "":
        return value
    from urllib.parse import urlsplit

    if any(c.isspace() for c in value) or any(ord(c) < 32 for c in value):
        raise refuse("contains spaces or control characters")
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018  (raises ValueError for a bad port)
    except ValueError as exc:
        raise refuse(f"not a valid URL: {exc}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise refuse("not an http(s) URL with a host")
    if parts.username or parts.password:
        raise SettingsError(
            f"{key} is refused: the URL carries credentials (user:password@), which Jev "
            "never stores; put the key in an environment variable and name it with "
            "`jev settings set judge.api_key_env NAME`."
        )
    from urllib.parse import parse_qsl

    for name, _ in parse_qsl(parts.query + "&" + parts.fragment, keep_blank_values=True):
        if _SECRET_PARAM_RE.search(name):
            # Never echo the value (nor the URL): it holds the key.
            raise SettingsError(
                f"{key} is refused: the URL carries a credential in its query "
                f"({name[:40]}=…), which Jev never stores; remove it, put the key in an "
                "environment variable and name it with `jev settings set "
                "judge.api_key_env NAME`."
            )
    return value


def _validate_env_name(key: str, value: str, hint: str) -> str:
    if value == "":
        return value
    if _looks_like_secret(value) or not _ENV_NAME_RE.fullmatch(value):
        # Never echo the value: it may be the key itself.
        if _looks_like_secret(value) or len(value) >= 20:
            why = "the value looks like an API key (not shown)"
        else:
            why = "the value is not an environment-variable name (not shown)"
        raise SettingsError(
            f"{key} is refused: {why}. {key} holds only the NAME of the environment "
            "variable that contains the key, e.g. DEEPSEEK_API_KEY; Jev never stores the "
            f"key itself. Put the key in that variable (export DEEPSEEK_API_KEY=…) and "
            f"{hint}."
        )
    return value


def parse_raw(key: str, raw: str, *, profile: str | None = None, exact: bool = False) -> object:
    """Turn command-line (or form) text into the typed value for ``key`` (then validate it).

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
        SettingsError: unknown key, unparsable text, or a value refused by
            :func:`validate_value`.
    """
    spec = KEYS.get(key)
    if spec is None:
        raise SettingsError(f"unknown setting {key!r}; known settings: {', '.join(KEYS)}.")
    hint = _fix_hint(key, profile)
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
    elif spec.kind == "env-name":
        value = raw  # never stripped or echoed: validate_value decides
    else:
        value = raw
    return validate_value(key, value, profile=profile)
