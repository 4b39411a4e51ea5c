"""The curated public surface of the ``jev`` package."""

from __future__ import annotations

import subprocess
import sys

import jev


def test_every_public_name_resolves() -> None:
    for name in jev.__all__:
        assert getattr(jev, name) is not None, name


def test_importing_jev_is_cheap() -> None:
    probe = (
        "import sys, jev;"
        "heavy = ('httpx', 'jinja2', 'jsonschema', 'pydantic', 'sqlite3', 'jev.pipeline.audit');"
        "print([m for m in heavy if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
