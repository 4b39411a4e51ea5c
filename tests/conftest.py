"""Shared test fixtures. Every test runs with its own JEV_HOME (no real home is touched)."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from tests.pgserver import PgCluster

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


def pytest_configure(config: pytest.Config) -> None:
    """Property tests run at full strength unless slow tests are deselected
    (``-m "not slow"``): see tests/strength.py.

    Child processes (``jev`` commands, hooks) keep their byte code: with
    ``PYTHONDONTWRITEBYTECODE`` set in the developer's environment, each of the
    several hundred child interpreters the suite starts would compile every Jev module
    from source again (~0.1 s each). They write and read it under a temporary
    ``PYTHONPYCACHEPREFIX`` for this session instead, never next to the sources.
    """
    from tests import strength

    strength.configure(config.getoption("markexpr") or "")
    if os.environ.get("PYTHONDONTWRITEBYTECODE") and not os.environ.get("PYTHONPYCACHEPREFIX"):
        prefix = tempfile.mkdtemp(prefix="jev-tests-pyc-")
        os.environ.pop("PYTHONDONTWRITEBYTECODE")
        os.environ["PYTHONPYCACHEPREFIX"] = prefix
        config.add_cleanup(lambda: shutil.rmtree(prefix, ignore_errors=True))


def _uses_postgresql(item: pytest.Item) -> bool:
    """Whether a test starts or uses the throwaway PostgreSQL cluster (``pg_cluster``,
    directly or as the ``postgresql`` backend of :func:`db`)."""
    if "pg_cluster" in getattr(item, "fixturenames", ()):
        return True
    callspec = getattr(item, "callspec", None)
    return callspec is not None and callspec.params.get("db") == "postgresql"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """``e2e`` for the end-to-end folders; ``e2e`` and ``browser`` tests are also ``slow``,
    and so is every test on the PostgreSQL server (a real server started for the session:
    initdb and start take seconds; their SQLite twins stay in the fast default).

    ``pytest -m "not slow"`` is the fast default while working; CI runs everything.
    """
    for item in items:
        if _uses_postgresql(item):
            item.add_marker(pytest.mark.slow)
        try:
            folder = item.path.relative_to(TESTS).parts[0]
        except ValueError:
            continue
        if folder in E2E_FOLDERS:
            item.add_marker(pytest.mark.e2e)
        if item.get_closest_marker("e2e") or item.get_closest_marker("browser"):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(autouse=True)
def _no_team_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """A developer's shared-store or collector settings never leak into a test."""
    for name in (
        "JEV_STORE_URL",
        "JEV_STORE_PASSWORD_ENV",
        "OTEL_EXPORTER_OTLP_ENDPOINT",
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
        "PGPASSWORD",
    ):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[PgCluster]:
    """A throwaway PostgreSQL cluster for this test session (tests/pgserver.py).

    Skips (with the reason) only when the PostgreSQL server binaries or the psycopg
    driver are absent; .ci/run installs both, so in CI these tests always run.
    """
    from tests.pgserver import PgCluster, find_bindir

    bindir = find_bindir()
    if bindir is None:
        pytest.skip("PostgreSQL server binaries (initdb) not found; apt-get install postgresql")
    try:
        import psycopg  # noqa: F401
    except ImportError:
        pytest.skip('psycopg is not installed; pip install -e ".[dev]"')
    cluster = PgCluster(bindir)
    try:
        yield cluster
    finally:
        cluster.destroy()


@pytest.fixture(params=["sqlite", "postgresql"])
def db(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, jev_home: Path
) -> Callable[[Path | str], str]:
    """Where a store test keeps its database, once per backend.

    ``db(path)`` returns the SQLite file ``path`` (as a string) or, on PostgreSQL, the
    URL of a fresh schema standing for that file (the same one for the same path
    within a test). On PostgreSQL, ``JEV_STORE_URL`` is set to the schema standing for
    ``<JEV_HOME>/jev.sqlite3``, so ``Store()``, the CLI and the hook use it too.
    """
    if request.param == "sqlite":
        return lambda path: str(path)
    cluster: PgCluster = request.getfixturevalue("pg_cluster")
    default = str(jev_home / "jev.sqlite3")
    urls: dict[str, str] = {default: cluster.url()}
    monkeypatch.setenv("JEV_STORE_URL", urls[default])

    def target(path: Path | str) -> str:
        name = str(path)
        if name not in urls:
            urls[name] = cluster.url()
        return urls[name]

    return target


@pytest.fixture(autouse=True)
def _fresh_reply_modes() -> None:
    """Each test starts with no remembered reply modes (a run's memory, design.md §6)."""
    from jev.judges.constrained import MEMORY

    MEMORY.clear()
