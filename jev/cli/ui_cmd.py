"""``jev ui [--port N] [--host H] [--no-browser]``: the local settings and records pages.

Prints the address (with its per-start token) and serves until Ctrl-C. Binds
127.0.0.1 unless ``--host`` names another address, which prints a warning first. A
port in use exits 2 with a one-line message.
"""

from __future__ import annotations

import argparse
import sys
import webbrowser
from typing import Any

from jev.ui import UiServer

__all__ = ["register", "run"]


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a port number, got {text!r}") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"expected a port 0 … 65535, got {value}")
    return value


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
    try:
        warning = server.warning()
        if warning:
            print(f"jev ui: {warning}", file=sys.stderr)
        print(f"Jev UI: {server.url}", flush=True)
        print("Press Ctrl-C to stop.", flush=True)
        if not args.no_browser and not webbrowser.open(server.url):
            print("jev ui: no browser could be opened; open the address above.", flush=True)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            print("jev ui: stopped.", flush=True)
    finally:
        server.close()
    return 0
