"""Gemini CLI 0.61.0 as measured in the real CLI (issue 19; hosts.md §0a): the chat file
it writes, the Todo-tool switch it really reads, where its sessions live.

The real-host scenarios themselves are in ``tests/hosts_real/test_gemini.py``; these
are the fast checks of the same facts.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from jev.base.domain import TodoItem
from jev.hosts.gemini import transcript as gt
from jev.hosts.gemini.adapter import GeminiInstaller
from tests.conftest import SHARED

REAL = SHARED / "real" / "gemini-cli-0.61.0_scripted-model_blocked-turn.jsonl"


@pytest.mark.skipif(not REAL.is_file(), reason=f"{REAL} is not there")
def test_real_0_61_file_has_one_turn_the_session_context_opens_none() -> None:
    (turn,) = gt.read_turns(REAL)  # the <session_context> message is the CLI's, not a prompt
    assert turn.key == "20ce7550-a19d-4b55-b5ee-7356b4a4e199" and turn.todo_used
    assert turn.material is not None
    assert turn.material.request == (
        "Add the signup form, its tests, and update the README signup section.",
    )
    assert turn.material.todos == (
        TodoItem("Add signup form", "completed"),
        TodoItem("Write signup tests", "completed"),
        TodoItem("Update README signup section", "pending"),
    )
    assert turn.material.final_answer == "All done: signup form and tests are finished."


def _write(path: Path, data: dict[str, object]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


@pytest.mark.parametrize(
    ("user", "project", "env_model", "offered"),
    [
        ({"experimental": {"taskTracker": True}}, {}, None, True),  # jev install gemini
        ({"model": {"name": "gemini-2.5-pro"}}, {}, None, True),  # write_todos
        ({}, {}, None, False),  # the default model `auto`: no write_todos, no tracker
        ({"model": {"name": "gemini-3-pro-preview"}}, {}, None, False),
        ({"model": {"name": "gemini-2.5-flash"}, "useWriteTodos": False}, {}, None, False),
        ({}, {"model": {"name": "gemini-2.5-pro"}}, None, True),  # the project file
        ({"model": {"name": "gemini-2.5-pro"}}, {"model": {"name": "auto"}}, None, False),
        ({}, {}, "gemini-2.0-flash", True),  # GEMINI_MODEL
        (
            {"experimental": {"taskTracker": True}},
            {"experimental": {"taskTracker": False}},
            None,
            False,
        ),
    ],
)
def test_todo_tools_offered_is_the_switch_gemini_reads(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    user: dict[str, object],
    project: dict[str, object],
    env_model: str | None,
    offered: bool,
) -> None:
    home, root = tmp_path / "home", tmp_path / "project"
    monkeypatch.setenv("HOME", str(home))
    if env_model is None:
        monkeypatch.delenv("GEMINI_MODEL", raising=False)
    else:
        monkeypatch.setenv("GEMINI_MODEL", env_model)
    _write(home / ".gemini" / "settings.json", user)
    _write(root / ".gemini" / "settings.json", project)
    installer = GeminiInstaller()
    assert installer.todo_tools_offered(root) is offered
    assert bool(installer.todo_offer) is offered
    if offered:
        assert installer.todo_offer.split()[0] in {"tracker_*", "write_todos"}


def test_newest_session_is_a_main_chat_not_a_subagent_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    chats = tmp_path / ".gemini" / "tmp" / "proj" / "chats"
    old, new = (
        chats / "session-2026-12-01T20-00-aaaa1111.jsonl",
        chats / "session-2026-12-01T21-00-bbbb2222.jsonl",
    )
    sub = chats / "bbbb2222-full-id" / "cccc3333.jsonl"
    for n, path in enumerate((old, new, sub)):
        _write(path, {"sessionId": path.stem, "projectHash": "x"})
        os.utime(path, (1000 + n, 1000 + n))
    assert GeminiInstaller().newest_session() == new


def test_block_cap_is_gemini_loop_detection_and_notices_are_shown() -> None:
    installer = GeminiInstaller()
    assert installer.block_cap == 10 and installer.notice_channel is True
