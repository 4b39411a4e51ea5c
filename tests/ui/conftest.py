"""Fixtures for ``jev ui`` tests: the real server as a subprocess, and headless Chromium.

The browser is Debian's ``chromium`` (``/usr/bin/chromium``, installed by ``.ci/run``)
driven by Playwright against that binary: no browser is downloaded. Each test gets a
fresh browser context with an empty user-data folder; every request the page makes is
logged in ``BrowserPage.requests`` so tests can assert that nothing left 127.0.0.1.
"""

from __future__ import annotations

import os
import re
import select
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = os.environ.get("JEV_TEST_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
_MAIN = "import sys; from jev.cli import main; sys.exit(main())"
_URL_RE = re.compile(r"Jev UI: (http://127\.0\.0\.1:(\d+)/\S+/)")


def jev_command() -> list[str]:
    """The installed ``jev`` script next to this Python, else ``python -c main()``."""
    exe = Path(sys.executable).parent / "jev"
    return [str(exe)] if exe.exists() else [sys.executable, "-c", _MAIN]


@dataclass
class UiProcess:
    """A running ``jev ui --no-browser --port 0`` subprocess."""

    proc: subprocess.Popen[str]
    url: str
    port: int

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        if self.proc.stdout:
            self.proc.stdout.close()


def start_ui(*extra: str, env: dict[str, str] | None = None) -> UiProcess:
    """Start ``jev ui --no-browser --port 0`` and wait for the URL it prints (20 s)."""
    proc = subprocess.Popen(
        [*jev_command(), "ui", "--no-browser", "--port", "0", *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env or dict(os.environ),
    )
    assert proc.stdout is not None
    seen: list[str] = []
    deadline = 20.0
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        ready, _, _ = select.select([proc.stdout], [], [], 0.2)
        if ready:
            line = proc.stdout.readline()
            if not line:
                break
            seen.append(line)
            match = _URL_RE.search(line)
            if match:
                return UiProcess(proc, match.group(1), int(match.group(2)))
        elif proc.poll() is not None:
            break
    proc.kill()
    raise AssertionError(f"jev ui printed no URL within {deadline} s: {''.join(seen)!r}")


@pytest.fixture
def ui() -> Iterator[UiProcess]:
    """A running ``jev ui`` on a free port of 127.0.0.1 (this test's JEV_HOME)."""
    server = start_ui()
    try:
        yield server
    finally:
        server.stop()


# ------------------------------------------------------------------------------ browser


def chromium_or_skip() -> str:
    """The Chromium binary, or skip the test saying how to get it.

    Under CI (``CI=true``, set by the CI runner) a missing browser or driver is a
    failure, not a skip: ``.ci/run`` installs both, so the browser tests must run there.
    """
    missing = pytest.fail if os.environ.get("CI") == "true" else pytest.skip
    path = CHROMIUM if os.path.exists(CHROMIUM) else shutil.which("chromium")
    if not path:
        missing("no /usr/bin/chromium (CI installs Debian's: apt-get install chromium)")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        missing("playwright is not installed (it is in the dev extra: pip install -e .[dev])")
    assert path is not None
    return path


@dataclass
class Browser:
    """A Playwright page in a fresh Chromium context, with its request log."""

    page: Any
    requests: list[str] = field(default_factory=list)

    def outside(self, origin: str) -> list[str]:
        """Requested URLs that are not on ``origin`` (``data:``/``about:`` allowed)."""
        return [
            u
            for u in self.requests
            if not (u.startswith(origin + "/") or u.startswith(("data:", "about:")))
        ]


@pytest.fixture(scope="module")
def _playwright() -> Iterator[Any]:
    chromium_or_skip()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        yield p


@pytest.fixture
def browser(_playwright: Any) -> Iterator[Browser]:
    """A new headless Chromium (empty user-data folder) with one page."""
    user_data = tempfile.mkdtemp(prefix="jev-ui-chromium-")
    context = _playwright.chromium.launch_persistent_context(
        user_data,
        executable_path=chromium_or_skip(),
        headless=True,
        args=CHROMIUM_ARGS,
        viewport={"width": 1280, "height": 900},
    )
    try:
        page = context.pages[0] if context.pages else context.new_page()
        page.set_default_timeout(15_000)
        result = Browser(page)
        context.on("request", lambda request: result.requests.append(request.url))
        yield result
    finally:
        context.close()
        shutil.rmtree(user_data, ignore_errors=True)
