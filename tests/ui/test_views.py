"""The view logic of ``jev ui`` without a browser: saving, numbering, counting."""

from __future__ import annotations

import pytest

from jev.base.domain import Material, TodoItem
from jev.base.errors import SettingsError
from jev.base.record import Record
from jev.pipeline.material import number
from jev.settings import profiles as st
from jev.store import Store, default_store_path
from jev.ui import records_view as rv
from jev.ui import settings_view as sv
from tests.fakeserver import running_provider
from tests.ui.seed import SEEDED, seed

INVALID = ["0", "-1", "1.5", "abc", "3 ", " 3", str(2**53), "", "1e3", "0x10"]


@pytest.mark.parametrize("text", INVALID)
def test_save_form_refuses_and_writes_nothing(text: str) -> None:
    st.save_settings("web", {"max_supplements": 2, "enabled": True})
    path = st.profile_path("web")
    before = path.read_bytes()
    saved, errors = sv.save_form("web", {"max_supplements": text, "language": "zh"})
    assert saved == [] and set(errors) == {"max_supplements"}
    assert "refused" in errors["max_supplements"] and "still 2" in errors["max_supplements"]
    assert path.read_bytes() == before


def test_save_form_saves_only_changed_keys_never_enabled() -> None:
    shipped = st.default_values()
    defaults = {f.key: sv.value_text(shipped[f.key]) for f in sv.FIELDS}
    form = {**defaults, "max_supplements": "2", "enabled": "true"}
    saved, errors = sv.save_form("web", form)
    assert (saved, errors) == (["max_supplements"], {})
    assert st.user_values("web") == {"max_supplements": 2}
    assert sv.save_form("web", {**defaults, "max_supplements": "2"}) == ([], {})
    assert sv.save_form("web", {"max_supplements": str(2**53 - 1)}) == (["max_supplements"], {})
    assert st.load_settings("web").max_supplements == 2**53 - 1
    assert st.load_settings("web").enabled is False


def test_parse_raw_exact_is_the_cli_parser_without_spaces() -> None:
    assert st.parse_raw("max_supplements", " 7 ") == 7  # the command line trims
    with pytest.raises(SettingsError, match="spaces around the value"):
        st.parse_raw("max_supplements", " 7 ", exact=True)
    assert st.parse_raw("max_supplements", "7", exact=True) == 7
    assert st.parse_raw("judge.model", " m ", exact=True) == " m "  # text is text


def test_judge_test_uses_the_profile_judge() -> None:
    result = sv.run_judge_test("default")
    assert result.ok and result.assessment == "omission" and result.focus_id == "T3"
    assert "(heuristic)" in result.judge
    st.save_settings("web", {"judge.provider": "openai", "judge.model": ""})
    broken = sv.run_judge_test("web")
    assert not broken.ok and "judge.model is empty" in broken.message


def test_material_view_numbers_like_the_judge() -> None:
    material = Material(
        ("Fix the bug. Then update the docs.\n\n- add a changelog line", "Also bump the version."),
        (TodoItem("Fix the bug", "completed"), TodoItem("Docs", "pending")),
        "Fixed it in `src/a.py`. Docs are next.\nVersion bumped to 1.2.3.",
    )
    numbering = number(material)
    view = rv.material_view(material.to_json(), "A2")
    assert view is not None
    ids = [p.pos_id for msg in view["request"] for p in msg if p.pos_id]
    ids += [t["id"] for t in view["todos"]] + [p.pos_id for p in view["answer"] if p.pos_id]
    expected = [p.id for p in numbering.positions if p.kind in ("request", "todo", "answer")]
    assert ids == expected
    texts = {p.pos_id: p.text for msg in view["request"] for p in msg if p.pos_id}
    texts.update({p.pos_id: p.text for p in view["answer"] if p.pos_id})
    for pos in numbering.positions:
        if pos.kind in ("request", "answer"):
            assert texts[pos.id] == pos.text
    # the text around the positions is kept exactly
    assert "".join(p.text for p in view["answer"]) == material.final_answer
    assert [p.pos_id for p in view["answer"] if p.focus] == ["A2"]


def test_percentile_nearest_rank() -> None:
    assert rv.percentile([], 50) is None
    assert rv.percentile([5.0], 95) == 5.0
    values = [float(v) for v in range(1, 101)]
    assert rv.percentile(values, 50) == 50.0 and rv.percentile(values, 95) == 95.0


def test_overview_counts_the_seeded_store() -> None:
    with running_provider() as fake:
        seed(default_store_path(), fake)
    with Store(default_store_path()) as store:
        records: list[Record] = list(store.iter_records())
        data = rv.overview(records, rv.Filters())
        turns = rv.summarize_turns(records, rv.Filters())
    assert (data.turns, data.audits, data.blocks, data.catches, data.handoffs) == (
        SEEDED.turns,
        SEEDED.audits,
        SEEDED.blocks,
        SEEDED.catches,
        SEEDED.handoffs,
    )
    assert data.incomplete == SEEDED.incomplete
    assert data.incomplete_why == {"over-budget": 1, "http-5xx": 1}
    assert (data.input_tokens, data.output_tokens) == (SEEDED.input_tokens, SEEDED.output_tokens)
    assert len(data.latencies) == SEEDED.audits
    chain = next(t for t in turns if t.turn == "turn-chain")
    assert chain.chain == ["omission", "contradiction", "complete"]
    assert (chain.supplements_used, chain.max_supplements, chain.end) == (2, 3, "complete")
    web = rv.overview(records, rv.Filters(profile="web"))
    assert (web.turns, web.handoffs, web.blocks) == (1, 1, 0)
