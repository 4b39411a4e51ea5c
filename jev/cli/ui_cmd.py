"""``jev ui [--port N] [--host H] [--no-browser]``: the local settings and records pages.

Prints the address (with its per-start token) and serves until Ctrl-C. Binds
127.0.0.1 unless ``--host`` names another address, which prints a warning first. A
port in use exits 2 with a one-line message.

The browser is never given the address itself (its command line is readable by every
local user, and the address carries the token): it is given a ``file://`` page in a
private temporary folder (mode 0700, the page 0600) that forwards to the address, and
the page is deleted after :data:`PAGE_SECONDS` or when the server stops, whichever
comes first (issue 23 item 2).
"""

from __future__ import annotations

import argparse
import contextlib
import html
import os
import shutil
import signal
import sys
import tempfile
import threading
import webbrowser
from pathlib import Path
from typing import Any

from jev.ui import UiServer

__all__ = ["PAGE_SECONDS", "launch_page", "register", "run"]

#: Seconds the browser's forwarding page is kept (it is also deleted when the server stops).
PAGE_SECONDS = 60.0


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a port number, got {text!r}") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"expected a port 0 … 65535, got {value}")
    return value


def launch_page(url: str) -> Path:
    """Write a page that forwards to ``url``, readable by this user only.

    Args:
        url: the address with its token (``http://127.0.0.1:PORT/<token>/``).

    Returns:
        The page's path, in a new private folder (0700; the page 0600). Delete the
        folder (``path.parent``) when done.

    Raises:
        OSError: the temporary folder cannot be written.
    """
    folder = Path(tempfile.mkdtemp(prefix="jev-ui-"))  # mkdtemp: mode 0700
    page = folder / "open.html"
    shown = html.escape(url, quote=True)
    text = (
        '<!doctype html><meta charset="utf-8"><meta name="referrer" content="no-referrer">'
        f'<meta http-equiv="refresh" content="0;url={shown}"><title>Jev UI</title>'
        f'<p>Opening <a href="{shown}">Jev UI</a>…</p>\n'
    )
    fd = os.open(page, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(text)
    return page


def _open_browser(url: str) -> Path | None:
    """Open the browser on a private forwarding page; the page's path, or None."""
    try:
        page = launch_page(url)
    except OSError as exc:
        print(
            f"jev ui: cannot write the page that opens the browser ({exc}); open the "
            "address above.",
            flush=True,
        )
        return None
    if not webbrowser.open(page.as_uri()):
        print("jev ui: no browser could be opened; open the address above.", flush=True)
    return page


def register(subparsers: Any) -> None:
    """Add ``ui`` to the ``jev`` parser."""
    parser = subparsers.add_parser(
        "ui",
        help="open a local web page for settings and for what Jev did",
        description="Serve Jev's settings (per profile) and records as local web pages. "
        "Binds 127.0.0.1 by default; the printed address carries a token that changes at "
        "every start.",
    )
    parser.add_argument(
        "--port", type=_port, default=0, help="TCP port (default 0: a free port, printed)"
    )
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to bind (default 127.0.0.1; another address prints a warning)",
    )
    parser.add_argument(
        "--no-browser", action="store_true", help="print the address but do not open a browser"
    )


def run(args: argparse.Namespace) -> int:
    """Serve until interrupted; return 0 (or raise UsageError when the port is taken)."""
    server = UiServer(args.host, args.port)
    page: Path | None = None
    with contextlib.suppress(ValueError):  # not the main thread (tests): no handler
        # SIGTERM ends the server like Ctrl-C, so the forwarding page is deleted too
        signal.signal(signal.SIGTERM, _stop)
    try:
        warning = server.warning()
        if warning:
            print(f"jev ui: {warning}", file=sys.stderr)
        print(f"Jev UI: {server.url}", flush=True)
        print("Press Ctrl-C to stop.", flush=True)
        page = None if args.no_browser else _open_browser(server.url)
        if page is not None:  # the browser read it long before; do not leave it around
            timer = threading.Timer(PAGE_SECONDS, shutil.rmtree, (page.parent, True))
            timer.daemon = True
            timer.start()
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            print("jev ui: stopped.", flush=True)
    finally:
        server.close()
        if page is not None:
            shutil.rmtree(page.parent, ignore_errors=True)
    return 0


def _stop(signum: int, frame: object) -> None:
    raise KeyboardInterrupt
