"""``jev ui`` against a hostile local user or page (issue 23 item 2), with the real server.

* the browser is started on a private forwarding page, never with the token in argv;
* every method that is not GET/HEAD needs the CSRF value (a cross-origin OPTIONS to the
  test-judge route makes no judge call);
* slow and idle connections are dropped within the read deadline, and the page still
  loads while 1,000 of them are open;
* 100 concurrent POSTs are all answered (none reset by a short listen backlog);
* bidi override characters in records are shown as escapes in a real Chromium.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest

from jev.api import Auditor
from jev.base.domain import JudgeSettings, Material, Settings, TodoItem
from jev.judges.openai_compat import OpenAIJudge
from jev.settings import profiles as st
from jev.store import Store, default_store_path
from jev.ui.server import READ_DEADLINE
from tests.fakeserver import running_provider
from tests.ui.conftest import Browser, UiProcess, jev_command, start_ui
from tests.ui.seed import _reply
from tests.ui.test_security import csrf_of, request, snapshot, token_path

pytestmark = pytest.mark.slow


def test_browser_gets_a_private_page_not_the_token(tmp_path: Path) -> None:
    """``$BROWSER`` records its argv; the token appears only inside the 0600 page."""
    log = tmp_path / "browser.log"
    script = tmp_path / "browser.sh"
    script.write_text(
        "#!/bin/sh\n"
        f'echo "ARGV $*" >> "{log}"\n'
        'p="${1#file://}"\n'
        f'stat -c "MODE %a" "$p" >> "{log}"\n'
        f'stat -c "DIR %a" "$(dirname "$p")" >> "{log}"\n'
        f'cat "$p" >> "{log}"\n'
    )
    script.chmod(0o755)
    env = {**os.environ, "BROWSER": str(script)}
    proc = subprocess.Popen(
        [*jev_command(), "ui", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    try:
        assert proc.stdout is not None
        url = ""
        end = time.monotonic() + 20
        while time.monotonic() < end and not url:
            line = proc.stdout.readline()
            match = re.search(r"Jev UI: (\S+)", line)
            url = match.group(1) if match else url
        assert url
        token = url.rstrip("/").rsplit("/", 1)[1]
        end = time.monotonic() + 20
        while time.monotonic() < end and "<p>" not in (log.read_text() if log.exists() else ""):
            time.sleep(0.1)
        text = log.read_text()
        argv = text.splitlines()[0]
        assert argv.startswith("ARGV file:///") and token not in argv, text
        assert "MODE 600" in text and "DIR 700" in text, text
        assert f'url={url}"' in text  # the page forwards to the address
        page = Path(argv.split(" ", 1)[1].removeprefix("file://"))
        assert page.exists()
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        if proc.stdout:
            proc.stdout.close()
    assert not page.exists() and not page.parent.exists()  # deleted when the server stops


@pytest.mark.browser
def test_forwarding_page_opens_the_settings_in_chromium(browser: Browser, ui: UiProcess) -> None:
    from jev.cli.ui_cmd import launch_page

    page = launch_page(ui.url)
    try:
        browser.page.goto(page.as_uri())
        browser.page.wait_for_url(re.compile(re.escape(ui.url) + ".*"))
        browser.page.wait_for_selector("#settings-form")
    finally:
        page.unlink()
        page.parent.rmdir()


@pytest.mark.parametrize("method", ["OPTIONS", "PUT", "PATCH", "DELETE", "PROPFIND"])
def test_every_changing_method_needs_the_csrf_value(
    method: str, ui: UiProcess, jev_home: Path
) -> None:
    base = token_path(ui)
    before = snapshot(jev_home)
    form = {"profile": "web", "enabled": "true"}
    for route in ("/settings/enabled", "/settings/test-judge", "/profiles/create"):
        for headers in ({}, {"Origin": "http://evil.example"}):
            status, body, _ = request(ui, method, base + route, form, headers)
            assert status in (403, 415), (method, route, status, body)
        status, body, _ = request(ui, method, base + route)  # no body at all
        assert status in (403, 415), (method, route, status, body)
    # with the right CSRF value, still only a POST changes anything
    status, _, _ = request(ui, method, base + "/settings/enabled", {**form, "csrf": csrf_of(ui)})
    assert status == 405
    assert snapshot(jev_home) == before
    assert not st.profile_path("web").exists()


def test_cross_origin_options_to_test_judge_makes_no_judge_call(
    ui: UiProcess, jev_home: Path
) -> None:
    with running_provider() as fake:
        st.save_settings(
            "default",
            {"judge.provider": "openai", "judge.model": "m", "judge.base_url": fake.openai_base},
        )
        headers = {"Origin": "http://evil.example", "Access-Control-Request-Method": "POST"}
        status, _, _ = request(
            ui, "OPTIONS", token_path(ui) + "/settings/test-judge", {"profile": "default"}, headers
        )
        assert status == 403
        assert fake.requests == []


def _slowloris(count: int) -> list[socket.socket]:
    socks = []
    for _ in range(count):
        s = socket.create_connection(("127.0.0.1", PORT[0]), timeout=5)
        s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        s.setblocking(False)
        socks.append(s)
    return socks


PORT = [0]


def _closed(s: socket.socket) -> bool:
    try:
        while True:
            data = s.recv(4096)
            if not data:
                return True
    except BlockingIOError:
        return False
    except OSError:
        return True


def test_slow_and_idle_connections_are_dropped_and_the_page_still_loads(ui: UiProcess) -> None:
    PORT[0] = ui.port
    socks = _slowloris(1000) + [
        socket.create_connection(("127.0.0.1", ui.port), timeout=5) for _ in range(200)
    ]
    try:
        start = time.monotonic()
        # while they are all open, the page loads
        t0 = time.monotonic()
        status, body, _ = request(ui, "GET", token_path(ui) + "/settings")
        assert status == 200 and "settings-form" in body
        assert time.monotonic() - t0 < 5
        # trickle a header byte now and then: the total deadline still drops them
        end = start + READ_DEADLINE + 8
        open_ = list(socks[:1000])
        while open_ and time.monotonic() < end:
            for s in list(open_):
                if _closed(s):
                    open_.remove(s)
                    continue
                try:
                    s.send(b"X")
                except OSError:
                    open_.remove(s)
            time.sleep(0.5)
        assert open_ == [], f"{len(open_)} slow connections still open"
        idle = [s for s in socks[1000:] if not _closed_blocking(s)]
        assert idle == [], f"{len(idle)} idle connections still open"
        assert request(ui, "GET", token_path(ui) + "/settings")[0] == 200
    finally:
        for s in socks:
            s.close()


def _closed_blocking(s: socket.socket) -> bool:
    s.settimeout(0.2)
    try:
        return s.recv(4096) == b""
    except TimeoutError:
        return False
    except OSError:
        return True


def test_a_burst_of_concurrent_posts_is_answered_not_reset(ui: UiProcess, jev_home: Path) -> None:
    csrf = csrf_of(ui)
    base = token_path(ui)
    results: list[object] = []
    barrier = threading.Barrier(100, timeout=20)

    def post(i: int) -> None:
        try:
            barrier.wait()
            status, _, _ = request(
                ui,
                "POST",
                base + "/settings/enabled",
                {"profile": "web", "enabled": "false", "csrf": csrf},
            )
            results.append(status)
        except Exception as exc:  # a reset is what the test looks for
            results.append(exc)

    threads = [threading.Thread(target=post, args=(i,)) for i in range(100)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    errors = [r for r in results if not isinstance(r, int)]
    assert errors == [] and len(results) == 100, errors[:3]
    assert set(results) <= {303}, set(results)


@pytest.mark.browser
def test_bidi_overrides_are_shown_as_escapes(browser: Browser) -> None:
    """A request saying "evil" written as U+202E "live": the page shows the escape."""
    trick = "Delete the file \u202elive\u202c.txt only"
    with running_provider() as fake:
        judge = OpenAIJudge(model="m", base_url=fake.openai_base, api_key_env="JEV_UI_NOKEY")
        settings = Settings(
            enabled=True,
            judge=JudgeSettings(provider="openai", model="m", base_url=fake.openai_base),
        )
        fake.script(_reply("complete", "none"))
        with Store(default_store_path()) as store:
            auditor = Auditor(settings=settings, judge=judge, store=store, host="claude-code")
            material = Material((trick,), (TodoItem("remove \u202eevil\u202c", "completed"),), "ok")
            assert auditor.on_stop("sess-bidi", "turn-bidi", material).action == "finish"
        judge.close()
    server = start_ui()
    try:
        page = browser.page
        page.goto(server.url + "turns")
        page.click("text=sess-bidi")
        page.wait_for_load_state()
        text = page.inner_text("body")
        assert "\\u202elive\\u202c" in text and "\\u202eevil" in text
        assert "\u202e" not in text
    finally:
        server.stop()
