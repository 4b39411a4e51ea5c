"""The ``gemini`` judge: Gemini CLI's own model, through ``gemini -p … -o json`` (issue 20).

Registered as ``judge.provider = "gemini"`` (pyproject's ``jev.judges`` entry points;
the engine is :class:`jev.judges.cli.CliJudge`). One judge call is::

    gemini -p "Judge the material above …" -o json --approval-mode plan --skip-trust \\
        [--model M]        (Jev's judge rules, the reply schema and the material on stdin)

The CLI has no structured-output flag and no system-prompt flag: the rules, the reply
schema and the material go in as the prompt (``-p`` is appended to standard input),
and the reply is the ``response`` field of the JSON result, parsed by Jev's strict
parser. ``--approval-mode plan`` is the CLI's read-only mode (no tool changes
anything); the empty temporary working folder gives the model nothing to read. Usage
comes from ``stats.models.<model>.tokens`` (``prompt``/``candidates``).
"""

from __future__ import annotations

from pathlib import Path

from jev.base.domain import JudgeAnswer, JudgeInput, Numbering
from jev.base.errors import TransportError
from jev.hosts.judge_kit import INSTRUCTION, credentials, prompt_with_schema, stats_usage
from jev.judges.cli import CliCall, CliJudge, CliRun, argv_model, first_json_object

__all__ = ["GeminiJudge", "credentials", "prompt_with_schema", "stats_usage"]


class GeminiJudge(CliJudge):
    """Gemini CLI as the judge (module docstring)."""

    provider = "gemini"
    program = "gemini"
    fix_missing = "install Gemini CLI (npm install -g @google/gemini-cli) and log in"
    reply_mode = "text"

    @classmethod
    def login_status(cls) -> tuple[bool | None, str]:
        """Whether Gemini CLI has credentials: an API key in the environment, its OAuth
        file, or an auth type in its settings (read, never a model call)."""
        return credentials(
            ("GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_APPLICATION_CREDENTIALS"),
            Path.home() / ".gemini",
            f"not logged in: run `{cls.program}` once and choose how to log in",
        )

    def command(self, judge_input: JudgeInput, numbering: Numbering, folder: Path) -> CliCall:
        """``gemini -p`` in read-only plan mode with JSON output."""
        argv = (
            self.program,
            "-p",
            INSTRUCTION,
            "-o",
            "json",
            "--approval-mode",
            "plan",
            "--skip-trust",
            *argv_model("--model", self.model),
        )
        return CliCall(argv=argv, stdin=prompt_with_schema(judge_input, numbering))

    def answer(self, run: CliRun) -> JudgeAnswer:
        """The ``response`` field of the JSON result.

        Raises:
            TransportError: ``cli-output`` — no JSON result, or an error result.
        """
        result = first_json_object(run.stdout)
        response = result.get("response") if result is not None else None
        if result is None or not isinstance(response, str) or result.get("error"):
            error = result.get("error") if result is not None else None
            said = error.get("message") if isinstance(error, dict) else error
            raise TransportError(
                f"the {self.provider} judge's CLI gave no response"
                + (f" ({' '.join(str(said).split())[:200]})" if said else "")
                + f"; run `{self.program} -p hi -o json` by hand to see why",
                kind="cli-output",
                retryable=True,
            )
        usage, model = stats_usage(result)
        return JudgeAnswer(
            text=response,
            usage=usage,
            model=model or self.model,
            latency_ms=run.latency_ms,
            reply_mode=self.reply_mode,
        )
