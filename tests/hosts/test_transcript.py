"""Format detection, dispatch, the hook fast path and fuzzed transcripts (design.md §2, §3)."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jev.base.errors import JevError, UsageError
from jev.hosts.transcript import Turn, detect_format, read_current_turn, read_turns
from tests.strength import examples

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
REAL = FIXTURES / "real"
HAND = FIXTURES / "hand"
SMALL = [
    REAL / "claude-code-1.0.31_amac0-ClaudeStatus_example.jsonl",
    REAL / "claude-code-2.1.38_marot-spotter_short.jsonl",
    REAL / "claude-code-2.1.38_marot-spotter_tool_heavy.jsonl",
    *sorted(HAND.glob("*.jsonl")),
]


@pytest.mark.parametrize(
    ("path", "fmt"),
    [
        *[(p, "claude-code") for p in sorted(REAL.glob("claude-code-*.jsonl"))],
        *[(p, "codex") for p in sorted(REAL.glob("codex-*.jsonl"))],
        (HAND / "codex-plan.jsonl", "codex"),
        (HAND / "claude-tasks.jsonl", "claude-code"),
    ],
    ids=str,
)
def test_detect_format(path: Path, fmt: str) -> None:
    assert detect_format(path) == fmt


def test_detect_format_refuses_unknown_and_empty(tmp_path: Path) -> None:
    other = tmp_path / "x.jsonl"
    other.write_text('{"hello": 1}\n{"world": 2}\n', "utf-8")
    with pytest.raises(UsageError, match="cannot tell the format"):
        detect_format(other)
    empty = tmp_path / "e.jsonl"
    empty.write_text("\n", "utf-8")
    with pytest.raises(UsageError, match="empty"):
        read_turns(empty)
    with pytest.raises(UsageError, match="not a regular file"):
        read_turns(tmp_path)
    with pytest.raises(UsageError, match="unknown turn format"):
        read_turns(other, "opencode")


def test_explicit_format_is_used(tmp_path: Path) -> None:
    path = HAND / "codex-plan.jsonl"
    assert read_turns(path, "codex") == read_turns(path)
    # Read as Claude Code, a Codex rollout simply holds no Claude turn.
    assert read_turns(path, "claude-code") == []


def test_hook_fast_path_imports_nothing_heavy() -> None:
    code = (
        "import sys; import jev.hosts.transcript, jev.hosts.claude_code.transcript, "
        "jev.hosts.codex.transcript; "
        "heavy = {'httpx', 'jinja2', 'jsonschema', 'pydantic'} & set(sys.modules); "
        "print(sorted(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


_GARBAGE = [
    b"",
    b"{",
    b"[]",
    b"null",
    b"\xff\xfe\xfd",
    b'{"type": 5}',
    b'{"type":"user"}',
    b'{"type":"user","message":{"content":[{"type":"tool_result"}]}}',
    b'{"type":"assistant","message":{"content":"text"}}',
    b'{"type":"assistant","message":{"content":[{"type":"tool_use","name":"TaskUpdate",'
    b'"input":{"taskId":[1]}}]}}',
    b'{"type":"queue-operation","operation":"remove","content":7}',
    b'{"type":"attachment","attachment":{"type":"queued_command","prompt":{"a":1}}}',
    b'{"type":"event_msg","payload":{"type":"user_message","message":["x"]}}',
    b'{"type":"response_item","payload":{"type":"function_call","name":"update_plan",'
    b'"arguments":"{\\"plan\\": [1]}"}}',
    b"[" * 5000,
]


def _lines(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True)


@settings(max_examples=examples(50), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_fuzzed_transcripts_give_clean_outcomes(
    tmp_path_factory: pytest.TempPathFactory, data: st.DataObject
) -> None:
    source = data.draw(st.sampled_from(SMALL))
    lines = _lines(source)
    ops = data.draw(
        st.lists(
            st.tuples(
                st.sampled_from(["cut", "dup", "drop", "corrupt", "garbage"]),
                st.integers(min_value=0, max_value=10_000),
                st.integers(min_value=0, max_value=255),
            ),
            min_size=1,
            max_size=6,
        )
    )
    for op, pos, byte in ops:
        if not lines:
            break
        i = pos % len(lines)
        if op == "dup":
            lines.insert(i, lines[i])
        elif op == "drop":
            del lines[i]
        elif op == "corrupt" and lines[i]:
            line = bytearray(lines[i])
            line[pos % len(line)] = byte
            lines[i] = bytes(line)
        elif op == "garbage":
            lines.insert(i, _GARBAGE[pos % len(_GARBAGE)] + b"\n")
        elif op == "cut":  # cut the file at a random byte
            blob = b"".join(lines)
            lines = [blob[: pos % (len(blob) + 1)]]
    path = tmp_path_factory.mktemp("fuzz") / source.name
    path.write_bytes(b"".join(lines))
    fmt = "codex" if source.name.startswith("codex") else "claude-code"
    for call in (lambda: read_turns(path, fmt), lambda: read_current_turn(path, fmt)):
        try:
            result = call()
        except JevError:
            continue
        turns = result if isinstance(result, list) else [result]
        assert all(isinstance(t, Turn) for t in turns)
    with contextlib.suppress(JevError):
        read_turns(path)  # auto-detection is clean too


def test_turn_json_round_trip_of_real_material() -> None:
    turn = read_turns(REAL / "claude-code-1.0.31_amac0-ClaudeStatus_example.jsonl")[0]
    assert turn.material is not None
    back = json.loads(json.dumps(turn.material.to_json()))
    assert back["request"][0].startswith("Please analyze this codebase")
