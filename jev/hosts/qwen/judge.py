"""The ``qwen`` judge: Qwen Code's own model, through ``qwen -p … -o json`` (issue 20).

Registered as ``judge.provider = "qwen"`` (pyproject's ``jev.judges`` entry points; the
engine is :class:`jev.judges.cli.CliJudge`). Qwen Code is a fork of Gemini CLI with the
same headless JSON output; unlike it, it has ``--system-prompt``, so the call is::

    qwen -p "Judge the material above …" -o json --system-prompt RULES \\
        --approval-mode plan --safe-mode --chat-recording false [--model M]
                                              (the reply schema and material on stdin)

``--safe-mode`` turns off the user's customizations for this run (hooks, extensions,
skills, MCP servers) and with them the managed auto-memory, which otherwise makes a
second, paid model call after every reply (seen in the real CLI 0.24.4: a "memory
extraction subagent" request); ``--chat-recording false`` keeps no session.

The reply is the ``response`` field of the JSON result (or, in the stream-shaped
output of some versions, the last ``result`` event), parsed by Jev's strict parser.
"""

from __future__ import annotations

import json
from pathlib import Path

from jev.base.domain import JudgeAnswer, JudgeInput, Numbering
from jev.base.errors import TransportError
from jev.hosts.judge_kit import INSTRUCTION, credentials, stats_usage
from jev.judges.cli import CliCall, CliJudge, CliRun, argv_model
from jev.judges.constrained import reply_schema

__all__ = ["QwenJudge"]


class QwenJudge(CliJudge):
    """Qwen Code as the judge (module docstring)."""

    provider = "qwen"
    program = "qwen"
    fix_missing = "install Qwen Code (npm install -g @qwen-code/qwen-code) and log in"
    reply_mode = "text"

    @classmethod
    def login_status(cls) -> tuple[bool | None, str]:
        """Whether Qwen Code has credentials (an OpenAI-compatible key in the
        environment, its OAuth file, or an auth type in its settings)."""
        return credentials(
            ("OPENAI_API_KEY", "DASHSCOPE_API_KEY"),
            Path.home() / ".qwen",
            f"not logged in: run `{cls.program}` once and choose how to log in",
        )

    def command(self, judge_input: JudgeInput, numbering: Numbering, folder: Path) -> CliCall:
        """``qwen -p`` with Jev's rules as the system prompt, read-only, JSON output."""
        schema = json.dumps(reply_schema(numbering, "flat"), separators=(",", ":"))
        argv = (
            self.program,
            "-p",
            INSTRUCTION,
            "-o",
            "json",
            "--system-prompt",
            judge_input.system,
            "--approval-mode",
            "plan",
            "--safe-mode",
            "--chat-recording",
            "false",
            *argv_model("--model", self.model),
        )
        stdin = f"The reply must validate against this JSON schema:\n{schema}\n\n{judge_input.user}"
        return CliCall(argv=argv, stdin=stdin)

    def answer(self, run: CliRun) -> JudgeAnswer:
        """The ``response`` (or last ``result``) of the JSON output.

        Raises:
            TransportError: ``cli-output`` — no response in the output.
        """
        result = _result(run.stdout)
        text = None
        if result is not None:
            text = result.get("response")
            if not isinstance(text, str):
                text = result.get("result")
        if result is None or not isinstance(text, str) or result.get("is_error"):
            raise TransportError(
                "the qwen judge's CLI gave no response; run `qwen -p hi -o json` by hand "
                "to see why",
                kind="cli-output",
                retryable=True,
            )
        usage, model = stats_usage(result)
        return JudgeAnswer(
            text=text,
            usage=usage,
            model=model or self.model,
            latency_ms=run.latency_ms,
            reply_mode=self.reply_mode,
        )


def _result(stdout: str) -> dict[str, object] | None:
    """The JSON result: one object, or the ``result`` event of a JSON array/stream."""
    text = stdout.strip()
    try:
        value = json.loads(text)
    except ValueError:
        value = None
        for line in reversed(text.splitlines()):
            try:
                value = json.loads(line)
            except ValueError:
                continue
            break
    if isinstance(value, list):
        events = [e for e in value if isinstance(e, dict)]
        value = next((e for e in reversed(events) if e.get("type") == "result"), None)
    return value if isinstance(value, dict) else None
