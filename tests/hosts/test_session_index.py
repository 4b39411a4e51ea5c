"""The hook's session index in the store: an old ``sessions.json`` is imported once and
still bounds the turn; a damaged SQLite file never blocks Jev for good (design.md §8, §11).

The hook runs as ``jev hook HOST`` runs it (:func:`jev.hosts.hook.run_stop_hook`) on a
simulated host session, with the real store (a SQLite file, or the test PostgreSQL),
a real profile file and a judge that never says ``complete``.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

import jev.pipeline.render as render
from jev.api import Auditor
from jev.settings.profiles import save_settings
from jev.store import Store
from tests.conftest import REPO
from tests.hosts.bound_helpers import NeverComplete
from tests.hosts.test_bound import Host
from tests.hosts_e2e.harness import ClaudeCodeSim
from tests.store.helpers import DbTarget

REQUEST = "Fix the bug and update the docs."
ANSWER = "Done: fixed the bug."


class StoreHost(Host):
    """A :class:`Host` whose auditor uses the configured store, as production does."""

    def auditor(self, profile: str | None, host: str) -> Auditor:
        return Auditor(
            profile=profile,
            judge=self.judge,
            store=Store(),
            host=host,
            sleep=lambda _s: None,
            now=self.clock,
        )


@pytest.fixture
def own_supplement_head(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A user's supplement template without Jev's standard first line
    (``JEV_PROMPTS_DIR``): only the session index can tell the supplement when it
    comes back as a user message."""
    copy = tmp_path / "prompts"
    shutil.copytree(REPO / "prompts", copy)
    template = copy / "supplement.en.j2"
    text = template.read_text("utf-8")
    head = "[Jev completion audit · automatic message"
    assert head in text
    template.write_text(text.replace(head, "[Team review note"), "utf-8")
    render._environment.cache_clear()
    render._source_in.cache_clear()
    monkeypatch.setenv(render.PROMPTS_DIR_ENV, str(copy))
    yield
    monkeypatch.undo()
    render._environment.cache_clear()
    render._source_in.cache_clear()


def _start(host_name: str, folder: Path, maximum: int) -> StoreHost:
    save_settings("index", {"enabled": True, "max_supplements": maximum})
    h = StoreHost(host_name, folder, "index", NeverComplete(["omission"]))
    h.prompt(REQUEST)
    h.todos([("Fix the bug", "completed"), ("Update the docs", "pending")])
    h.say(ANSWER)
    return h


def _back_to_schema_2(store: Store) -> dict[str, dict[str, object]]:
    """Turn ``store`` into what an older Jev left: no ``sessions`` table (schema 2);
    returns the index as that Jev kept it in ``sessions.json``."""
    with store.transaction() as tx:
        rows = tx.db.execute("SELECT session, host, turn, profile, data, updated_ts FROM sessions")
        old: dict[str, dict[str, object]] = {}
        for session, host, turn, profile, data, updated in rows.fetchall():
            entry = json.loads(data)
            entry.update({"host": host, "turn": turn, "profile": profile, "updated": updated})
            old[session] = entry
        tx.db.execute("DROP TABLE sessions")
        if store.dialect == "sqlite":
            tx.db.execute("PRAGMA user_version = 2")
        else:
            tx.db.execute("UPDATE jev_schema SET version = 2")
    return old


@pytest.mark.parametrize(
    ("host", "imported"),
    [("claude-code", True), ("claude-code", False), ("codex", True)],
    ids=["claude-code-old-index", "claude-code-no-old-index", "codex-old-index"],
)
@pytest.mark.usefixtures("own_supplement_head")
def test_an_old_sessions_json_is_imported_once_and_still_bounds_the_turn(
    host: str, imported: bool, db: DbTarget, jev_home: Path, tmp_path: Path
) -> None:
    """Schema-2 store + ``sessions.json`` (an older Jev, after one supplement of a
    1-supplement turn): the host hands the supplement back as a plain new user message.
    With the old index imported, Jev knows its own supplement: same turn, budget spent,
    no second block. Without it (the control, Claude Code: a new user message opens a
    new turn there) the message looks like a new request and is steered again — so the
    import is what keeps the bound. (Codex keeps its turn id across the message.)"""
    db(jev_home / "jev.sqlite3")  # on PostgreSQL: JEV_STORE_URL points at a fresh schema
    (tmp_path / "session").mkdir()
    h = _start(host, tmp_path / "session", maximum=1)
    first = h.stop(h.payload(stop_hook_active=False), apply=False)
    assert first.steers and h.blocks == 1
    steer = first.decision.supplement if first.decision else ""
    assert steer.startswith("[Team review note")

    with Store() as store:
        old = _back_to_schema_2(store)
    assert old and all("steers" in entry for entry in old.values())
    legacy = jev_home / "sessions.json"
    if imported:
        legacy.write_text(json.dumps({"sessions": old}), "utf-8")

    h.feedback(steer, as_prompt=True)  # the agent works on, Todo list and all
    h.todos([("Fix the bug", "completed"), ("Update the docs", "pending")])
    h.say(ANSWER)
    second = h.stop(h.payload(stop_hook_active=True))
    if not imported:
        assert h.blocks == 2, h.actions  # the control: the test can fail
        return
    assert h.blocks == 1, h.actions
    assert second.turn == first.turn, second.skipped  # the same turn: its budget is spent
    assert not legacy.exists()
    moved = list(jev_home.glob("sessions.json.imported-*"))
    assert len(moved) == 1
    with Store() as store:
        assert store.schema_version == 3
        entry = store.get_session(h.sim.session_id)
    assert entry is not None and entry["turn"] == first.turn
    # Read once: later stops never import it again.
    legacy.write_text(json.dumps({"sessions": {}}), "utf-8")
    legacy.unlink()
    h.stop(h.payload(stop_hook_active=True))
    assert h.blocks == 1 and len(list(jev_home.glob("sessions.json.imported-*"))) == 1


def _damage(path: Path, how: str) -> bytes:
    if how == "not-a-database":
        path.write_bytes(b"this is not a database, it is a note\n" * 200)
    else:  # a real store whose pages were overwritten
        with Store(path) as store:
            for i in range(50):
                store.update_session(f"s{i}", {"host": "codex", "request": ["x" * 2000]})
        for side in ("-wal", "-shm"):
            Path(f"{path}{side}").unlink(missing_ok=True)
        data = bytearray(path.read_bytes())
        for offset in range(4096, len(data), 512):
            data[offset : offset + 64] = b"\xa5" * 64
        path.write_bytes(bytes(data))
    return path.read_bytes()


@pytest.mark.parametrize("how", ["not-a-database", "corrupt-pages"])
def test_a_damaged_sqlite_file_is_quarantined_once_and_rebuilt(
    how: str, jev_home: Path, tmp_path: Path
) -> None:
    path = jev_home / "jev.sqlite3"
    jev_home.mkdir(parents=True, exist_ok=True)
    h = _start("claude-code", tmp_path, maximum=2)
    before = _damage(path, how)

    first = h.stop(h.payload(stop_hook_active=False))
    assert first.exit_code == 0 and not first.steers  # fail open: the turn stops
    moved = list(jev_home.glob("jev.sqlite3.broken-*"))
    assert [p.name for p in moved if not p.name.endswith(("-wal", "-shm"))]
    main = next(p for p in moved if not p.name.endswith(("-wal", "-shm", "-journal")))
    assert main.read_bytes() == before
    notice = json.loads(first.stdout)["systemMessage"]
    assert str(path) in notice and str(main) in notice and "damaged" in notice
    with Store(path) as store:  # rebuilt: a working, empty store
        assert store.schema_version == 3 and store.get_session("s1") is None

    second = h.stop(h.payload(stop_hook_active=False))
    assert second.steers, second.stdout  # later stops are audited again
    assert "damaged" not in second.stdout + second.stderr  # reported once
    assert len(list(jev_home.glob("jev.sqlite3.broken-*"))) == len(moved)


def test_the_real_hook_command_survives_a_damaged_store(jev_home: Path, tmp_path: Path) -> None:
    """``jev hook claude-code`` as the host runs it: exit 0, a notice, a new store."""
    save_settings("default", {"enabled": True})
    path = jev_home / "jev.sqlite3"
    before = _damage(path, "not-a-database")
    sim = ClaudeCodeSim(tmp_path)
    sim.prompt(REQUEST)
    sim.todo_write(("Fix the bug", "completed"), ("Update the docs", "pending"))
    sim.say(ANSWER)
    run = sim.stop()
    assert run.code == 0, run.stderr
    assert "damaged" in run.notice and "Traceback" not in run.stderr
    moved = [p for p in jev_home.glob("jev.sqlite3.broken-*") if p.read_bytes() == before]
    assert len(moved) == 1
    again = sim.stop()
    assert again.code == 0 and "damaged" not in again.notice
    with Store(path) as store:
        assert store.get_session(sim.session_id) is not None
