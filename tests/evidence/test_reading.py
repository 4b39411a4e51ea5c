"""Reading runs and claims (issue 21): what a command runs, a run's outcome from its
summary line and exit code, success claims in a report, honest failures."""

from __future__ import annotations

import pytest

from jev.base.domain import Material
from jev.evidence.claims import admits_failure, find_claims
from jev.evidence.finding import check_runs
from jev.evidence.outcome import MAX_QUOTE_CHARS, read_outcome
from jev.evidence.runs import MAX_OUTPUT_CHARS, Run, command_kinds, is_compound, run_from_json
from jev.pipeline.material import number


@pytest.mark.parametrize(
    ("command", "kinds"),
    [
        ("python3 -m pytest -q", {"test"}),
        ("cd /repo && uv run pytest tests/ -x 2>&1 | tail -5", {"test"}),
        (r".venv\Scripts\pytest.exe -q", {"test"}),
        (r"C:\Python312\python.exe -m unittest discover", {"test"}),
        (r".\gradlew.bat test", {"test"}),
        ("./gradlew :app:build", {"build"}),
        ("npx jest --ci", {"test"}),
        ("pnpm test", {"test"}),
        ("yarn run test:unit", {"test"}),
        ("npm run build", {"build"}),
        ("npm run lint", {"lint"}),
        ("npm run typecheck", {"typecheck"}),
        ("go test ./... && go vet ./...", {"test", "lint"}),
        ("FOO=1 timeout 60 cargo test --release", {"test"}),
        ("cargo clippy -- -D warnings", {"lint"}),
        ("mvn -q verify", {"test", "build"}),
        ("dotnet test", {"test"}),
        ("bundle exec rspec", {"test"}),
        ("vendor/bin/phpunit", {"test"}),
        ("npx tsc --noEmit", {"typecheck"}),
        ("ruff check . && mypy jev", {"lint", "typecheck"}),
        ("make", {"build"}),
        ("python -m build", {"build"}),
        ("git commit -m 'fix 1 failed test'", set()),
        ("grep -n failed build.log", set()),
        ("cat pytest.log", set()),
        ("pytest --help", set()),
        ("pytest --collect-only -q", set()),
    ],
)
def test_what_a_command_runs(command: str, kinds: set[str]) -> None:
    assert set(command_kinds(command)) == kinds


def test_compound_commands() -> None:
    assert not is_compound("pytest -q 2>&1")
    assert not is_compound("cd /repo && pytest -q")
    assert is_compound("pytest -q | tail -3")
    assert is_compound("pytest -q; echo done")
    assert is_compound("pytest -q || true")


@pytest.mark.parametrize(
    ("kind", "output", "passed", "line"),
    [
        (
            "test",
            "..F\nFAILED t.py::x - assert 1\n1 failed, 2 passed in 0.03s\n",
            False,
            "1 failed, 2 passed in 0.03s",
        ),
        ("test", "...\n3 passed in 0.01s\n", True, "3 passed in 0.01s"),
        ("test", "Ran 4 tests in 0.001s\n\nFAILED (failures=1)\n", False, "FAILED (failures=1)"),
        ("test", "Ran 4 tests in 0.001s\n\nOK\n", True, "OK"),
        (
            "test",
            "Tests:       1 failed, 2 passed, 3 total\n",
            False,
            "Tests: 1 failed, 2 passed, 3 total",
        ),
        ("test", "--- FAIL: TestX (0.00s)\nFAIL\nFAIL\tpkg\t0.1s\n", False, "FAIL pkg 0.1s"),
        ("test", "ok  \tpkg\t0.2s\n", True, "ok pkg 0.2s"),
        (
            "test",
            "test result: FAILED. 3 passed; 1 failed; 0 ignored\n",
            False,
            "test result: FAILED. 3 passed; 1 failed; 0 ignored",
        ),
        ("test", "3 examples, 1 failure\n", False, "3 examples, 1 failure"),
        ("test", "  2 passing (5ms)\n  1 failing\n", False, "1 failing"),
        ("test", "共 5 个用例，2 个失败\n", False, "共 5 个用例，2 个失败"),
        ("lint", "x.py:1:1: F401 unused\nFound 1 error.\n", False, "Found 1 error."),
        ("lint", "All checks passed!\n", True, "All checks passed!"),
        (
            "lint",
            "Oh no! 💥 💔 💥\n1 file would be reformatted, 2 files would be left unchanged.\n",
            False,
            "1 file would be reformatted, 2 files would be left unchanged.",
        ),
        (
            "lint",
            "All done! ✨ 🍰 ✨\n3 files would be left unchanged.\n",
            True,
            "3 files would be left unchanged.",
        ),
        (
            "test",
            "14 doctests, 410 tests, 0 failures\n",
            True,
            "14 doctests, 410 tests, 0 failures",
        ),
        (
            "typecheck",
            "a.py:3: error: x\nFound 2 errors in 1 file (checked 3 source files)\n",
            False,
            "Found 2 errors in 1 file (checked 3 source files)",
        ),
        (
            "typecheck",
            "Success: no issues found in 3 source files\n",
            True,
            "Success: no issues found in 3 source files",
        ),
        (
            "build",
            "> tsc\nsrc/a.ts(1,1): error TS2322: nope\n",
            False,
            "src/a.ts(1,1): error TS2322: nope",
        ),
        ("build", "[INFO] BUILD SUCCESS\n", True, "[INFO] BUILD SUCCESS"),
    ],
)
def test_outcome_from_the_summary_line(kind: str, output: str, passed: bool, line: str) -> None:
    outcome = read_outcome(Run("x | tee log", None, output), kind)
    assert outcome is not None
    assert (outcome.passed, outcome.line, outcome.rule) == (passed, line, "summary-line")


def test_outcome_from_the_exit_code_only_for_a_simple_command() -> None:
    failed = read_outcome(Run("flake8", 1, "x.py:1:80: long line\n"), "lint")
    assert failed is not None and (failed.passed, failed.rule) == (False, "exit-code")
    plain = read_outcome(Run("go build ./...", 2, "./a.go:3:1: syntax error\n"), "build")
    assert plain is not None and (plain.passed, plain.rule) == (False, "exit-code")
    assert read_outcome(Run("go build ./... | head", 0, "./a.go:3:1: x\n"), "build") is None
    assert read_outcome(Run("go build ./...", None, ""), "build") is None


@pytest.mark.parametrize(
    ("command", "code", "output"),
    [
        ("pytest -q", 127, "sh: pytest: command not found"),
        ("pytest -q", 5, "no tests ran in 0.01s"),
        ("python -m pytest", 1, "/usr/bin/python: No module named pytest"),
        ("npm test", 1, "'jest' is not recognized as an internal or external command"),
    ],
)
def test_a_run_that_ran_nothing_is_unreadable(command: str, code: int, output: str) -> None:
    assert read_outcome(Run(command, code, output), "test") is None


def test_quotes_and_outputs_are_bounded() -> None:
    run = Run("pytest", 1, "x" * (MAX_OUTPUT_CHARS * 3) + "\n" + "1 failed " + "y" * 900)
    assert len(run.output) == MAX_OUTPUT_CHARS
    outcome = read_outcome(run, "test")
    assert outcome is not None and len(outcome.line) <= MAX_QUOTE_CHARS


def test_runs_from_a_turn_file() -> None:
    assert run_from_json({"command": "pytest", "exit_code": 1, "output": "o"}) == Run(
        "pytest", 1, "o"
    )
    assert run_from_json({"command": "pytest", "exit_code": True}) == Run("pytest", None, "")
    assert run_from_json({"exit_code": 1}) is None


def _numbering(answer: str, todos: tuple[tuple[str, str], ...] = ()) -> object:
    items = tuple({"content": c, "status": s} for c, s in todos)
    return number(Material(("Fix the bug.",), items, answer))


@pytest.mark.parametrize(
    ("answer", "kinds"),
    [
        ("All 3 tests pass.", ["test"]),
        ("Tests pass and the build succeeds.", ["test", "build"]),
        ("pytest: 12 passed", ["test"]),
        ("0 failures.", ["test"]),
        ("The test suite is green.", ["test"]),
        ("Lint is clean and mypy passes.", ["lint", "typecheck"]),
        ("No type errors; ruff is clean.", ["lint", "typecheck"]),
        ("测试全部通过。", ["test"]),
        ("所有测试均已通过，构建成功。", ["test", "build"]),
        ("12 个测试通过。", ["test"]),
        ("Once the tests pass I will commit.", []),
        ("Make sure all tests pass before merging.", []),
        ("The tests should pass now.", []),
        ("Do all tests pass?", []),
        ("如果测试通过，就可以合并。", []),
        ("The tests do not pass yet.", []),
        ("Run `pytest -q` to see that all tests pass.", []),
    ],
)
def test_claims(answer: str, kinds: list[str]) -> None:
    found = find_claims(_numbering(answer))  # type: ignore[arg-type]
    assert [c.kind for c in found] == kinds


def test_claims_in_completed_todo_items_only() -> None:
    numbering = _numbering(
        "Done.", (("Run the tests: all tests pass", "completed"), ("All tests pass", "pending"))
    )
    found = find_claims(numbering)  # type: ignore[arg-type]
    assert [(c.kind, c.position.id) for c in found] == [("test", "T1")]


@pytest.mark.parametrize(
    ("answer", "admits"),
    [
        ("1 test still fails: test_edge.", True),
        ("2 passed, 1 failed.", True),
        ("The new tests pass; one pre-existing failing test remains.", True),
        ("测试有 1 个失败。", True),
        ("All tests pass, 0 failures.", False),
        ("Fixed the failing test; all tests pass now.", False),
    ],
)
def test_admitted_failures(answer: str, admits: bool) -> None:
    assert admits_failure(_numbering(answer), "test") is admits  # type: ignore[arg-type]


RED = Run("python3 -m pytest -q", 1, "..F\nFAILED t.py::x\n1 failed, 2 passed in 0.03s\n")
GREEN = Run("python3 -m pytest -q", 0, "...\n3 passed in 0.02s\n")


def test_the_last_matching_run_decides() -> None:
    numbering = _numbering("All 3 tests pass.")
    found = check_runs(numbering, [RED])  # type: ignore[arg-type]
    assert found is not None and found.assessment == "contradiction"
    assert found.focus.id == "A1" and found.note.quote == "1 failed, 2 passed in 0.03s"
    assert found.note.command == "python3 -m pytest -q" and found.note.exit_code == 1
    assert check_runs(numbering, [RED, GREEN]) is None  # type: ignore[arg-type]
    assert check_runs(numbering, [GREEN, RED]) is not None  # type: ignore[arg-type]
    other = Run("ruff check .", 1, "Found 3 errors.")
    assert check_runs(numbering, [other]) is None  # type: ignore[arg-type]
    assert check_runs(numbering, []) is None  # type: ignore[arg-type]


def test_an_honest_failure_report_is_no_contradiction() -> None:
    numbering = _numbering("I ran the tests: 1 failed, 2 passed. The failure is in test_x.")
    assert check_runs(numbering, [RED]) is None  # type: ignore[arg-type]


def test_a_claim_that_quotes_its_command_is_matched_with_that_command() -> None:
    from jev.evidence.finding import named_checks
    from jev.evidence.runs import same_check

    text = "`pytest tests/orders -q` → 48 passed; `ruff check .` is clean."
    assert named_checks(text, "test") == ["pytest tests/orders -q"]
    assert named_checks(text, "lint") == ["ruff check ."]
    assert same_check("pytest tests/orders -q", "cd api && python -m pytest tests/orders | tail")
    assert same_check("cargo test", "cargo test -p tokenizer")
    assert same_check(r".\gradlew.bat test", "./gradlew test")
    assert not same_check("pytest tests/api", "pytest tests/orders")
    assert not same_check("pnpm --filter api test", "pnpm --filter web test")
    numbering = _numbering("`pytest tests/orders -q` → 48 passed.")
    green = Run("pytest tests/orders -q", 0, "48 passed in 3.0s\n")
    other_red = Run("pytest tests/payments -q", 1, "1 failed, 30 passed in 2.2s\n")
    assert check_runs(numbering, [green, other_red]) is None  # type: ignore[arg-type]
    assert check_runs(numbering, [other_red, RED]) is None  # type: ignore[arg-type]
    own_red = Run("pytest tests/orders -q", 1, "1 failed, 47 passed in 3.1s\n")
    assert check_runs(numbering, [own_red, other_red]) is not None  # type: ignore[arg-type]


def test_a_count_claim_is_read_against_a_run_of_the_same_tests_only() -> None:
    from jev.evidence.finding import counts_agree

    assert counts_agree("12 passed", "1 failed, 11 passed in 0.2s")
    assert not counts_agree("12 passed", "2 failed, 88 passed")
    assert counts_agree("All 3 tests pass", "1 failed, 2 passed in 0.03s")
    assert counts_agree("0 failures", "test result: FAILED. 8 passed; 1 failed;")
    assert counts_agree("15 passed", "Tests: 1 failed, 14 passed, 15 total")
    assert counts_agree("All tests pass", "anything")
