"""What the host-CLI judges share (Gemini CLI, Qwen Code, Copilot CLI; design.md §13).

Moved out of the Gemini judge so that host folders never import each other
(import-linter's independence contract over ``jev/hosts/<host>/``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from jev.base.domain import JudgeInput, Numbering, Usage
from jev.judges.constrained import reply_schema

__all__ = ["INSTRUCTION", "credentials", "prompt_with_schema", "stats_usage"]

#: The ``-p`` text: appended to the prompt on standard input.
INSTRUCTION = "Judge the material above by the rules above; reply with the JSON object only."


def prompt_with_schema(judge_input: JudgeInput, numbering: Numbering) -> str:
    """Rules, then the reply schema, then the material: one prompt for CLIs without a
    system-prompt or structured-output flag."""
    schema = json.dumps(reply_schema(numbering, "flat"), separators=(",", ":"))
    return (
        f"{judge_input.system}\n\nThe reply must validate against this JSON schema:\n"
        f"{schema}\n\n{judge_input.user}"
    )


def stats_usage(result: dict[str, object]) -> tuple[Usage | None, str]:
    """``(usage, model)`` from a Gemini-style ``stats.models`` block (summed)."""
    stats = result.get("stats")
    models = stats.get("models") if isinstance(stats, dict) else None
    if not isinstance(models, dict) or not models:
        return None, ""
    prompt = candidates = 0
    for entry in models.values():
        tokens = entry.get("tokens") if isinstance(entry, dict) else None
        if isinstance(tokens, dict):
            p, c = tokens.get("prompt"), tokens.get("candidates")
            prompt += p if isinstance(p, int) else 0
            candidates += c if isinstance(c, int) else 0
    return Usage(prompt or None, candidates or None), str(next(iter(models)))


def credentials(variables: tuple[str, ...], folder: Path, fix: str) -> tuple[bool | None, str]:
    """``(True, where)`` when one of ``variables`` is set, or ``folder`` holds an OAuth
    file or a ``settings.json`` naming an auth type; else ``(False, fix)``."""
    for name in variables:
        if os.environ.get(name):
            return True, f"key in {name}"
    if (folder / "oauth_creds.json").is_file():
        return True, f"logged in ({folder / 'oauth_creds.json'})"
    try:
        settings = json.loads((folder / "settings.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        settings = None
    security = settings.get("security") if isinstance(settings, dict) else None
    auth = security.get("auth") if isinstance(security, dict) else None
    if isinstance(auth, dict) and auth.get("selectedType"):
        return True, f"auth {auth['selectedType']} in {folder / 'settings.json'}"
    return False, fix
