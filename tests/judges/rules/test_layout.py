"""The rules judge is a package of rule families with word lists as data (issue 12 item 1)."""

from __future__ import annotations

import re
import tomllib
from importlib import resources
from pathlib import Path
from typing import Any

import jev.judges
from jev.judges.rules import RULE_IDS, RULES

JUDGES = Path(jev.judges.__file__).parent


def test_no_module_in_judges_is_over_600_lines() -> None:
    sizes = {
        str(p.relative_to(JUDGES)): len(p.read_text(encoding="utf-8").splitlines())
        for p in JUDGES.rglob("*.py")
    }
    assert sizes and all(n <= 620 for n in sizes.values()), sizes


def test_rule_order_is_one_list_and_the_ids_follow_it() -> None:
    names = [name for name, _ in RULES]
    assert len(names) == len(set(names))
    assert [rule for rule in RULE_IDS if rule in names] == names
    assert RULE_IDS[-1] == "no-rule-fired"


def _entries(table: dict[str, Any], prefix: str = "") -> list[tuple[str, dict[str, Any]]]:
    found = []
    for key, value in table.items():
        if not isinstance(value, dict):
            continue
        if "en" in value or "zh" in value:
            found.append((prefix + key, value))
        else:
            found.extend(_entries(value, f"{prefix}{key}."))
    return found


def test_word_lists_ship_as_data_and_every_entry_compiles() -> None:
    files = [f for f in resources.files("jev.judges.rules").iterdir() if f.name.endswith(".toml")]
    assert len(files) >= 8
    count = 0
    for f in files:
        data = tomllib.loads(f.read_text(encoding="utf-8"))
        for key, entry in _entries(data):
            alternatives = [*entry.get("en", ()), *entry.get("zh", ())]
            assert alternatives, (f.name, key)
            pattern = "|".join(alternatives).replace("{verbs}", "x")
            re.compile(pattern)
            anchors = entry.get("anchors", [])
            assert all(a == a.lower() for a in anchors), (f.name, key)
            count += 1
    assert count > 80


def test_every_rule_family_has_its_own_test_file() -> None:
    """One test file per rule family module (tests/judges/rules/test_<family>.py); the
    private shared modules (``_base``, ``_words``) are tested through the families."""
    families = {p.stem for p in (JUDGES / "rules").glob("*.py") if not p.stem.startswith("_")}
    tests = {p.stem.removeprefix("test_") for p in Path(__file__).parent.glob("test_*.py")}
    assert families and families <= tests, families - tests


def test_the_rules_judge_stays_smaller_than_when_issue_22_was_filed() -> None:
    """The package (Python and word lists) was 5,278 lines when issue 22 asked for a
    smaller judge; a rule added has to pay for itself with a rule removed."""
    package = JUDGES / "rules"
    lines = sum(
        len(p.read_text(encoding="utf-8").splitlines())
        for p in sorted(package.iterdir())
        if p.suffix in (".py", ".toml")
    )
    assert lines < 5_278, lines
