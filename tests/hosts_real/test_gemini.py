"""Gemini CLI 0.61.0, the real CLI (issue 19): ``gemini -p … --approval-mode yolo``
against the scripted Gemini API (:mod:`tests.hosts_real.server_gemini`) with Jev
installed the way README says (``jev install gemini --enable``).

Two set-ups, both real ways to get a Todo tool in Gemini CLI 0.61 (hosts.md (Gemini
CLI)):

* ``write_todos``: registered only for a ``gemini-2.x`` model and only while
  ``experimental.taskTracker`` is off, so ``jev install gemini --no-todo-tools`` and
  ``model.name: "gemini-2.5-pro"`` in ``~/.gemini/settings.json``;
* the task tracker (``tracker_*`` tools on every model): what plain
  ``jev install gemini`` switches on.

The scripted agent (:class:`Script`) makes a Todo list, stops with a report and, when
Jev's supplement comes back as the next user message of the same prompt, either fixes
the open item or repeats its report (after calling ``write_todos`` again, so that the
retry's AfterAgent carries ``stop_hook_active: false``: Jev's own budget must bound
it). Each prompt starts with a marker (``[T1]`` …) so the agent finds the current turn
in a resumed session's request.

Every scenario is an assertion on what reached the model (the logged requests), on what
the user saw (``-p`` stdout/stderr) and on Jev's records.
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
from tests.hosts_real.server_gemini import GeminiServer, offered_tools

#: How Jev's supplement starts when Gemini sends it back as the next user message.
SUPPLEMENT = "[Jev completion audit"
#: What ``gemini -p`` prints on stderr for a hook's ``systemMessage``.
SYSTEM_MESSAGE = "Hook system message: Jev completion audit"
MODEL = "gemini-2.5-pro"  # write_todos needs a gemini-2.x model (config.ts)
_RUN_TIMEOUT_S = 60

Round = Sequence[Step] | Callable[[list[str]], Sequence[Step]]


@dataclass
class Turn:
    """One prompt's script: tool ``rounds`` then the final ``answer``; after the k-th
    supplement, ``fixes[k-1]`` (the last entry repeats): more rounds and a new answer."""

    rounds: list[Round]
    answer: str
    fixes: list[tuple[list[Round], str]] = field(default_factory=list)


def _parts(content: dict[str, Any]) -> list[dict[str, Any]]:
    return [p for p in content.get("parts") or () if isinstance(p, dict)]


def _texts(content: dict[str, Any]) -> list[str]:
    return [str(p["text"]) for p in _parts(content) if "text" in p]


def _responses(content: dict[str, Any]) -> list[str]:
    return [
        json.dumps(p["functionResponse"].get("response"))
        for p in _parts(content)
        if "functionResponse" in p
    ]


class Script:
    """The agent: a function of the request (see the module docstring)."""

    def __init__(self, turns: dict[str, Turn]) -> None:
        self.turns = turns

    def current(self, request: Logged) -> tuple[str, int] | None:
        """``(marker, index of the prompt content)`` of the request's current turn."""
        contents = request.body["contents"]
        for i in range(len(contents) - 1, -1, -1):
            if contents[i].get("role") != "user":
                continue
            for text in _texts(contents[i]):
                for marker in self.turns:
                    if marker in text:
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
        for content in request.body["contents"][anchor + 1 :]:
            if content.get("role") == "model":
                since += 1
            elif content.get("role") == "user":
                for text in _responses(content):
                    ids += re.findall(r"Created task (\w+)", text)
                if any(t.startswith(SUPPLEMENT) for t in _texts(content)):
                    phase, since = phase + 1, 0
        if phase and turn.fixes:
            rounds, answer = turn.fixes[min(phase, len(turn.fixes)) - 1]
        sequence: list[Round] = [*rounds, [Text(answer)]]
        step = sequence[min(since, len(sequence) - 1)]
        return list(step(ids) if callable(step) else step)


def todos(*items: tuple[str, str]) -> list[Step]:
    """One ``write_todos`` call with the whole list."""
    return [Tool("write_todos", {"todos": [{"description": d, "status": s} for d, s in items]})]


def tracker_create(*titles: str) -> list[Step]:
    """One ``tracker_create_task`` per title, in one model response."""
    return [
        Tool("tracker_create_task", {"title": t, "description": t, "type": "task"}) for t in titles
    ]


def tracker_close(n: int) -> Callable[[list[str]], list[Step]]:
    """``tracker_update_task`` closing the turn's ``n``-th created task."""
    return lambda ids: [Tool("tracker_update_task", {"id": ids[n], "status": "closed"})]


OPEN = todos(("Add the signup form", "completed"), ("Update the README signup section", "pending"))
DONE = todos(
    ("Add the signup form", "completed"), ("Update the README signup section", "completed")
)
CLAIM = "All done: the signup form is finished."


@dataclass
class Gemini:
    """The temp user with Jev installed and the Gemini CLI pointed at ``server``."""

    home: HostHome
    server: GeminiServer
    program: Path

    def run(self, prompt: str, *extra: str) -> subprocess.CompletedProcess[str]:
        """``gemini -p PROMPT --approval-mode yolo EXTRA…`` in the project folder."""
        env = dict(
            self.home.env,
            GOOGLE_GEMINI_BASE_URL=self.server.base_url,
            GEMINI_API_KEY="scripted-key",
            GEMINI_CLI_TRUST_WORKSPACE="true",
        )
        proc = subprocess.run(
            [str(self.program), "-p", prompt, "--approval-mode", "yolo", *extra],
            cwd=self.home.project,
            env=env,
            capture_output=True,
            text=True,
            timeout=_RUN_TIMEOUT_S,
        )
        assert proc.returncode == 0, f"gemini exited {proc.returncode}: {proc.stderr[-2000:]}"
        return proc

    def stops(self) -> list[dict[str, Any]]:
        """Every AfterAgent stdin the host sent so far (the logging hook)."""
        log = self.home.home / "after-agent.jsonl"
        text = log.read_text() if log.exists() else ""
        return [json.loads(line) for line in text.splitlines() if line.strip()]

    def records(self) -> list[dict[str, Any]]:
        """Jev's records, oldest first."""
        out = self.home.jev("records", "list", "--json", "--limit", "500").stdout
        return list(reversed(json.loads(out)))

    def supplements_seen(self, since: int = 0) -> list[str]:
        """The supplements that reached the model (the last user text of each agent
        request after request ``since`` that is Jev's)."""
        seen = []
        for request in self.server.agent_calls()[since:]:
            last = request.body["contents"][-1]
            seen += [t for t in _texts(last) if t.startswith(SUPPLEMENT)]
        return seen


def _settings(home: HostHome, **values: Any) -> Path:
    """Merge ``values`` into ``~/.gemini/settings.json``; the path."""
    path = home.home / ".gemini" / "settings.json"
    data = json.loads(path.read_text()) if path.exists() else {}
    data.update(values)
    path.write_text(json.dumps(data, indent=2))
    return path


def _gemini(host_home: HostHome, server: GeminiServer, *install: str) -> Gemini:
    """Jev installed (``jev install gemini --enable INSTALL…``), the API-key auth the
    CLI needs offline, and a second AfterAgent hook that logs every stdin it gets
    (:meth:`Gemini.stops`)."""
    program = host_program("gemini")
    host_home.jev("install", "gemini", "--enable", "--judge", "rules", *install)
    path = _settings(host_home, security={"auth": {"selectedType": "gemini-api-key"}})
    data = json.loads(path.read_text())
    log = host_home.home / "after-agent.jsonl"
    logger = {"type": "command", "command": f"{{ cat; echo; }} >> {log}; echo '{{}}'"}
    data["hooks"]["AfterAgent"].append({"hooks": [logger]})
    path.write_text(json.dumps(data, indent=2))
    return Gemini(host_home, server, program)


def test_write_todos_budgets_resume_and_doctor(host_home: HostHome) -> None:
    """The ``write_todos`` set-up: an agent repeating its report after a tool call
    (``stop_hook_active`` false) gets exactly 3 blocks; the resumed session's next turn
    with ``max_supplements = 1`` exactly 1 (its own budget); a turn without Todo use is
    silent; ``jev doctor --host gemini`` says everything is in place."""
    script = Script(
        {
            # 4 identical write_todos calls: a 5th would trip Gemini's loop detection
            "[T1]": Turn([OPEN], CLAIM, fixes=[([OPEN], CLAIM)]),
            "[T2]": Turn([OPEN], CLAIM, fixes=[([], CLAIM)]),  # retries without a tool
            "[T3]": Turn([], "The README has one heading, 'Signup'."),
        }
    )
    with GeminiServer(script) as server:
        gem = _gemini(host_home, server, "--no-todo-tools")
        _settings(host_home, model={"name": MODEL})
        first = gem.run("[T1] Add the signup form and update the README signup section.")
        assert "write_todos" in offered_tools(server.agent_calls()[0])
        assert "tracker_create_task" not in offered_tools(server.agent_calls()[0])
        assert len(gem.supplements_seen()) == 3
        assert first.stderr.count(SYSTEM_MESSAGE) == 4  # 3 blocks + "budget used up"
        assert "supplement budget used up" in first.stderr
        assert first.stdout.count(CLAIM) == 4  # -p stdout glues every round's answer
        t1 = gem.records()
        assert [r["action"]["kind"] for r in t1] == ["supplement"] * 3 + ["exhausted"]
        assert len({r["turn"] for r in t1}) == 1
        # every retry followed a write_todos call, so the host said stop_hook_active
        # false each time: the bound above is Jev's budget, not the host's flag
        assert [s["stop_hook_active"] for s in gem.stops()] == [False] * 4

        host_home.jev("settings", "set", "max_supplements", "1")
        calls = len(server.agent_calls())
        gem.run("[T2] Now add the signup form to the mobile layout too.", "--resume", "latest")
        assert len(gem.supplements_seen(calls)) == 1
        t2 = [r for r in gem.records() if r["turn"] != t1[0]["turn"]]
        assert [r["action"]["kind"] for r in t2] == ["supplement", "exhausted"]
        assert len({r["turn"] for r in t2}) == 1
        assert {r["session"] for r in t2} == {t1[0]["session"]}
        # a retry that calls no tool is the one the host flags
        assert [s["stop_hook_active"] for s in gem.stops()[4:]] == [False, True]

        calls, count = len(server.agent_calls()), len(gem.records())
        third = gem.run("[T3] What does the README say?", "--resume", "latest")
        assert gem.supplements_seen(calls) == [] and SYSTEM_MESSAGE not in third.stderr
        assert len(gem.records()) == count

        doctor = host_home.jev("doctor", "--host", "gemini", check=False)
        assert doctor.returncode == 0, doctor.stdout + doctor.stderr  # was 2 (issue 19)
        assert f"Todo tools yes (write_todos (model {MODEL}))" in doctor.stdout
        _settings(host_home, model={"name": "auto"})  # now no Todo tool at all
        doctor = host_home.jev("doctor", "--host", "gemini", check=False)
        assert doctor.returncode != 0 and "Todo tool may be off" in doctor.stdout


def test_task_tracker_fix_needs_user_and_doctor(host_home: HostHome) -> None:
    """Plain ``jev install gemini`` (the task tracker): an open task is blocked, the
    supplement reaches the model, the agent closes the task and the turn ends complete;
    a resumed turn that hands a decision to the user is not blocked and its notice
    reaches the user (``-p`` stderr); doctor reads the newest session."""
    fixed = (
        "Added the signup form in src/signup.ts and the Signup section in README.md; "
        "npm test signup: 4 passed."
    )
    ask = (
        "The migration is prepared. Should I run it on production now, "
        "or do you want to review it first?"
    )
    script = Script(
        {
            "[T1]": Turn(
                [
                    tracker_create("Add the signup form", "Update the README signup section"),
                    tracker_close(0),
                ],
                CLAIM,
                fixes=[([tracker_close(1)], fixed)],
            ),
            "[T2]": Turn(
                [
                    tracker_create("Prepare the migration", "Run the migration on production"),
                    tracker_close(0),
                ],
                ask,
            ),
        }
    )
    with GeminiServer(script) as server:
        gem = _gemini(host_home, server)
        first = gem.run("[T1] Add the signup form and update the README signup section.")
        offered = offered_tools(server.agent_calls()[0])
        assert "tracker_create_task" in offered and "write_todos" not in offered
        (supplement,) = gem.supplements_seen()
        assert "Verdict: contradiction" in supplement and CLAIM in supplement
        assert [r["assessment"] for r in gem.records()] == ["contradiction", "complete"]
        assert first.stderr.count("[WARNING] Agent execution blocked: Jev completion audit") == 1
        assert first.stdout.strip().endswith(fixed)

        calls = len(server.agent_calls())
        second = gem.run("[T2] Prepare the database migration.", "--resume", "latest")
        assert gem.supplements_seen(calls) == []
        last = gem.records()[-1]
        assert last["assessment"] == "needs-user" and last["action"]["kind"] != "supplement"
        assert SYSTEM_MESSAGE in second.stderr and "needs-user" in second.stderr
        assert "Agent execution blocked" not in second.stderr

        doctor = host_home.jev("doctor", "--host", "gemini", "--json", check=False)
        assert doctor.returncode == 0, doctor.stdout + doctor.stderr
        (report,) = json.loads(doctor.stdout)["hosts"]
        assert report["todo_tools"] is True and report["session_readable"] is True
        assert report["todo_offer"].startswith("tracker_* task tools")
        assert "/.gemini/tmp/" in report["newest_session"]


def test_block_cap_keeps_every_counted_block_delivered(host_home: HostHome) -> None:
    """An agent repeating its answer word for word: from the 11th round Gemini's loop
    detection stops calling the model while AfterAgent keeps firing, so with
    ``max_supplements = 12`` Jev blocks exactly 10 times (the host cap, clamped in the
    hook) and every one of them reaches the model; doctor warns about the cap."""
    script = Script({"[T1]": Turn([OPEN], CLAIM, fixes=[([], CLAIM)])})
    with GeminiServer(script) as server:
        gem = _gemini(host_home, server, "--no-todo-tools")
        _settings(host_home, model={"name": MODEL})
        host_home.jev("settings", "set", "max_supplements", "12")
        run = gem.run("[T1] Add the signup form and update the README signup section.")
        kinds = [r["action"]["kind"] for r in gem.records()]
        assert kinds == ["supplement"] * 10 + ["exhausted"]
        assert len(gem.supplements_seen()) == 10  # each counted block was delivered
        assert run.stderr.count("[WARNING] Agent execution blocked") == 10
        doctor = host_home.jev("doctor", "--host", "gemini", check=False)
        assert "max_supplements is 12, but the host delivers at most 10" in doctor.stdout


_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07|\x1b[()][A-Z0-9]")


def _tui(gem: Gemini, prompt: str, until: str, timeout_s: float = 45) -> str:
    """Run the interactive TUI (``gemini -i PROMPT``) in a pseudo-terminal until the
    screen shows ``until`` (whitespace collapsed) or ``timeout_s`` passes; the screen
    text seen so far, ANSI codes removed and whitespace collapsed. The TUI is killed."""
    import pty
    import select
    import signal
    import time

    env = dict(
        gem.home.env,
        GOOGLE_GEMINI_BASE_URL=gem.server.base_url,
        GEMINI_API_KEY="scripted-key",
        GEMINI_CLI_TRUST_WORKSPACE="true",
        TERM="xterm-256color",
    )
    argv = [str(gem.program), "--approval-mode", "yolo", "-i", prompt]
    pid, fd = pty.fork()
    if pid == 0:  # the child: exec the TUI in the project folder
        os.chdir(gem.home.project)
        os.execve(argv[0], argv, env)
    out, text = b"", ""
    deadline = time.monotonic() + timeout_s
    try:
        while time.monotonic() < deadline and until not in text:
            ready, _, _ = select.select([fd], [], [], 0.5)
            if ready:
                try:
                    out += os.read(fd, 65536)
                except OSError:
                    break
                text = " ".join(_ANSI.sub("", out.decode("utf-8", "replace")).split())
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(fd)
    return text


def test_tui_shows_the_block_and_the_budget_notice(host_home: HostHome) -> None:
    """The interactive TUI: a block appears inline as "Agent execution blocked: Jev
    completion audit: …" and the notice without a block (budget used up) as an info
    line, so Gemini has a notice channel in the TUI too (``Installer.notice_channel``)."""
    script = Script({"[T1]": Turn([OPEN], CLAIM, fixes=[([], CLAIM)])})
    with GeminiServer(script) as server:
        gem = _gemini(host_home, server, "--no-todo-tools")
        _settings(host_home, model={"name": MODEL})
        host_home.jev("settings", "set", "max_supplements", "1")
        screen = _tui(gem, "[T1] Add the signup form.", until="supplement budget used up")
        assert "Agent execution blocked: Jev completion audit: contradiction" in screen
        assert "supplement budget used up" in screen
        assert len(gem.supplements_seen()) == 1
