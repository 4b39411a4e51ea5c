"""Shared test fixtures. Every test runs with its own JEV_HOME (no real home is touched)."""

from __future__ import annotations

from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
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


#: Test folders whose tests drive real host commands or installed packages end to end.
E2E_FOLDERS = ("hosts_e2e", "install")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """``e2e`` for the end-to-end folders; ``e2e`` and ``browser`` tests are also ``slow``.

    ``pytest -m "not slow"`` is the fast default while working; CI runs everything.
    """
    for item in items:
        try:
            folder = item.path.relative_to(TESTS).parts[0]
        except ValueError:
            continue
        if folder in E2E_FOLDERS:
            item.add_marker(pytest.mark.e2e)
        if item.get_closest_marker("e2e") or item.get_closest_marker("browser"):
            item.add_marker(pytest.mark.slow)
