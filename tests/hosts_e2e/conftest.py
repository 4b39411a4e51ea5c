"""Fixtures for the host simulations: a fake OpenAI-compatible judge on 127.0.0.1 and
an enabled profile pointing at it (through JEV_HOME, inherited by the hook processes)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from jev.settings.profiles import save_settings
from tests.fakeserver import FakeProvider, Reply, openai_completion


def verdict(assessment: str, focus: str, confidence: float = 0.9) -> Reply:
    """A scripted judge reply carrying one verdict."""
    body = json.dumps({"assessment": assessment, "focus": focus, "confidence": confidence})
    return Reply(json=openai_completion(body))


@pytest.fixture
def judge(jev_home: Path) -> Iterator[FakeProvider]:
    """A fake judge over real HTTP; the default profile is enabled and uses it."""
    with FakeProvider() as fake:
        save_settings(
            "default",
            {
                "enabled": True,
                "judge.provider": "openai",
                "judge.base_url": fake.openai_base,
                "judge.model": "fake-judge",
                "judge.timeout_s": 10,
                "judge.technical_retries": 0,
            },
        )
        yield fake


def prompts_seen(fake: FakeProvider) -> list[str]:
    """The user message of every judge request, in order."""
    return [r.json["messages"][-1]["content"] for r in fake.requests]
