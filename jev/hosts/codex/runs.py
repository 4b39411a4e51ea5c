"""Shell runs in a Codex rollout (issue 21; hosts.md (Codex CLI)).

Codex writes a shell command as a ``response_item`` ``function_call`` named
``exec_command`` (arguments ``{"cmd": "…", "workdir": …}``) or, in older versions,
``shell`` (``{"command": ["bash", "-lc", "…"]}``), and its result as a
``function_call_output`` with the same ``call_id``: ``exec_command``'s output is text
with a ``Process exited with code N`` line and the command's output after ``Output:``;
``shell``'s is JSON ``{"output": "…", "metadata": {"exit_code": N}}``. A command still
running when its output was written (``Process running with session ID …``, finished
later through ``write_stdin``) has no outcome here and gives no run. Stdlib only.
"""

from __future__ import annotations

import json
import re
from typing import Any

from jev.evidence.runs import Run

__all__ = ["SHELL_CALLS", "shell_command", "shell_run"]

#: ``function_call`` names that run a shell command.
SHELL_CALLS = frozenset({"exec_command", "shell", "shell_command", "local_shell"})

_EXITED = re.compile(r"^Process exited with code (-?\d+)\s*$", re.M)
_OUTPUT = re.compile(r"^Output:\r?\n", re.M)


def shell_command(arguments: Any) -> str | None:
    """The command text of a shell call's arguments (a JSON string), or ``None``.

    ``["bash", "-lc", "pytest -q"]`` gives ``pytest -q``; a plain list is joined with
    spaces."""
    try:
        data = json.loads(arguments) if isinstance(arguments, str) else arguments
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    value = data.get("cmd", data.get("command"))
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(v, str) for v in value) and value:
        if len(value) >= 3 and value[1] in ("-lc", "-c") and value[0].endswith("sh"):
            return str(value[2])
        return " ".join(value)
    return None


def shell_run(command: str, output: Any) -> Run | None:
    """The :class:`~jev.evidence.runs.Run` of a shell call's ``function_call_output``
    ``output``, or ``None`` when it shows no finished process."""
    if not isinstance(output, str):
        return None
    if output.lstrip().startswith("{"):
        try:
            data = json.loads(output)
        except ValueError:
            data = None
        if isinstance(data, dict):
            meta = data.get("metadata")
            code = meta.get("exit_code") if isinstance(meta, dict) else None
            text = data.get("output")
            if isinstance(code, int) and not isinstance(code, bool) and isinstance(text, str):
                return Run(command, code, text)
            return None
    exited = _EXITED.search(output)
    if exited is None:
        return None
    body = _OUTPUT.search(output, exited.end())
    return Run(command, int(exited.group(1)), output[body.end() :] if body else "")
