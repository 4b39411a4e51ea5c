"""Atomic, locked saves under concurrent and killed writers (design.md §10), real processes."""

from __future__ import annotations

import os
import signal
import threading
import time
import tomllib
from pathlib import Path

import pytest

from jev.base.errors import SettingsError
from jev.settings import profiles as st

from .helpers import python_child

WRITER = """
import json, os, time
from pathlib import Path
from jev.settings.profiles import save_settings
updates = json.loads(os.environ["UPDATES"])
go = Path(os.environ["GO_FILE"])
Path(f"{go}.ready.{os.getpid()}").write_text("")
deadline = time.monotonic() + 30
while not go.exists() and time.monotonic() < deadline:
    time.sleep(0.002)
save_settings(os.environ.get("PROFILE") or None, updates)
"""

# One distinct, valid, non-default value per key (two for the first eight keys).
VALUES: dict[str, list[object]] = {
    "enabled": [True, True],
    "max_supplements": [7, 8],
    "evidence_chars": [5000, 6000],
    "language": ["zh", "en"],
    "records_days": [9, 10],
    "judge.provider": ["openai", "anthropic"],
    "judge.model": ["m-1", "m-2"],
    "judge.base_url": ["http://127.0.0.1:9/v1", "https://example.com/v1"],
    "judge.api_key_env": ["MY_KEY"],
    "judge.timeout_s": [12.5],
    "judge.temperature": [0.7],
    "judge.technical_retries": [4],
    "evidence.transcript": [False],
    "evidence.checks": [["python -m pytest -q"]],
    "evidence.check_timeout_s": [30],
}


def _race(jobs: list[dict[str, object]], go: Path) -> None:
    import json

    procs = [
        python_child(WRITER, {"UPDATES": json.dumps(job), "GO_FILE": str(go), "PROFILE": "race"})
        for job in jobs
    ]
    # wait until every interpreter has started and imported Jev, then release them together
    deadline = time.monotonic() + 60
    while len(list(go.parent.glob(f"{go.name}.ready.*"))) < len(jobs):
        assert time.monotonic() < deadline, "writers did not start"
        time.sleep(0.01)
    go.write_text("go")
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err


@pytest.mark.slow
def test_twenty_writers_of_one_key_leave_one_of_their_values(
    jev_home: Path, tmp_path: Path
) -> None:
    st.save_settings("race", {"max_supplements": 100})
    values = list(range(101, 121))
    _race([{"max_supplements": v} for v in values], tmp_path / "go")
    path = jev_home / "profiles" / "race.toml"
    assert tomllib.loads(path.read_text())["max_supplements"] in values
    assert st.load_settings("race").max_supplements in values
    assert not [p for p in path.parent.iterdir() if p.name.endswith(".tmp")]


@pytest.mark.slow
def test_writers_of_different_keys_lose_no_update(jev_home: Path, tmp_path: Path) -> None:
    jobs: list[dict[str, object]] = []
    for round_ in range(2):
        jobs += [{k: v[round_]} for k, v in VALUES.items() if len(v) > round_]
    assert len(jobs) == 23  # every key once, eight of them twice
    _race(jobs, tmp_path / "go")
    saved = st.user_values("race")
    assert set(saved) == set(st.KEYS)  # every writer's key landed in the file
    for key, value in saved.items():
        assert value in VALUES[key]


def test_writer_killed_before_replace_leaves_previous_file(jev_home: Path, tmp_path: Path) -> None:
    st.save_settings(None, {"max_supplements": 2})
    path = jev_home / "profiles" / "default.toml"
    before = path.read_bytes()
    go = tmp_path / "go"
    go.write_text("go")
    import json

    proc = python_child(
        WRITER,
        {
            "UPDATES": json.dumps({"max_supplements": 9}),
            "GO_FILE": str(go),
            "JEV_TEST_PAUSE_BEFORE_REPLACE": "60",
        },
    )
    deadline = time.monotonic() + 30
    temps: list[Path] = []
    while not temps and time.monotonic() < deadline:
        temps = [p for p in path.parent.iterdir() if p.name.endswith(".tmp")]
        time.sleep(0.01)
    assert temps, "the writer never reached the pause"
    # The temp file is complete (written + fsynced) before the pause.
    assert tomllib.loads(temps[0].read_text())["max_supplements"] == 9
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    assert path.read_bytes() == before
    assert temps[0].exists()  # the dead writer's leftover ...
    assert st.load_settings().max_supplements == 2  # ... never breaks a load
    assert [r.name for r in st.list_profiles()] == ["default"]
    # the lock died with the writer; the next save works and clears the leftover
    assert st.save_settings(None, {"language": "en"}).max_supplements == 2
    assert not temps[0].exists()
    assert st.user_values() == {"max_supplements": 2, "language": "en"}


@pytest.mark.parametrize("use_fcntl", [True, False], ids=["flock", "o_excl"])
def test_lock_excludes_concurrent_read_modify_write(tmp_path: Path, use_fcntl: bool) -> None:
    counter = tmp_path / "counter"
    counter.write_text("0")
    errors: list[BaseException] = []
    start = threading.Barrier(20)  # all twenty contend for the lock at once

    def bump() -> None:
        try:
            start.wait(timeout=60)
            with st._profile_lock(tmp_path, "p", use_fcntl=use_fcntl):
                value = int(counter.read_text())
                time.sleep(0.002)  # widen the window a lost update would need
                counter.write_text(str(value + 1))
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=bump) for _ in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert counter.read_text() == "20"
    assert not (tmp_path / ".p.lock.x").exists()  # the O_EXCL lock file is removed


@pytest.mark.parametrize("use_fcntl", [True, False], ids=["flock", "o_excl"])
def test_lock_held_too_long_times_out_with_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, use_fcntl: bool
) -> None:
    monkeypatch.setattr(st, "_LOCK_TIMEOUT_S", 0.2)
    with st._profile_lock(tmp_path, "p", use_fcntl=use_fcntl):
        failure: list[BaseException] = []

        def other() -> None:
            try:
                with st._profile_lock(tmp_path, "p", use_fcntl=use_fcntl):
                    pass
            except BaseException as exc:
                failure.append(exc)

        t = threading.Thread(target=other)
        t.start()
        t.join()
    assert len(failure) == 1 and isinstance(failure[0], SettingsError)
    assert "nothing was changed" in str(failure[0])


def test_stale_o_excl_lock_is_broken(tmp_path: Path) -> None:
    lock = tmp_path / ".p.lock.x"
    lock.write_text("12345")
    old = time.time() - 3600
    os.utime(lock, (old, old))
    with st._profile_lock(tmp_path, "p", use_fcntl=False):
        assert lock.exists()
    assert not lock.exists()
