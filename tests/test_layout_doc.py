"""design.md §15's layer tables are the import-linter contracts of pyproject.toml.

The first table of §15 is the ``layers`` contract over ``jev``, row by row from the
top; the second is the "pipeline order" contract over ``jev.pipeline``. Both cover
every module of their package, so a new module cannot be left out of a layer.
"""

from __future__ import annotations

import re
import tomllib

from tests.conftest import REPO

JEV = REPO / "jev"


def _contract(container: str) -> list[set[str]]:
    config = tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))
    for contract in config["tool"]["importlinter"]["contracts"]:
        if contract["type"] == "layers" and contract.get("containers") == [container]:
            return [set(re.split(r"\s*[|:]\s*", layer.strip())) for layer in contract["layers"]]
    raise AssertionError(f"pyproject.toml has no layers contract over {container}")


def _tables() -> list[list[list[str]]]:
    """The markdown tables of design.md §15: rows of cells, header and rule dropped."""
    text = (REPO / "docs" / "design.md").read_text("utf-8")
    section = text[text.index("## §15 ") :]
    section = section[: section.find("\n## ", 1)] if "\n## " in section[1:] else section
    tables: list[list[list[str]]] = []
    rows: list[list[str]] = []
    for line in [*section.splitlines(), ""]:
        if line.startswith("|"):
            rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
        elif rows:
            tables.append(rows[2:])
            rows = []
    return tables


def _names(cell: str) -> set[str]:
    return {name.rstrip("/") for name in re.findall(r"`([^`]+)`", cell)}


def _top_level_modules() -> set[str]:
    names = {p.stem for p in JEV.glob("*.py") if p.stem != "__init__"}
    return names | {p.name for p in JEV.iterdir() if (p / "__init__.py").is_file()}


def test_the_layer_table_is_the_layers_contract() -> None:
    table = _tables()[0]
    assert [_names(row[1]) for row in table] == _contract("jev")


def test_the_pipeline_table_is_the_pipeline_order_contract() -> None:
    table = _tables()[1]
    assert [_names(row[1]) for row in table] == _contract("jev.pipeline")


def test_every_module_of_jev_is_in_a_layer() -> None:
    layered = set().union(*_contract("jev"))
    assert layered == _top_level_modules()


def test_every_step_of_the_pipeline_is_in_the_order() -> None:
    steps = {p.stem for p in (JEV / "pipeline").glob("*.py") if p.stem != "__init__"}
    assert set().union(*_contract("jev.pipeline")) == steps


def test_at_most_about_a_dozen_modules_lie_loose_in_jev() -> None:
    loose = sorted(p.stem for p in JEV.glob("*.py"))
    assert len(loose) <= 12, loose
