"""Shell runs in a Copilot CLI ``events.jsonl`` (issue 21).

Copilot CLI logs a ``bash`` (or, on Windows, ``powershell``) tool call as
``tool.execution_start`` (``data.toolName``, ``data.arguments.command``,
``data.toolCallId``) and its result as ``tool.execution_complete`` with the same
``toolCallId``; ``data.result.content`` is the command's output followed by a line
``<shellId: N completed with exit code X>`` (1.0.74, ``../shared/real/``). A result
without that line (a command still running, detached, or refused) has no outcome here
and gives no run. Stdlib only.
"""

from __future__ import annotations

import re
from typing import Any

from jev.evidence.runs import Run

__all__ = ["SHELL_TOOLS", "shell_run"]

#: Tool names that run a shell command.
SHELL_TOOLS = frozenset({"bash", "powershell"})

_DONE = re.compile(r"\n?<shellId: [^>]*? completed with exit code (-?\d+)>\s*\Z")


def shell_run(command: str, data: dict[str, Any]) -> Run | None:
    """The :class:`~jev.evidence.runs.Run` of a ``tool.execution_complete`` ``data``."""
    result = data.get("result")
    content = result.get("content") if isinstance(result, dict) else None
    if not isinstance(content, str):
        return None
    done = _DONE.search(content)
    if done is None:
        return None
    return Run(command, int(done.group(1)), content[: done.start()])
