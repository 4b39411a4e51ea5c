"""The Python API for hosts (issue 3 items 1, 6, 7): real SQLite store, scripted judge.

Covers the rows of design.md §8 and the behaviour table of the Jev seed ("行为示例")
through :class:`jev.pipeline.audit.Auditor`, the way a custom agent loop would drive it.
"""

from __future__ import annotations

import json
import multiprocessing
import os
from dataclasses import replace
from pathlib import Path

import pytest

from jev.base.domain import Material, Settings, TodoItem
from jev.base.errors import TransportError
from jev.judges.scripted import ScriptedJudge
from jev.pipeline.audit import Auditor
from jev.pipeline.decide import Decision
from jev.store import Store, TurnKey
from tests.store.helpers import DbTarget


def reply(assessment: str, focus: str) -> str:
    return json.dumps({"assessment": assessment, "focus": focus})


def material(
    answer: str = "Done: edited src/a.py; pytest -q: 3 passed.", *todos: TodoItem
) -> Material:
    items = todos or (TodoItem("Fix the bug", "completed"), TodoItem("Update the docs", "pending"))
    return Material(("Fix the bug and update the docs.",), tuple(items), answer)


def make(
    tmp_path: Path, replies: list[str | BaseException], **settings: object
) -> tuple[Auditor, ScriptedJudge]:
    judge = ScriptedJudge(replies)
    s = replace(Settings(enabled=True), **settings)  # type: ignore[arg-type]
    store = Store(tmp_path / "jev.sqlite3")
    return Auditor(settings=s, judge=judge, store=store, host="test", sleep=lambda _: None), judge


# ---------------------------------------------------------------- seed behaviour table


def test_no_todo_use_no_audit(tmp_path: Path) -> None:
    auditor, judge = make(tmp_path, [])
    m = replace(material(), todo_used=False)
    d = auditor.on_stop("s", "t", m)
    assert d.action == "skip" and judge.calls == []
    assert auditor.store.list_records() == []


def test_pending_items_still_audited(tmp_path: Path) -> None:
    auditor, judge = make(tmp_path, [reply("omission", "T2")])
    d = auditor.on_stop("s", "t", material())
    assert len(judge.calls) == 1
    assert d.action == "supplement"


def test_docs_requirement_missing_is_omission_pointing_at_the_request(tmp_path: Path) -> None:
    auditor, _ = make(tmp_path, [reply("omission", "R1")])
    d = auditor.on_stop("s", "t", material())
    assert d.action == "supplement" and d.supplement is not None
    assert "Fix the bug and update the docs." in d.supplement
    assert "1/3" in d.supplement
    assert d.state is not None and d.state.supplements_used == 1


def test_contradiction_gets_a_supplement_quoting_it(tmp_path: Path) -> None:
    m = material("All verified, tests pass.", TodoItem("Run tests (not run yet)", "pending"))
    auditor, _ = make(tmp_path, [reply("contradiction", "A1")])
    d = auditor.on_stop("s", "t", m)
    assert d.action == "supplement" and d.supplement is not None
    assert "All verified, tests pass." in d.supplement


def test_honest_failure_report_is_complete(tmp_path: Path) -> None:
    auditor, _ = make(tmp_path, [reply("complete", "none")])
    d = auditor.on_stop(
        "s",
        "t",
        material("Ran pytest: 2 failed (test_a, test_b).", TodoItem("Run tests", "completed")),
    )
    assert d.action == "finish" and d.supplement is None
    assert "complete" in d.notice


def test_bare_done_is_unknown_and_gets_a_supplement(tmp_path: Path) -> None:
    auditor, _ = make(tmp_path, [reply("unknown", "all")])
    d = auditor.on_stop("s", "t", material("All done."))
    assert d.action == "supplement"


def test_needs_user_hands_over_without_supplement(tmp_path: Path) -> None:
    auditor, judge = make(tmp_path, [reply("needs-user", "A1")])
    d = auditor.on_stop("s", "t", material("Should I force-push to main?"))
    assert d.action == "hand-to-user" and d.supplement is None
    assert "Should I force-push to main?" in d.notice
    assert len(judge.calls) == 1


def test_three_supplements_then_exhausted_shows_last_verdict(tmp_path: Path) -> None:
    replies = [
        reply("omission", "R1"),
        reply("contradiction", "A1"),
        reply("unknown", "all"),
        reply("omission", "T2"),
    ]
    auditor, judge = make(tmp_path, replies)
    actions = []
    for i in range(4):
        d = auditor.on_stop("s", "t", material(f"answer version {i}"))
        actions.append(d.action)
    assert actions == ["supplement", "supplement", "supplement", "exhausted"]
    assert d.state is not None and d.state.chain == (
        "omission",
        "contradiction",
        "unknown",
        "omission",
    )
    assert d.state.supplements_used == 3
    assert "omission" in d.notice
    # no fifth audit: the turn is exhausted
    again = auditor.on_stop("s", "t", material("answer version 5"))
    assert again.action == "exhausted" and len(judge.calls) == 4


@pytest.mark.parametrize("n", [1, 2, 5])
def test_at_most_n_plus_one_normal_audits(tmp_path: Path, n: int) -> None:
    auditor, judge = make(tmp_path, [reply("omission", "R1")] * (n + 1), max_supplements=n)
    actions = [auditor.on_stop("s", "t", material(f"v{i}")).action for i in range(n + 3)]
    assert actions[:n] == ["supplement"] * n
    assert actions[n:] == ["exhausted"] * 3
    assert len(judge.calls) == n + 1


def test_over_budget_is_incomplete_then_retry_after_raising_budget(tmp_path: Path) -> None:
    judge = ScriptedJudge([reply("complete", "none")])
    store = Store(tmp_path / "jev.sqlite3")
    small = Settings(enabled=True, evidence_chars=50)
    auditor = Auditor(settings=small, judge=judge, store=store, host="test")
    d = auditor.on_stop("s", "t", material())
    assert d.action == "incomplete" and judge.calls == []
    assert "did not complete" in d.notice and "jev retry" in d.notice
    big = Auditor(
        settings=replace(small, evidence_chars=24_000), judge=judge, store=store, host="test"
    )
    d2 = big.retry("s", "t", material())
    assert d2.action == "finish"
    assert d2.state is not None and d2.state.supplements_used == 0 and d2.state.audits == 1


def test_judge_failure_is_incomplete_and_counts_nothing(tmp_path: Path) -> None:
    down = TransportError("down", kind="connection")
    auditor, judge = make(tmp_path, [down, down, reply("omission", "R1")])
    d = auditor.on_stop("s", "t", material())
    assert d.action == "incomplete" and len(judge.calls) == 2  # 1 + technical retry
    assert d.state is not None and d.state.audits == 0 and d.state.supplements_used == 0
    d2 = auditor.retry("s", "t", material(), can_steer=True)  # an agent loop still running
    assert d2.action == "supplement" and d2.state is not None and d2.state.supplements_used == 1


def test_shell_retry_uses_no_supplement(tmp_path: Path) -> None:
    """design.md §7: a retry after the turn stopped shows the verdict and uses no supplement."""
    down = TransportError("down", kind="timeout")
    auditor, _ = make(tmp_path, [down, down, reply("omission", "R1")])
    assert auditor.on_stop("s", "t", material()).action == "incomplete"
    d = auditor.retry("s", "t", material())
    assert d.action == "hand-to-user" and d.supplement is None
    assert d.state is not None and d.state.supplements_used == 0 and d.state.chain == ("omission",)
    assert "Fix the bug and update the docs." in d.notice
    (_, rec) = auditor.store.records_for_turn(TurnKey("test", "s", "t"))
    assert rec.steer is False and rec.action["kind"] == "hand-to-user"


def test_cancel_ends_without_rewriting(tmp_path: Path) -> None:
    auditor, _ = make(tmp_path, [reply("omission", "R1")])
    auditor.on_stop("s", "t", material())
    d = auditor.cancel("s", "t")
    assert d.action == "cancelled"
    assert d.state is not None and d.state.chain == ("omission",)
    later = auditor.on_stop("s", "t", material("new answer"))
    assert later.action == "cancelled"


# ---------------------------------------------------------------- §8 extras, records, idempotency


def test_omission_then_complete_chain_and_records(tmp_path: Path) -> None:
    auditor, _ = make(tmp_path, [reply("omission", "R1"), reply("complete", "none")])
    d1 = auditor.on_stop("s", "t", material())
    d2 = auditor.on_stop("s", "t", material("Fixed the bug and updated docs/usage.md."))
    assert (d1.action, d2.action) == ("supplement", "finish")
    assert "omission → complete" in d2.notice
    records = auditor.store.records_for_turn(TurnKey("test", "s", "t"))
    assert [r.assessment for r in records] == ["omission", "complete"]
    assert [r.action["kind"] for r in records] == ["supplement", "finish"]
    assert records[0].supplement_text == d1.supplement
    assert (
        records[0].focus is not None
        and records[0].focus["quote"] == "Fix the bug and update the docs."
    )
    assert d2.record_id == records[1].id


def test_duplicate_block_is_resent_counted_without_a_second_call(tmp_path: Path) -> None:
    """Issue 8: a repeated block is a block. The same report again within the window
    reuses the stored verdict (no judge call) and is counted like any supplement."""
    auditor, judge = make(tmp_path, [reply("omission", "R1")])
    d1 = auditor.on_stop("s", "t", material())
    d2 = auditor.on_stop("s", "t", material())
    assert (d1.action, d2.action) == ("supplement", "supplement")
    assert d2.state is not None and d2.state.supplements_used == 2
    assert "round 2/3" in (d2.supplement or "")
    assert len(judge.calls) == 1
    records = auditor.store.list_records()
    assert len(records) == 2 and all(r.assessment == "omission" for r in records)


def test_duplicate_non_block_returns_stored_decision_without_a_count(tmp_path: Path) -> None:
    auditor, judge = make(tmp_path, [reply("complete", "none")])
    d1 = auditor.on_stop("s", "t", material())
    d2 = auditor.on_stop("s", "t", material())
    assert (d1.action, d2.action) == ("finish", "finish") and d2.notice == d1.notice
    assert len(judge.calls) == 1
    assert len(auditor.store.list_records()) == 1


def test_identical_stops_are_counted_so_a_stuck_agent_runs_out(tmp_path: Path) -> None:
    """An agent (or a lagging transcript) that stops again and again with the same
    report must not be blocked forever: inside the duplicate window the stored verdict
    is reused, after it the judge is asked again; every block counts either way."""
    clock = [1000.0]
    judge = ScriptedJudge([reply("omission", "R1")] * 4)
    auditor = Auditor(
        settings=Settings(enabled=True, max_supplements=2),
        judge=judge,
        store=Store(tmp_path / "jev.sqlite3"),
        host="test",
        now=lambda: clock[0],
        duplicate_window_s=15.0,
    )
    first = auditor.on_stop("s", "t", material())
    clock[0] += 1.0  # the same report a second later: stored verdict, counted
    again = auditor.on_stop("s", "t", material())
    assert (first.action, again.action) == ("supplement", "supplement") and len(judge.calls) == 1
    actions = []
    for _ in range(3):
        clock[0] += 60.0  # the agent ran again and stopped with the same report
        actions.append(auditor.on_stop("s", "t", material()).action)
    assert actions == ["exhausted", "exhausted", "exhausted"]
    assert len(judge.calls) == 2


def test_disabled_profile_skips_hooks_but_explicit_audits_run(tmp_path: Path) -> None:
    judge = ScriptedJudge([reply("complete", "none")])
    store = Store(tmp_path / "jev.sqlite3")
    off = Settings(enabled=False)
    assert (
        Auditor(settings=off, judge=judge, store=store).on_stop("s", "t", material()).action
        == "skip"
    )
    assert judge.calls == []
    explicit = Auditor(settings=off, judge=judge, store=store, honour_enabled=False)
    assert explicit.on_stop("s", "t", material()).action == "finish"


def test_state_survives_a_new_auditor(tmp_path: Path) -> None:
    a1, _ = make(tmp_path, [reply("omission", "R1")], max_supplements=1)
    a1.on_stop("s", "t", material())
    a2, _ = make(tmp_path, [reply("omission", "R1")], max_supplements=1)
    d = a2.on_stop("s", "t", material("second answer"))
    assert d.action == "exhausted"


def test_profile_settings_are_read_from_disk(tmp_path: Path, jev_home: Path) -> None:
    from jev.settings.profiles import save_settings

    save_settings("web", {"enabled": True, "max_supplements": 1})
    auditor = Auditor(
        profile="web", judge=ScriptedJudge([reply("omission", "R1")] * 2), host="test"
    )
    assert auditor.on_stop("s", "t", material()).action == "supplement"
    assert auditor.on_stop("s", "t", material("v2")).action == "exhausted"
    assert (jev_home / "jev.sqlite3").exists()


# ---------------------------------------------------------------- concurrency


def _racer(db: str, home: str, out: str) -> None:
    os.environ["JEV_HOME"] = home
    judge = ScriptedJudge([reply("omission", "R1")])
    auditor = Auditor(settings=Settings(enabled=True), judge=judge, store=Store(db), host="race")
    d = auditor.on_stop("s", "t", material())
    with open(out, "a", encoding="utf-8") as fh:
        fh.write(json.dumps({"action": d.action, "calls": len(judge.calls)}) + "\n")


@pytest.mark.slow
def test_twenty_processes_racing_on_one_turn_never_double_count(
    tmp_path: Path, jev_home: Path, db: DbTarget
) -> None:
    target = db(tmp_path / "race.sqlite3")
    Store(target).close()
    out = tmp_path / "out.jsonl"
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_racer, args=(target, str(jev_home), str(out))) for _ in range(20)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(300)  # generous: 20 interpreters start slowly on a loaded 2-core machine
        assert p.exitcode == 0
    results = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(results) == 20
    assert sum(r["calls"] for r in results) == 1  # exactly one judge call in all
    assert {r["action"] for r in results} <= {"supplement", "busy", "exhausted"}
    # Issue 8: concurrent invocations share one decision through the lease ("busy");
    # one arriving after the decision is a re-stop, and every block sent is counted.
    blocks = sum(r["action"] == "supplement" for r in results)
    store = Store(target)
    row = store.get_turn(TurnKey("race", "s", "t"))
    assert row is not None and 1 <= row.state["supplements_used"] == blocks <= 3
    decided = sum(r["action"] != "busy" for r in results)
    assert len(store.list_records()) == min(decided, 3 + 1)  # later ones replay "exhausted"


# ---------------------------------------------------------------- README example


def test_readme_agent_loop_example_runs_as_printed(capsys: pytest.CaptureFixture[str]) -> None:
    """The plain agent loop from README, executed exactly as printed (issue 10 item 7):
    only the curated ``jev`` API, Todo items as turn-file dicts, the offline judge."""
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    start = readme.index("```python\n# custom agent loop") + len("```python\n")
    code = readme[start : readme.index("```", start)]
    imports = [line for line in code.splitlines() if line.startswith(("from jev", "import jev"))]
    assert imports == ["from jev import Auditor, Material, Settings, Store"]
    namespace: dict[str, object] = {"__name__": "__readme__"}
    exec(compile(code, "README.md", "exec"), namespace)
    decision = namespace["decision"]
    assert isinstance(decision, Decision) and decision.action == "finish"
    assert capsys.readouterr().out.startswith("finish Jev completion audit: omission → complete")


def test_verdict_is_stale_when_the_turn_moved_on_during_the_audit(tmp_path: Path) -> None:
    """design.md §14: if a newer stop of the turn claimed it while the judge was answering,
    the older verdict is recorded as stale and nothing is sent."""
    from jev.store import TurnRow

    db = tmp_path / "jev.sqlite3"
    key = TurnKey("test", "s", "t")

    def newer_stop_meanwhile(*_: object) -> str:
        other = Store(db)
        other.update_turn(
            key,
            lambda row: (
                TurnRow(key=key, state=row.state, material_hash="newer-material", lease_until=None),
                None,
            ),
        )
        other.close()
        return reply("omission", "R1")

    judge = ScriptedJudge([newer_stop_meanwhile])
    auditor = Auditor(settings=Settings(enabled=True), judge=judge, store=Store(db), host="test")
    d = auditor.on_stop("s", "t", material())
    assert d.action == "stale" and d.supplement is None
    (rec,) = auditor.store.records_for_turn(key)
    assert rec.status == "stale" and rec.supplements_used == 0
