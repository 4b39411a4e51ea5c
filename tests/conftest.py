"""Shared test fixtures. Every test runs with its own JEV_HOME (no real home is touched)."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture(autouse=True)
def _isolated_jev_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    home = tmp_path_factory.mktemp("jev-home")
    monkeypatch.setenv("JEV_HOME", str(home))
    monkeypatch.delenv("JEV_PROFILE", raising=False)
    return home


@pytest.fixture
def jev_home(_isolated_jev_home: Path) -> Path:
    """The JEV_HOME folder of this test."""
    return _isolated_jev_home
