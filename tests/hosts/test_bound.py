"""The supplement bound as an invariant, whatever the host does (issue 8 item 2, design.md §8).

A hypothesis state machine plays a host around the real stop-hook runner
(:func:`jev.hosts.hook.run_stop_hook`, the code ``jev hook HOST`` runs) with a real
SQLite store, a real profile file and a judge that never says ``complete``. It
generates host behaviour: re-stops at any speed (0 s … 60 s), with the same or a
changed report, Todo edits between stops, ``stop_hook_active`` true/false/missing/
wrongly typed, duplicate invocations of one stop, stops deferred for background
tasks, the supplement coming back as a plain new user message, and judge calls that
fail technically. After every step it checks, for the one user prompt of the turn:

* blocks sent ≤ ``max_supplements``;
* real judge calls ≤ ``max_supplements + 1 + technical_retries``;

and at the end, that stopping again with the same report ends in ``exhausted`` or a
non-block within ``max_supplements + 1`` more stops.

A second test re-creates the 15-second re-stop leak: the agent re-stops every ~1 s
with the same report; ``max_supplements`` 1 and 3 must give exactly 1 and 3 blocks.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    rule,
    run_state_machine_as_test,
)

from jev.api import Auditor
from jev.domain import JudgeAnswer, JudgeInfo, JudgeInput, Numbering
from jev.errors import TransportError
from jev.hosts.hook import HookResult, run_stop_hook
from jev.hosts.registry import host_names
from jev.settings import save_settings
from jev.store import Store
from tests.hosts_e2e.harness import ClaudeCodeSim, CodexSim

PROBLEMS = ("omission", "contradiction", "unknown", "needs-user")
RETRIES = 1


class NeverComplete:
    """A judge that answers every call with a problem verdict or ``needs-user``, or
    fails technically when told to; it counts every call."""

    info = JudgeInfo(provider="scripted", model="never-complete")

    def __init__(self, verdicts: list[str]) -> None:
        self.verdicts = verdicts or ["omission"]
        self.calls = 0
        self.fail_next = 0

    def ask(self, judge_input: JudgeInput, numbering: Numbering) -> JudgeAnswer:
        self.calls += 1
        if self.fail_next:
            self.fail_next -= 1
            raise TransportError("judge down", kind="timeout")
        verdict = self.verdicts[self.calls % len(self.verdicts)]
        return JudgeAnswer(text=json.dumps({"assessment": verdict, "focus": "R1"}))

    async def ask_async(self, judge_input: JudgeInput, numbering: Numbering) -> JudgeAnswer:
        return self.ask(judge_input, numbering)

    def close(self) -> None:
        pass


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


class Host:
    """One simulated host session around the in-process hook runner."""

    def __init__(self, host: str, folder: Path, profile: str, judge: NeverComplete) -> None:
        self.host = host
        self.profile = profile
        self.judge = judge
        self.clock = Clock()
        self.store_path = folder / "jev.sqlite3"
        self.sim: ClaudeCodeSim | CodexSim
        self.sim = ClaudeCodeSim(folder) if host == "claude-code" else CodexSim(folder)
        if isinstance(self.sim, CodexSim):
            self.sim.start()
        self.blocks = 0
        self.actions: list[str] = []
        self.last_payload: dict[str, Any] = {}

    def auditor(self, profile: str | None, host: str) -> Auditor:
        return Auditor(
            profile=profile,
            judge=self.judge,
            store=Store(self.store_path),
            host=host,
            sleep=lambda _s: None,
            now=self.clock,
        )

    def prompt(self, text: str) -> None:
        self.sim.prompt(text)

    def todos(self, items: list[tuple[str, str]]) -> None:
        if isinstance(self.sim, ClaudeCodeSim):
            self.sim.todo_write(*items)
        else:
            self.sim.plan(*items)

    def say(self, text: str) -> None:
        self.sim.say(text)

    def payload(self, **overrides: Any) -> dict[str, Any]:
        sim = self.sim
        data: dict[str, Any] = {
            "session_id": sim.session_id,
            "transcript_path": str(sim.transcript),
            "cwd": str(sim.folder),
            "hook_event_name": "Stop",
            "permission_mode": "default",
            "last_assistant_message": sim.last_text,
        }
        if isinstance(sim, CodexSim):
            data["turn_id"] = sim.turn_id
            data["model"] = "gpt-5.3-codex"
        else:
            data["background_tasks"] = []
            data["session_crons"] = []
        data.update(overrides)
        return {k: v for k, v in data.items() if v is not _MISSING}

    def stop(self, payload: dict[str, Any], *, apply: bool = True) -> HookResult:
        self.last_payload = payload
        result = run_stop_hook(
            self.host, json.dumps(payload), profile=self.profile, make_auditor=self.auditor
        )
        assert result.exit_code == 0, result.stderr
        assert "Traceback" not in result.stderr
        answer = json.loads(result.stdout) if result.stdout.strip() else {}
        blocked = answer.get("decision") == "block" or "hookSpecificOutput" in answer
        self.actions.append(
            "block" if blocked else (result.decision.action if result.decision else "none")
        )
        if blocked:
            self.blocks += 1
            if apply:
                self.feedback(_steer_of(answer))
        return result

    def feedback(self, reason: str, *, as_prompt: bool = False) -> None:
        """Apply a block as the host does (or as a plain new user message)."""
        sim = self.sim
        if isinstance(sim, ClaudeCodeSim):
            if as_prompt:
                sim._append({"type": "user", "message": {"role": "user", "content": reason}})
            else:
                sim._end_records(True)
                sim._append(
                    {
                        "type": "user",
                        "message": {"role": "user", "content": f"Stop hook feedback:\n{reason}"},
                        "isMeta": True,
                    }
                )
        else:
            text = (
                reason
                if as_prompt
                else f'<hook_prompt hook_run_id="{uuid.uuid4()}">{reason}</hook_prompt>'
            )
            sim._line(
                "response_item",
                {
                    "type": "message",
                    "role": "user",
                    "content": [{"type": "input_text", "text": text}],
                },
            )


def _steer_of(answer: dict[str, Any]) -> str:
    context = answer.get("hookSpecificOutput") or {}
    return str(answer.get("reason") or context.get("additionalContext") or "")


_MISSING = object()
FLAGS = st.sampled_from([True, False, _MISSING, "yes", 1, None])
DELAYS = st.sampled_from([0.0, 0.3, 1.0, 2.0, 5.0, 14.9, 15.1, 30.0, 120.0])
MAXIMA = st.sampled_from([1, 2, 3])


def make_machine(host: str, root: Path) -> type[RuleBasedStateMachine]:
    class Bound(RuleBasedStateMachine):
        @initialize(
            maximum=MAXIMA,
            verdicts=st.lists(st.sampled_from(PROBLEMS), min_size=1, max_size=6),
        )
        def start(self, maximum: int, verdicts: list[str]) -> None:
            self.maximum = maximum
            profile = f"bound{maximum}"
            save_settings(
                profile,
                {
                    "enabled": True,
                    "max_supplements": maximum,
                    "judge.technical_retries": RETRIES,
                },
            )
            folder = root / uuid.uuid4().hex
            folder.mkdir(parents=True)
            self.h = Host(host, folder, profile, NeverComplete(verdicts))
            self.h.prompt("Fix the bug and update the docs.")
            self.items = [("Fix the bug", "completed"), ("Update the docs", "pending")]
            self.h.todos(self.items)
            self.version = 0
            self.h.say("Done: fixed the bug. 🎉 → all good")

        @rule(delay=DELAYS, flag=FLAGS, change=st.booleans(), edit=st.booleans())
        def restop(self, delay: float, flag: object, change: bool, edit: bool) -> None:
            self.h.clock.now += delay
            if edit:
                self.items = [(text, "completed") for text, _ in self.items]
                self.h.todos(self.items)
            if change:
                self.version += 1
                self.h.say(f"Done (v{self.version}): fixed the bug; docs next.")
            self.h.stop(self.h.payload(stop_hook_active=flag))

        @rule()
        def duplicate(self) -> None:
            """The same stop delivered twice (hook installed twice, host retry)."""
            if self.h.last_payload:
                self.h.stop(dict(self.h.last_payload))

        @rule(delay=DELAYS)
        def deferred(self, delay: float) -> None:
            """A stop while background work runs: deferred, never a block."""
            self.h.clock.now += delay
            if self.h.host != "claude-code":
                return
            task = [{"id": "b1", "type": "shell", "status": "running", "description": "npm test"}]
            before = self.h.blocks
            self.h.stop(self.h.payload(background_tasks=task))
            assert self.h.blocks == before

        @rule(delay=DELAYS)
        def supplement_as_new_message(self, delay: float) -> None:
            """The host hands Jev's supplement back as a plain user message, then stops."""
            self.h.clock.now += delay
            result = self.h.stop(self.h.payload(stop_hook_active=True), apply=False)
            answer = json.loads(result.stdout) if result.stdout.strip() else {}
            if answer.get("decision") == "block":
                self.h.feedback(_steer_of(answer), as_prompt=True)
                self.h.say("Done: fixed the bug. 🎉 → all good")
                self.h.stop(self.h.payload(stop_hook_active=True))

        @rule(n=st.integers(1, 3))
        def judge_fails(self, n: int) -> None:
            self.h.judge.fail_next = n

        @invariant()
        def bounded(self) -> None:
            if not hasattr(self, "h"):
                return
            assert self.h.blocks <= self.maximum, self.h.actions
            assert self.h.judge.calls <= self.maximum + 1 + RETRIES, self.h.actions

        def teardown(self) -> None:
            if not hasattr(self, "h"):
                return
            self.h.judge.fail_next = 0
            for _ in range(self.maximum + 2):
                self.h.clock.now += 1.0
                result = self.h.stop(self.h.payload(stop_hook_active=True))
                if not result.steers:
                    break
            assert not result.steers, self.h.actions
            assert self.h.blocks <= self.maximum, self.h.actions
            assert self.h.judge.calls <= self.maximum + 1 + RETRIES, self.h.actions

    return Bound


#: Hosts simulated here; the other adapters (Gemini CLI, Cursor, Copilot CLI, Qwen Code,
#: Droid) run the same kind of state machine in ``test_bound_more_hosts.py``.
SIMULATED = ("claude-code", "codex")


@pytest.mark.parametrize("host", host_names())
def test_bound_holds_whatever_the_host_does(host: str, tmp_path: Path) -> None:
    if host not in SIMULATED:
        pytest.skip(f"{host}: its state machine is in tests/hosts/test_bound_more_hosts.py")
    run_state_machine_as_test(
        make_machine(host, tmp_path),
        settings=settings(
            max_examples=25,
            stateful_step_count=12,
            deadline=None,
            suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
        ),
    )


@pytest.mark.parametrize("host", ["claude-code", "codex"])
@pytest.mark.parametrize("maximum", [1, 3])
def test_fast_identical_restops_send_exactly_max_blocks(
    host: str, maximum: int, tmp_path: Path
) -> None:
    """The 15-second leak: re-stops every ~1 s with the same report used to get the
    stored block back uncounted (19–21 blocks for N=3, 6 for N=1)."""
    save_settings(f"leak{maximum}", {"enabled": True, "max_supplements": maximum})
    h = Host(host, tmp_path, f"leak{maximum}", NeverComplete(["omission"]))
    h.prompt("Fix the bug and update the docs.")
    h.todos([("Fix the bug", "completed"), ("Update the docs", "pending")])
    h.say("Done: fixed the bug.")
    for _ in range(25):
        h.clock.now += 1.0
        h.stop(h.payload(stop_hook_active=h.blocks > 0))
    assert h.blocks == maximum, h.actions
    assert h.judge.calls <= maximum + 1
    assert h.actions[-1] == "exhausted"
