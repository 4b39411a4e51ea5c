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
import uuid
from pathlib import Path

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
from jev.hosts.hook import HookResult, run_stop_hook
from jev.settings import save_settings
from jev.store import Store
from tests.hosts.test_bound import PROBLEMS, RETRIES, Clock, NeverComplete
from tests.hosts_e2e.more_hosts import SIMS, HostSim, blocked_reason

HOSTS = sorted(SIMS)
_MISSING = object()
FLAGS = st.sampled_from([True, False, _MISSING, "yes", 1, None])
DELAYS = st.sampled_from([0.0, 0.3, 1.0, 5.0, 14.9, 15.1, 120.0])


class Host:
    """One simulated session of ``host`` around the in-process hook runner."""

    def __init__(self, host: str, folder: Path, profile: str, judge: NeverComplete) -> None:
        self.host = host
        self.profile = profile
        self.judge = judge
        self.clock = Clock()
        self.store_path = folder / "jev.sqlite3"
        self.sim: HostSim = SIMS[host](folder)
        self.sim.start()
        self.blocks = 0
        self.actions: list[str] = []
        self.last_stdin = ""

    def auditor(self, profile: str | None, host: str) -> Auditor:
        return Auditor(
            profile=profile,
            judge=self.judge,
            store=Store(self.store_path),
            host=host,
            sleep=lambda _s: None,
            now=self.clock,
        )

    def stop(self, flag: object = _MISSING, *, bom: bool = False, stdin: str = "") -> HookResult:
        text = stdin or json.dumps(self.sim.payload(flag, _MISSING))
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
    class Bound(RuleBasedStateMachine):
        @initialize(
            maximum=st.sampled_from([1, 2, 3]),
            verdicts=st.lists(st.sampled_from(PROBLEMS), min_size=1, max_size=6),
        )
        def start(self, maximum: int, verdicts: list[str]) -> None:
            self.maximum = maximum
            profile = f"more{maximum}"
            save_settings(
                profile,
                {"enabled": True, "max_supplements": maximum, "judge.technical_retries": RETRIES},
            )
            folder = root / uuid.uuid4().hex
            folder.mkdir(parents=True)
            self.h = Host(host, folder, profile, NeverComplete(verdicts))
            self.h.sim.prompt("Fix the bug and update the docs.")
            self.items = [("Fix the bug", "completed"), ("Update the docs", "pending")]
            self.h.sim.todos(self.items)
            self.version = 0
            self.h.sim.say("Done: fixed the bug. 🎉 → all good")

        @rule(delay=DELAYS, flag=FLAGS, change=st.booleans(), edit=st.booleans(), bom=st.booleans())
        def restop(self, delay: float, flag: object, change: bool, edit: bool, bom: bool) -> None:
            self.h.clock.now += delay
            if edit:
                self.items = [(text, "completed") for text, _ in self.items]
                self.h.sim.todos(self.items)
            if change:
                self.version += 1
                self.h.sim.say(f"Done (v{self.version}): fixed the bug; docs next.")
            self.h.stop(flag, bom=bom)

        @rule()
        def duplicate(self) -> None:
            """The same stop delivered twice (hook installed twice, host retry)."""
            if self.h.last_stdin:
                self.h.stop(stdin=self.h.last_stdin)

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
            result: HookResult | None = None
            for _ in range(self.maximum + 2):
                self.h.clock.now += 1.0
                result = self.h.stop(True)
                if not result.steers:
                    break
            assert result is not None and not result.steers, self.h.actions
            assert self.h.blocks <= self.maximum, self.h.actions

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
        h.stop(h.blocks > 0 or _MISSING, bom=n % 2 == 1)
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
