"""Name resolution is inside the judge call's deadline (issue 11, design.md §11).

A resolver that hangs is simulated by a ``sitecustomize`` module on ``PYTHONPATH``
that makes ``socket.getaddrinfo`` sleep for one host name only, so the real ``jev``
console script runs unchanged in a subprocess against that host name. The call must
end within ``timeout_s`` + 2 s as a typed ``timeout`` response error, recorded like the
others. In-process tests check the same on :class:`JsonPoster` with the test's own
clock, and that a name that does not resolve stays a ``connection`` error; they give
the hanging or failing resolver through the transport's seam (``resolver=``,
:mod:`jev.judges._transport`), patching nothing.
"""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path
from typing import Any

import pytest

from jev.base.errors import TransportError
from jev.base.record import parse_iso_utc
from jev.judges._http import CLOSE_MARGIN_S, JsonPoster
from tests.adversarial.test_judge_transport import CASE, run_jev, set_profile

HANG_HOST = "judge.hangs.invalid"

_SITECUSTOMIZE = f"""
import socket, time
_real = socket.getaddrinfo
def _hanging(host, *args, **kwargs):
    if host == {HANG_HOST!r}:
        with open({{log!r}}, "a") as handle:
            handle.write(repr(time.time()) + "\\n")
        time.sleep(120)
    return _real(host, *args, **kwargs)
socket.getaddrinfo = _hanging
"""


def _poster(timeout_s: float, resolver: Any = None) -> JsonPoster:
    return JsonPoster(
        label="the judge", timeout_s=timeout_s, key_env="K", key_present=False, resolver=resolver
    )


@pytest.mark.parametrize("timeout_s", [1, 2])
def test_hanging_resolver_ends_at_the_deadline_in_process(timeout_s: int) -> None:
    real = socket.getaddrinfo
    calls: list[str] = []

    def hanging(host: Any, *args: Any, **kwargs: Any) -> Any:
        if host == HANG_HOST:
            calls.append(host)
            time.sleep(30)
        return real(host, *args, **kwargs)

    started = time.monotonic()
    with pytest.raises(TransportError) as info:
        _poster(timeout_s, hanging).post(f"http://{HANG_HOST}:9/v1/chat/completions", {}, {"m": 1})
    seconds = time.monotonic() - started
    assert calls == [HANG_HOST]  # the resolver was really asked, and hung
    assert info.value.kind == "timeout" and info.value.retryable
    assert f"did not answer within {timeout_s} s" in str(info.value)
    assert seconds <= timeout_s + CLOSE_MARGIN_S + 1.0, seconds


def test_name_that_does_not_resolve_is_a_connection_error() -> None:
    def failing(host: Any, *args: Any, **kwargs: Any) -> Any:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    with pytest.raises(TransportError) as info:
        _poster(5, failing).post("http://no-such-host.invalid/v1/chat/completions", {}, {})
    assert info.value.kind == "connection"
    assert "cannot resolve no-such-host.invalid" in str(info.value)


def test_host_name_that_resolves_still_connects() -> None:
    from tests.hostile import HostileServer

    # "localhost" goes through the resolving backend (not an IP literal) and the
    # hostile server's malformed body proves the exchange happened.
    with HostileServer("deep") as server:
        url = server.base.replace("127.0.0.1", "localhost") + "/chat/completions"
        with pytest.raises(TransportError) as info:
            _poster(10).post(url, {}, {})
    assert info.value.kind == "bad-body"


@pytest.mark.slow
@pytest.mark.parametrize("timeout_s", [2, 4])
def test_hanging_resolver_ends_jev_audit_within_timeout_plus_2s(
    timeout_s: int, tmp_path: Path, jev_home: Path
) -> None:
    log = tmp_path / "resolver.log"
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(_SITECUSTOMIZE.format(log=str(log)), "utf-8")
    set_profile(technical_retries=0, timeout_s=timeout_s)
    result = run_jev(
        "audit",
        str(CASE),
        "--judge",
        "openai",
        "--model",
        "m",
        "--base-url",
        f"http://{HANG_HOST}:9/v1",
        "--api-key-env",
        "JEV_DNS_KEY",
        "--json",
        env={"PYTHONPATH": str(site), "JEV_DNS_KEY": "k"},
    )
    ended = time.time()
    assert result["rc"] == 3, result  # audit incomplete: a response error
    row = json.loads(result["stdout"].splitlines()[0])
    assert row["status"] == "incomplete" and row["error_kind"] == "timeout", row
    assert f"did not answer within {timeout_s} s" in row["reason"]
    asked = [float(t) for t in log.read_text().split()]
    assert len(asked) == 1  # one call (no retry), and it really hung in the resolver
    # Recorded like the other response errors.
    export = run_jev("records", "export", "--out", "-")
    (record,) = [json.loads(line) for line in export["stdout"].splitlines() if line.strip()]
    assert record["status"] == "incomplete" and record["error_kind"] == "timeout"
    assert record["attempts"] == 1
    # The call: from the resolver being asked to the record of its failure (its time is
    # taken when the call has ended, to the millisecond).
    call_s = parse_iso_utc(record["created_at"]) - asked[0]
    assert call_s <= timeout_s + 2, call_s
    # The whole process, exit included, on a loaded machine: generous.
    assert ended - asked[0] < timeout_s + 20, ended - asked[0]
