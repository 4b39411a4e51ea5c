"""Validation of settings values and profile documents (design.md §10), pydantic on need.

The authority is the pydantic model of a profile (:mod:`jev.settings.model`). Importing
pydantic costs about 100 ms of start-up, more than the rest of ``jev audit`` on a small
turn (``bench/cli_latency.py``), so every check here first asks
:func:`jev.settings.keys.certainly_valid`, which accepts the shipped defaults and the
usual values at a glance and never refuses anything; only a value it cannot accept
(a wrong type, out of range, a URL, a judge plugin's name, an unknown key) loads the
model, which decides and words the refusal. ``jev settings set``, ``jev ui``'s settings
page, loading a profile file and in-memory overrides all come through here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from jev.settings.keys import KEYS, TABLES, certainly_valid, parse_text, unknown_setting

if TYPE_CHECKING:
    from jev.settings.model import Refusal

__all__ = ["check_document", "parse_raw", "validate_value"]


def _plain_flat(document: Mapping[str, Any]) -> dict[str, Any] | None:
    """``{dotted key: value}`` when every key is one of :data:`KEYS` and ``judge`` is a
    table, else ``None`` (the model then names what is wrong)."""
    flat: dict[str, Any] = {}
    for key, value in document.items():
        if key in TABLES and isinstance(value, Mapping):
            for sub, sub_value in value.items():
                if f"{key}.{sub}" not in KEYS:
                    return None
                flat[f"{key}.{sub}"] = sub_value
        elif key in KEYS and "." not in key:
            flat[key] = value
        else:
            return None
    return flat


def check_document(
    document: Mapping[str, Any], profile: str | None = None
) -> tuple[dict[str, Any], list[Refusal]]:
    """Check a profile document (TOML shape, ``judge`` a table; complete or sparse).

    Args:
        document: the profile as TOML gives it.
        profile: only used to make the "how to fix" hints name the right profile.

    Returns:
        ``(flat, refusals)``: the document as ``{dotted key: value}`` (values as
        written) and every refusal (:class:`jev.settings.model.Refusal`: structural
        ones first, then values in the document's order); ``refusals`` is empty when
        the document is valid. When a refusal is structural, ``flat`` holds only the
        known keys.
    """
    flat = _plain_flat(document)
    if flat is not None and all(certainly_valid(k, v) for k, v in flat.items()):
        return flat, []
    # lazy: pydantic costs ~100 ms of start-up; only a value not certainly valid pays it.
    from jev.settings.model import refusals

    problems = refusals(document, profile)
    if flat is None:
        flat = {}
        for key, value in document.items():
            if key in TABLES and isinstance(value, Mapping):
                flat.update({f"{key}.{k}": v for k, v in value.items() if f"{key}.{k}" in KEYS})
            elif key in KEYS and "." not in key:
                flat[key] = value
    return flat, problems


def validate_value(key: str, value: object, *, profile: str | None = None) -> object:
    """Check one typed value against design.md §10 and return it (unchanged).

    Args:
        key: a dotted key of :data:`KEYS` (``max_supplements``, ``judge.model``, …).
        value: the typed value (``int``, ``float``, ``bool`` or ``str`` as TOML gives them).
            Strings are NOT converted: ``"3"`` for ``max_supplements`` is refused.
        profile: only used to make the "how to fix" hint name the right profile.

    Raises:
        SettingsError: unknown key, wrong type or out of range. The message names the key,
            the value given (never for ``judge.api_key_env``), the accepted range and the
            command that fixes it (:mod:`jev.settings.model`).
    """
    if key not in KEYS:
        raise unknown_setting(key)
    if certainly_valid(key, value):
        return value
    # lazy: pydantic costs ~100 ms of start-up; only a value not certainly valid pays it.
    from jev.settings import model as settings_model

    return settings_model.validate_value(key, value, profile=profile)


def parse_raw(key: str, raw: str, *, profile: str | None = None, exact: bool = False) -> object:
    """Turn command-line (or form) text into the typed, validated value for ``key``.

    Parsing rules and ``exact``: :func:`jev.settings.keys.parse_text`; then
    :func:`validate_value`. ``jev settings set`` and the settings page of ``jev ui``
    both come here.

    Raises:
        SettingsError: unknown key, unparsable text, or a refused value.
    """
    value = parse_text(key, raw, profile=profile, exact=exact)
    return validate_value(key, value, profile=profile)
