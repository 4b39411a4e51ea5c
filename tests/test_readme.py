"""README.md stays truthful where a figure can be checked mechanically."""

from __future__ import annotations

import contextlib
import io
import re

import pytest

from jev.pipeline.render import rules_chars
from tests.conftest import REPO

README = (REPO / "README.md").read_text(encoding="utf-8")


def test_rules_text_sizes_match_the_templates() -> None:
    m = re.search(
        r"fixed rules text is ([\d,]+) characters in English and ([\d,]+) in Chinese", README
    )
    assert m, "README lost the rules-size sentence"
    assert int(m.group(1).replace(",", "")) == rules_chars("en")
    assert int(m.group(2).replace(",", "")) == rules_chars("zh")


def test_no_unfilled_markers() -> None:
    assert not re.search(r"\b[A-Z]+_SECTION\b", README)


def _exit_table() -> dict[int, str]:
    """README's exit-code table: code -> meaning."""
    section = README.split("### Exit codes", 1)[1].split("\n\n", 2)[1]
    rows = re.findall(r"^\| (\d+) \| (.+?) \|$", section, re.MULTILINE)
    return {int(code): meaning for code, meaning in rows}


#: (command line, a word the README's meaning of the resulting code must contain)
_SCENARIOS = [
    (["audit", "tests/fixtures/cases/complete-backend-only-scope-en-08.json"], "complete"),
    (["audit", "--no-such-option"], "usage error"),
    (["audit", "examples/turn-omission.json", "--evidence-chars", "100"], "over budget"),
    (["audit", "examples/turn-omission.json"], "omission"),
    (["audit", "tests/fixtures/cases/needs-user-api-or-docs-en-01.json"], "needs-user"),
]


def test_exit_code_table_matches_the_cli(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every documented code is the CLI's, and running the CLI gives the code whose
    README meaning names what happened."""
    from jev import cli

    table = _exit_table()
    codes = {
        cli.EXIT_OK,
        cli.EXIT_INTERNAL,
        cli.EXIT_USAGE,
        cli.EXIT_INCOMPLETE,
        cli.EXIT_PROBLEM,
        cli.EXIT_NEEDS_USER,
        cli.EXIT_CHANGED,
        cli.EXIT_NOT_READY,
        cli.EXIT_INTERRUPTED,
    }
    assert set(table) == codes
    assert "internal error" in table[cli.EXIT_INTERNAL]
    monkeypatch.chdir(REPO)
    for argv, word in _SCENARIOS:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            try:
                code = cli.main(argv)
            except SystemExit as exc:  # argparse refuses the command line
                code = int(exc.code or 0)
        assert word in table[code], (argv, code, table[code])


@pytest.mark.parametrize(
    ("name", "exact", "precision", "recall"),
    [
        ("heldout3", 0.66, 0.96, 0.76),
        ("heldout5", 0.74, 0.96, 0.75),
        ("heldout6", 0.80, 0.96, 0.77),
        # issue 22's fresh blind set: 66.7 % / 89 % / 74 % at e4f525a (measured once,
        # before any change), 68.3 % / 89 % / 76 % at c44eca1
        ("heldout7", 0.68, 0.88, 0.76),
        # round three: heldout8 61.7 % / 90.6 % / 69.0 % at 0f54716 (first measurement),
        # heldout9 68.3 % / 93.9 % / 73.8 % at aea8ea8 (measured once, never tuned on)
        ("heldout8", 0.61, 0.90, 0.69),
        ("heldout9", 0.68, 0.93, 0.73),
        # heldout10 70.0 % / 91.7 % / 78.6 % at d3c753e (measured once, never tuned on)
        ("heldout10", 0.70, 0.91, 0.78),
        # heldout11 70.0 % / 91.4 % / 76.2 % at f0c74d9 (measured once)
        ("heldout11", 0.70, 0.91, 0.76),
        # round four, each measured once before tuning on it: heldout12 60.0 / 85.7 / 71.4
        # and heldout13 61.7 / 88.9 / 76.2 at 590d180; heldout15 70.0 / 88.6 / 73.8 and
        # heldout16 80.0 / 92.5 / 88.1 at a6eae4b; heldout17 81.7 / 100 / 81.0 and
        # heldout18 71.7 / 94.3 / 78.6 at ce8279d; heldout14 78.3 / 94.6 / 83.3 at
        # ee0c4ad; heldout19 75.0 / 89.2 / 78.6 and heldout20 78.3 / 97.1 / 78.6 at
        # d0dd66b (the last measurement)
        ("heldout12", 0.60, 0.85, 0.71),
        ("heldout13", 0.61, 0.88, 0.76),
        ("heldout14", 0.78, 0.94, 0.83),
        ("heldout15", 0.70, 0.88, 0.73),
        ("heldout16", 0.80, 0.92, 0.88),
        ("heldout17", 0.81, 1.00, 0.80),
        ("heldout18", 0.71, 0.94, 0.78),
        ("heldout19", 0.75, 0.89, 0.78),
        ("heldout20", 0.78, 0.97, 0.78),
        # heldout21 76.7 % / 97.1 % / 81.0 % at b5cb608 (measured once, never tuned on);
        # 78.3 / 100 / 78.6 once constraint-violated was deleted (issue 22): its one false
        # alarm went, and so did its flag of NN 46, an omission verdict on a contradiction
        ("heldout21", 0.76, 0.97, 0.78),
        # heldout22 60.0 % / 93.3 % / 66.7 % at 23550f8 (measured once, then tuned on)
        ("heldout22", 0.60, 0.93, 0.66),
        # heldout23 76.7 % / 100 % / 73.8 % at 8c0cb60 (measured once, never tuned on)
        ("heldout23", 0.76, 1.00, 0.73),
        # heldout24 73.3 % / 91.7 % / 78.6 % at 2d943e0 (measured once, then its false
        # alarms fixed)
        ("heldout24", 0.73, 0.91, 0.78),
    ],
)
def test_rules_judge_is_not_worse_on_a_blind_set(
    name: str, exact: float, precision: float, recall: float
) -> None:
    """A blind set is not worse than its recorded blind measurement (docs/accuracy.md):
    heldout3 66 % exact, 97 % flag precision, 76 % problem recall at its first
    measurement; heldout5 and heldout6 74 % / 96 % / 75 % and 80 % / 97 % / 78 % at
    theirs; heldout9 68 % / 94 % / 74 % and heldout10 70 % / 92 % / 79 % at their one
    measurement; heldout11 70 % / 91 % / 76 %; round four's heldout12–20 as listed above
    (heldout19 and heldout20 together 77 % / 93 % / 79 %; heldout21, never used for
    tuning, 77 % / 97 % / 81 %); heldout22 60 % / 93 % / 67 % and heldout23, never used
    for tuning, 77 % / 100 % / 74 %; heldout24 73 % / 92 % / 79 %. The table in
    docs/accuracy.md itself is checked against ``jev eval --builtin`` in
    tests/eval/test_builtin.py."""
    import json

    from jev.base.domain import Material, Settings
    from jev.judges.rules import RulesJudge
    from jev.pipeline.audit import run_audit
    from tests.conftest import FIXTURES

    judge, settings = RulesJudge(), Settings()
    flagged = true_flags = problems = right = total = 0
    for path in sorted((FIXTURES / name).glob("*.json")):
        case = json.loads(path.read_text(encoding="utf-8"))
        outcome = run_audit(Material.from_json(case), settings, judge)
        assert outcome.verdict is not None, path.name
        got, want = outcome.verdict.assessment, case["expected"]["assessment"]
        total += 1
        right += got == want
        problems += want != "complete"
        if got != "complete":
            flagged += 1
            true_flags += want != "complete"
    assert right / total >= exact - 1e-9, (name, right, total)
    assert true_flags / flagged >= precision - 1e-9, (name, true_flags, flagged)
    assert true_flags / problems >= recall - 1e-9, (name, true_flags, problems)


# ------------------------------------------------ README's lists and counts (issue 24 item 5)


def _parser_choices() -> tuple[set[str], list[str]]:
    """The CLI's commands and ``jev audit --from``'s formats, in the parser's order."""
    import argparse

    from jev.cli import _build_parser

    parser = _build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    audit = sub.choices["audit"]
    fmt = next(a for a in audit._actions if a.dest == "fmt")
    return set(sub.choices), list(fmt.choices or ())


def _section(title: str) -> str:
    return README.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]


def test_readme_command_list_is_the_clis() -> None:
    commands, _ = _parser_choices()
    table = _section("Commands")
    listed = set()
    for row in re.findall(r"^\| (.+?) \| .+ \|$", table, re.MULTILINE):
        listed.update(re.findall(r"`jev ([a-z-]+)`", row))
    assert listed == commands, (sorted(listed - commands), sorted(commands - listed))


def test_readme_from_formats_are_the_clis() -> None:
    _, formats = _parser_choices()
    found = re.findall(r"--from ([a-z|-]+)", README)
    assert found, "README lost the --from list"
    assert all(f.split("|") == formats for f in found), (found, formats)


def test_readme_hosts_and_judges_are_the_registrys() -> None:
    from jev.base.domain import ASSESSMENTS
    from jev.hosts.registry import host_names
    from jev.registry import offered_judge_names
    from tests.hosts_real.npm_hosts import PINNED

    words = {5: "five", 7: "seven"}
    assert f"one of {words[len(ASSESSMENTS)]} verdicts" in README.replace("\n", " ")
    assert f"one of the {words[len(host_names())]} hosts" in README.replace("\n", " ")
    hosts = _section("Hosts")
    m = re.search(r"HOST: ([a-z -]+)", hosts)
    assert m and m.group(1).split() == list(host_names())
    table = hosts.split("| host | verified how", 1)[1].split("\n\n", 1)[0]
    rows = [line for line in table.splitlines()[2:] if line.startswith("|")]
    assert len(rows) == len(host_names())
    # Every host the real-host suite runs is named at its pinned version, in
    # docs/hosts.md's section on it and in README's table.
    hosts_doc = (REPO / "docs" / "hosts.md").read_text(encoding="utf-8")
    real = hosts_doc.split("\n## Real hosts in the test suite\n", 1)[1].split("\n## ", 1)[0]
    real = real.replace("\n", " ")
    for host, cli in PINNED.items():
        assert cli.version in real, (host, cli.version)
        assert f"real CLI {cli.version}" in table, (host, cli.version)
    judges = _section("Judges").replace("\n", " ")
    m = re.search(r"\*\*Host judges\*\* ((?:`[a-z-]+`,? ?)+)", judges)
    assert m
    host_judges = re.findall(r"`([a-z-]+)`", m.group(1))
    m = re.search(r"\*\*HTTP judges\*\* `openai` \([^)]*\), `anthropic`, `ollama`", judges)
    assert m
    assert sorted([*host_judges, "rules", "openai", "anthropic", "ollama"]) == sorted(
        offered_judge_names()
    )
