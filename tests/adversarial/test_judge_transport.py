"""A hostile judge server cannot take the machine, hang the turn or leak the key (issue 11).

Every test talks to :class:`tests.hostile.HostileServer` on 127.0.0.1 over real HTTP.
Bounds are checked with the test's own clock and with the peak RSS of a real ``jev
audit`` subprocess (``resource.getrusage(RUSAGE_CHILDREN)`` in a fresh wrapper
process, so only that one child counts).
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from jev.base.errors import TransportError
from jev.judges._http import CLOSE_MARGIN_S, JsonPoster, redact_secrets
from tests.conftest import FIXTURES
from tests.hostile import HostileServer, key_forms

CASE = FIXTURES / "cases" / "complete-backend-only-scope-en-08.json"
SENTINEL = "sk-proj-SENTINELk3y0123456789abcdefGHIJKLmnop"
RSS_LIMIT_MB = 200

_WRAPPER = r"""
import json, resource, subprocess, sys, time
started = time.monotonic()
proc = subprocess.run(sys.argv[1:], capture_output=True, text=True, timeout=120)
print(json.dumps({
    "rc": proc.returncode,
    "stdout": proc.stdout,
    "stderr": proc.stderr,
    "seconds": time.monotonic() - started,
    "rss_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024,
}))
"""


def run_jev(*args: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    """Run the ``jev`` console script in a wrapper that reports exit code, wall
    time (seconds) and the child's peak RSS (MB)."""
    exe = Path(sys.executable).parent / "jev"
    cmd = (
        [str(exe)]
        if exe.exists()
        else [sys.executable, "-c", "import sys; from jev.cli import main; sys.exit(main())"]
    )
    import subprocess

    out = subprocess.run(
        [sys.executable, "-c", _WRAPPER, *cmd, *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=180,
        check=True,
    )
    result: dict[str, Any] = json.loads(out.stdout)
    return result


def set_profile(**values: object) -> None:
    from jev.settings.profiles import save_settings

    save_settings(None, {f"judge.{k}": v for k, v in values.items()})


def audit_against(server: HostileServer, *, key: str = "") -> dict[str, Any]:
    env = {"JEV_HOSTILE_KEY": key} if key else {}
    return run_jev(
        "audit",
        str(CASE),
        "--judge",
        "openai",
        "--model",
        "m",
        "--base-url",
        server.base,
        "--api-key-env",
        "JEV_HOSTILE_KEY",
        "--json",
        env=env,
    )


def poster(timeout_s: float = 60.0, key: str = "") -> JsonPoster:
    return JsonPoster(
        label="the hostile judge",
        timeout_s=timeout_s,
        key_env="K",
        key_present=bool(key),
        secrets=(key,) if key else (),
    )


def post(server: HostileServer, timeout_s: float = 60.0) -> tuple[TransportError, float]:
    started = time.monotonic()
    with pytest.raises(TransportError) as info:
        poster(timeout_s).post(server.base + "/chat/completions", {}, {"model": "m"})
    return info.value, time.monotonic() - started


# -- size: the body is bounded while streaming ------------------------------------------


@pytest.mark.parametrize("mode", ["endless", "gzip-bomb", "huge-line"])
def test_oversized_body_is_reply_too_large_in_process(mode: str) -> None:
    with HostileServer(mode) as server:
        err, seconds = post(server)
    assert err.kind == "reply-too-large" and err.retryable
    assert seconds < 30.0  # ended by the check, not by the 60 s deadline
    assert server.sent_bytes < 3 * 1024**3  # cut early by the size cap, not at the end


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["endless", "gzip-bomb"])
def test_oversized_body_keeps_jev_audit_under_200_mb(mode: str) -> None:
    set_profile(technical_retries=1, timeout_s=20)
    with HostileServer(mode) as server:
        result = audit_against(server)
    assert result["rc"] == 3, result  # audit incomplete: a response error, not a crash
    row = json.loads(result["stdout"].splitlines()[0])
    assert row["status"] != "verdict"
    assert "larger than" in result["stdout"] + result["stderr"]
    assert result["rss_mb"] < RSS_LIMIT_MB, result["rss_mb"]
    assert server.connections == 2  # retried once like any response error


# -- time: the deadline covers the whole call ---------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("timeout_s", [2, 4])
@pytest.mark.parametrize("mode", ["drip-headers", "drip-body"])
def test_one_byte_a_second_ends_within_timeout(mode: str, timeout_s: int) -> None:
    with HostileServer(mode) as server:
        err, seconds = post(server, timeout_s=timeout_s)
    assert err.kind == "timeout" and err.retryable
    assert timeout_s - 0.5 <= seconds <= timeout_s + CLOSE_MARGIN_S + 1.0, seconds


@pytest.mark.slow
@pytest.mark.parametrize("timeout_s", [2, 4])
def test_drip_ends_the_jev_audit_within_timeout_plus_2s(timeout_s: int) -> None:
    set_profile(technical_retries=0, timeout_s=timeout_s)
    with HostileServer("drip-headers") as server:
        result = audit_against(server)
    assert result["rc"] == 3, result
    assert f"did not answer within {timeout_s} s" in result["stdout"] + result["stderr"]
    # The server's clock: from the request to the client hanging up.
    assert server.served_s and server.served_s[0] <= timeout_s + 2, server.served_s
    # The whole process, start-up included, on a loaded machine: generous.
    assert result["seconds"] < timeout_s + 20, result["seconds"]


@pytest.mark.slow
def test_threads_sharing_one_poster_each_end_at_their_deadline() -> None:
    from concurrent.futures import ThreadPoolExecutor

    shared = poster(2)
    with HostileServer("drip-body") as server:
        started = time.monotonic()
        with ThreadPoolExecutor(4) as pool:
            futures = [
                pool.submit(shared.post, server.base + "/chat/completions", {}, {})
                for _ in range(4)
            ]
            kinds = []
            for future in futures:
                try:
                    future.result()
                except TransportError as exc:
                    kinds.append(exc.kind)
    assert kinds == ["timeout"] * 4
    assert time.monotonic() - started <= 2 + CLOSE_MARGIN_S + 2.0


# -- shape: malformed bodies are typed response errors -------------------------------------


@pytest.mark.parametrize("mode", ["deep", "dup-choices", "wrong-type"])
def test_malformed_body_is_bad_body(mode: str) -> None:
    with HostileServer(mode) as server:
        err, seconds = post(server)
    assert err.kind == "bad-body" and err.retryable
    assert seconds < 30.0  # ended by the check, not by the 60 s deadline


def test_redirect_to_another_host_is_not_followed() -> None:
    with HostileServer("redirect") as server:
        err, _ = post(server)
    assert err.kind == "http-status" and err.status == 307 and not err.retryable
    assert server.connections == 1


def test_settings_refuse_timeout_over_600_at_save() -> None:
    from jev.base.errors import SettingsError
    from jev.settings.profiles import parse_raw, save_settings

    for raw in ("601", "99999999999"):
        with pytest.raises(SettingsError, match="600"):
            parse_raw("judge.timeout_s", raw)
    with pytest.raises(SettingsError):
        save_settings(None, {"judge.timeout_s": 99999999999})
    assert parse_raw("judge.timeout_s", "600") == 600


# -- secrets: the key echoed in any form reaches nothing -----------------------------------


@pytest.mark.parametrize("form", range(len(key_forms(SENTINEL))))
def test_redaction_catches_every_transformed_form(form: int) -> None:
    text = f"the provider said: {key_forms(SENTINEL)[form]} (end)"
    redacted = redact_secrets(text, [SENTINEL])
    assert "***" in redacted and redacted.endswith("(end)")
    for piece in key_forms(SENTINEL):
        for i in range(0, len(piece) - 12):
            assert piece[i : i + 12].lower() not in redacted.lower()


@pytest.mark.slow
def test_echoed_key_reaches_no_output_record_or_file(jev_home: Path) -> None:
    set_profile(technical_retries=0, timeout_s=10)
    with HostileServer("echo-key", key=SENTINEL) as server:
        result = audit_against(server, key=SENTINEL)
    assert result["rc"] in (0, 3, 4, 5), result
    seen = [result["stdout"], result["stderr"]]
    seen += [p.read_bytes().decode("utf-8", "replace") for p in jev_home.rglob("*") if p.is_file()]
    export = run_jev("records", "export", "--out", "-")
    seen += [export["stdout"], export["stderr"]]
    for text in seen:
        low = text.lower()
        for piece in key_forms(SENTINEL):
            for i in range(0, len(piece) - 12):
                assert piece[i : i + 12].lower() not in low
