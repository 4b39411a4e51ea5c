"""``jev records list|show|export|import`` through a real ``jev`` process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from jev.base.record import validate_record_json
from jev.store import Store
from tests.store.helpers import T0, DbTarget, three_round_turn

_MAIN = "import sys; from jev.cli import main; sys.exit(main(sys.argv[1:]))"


def jev(home: Path, *args: str, url: str = "") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "JEV_HOME": str(home)}
    if url:
        env["JEV_STORE_URL"] = url
    env.pop("JEV_DEBUG", None)
    return subprocess.run(
        [sys.executable, "-c", _MAIN, *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )


def _seed(home: Path, db: DbTarget) -> list[int]:
    with Store(db(home / "jev.sqlite3"), now=lambda: T0 + 300) as store:
        other = three_round_turn(T0 - 3_600, session="sess-B", turn="turn-77b0")
        store.add_record(other[0])
        return [store.add_record(r) for r in three_round_turn()]


def test_show_displays_the_whole_three_round_chain(db: DbTarget, jev_home: Path) -> None:
    ids = _seed(jev_home, db)
    result = jev(jev_home, "records", "show", str(ids[1]))
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "verdict chain: omission → contradiction → complete" in out
    assert "judge openai deepseek-chat · language en" in out
    assert "supplements: 2/3" in out
    assert "end: complete" in out
    assert out.count("\nround ") == 3
    records = three_round_turn()
    assert records[0].focus is not None and records[1].focus is not None
    # full quotes, not shortened
    assert f"    > {records[0].focus['quote']}" in out
    assert "    > Add unit tests for slugify" in out
    assert "focus: R1 (request 1)" in out
    assert "focus: T3 (todo 3, pending)" in out
    assert "  focus: none\n" in out
    assert "action: supplement 1/3" in out and "action: supplement 2/3" in out
    assert "action: finish" in out
    assert '{"assessment": "contradiction", "focus": "T3", "confidence": 0.8}' in out
    assert "[Jev completion audit · automatic message, round 2/3" in out
    # the same card by turn key prefix
    by_turn = jev(jev_home, "records", "show", "turn-4f")
    assert by_turn.returncode == 0 and by_turn.stdout == out


def test_show_unknown_or_ambiguous_exits_2(db: DbTarget, jev_home: Path) -> None:
    _seed(jev_home, db)
    unknown = jev(jev_home, "records", "show", "999")
    assert unknown.returncode == 2
    assert "no record with id or turn '999'" in unknown.stderr
    assert "jev records list" in unknown.stderr
    ambiguous = jev(jev_home, "records", "show", "turn-")
    assert ambiguous.returncode == 2
    assert "matches 2 turns" in ambiguous.stderr


def test_list_lines_and_json(db: DbTarget, jev_home: Path) -> None:
    ids = _seed(jev_home, db)
    result = jev(jev_home, "records", "list", "--limit", "3")
    assert result.returncode == 0, result.stderr
    header, *lines = result.stdout.splitlines()
    assert header.split() == [
        "id", "time", "(UTC)", "host/session/turn", "round", "status", "verdict", "focus",
        "action",
    ]  # fmt: skip
    assert len(lines) == 3
    assert lines[0].startswith(f"#{ids[2]}  ")
    cells = [line.split() for line in lines]  # columns aligned under the header
    assert cells[0][2:] == ["claude-code/sess-A/turn-4f2a9c", "r3", "verdict", "complete",
                            "none", "finish"]  # fmt: skip
    assert cells[2][3:] == ["r1", "verdict", "omission", "R1", "supplement", "1/3"]
    assert header.index("verdict") == lines[0].index("complete")
    as_json = jev(jev_home, "records", "list", "--session", "sess-B", "--json")
    data = json.loads(as_json.stdout)
    assert [d["session"] for d in data] == ["sess-B"]
    validate_record_json(data[0])
    bad = jev(jev_home, "records", "list", "--limit", "0")
    assert bad.returncode == 2


def test_export_then_import_into_another_home(db: DbTarget, jev_home: Path, tmp_path: Path) -> None:
    _seed(jev_home, db)
    out = tmp_path / "turns.jsonl"
    exported = jev(jev_home, "records", "export", "--out", str(out), "--session", "sess-A")
    assert exported.returncode == 0, exported.stderr
    assert exported.stdout.strip() == f"exported 3 records to {out}"
    other = tmp_path / "other-home"
    other_url = db(other / "jev.sqlite3") if "://" in db(other / "jev.sqlite3") else ""
    imported = jev(other, "records", "import", str(out), url=other_url)
    assert imported.returncode == 0, imported.stderr
    assert imported.stdout.strip() == f"imported 3 records from {out}"
    again = jev(other, "records", "import", str(out), url=other_url)
    assert "imported 0 records" in again.stdout and "(3 already present)" in again.stdout
    stdout_export = jev(other, "records", "export", "--out", "-", url=other_url)
    assert stdout_export.returncode == 0, stdout_export.stderr

    def without_ids(text: str) -> list[dict[str, object]]:
        return [{**json.loads(x), "id": None} for x in text.splitlines()]

    assert without_ids(stdout_export.stdout) == without_ids(out.read_text("utf-8"))
    assert [json.loads(x)["round"] for x in stdout_export.stdout.splitlines()] == [1, 2, 3]
    broken = tmp_path / "broken.jsonl"
    broken.write_text(out.read_text("utf-8").splitlines()[0] + "\n[1, 2]\n", "utf-8")
    refused = jev(other, "records", "import", str(broken), url=other_url)
    assert refused.returncode == 2
    assert "line 2 is not a Jev record" in refused.stderr
    assert "nothing was imported" in refused.stderr


def test_corrupted_database_gives_one_clear_line(jev_home: Path) -> None:
    db = jev_home / "jev.sqlite3"
    db.write_bytes(os.urandom(8192))
    result = jev(jev_home, "records", "list")
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert str(db) in result.stderr
    assert "move it aside" in result.stderr
