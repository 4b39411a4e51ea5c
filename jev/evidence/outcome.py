"""A run's outcome for one kind of check: its runner's own summary line, then its exit
code (issue 21).

:func:`read_outcome` looks for the summary line the runner prints (pytest's ``1
failed, 2 passed in 0.03s``, unittest's ``FAILED (failures=1)``, jest's ``Tests: 1
failed``, go's ``FAIL``, cargo's ``test result: FAILED``, rspec's ``3 examples, 1
failure``, mypy's ``Found 2 errors``, ``BUILD FAILED``, Chinese ``2 个测试失败`` …). A
summary line decides; without one the exit code decides, but only for a simple
command (a pipe, ``;`` or ``||`` makes the exit code the line's, not the runner's) and
not for "command not found" (126/127), which ran nothing. Anything else is
unreadable (``None``), and an unreadable run changes nothing.

Pure and stdlib-only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from jev.evidence.runs import Run, is_compound

__all__ = ["MAX_QUOTE_CHARS", "Outcome", "read_outcome"]

#: Characters of a summary line quoted back (the output itself is never sent).
MAX_QUOTE_CHARS = 300

_N = r"[1-9]\d*"
# (kind, failing pattern, passing pattern) summary lines, searched from the output's end.
_TEST_FAIL = re.compile(
    rf"(?:^|[\s=,(|]){_N} (?:failed|failing|failures?|errors?)\b"  # pytest, mocha, rspec
    rf"|\bFAILED \((?:failures|errors)={_N}"  # unittest
    rf"|\bTests?:?\s+{_N} failed"  # jest, vitest
    rf"|\btest result: FAILED"  # cargo
    rf"|^(?:--- )?FAIL\b"  # go test
    rf"|\bFailed!\s+-\s+Failed:\s+{_N}"  # dotnet
    rf"|\bTests run: \d+, Failures: (?:{_N}, Errors: \d+|\d+, Errors: {_N})"  # maven
    rf"|\b\d+ tests? completed, {_N} failed"  # gradle
    rf"|^FAILURES!$|\bTests: \d+, Assertions: \d+, (?:Failures|Errors): {_N}"  # phpunit
    rf"|{_N}\s*个?(?:测试|用例)?\s*(?:失败|未通过)|测试(?:未通过|失败)",
    re.M,
)
_TEST_PASS = re.compile(
    r"(?:^|[\s=])\d+ passed\b(?!.*\b[1-9]\d* (?:failed|errors?)\b)"  # pytest
    r"|^OK(?: \(|$)"  # unittest, phpunit
    r"|\bTests?:?\s+\d+ passed"  # jest, vitest
    r"|\btest result: ok\."  # cargo
    r"|^ok\s+\S+"  # go test
    r"|\b\d+ passing\b"  # mocha
    r"|\b\d+ examples?, 0 failures\b"  # rspec
    r"|\b\d+ tests?, 0 failures\b"  # ExUnit (mix test)
    r"|\bPassed!\s+-\s+Failed:\s+0\b"  # dotnet
    r"|(?:全部|所有)(?:测试|用例)?(?:均|都)?(?:已)?通过",
    re.M,
)
_BUILD_FAIL = re.compile(
    r"\bBUILD FAIL(?:ED|URE)\b|\berror: could not compile\b|^npm ERR!|\bERR_PNPM_\w+"
    r"|\bBuild FAILED\b|\bBuild failed\b|\bCompilation failed\b|^make(?:\[\d+\])?: \*\*\* "
    r"|\berror (?:TS|CS)\d+\b|\bFailed to compile\b|构建失败|编译失败",
    re.M,
)
_BUILD_PASS = re.compile(
    r"\bBUILD SUCCESS(?:FUL)?\b|^\s*Finished `?\w+`? profile|\bBuild succeeded\b"
    r"|\bCompiled successfully\b|\bbuilt in \d|构建成功|编译成功",
    re.M,
)
_LINT_FAIL = re.compile(
    rf"^Found {_N} errors?\b|\b{_N} problems? \({_N} errors?|\bwould (?:be )?reformat"
    rf"|^Oh no! |\b{_N} issues?\b|^error: could not compile|^\S+:\d+:\d+: [A-Z]+\d+\b"
    r"|Your code has been rated at (?!10\.00)",
    re.M,
)
_LINT_PASS = re.compile(
    r"^All checks passed!|\brated at 10\.00/10|\bwould be left unchanged\b|^0 issues\.",
    re.M,
)
_TYPE_FAIL = re.compile(
    rf"^Found {_N} errors? in \d+ files?|^Found {_N} errors?\.?|\berror TS\d+:"
    rf"|^{_N} errors?, \d+ warnings?|^error(?:\[E\d+\])?: could not compile|类型错误",
    re.M,
)
_TYPE_PASS = re.compile(
    r"^Success: no issues found|^0 errors, \d+ warnings?|^\s*Finished `?\w+`? profile", re.M
)
_PATTERNS: dict[str, tuple[re.Pattern[str], re.Pattern[str]]] = {
    "test": (_TEST_FAIL, _TEST_PASS),
    "build": (_BUILD_FAIL, _BUILD_PASS),
    "lint": (_LINT_FAIL, _LINT_PASS),
    "typecheck": (_TYPE_FAIL, _TYPE_PASS),
}
#: Lower-case words one of which every line of each pattern holds: a line without any is
#: not tried (the patterns are tried on few lines of a long log, issue 21 bench).
_HINTS: dict[re.Pattern[str], tuple[str, ...]] = {
    _TEST_FAIL: ("fail", "error", "失败", "未通过"),
    _TEST_PASS: ("pass", "ok", "failures", "通过"),
    _BUILD_FAIL: ("fail", "compile", "err", "make", "失败"),
    _BUILD_PASS: ("success", "finished", "succeeded", "compiled", "built in", "成功"),
    _LINT_FAIL: ("error", "problem", "reformat", "oh no", "issue", "rated at", ":"),
    _LINT_PASS: ("all checks passed", "rated at", "left unchanged", "0 issues"),
    _TYPE_FAIL: ("error", "类型错误"),
    _TYPE_PASS: ("success", "0 errors", "finished"),
}
_RAN_NOTHING = re.compile(
    r"command not found|is not recognized as (?:an internal|the name)|No module named"
    r"|no tests ran|collected 0 items|No tests found|ENOENT|not installed|找不到命令"
    r"|^Command running in background",
    re.I | re.M,
)


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one run shows for one kind of check.

    Attributes:
        passed: True (passed), False (failed).
        line: the quoted line: the runner's summary line, or for an exit-code outcome
            the last line of output (at most :data:`MAX_QUOTE_CHARS` characters; may be
            empty when the run printed nothing).
        rule: how it was read: ``summary-line`` or ``exit-code``.
    """

    passed: bool
    line: str
    rule: str


def _clip(line: str) -> str:
    line = " ".join(line.split())
    return line if len(line) <= MAX_QUOTE_CHARS else line[: MAX_QUOTE_CHARS - 1] + "…"


def _last_line(text: str, pattern: re.Pattern[str]) -> str | None:
    """The last line of ``text`` that ``pattern`` matches (lines without one of its
    :data:`_HINTS` are skipped unread)."""
    hints = _HINTS[pattern]
    for line in reversed(text.splitlines()):
        low = line.lower()
        if any(h in low for h in hints) and pattern.search(line):
            return line
    return None


def read_outcome(run: Run, kind: str) -> Outcome | None:
    """The outcome of ``run`` for ``kind`` (``test``/``build``/``lint``/``typecheck``),
    or ``None`` when it cannot be read (module docstring).

    A failing summary line anywhere in the output wins over a passing one (one of
    several runners in the line failed); the quoted line is the last failing (or
    passing) summary line.
    """
    fail, ok = _PATTERNS[kind]
    output = run.output
    failing = _last_line(output, fail)
    if failing is not None:
        return Outcome(False, _clip(failing), "summary-line")
    passing = _last_line(output, ok)
    if passing is not None:
        return Outcome(True, _clip(passing), "summary-line")
    if run.exit_code is None or is_compound(run.command) or run.exit_code in (126, 127):
        return None
    if _RAN_NOTHING.search(output[-2000:]) or (kind == "test" and run.exit_code in (4, 5)):
        return None  # the runner did not run (not installed, usage error, nothing collected)
    lines = [ln for ln in output.splitlines() if ln.strip()]
    last = _clip(lines[-1]) if lines else ""
    return Outcome(run.exit_code == 0, last, "exit-code")
