"""Factory Droid session reader (design.md §2, §3; hosts.md (other hosts)).

No real Droid session is available under a reusable license; the fixture follows the
line shapes third-party readers describe (hosts.md (other hosts) [S]) and says so in its name.
"""

from __future__ import annotations

from pathlib import Path

from jev.base.domain import TodoItem
from jev.hosts.droid import transcript as dt

FIXTURE = (
    Path(__file__).resolve().parents[2]
    / "fixtures"
    / "hand"
    / "droid-third-party-format-todowrite.jsonl"
)


def test_claude_rules_on_droid_lines() -> None:
    (turn,) = dt.read_turns(FIXTURE)  # Jev's supplement continues the turn
    assert turn.key == "m01" and turn.status == "ready" and turn.material is not None
    assert turn.material.request == (
        "Make test_retry_backoff deterministic and explain the root cause.",
    )
    assert turn.material.todos == (
        TodoItem("Find the source of randomness", "completed"),
        TodoItem("Inject a seeded clock", "completed"),
        TodoItem("Explain the root cause", "pending"),
    )
    assert turn.material.final_answer.startswith("Root cause: jitter")
    assert dt.read_current_turn(FIXTURE).number == 0


def test_todo_text_form() -> None:
    assert dt.parse_todo_text("1. [completed] A\n- [x] B\n* [ ] C\n2) [blocked] D\nnoise") == [
        {"content": "A", "status": "completed"},
        {"content": "B", "status": "completed"},
        {"content": "C", "status": "pending"},
        {"content": "[blocked] D", "status": "pending"},
    ]
