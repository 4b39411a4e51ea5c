"""The settings page in a real headless Chromium (design.md §10; issue 14 item 4).

The design's checks exactly: a fresh profile shows 3; save 2 -> reload shows 2 ->
server restart shows 2 -> ``jev settings show`` shows 2; each invalid value is refused
with the previous value kept and the file byte-identical; saving the rounds leaves
``enabled`` as it was; no page loads anything from outside 127.0.0.1.
"""

from __future__ import annotations

import subprocess

import pytest

from jev.settings import profiles as st
from tests.ui.conftest import Browser, UiProcess, jev_command, start_ui

pytestmark = pytest.mark.browser

ROUNDS = "#f-max_supplements"


def open_settings(browser: Browser, ui: UiProcess, profile: str = "web") -> None:
    browser.page.goto(f"{ui.url}settings?profile={profile}")


def save_rounds(browser: Browser, text: str) -> None:
    browser.page.fill(ROUNDS, text)
    browser.page.click("#save")
    browser.page.wait_for_load_state()


def test_rounds_survive_reload_restart_and_cli(browser: Browser, ui: UiProcess) -> None:
    page = browser.page
    open_settings(browser, ui)
    assert page.input_value(ROUNDS) == "3"  # a fresh profile shows the default
    save_rounds(browser, "2")
    assert page.locator("#notice").inner_text() == "Saved max_supplements."
    page.reload()
    assert page.input_value(ROUNDS) == "2"
    first_origin = ui.origin
    assert browser.outside(first_origin) == []
    ui.stop()
    restarted = start_ui()
    try:
        page.goto(f"{restarted.url}settings?profile=web")
        assert page.input_value(ROUNDS) == "2"
        both = [u for u in browser.outside(first_origin) if u in browser.outside(restarted.origin)]
        assert both == []
    finally:
        restarted.stop()
    import json

    shown = subprocess.run(
        [*jev_command(), "settings", "show", "--profile", "web", "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(shown.stdout)["max_supplements"] == 2
    assert st.load_settings("web").max_supplements == 2


INVALID = ["0", "-1", "1.5", "abc", "3 ", str(2**53), ""]


def test_invalid_rounds_refused_file_byte_identical(browser: Browser, ui: UiProcess) -> None:
    page = browser.page
    open_settings(browser, ui)
    save_rounds(browser, "2")
    path = st.profile_path("web")
    before = path.read_bytes()
    for text in INVALID:
        open_settings(browser, ui)
        save_rounds(browser, text)
        error = page.locator("#f-max_supplements-error")
        assert error.is_visible(), text
        message = error.inner_text()
        assert "max_supplements" in message and "refused" in message, (text, message)
        assert "still 2" in message, message
        assert path.read_bytes() == before, text
        page.reload()  # the reload re-submits nothing: GET of the page after a POST
        open_settings(browser, ui)
        assert page.input_value(ROUNDS) == "2", text
    assert st.load_settings("web").max_supplements == 2
    assert browser.outside(ui.origin) == []


@pytest.mark.parametrize("enabled", [True, False])
def test_saving_rounds_leaves_enabled(browser: Browser, ui: UiProcess, enabled: bool) -> None:
    page = browser.page
    open_settings(browser, ui)
    if enabled:
        page.click("#enabled-toggle")
        page.wait_for_load_state()
        assert page.locator("#enabled-state").inner_text() == "on"
    assert st.load_settings("web").enabled is enabled
    save_rounds(browser, "5")
    assert st.load_settings("web").enabled is enabled
    assert st.load_settings("web").max_supplements == 5
    assert page.locator("#enabled-state").inner_text() == ("on" if enabled else "off")
    if not enabled:
        assert "enabled" not in st.user_values("web")


def test_settings_fields_validate_like_the_cli(browser: Browser, ui: UiProcess) -> None:
    page = browser.page
    open_settings(browser, ui, "default")
    page.fill("#f-evidence_chars", "2000001")
    page.fill("#f-judge-api_key_env", "sk-abcdefghijklmnopqrstuvwxyz0123456789")
    page.click("#save")
    page.wait_for_load_state()
    assert "refused" in page.locator("#f-evidence_chars-error").inner_text()
    key_error = page.locator("#f-judge-api_key_env-error").inner_text()
    assert "looks like an API key" in key_error
    assert "sk-abc" not in page.content().split('id="f-judge-api_key_env-error"')[1][:600]
    assert not st.profile_path("default").exists()
    open_settings(browser, ui, "default")
    page.fill("#f-evidence_chars", "50000")
    page.select_option("#f-language", "zh")
    page.fill("#f-judge-api_key_env", "DEEPSEEK_API_KEY")
    page.click("#save")
    page.wait_for_load_state()
    s = st.load_settings("default")
    assert (s.evidence_chars, s.language, s.judge.api_key_env) == (50000, "zh", "DEEPSEEK_API_KEY")
    assert set(st.user_values("default")) == {"evidence_chars", "language", "judge.api_key_env"}


def test_profiles_create_switch_delete(browser: Browser, ui: UiProcess) -> None:
    page = browser.page
    open_settings(browser, ui, "default")
    page.fill("#new-profile", "ci")
    page.click("#create-profile button")
    page.wait_for_load_state()
    assert page.locator("#profile-name").inner_text() == "ci"
    assert st.user_values("ci") == {"enabled": False}
    page.fill("#new-profile", "bad name!")
    page.click("#create-profile button")
    page.wait_for_load_state()
    assert "invalid profile name" in page.locator("#profile-error").inner_text()
    page.click('a[data-profile="default"]')
    assert page.locator("#profile-name").inner_text() == "default"
    assert page.locator("#delete-profile").count() == 0  # default cannot be deleted
    page.click('a[data-profile="ci"]')
    page.click("#delete-profile button")
    page.wait_for_load_state()
    assert not st.profile_path("ci").exists()
    assert page.locator('a[data-profile="ci"]').count() == 0


def test_judge_test_button_rules(browser: Browser, ui: UiProcess) -> None:
    page = browser.page
    open_settings(browser, ui, "default")
    page.click("#test-judge")
    page.wait_for_load_state()
    assert page.locator("#jt-verdict").inner_text() == "omission"
    assert "(heuristic)" in page.locator("#jt-judge").inner_text()
    assert page.locator("#jt-latency").inner_text().endswith(" ms")
    assert page.locator("#jt-tokens").inner_text() == "not reported"
    assert browser.outside(ui.origin) == []
