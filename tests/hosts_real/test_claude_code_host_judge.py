"""Claude Code judged by its own model (issue 20 "done when"): the real ``claude -p``
with Jev installed as README says, in a fresh HOME, and no judge configured at all.

``jev install claude-code`` leaves a profile whose judge is ``claude-code``; at the stop
of a Todo turn with an open item, Jev runs ``claude -p`` headless as the judge. The
scripted server sees that as a second kind of request: it carries Jev's judge rules and
offers the schema's ``StructuredOutput`` tool only (no Bash, no Read, no Task tools).
The model's verdict blocks the turn, the supplement reaches the agent, and the bounds
hold: judge calls per turn ≤ ``max_supplements`` + 1 + retries, and no stop waits on
the judge longer than ``judge.timeout_s`` + 2 s.
"""

from __future__ import annotations

import json
import re
from typing import Any

from tests.hosts_real.conftest import HostHome
from tests.hosts_real.scripted import Logged, Step, Tool
from tests.hosts_real.server_anthropic import AnthropicServer
from tests.hosts_real.test_claude_code import (
    Claude,
    Script,
    open_item_turn,
    records,
    supplements_seen,
)

RULES = "You audit a coding agent"
TIMEOUT_S = 40


class JudgedScript:
    """The agent of :class:`Script`, plus the model answering Jev's judge calls: the
    open Todo item (``status`` ``pending``/``in_progress``) is an omission, else
    complete."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self.judge_calls: list[Logged] = []

    def __call__(self, request: Logged) -> list[Step]:
        if RULES not in request.raw:
            return self.script(request)
        self.judge_calls.append(request)
        material = "\n".join(_user_texts(request))
        open_ids = re.findall(r'\{"id": "(T\d+)", "status": "(?:pending|in_progress)"', material)
        verdict: dict[str, Any] = (
            {"assessment": "omission", "focus": open_ids[0], "confidence": 0.9}
            if open_ids
            else {"assessment": "complete", "focus": "none", "confidence": 0.9}
        )
        return [Tool("StructuredOutput", verdict)]


def _user_texts(request: Logged) -> list[str]:
    out = []
    for message in request.body.get("messages") or []:
        content = message.get("content")
        if isinstance(content, str):
            out.append(content)
        for block in content if isinstance(content, list) else ():
            if isinstance(block, dict) and block.get("type") == "text":
                out.append(str(block.get("text", "")))
    return out


def test_a_fresh_install_is_judged_by_the_host_model(host_home: HostHome) -> None:
    agent = JudgedScript(Script({"[T1]": open_item_turn(fix=True)}))
    with AnthropicServer(agent) as server:
        claude = Claude(host_home, server)
        out = host_home.jev("install", "claude-code", "--enable").stdout
        assert "judge.provider = claude-code" in out, out
        shown = host_home.jev("settings", "show", "--json").stdout
        assert json.loads(shown)["judge"]["provider"] == "claude-code"
        host_home.jev("settings", "set", "judge.timeout_s", str(TIMEOUT_S))
        run = claude.run("[T1] Fix the parser bug and add a regression test.")
        assert run.returncode == 0, run.stderr[-2000:]
        # the judge calls: Jev's rules, the schema's tool only, one per stop
        assert 1 <= len(agent.judge_calls) <= 3 + 1 + 1
        for call in agent.judge_calls:
            tools = {t.get("name") for t in call.body.get("tools") or []}
            assert "StructuredOutput" in tools
            assert not tools & {"Bash", "Read", "Edit", "Write", "TaskCreate", "ToolSearch"}
        assert supplements_seen(claude.turn_requests(agent.script, "[T1]")) == 1
    rows = records(host_home)
    assert [r["assessment"] for r in rows] == ["omission", "complete"], rows
    for row in rows:
        assert row["judge"]["provider"] == "claude-code"
        assert row["latency_ms"] <= (TIMEOUT_S + 2) * 1000
