"""Settings are described once (issue 24 item 3): every other description agrees.

The source is the key table :data:`jev.settings.keys.KEYS` (stdlib-only, so the
hook's fast path and ``certainly_valid`` never import pydantic). The pydantic model
:mod:`jev.settings.model` takes its numeric bounds from it (``_bounds``); these tests
fail as soon as one of the hand-written descriptions disagrees with it:

* the model: the same keys, each key's type, bounds and choices (its JSON schema);
* the table of ``docs/design.md`` §10: the same keys, the shipped defaults, the ranges;
* the command line: ``--language`` choices, the ``--evidence-chars`` range check and
  the ranges named in option help;
* the ``jev ui`` settings form: its choices and the ranges its help names.
"""

from __future__ import annotations

import argparse
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

from jev.base.errors import UsageError
from jev.base.resources import data_file
from jev.settings import model as sm
from jev.settings.keys import KEYS

ROOT = Path(__file__).resolve().parents[2]
#: "1 … 3650", "0..10", "1 … 1,000,000" (integers with thousands separators).
_RANGE_RE = re.compile(r"(\d[\d,]*)\s*(?:…|\.\.)\s*(\d[\d,]*)")


def _number(text: str) -> int:
    return int(text.replace(",", ""))


def _property(key: str) -> dict[str, Any]:
    schema = sm.ProfileModel.model_json_schema()
    table, _, name = key.partition(".")
    if not name:
        return dict(schema["properties"][key])
    model = {"judge": "JudgeModel", "evidence": "EvidenceModel"}[table]
    return dict(schema["$defs"][model]["properties"][name])


def _members(prop: dict[str, Any]) -> list[dict[str, Any]]:
    return list(prop.get("anyOf", [prop]))


def _shipped() -> dict[str, Any]:
    document = tomllib.loads(data_file("settings", "default.toml").read_text("utf-8"))
    flat: dict[str, Any] = {}
    for name, value in document.items():
        if isinstance(value, dict):
            flat.update({f"{name}.{k}": v for k, v in value.items()})
        else:
            flat[name] = value
    return flat


@pytest.mark.parametrize("key", list(KEYS))
def test_the_model_agrees_with_the_key_table(key: str) -> None:
    spec, members = KEYS[key], _members(_property(key))
    types = {m.get("type") for m in members}
    expected_types = {
        "bool": {"boolean"},
        "int": {"integer"},
        "number": {"integer", "number"},
        "choice": {"string"},
        "provider": {"string"},
        "str": {"string"},
        "url": {"string"},
        "env-name": {"string"},
        "commands": {None},  # validated by Jev's own rule (commands_ok), not by type
    }[spec.kind]
    assert types == expected_types, (key, types)
    if spec.kind in ("int", "number"):
        low = "exclusiveMinimum" if spec.low_exclusive else "minimum"
        assert {m[low] for m in members} == {spec.low}, key
        assert {m["maximum"] for m in members} == {spec.high}, key
    if spec.kind == "choice":
        assert tuple(members[0]["enum"]) == spec.choices


def _design_rows() -> dict[str, list[str]]:
    text = (ROOT / "docs" / "design.md").read_text("utf-8")
    section = text.split("## §10 ", 1)[1].split("\n## ", 1)[0]
    rows: dict[str, list[str]] = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and cells[0].startswith("`"):
            rows[cells[0].strip("`")] = cells[1:]
    return rows


def _cell_value(cell: str) -> Any:
    """A default as the table writes it: TOML (`false`, `""`, `[]`, `60`) or a bare word."""
    text = cell.strip("`")
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def _range_in(text: str) -> tuple[float, float] | None:
    """The first ``low … high`` range a text names (``2^53−1`` read as its number)."""
    found = _RANGE_RE.search(text.replace("2^53−1", str(2**53 - 1)))
    return None if found is None else (_number(found[1]), _number(found[2]))


def test_the_design_table_names_every_key_its_default_and_range() -> None:
    rows, shipped = _design_rows(), _shipped()
    assert list(rows) != [] and sorted(rows) == sorted(KEYS)
    for key, (default, accepted, _notes) in rows.items():
        assert _cell_value(default) == shipped[key], key
        spec = KEYS[key]
        if spec.kind == "int" or (spec.kind == "number" and not spec.low_exclusive):
            assert _range_in(accepted) == (spec.low, spec.high), (key, accepted)
        if spec.kind == "number" and spec.low_exclusive:
            assert f"> {spec.low:g}" in accepted, (key, accepted)
        if spec.kind == "choice":
            assert [c.strip("` ") for c in accepted.split(",")] == list(spec.choices)


def _options() -> list[tuple[str, argparse.Action]]:
    from jev.cli import _build_parser

    found: list[tuple[str, argparse.Action]] = []
    for action in _build_parser()._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found += [(name, a) for a in sub._actions]
    return found


def test_language_choices_on_the_command_line_are_the_keys() -> None:
    languages = [(c, a) for c, a in _options() if "--language" in a.option_strings]
    assert {c for c, _ in languages} >= {"audit", "eval", "prompt-section"}
    for command, action in languages:
        assert set(action.choices or ()) == set(KEYS["language"].choices), command


@pytest.mark.parametrize(
    ("option", "key"),
    [("--evidence-chars", "evidence_chars"), ("--technical-retries", "judge.technical_retries")],
)
def test_ranges_in_option_help_are_the_keys(option: str, key: str) -> None:
    helps = [(c, a.help or "") for c, a in _options() if option in a.option_strings]
    assert helps, option
    spec = KEYS[key]
    for command, text in helps:
        assert _range_in(text) == (spec.low, spec.high), (command, text)


def test_the_evidence_chars_check_of_jev_audit_is_the_keys_range(jev_home: Path) -> None:
    from jev.cli.audit_cmd import _effective_settings

    spec = KEYS["evidence_chars"]
    assert spec.low is not None and spec.high is not None

    def run(value: int) -> None:
        args = argparse.Namespace(
            profile=None,
            judge=None,
            model=None,
            base_url=None,
            api_key_env=None,
            language=None,
            evidence_chars=value,
        )
        _effective_settings(args)

    for accepted in (int(spec.low), int(spec.high)):
        run(accepted)
    for refused in (int(spec.low) - 1, int(spec.high) + 1):
        with pytest.raises(UsageError) as info:
            run(refused)
        assert _range_in(str(info.value)) == (spec.low, spec.high)


def test_the_settings_form_agrees_with_the_keys() -> None:
    from jev.ui.settings_view import FIELDS

    for field in FIELDS:
        spec = KEYS[field.key]
        if field.choices and spec.kind == "choice":
            assert field.choices == spec.choices, field.key
        shown = _range_in(field.help)
        if shown is not None and spec.kind in ("int", "number"):
            assert shown == (spec.low, spec.high), field.key
