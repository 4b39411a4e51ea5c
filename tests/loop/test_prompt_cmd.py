"""`jev prompt-section` through a real subprocess (design.md §9)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from jev.cli.prompt_cmd import locale_language
from jev.pipeline.texts import system_prompt_section

RUN_MAIN = "import sys; from jev.cli import main; sys.exit(main())"


def jev(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full = dict(os.environ)
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        full.pop(name, None)
    full.update(env or {})
    return subprocess.run(
        [sys.executable, "-c", RUN_MAIN, *args], capture_output=True, text=True, env=full
    )


def test_disabled_profile_prints_nothing() -> None:
    out = jev("prompt-section")
    assert (out.returncode, out.stdout, out.stderr) == (0, "", "")
    out = jev("prompt-section", "--profile", "web", "--language", "zh")
    assert (out.returncode, out.stdout) == (0, "")


def test_enabled_profile_prints_the_section(jev_home: Path) -> None:
    assert jev("enable", "--profile", "web", "--create").returncode == 0
    out = jev("prompt-section", "--profile", "web")
    assert out.returncode == 0, out.stderr
    assert out.stdout == system_prompt_section("en") + "\n"
    zh = jev("prompt-section", "--profile", "web", "--language", "zh")
    assert zh.stdout == system_prompt_section("zh") + "\n"
    # The default profile stays disabled: enabling one profile does not enable another.
    assert jev("prompt-section").stdout == ""
    # JEV_PROFILE selects the profile when --profile is absent.
    assert jev("prompt-section", env={"JEV_PROFILE": "web"}).stdout.startswith("Completion audit")


def test_language_setting_and_auto_locale() -> None:
    assert jev("enable").returncode == 0
    assert jev("prompt-section", env={"LANG": "zh_CN.UTF-8"}).stdout.startswith("本会话")
    assert jev("prompt-section", env={"LANG": "de_DE.UTF-8"}).stdout.startswith("Completion")
    assert jev("settings", "set", "language", "zh").returncode == 0
    assert jev("prompt-section").stdout.startswith("本会话")
    assert jev("prompt-section", "--language", "en").stdout.startswith("Completion")


def test_refused_profile_or_broken_file_exits_2(jev_home: Path) -> None:
    bad = jev("prompt-section", "--profile", "no/such")
    assert bad.returncode == 2 and bad.stdout == "" and "jev:" in bad.stderr
    assert "Traceback" not in bad.stderr
    profiles = jev_home / "profiles"
    profiles.mkdir(parents=True, exist_ok=True)
    (profiles / "broken.toml").write_text("enabled = tru\n", encoding="utf-8")
    broken = jev("prompt-section", "--profile", "broken")
    assert broken.returncode == 2 and broken.stdout == ""
    assert "broken.toml" in broken.stderr


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({}, "en"),
        ({"LANG": "zh_CN.UTF-8"}, "zh"),
        ({"LANG": "zh_TW"}, "zh"),
        ({"LANG": "en_US.UTF-8"}, "en"),
        ({"LC_ALL": "C", "LANG": "zh_CN.UTF-8"}, "en"),
        ({"LC_ALL": "", "LC_MESSAGES": "zh_CN", "LANG": "en_US"}, "zh"),
        ({"LC_MESSAGES": "en_GB", "LANG": "zh_CN"}, "en"),
    ],
)
def test_locale_language(env: dict[str, str], expected: str) -> None:
    assert locale_language(env) == expected
