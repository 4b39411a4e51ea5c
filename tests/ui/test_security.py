"""``jev ui``'s guards against other local users and other sites (issue 14 item 1).

Real server (``jev ui --no-browser --port 0`` as a subprocess), real HTTP requests:
a request without the URL token, or a change without the right CSRF value, from
another origin or for another Host, is refused and changes nothing on disk.
"""

from __future__ import annotations

import http.client
import http.server
import re
import subprocess
import threading
from pathlib import Path
from urllib.parse import urlencode, urlsplit

import pytest

from jev.base.errors import UsageError
from jev.settings import profiles as st
from jev.ui import UiServer, is_loopback
from tests.ui.conftest import Browser, UiProcess, jev_command, start_ui


def request(
    ui: UiProcess,
    method: str,
    path: str,
    form: dict[str, str] | None = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, str, dict[str, str]]:
    conn = http.client.HTTPConnection("127.0.0.1", ui.port, timeout=10)
    try:
        body = urlencode(form).encode() if form is not None else None
        hdrs = {"Content-Type": "application/x-www-form-urlencoded"} if form is not None else {}
        hdrs.update(headers or {})
        conn.request(method, path, body=body, headers=hdrs)
        resp = conn.getresponse()
        return resp.status, resp.read().decode("utf-8", "replace"), dict(resp.getheaders())
    finally:
        conn.close()


def token_path(ui: UiProcess) -> str:
    return urlsplit(ui.url).path.rstrip("/")


def csrf_of(ui: UiProcess) -> str:
    status, html, _ = request(ui, "GET", token_path(ui) + "/settings?profile=web")
    assert status == 200
    match = re.search(r'name="csrf" value="([^"]+)"', html)
    assert match
    return match.group(1)


def snapshot(home: Path) -> dict[str, bytes]:
    folder = home / "profiles"
    if not folder.is_dir():
        return {}
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.suffix == ".toml"}


def test_pages_need_the_token(ui: UiProcess, jev_home: Path) -> None:
    for path in ("/", "/settings", "/static/jev.css", "/x" + token_path(ui) + "/settings"):
        status, body, _ = request(ui, "GET", path)
        assert status == 404 and "token" in body, path
    wrong = token_path(ui)[:-2] + ("AA" if not token_path(ui).endswith("AA") else "BB")
    assert request(ui, "GET", wrong + "/settings")[0] == 404
    status, _, headers = request(ui, "GET", token_path(ui) + "/settings")
    assert status == 200
    assert headers["Content-Security-Policy"].startswith("default-src 'none'")
    assert headers["X-Frame-Options"] == "DENY"
    assert headers["Cache-Control"] == "no-store"


def test_changes_without_token_or_csrf_change_nothing(ui: UiProcess, jev_home: Path) -> None:
    csrf = csrf_of(ui)
    base = token_path(ui)
    # one valid save first, so there is a file to keep byte-identical
    ok = {"csrf": csrf, "profile": "web", "max_supplements": "2"}
    assert request(ui, "POST", base + "/settings/save", ok)[0] == 303
    before = snapshot(jev_home)
    assert st.load_settings("web").max_supplements == 2
    seven = {"profile": "web", "max_supplements": "7"}
    attempts = [
        ("/settings/save", {**seven, "csrf": csrf}, None),  # no token
        (base + "/settings/save", seven, None),  # no csrf
        (base + "/settings/save", {**seven, "csrf": "x" + csrf}, None),
        (base + "/settings/save", {**seven, "csrf": ""}, None),
        (base + "/settings/enabled", {"csrf": csrf[:-1], "profile": "web", "enabled": "on"}, None),
        (base + "/profiles/create", {"csrf": "nope", "name": "evil"}, None),
        (base + "/profiles/delete", {"csrf": "nope", "name": "web"}, None),
        # right token and CSRF, but sent by another site's page or for another host name
        (base + "/settings/save", {**ok, "max_supplements": "7"}, {"Origin": "http://evil.test"}),
        (base + "/settings/save", {**ok, "max_supplements": "7"}, {"Origin": "null"}),
        (base + "/settings/save", {**ok, "max_supplements": "7"}, {"Host": "evil.test"}),
    ]
    for path, form, headers in attempts:
        status, _, _ = request(ui, "POST", path, form, headers)
        assert status in (403, 404), (path, form, headers, status)
        assert snapshot(jev_home) == before, (path, form, headers)
    # a GET never changes anything either, even with every field
    request(ui, "GET", base + "/settings/save?" + urlencode({**ok, "max_supplements": "7"}))
    assert snapshot(jev_home) == before
    assert st.load_settings("web").max_supplements == 2
    assert not st.load_settings("web").enabled


@pytest.mark.browser
def test_foreign_page_cannot_post_in_the_browser(browser: Browser, ui: UiProcess) -> None:
    """A page from another origin that auto-submits the form (token known, CSRF not)."""
    page = browser.page
    page.goto(ui.url + "settings?profile=web")
    page.evaluate("document.querySelector('#settings-form input[name=csrf]').value = 'forged'")
    page.fill("#f-max_supplements", "9")
    page.click("#save")
    assert "CSRF" in page.content()
    assert not st.profile_path("web").exists()
    attack = (
        f'<form method="post" action="{ui.url}settings/enabled">'
        '<input name="profile" value="web"><input name="enabled" value="true">'
        "</form><script>document.forms[0].submit()</script>"
    ).encode()

    class Attacker(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(attack)))
            self.end_headers()
            self.wfile.write(attack)

        def log_message(self, *args: object) -> None:
            return

    other = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Attacker)
    thread = threading.Thread(target=other.serve_forever, daemon=True)
    thread.start()
    try:
        page.goto(f"http://127.0.0.1:{other.server_address[1]}/")
        page.wait_for_url(re.compile(r".*/settings/enabled$"))
        page.wait_for_load_state()
    finally:
        other.shutdown()
        other.server_close()
    assert "Refused" in page.content()
    assert not st.profile_path("web").exists()


def test_port_zero_prints_url_and_port_in_use_exits_2() -> None:
    first = start_ui()
    try:
        assert first.url.startswith("http://127.0.0.1:") and first.port > 0
        taken = subprocess.run(
            [*jev_command(), "ui", "--no-browser", "--port", str(first.port)],
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert taken.returncode == 2
        assert f"cannot listen on 127.0.0.1:{first.port}" in taken.stderr
    finally:
        first.stop()


def test_bind_address_and_warning() -> None:
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.5")
    with UiServer(port=0) as local:
        assert local.warning() == ""
        assert local.url.startswith(f"http://127.0.0.1:{local.port}/")
    with UiServer("0.0.0.0", 0) as everywhere:  # bound, never contacted
        assert "not only on this machine" in everywhere.warning()
        assert everywhere.app.allowed_hosts is None
    with pytest.raises(UsageError, match="cannot listen"):
        UiServer("203.0.113.9", 0)  # TEST-NET-3: not an address of this machine


def test_switch_and_profiles_refuse_bad_values(ui: UiProcess, jev_home: Path) -> None:
    csrf = csrf_of(ui)
    base = token_path(ui)
    before = snapshot(jev_home)
    status, body, _ = request(
        ui, "POST", base + "/settings/enabled", {"csrf": csrf, "profile": "web", "enabled": "maybe"}
    )
    assert status == 400 and "enabled = &#39;maybe&#39; is refused" in body
    status, body, _ = request(
        ui, "POST", base + "/profiles/delete", {"csrf": csrf, "name": "default"}
    )
    assert status == 400 and "cannot be deleted" in body
    status, body, _ = request(
        ui, "POST", base + "/profiles/create", {"csrf": csrf, "name": "../etc"}
    )
    assert status == 400 and "invalid profile name" in body
    assert snapshot(jev_home) == before
