"""The pydantic model of a profile (jev/settings/model.py) and its cheap first look.

The model is the authority on every key's type, range and default (design.md §10);
``certainly_valid`` only spares the usual values the pydantic import and must never
accept what the model refuses.
"""

from __future__ import annotations

import math
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from jev.base.errors import SettingsError
from jev.base.resources import data_file
from jev.settings import model as sm
from jev.settings.keys import KEYS, certainly_valid

from .helpers import child_env

VALUES = hs.one_of(
    hs.booleans(),
    hs.integers(min_value=-(2**70), max_value=2**70),
    hs.sampled_from([0, 1, 2, 10, 11, 600, 601, 3650, 3651, 1_000_000, 2**53 - 1, 2**53]),
    hs.floats(allow_nan=True, allow_infinity=True),
    hs.sampled_from([0.0, 0.5, 2.0, 2.0001, 600.0, 600.5, -0.0]),
    hs.text(max_size=30),
    hs.sampled_from(
        [
            "",
            "auto",
            "en",
            "zh",
            "EN",
            "rules",
            "openai",
            "anthropic",
            "nope",
            "DEEPSEEK_API_KEY",
            "sk-proj-abc123",
            "1ABC",
            "https://api.deepseek.com",
            "https://u:p@host",
            "http://h/?api_key=x",
        ]
    ),
    hs.none(),
    hs.lists(hs.integers(), max_size=2),
)


@settings(max_examples=600, deadline=None)
@given(key=hs.sampled_from(sorted(KEYS)), value=VALUES)
def test_certainly_valid_is_never_wrong(key: str, value: object) -> None:
    if certainly_valid(key, value):
        assert sm.validate_value(key, value) is value


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("judge.timeout_s", 600),
        ("judge.timeout_s", 0.001),
        ("judge.temperature", 0),
        ("max_supplements", 2**53 - 1),
        ("judge.api_key_env", "DEEPSEEK_API_KEY"),
        ("judge.provider", "openai"),
        ("language", "zh"),
    ],
)
def test_usual_values_need_no_model(key: str, value: object) -> None:
    assert certainly_valid(key, value)


def test_model_defaults_are_the_shipped_defaults() -> None:
    shipped = tomllib.loads(data_file("settings", "default.toml").read_text("utf-8"))
    assert sm.ProfileModel().model_dump() == shipped
    assert set(sm.ProfileModel.model_fields) | {
        f"judge.{k}" for k in sm.JudgeModel.model_fields
    } | {f"evidence.{k}" for k in sm.EvidenceModel.model_fields} == set(KEYS) | {
        "judge",
        "evidence",
    }


def test_model_bounds_are_the_key_table() -> None:
    schema = sm.ProfileModel.model_json_schema()
    judge = schema["$defs"]["JudgeModel"]["properties"]
    assert schema["properties"]["max_supplements"]["maximum"] == 2**53 - 1
    assert schema["properties"]["records_days"] == {
        "default": 30,
        "maximum": 3650,
        "minimum": 1,
        "title": "Records Days",
        "type": "integer",
    }
    numbers = {m["type"] for m in judge["timeout_s"]["anyOf"]}
    assert numbers == {"integer", "number"}
    assert {m["exclusiveMinimum"] for m in judge["timeout_s"]["anyOf"]} == {0}
    assert {m["maximum"] for m in judge["timeout_s"]["anyOf"]} == {600}
    assert schema["properties"]["language"]["enum"] == ["auto", "en", "zh"]


def test_refusals_use_jevs_words_not_pydantics() -> None:
    problems = sm.refusals(
        {"max_supplements": True, "judge": {"timeout_s": math.inf, "oops": 1}}, "web"
    )
    assert [p.key for p in problems] == ["oops", "max_supplements", "judge.timeout_s"]
    assert problems[0].structural and "unknown key 'oops' in [judge]" in problems[0].message
    assert problems[1].message == (
        "max_supplements = true is refused (not an integer): accepted is an integer "
        "1 … 9,007,199,254,740,991 (maximum automatic supplement rounds); run "
        "`jev settings set max_supplements 3 --profile web`."
    )
    assert "(not a finite number)" in problems[2].message
    assert "<= 600" in problems[2].message
    for problem in problems:
        assert "Input should" not in problem.message  # pydantic's words echo input


def test_a_refused_file_value_names_file_line_and_range(jev_home: Path) -> None:
    from jev.settings import profiles as st

    path = jev_home / "profiles" / "web.toml"
    path.parent.mkdir(parents=True)
    path.write_text('enabled = true\n\n[judge]\nmodel = "m"\ntimeout_s = 601\n')
    with pytest.raises(SettingsError) as info:
        st.load_settings("web")
    assert str(info.value) == (
        f"settings file {path}, line 5: judge.timeout_s = 601 is refused (out of range): "
        "accepted is a number of seconds > 0 and <= 600 (the whole judge call); run "
        "`jev settings set judge.timeout_s 60 --profile web`."
    )


def _modules_after(code: str) -> set[str]:
    probe = f"{code}\nimport sys\nprint(' '.join(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", probe], env=child_env(), capture_output=True, text=True, check=True
    )
    return set(out.stdout.split())


def test_usual_profiles_load_without_pydantic(jev_home: Path) -> None:
    path = jev_home / "profiles" / "web.toml"
    path.parent.mkdir(parents=True)
    path.write_text('enabled = true\n[judge]\nprovider = "openai"\napi_key_env = "MY_KEY"\n')
    loaded = _modules_after("from jev.settings.profiles import load_settings; load_settings('web')")
    assert "jev.settings.profiles" in loaded and "pydantic" not in loaded
    path.write_text('enabled = true\n[judge]\nbase_url = "https://api.deepseek.com"\n')
    loaded = _modules_after("from jev.settings.profiles import load_settings; load_settings('web')")
    assert "jev.settings.model" in loaded and "pydantic" in loaded
