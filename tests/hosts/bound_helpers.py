"""What the two supplement-bound state machines share (design.md §8): the judge that never
says ``complete``, the clock, the host wrapper's common part, and the machine's set-up,
judge failures, invariant and teardown.

``test_bound.py`` (Claude Code, Codex) and ``test_bound_more_hosts.py`` (the other
adapters) subclass :class:`BoundHost` and :class:`BoundMachine` with their hosts'
simulators and the rules only their hosts have. The invariant, after every step and at
the end: blocks sent ≤ ``max_supplements`` and real judge calls ≤ ``max_supplements + 1 +
technical_retries``; at the end, stopping again with the same report stops steering
within ``max_supplements + 2`` stops.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from jev.api import Auditor
from jev.base.domain import JudgeAnswer, JudgeInfo, JudgeInput, Numbering
from jev.base.errors import TransportError
from jev.hosts.hook import HookResult
from jev.settings.profiles import save_settings
from jev.store import Store

PROBLEMS = ("omission", "contradiction", "unknown", "needs-user")
RETRIES = 1
#: A payload field left out (``stop_hook_active`` missing).
MISSING = object()
FLAGS = st.sampled_from([True, False, MISSING, "yes", 1, None])
MAXIMA = st.sampled_from([1, 2, 3])


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
    """The hook's clock, moved by the test (seconds since the epoch)."""

    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


class BoundHost:
    """One simulated host session around the in-process hook runner: the common part.

    A subclass adds the host's simulator and ``prompt``/``todos``/``say`` (the turn),
    ``stop_again`` (one more stop with ``stop_hook_active`` true) and ``repeat_last``
    (the last stop delivered again).
    """

    def __init__(self, host: str, folder: Path, profile: str, judge: NeverComplete) -> None:
        self.host = host
        self.profile = profile
        self.judge = judge
        self.clock = Clock()
        self.store_path = folder / "jev.sqlite3"
        self.blocks = 0
        self.actions: list[str] = []

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
        raise NotImplementedError

    def todos(self, items: list[tuple[str, str]]) -> None:
        raise NotImplementedError

    def say(self, text: str) -> None:
        raise NotImplementedError

    def stop_again(self) -> HookResult:
        raise NotImplementedError

    def repeat_last(self) -> None:
        raise NotImplementedError


class BoundMachine(RuleBasedStateMachine):
    """The shared part of a bound state machine; a subclass sets :attr:`root`,
    :attr:`host`, :attr:`profile_prefix` and :meth:`make_host` and adds its rules."""

    root: Path
    host: str
    profile_prefix = "bound"

    def make_host(self, folder: Path, profile: str, judge: NeverComplete) -> BoundHost:
        raise NotImplementedError

    @initialize(
        maximum=MAXIMA,
        verdicts=st.lists(st.sampled_from(PROBLEMS), min_size=1, max_size=6),
    )
    def start(self, maximum: int, verdicts: list[str]) -> None:
        self.maximum = maximum
        profile = f"{self.profile_prefix}{maximum}"
        save_settings(
            profile,
            {"enabled": True, "max_supplements": maximum, "judge.technical_retries": RETRIES},
        )
        folder = self.root / uuid.uuid4().hex
        folder.mkdir(parents=True)
        self.h = self.make_host(folder, profile, NeverComplete(verdicts))
        self.h.prompt("Fix the bug and update the docs.")
        self.items = [("Fix the bug", "completed"), ("Update the docs", "pending")]
        self.h.todos(self.items)
        self.version = 0
        self.h.say("Done: fixed the bug. 🎉 → all good")

    def move_on(self, delay: float, *, change: bool, edit: bool) -> None:
        """Time passes (``delay`` seconds); the agent may tick off every Todo item
        (``edit``) and may change its report (``change``) before it stops again."""
        self.h.clock.now += delay
        if edit:
            self.items = [(text, "completed") for text, _ in self.items]
            self.h.todos(self.items)
        if change:
            self.version += 1
            self.h.say(f"Done (v{self.version}): fixed the bug; docs next.")

    @rule()
    def duplicate(self) -> None:
        """The same stop delivered twice (hook installed twice, host retry)."""
        self.h.repeat_last()

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
            result = self.h.stop_again()
            if not result.steers:
                break
        assert result is not None and not result.steers, self.h.actions
        assert self.h.blocks <= self.maximum, self.h.actions
        assert self.h.judge.calls <= self.maximum + 1 + RETRIES, self.h.actions
