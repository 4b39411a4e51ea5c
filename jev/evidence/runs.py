"""The run model and what kind of check a shell command is (issue 21).

A :class:`Run` is one shell command the agent ran in the current turn, as a host's
transcript (or a turn file's ``runs`` list) shows it: the command text, its exit code
when known, and the tail of its output. :func:`command_kinds` says which checks a
command runs — ``test``, ``build``, ``lint``, ``typecheck`` — by its programs (test
runners pytest, unittest, jest, vitest, mocha, go test, cargo test, npm/pnpm/yarn/bun
test, mvn/gradle test, dotnet test, rspec, phpunit; builds; linters; type checkers),
looking through wrappers (``uv run``, ``python -m``, ``npx``, env assignments, ``cd x
&&``) and Windows paths (``.venv\\Scripts\\pytest.exe``, ``gradlew.bat``).

Pure and stdlib-only: nothing here runs a command.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

__all__ = [
    "KINDS",
    "MAX_OUTPUT_CHARS",
    "Run",
    "command_kinds",
    "is_compound",
    "run_from_json",
    "same_check",
]

#: The kinds of check a command can run, in the order claims name them.
KINDS: tuple[str, ...] = ("test", "build", "lint", "typecheck")
#: Characters of a run's output kept (its tail: runners print their summary last).
MAX_OUTPUT_CHARS = 8_000


@dataclass(frozen=True, slots=True)
class Run:
    """One shell command run in the turn (the turn file's ``runs`` item).

    Attributes:
        command: the command text as the agent gave it.
        exit_code: its exit status, ``None`` when the host did not say.
        output: the tail of its combined output (at most :data:`MAX_OUTPUT_CHARS`
            characters are kept; longer output is cut at the front).
    """

    command: str
    exit_code: int | None = None
    output: str = ""

    def __post_init__(self) -> None:
        if len(self.output) > MAX_OUTPUT_CHARS:
            object.__setattr__(self, "output", self.output[-MAX_OUTPUT_CHARS:])

    def to_json(self) -> dict[str, Any]:
        """``{"command", "exit_code", "output"}`` (``schemas/turn.schema.json`` runs item)."""
        return {"command": self.command, "exit_code": self.exit_code, "output": self.output}


def run_from_json(data: Any) -> Run | None:
    """A :class:`Run` from a turn file's ``runs`` item, ``None`` when it is not one
    (no string ``command``). A non-integer ``exit_code`` is treated as unknown."""
    if not isinstance(data, dict) or not isinstance(data.get("command"), str):
        return None
    code = data.get("exit_code")
    exit_code = code if isinstance(code, int) and not isinstance(code, bool) else None
    output = data.get("output")
    return Run(data["command"], exit_code, output if isinstance(output, str) else "")


# A command is cut into simple commands at these operators (quotes are not parsed:
# an operator inside a quoted string only makes a command look compound, which
# makes its exit code count for less, never more).
_SPLIT = re.compile(r"&&|\|\||[;|\n&]")
_REDIRECT = re.compile(r"\d*>&\d+|&>>?|\d*[<>]>?\s*\S+")
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
# Wrappers that run the next word as the program: (word, arguments that take a value).
_WRAPPERS: dict[str, frozenset[str]] = {
    "sudo": frozenset(),
    "time": frozenset(),
    "nice": frozenset({"-n"}),
    "env": frozenset(),
    "command": frozenset(),
    "exec": frozenset(),
    "xvfb-run": frozenset(),
    "npx": frozenset(),
    "bunx": frozenset(),
    "pnpx": frozenset(),
    "timeout": frozenset(),
    "nohup": frozenset(),
    "stdbuf": frozenset(),
    "coverage": frozenset(),
}
# "X run|exec" wrappers: uv run, poetry run, pdm run, hatch run, rye run, pipenv run,
# bundle exec, pnpm exec/dlx, yarn dlx, conda run.
_RUNNERS = {
    "uv": ("run",),
    "poetry": ("run",),
    "pdm": ("run",),
    "hatch": ("run",),
    "rye": ("run",),
    "pipenv": ("run",),
    "conda": ("run",),
    "bundle": ("exec",),
    "pnpm": ("exec", "dlx"),
    "yarn": ("dlx",),
}
_PYTHONS = re.compile(r"^(?:python|python3|python3\.\d+|py|pypy3?)$")
_SCRIPT_KINDS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"^(?:test|tests|unit|e2e|spec|jest|vitest|mocha)(?::[\w:-]+)?$"), "test"),
    (re.compile(r"^(?:build|compile|dist|bundle)(?::[\w:-]+)?$"), "build"),
    (re.compile(r"^(?:lint|eslint|check:lint|lint:[\w:-]+)$"), "lint"),
    (
        re.compile(r"^(?:typecheck|type-check|types|tsc|check:types|typecheck:[\w:-]+)$"),
        "typecheck",
    ),
)
_NOT_A_RUN = frozenset({"--help", "-h", "--version", "-V", "--collect-only", "--co", "--list"})


def _words(segment: str) -> list[str]:
    return [w.strip("\"'()") for w in segment.split() if w.strip("\"'()")]


def _program(word: str) -> str:
    """The program's name: the last path part, lower case, Windows suffixes dropped."""
    name = re.split(r"[\\/]", word)[-1].lower()
    return re.sub(r"\.(?:exe|cmd|bat|ps1|sh)$", "", name)


def _unwrap(words: list[str]) -> list[str]:
    """``words`` from the program that does the work (wrappers, assignments dropped)."""
    while words:
        head = _program(words[0])
        if _ASSIGNMENT.match(words[0]) or head in ("cd", "pushd"):
            words = words[1:] if head not in ("cd", "pushd") else []
        elif head in _WRAPPERS:
            rest = words[1:]
            while rest and (rest[0].startswith("-") or re.fullmatch(r"\d+[smh]?", rest[0])):
                rest = rest[2:] if rest[0] in _WRAPPERS[head] else rest[1:]
            if head == "coverage" and rest[:1] == ["run"]:
                rest = ["python", *rest[1:]]
            words = rest
        elif (head in _RUNNERS and len(words) > 1 and words[1] in _RUNNERS[head]) or (
            _PYTHONS.match(head) and len(words) > 2 and words[1] == "-m"
        ):
            words = words[2:]
        else:
            return words
    return words


#: Programs that are one kind of check whatever their arguments.
_PROGRAMS: dict[str, str] = {
    **dict.fromkeys(
        ("pytest", "py.test", "unittest", "jest", "vitest", "mocha", "rspec", "phpunit"), "test"
    ),
    **dict.fromkeys(("tox", "nox", "ctest"), "test"),
    **dict.fromkeys(("tsc", "vue-tsc", "mypy", "dmypy", "pyright", "basedpyright"), "typecheck"),
    **dict.fromkeys(
        ("ruff", "flake8", "pylint", "eslint", "golangci-lint", "rubocop", "biome"), "lint"
    ),
    **dict.fromkeys(("shellcheck", "stylelint", "pre-commit"), "lint"),
    **dict.fromkeys(("webpack", "rollup", "esbuild", "build"), "build"),
}
#: ``(program, first argument)`` pairs: ``go test``, ``cargo clippy``, ``dotnet build`` ….
_SUBCOMMANDS: dict[tuple[str, str], str] = {
    **{(p, a): "test" for p in ("go", "cargo", "swift", "deno", "mix", "zig") for a in ("test",)},
    ("cargo", "nextest"): "test",
    **{(p, "build"): "build" for p in ("go", "cargo", "swift", "zig", "dotnet", "vite", "next")},
    ("go", "vet"): "lint",
    ("cargo", "clippy"): "lint",
    ("cargo", "check"): "typecheck",
    ("mix", "dialyzer"): "typecheck",
    ("dotnet", "test"): "test",
    ("make", "test"): "test",
    ("make", "tests"): "test",
    ("make", "check"): "test",
    ("make", "build"): "build",
    ("make", "all"): "build",
    ("make", ""): "build",
    ("make", "lint"): "lint",
}
#: Goals of Maven and tasks of Gradle, and the kinds they run.
_GOALS: dict[str, tuple[str, ...]] = {
    "test": ("test",),
    "check": ("test",),
    "verify": ("test", "build"),
    "install": ("test", "build"),
    "package": ("build",),
    "compile": ("build",),
    "build": ("build",),
    "assemble": ("build",),
}


#: Options of the package managers that take a value (``pnpm --filter api test``).
_VALUE_OPTIONS = frozenset({"--filter", "-F", "--prefix", "-C", "--dir", "--workspace", "-w"})


def _plain_args(words: list[str]) -> list[str]:
    """The non-option arguments after the program (a value option's value dropped)."""
    out: list[str] = []
    skip = False
    for word in words[1:]:
        if skip:
            skip = False
        elif word in _VALUE_OPTIONS:
            skip = True
        elif not word.startswith("-"):
            out.append(word)
    return out


def _segment_kinds(words: list[str]) -> set[str]:
    if not words or any(w in _NOT_A_RUN for w in words[1:]):
        return set()
    prog = _program(words[0])
    args = _plain_args(words)
    first = args[0].lower() if args else ""
    if prog in _PROGRAMS:
        return {_PROGRAMS[prog]}
    if (prog, first) in _SUBCOMMANDS:
        return {_SUBCOMMANDS[(prog, first)]}
    if prog in ("mvn", "mvnw", "gradle", "gradlew"):
        goals = {a.lower().rsplit(":", 1)[-1] for a in args}
        return {kind for goal in goals for kind in _GOALS.get(goal, ())}
    if prog in ("npm", "pnpm", "yarn", "bun"):
        script = args[1].lower() if first == "run" and len(args) > 1 else first
        script = "test" if script == "t" else script
        return {kind for pattern, kind in _SCRIPT_KINDS if pattern.match(script)}
    if prog in ("black", "prettier") and ("--check" in words or "-c" in words):
        return {"lint"}
    if prog == "cmake" and "--build" in words:
        return {"build"}
    return set()


def _segments(command: str) -> list[list[str]]:
    parts = _SPLIT.split(_REDIRECT.sub(" ", command))
    return [w for w in (_unwrap(_words(s)) for s in parts) if w]


def command_kinds(command: str) -> frozenset[str]:
    """The kinds of check (:data:`KINDS`) that ``command`` runs; empty for any other
    command (``git``, ``cat``, ``grep "failed" log``, ``pytest --help``)."""
    kinds: set[str] = set()
    for words in _segments(command):
        kinds |= _segment_kinds(words)
    return frozenset(kinds)


def _signature(words: list[str]) -> tuple[str, frozenset[str]]:
    return _program(words[0]), frozenset(
        w.replace("\\", "/") for w in words[1:] if not w.startswith("-")
    )


def same_check(named: str, command: str) -> bool:
    """Whether ``command`` (a run) runs the check ``named`` (a command a report quotes,
    such as ``pytest tests/orders -q``): one of its simple commands has the same program
    and non-option arguments that contain the quoted ones — the same run or a narrower
    one, whose failure is a failure of the quoted command too (``cargo test`` covers
    ``cargo test -p tokenizer``; ``pytest tests/orders`` is not ``pytest`` of the whole
    suite, nor ``pytest tests/api``), options and wrappers aside."""
    wanted = [_signature(w) for w in _segments(named) if _segment_kinds(w)]
    have = [_signature(w) for w in _segments(command) if _segment_kinds(w)]
    return bool(wanted) and all(any(p == q and a <= b for q, b in have) for p, a in wanted)


def is_compound(command: str) -> bool:
    """Whether ``command`` is more than one simple command (pipes, ``&&``, ``;``, …):
    then its exit code belongs to the whole line, not to one runner."""
    text = _REDIRECT.sub(" ", command).strip()
    while True:  # a leading `cd DIR &&` hands its exit code on: not compound
        lead = re.match(r"(?:cd|pushd)\s+\S+\s*&&\s*", text)
        if lead is None:
            break
        text = text[lead.end() :]
    return len([s for s in _SPLIT.split(text) if s.strip()]) > 1
