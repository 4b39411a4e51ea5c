"""Hypothesis fuzzers for hook stdin and transcripts (issue 11, "an adversarial suite
that stays").

Both generate structured JSON shaped like the real thing (hook fields, Claude Code
records) and then damage it with the classes of the issue: wrong types, deep nesting,
5000-digit integers, lone surrogate escapes, NUL bytes, invalid UTF-8, cut lines.
Each example runs the real entry point (:func:`jev.cli.main`) in-process and checks
the promise: a hook exits 0; ``jev audit`` ends with a documented exit code, never 1
(internal error).
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jev.cli import main
from jev.hosts.registry import hook_names

HOOKS = hook_names()

_FIELDS = (
    "hook_event_name",
    "session_id",
    "transcript_path",
    "cwd",
    "last_assistant_message",
    "stop_hook_active",
    "permission_mode",
    "agent_id",
    "turn_id",
    "prompt",
    "prompt_response",
    "status",
    "loop_count",
    "conversation_id",
    "background_tasks",
)

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=40),
    st.sampled_from(["Stop", "SubagentStop", "stop", "AfterAgent", "plan", "/", "/dev/zero"]),
)
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
hook_objects = st.dictionaries(st.sampled_from(_FIELDS), json_values, max_size=8)

#: Damage applied to the serialised text (the issue's classes; "none" keeps the
#: generated structure, which is hostile by its types alone).
DAMAGE_CLASSES = ("none", "deep", "bigint", "surrogate", "nul", "bad-utf8", "cut", "nan")
DAMAGE = st.sampled_from(DAMAGE_CLASSES)


def damage(text: str, how: str, depth: int) -> bytes:
    """Apply one class of damage to a JSON text; return the bytes a host would send."""
    if how == "deep":
        text = text.replace("{", '{"deep": ' + "[" * depth + "]" * depth + ", ", 1)
    elif how == "bigint":
        text = text.replace("{", '{"n": ' + "9" * 5000 + ", ", 1)
    elif how == "surrogate":
        text = text.replace('"', '"\\ud83d', 3)
    elif how == "nul":
        text = text.replace('"', '"\\u0000', 2)
    elif how == "cut":
        text = text[: max(1, len(text) // 2)]
    elif how == "nan":
        text = text.replace("{", '{"x": NaN, ', 1)
    data = text.encode("utf-8")
    if how == "bad-utf8":
        data = data.replace(b'"', b'"\xff\xfe', 1)
    return data


def run_hook(name: str, data: bytes) -> tuple[int, str]:
    saved = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(data))
    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["hook", name])
    finally:
        sys.stdin = saved
    return code, err.getvalue()


@pytest.mark.slow
@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    name=st.sampled_from(HOOKS),
    obj=hook_objects,
    how=DAMAGE,
    depth=st.sampled_from([50, 1_100, 100_000]),
    enabled=st.booleans(),
)
def test_hook_stdin_fuzz_always_exits_0(
    name: str, obj: dict[str, Any], how: str, depth: int, enabled: bool
) -> None:
    from jev.settings.profiles import save_settings

    save_settings(None, {"enabled": enabled})
    obj = {"hook_event_name": "Stop", **obj}
    data = damage(json.dumps(obj), how, depth)
    code, err = run_hook(name, data)
    assert code == 0, (how, err)
    assert "Traceback" not in err


def _record(kind: str, content: Any, extra: dict[str, Any]) -> dict[str, Any]:
    rec: dict[str, Any] = {
        "type": kind,
        "isSidechain": False,
        "sessionId": "s-1",
        "uuid": f"u-{abs(hash(json.dumps(content, default=str))) % 10**8}",
        "message": {"role": kind, "content": content},
    }
    rec.update(extra)
    return rec


todo_input = st.fixed_dictionaries(
    {
        "todos": st.lists(
            st.fixed_dictionaries(
                {
                    "content": st.text(max_size=20),
                    "status": st.sampled_from(["pending", "in_progress", "completed", 7]),
                }
            ),
            max_size=3,
        )
    }
)
contents = st.one_of(
    st.text(max_size=60),
    st.lists(
        st.one_of(
            st.fixed_dictionaries({"type": st.just("text"), "text": st.text(max_size=40)}),
            st.fixed_dictionaries(
                {
                    "type": st.just("tool_use"),
                    "id": st.text(max_size=6),
                    "name": st.sampled_from(["TodoWrite", "TaskCreate", "Bash"]),
                    "input": todo_input,
                }
            ),
            json_values,
        ),
        max_size=3,
    ),
    json_values,
)
records = st.lists(
    st.builds(
        _record,
        st.sampled_from(["user", "assistant", "system", "summary"]),
        contents,
        st.dictionaries(st.sampled_from(["isMeta", "toolUseResult", "parentUuid"]), json_values),
    ),
    min_size=1,
    max_size=6,
)


@pytest.mark.slow
@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(recs=records, how=DAMAGE, depth=st.sampled_from([50, 1_100, 100_000]), which=st.integers())
def test_transcript_fuzz_ends_cleanly(
    recs: list[dict[str, Any]], how: str, depth: int, which: int
) -> None:
    from jev.settings.profiles import save_settings

    save_settings(None, {"enabled": True})
    lines = [json.dumps(r).encode() for r in recs]
    hit = which % len(lines)
    lines[hit] = damage(lines[hit].decode(), how, depth)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "t.jsonl"
        path.write_bytes(b"\n".join(lines) + b"\n")
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["audit", str(path), "--no-record", "--from", "claude-code"])
        assert code in (0, 2, 3, 4, 5), (how, err.getvalue())
        assert "internal error" not in err.getvalue()
        payload = {"hook_event_name": "Stop", "session_id": "s-1", "transcript_path": str(path)}
        code, hook_err = run_hook("claude-code", json.dumps(payload).encode())
        assert code == 0 and "Traceback" not in hook_err, hook_err
