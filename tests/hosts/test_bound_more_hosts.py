"""The supplement bound for Gemini CLI, Cursor, Copilot CLI, Qwen Code and Droid
(issue 9 item 5; design.md §8), with the same hypothesis state machine idea as
``test_bound.py``: the real stop-hook runner, a real SQLite store, a real profile and a
judge that never says ``complete``, driven by generated host behaviour — re-stops at any
speed with the same or a changed report, Todo edits, ``stop_hook_active``
true/false/missing/wrongly typed, duplicate invocations, and each host's own way of
delivering a steer (Gemini's retry of the same prompt with the original ``prompt`` and a
cumulative ``prompt_response``; Cursor's follow-up and Copilot's block reason arriving
as a new user message). Invariants after every step: blocks sent ≤ ``max_supplements``
and judge calls ≤ ``max_supplements + 1 + technical_retries``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, rule, run_state_machine_as_test

from jev.hosts.hook import HookResult, run_stop_hook
from jev.settings.profiles import save_settings
from tests.hosts.bound_helpers import FLAGS, MISSING, BoundHost, BoundMachine, NeverComplete
from tests.hosts_e2e.more_hosts import SIMS, HostSim, blocked_reason

HOSTS = sorted(SIMS)
DELAYS = st.sampled_from([0.0, 0.3, 1.0, 5.0, 14.9, 15.1, 120.0])


class Host(BoundHost):
    """One simulated session of ``host`` around the in-process hook runner."""

    def __init__(self, host: str, folder: Path, profile: str, judge: NeverComplete) -> None:
        super().__init__(host, folder, profile, judge)
        self.sim: HostSim = SIMS[host](folder)
        self.sim.start()
        self.last_stdin = ""

    def prompt(self, text: str) -> None:
        self.sim.prompt(text)

    def todos(self, items: list[tuple[str, str]]) -> None:
        self.sim.todos(items)

    def say(self, text: str) -> None:
        self.sim.say(text)

    def stop_again(self) -> HookResult:
        return self.stop(True)

    def repeat_last(self) -> None:
        if self.last_stdin:
            self.stop(stdin=self.last_stdin)

    def stop(self, flag: object = MISSING, *, bom: bool = False, stdin: str = "") -> HookResult:
        text = stdin or json.dumps(self.sim.payload(flag, MISSING))
        if bom:
            text = "\ufeff" + text
        self.last_stdin = text
        result = run_stop_hook(self.host, text, profile=self.profile, make_auditor=self.auditor)
        assert result.exit_code == 0, result.stderr
        assert "Traceback" not in result.stderr
        answer = json.loads(result.stdout) if result.stdout.strip() else {}
        reason = blocked_reason(self.host, answer)
        self.actions.append(
            "block" if reason else (result.decision.action if result.decision else "none")
        )
        if reason:
            self.blocks += 1
            self.sim.feedback(reason)
        return result


def make_machine(host: str, root: Path) -> type[RuleBasedStateMachine]:
    class Bound(BoundMachine):
        h: Host
        profile_prefix = "more"

        def make_host(self, folder: Path, profile: str, judge: NeverComplete) -> Host:
            return Host(host, folder, profile, judge)

        @rule(delay=DELAYS, flag=FLAGS, change=st.booleans(), edit=st.booleans(), bom=st.booleans())
        def restop(self, delay: float, flag: object, change: bool, edit: bool, bom: bool) -> None:
            self.move_on(delay, change=change, edit=edit)
            self.h.stop(flag, bom=bom)

    Bound.root = root
    Bound.host = host
    return Bound


@pytest.mark.slow
@pytest.mark.parametrize("host", HOSTS)
def test_bound_holds_for_every_new_host(host: str, tmp_path: Path) -> None:
    run_state_machine_as_test(
        make_machine(host, tmp_path),
        settings=settings(
            max_examples=12,
            stateful_step_count=10,
            deadline=None,
            suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
        ),
    )


@pytest.mark.parametrize("host", HOSTS)
@pytest.mark.parametrize("maximum", [1, 3])
def test_open_item_is_steered_at_most_max_times(host: str, maximum: int, tmp_path: Path) -> None:
    """A turn whose Todo list ends with an open item gets a steer; the host's own
    continuation shape (retry, follow-up, next prompt) never resets the budget."""
    save_settings(f"leak{maximum}", {"enabled": True, "max_supplements": maximum})
    h = Host(host, tmp_path, f"leak{maximum}", NeverComplete(["omission"]))
    h.sim.prompt("Fix the bug and update the docs.")
    h.sim.todos([("Fix the bug", "completed"), ("Update the docs", "pending")])
    h.sim.say("Done: fixed the bug.")
    for n in range(12):
        h.clock.now += 1.0
        h.stop(h.blocks > 0 or MISSING, bom=n % 2 == 1)
        if h.blocks and h.actions[-1] == "block":
            h.sim.say(f"Done again ({n}).")
    assert h.blocks == maximum, h.actions
    assert h.judge.calls <= maximum + 1, h.actions
    assert h.actions[0] == "block"


@pytest.mark.parametrize("host", HOSTS)
def test_turn_without_todo_use_is_silent(host: str, tmp_path: Path) -> None:
    save_settings("quiet", {"enabled": True})
    h = Host(host, tmp_path, "quiet", NeverComplete(["omission"]))
    h.sim.prompt("What does this function return?")
    h.sim.say("It returns None.")
    result = h.stop(False)
    assert result.decision is None and h.judge.calls == 0
    assert result.stdout.strip() in ("", "{}") and result.stderr == "", result
