"""Claude Code, the real CLI (issue 19): ``claude -p`` against the scripted Messages API
(:mod:`tests.hosts_real.server_anthropic`) with Jev installed the way README says.

The scripted agent (:class:`Script`) loads the deferred Todo tools with ``ToolSearch``
(``select:TaskCreate,TaskUpdate``, hosts.md (Claude Code)), makes a Todo list, stops
with a report and, when Jev's supplement comes back as "Stop hook additional context",
either fixes the open item or repeats its report. Each prompt starts with a marker
(``[T1]`` …) so the agent finds the current turn in a resumed session's request.

Every scenario is an assertion on what reached the model (the logged requests), on
what the user saw (the ``stream-json`` output) and on Jev's records.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.hosts_real.conftest import HostHome
from tests.hosts_real.npm_hosts import host_program
from tests.hosts_real.scripted import Logged, Step, Text, Tool
from tests.hosts_real.server_anthropic import AnthropicServer

#: How the host hands a Stop hook's ``additionalContext`` to the model (2.1.328).
SUPPLEMENT = "Stop hook additional context: [Jev completion audit"
_RUN_TIMEOUT_S = 90

Round = Sequence[Step] | Callable[[list[str]], Sequence[Step]]


@dataclass
class Turn:
    """One prompt's script: tool ``rounds`` then the final ``answer``; after the k-th
    supplement, ``fixes[k-1]`` (the last entry repeats): more rounds and a new answer."""

    rounds: list[Round]
    answer: str
    fixes: list[tuple[list[Round], str]] = field(default_factory=list)


def _texts(message: dict[str, Any]) -> list[str]:
    content = message.get("content")
    if isinstance(content, str):
        return [content]
    return [
        b.get("text", "") for b in content or () if isinstance(b, dict) and b.get("type") == "text"
    ]


def _result_texts(message: dict[str, Any]) -> list[str]:
    out: list[str] = []
    content = message.get("content")
    for block in content if isinstance(content, list) else ():
        if isinstance(block, dict) and block.get("type") == "tool_result":
            value = block.get("content")
            if isinstance(value, list):
                value = " ".join(str(x.get("text", "")) for x in value if isinstance(x, dict))
            out.append(str(value))
    return out


class Script:
    """The agent: a function of the request (see the module docstring)."""

    def __init__(self, turns: dict[str, Turn]) -> None:
        self.turns = turns

    def current(self, request: Logged) -> tuple[str, int] | None:
        """``(marker, index of the prompt message)`` of the request's current turn."""
        messages = request.body["messages"]
        for i in range(len(messages) - 1, -1, -1):
            if messages[i].get("role") != "user":
                continue
            for text in _texts(messages[i]):
                for marker in self.turns:
                    if text.startswith(marker):
                        return marker, i
        return None

    def __call__(self, request: Logged) -> list[Step]:
        found = self.current(request)
        if found is None:
            return [Text("Nothing to do.")]
        marker, anchor = found
        turn = self.turns[marker]
        rounds, answer = turn.rounds, turn.answer
        phase = since = 0
        ids: list[str] = []
        for message in request.body["messages"][anchor + 1 :]:
            if message.get("role") == "assistant":
                since += 1
            elif message.get("role") == "user":
                for text in _result_texts(message):
                    ids += re.findall(r"Task #(\d+) created", text)
                if any(SUPPLEMENT in t for t in _texts(message)):
                    phase, since = phase + 1, 0
        if phase and turn.fixes:
            rounds, answer = turn.fixes[min(phase, len(turn.fixes)) - 1]
        sequence: list[Round] = [*rounds, [Text(answer)]]
        step = sequence[min(since, len(sequence) - 1)]
        return list(step(ids) if callable(step) else step)


LOAD = [Tool("ToolSearch", {"query": "select:TaskCreate,TaskUpdate", "max_results": 5})]


def create(*subjects: str) -> list[Step]:
    """One ``TaskCreate`` per subject."""
    return [Tool("TaskCreate", {"subject": s, "description": s}) for s in subjects]


def complete(n: int) -> Callable[[list[str]], list[Step]]:
    """``TaskUpdate`` marking the turn's ``n``-th created task completed."""
    return lambda ids: [Tool("TaskUpdate", {"taskId": ids[n], "status": "completed"})]


def open_item_turn(fix: bool) -> Turn:
    """Two tasks, the second left open while the answer says all is done; ``fix``: the
    supplement makes the agent complete it, else it repeats the same report, reworded
    each round: when a re-stop's stdin is byte-identical to the last one and Claude Code
    has not yet written to the transcript, Jev cannot tell it from a second invocation
    of the same stop and answers nothing (docs/hosts.md, Claude Code)."""
    answer = "Fixed the parser bug in parse(); all done."
    rounds: list[Round] = [
        LOAD,
        create("Fix the parser bug", "Add a regression test for the parser"),
        complete(0),
    ]
    fixed = "Fixed the parser bug in parse() and added tests/test_parser.py; both tasks completed."
    again = [([], f"{answer} (checked again: round {k})") for k in range(1, 13)]
    fixes = [([complete(1)], fixed)] if fix else again
    return Turn(rounds, answer, fixes)


NEEDS_USER = Turn(
    [LOAD, create("Build the package", "Publish the package to npm"), complete(0)],
    "I built the package, but publishing to npm needs the NPM_TOKEN, which I do not have."
    " Could you provide the NPM_TOKEN so I can publish it?",
)
PLAIN = Turn([], "The README has 12 lines.")


@dataclass
class Run:
    """One ``claude -p`` run: the exit code and the parsed ``stream-json`` events."""

    returncode: int
    events: list[dict[str, Any]]
    stderr: str

    def notices(self) -> list[str]:
        """What the user sees from hooks: ``system``/``informational`` event texts."""
        return [
            str(e.get("content", ""))
            for e in self.events
            if e.get("type") == "system" and e.get("subtype") == "informational"
        ]

    def result(self) -> dict[str, Any]:
        return next(e for e in reversed(self.events) if e.get("type") == "result")


class Claude:
    """The pinned ``claude`` program in one :class:`HostHome`, talking to ``server``."""

    def __init__(self, home: HostHome, server: AnthropicServer) -> None:
        self.home = home
        self.server = server
        program = host_program("claude-code")
        self.program = program
        home.env.update(
            ANTHROPIC_BASE_URL=server.base_url,
            ANTHROPIC_API_KEY="sk-ant-scripted",
            IS_SANDBOX="1",  # --dangerously-skip-permissions refuses root otherwise
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
            DISABLE_AUTOUPDATER="1",
            # `claude` on PATH: `jev install` reads `claude --version` (exec-form hooks)
            PATH=f"{home.env['PATH']}{os.pathsep}{program.parent}",
        )

    def run(self, prompt: str, *args: str) -> Run:
        proc = subprocess.run(
            [
                str(self.program),
                "-p",
                prompt,
                "--output-format",
                "stream-json",
                "--verbose",
                "--dangerously-skip-permissions",
                *args,
            ],
            cwd=self.home.project,
            env=self.home.env,
            capture_output=True,
            text=True,
            timeout=_RUN_TIMEOUT_S,
        )
        events = []
        for line in proc.stdout.splitlines():
            try:
                events.append(json.loads(line))
            except ValueError:
                continue
        return Run(proc.returncode, events, proc.stderr)

    def turn_requests(self, script: Script, marker: str) -> list[Logged]:
        """The agent-loop requests whose current turn is ``marker``."""
        out = []
        for request in self.server.agent_calls():
            found = script.current(request)
            if found is not None and found[0] == marker:
                out.append(request)
        return out


def supplements_seen(requests: list[Logged]) -> int:
    """How many of ``requests`` end in a user message carrying Jev's supplement: the
    blocks the host delivered."""
    count = 0
    for request in requests:
        last = request.body["messages"][-1]
        if last.get("role") == "user" and any(SUPPLEMENT in t for t in _texts(last)):
            count += 1
    return count


def records(home: HostHome) -> list[dict[str, Any]]:
    """Jev's audit records, oldest first (``jev records export``)."""
    out = home.jev("records", "export", "--out", "-").stdout
    rows = [json.loads(line) for line in out.splitlines() if line.strip()]
    return sorted(rows, key=lambda r: int(r["id"]))


def _install(home: HostHome) -> None:
    out = home.jev("install", "claude-code", "--enable", "--judge", "rules").stdout
    settings = json.loads((home.home / ".claude" / "settings.json").read_text())
    stop = settings["hooks"]["Stop"][0]["hooks"][0]
    assert stop["args"] == ["hook", "claude-code"], (out, stop)  # exec form on 2.1.328
    assert settings["env"]["CLAUDE_CODE_ENABLE_TODO_TOOLS"] == "1"


def test_install_blocks_fixes_resumes_and_doctor(host_home: HostHome) -> None:
    """README's install; T1 blocked then fixed; T2 (resumed) repeats its report and gets
    exactly 3 blocks; T3 without Todo use is silent; T4 needs the user: not blocked,
    the notice reaches the user; doctor tells the truth about that install."""
    script = Script(
        {
            "[T1]": open_item_turn(fix=True),
            "[T2]": open_item_turn(fix=False),
            "[T3]": PLAIN,
            "[T4]": NEEDS_USER,
        }
    )
    with AnthropicServer(script) as server:
        claude = Claude(host_home, server)
        _install(host_home)

        t1 = claude.run("[T1] Fix the parser bug and add a regression test.")
        assert t1.returncode == 0, t1.stderr
        first = claude.turn_requests(script, "[T1]")
        # the SessionStart hint: the Todo tool and how to load it reached the model
        assert "select:TaskCreate,TaskUpdate" in first[0].raw, "no Todo-tool hint"
        assert supplements_seen(first) == 1
        assert "both tasks completed" in t1.result()["result"]
        assert any("supplement sent" in n for n in t1.notices()), t1.notices()

        t2 = claude.run("[T2] Fix the parser bug and add a regression test.", "--continue")
        assert t2.returncode == 0, t2.stderr
        assert supplements_seen(claude.turn_requests(script, "[T2]")) == 3
        assert any("3/3" in n for n in t2.notices()), t2.notices()

        before = len(server.requests)
        t3 = claude.run("[T3] How many lines has the README?", "--continue")
        assert t3.returncode == 0, t3.stderr
        assert t3.notices() == []
        assert supplements_seen(server.agent_calls()[before:]) == 0

        t4 = claude.run("[T4] Build the package and publish it to npm.", "--continue")
        assert t4.returncode == 0, t4.stderr
        assert supplements_seen(claude.turn_requests(script, "[T4]")) == 0
        assert any("needs-user" in n for n in t4.notices()), t4.notices()

    sessions = [r.result()["session_id"] for r in (t1, t2, t3, t4)]
    assert len(set(sessions)) == 1, f"--continue opened a new session: {sessions}"
    rows = records(host_home)
    by_turn: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        by_turn.setdefault(str(row["turn"]), []).append(row)
    verdicts = [[r["assessment"] for r in turn] for turn in by_turn.values()]
    assert len(verdicts) == 3, verdicts  # T3 made no record
    assert verdicts[0][-1] == "complete"
    errors = host_home.home / ".jev" / "hook-errors.jsonl"
    detail = (
        [(r["round"], r["status"], r["assessment"], r["reason"]) for r in rows],
        t2.notices(),
        errors.read_text() if errors.exists() else "",
    )
    assert len(verdicts[1]) == 4 and verdicts[1][-1] != "complete", detail
    assert verdicts[2] == ["needs-user"]

    doctor = host_home.jev("doctor", "--host", "claude-code", check=False)
    text = doctor.stdout + doctor.stderr
    assert doctor.returncode == 0, text
    assert "cannot read" not in text, text
    assert "ToolSearch" in text, text


def _budget_used(rows: list[dict[str, Any]], turn: str) -> list[int]:
    return [int(r["supplements_used"]) for r in rows if r["turn"] == turn]


def test_budget_of_one_and_the_host_cap(host_home: HostHome) -> None:
    """max_supplements=1: exactly 1 block. max_supplements=10 on a resumed session: the
    host would override a 9th block in a row, so Jev sends and counts 8, then says the
    budget is used up (and doctor warns); CLAUDE_CODE_STOP_HOOK_BLOCK_CAP=2 makes it 2."""
    script = Script({m: open_item_turn(fix=False) for m in ("[B1]", "[B2]", "[B3]")})
    prompt = " Fix the parser bug and add a regression test."
    with AnthropicServer(script) as server:
        claude = Claude(host_home, server)
        _install(host_home)
        host_home.jev("settings", "set", "max_supplements", "1")
        b1 = claude.run("[B1]" + prompt)
        assert b1.returncode == 0, b1.stderr
        assert supplements_seen(claude.turn_requests(script, "[B1]")) == 1
        assert any("1/1" in n for n in b1.notices()), b1.notices()

        host_home.jev("settings", "set", "max_supplements", "10")
        b2 = claude.run("[B2]" + prompt, "--continue")
        assert b2.returncode == 0, b2.stderr
        assert supplements_seen(claude.turn_requests(script, "[B2]")) == 8
        assert "budget used up" in b2.notices()[-1], b2.notices()
        assert not any("overriding" in n for n in b2.notices()), "the host overrode Jev"
        doctor = host_home.jev("doctor", "--host", "claude-code", check=False)
        assert "at most 8 blocks in a row" in doctor.stdout, doctor.stdout

        host_home.env["CLAUDE_CODE_STOP_HOOK_BLOCK_CAP"] = "2"
        b3 = claude.run("[B3]" + prompt, "--continue")
        assert b3.returncode == 0, b3.stderr
        assert supplements_seen(claude.turn_requests(script, "[B3]")) == 2
        assert "budget used up" in b3.notices()[-1], b3.notices()

    rows = records(host_home)
    turns = list(dict.fromkeys(r["turn"] for r in rows))
    assert len(turns) == 3, turns
    assert _budget_used(rows, turns[0]) == [1, 1]  # the second audit: budget used up
    assert _budget_used(rows, turns[1]) == [*range(1, 9), 8]  # no 9th counted
    assert _budget_used(rows, turns[2]) == [1, 2, 2]


def test_plugin_route_blocks_then_fixes(host_home: HostHome) -> None:
    """README's plugin route: the real CLI's `claude plugin marketplace add <checkout>`
    and `claude plugin install jev@jev`, `jev enable`, the Todo-tools variable added by
    hand; a Todo turn with an open item is blocked once, then fixed and complete."""
    checkout = Path(__file__).resolve().parents[2]
    script = Script({"[P1]": open_item_turn(fix=True)})
    with AnthropicServer(script) as server:
        claude = Claude(host_home, server)
        for args in (("marketplace", "add", str(checkout)), ("install", "jev@jev")):
            proc = subprocess.run(
                [str(claude.program), "plugin", *args],
                cwd=host_home.project,
                env=host_home.env,
                capture_output=True,
                text=True,
                timeout=_RUN_TIMEOUT_S,
            )
            assert proc.returncode == 0, proc.stdout + proc.stderr
        settings_file = host_home.home / ".claude" / "settings.json"
        settings = json.loads(settings_file.read_text())
        assert settings["enabledPlugins"] == {"jev@jev": True}
        settings["env"] = {"CLAUDE_CODE_ENABLE_TODO_TOOLS": "1"}
        settings_file.write_text(json.dumps(settings))
        host_home.jev("enable")

        p1 = claude.run("[P1] Fix the parser bug and add a regression test.")
        assert p1.returncode == 0, p1.stderr
        requests = claude.turn_requests(script, "[P1]")
        assert "select:TaskCreate,TaskUpdate" in requests[0].raw, "no Todo-tool hint"
        assert supplements_seen(requests) == 1
        assert "both tasks completed" in p1.result()["result"]
    rows = records(host_home)
    assert [r["assessment"] for r in rows][-1] == "complete"
    assert len(rows) == 2
    doctor = host_home.jev("doctor", "--host", "claude-code", check=False)
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    assert "hook plugin: " in doctor.stdout and "(reads)" in doctor.stdout, doctor.stdout
