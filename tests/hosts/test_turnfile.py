"""Generic turn files against schemas/turn.schema.json (design.md §3, §12)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jev.base.domain import Material
from jev.base.errors import UsageError
from jev.hosts.transcript import detect_format, read_current_turn, read_turns
from jev.hosts.turnfile import read_turn_file

CASES = sorted((Path(__file__).resolve().parent.parent / "fixtures" / "cases").glob("*.json"))


def test_cases_exist() -> None:
    assert len(CASES) >= 40


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.name)
def test_every_labelled_case_is_a_turn_file(path: Path) -> None:
    data = json.loads(path.read_text("utf-8"))
    assert detect_format(path) == "turn"
    turn = read_turn_file(path)
    assert turn.status == "ready" and turn.key == data["id"]
    assert turn.material == Material.from_json(data)
    assert read_turns(path) == [turn] and read_current_turn(path) == turn


def _write(tmp_path: Path, data: object) -> Path:
    path = tmp_path / "turn.json"
    path.write_text(json.dumps(data), "utf-8")
    return path


def test_todo_used_false_is_skipped_and_key_is_stable(tmp_path: Path) -> None:
    base = {"request": ["do x"], "todos": [], "final_answer": ""}
    t1 = read_turn_file(_write(tmp_path, {**base, "todo_used": False}))
    assert t1.status == "skipped" and t1.reason == "no Todo use in this turn"
    t2 = read_turn_file(_write(tmp_path, {**base, "final_answer": "done"}))
    assert t2.status == "ready" and t2.key == t1.key and t2.key.startswith("sha256:")


@pytest.mark.parametrize(
    ("data", "where"),
    [
        ({"request": [], "todos": [], "final_answer": ""}, "$.request"),
        (
            {"request": ["a"], "todos": [{"content": "x", "status": "done"}], "final_answer": ""},
            "$.todos[0].status",
        ),
        ({"request": ["a"], "todos": [], "final_answer": 3}, "$.final_answer"),
        ({"request": ["a"], "final_answer": ""}, "$"),
        ({"request": ["a"], "todos": [], "final_answer": "", "todo_used": "yes"}, "$.todo_used"),
        ([1, 2], "$"),
    ],
)
def test_invalid_turn_files_name_the_problem(tmp_path: Path, data: object, where: str) -> None:
    path = _write(tmp_path, data)
    with pytest.raises(UsageError) as info:
        read_turn_file(path)
    assert str(path) in str(info.value) and f"at {where}:" in str(info.value)


def test_unreadable_turn_files(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no such turn file"):
        read_turn_file(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", "utf-8")
    with pytest.raises(UsageError, match="not valid JSON"):
        read_turn_file(bad)
    binary = tmp_path / "bin.json"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(UsageError, match="not UTF-8"):
        read_turn_file(binary)
