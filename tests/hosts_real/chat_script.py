"""The scripted agent of the chat-completions hosts (Qwen Code, Copilot CLI; issue 19).

The agent is a function of the request (:class:`Script`): each prompt starts with a
marker (``[T1]`` …) so the agent finds the current turn in a resumed session's
request; after the marker it plays the turn's tool ``rounds`` and then its ``answer``,
one per model call; when Jev's supplement comes back as a user message it plays the
turn's next ``fixes`` entry instead (the last one repeats), so a turn either fixes its
open item or repeats its report. Hosts differ only in the Todo tool's steps, which
each test file builds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from tests.hosts_real.scripted import Logged, Step, Text
from tests.hosts_real.server_chat import messages

__all__ = ["ASK", "CLAIM", "FIXED", "PLAIN", "SUPPLEMENT", "Script", "Turn", "supplements_seen"]

#: How Jev's supplement starts (the host may put context in front of it).
SUPPLEMENT = "[Jev completion audit"
CLAIM = "All done: the signup form is finished."
FIXED = (
    "Added the signup form in src/signup.ts and the Signup section in README.md; "
    "npm test signup: 4 passed."
)
ASK = (
    "Two options for the base image: python:3.12-slim (~240 MB) or distroless "
    "(~120 MB, no shell).\n\nWhich base image do you prefer?"
)
PLAIN = "The README has one heading, 'Signup'."


@dataclass
class Turn:
    """One prompt's script: tool ``rounds`` then the final ``answer``; after the k-th
    supplement, ``fixes[k-1]`` (the last entry repeats): more rounds and a new answer."""

    rounds: list[Sequence[Step]]
    answer: str
    fixes: list[tuple[list[Sequence[Step]], str]] = field(default_factory=list)


def _text(message: dict[str, object]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(p.get("text") or "") for p in content if isinstance(p, dict))
    return ""


class Script:
    """The agent (module docstring)."""

    def __init__(self, turns: dict[str, Turn]) -> None:
        self.turns = turns

    def __call__(self, request: Logged) -> list[Step]:
        items = messages(request)
        anchor, marker = -1, ""
        for i, item in enumerate(items):
            text = _text(item)
            if item.get("role") == "user" and SUPPLEMENT not in text:
                for key in self.turns:
                    if key in text:
                        anchor, marker = i, key
        if not marker:
            return [Text("Nothing to do.")]
        turn = self.turns[marker]
        rounds, answer = turn.rounds, turn.answer
        phase = since = 0
        for item in items[anchor + 1 :]:
            if item.get("role") == "assistant":
                since += 1
            elif item.get("role") == "user" and SUPPLEMENT in _text(item):
                phase, since = phase + 1, 0
        if phase and turn.fixes:
            rounds, answer = turn.fixes[min(phase, len(turn.fixes)) - 1]
        sequence: list[Sequence[Step]] = [*rounds, [Text(answer)]]
        return list(sequence[min(since, len(sequence) - 1)])


def supplements_seen(requests: list[Logged]) -> list[str]:
    """Jev's supplements that reached the model: the last message of each request
    when it is a user message carrying one (a supplement reaches the model once, in
    the first request after the block)."""
    seen = []
    for request in requests:
        items = messages(request)
        if items and items[-1].get("role") == "user" and SUPPLEMENT in _text(items[-1]):
            seen.append(_text(items[-1]))
    return seen
