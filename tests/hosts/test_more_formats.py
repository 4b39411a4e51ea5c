"""Format detection and ``jev audit`` for the Gemini, Cursor, Copilot, Qwen and Droid
transcripts (design.md §2, §3, §12). Fixture provenance: tests/fixtures/real/SOURCES.md."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jev.cli import main
from jev.hosts.transcript import FORMATS, detect_format, read_current_turn, read_turns

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
HAND = FIXTURES / "hand"
REAL = FIXTURES / "real"

EXPECTED = {
    "gemini-source-derived-write-todos.jsonl": "gemini",
    "gemini-source-derived-retry.jsonl": "gemini",
    "gemini-source-derived-tracker-rewind.jsonl": "gemini",
    "gemini-source-derived-legacy.json": "gemini",
    "cursor-documented-format-todowrite.jsonl": "cursor",
    "cursor-documented-format-old.txt": "cursor",
    "copilot-documented-format-sql-todos.jsonl": "copilot",
    "qwen-source-derived-todo-write.jsonl": "qwen",
    "droid-third-party-format-todowrite.jsonl": "droid",
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_detected(name: str) -> None:
    assert detect_format(HAND / name) == EXPECTED[name]


def test_real_copilot_and_old_formats_detected() -> None:
    for path in REAL.glob("copilot-cli-*.jsonl"):
        assert detect_format(path) == "copilot"
    for path in REAL.glob("claude-code-*.jsonl"):
        assert detect_format(path) == "claude-code"
    for path in REAL.glob("codex-*.jsonl"):
        assert detect_format(path) == "codex"
    assert set(EXPECTED.values()) <= set(FORMATS)


@pytest.mark.parametrize(
    "name",
    [n for n in sorted(EXPECTED) if not n.endswith(".txt")],
)
def test_dispatch_current_equals_last(name: str) -> None:
    path = HAND / name
    last = read_turns(path)[-1]
    current = read_current_turn(path)
    assert current.key == last.key and current.material == last.material


@pytest.mark.parametrize(
    ("name", "focus"),
    [
        ("gemini-source-derived-write-todos.jsonl", "[blocked] Document the flag in README"),
        ("cursor-documented-format-todowrite.jsonl", "[cancelled] Add a changelog entry"),
        ("copilot-documented-format-sql-todos.jsonl", "[blocked] Writing a test for the limit"),
        ("qwen-source-derived-todo-write.jsonl", "[blocked by 2] Update docs"),
        ("droid-third-party-format-todowrite.jsonl", "Explain the root cause"),
    ],
)
def test_jev_audit_finds_the_open_item(
    name: str, focus: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["audit", str(HAND / name), "--all-turns", "--json", "--no-record"])
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines() if x.strip()]
    assert code == 4  # a problem verdict
    first = rows[0]
    assert first["status"] == "verdict" and first["assessment"] == "omission"
    assert focus in json.dumps(first, ensure_ascii=False)


def test_jev_audit_says_what_the_old_cursor_form_is(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["audit", str(HAND / "cursor-documented-format-old.txt"), "--no-record"])
    captured = capsys.readouterr()
    assert code != 0
    assert "older Cursor agent transcript" in captured.out + captured.err
