"""The ``copilot`` judge: Copilot CLI's own model, through ``copilot -p`` (issue 20).

Registered as ``judge.provider = "copilot"`` (pyproject's ``jev.judges`` entry points;
the engine is :class:`jev.judges.cli.CliJudge`). One judge call is::

    copilot -p PROMPT --output-format json --available-tools=none --no-ask-user \\
        --no-custom-instructions --disable-builtin-mcps --no-auto-update --no-color \\
        [--model M]

Measured in the real CLI 1.0.102: with ``-p`` the CLI does not read standard input and
``--attachment`` takes only images and documents, so the prompt (Jev's rules, the reply
schema and the material) is one command-line argument — while the call runs, other
users of the same machine can read it in the process list (a known limit, README), and
Linux caps one argument at 128 KiB (a longer prompt fails with a clear error; the
default ``evidence_chars`` of 24,000 characters stays well below).
``--available-tools=none`` offers the model no tool (``--available-tools ""`` is
ignored by 1.0.102 and leaves every tool on). The reply is the last ``assistant.message`` event's
``content`` of the JSONL output.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from jev.base.domain import JudgeAnswer, JudgeInput, Numbering
from jev.base.errors import TransportError
from jev.hosts.judge_kit import prompt_with_schema
from jev.judges.cli import CliCall, CliJudge, CliRun, argv_model

__all__ = ["CopilotJudge"]


class CopilotJudge(CliJudge):
    """Copilot CLI as the judge (module docstring)."""

    provider = "copilot"
    program = "copilot"
    fix_missing = "install Copilot CLI (npm install -g @github/copilot) and log in"
    reply_mode = "text"

    @classmethod
    def login_status(cls) -> tuple[bool | None, str]:
        """Whether Copilot CLI has a token in the environment or a logged-in user in its
        config (``None`` when neither shows: it may still use the system keychain)."""
        for name in ("COPILOT_GITHUB_TOKEN", "GH_TOKEN", "GITHUB_TOKEN"):
            if os.environ.get(name):
                return True, f"token in {name}"
        if os.environ.get("COPILOT_OFFLINE") and os.environ.get("COPILOT_PROVIDER_BASE_URL"):
            return True, "offline with COPILOT_PROVIDER_BASE_URL"
        try:
            config = (Path.home() / ".copilot" / "config.json").read_text(encoding="utf-8")
        except OSError:
            config = ""
        if "logged_in_users" in config or "loggedInUsers" in config:
            return True, "logged in (~/.copilot/config.json)"
        return None, "no token found; if Copilot asks, run `copilot login`"

    def command(self, judge_input: JudgeInput, numbering: Numbering, folder: Path) -> CliCall:
        """``copilot -p`` with no tools and JSONL output."""
        argv = (
            self.program,
            "-p",
            prompt_with_schema(judge_input, numbering),
            "--output-format",
            "json",
            "--available-tools=none",
            "--no-ask-user",
            "--no-custom-instructions",
            "--disable-builtin-mcps",
            "--no-auto-update",
            "--no-color",
            *argv_model("--model", self.model),
        )
        return CliCall(argv=argv)

    def answer(self, run: CliRun) -> JudgeAnswer:
        """The last ``assistant.message`` content of the JSONL output.

        Raises:
            TransportError: ``cli-output`` — no assistant message in the output.
        """
        text: str | None = None
        model = ""
        for line in run.stdout.splitlines():
            line = line.strip()
            if not line.startswith("{") or "assistant.message" not in line:
                continue
            try:
                event = json.loads(line)
            except ValueError:
                continue
            data = event.get("data") if isinstance(event, dict) else None
            if event.get("type") == "assistant.message" and isinstance(data, dict):
                content = data.get("content")
                if isinstance(content, str) and content.strip():
                    text = content
                    model = str(data.get("model") or "")
        if text is None:
            raise TransportError(
                "the copilot judge's CLI gave no answer; run `copilot -p hi` by hand to see "
                "why (is it logged in?)",
                kind="cli-output",
                retryable=True,
            )
        return JudgeAnswer(
            text=text, model=model or self.model, latency_ms=run.latency_ms, reply_mode="text"
        )
