"""One test per row of issue 11's defect table not already covered by the transport
and hook suites (those cover rows 1-3, 5's HTTP body, 6's echoed key, 8 and 9).

Each of these failed on the code before the issue was fixed.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jev.base.errors import ResponseError, SettingsError
from jev.cli import main
from tests.conftest import REPO
from tests.store.helpers import DbTarget

TURN = REPO / "examples" / "turn-omission.json"


# -- row 4: lone surrogates give a clear outcome and lose nothing ------------------------


def _with_surrogates(tmp_path: Path) -> Path:
    text = TURN.read_text("utf-8")
    data = json.loads(text)
    data["final_answer"] = "Done. PLACEHOLDER"
    raw = json.dumps(data).replace("PLACEHOLDER", "split emoji \\ud83d here")
    path = tmp_path / "turn.json"
    path.write_text(raw, "utf-8")
    return path


def test_lone_surrogate_in_turn_file_is_audited_not_an_internal_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _with_surrogates(tmp_path)
    code = main(["audit", str(path), "--json"])
    out, err = capsys.readouterr()
    assert code in (0, 4, 5), err  # a verdict came back
    row = json.loads(out.splitlines()[0])
    assert row["status"] == "verdict"
    from jev.hosts.turnfile import read_turn_file

    material = read_turn_file(path).material
    assert "\ufffd" in material.final_answer  # kept as U+FFFD
    assert len(material.digest()) == 64  # the digest no longer raises


def test_lone_surrogate_in_material_is_consistent_in_the_record(
    tmp_path: Path, jev_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _with_surrogates(tmp_path)
    main(["audit", str(path)])
    capsys.readouterr()
    assert main(["records", "export", "--out", str(tmp_path / "out.jsonl")]) == 0
    exported = (tmp_path / "out.jsonl").read_text("utf-8")  # strict UTF-8: no surrogate
    assert (
        "split emoji \ufffd here"
        in json.loads(exported.splitlines()[0])["material"]["final_answer"]
        or "\\ufffd" in exported
        or "\ufffd" in exported
    )


# -- row 5: a reply nested 100,000 deep is a response error ------------------------------


@pytest.mark.parametrize("depth", [100_000, 900, 40])
def test_deep_reply_is_reply_malformed(depth: int) -> None:
    from jev.base.domain import Material, TodoItem
    from jev.pipeline.material import number
    from jev.pipeline.parse import parse_reply

    numbering = number(
        Material(
            request=("Fix the parser.",),
            todos=(TodoItem("Fix the parser", "completed"),),
            final_answer="Fixed.",
        )
    )
    text = '{"assessment": "complete", "focus": "none", "x": ' + "[" * depth + "]" * depth + "}"
    with pytest.raises(ResponseError) as info:
        parse_reply(text, numbering)
    assert info.value.kind == "reply-malformed"


# -- row 6: credentials in the base URL's query are refused at save ----------------------


@pytest.mark.parametrize(
    "url",
    [
        "https://api.example.com/v1?api_key=sk-abc123",
        "https://api.example.com/v1?key=AIzaSyA",
        "https://api.example.com/v1?access_token=SECRETtok1",
        "https://api.example.com/v1?x=1&Token=SECRETtok2",
        "https://api.example.com/v1#api-key=SECRETtok3",
    ],
)
def test_base_url_with_query_credential_is_refused_and_not_echoed(url: str) -> None:
    from jev.settings.profiles import set_value

    with pytest.raises(SettingsError) as info:
        set_value(None, "judge.base_url", url)
    assert url.rsplit("=", 1)[1] not in str(info.value)


def test_base_url_with_harmless_query_is_kept() -> None:
    from jev.settings.profiles import set_value

    url = "https://example.openai.azure.com/openai?api-version=2024-06-01"
    assert set_value(None, "judge.base_url", url).judge.base_url == url


# -- row 7: hand-broken files are named with their line, never stuck ---------------------


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("enabled = true\nmax_supplements = " + "9" * 5000 + "\n", "line 2"),
        ("enabled = true\n\n[judge]\nx = " + "[" * 5000 + "]" * 5000 + "\n", "line 4"),
    ],
    ids=["5000-digit-int", "nested-5000"],
)
def test_broken_profile_toml_names_path_and_line(text: str, where: str, jev_home: Path) -> None:
    from jev.settings.profiles import load_settings

    path = jev_home / "profiles" / "default.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, "utf-8")
    with pytest.raises(SettingsError) as info:
        load_settings()
    assert str(path) in str(info.value) and where in str(info.value)


@pytest.mark.parametrize(
    "line",
    [b"[" * 100_000 + b"]" * 100_000, b'{"n": ' + b"1" * 5000 + b"}", b'{"a": "\xff"}'],
    ids=["nested-100000", "5000-digit-int", "not-utf8"],
)
def test_records_import_names_the_broken_line(
    line: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "in.jsonl"
    path.write_bytes(b"\n" + line + b"\n")
    assert main(["records", "import", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path} line 2" in err and "internal error" not in err


def test_installer_target_not_utf8_names_the_byte(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    project = tmp_path / "proj"
    (project / ".claude").mkdir(parents=True)
    (project / ".git").mkdir()
    monkeypatch.chdir(project)
    target = project / ".claude" / "settings.json"
    target.write_bytes(b'{"model": "opus\xff"}')
    assert main(["install", "claude-code", "--scope", "project"]) == 2
    err = capsys.readouterr().err
    assert str(target) in err and "not UTF-8 at byte 15" in err
    assert target.read_bytes() == b'{"model": "opus\xff"}'  # nothing written


@pytest.mark.parametrize(
    ("content", "where"),
    [
        (b'{"sessions": {}}\n{not json', "line 2"),
        (b'{"sessions": ' + b"[" * 50_000 + b"]" * 50_000 + b"}", "nested"),
        (b'{"sessions": 3}', "'sessions' object"),
        (b'{"sessions": {"s": {"host": "caf\xe9"}}}', "not UTF-8 at byte"),
    ],
    ids=["not-json", "nested", "wrong-shape", "not-utf8"],
)
def test_broken_session_index_is_quarantined_once_and_rebuilt(
    content: bytes, where: str, jev_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An old ``sessions.json`` that cannot be imported is moved aside, named once with
    its line, and the index in the store works (design.md §11: never stuck)."""
    from jev.hosts.hook import SessionIndex

    path = jev_home / "sessions.json"
    path.write_bytes(content)
    index = SessionIndex()
    assert index.get("s") is None
    moved = list(jev_home.glob("sessions.json.broken-*"))
    assert len(moved) == 1 and moved[0].read_bytes() == content
    assert not path.exists()
    err = capsys.readouterr().err
    assert "was broken" in err and str(path) in err and where in err
    index.update("s", host="claude-code")
    assert index.get("s") is not None  # later hooks work again
    index.close()
    again = SessionIndex()
    assert again.get("s") is not None
    again.close()
    assert "was broken" not in capsys.readouterr().err  # reported once


# -- row 10: the material is inert data -----------------------------------------------


def test_line_separators_are_escaped_in_the_data_block() -> None:
    from jev.pipeline.render import data_json

    value = {"text": "a\u2028b\u2029c\u0085d"}
    out = data_json(value)
    assert not any(c in out for c in "\u2028\u2029\u0085")
    assert json.loads(out) == value


def test_session_index_never_holds_a_key(
    db: DbTarget, jev_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A key echoed in every transformed form reaches neither the ``sessions`` table
    (either backend), nor any file under JEV_HOME — the imported old index included."""
    from jev.hosts.hook import SessionIndex
    from jev.store import Store
    from tests.hostile import key_forms

    key = "sk-proj-SENTINELk3y0123456789abcdefGHIJKLmnop"
    monkeypatch.setenv("OPENAI_API_KEY", key)
    old = {
        f"old{i}": {"host": "gemini", "request": [f"old {form}"], "turn": f"t{form}", "updated": 1}
        for i, form in enumerate(key_forms(key))
    }
    (jev_home / "sessions.json").write_text(json.dumps({"sessions": old}), "utf-8")
    index = SessionIndex()
    for i, form in enumerate(key_forms(key)):
        index.update(
            f"s{i}",
            host="cursor",
            turn=f"turn {form}",
            profile="default",
            request=[f"use {form} please"],
            last_steer=f"steer {form}",
            steers=[{"text": f"steer {form}", "turn": "t1", "request": [form]}],
            material={"request": [form], "todos": [], "final_answer": f"done {form}"},
        )
    index.close()
    assert list(jev_home.glob("sessions.json.imported-*"))
    with Store(db(jev_home / "jev.sqlite3")) as store:
        rows = store._db.execute("SELECT * FROM sessions").fetchall()
    assert len(rows) == 2 * len(key_forms(key))
    seen = [json.dumps([list(r) for r in rows])]
    seen += [p.read_bytes().decode("utf-8", "replace") for p in jev_home.rglob("*") if p.is_file()]
    for text in seen:
        low = text.lower()
        for form in key_forms(key):
            for i in range(len(form) - 12):
                assert form[i : i + 12].lower() not in low
