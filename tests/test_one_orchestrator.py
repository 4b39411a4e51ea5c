"""``jev audit`` and the Stop hook go through the one orchestrator and write the same record.

Both commands run as real processes on the same Claude Code transcript with the
offline rules judge; the records they write are read back from the SQLite store and
compared as canonical JSON. Only the fields that name the caller or measure time
may differ: the record id, its creation time and the judge's measured latency, the
host and session, ``steer`` (``jev audit`` steers no agent) and ``turn_number`` (the
hook reads the transcript backwards from its end and does not count turns; the hook
records none). For a problem verdict the loop's answer differs by that same ``steer``
(the hook sends a supplement, ``jev audit`` shows the problem to the user), so the
loop fields are compared only for a verdict where steering changes nothing.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from jev.store import Store
from tests.conftest import FIXTURES, REPO

pytestmark = pytest.mark.e2e

_MAIN = "import sys; from jev.cli import main; sys.exit(main(sys.argv[1:]))"
#: Fields that name the caller (who asked, into which store row) or measure time.
_CALLER = ("id", "created_at", "latency_ms", "host", "session", "steer", "turn_number")
#: Fields of the loop's answer, which depends on whether the caller can steer.
_LOOP = ("action", "loop_after", "supplement_text", "supplements_used")


def _jev(home: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "JEV_HOME": str(home)}
    env.pop("JEV_PROFILE", None)
    return subprocess.run(
        [sys.executable, "-c", _MAIN, *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        timeout=120,
    )


def _canonical(record: dict[str, object], drop: tuple[str, ...]) -> str:
    kept = {k: v for k, v in record.items() if k not in drop}
    return json.dumps(kept, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


@pytest.mark.parametrize(
    ("fixture", "assessment"),
    [("claude-stop-feedback.jsonl", "complete"), ("claude-tasks.jsonl", "unknown")],
)
def test_jev_audit_and_the_hook_write_the_same_record(
    tmp_path: Path, fixture: str, assessment: str
) -> None:
    transcript = tmp_path / "session-1.jsonl"
    shutil.copy(FIXTURES / "hand" / fixture, transcript)
    home = tmp_path / "home"
    assert _jev(home, "enable").returncode == 0

    payload = {
        "session_id": "session-1",
        "transcript_path": str(transcript),
        "cwd": str(tmp_path),
        "hook_event_name": "Stop",
        "stop_hook_active": False,
    }
    hook = _jev(home, "hook", "claude-code", stdin=json.dumps(payload))
    assert hook.returncode == 0, hook.stderr
    audit = _jev(home, "audit", str(transcript), "--json")
    assert json.loads(audit.stdout)["assessment"] == assessment, audit.stderr

    with Store(home / "jev.sqlite3") as store:
        records = {r.host: r.to_json() for r in store.list_records()}
    assert sorted(records) == ["claude-code", "cli"]
    by_hook, by_cli = records["claude-code"], records["cli"]
    assert (by_hook["assessment"], by_hook["steer"], by_cli["steer"]) == (assessment, True, False)
    assert by_hook["turn_number"] is None and by_cli["turn_number"] >= 1
    drop = _CALLER if assessment == "complete" else _CALLER + _LOOP
    assert _canonical(by_cli, drop) == _canonical(by_hook, drop)
    if assessment != "complete":
        # The same verdict, answered by the loop as each caller can act on it.
        assert by_hook["action"]["kind"] == "supplement" and by_hook["supplement_text"]
        assert by_cli["action"]["kind"] == "hand-to-user" and by_cli["supplement_text"] is None
