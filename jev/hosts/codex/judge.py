"""The ``codex`` judge: the Codex CLI's own model, through ``codex exec`` (issue 20).

Registered as ``judge.provider = "codex"`` (pyproject's ``jev.judges`` entry points;
the engine is :class:`jev.judges.cli.CliJudge`). One judge call is::

    codex exec --ephemeral --skip-git-repo-check --sandbox read-only --color never \\
        --json --output-schema schema.json --output-last-message reply.txt \\
        -c approval_policy="never" [--model M] -          (the prompt on stdin)

``codex exec`` has no system-prompt flag: the prompt is Jev's judge rules, then the
material. Measured in the real CLI 0.169 (hosts.md (Codex CLI)): ``--output-schema``
sends a strict ``json_schema`` format on ``/v1/responses`` and does not check the
answer itself, so the reply goes through Jev's strict parser like any other
(``--output-schema`` wants OpenAI strict's shape: the flat object of
:func:`jev.judges.constrained.reply_schema`). ``--ephemeral`` keeps no rollout, the
read-only sandbox and ``approval_policy = "never"`` keep the call a text call, and the
empty temporary working folder gives the model nothing to read. The user's login and
``config.toml`` (provider, model) are the CLI's own; Jev's hooks are silenced by
:data:`jev.base.paths.JUDGE_CHILD_ENV`.

Usage comes from the ``turn.completed`` event of ``--json`` (input includes cached
tokens).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from jev.base.domain import JudgeAnswer, JudgeInput, Numbering, Usage
from jev.base.errors import TransportError
from jev.judges.cli import CliCall, CliJudge, CliRun, argv_model, quick_output
from jev.judges.constrained import reply_schema

__all__ = ["CodexJudge"]

_SCHEMA = "reply-schema.json"
_REPLY = "reply.txt"


class CodexJudge(CliJudge):
    """The Codex CLI as the judge (module docstring)."""

    provider = "codex"
    program = "codex"
    fix_missing = "install the Codex CLI (npm install -g @openai/codex) and log in (codex login)"
    reply_mode = "json_schema"

    @classmethod
    def login_status(cls) -> tuple[bool | None, str]:
        """``codex login status`` (free, local); a custom model provider in
        ``config.toml`` may need no login, so "not logged in" is then not certain."""
        found = quick_output([cls.program, "login", "status"])
        if found is None:
            return None, "`codex login status` did not answer"
        if found[0] == 0:
            return True, " ".join(found[1].split())[:80] or "logged in"
        if "model_provider" in _config_text():
            return None, "not logged in, but config.toml names a model provider of its own"
        return False, "not logged in: run `codex login`"

    def command(self, judge_input: JudgeInput, numbering: Numbering, folder: Path) -> CliCall:
        """``codex exec`` with the reply schema file and the reply file in ``folder``."""
        (folder / _SCHEMA).write_text(json.dumps(reply_schema(numbering, "flat")), encoding="utf-8")
        argv = (
            self.program,
            "exec",
            "--ephemeral",
            "--skip-git-repo-check",
            "--sandbox",
            "read-only",
            "--color",
            "never",
            "--json",
            "--output-schema",
            str(folder / _SCHEMA),
            "--output-last-message",
            str(folder / _REPLY),
            "-c",
            'approval_policy="never"',
            *argv_model("--model", self.model),
            "-",
        )
        return CliCall(argv=argv, stdin=f"{judge_input.system}\n\n{judge_input.user}")

    def answer(self, run: CliRun) -> JudgeAnswer:
        """The last agent message, from the reply file.

        Raises:
            TransportError: ``cli-output`` — the reply file is missing or empty.
        """
        path = run.folder / _REPLY
        try:
            text = path.read_text(encoding="utf-8", errors="replace").strip()
        except OSError:
            text = ""
        if not text:
            raise TransportError(
                "the codex judge's CLI wrote no final message; run `codex exec hi` by hand "
                "to see why (is it logged in?)",
                kind="cli-output",
                retryable=True,
            )
        return JudgeAnswer(
            text=text,
            usage=_usage(run.stdout),
            model=self.model,
            latency_ms=run.latency_ms,
            reply_mode=self.reply_mode,
        )


def _usage(stdout: str) -> Usage | None:
    """Token counts of the last ``turn.completed`` event in the ``--json`` stream."""
    for line in reversed(stdout.splitlines()):
        line = line.strip()
        if not line.startswith("{") or "turn.completed" not in line:
            continue
        try:
            event = json.loads(line)
        except ValueError:
            continue
        usage = event.get("usage") if isinstance(event, dict) else None
        if isinstance(usage, dict):
            inputs = usage.get("input_tokens")
            outputs = usage.get("output_tokens")
            return Usage(
                input_tokens=inputs if isinstance(inputs, int) else None,
                output_tokens=outputs if isinstance(outputs, int) else None,
            )
    return None


def _config_text() -> str:
    """The text of Codex's ``config.toml`` ("" when absent or unreadable)."""
    root = os.environ.get("CODEX_HOME")
    path = Path(root) if root else Path.home() / ".codex"
    try:
        return (path / "config.toml").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
