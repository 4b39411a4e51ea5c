"""The real host CLIs, installed from npm at pinned versions into a cache folder.

``host_program("codex")`` returns the path of the ``codex`` executable of
``@openai/codex`` at the pinned version, installing it once (``npm install --prefix``)
into ``$JEV_HOSTS_CACHE`` (default ``~/.cache/jev-hosts``). With
``JEV_HOSTS_VERSIONS=latest`` (the drift canary, README "Real hosts") the newest
published version is resolved with ``npm view`` and installed beside the pinned ones.

When npm is missing or the install fails, outside CI the test is skipped with the
reason; in CI (``CI=true``) it fails: the real-host suite must not pass by skipping.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

__all__ = ["PINNED", "HostCli", "host_program"]


@dataclass(frozen=True)
class HostCli:
    """One host CLI: its npm package, the pinned version and the program name."""

    package: str
    version: str
    program: str


PINNED: dict[str, HostCli] = {
    "claude-code": HostCli("@anthropic-ai/claude-code", "2.1.328", "claude"),
    "codex": HostCli("@openai/codex", "0.169.0", "codex"),
    "gemini": HostCli("@google/gemini-cli", "0.61.0", "gemini"),
    "qwen": HostCli("@qwen-code/qwen-code", "0.24.4", "qwen"),
    "copilot": HostCli("@github/copilot", "1.0.102", "copilot"),
}

_INSTALL_TIMEOUT_S = 600


def _cache() -> Path:
    root = os.environ.get("JEV_HOSTS_CACHE")
    return Path(root) if root else Path.home() / ".cache" / "jev-hosts"


def _unavailable(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"real host CLI unavailable in CI: {reason}")
    pytest.skip(reason)


def wanted_version(host: str) -> str:
    """The version the suite runs for ``host``: pinned, or the newest published one
    when ``JEV_HOSTS_VERSIONS=latest``."""
    cli = PINNED[host]
    if os.environ.get("JEV_HOSTS_VERSIONS", "pinned") != "latest":
        return cli.version
    npm = shutil.which("npm")
    if npm is None:
        _unavailable("npm is not on PATH")
    proc = subprocess.run(
        [str(npm), "view", cli.package, "version"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    if proc.returncode != 0 or not proc.stdout.strip():
        _unavailable(f"npm view {cli.package} failed: {proc.stderr.strip()[:300]}")
    return proc.stdout.strip().splitlines()[-1]


def host_program(host: str) -> Path:
    """The executable of ``host``'s CLI at :func:`wanted_version`, installed on first use.

    Raises:
        pytest.skip.Exception / pytest.fail.Exception: npm missing or the install failed
            (skip outside CI, fail in CI).
    """
    cli = PINNED[host]
    version = wanted_version(host)
    folder = _cache() / f"{cli.package.replace('/', '+')}@{version}"
    program = folder / "node_modules" / ".bin" / cli.program
    if program.exists():
        return program
    npm = shutil.which("npm")
    if npm is None:
        _unavailable("npm is not on PATH")
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # parallel workers install once
        if not program.exists():
            proc = subprocess.run(
                [
                    str(npm),
                    "install",
                    "--no-audit",
                    "--no-fund",
                    "--loglevel=error",
                    "--prefix",
                    str(folder),
                    f"{cli.package}@{version}",
                ],
                capture_output=True,
                text=True,
                timeout=_INSTALL_TIMEOUT_S,
            )
            if proc.returncode != 0 or not program.exists():
                _unavailable(
                    f"npm install {cli.package}@{version} failed: {proc.stderr.strip()[-500:]}"
                )
    return program


def main() -> int:
    """``python -m tests.hosts_real.npm_hosts``: install every pinned host CLI (or the
    newest, with ``JEV_HOSTS_VERSIONS=latest``) into the cache; .ci/run calls it before
    the tests so the suite's time is the hosts' time, not npm's."""
    failed = 0
    for host in PINNED:
        try:
            print(f"{host}: {host_program(host)}")
        except BaseException as exc:  # pytest.skip/fail outcomes are BaseException
            failed += 1
            print(f"{host}: not installed ({exc})")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
