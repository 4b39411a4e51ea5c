"""The text a shell tool hands back to the model, as a run (issue 21).

Gemini CLI's ``run_shell_command`` (and forks of it) answer with labelled lines::

    Command: pytest -q
    Directory: (root)
    Output: ...
    Error: (none)
    Exit Code: 1
    Signal: (none)
    Background PIDs: (none)
    Process Group PGID: 4242

(older versions: ``Stdout:``/``Stderr:``; Gemini CLI 0.61.0 wraps the whole text in
``<untrusted_context>`` … ``</untrusted_context>``, measured in the real CLI by
``tests/hosts_real/test_gemini_evidence.py``). :func:`labelled_run` reads the exit code
from ``Exit Code: N`` (``None`` when it says ``(none)`` or is absent) and the output
from the ``Output:``/``Stdout:``/``Stderr:`` parts; text without labels is taken whole
as the output, with an unknown exit code. Pure and stdlib-only; the readers that use
it name their host.
"""

from __future__ import annotations

import re

from jev.evidence.runs import Run

__all__ = ["labelled_run"]

_LABEL = re.compile(
    r"^(Command|Directory|Output|Stdout|Stderr|Error|Exit Code|Signal|Background PIDs|"
    r"Process Group PGID):[ \t]?",
    re.M,
)
_OUTPUT_LABELS = ("Output", "Stdout", "Stderr")


def labelled_run(command: str, text: str) -> Run:
    """The :class:`~jev.evidence.runs.Run` of ``command`` from a labelled shell result."""
    found = list(_LABEL.finditer(text))
    if not found:
        return Run(command, None, text)
    parts: dict[str, str] = {}
    for here, after in zip(found, [*found[1:], None], strict=True):
        end = after.start() if after is not None else len(text)
        parts.setdefault(here.group(1), text[here.end() : end].strip("\n"))
    code = re.fullmatch(r"\s*(-?\d+)\s*", parts.get("Exit Code", ""))
    output = "\n".join(
        parts[k] for k in _OUTPUT_LABELS if parts.get(k, "").strip() not in ("", "(empty)")
    )
    return Run(command, int(code.group(1)) if code else None, output)
