"""The ``claude-code`` judge: Claude Code's own model, through ``claude -p`` (issue 20).

Registered as ``judge.provider = "claude-code"`` (pyproject's ``jev.judges`` entry
points; the engine is :class:`jev.judges.cli.CliJudge`). One judge call is::

    claude -p --output-format json --json-schema SCHEMA --tools "" \\
        --no-session-persistence --disable-slash-commands --strict-mcp-config \\
        --system-prompt RULES [--model M]          (the material on stdin)

Measured in the real CLI 2.1.328 (hosts.md (Claude Code)): ``--json-schema`` adds a
``StructuredOutput`` tool and puts the validated object in the result's
``structured_output``; when the model answers in plain text the CLI asks once more and
then exits 0 with ``structured_output: null`` — a failed call here (``cli-output``),
never a verdict. ``--bare`` is not used: it skips hooks but only accepts
``ANTHROPIC_API_KEY`` auth, so a user logged in with their subscription would fail;
Jev's own hooks are silenced by :data:`jev.base.paths.JUDGE_CHILD_ENV` instead. The user's
login, model settings and base URL are the CLI's own (no key, no base URL in Jev).

Usage comes from the result's ``usage`` (input tokens include cache reads and writes).
"""

from __future__ import annotations

import json
from pathlib import Path

from jev.base.domain import JudgeAnswer, JudgeInput, Numbering, Usage
from jev.base.errors import TransportError
from jev.judges.cli import (
    CliCall,
    CliJudge,
    CliRun,
    argv_model,
    first_json_object,
    quick_output,
)
from jev.judges.constrained import reply_schema

__all__ = ["ClaudeCodeJudge"]


class ClaudeCodeJudge(CliJudge):
    """Claude Code as the judge (module docstring)."""

    provider = "claude-code"
    program = "claude"
    fix_missing = "install Claude Code (npm install -g @anthropic-ai/claude-code) and log in"
    reply_mode = "json_schema"

    @classmethod
    def login_status(cls) -> tuple[bool | None, str]:
        """``claude auth status`` (free, local): its ``loggedIn`` and ``authMethod``."""
        found = quick_output([cls.program, "auth", "status"])
        if found is None:
            return None, "`claude auth status` did not answer"
        status = first_json_object(found[1]) or {}
        if status.get("loggedIn") is True:
            return True, f"logged in ({status.get('authMethod') or 'yes'})"
        return False, "not logged in: run `claude` once and log in (or `claude auth login`)"

    def command(self, judge_input: JudgeInput, numbering: Numbering, folder: Path) -> CliCall:
        """``claude -p`` with the reply schema, no tools, no session kept."""
        schema = json.dumps(reply_schema(numbering, "flat"), separators=(",", ":"))
        argv = (
            self.program,
            "-p",
            "--output-format",
            "json",
            "--json-schema",
            schema,
            "--tools",
            "",
            "--no-session-persistence",
            "--disable-slash-commands",
            "--strict-mcp-config",
            "--system-prompt",
            judge_input.system,
            *argv_model("--model", self.model),
        )
        return CliCall(argv=argv, stdin=judge_input.user)

    def answer(self, run: CliRun) -> JudgeAnswer:
        """The ``structured_output`` object of the result, as JSON text.

        Raises:
            TransportError: ``cli-output`` — no result object, an error result, or
                ``structured_output: null`` (the model never called the schema's tool).
        """
        result = first_json_object(run.stdout)
        if result is None:
            raise TransportError(
                "the claude-code judge's CLI printed no JSON result; run `claude -p hi "
                "--output-format json` by hand to see why",
                kind="cli-output",
                retryable=True,
            )
        structured = result.get("structured_output")
        if result.get("is_error") or not isinstance(structured, dict):
            said = " ".join(str(result.get("result") or result.get("subtype") or "").split())
            raise TransportError(
                "the claude-code judge gave no structured verdict"
                + (f" (it said: {said[:200]})" if said else "")
                + "; a failed call, retried within judge.technical_retries",
                kind="cli-output",
                retryable=True,
            )
        return JudgeAnswer(
            text=json.dumps(structured, ensure_ascii=False),
            usage=_usage(result.get("usage")),
            model=_model(result) or self.model,
            latency_ms=run.latency_ms,
            reply_mode=self.reply_mode,
        )


def _usage(value: object) -> Usage | None:
    if not isinstance(value, dict):
        return None

    def count(key: str) -> int:
        raw = value.get(key)
        return raw if isinstance(raw, int) and not isinstance(raw, bool) else 0

    inputs = (
        count("input_tokens")
        + count("cache_read_input_tokens")
        + count("cache_creation_input_tokens")
    )
    return Usage(input_tokens=inputs or None, output_tokens=count("output_tokens") or None)


def _model(result: dict[str, object]) -> str:
    models = result.get("modelUsage")
    if isinstance(models, dict) and models:
        return str(next(iter(models)))
    return ""
