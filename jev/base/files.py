"""Jev's one file lock and one atomic write (stdlib only).

* :func:`file_lock` — an exclusive lock held across a read-modify-write of a file:
  ``fcntl.flock`` on a lock file where available (released by the OS if the holder
  dies); elsewhere an ``O_EXCL`` lock file that is broken when older than
  ``stale_s`` (best effort: breaking a dead writer's lock is not atomic, which only
  matters on platforms without ``fcntl``).
* :func:`write_atomic` — write a whole file so that a reader sees either the old or
  the new content, never a part: a temporary file in the same folder, fsynced,
  given the old file's permissions, ``os.replace``-d over the target, and the folder
  fsynced.

Used by the settings profiles, the host configuration files Jev edits on install and
its install ledger.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = ["STALE_LOCK_S", "file_lock", "write_atomic"]

#: A lock file older than this (seconds) is considered left behind by a killed process
#: (only where ``fcntl`` is missing; ``flock`` locks die with their holder).
STALE_LOCK_S = 30.0


@contextmanager
def file_lock(
    lock: Path,
    *,
    timeout_s: float,
    on_timeout: Callable[[Path], Exception],
    stale_s: float = STALE_LOCK_S,
    use_fcntl: bool | None = None,
) -> Iterator[None]:
    """Hold an exclusive lock on ``lock`` (created if missing) for the ``with`` body.

    Args:
        lock: the lock file (``flock``), or the base name of the ``O_EXCL`` lock file
            (``<lock>.x``) without ``fcntl``.
        timeout_s: seconds to wait for the lock before giving up.
        on_timeout: builds the exception raised after ``timeout_s`` (gets the lock path).
        stale_s: age in seconds after which an ``O_EXCL`` lock file is broken.
        use_fcntl: force the implementation (tests); default: ``fcntl`` on POSIX.

    Raises:
        the exception from ``on_timeout`` when the lock is not free within ``timeout_s``.
    """
    if use_fcntl is None:
        use_fcntl = sys.platform != "win32"  # fcntl exists on every POSIX Python
    deadline = time.monotonic() + timeout_s
    delay = 0.002
    if use_fcntl:
        # lazy: fcntl is POSIX only
        import fcntl  # POSIX only: imported where the platform has it

        fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() > deadline:
                        raise on_timeout(lock) from None
                    time.sleep(delay)
                    delay = min(delay * 2, 0.05)
            try:
                yield
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)
        return
    marker = lock.with_name(lock.name + ".x")
    while True:
        try:
            fd = os.open(marker, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            os.write(fd, str(os.getpid()).encode())
            os.close(fd)
            break
        except FileExistsError:
            try:
                age = time.time() - marker.stat().st_mtime
            except FileNotFoundError:
                continue
            if age > stale_s:
                marker.unlink(missing_ok=True)  # left by a writer that died
                continue
            if time.monotonic() > deadline:
                raise on_timeout(marker) from None
            time.sleep(delay)
            delay = min(delay * 2, 0.05)
    try:
        yield
    finally:
        marker.unlink(missing_ok=True)


def _fsync_dir(folder: Path) -> None:
    if sys.platform == "win32":
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_atomic(path: Path, payload: bytes, *, prefix: str | None = None) -> None:
    """Replace ``path`` by ``payload`` atomically and durably (module docstring).

    The new file keeps the old one's permission bits (``0o644`` for a new file). The
    temporary file is ``<folder>/<prefix>.<random>.tmp`` (``prefix`` defaults to
    ``.<name>``); it is removed when the write fails.

    Raises:
        OSError: the folder or file cannot be written (the old file is unchanged).
    """
    folder = path.parent
    fd, tmp_name = tempfile.mkstemp(
        dir=folder, prefix=(prefix or f".{path.name}") + ".", suffix=".tmp"
    )
    tmp = Path(tmp_name)
    try:
        try:
            mode = path.stat().st_mode & 0o7777
        except FileNotFoundError:
            mode = 0o644
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        pause = os.environ.get("JEV_TEST_PAUSE_BEFORE_REPLACE")  # crash tests only
        if pause:
            time.sleep(float(pause))
        os.replace(tmp, path)
        _fsync_dir(folder)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def move_aside(path: Path, what: str) -> Path | None:
    """Rename ``path`` to ``<name>.<what>-<UTC time>`` beside it (design.md §11: a state
    file that was imported or found broken is kept, never read again).

    Args:
        path: the file to move.
        what: the word naming why (``"imported"``, ``"broken"``).

    Returns:
        The new path, or ``None`` when nothing was moved (another process moved it
        first, or the folder is read-only). Never raises.
    """
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    target = path.with_name(f"{path.name}.{what}-{stamp}")
    try:
        os.replace(path, target)
    except OSError:
        return None
    return target
