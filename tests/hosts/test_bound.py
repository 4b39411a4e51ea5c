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
from hypothesis.stateful import RuleBasedStateMachine, rule, run_state_machine_as_test

from jev.hosts.hook import HookResult, run_stop_hook
from jev.hosts.registry import host_names
from jev.settings.profiles import save_settings
from tests.hosts.bound_helpers import (
    FLAGS,
    MISSING,
    BoundHost,
    BoundMachine,
    NeverComplete,
)
from tests.hosts_e2e.harness import ClaudeCodeSim, CodexSim
from tests.strength import examples


class Host(BoundHost):
    """One simulated Claude Code or Codex session around the in-process hook runner."""

    def __init__(self, host: str, folder: Path, profile: str, judge: NeverComplete) -> None:
        super().__init__(host, folder, profile, judge)
        self.sim: ClaudeCodeSim | CodexSim
        self.sim = ClaudeCodeSim(folder) if host == "claude-code" else CodexSim(folder)
        if isinstance(self.sim, CodexSim):
            self.sim.start()
        self.last_payload: dict[str, Any] = {}

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
        return {k: v for k, v in data.items() if v is not MISSING}

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

    def stop_again(self) -> HookResult:
        return self.stop(self.payload(stop_hook_active=True))

    def repeat_last(self) -> None:
        if self.last_payload:
            self.stop(dict(self.last_payload))

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


DELAYS = st.sampled_from([0.0, 0.3, 1.0, 2.0, 5.0, 14.9, 15.1, 30.0, 120.0])


def make_machine(host: str, root: Path) -> type[RuleBasedStateMachine]:
    class Bound(BoundMachine):
        h: Host

        def make_host(self, folder: Path, profile: str, judge: NeverComplete) -> Host:
            return Host(host, folder, profile, judge)

        @rule(delay=DELAYS, flag=FLAGS, change=st.booleans(), edit=st.booleans())
        def restop(self, delay: float, flag: object, change: bool, edit: bool) -> None:
            self.move_on(delay, change=change, edit=edit)
            self.h.stop(self.h.payload(stop_hook_active=flag))

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

    Bound.root = root
    Bound.host = host
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
            max_examples=examples(25),
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
