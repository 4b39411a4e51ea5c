"""No API key ever reaches the database file or an export (design.md §11)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from jev.base.record import validate_record_json
from jev.store import REDACTED, Store, TurnKey, TurnRow, redact
from tests.store.helpers import T0, DbTarget, settings, three_round_turn

SENTINEL = "sk-SENTINEL-123"
OTHER = "sk-ant-OTHER-SENTINEL-456"


def _stored(target: str) -> bytes:
    """Every byte of the SQLite file (and its WAL), or every text cell on PostgreSQL."""
    if "://" not in target:
        path = Path(target)
        return b"".join(p.read_bytes() for p in path.parent.glob(path.name + "*"))
    import psycopg

    with psycopg.connect(target) as conn:
        rows = conn.execute(
            "SELECT data FROM records UNION ALL SELECT state || COALESCE(decision, '') FROM turns"
        ).fetchall()
    return "".join(r[0] for r in rows).encode()


def test_sentinel_keys_never_reach_the_file_or_the_export(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, db: DbTarget
) -> None:
    monkeypatch.setenv("MY_JUDGE_KEY", SENTINEL)  # named by the profile's api_key_env
    monkeypatch.setenv("ANTHROPIC_API_KEY", OTHER)  # a known provider variable
    first = three_round_turn()[0]
    assert first.material is not None
    material = dict(first.material)
    material["final_answer"] = f"I exported OPENAI_API_KEY={SENTINEL} and {OTHER} for you."
    leaky = replace(
        first,
        material=material,
        raw_replies=(f'{{"assessment": "omission", "focus": "R1"}} {SENTINEL}',),
        reason=f"HTTP 401 with header Authorization: Bearer {SENTINEL}",
        settings=settings(api_key_env="MY_JUDGE_KEY").to_json(),
    )
    target = db(tmp_path / "db.sqlite3")
    key = TurnKey("claude-code", "sess-A", "turn-4f2a9c")
    with Store(target, now=lambda: T0 + 60) as store:
        record_id = store.add_record(leaky)
        store.update_turn(
            key,
            lambda row: (TurnRow(key, {"last_error": OTHER}, decision={"notice": OTHER}), None),
        )
        stored = store.get_record(record_id)
        assert stored is not None
        assert stored.raw_replies[0].endswith(REDACTED)
        assert stored.material is not None
        assert stored.material["final_answer"] == (
            f"I exported OPENAI_API_KEY={REDACTED} and {REDACTED} for you."
        )
        assert stored.reason == f"HTTP 401 with header Authorization: Bearer {REDACTED}"
        assert stored.settings is not None
        assert stored.settings["judge"]["api_key_env"] == "MY_JUDGE_KEY"
        row = store.get_turn(key)
        assert row is not None and row.state == {"last_error": REDACTED}
        out = tmp_path / "export.jsonl"
        store.export_jsonl(out)
    blob = _stored(target)
    assert blob  # the database (and its WAL) really were read
    for secret in (SENTINEL, OTHER):
        assert secret.encode() not in blob
        assert secret not in out.read_text("utf-8")
    validate_record_json(json.loads(out.read_text("utf-8").splitlines()[0]))


def test_redact_ignores_short_values_and_handles_nesting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "abc")  # too short to be a key: not redacted
    monkeypatch.setenv("CUSTOM_VAR", "customsecretvalue")
    value = {"a": ["abc", "x customsecretvalue y"], "customsecretvalue": ("k",)}
    assert redact(value, ["CUSTOM_VAR"]) == {
        "a": ["abc", f"x {REDACTED} y"],
        REDACTED: ["k"],
    }
    assert redact("x-api-key: abcdef123456") == f"x-api-key: {REDACTED}"
    assert redact("plain text with bearer words") == "plain text with bearer words"
