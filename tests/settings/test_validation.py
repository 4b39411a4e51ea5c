"""Validation of every settings key (design.md §10), in-process, against real files."""

from __future__ import annotations

import math
import tomllib
from dataclasses import replace
from pathlib import Path

import pytest

from jev.base.domain import Settings
from jev.base.errors import SettingsError, UsageError
from jev.settings import profiles as st

# key -> (accepted typed values, refused typed values)
TABLE: dict[str, tuple[list[object], list[object]]] = {
    "enabled": ([True, False], [1, 0, "true", None, 1.0]),
    "max_supplements": (
        [1, 3, 2**53 - 1],
        [0, -1, 1.5, 3.0, "3", True, False, 2**53, 2**64, None],
    ),
    "evidence_chars": ([1, 24_000, 1_000_000], [0, -5, 1_000_001, 24000.0, "100", False]),
    "language": (["auto", "en", "zh"], ["fr", "", "EN", 1, None]),
    "records_days": ([1, 30, 3650], [0, 3651, 1.0, "30", True]),
    "judge.provider": (["rules", "openai", "anthropic", "scripted"], ["nope", "", 3, None]),
    "judge.model": (["", "deepseek-chat", "gpt-4o-mini"], [3, None, True]),
    "judge.base_url": (
        ["", "http://127.0.0.1:8080/v1", "https://api.deepseek.com"],
        [
            "ftp://example.com",
            "not a url",
            "api.deepseek.com",
            "http://",
            "http://host:99999",
            "https://user:pw@host/v1",
            " https://api.deepseek.com",
            5,
        ],
    ),
    "judge.api_key_env": (
        ["", "DEEPSEEK_API_KEY", "_X", "OPENAI_API_KEY", "my_key_2"],
        ["1ABC", "MY-VAR", "with space", "X=Y", 5, None],
    ),
    "judge.timeout_s": (
        [0.5, 1, 60, 600.0],
        [0, 0.0, -1, True, "60", math.inf, math.nan, None],
    ),
    "judge.temperature": ([0, 0.0, 1.5, 2, 2.0], [-0.1, 2.1, True, "1", math.nan]),
    "judge.technical_retries": ([0, 1, 10], [-1, 11, 1.0, True, "1"]),
    "evidence.transcript": ([True, False], [1, 0, "true", None]),
    "evidence.checks": (
        [[], ["python3 -m pytest -q"], ["ruff check .", "mypy jev"]],
        ["pytest", [""], ["  "], [1], [None], ["a\0b"], ["x"] * 21, ["x" * 2001], None],
    ),
    "evidence.check_timeout_s": ([0.5, 1, 120, 3600.0], [0, -1, 3601, True, "60", math.nan]),
}

SECRETS = [
    "sk-proj-SENTINELabc123def456",
    "sk_live_SENTINEL0123456789abcdef",
    "ghp_SENTINEL0123456789abcdefABCDEF",
    "AKIAIOSFODNN7EXAMPLE",
    "AIzaSyA-SENTINEL-0123456789",
    "abcdEFGH1234ijklMNOP5678qrst",  # long random-looking text
    "x" * 101,
]


def test_table_covers_every_key() -> None:
    assert set(TABLE) == set(st.KEYS)


@pytest.mark.parametrize(("key", "value"), [(k, v) for k, (ok, _) in TABLE.items() for v in ok])
def test_accepted_values_round_trip_through_a_file(key: str, value: object) -> None:
    assert st.validate_value(key, value) == value
    saved = st.save_settings("web", {key: value})
    reloaded = st.load_settings("web")
    assert saved == reloaded
    flat = reloaded.to_json()
    table, _, name = key.rpartition(".")
    got = flat[table][name] if table else flat[key]
    assert got == value
    assert type(got) is type(value)


@pytest.mark.parametrize(
    ("key", "value"), [(k, v) for k, (_, bad) in TABLE.items() for v in bad], ids=repr
)
def test_refused_values_change_nothing(key: str, value: object, jev_home: Path) -> None:
    path = jev_home / "profiles" / "web.toml"
    st.save_settings("web", {"evidence_chars": 5000})
    before = path.read_bytes()
    with pytest.raises(SettingsError) as info:
        st.save_settings("web", {key: value})
    message = str(info.value)
    assert key in message
    assert "jev settings set" in message
    assert path.read_bytes() == before
    assert st.load_settings("web").evidence_chars == 5000


def test_refusal_message_names_value_range_and_fix() -> None:
    with pytest.raises(SettingsError) as info:
        st.save_settings("web", {"max_supplements": 0})
    msg = str(info.value)
    assert "max_supplements = 0" in msg
    assert "1 … 9,007,199,254,740,991" in msg
    assert "jev settings set max_supplements 3 --profile web" in msg


def test_string_three_is_refused_by_the_typed_api() -> None:
    with pytest.raises(SettingsError, match="'3'"):
        st.save_settings(None, {"max_supplements": "3"})
    assert not (st.profiles_dir() / "default.toml").exists()


@pytest.mark.parametrize("secret", SECRETS)
def test_api_key_looking_value_refused_and_never_echoed(secret: str) -> None:
    with pytest.raises(SettingsError) as info:
        st.save_settings(None, {"judge.api_key_env": secret})
    msg = str(info.value)
    assert secret not in msg
    assert secret[:12] not in msg
    assert "never stores" in msg
    with pytest.raises(SettingsError) as info2:
        st.set_value(None, "judge.api_key_env", secret)
    assert secret not in str(info2.value)
    assert not (st.profiles_dir() / "default.toml").exists()


def test_api_key_in_a_hand_edited_file_is_refused_without_echo(jev_home: Path) -> None:
    secret = "sk-live-SENTINEL987654321"
    path = jev_home / "profiles" / "default.toml"
    path.parent.mkdir(parents=True)
    path.write_text(f'[judge]\napi_key_env = "{secret}"\n')
    with pytest.raises(SettingsError) as info:
        st.load_settings()
    assert secret not in str(info.value)
    assert str(path) in str(info.value)


# --------------------------------------------------------------- command-line text

RAW_OK: list[tuple[str, str, object]] = [
    ("max_supplements", "3", 3),
    ("max_supplements", " 7 ", 7),
    ("max_supplements", str(2**53 - 1), 2**53 - 1),
    ("enabled", "true", True),
    ("enabled", "YES", True),
    ("enabled", "on", True),
    ("enabled", "false", False),
    ("enabled", "No", False),
    ("enabled", "off", False),
    ("judge.timeout_s", "60", 60),
    ("judge.timeout_s", "2.5", 2.5),
    ("judge.temperature", ".5", 0.5),
    ("judge.model", "deepseek chat", "deepseek chat"),
    ("judge.base_url", "", ""),
    ("language", "zh", "zh"),
]
RAW_BAD: list[tuple[str, str]] = [
    ("max_supplements", "0"),
    ("max_supplements", "3.0"),
    ("max_supplements", "1e3"),
    ("max_supplements", "true"),
    ("max_supplements", "0x10"),
    ("max_supplements", "1_000"),
    ("max_supplements", ""),
    ("max_supplements", str(2**53)),
    ("max_supplements", "9" * 5000),
    ("enabled", "1"),
    ("enabled", "maybe"),
    ("judge.timeout_s", "1e3"),
    ("judge.timeout_s", "inf"),
    ("judge.timeout_s", "nan"),
    ("judge.timeout_s", "0"),
    ("judge.technical_retries", "2.0"),
    ("language", "de"),
    ("no_such_key", "1"),
]


@pytest.mark.parametrize(("key", "raw", "expected"), RAW_OK)
def test_parse_raw_accepts(key: str, raw: str, expected: object) -> None:
    value = st.parse_raw(key, raw)
    assert value == expected
    assert type(value) is type(expected)


@pytest.mark.parametrize(("key", "raw"), RAW_BAD)
def test_parse_raw_refuses(key: str, raw: str) -> None:
    with pytest.raises(SettingsError) as info:
        st.parse_raw(key, raw)
    assert key in str(info.value)


# --------------------------------------------------------------- files


def _write_profile(home: Path, name: str, text: str) -> Path:
    path = home / "profiles" / f"{name}.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_defaults_without_a_user_file() -> None:
    s = st.load_settings()
    assert s == Settings()  # the shipped file agrees with the domain defaults
    assert s.profile == "default"


def test_user_file_overlays_key_by_key(jev_home: Path) -> None:
    _write_profile(jev_home, "web", 'max_supplements = 5\n[judge]\nmodel = "m"\n')
    s = st.load_settings("web")
    assert (s.max_supplements, s.judge.model, s.judge.provider) == (5, "m", "rules")
    assert s.evidence_chars == 24_000
    assert st.user_values("web") == {"max_supplements": 5, "judge.model": "m"}


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("max_suplements = 2\n", "'max_suplements'"),
        ("[judge]\nmodle = 'x'\n", "'modle'"),
        ("judge = 3\n", "'judge' must be a table"),
        ("[judge.extra]\nx = 1\n", "'extra'"),
        ('max_supplements = "3"\n', "max_supplements"),
        ("max_supplements = 3.0\n", "max_supplements"),
        ("enabled = 1\n", "enabled"),
    ],
)
def test_bad_keys_or_values_in_a_file_name_file_and_key(
    jev_home: Path, text: str, needle: str
) -> None:
    path = _write_profile(jev_home, "default", text)
    with pytest.raises(SettingsError) as info:
        st.load_settings()
    assert str(path) in str(info.value)
    assert needle in str(info.value)


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("max_supplements = 2\nlanguage = \n", "line 2"),
        ("enabled = true\n\n\nrecords_days = = 3\n", "line 4"),
        ("max_supplements = 2\nfoo = [\n", "line 3"),  # unterminated at end of file
    ],
)
def test_corrupted_file_reported_with_line_and_never_replaced(
    jev_home: Path, text: str, line: str
) -> None:
    path = _write_profile(jev_home, "default", text)
    before = path.read_bytes()
    with pytest.raises(SettingsError) as info:
        st.load_settings()
    msg = str(info.value)
    assert str(path) in msg and line in msg and "not valid TOML" in msg
    with pytest.raises(SettingsError):
        st.set_value(None, "language", "en")
    with pytest.raises(SettingsError):
        st.save_settings(None, {"enabled": True})
    assert path.read_bytes() == before


def test_non_utf8_file_is_reported(jev_home: Path) -> None:
    path = jev_home / "profiles" / "default.toml"
    path.parent.mkdir(parents=True)
    path.write_bytes(b"language = 'en'\nmodel = '\xff'\n")
    with pytest.raises(SettingsError, match="line 2"):
        st.load_settings()


def test_validate_settings_checks_in_memory_values() -> None:
    good = st.load_settings()
    assert st.validate_settings(good) is good
    with pytest.raises(SettingsError, match="evidence_chars"):
        st.validate_settings(replace(good, evidence_chars=0))
    with pytest.raises(SettingsError, match=r"judge\.provider"):
        st.validate_settings(replace(good, judge=replace(good.judge, provider="bogus")))


# --------------------------------------------------------------- profiles and home


def test_profile_names() -> None:
    for ok in ("default", "web", "ci-2", "A_b", "x" * 64):
        assert st.check_profile_name(ok) == ok
    for bad in ("", "a.b", "../etc", "x" * 65, "we b", "web/x"):
        with pytest.raises(UsageError):
            st.check_profile_name(bad)
        with pytest.raises(UsageError):
            st.load_settings(bad)


def test_active_profile_precedence(monkeypatch: pytest.MonkeyPatch) -> None:
    assert st.active_profile(None) == "default"
    monkeypatch.setenv("JEV_PROFILE", "ci")
    assert st.active_profile(None) == "ci"
    assert st.active_profile("web") == "web"
    assert st.load_settings().profile == "ci"
    monkeypatch.setenv("JEV_PROFILE", "bad name")
    with pytest.raises(UsageError):
        st.active_profile(None)


def test_jev_home_resolution(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("JEV_HOME", str(tmp_path / "h"))
    assert st.jev_home() == tmp_path / "h"
    assert st.profile_path("web") == tmp_path / "h" / "profiles" / "web.toml"
    monkeypatch.delenv("JEV_HOME")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert st.jev_home() == tmp_path / "xdg" / "jev"
    monkeypatch.setenv("XDG_CONFIG_HOME", "relative/ignored")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert st.jev_home() == tmp_path / "home" / ".config" / "jev"
    monkeypatch.delenv("XDG_CONFIG_HOME")
    assert st.jev_home() == tmp_path / "home" / ".config" / "jev"
    assert not (tmp_path / "home").exists()  # resolving never creates folders


def test_list_profiles_marks_active_enabled_and_broken(
    jev_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    st.save_settings("web", {"enabled": True})
    st.save_settings("ci", {"max_supplements": 1})
    _write_profile(jev_home, "broken", "x = [\n")
    (jev_home / "profiles" / "not a profile.toml").write_text("")
    (jev_home / "profiles" / "notes.txt").write_text("")
    monkeypatch.setenv("JEV_PROFILE", "ci")
    rows = {r.name: r for r in st.list_profiles()}
    assert list(rows) == ["default", "broken", "ci", "web"]
    assert rows["ci"].active and not rows["default"].active
    assert rows["web"].enabled is True and rows["ci"].enabled is False
    assert rows["default"].exists is False
    assert rows["broken"].enabled is None and "not valid TOML" in rows["broken"].error


def test_saving_other_keys_never_touches_enabled(jev_home: Path) -> None:
    s = st.save_settings("web", {"max_supplements": 2})
    assert s.enabled is False
    data = tomllib.loads((jev_home / "profiles" / "web.toml").read_text())
    assert data == {"max_supplements": 2}  # sparse: only what the user set
    st.save_settings("web", {"enabled": True})
    s = st.set_value("web", "judge.model", "deepseek-chat")
    assert s.enabled is True
    data = tomllib.loads((jev_home / "profiles" / "web.toml").read_text())
    assert data == {"enabled": True, "max_supplements": 2, "judge": {"model": "deepseek-chat"}}


def test_save_requires_updates_and_known_keys() -> None:
    with pytest.raises(SettingsError, match="nothing to save"):
        st.save_settings(None, {})
    with pytest.raises(SettingsError, match="unknown setting 'max_suplements'"):
        st.save_settings(None, {"max_suplements": 2})


def test_save_preserves_file_mode(jev_home: Path) -> None:
    st.save_settings("web", {"max_supplements": 2})
    path = jev_home / "profiles" / "web.toml"
    path.chmod(0o600)
    st.save_settings("web", {"max_supplements": 4})
    assert path.stat().st_mode & 0o777 == 0o600


def test_provider_accepts_judges_registered_in_the_process() -> None:
    import jev.judges as judges

    name = "h5b-test-judge"
    with pytest.raises(SettingsError) as info:
        st.validate_value("judge.provider", name)
    assert "rules" in str(info.value) and "openai" in str(info.value)
    judges.register_judge(name, "jev.judges.rules:RulesJudge.from_settings")
    try:
        assert st.save_settings("web", {"judge.provider": name}).judge.provider == name
    finally:
        with judges._lock:
            judges._registry.pop(name, None)
    with pytest.raises(SettingsError, match=name):
        st.load_settings("web")  # unregistered again: the file's value is refused
