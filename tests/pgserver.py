"""A throwaway PostgreSQL cluster for the tests (Debian's ``postgresql`` package).

``initdb`` into a fresh folder under /tmp, then ``postgres`` on 127.0.0.1 at a random
free port plus a Unix socket in that folder; fsync off (the data is thrown away).
PostgreSQL refuses to run as root, so as root the cluster runs as ``nobody`` (via
``runuser``). Each test gets its own schema (``search_path`` in the URL), which is
much cheaper than a database per test.

Roles: ``jev`` (superuser, trusted from 127.0.0.1 and the socket) and ``team``
(password ``team-secret-pw``, SCRAM over TCP) for the password tests.
"""

from __future__ import annotations

import contextlib
import glob
import itertools
import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

TEAM_PASSWORD = "team-secret-pw"


def find_bindir() -> Path | None:
    """The newest ``/usr/lib/postgresql/<v>/bin`` holding initdb, or ``pg_config``'s."""
    found = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"),
        key=lambda p: (
            int(Path(p).parent.parent.name) if Path(p).parent.parent.name.isdigit() else 0
        ),
    )
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class PgCluster:
    """One running cluster; :meth:`url` gives a URL for a fresh schema."""

    def __init__(self, bindir: Path) -> None:
        self.bindir = bindir
        self.dir = Path(tempfile.mkdtemp(prefix="jev-pg-", dir="/tmp"))
        self.data = self.dir / "data"
        self.port = _free_port()
        self._as: list[str] = []
        if os.geteuid() == 0:
            shutil.chown(self.dir, user="nobody")
            self._as = ["runuser", "-u", "nobody", "--"]
        self._names = itertools.count(1)
        self._run(
            str(bindir / "initdb"),
            "-D",
            str(self.data),
            "-U",
            "jev",
            "-E",
            "UTF8",
            "--no-sync",
            "--auth-local=trust",
            "--auth-host=trust",
        )
        hba = self.data / "pg_hba.conf"
        hba.write_text(
            "local all all trust\n"
            "host all team 127.0.0.1/32 scram-sha-256\n"
            "host all all 127.0.0.1/32 trust\n",
            encoding="utf-8",
        )
        self.start()
        self.admin(
            f"CREATE ROLE team LOGIN PASSWORD '{TEAM_PASSWORD}'",
            "GRANT ALL ON SCHEMA public TO team",
        )

    def _run(self, *argv: str) -> None:
        subprocess.run(
            [*self._as, *argv], check=True, capture_output=True, timeout=120, cwd=self.dir
        )

    def start(self) -> None:
        """Start the server and wait until it accepts connections."""
        self._run(
            str(self.bindir / "pg_ctl"),
            "-D",
            str(self.data),
            "-l",
            str(self.dir / "server.log"),
            "-w",
            "-t",
            "60",
            "-o",
            f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off "
            "-c synchronous_commit=off -c full_page_writes=off -c max_connections=120",
            "start",
        )

    def stop(self, mode: str = "fast") -> None:
        """Stop the server (``fast``: roll back open transactions, close sessions)."""
        self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "stop")

    def destroy(self) -> None:
        """Stop the server (if running) and delete its folder."""
        with contextlib.suppress(subprocess.CalledProcessError):
            self.stop("immediate")
        if not os.environ.get("JEV_TEST_KEEP_PG"):  # keep the folder to read server.log
            shutil.rmtree(self.dir, ignore_errors=True)

    def admin(self, *statements: str) -> None:
        """Run statements as the superuser in database ``postgres``."""
        import psycopg

        with psycopg.connect(self.base_url(), autocommit=True) as conn:
            for sql in statements:
                conn.execute(sql)  # type: ignore[arg-type]

    def base_url(self, user: str = "jev") -> str:
        """URL of database ``postgres`` over TCP."""
        return f"postgresql://{user}@127.0.0.1:{self.port}/postgres"

    def url(self, user: str = "jev") -> str:
        """A URL whose ``search_path`` is a new, empty schema (one per call)."""
        name = f"t{os.getpid()}_{next(self._names)}"
        self.admin(f"CREATE SCHEMA {name}", f"GRANT ALL ON SCHEMA {name} TO team")
        return f"{self.base_url(user)}?options=-csearch_path%3D{name}"

    def wait_ready(self, timeout: float = 30.0) -> None:
        """Wait until the server answers (after :meth:`start`)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                self.admin("SELECT 1")
                return
            except Exception:
                time.sleep(0.1)
        raise TimeoutError("PostgreSQL did not come back")
