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
