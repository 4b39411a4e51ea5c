"""Claude Code, the real CLI: transcript evidence (issue 21, first "Done when" line).

A project with three tests, one of which truly fails. The scripted agent makes a Todo
list, runs ``python3 -m pytest -q`` through the real Bash tool (the host runs it and
writes its result, ``is_error`` with ``Exit code 1``, to the transcript), completes
its item and answers "All 3 tests pass." → Jev blocks with ``contradiction`` decided
from the run, and the supplement that reaches the model in the next request quotes the
real ``1 failed`` summary line. The twin whose tests all pass → complete, no block.
With ``evidence.transcript = false`` → the evidence step stays out (today's
behaviour: the judge alone decides).
"""

from __future__ import annotations

from pathlib import Path

from tests.hosts_real.conftest import HostHome
from tests.hosts_real.scripted import Tool
from tests.hosts_real.server_anthropic import AnthropicServer
from tests.hosts_real.test_claude_code import (
    LOAD,
    SUPPLEMENT,
    Claude,
    Script,
    Turn,
    _install,
    _texts,
    complete,
    create,
    records,
    supplements_seen,
)

PYTEST = Tool("Bash", {"command": "python3 -m pytest -q", "description": "Run the tests"})
CLAIM = "Fixed the rounding in calc.py. All 3 tests pass."
HONEST = "Fixed the rounding in calc.py. 1 test still fails: test_half_up."


def _project(folder: Path, *, failing: bool) -> None:
    half = "1.0" if failing else "0.0"  # round(0.5) is 0 in Python
    (folder / "calc.py").write_text("def rnd(x):\n    return float(round(x))\n", "utf-8")
    (folder / "test_calc.py").write_text(
        "from calc import rnd\n\n"
        "def test_one():\n    assert rnd(1.2) == 1.0\n\n"
        "def test_two():\n    assert rnd(2.7) == 3.0\n\n"
        f"def test_half_up():\n    assert rnd(0.5) == {half}\n",
        "utf-8",
    )


def _turn() -> Turn:
    rounds = [LOAD, create("Fix the rounding and run the tests"), [PYTEST], complete(0)]
    return Turn(rounds, CLAIM, [([], HONEST)])


def test_a_claim_the_real_run_contradicts_is_blocked_with_its_summary_line(
    host_home: HostHome,
) -> None:
    _project(host_home.project, failing=True)
    script = Script({"[E1]": _turn()})
    with AnthropicServer(script) as server:
        claude = Claude(host_home, server)
        _install(host_home)
        run = claude.run("[E1] Fix the rounding in calc.py and run the tests.")
        assert run.returncode == 0, run.stderr
        requests = claude.turn_requests(script, "[E1]")
        assert supplements_seen(requests) == 1
        supplement = next(
            t
            for r in requests
            for t in _texts(r.body["messages"][-1])
            if SUPPLEMENT in t and r.body["messages"][-1].get("role") == "user"
        )
        assert "contradiction" in supplement and "1 failed, 2 passed" in supplement, supplement
        assert '"python3 -m pytest -q"' in supplement and "exit code 1" in supplement
        assert HONEST in run.result()["result"]
    rows = records(host_home)
    assert rows[0]["judge"]["provider"] == "evidence"
    assert rows[0]["evidence"]["command"] == "python3 -m pytest -q"
    assert "1 failed" in rows[0]["evidence"]["quote"]
    assert rows[0]["attempts"] == 0  # decided without a judge call


def test_the_passing_twin_is_complete(host_home: HostHome) -> None:
    _project(host_home.project, failing=False)
    script = Script({"[E2]": _turn()})
    with AnthropicServer(script) as server:
        claude = Claude(host_home, server)
        _install(host_home)
        run = claude.run("[E2] Fix the rounding in calc.py and run the tests.")
        assert run.returncode == 0, run.stderr
        assert supplements_seen(claude.turn_requests(script, "[E2]")) == 0
        assert CLAIM in run.result()["result"]
    rows = records(host_home)
    assert [r["assessment"] for r in rows] == ["complete"]
    assert "evidence" not in rows[0]


def test_with_evidence_transcript_off_the_judge_alone_decides(host_home: HostHome) -> None:
    _project(host_home.project, failing=True)
    script = Script({"[E3]": _turn()})
    with AnthropicServer(script) as server:
        claude = Claude(host_home, server)
        _install(host_home)
        host_home.jev("settings", "set", "evidence.transcript", "false")
        run = claude.run("[E3] Fix the rounding in calc.py and run the tests.")
        assert run.returncode == 0, run.stderr
        assert supplements_seen(claude.turn_requests(script, "[E3]")) == 0
    rows = records(host_home)
    assert [r["judge"]["provider"] for r in rows] == ["rules"]
    assert "evidence" not in rows[0]


FIX = Tool(
    "Bash",
    {
        "command": "printf 'import math\\n\\ndef rnd(x):\\n"
        "    return float(math.floor(x + 0.5))\\n' > calc.py",
        "description": "Round half up",
    },
)


def _check_turn() -> Turn:
    """Claims done without running anything; after a supplement, fixes calc.py."""
    rounds = [LOAD, create("Fix the rounding in calc.py"), complete(0)]
    fixed = "Changed `rnd()` in `calc.py` to round half up with `math.floor(x + 0.5)`."
    return Turn(rounds, "Fixed the rounding in calc.py.", [([[FIX]], fixed)])


def _stop_timeout(home: HostHome) -> int:
    import json

    settings = json.loads((home.home / ".claude" / "settings.json").read_text())
    return int(settings["hooks"]["Stop"][0]["hooks"][0]["timeout"])


def test_a_failing_check_blocks_with_its_tail_and_a_passing_one_completes(
    host_home: HostHome,
) -> None:
    """evidence.checks = ["python3 -m pytest -q"] on the failing project: the agent
    claims done without running anything → blocked with the check's failing tail,
    counted in max_supplements; it fixes the code → the check passes → complete."""
    _project(host_home.project, failing=True)
    host_home.jev("settings", "set", "evidence.checks", '["python3 -m pytest -q"]')
    script = Script({"[C1]": _check_turn()})
    with AnthropicServer(script) as server:
        claude = Claude(host_home, server)
        _install(host_home)
        assert _stop_timeout(host_home) >= 210 + 120  # the judge's time + the check's
        run = claude.run("[C1] Fix the rounding in calc.py.")
        assert run.returncode == 0, run.stderr
        requests = claude.turn_requests(script, "[C1]")
        sent = [
            t
            for r in requests
            for m in r.body["messages"]
            if m.get("role") == "user"
            for t in _texts(m)
            if SUPPLEMENT in t
        ]
        assert sent, "no supplement reached the model"
        assert "omission" in sent[0] and '"python3 -m pytest -q"' in sent[0], sent[0]
        assert "1 failed, 2 passed" in sent[0], sent[0]
        assert supplements_seen(requests) == 1
    rows = records(host_home)
    assert [r["assessment"] for r in rows] == ["omission", "complete"]
    assert rows[0]["evidence"]["rule"] == "check-failed"
    assert [r["supplements_used"] for r in rows] == [1, 1]


def test_a_hanging_check_is_killed_at_its_timeout_and_the_hook_answers(
    host_home: HostHome,
) -> None:
    """A check that hangs is killed at evidence.check_timeout_s; the stop still
    answers (a counted block, within max_supplements = 1) well inside the host's limit."""
    import time

    _project(host_home.project, failing=False)
    host_home.jev("settings", "set", "evidence.checks", '["sleep 600"]')
    host_home.jev("settings", "set", "evidence.check_timeout_s", "3")
    host_home.jev("settings", "set", "max_supplements", "1")
    script = Script({"[C2]": Turn([LOAD, create("Tidy calc.py"), complete(0)], "Tidied calc.py.")})
    with AnthropicServer(script) as server:
        claude = Claude(host_home, server)
        _install(host_home)
        assert _stop_timeout(host_home) >= 213
        started = time.monotonic()
        run = claude.run("[C2] Tidy calc.py.")
        took = time.monotonic() - started
        assert run.returncode == 0, run.stderr
        assert supplements_seen(claude.turn_requests(script, "[C2]")) == 1
    assert took < 60, took  # two stops, each check killed after 3 s
    rows = records(host_home)
    assert rows[0]["evidence"]["rule"] == "check-timed-out"
    assert rows[0]["evidence"]["exit_code"] is None
