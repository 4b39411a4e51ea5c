"""GitHub Copilot CLI, the real CLI: transcript evidence (issue 21).

The scripted agent writes its Todo list (the session ``todos`` table), runs ``python3 -m
pytest -q`` through the real ``bash`` tool on a project with one truly failing test and
answers "All 3 tests pass." → Jev blocks with ``contradiction`` decided from the run
(read from Copilot's own ``events.jsonl``: the output and its ``<shellId: … completed
with exit code 1>`` line), and the supplement that reaches the model quotes the real
``1 failed`` summary line.
"""

from __future__ import annotations

from tests.hosts_real.chat_script import Script, Turn, supplements_seen
from tests.hosts_real.conftest import HostHome
from tests.hosts_real.npm_hosts import host_program
from tests.hosts_real.scripted import Tool
from tests.hosts_real.server_chat import ChatServer
from tests.hosts_real.test_claude_code_evidence import _project
from tests.hosts_real.test_copilot import Copilot, new_list

PYTEST = Tool("bash", {"command": "python3 -m pytest -q", "description": "Run the tests"})
CLAIM = "Fixed the rounding in calc.py. All 3 tests pass."
HONEST = "Fixed the rounding in calc.py. 1 test still fails: test_half_up."
DONE = new_list(("fix", "Fix the rounding and run the tests", "done"))


def test_a_claim_the_real_run_contradicts_is_blocked(host_home: HostHome) -> None:
    _project(host_home.project, failing=True)
    script = Script({"[P1]": Turn([DONE, [PYTEST]], CLAIM, fixes=[([], HONEST)])})
    with ChatServer(script) as server:
        host_home.jev("install", "copilot", "--enable", "--judge", "rules")
        copilot = Copilot(host_home, server, host_program("copilot"))
        copilot.run("[P1] Fix the rounding in calc.py and run the tests.")
        seen = supplements_seen(server.agent_calls())
    assert len(seen) == 1, seen
    assert "contradiction" in seen[0] and "1 failed, 2 passed" in seen[0], seen[0]
    rows = copilot.records()
    assert rows[0]["judge"]["provider"] == "evidence", rows[0]
    assert rows[0]["evidence"]["command"] == "python3 -m pytest -q"
