"""The settings commands end to end: each step in a NEW process (design.md §10: save 2, read 2)."""

from __future__ import annotations

import json
import sys
import tomllib
from pathlib import Path

from jev.settings import profiles as st

from .helpers import run_jev, run_python


def test_save_two_then_a_new_process_reads_two(jev_home: Path) -> None:
    st.save_settings(None, {"max_supplements": 2})
    out = run_python(
        "from jev.settings.profiles import load_settings as l; print(l().max_supplements)"
    )
    assert out.strip() == "2"


def test_set_then_show_from_new_processes(jev_home: Path) -> None:
    done = run_jev("settings", "set", "max_supplements", "2", "--profile", "web", "--create")
    assert done.returncode == 0, done.stderr
    assert "max_supplements = 2" in done.stdout
    shown = run_jev("settings", "show", "--profile", "web")
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert any(line.startswith("max_supplements = 2") and "profile file" in line for line in lines)
    assert any(line.startswith("enabled = false") and "default" in line for line in lines)
    assert str(jev_home / "profiles" / "web.toml") in shown.stdout
    as_json = run_jev("settings", "show", "--profile", "web", "--json")
    data = json.loads(as_json.stdout)
    assert data["max_supplements"] == 2 and data["enabled"] is False
    assert set(data) == {
        "enabled",
        "max_supplements",
        "evidence_chars",
        "language",
        "records_days",
        "judge",
        "evidence",
    }
    assert data["judge"]["provider"] == "rules"
    # the default profile is untouched
    other = json.loads(run_jev("settings", "show", "--json").stdout)
    assert other["max_supplements"] == 3


def test_refused_set_exits_2_and_keeps_bytes(jev_home: Path) -> None:
    assert run_jev("settings", "set", "max_supplements", "4").returncode == 0
    path = jev_home / "profiles" / "default.toml"
    before = path.read_bytes()
    for raw in ("0", "-1", "1.5", "1e3", "true", str(2**53)):
        done = run_jev("settings", "set", "max_supplements", raw)
        assert done.returncode == 2
        assert done.stdout == ""
        err = done.stderr.strip()
        assert len(err.splitlines()) == 1 and "Traceback" not in err
        assert "max_supplements" in err and "1 … 9,007,199,254,740,991" in err
        assert "old value is kept: max_supplements = 4" in err
        assert path.read_bytes() == before


def test_refused_set_on_a_missing_file_creates_nothing(jev_home: Path) -> None:
    done = run_jev("settings", "set", "max_supplements", "0")
    assert done.returncode == 2
    assert not (jev_home / "profiles" / "default.toml").exists()


def test_api_key_value_is_not_echoed_by_the_cli(jev_home: Path) -> None:
    secret = "sk-SENTINEL-0123456789abcdef"
    done = run_jev("settings", "set", "judge.api_key_env", secret)
    assert done.returncode == 2
    assert secret not in done.stderr + done.stdout
    assert "never stores" in done.stderr
    assert not (jev_home / "profiles" / "default.toml").exists()
    ok = run_jev("settings", "set", "judge.api_key_env", "DEEPSEEK_API_KEY")
    assert ok.returncode == 0
    assert 'api_key_env = "DEEPSEEK_API_KEY"' in run_jev("settings", "show").stdout


def test_enable_disable_and_other_keys_never_enable(jev_home: Path) -> None:
    created = run_jev("settings", "set", "language", "zh", "--profile", "web", "--create")
    assert created.returncode == 0
    assert (
        json.loads(run_jev("settings", "show", "--profile", "web", "--json").stdout)["enabled"]
        is False
    )
    done = run_jev("enable", "--profile", "web")
    assert done.returncode == 0 and "enabled" in done.stdout
    assert run_jev("settings", "set", "records_days", "7", "--profile", "web").returncode == 0
    data = json.loads(run_jev("settings", "show", "--profile", "web", "--json").stdout)
    assert data["enabled"] is True and data["records_days"] == 7 and data["language"] == "zh"
    assert run_jev("disable", "--profile", "web").returncode == 0
    data = tomllib.loads((jev_home / "profiles" / "web.toml").read_text())
    assert data == {"enabled": False, "language": "zh", "records_days": 7}


def test_jev_profile_env_is_honoured(jev_home: Path) -> None:
    env = {"JEV_PROFILE": "ci"}
    assert run_jev("settings", "set", "max_supplements", "5", "--create", env=env).returncode == 0
    assert (jev_home / "profiles" / "ci.toml").is_file()
    assert not (jev_home / "profiles" / "default.toml").exists()
    assert json.loads(run_jev("settings", "show", "--json", env=env).stdout)["max_supplements"] == 5
    explicit = run_jev("settings", "show", "--json", "--profile", "default", env=env)
    assert json.loads(explicit.stdout)["max_supplements"] == 3
    listing = run_jev("profiles", env=env)
    assert listing.returncode == 0
    rows = {line[2:].split()[0]: line for line in listing.stdout.splitlines()}
    assert rows["ci"].startswith("*")
    assert not rows["default"].startswith("*")


def test_profiles_lists_enabled_state_and_broken_files(jev_home: Path) -> None:
    run_jev("enable", "--profile", "web", "--create")
    bad = jev_home / "profiles" / "bad.toml"
    bad.write_text("max_supplements = = 2\n")
    out = run_jev("profiles")
    assert out.returncode == 0
    lines = out.stdout.splitlines()
    assert lines[0].startswith("* default") and "disabled" in lines[0]
    web = next(line for line in lines if " web " in line)
    assert "enabled" in web and "disabled" not in web
    broken = next(line for line in lines if " bad " in line)
    assert "broken" in broken
    assert any(str(bad) in line and "line 1" in line for line in lines)


def test_corrupted_file_cli_reports_and_keeps_bytes(jev_home: Path) -> None:
    path = jev_home / "profiles" / "default.toml"
    path.parent.mkdir(parents=True)
    path.write_bytes(b"enabled = true\nmax_supplements = \n")
    before = path.read_bytes()
    for args in (("settings", "show"), ("settings", "set", "language", "en"), ("disable",)):
        done = run_jev(*args)
        assert done.returncode == 2, args
        assert str(path) in done.stderr and "line 2" in done.stderr
        assert "Traceback" not in done.stderr
        assert path.read_bytes() == before


def test_usage_errors_exit_2(jev_home: Path) -> None:
    assert run_jev("settings").returncode == 2
    done = run_jev("settings", "show", "--profile", "../etc")
    assert done.returncode == 2 and "invalid profile name" in done.stderr
    done = run_jev("settings", "set", "max_suplements", "2")
    assert done.returncode == 2 and "unknown setting 'max_suplements'" in done.stderr
    assert not (jev_home / "profiles").exists() or not any((jev_home / "profiles").iterdir())


def test_console_script_is_the_same_entry_point() -> None:
    script = Path(sys.executable).parent / "jev"
    if not script.exists():  # installed elsewhere; the -c path above covers main()
        return
    import subprocess

    done = subprocess.run(
        [str(script), "settings", "show", "--json"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0 and json.loads(done.stdout)["max_supplements"] == 3


def test_reading_settings_stays_light() -> None:
    code = (
        "import sys; from jev.settings.profiles import load_settings, list_profiles; "
        "load_settings(); "
        "list_profiles(); heavy = [m for m in ('httpx', 'jinja2', 'jsonschema', 'pydantic', "
        "'tomlkit') if m in sys.modules]; print(heavy)"
    )
    assert run_python(code).strip() == "[]"
