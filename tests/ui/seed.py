"""Fill a real store with audited turns the way hosts do: :class:`jev.api.Auditor`
driving a real OpenAI-compatible judge over HTTP (the fake provider on 127.0.0.1).

The turns (``SEEDED`` lists what each adds up to):

* ``chain`` (claude-code, two days ago): omission (focus T3) -> contradiction (focus
  A2) -> complete: three rounds, two supplements, one catch;
* ``handoff`` (codex, profile ``web``, yesterday): needs-user -> a hand-off;
* ``exhausted`` (claude-code, yesterday, max 1): omission -> omission: one block,
  budget used up;
* ``over-budget`` (today): the material exceeds ``evidence_chars``: incomplete, no
  judge call;
* ``down`` (today): the judge answers 500 twice: incomplete (transport);
* ``quick`` (today): complete at once.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, replace
from pathlib import Path

from jev.api import Auditor
from jev.base.domain import JudgeSettings, Material, Settings, TodoItem
from jev.judges.openai_compat import OpenAIJudge
from jev.store import Store
from tests.fakeserver import FakeProvider, Reply, openai_completion

DAY = 86_400.0
REQUEST = (
    "Migrate the three cron jobs (cleanup, digest, reindex) from `ops/crontab` to "
    "Kubernetes CronJobs under `deploy/k8s/`."
)
REINDEX = "CronJob for reindex (0 */6 * * *)"
ANSWER_2_CLAIM = "The reindex job now runs every hour."


def todos(reindex: str) -> tuple[TodoItem, ...]:
    return (
        TodoItem("CronJob for cleanup (0 3 * * *)", "completed"),
        TodoItem("CronJob for digest (30 7 * * 1-5)", "completed"),
        TodoItem(REINDEX, reindex),
    )


ROUND_1 = Material(
    (REQUEST,),
    todos("pending"),
    "Added `deploy/k8s/cronjob-cleanup.yaml` and `deploy/k8s/cronjob-digest.yaml`. "
    "Both validate with `kubectl apply --dry-run=server`.",
)
ROUND_2 = Material(
    (REQUEST,),
    todos("completed"),
    "Added the three CronJobs under `deploy/k8s/`. " + ANSWER_2_CLAIM + " Schedules were "
    "copied from the crontab unchanged.",
)
ROUND_3 = Material(
    (REQUEST,),
    todos("completed"),
    "Added the three CronJobs under `deploy/k8s/`; reindex keeps its six-hourly schedule "
    "(`0 */6 * * *`). `kubectl apply --dry-run=server -f deploy/k8s/` passes.",
)


@dataclass(frozen=True)
class Seeded:
    """What the seeded store holds, counted by construction."""

    turns: int = 6
    audits: int = 7
    blocks: int = 3
    catches: int = 1
    handoffs: int = 1
    incomplete: int = 2
    input_tokens: int = 7 * 1000 + 2 * 0
    output_tokens: int = 7 * 20


SEEDED = Seeded()


def _reply(assessment: str, focus: str) -> dict[str, object]:
    return openai_completion(
        json.dumps({"assessment": assessment, "focus": focus}),
        prompt_tokens=1000,
        completion_tokens=20,
    )


def seed(store_path: Path | str, fake: FakeProvider, *, now: float | None = None) -> Seeded:
    """Write the turns above into ``store_path`` (a SQLite file or a store URL)."""
    base = time.time() if now is None else now
    judge = OpenAIJudge(model="fake-model", base_url=fake.openai_base, api_key_env="JEV_UI_NOKEY")
    settings = Settings(
        enabled=True,
        judge=JudgeSettings(provider="openai", model="fake-model", base_url=fake.openai_base),
    )
    store = Store(store_path)
    try:

        def auditor(host: str, at: float, **changes: object) -> Auditor:
            s = replace(settings, **changes)  # type: ignore[arg-type]
            clock = iter(at + i for i in range(1000))
            return Auditor(
                settings=s,
                judge=judge,
                store=store,
                host=host,
                sleep=lambda _: None,
                now=lambda: next(clock),
            )

        fake.script(
            _reply("omission", "T3"), _reply("contradiction", "A2"), _reply("complete", "none")
        )
        a = auditor("claude-code", base - 2 * DAY)
        assert a.on_stop("sess-alpha", "turn-chain", ROUND_1).action == "supplement"
        assert a.on_stop("sess-alpha", "turn-chain", ROUND_2).action == "supplement"
        assert a.on_stop("sess-alpha", "turn-chain", ROUND_3).action == "finish"

        fake.script(_reply("needs-user", "R1"))
        b = auditor("codex", base - DAY, profile="web")
        assert b.on_stop("sess-beta", "turn-handoff", ROUND_1).action == "hand-to-user"

        fake.script(_reply("omission", "T3"), _reply("omission", "T3"))
        c = auditor("claude-code", base - DAY + 60, max_supplements=1)
        assert c.on_stop("sess-gamma", "turn-exhausted", ROUND_1).action == "supplement"
        assert c.on_stop("sess-gamma", "turn-exhausted", ROUND_2).action == "exhausted"

        d = auditor("claude-code", base - 300, evidence_chars=100)
        assert d.on_stop("sess-delta", "turn-over-budget", ROUND_1).action == "incomplete"

        fake.script(Reply(status=500, json={"error": {"message": "boom"}}))
        fake.script(Reply(status=500, json={"error": {"message": "boom"}}))
        e = auditor("claude-code", base - 200)
        assert e.on_stop("sess-delta", "turn-down", ROUND_1).action == "incomplete"

        fake.script(_reply("complete", "none"))
        f = auditor("claude-code", base - 100)
        assert f.on_stop("sess-epsilon", "turn-quick", ROUND_3).action == "finish"
    finally:
        judge.close()
        store.close()
    return SEEDED
