"""``jev eval``: the rules judge on the corpus, the HTML page (also in headless Chromium),
response errors with a scripted judge, tokens and cost with a fake HTTP provider."""

from __future__ import annotations

import json
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from jev.cli import main
from tests.conftest import FIXTURES
from tests.fakeserver import FakeProvider, openai_completion

CASES = FIXTURES / "cases"


class _Dom(HTMLParser):
    """Collects (tag, attrs) of every start tag and the page text."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _parse(html: str) -> _Dom:
    dom = _Dom()
    dom.feed(html)
    return dom


def _some_cases(tmp_path: Path, names: list[str]) -> Path:
    folder = tmp_path / "cases"
    folder.mkdir()
    for name in names:
        shutil.copy(CASES / f"{name}.json", folder)
    return folder


def test_rules_judge_on_the_corpus_json_and_html(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    html = tmp_path / "report.html"
    assert main(["eval", str(CASES), "--judge", "rules", "--json", "--html", str(html)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["cases"] == 64 and report["judge"]["heuristic"] is True
    confusion = report["confusion"]
    assert sum(map(sum, confusion["matrix"])) == 64
    assert report["response_error_rate"] == 0.0
    assert report["cost"]["amount"] == 0.0
    # The numbers are consistent with the per-case results.
    right = sum(1 for r in report["results"] if r["correct"])
    assert confusion["accuracy"] == pytest.approx(right / 64)
    hits = sum(1 for r in report["results"] if r["focus_hit"])
    assert report["focus_hit_rate"] == pytest.approx(hits / report["verdicts"])

    dom = _parse(html.read_text("utf-8"))
    ids = {attrs.get("id") for _, attrs in dom.tags}
    assert {"confusion-heatmap", "class-bars", "summary"} <= ids
    cells = [a for t, a in dom.tags if t == "g" and a.get("class") == "cell"]
    labels = confusion["labels"][:5]  # no incomplete column without incomplete results
    assert len(cells) == len(labels) ** 2
    bars = [a for t, a in dom.tags if t == "g" and a.get("class") == "bar"]
    assert [b["data-label"] for b in bars] == labels
    assert not [t for t, _ in dom.tags if t in ("script", "link", "img")]  # self-contained


def test_terminal_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", str(CASES), "--judge", "rules"]) == 0
    out = capsys.readouterr().out
    assert "Jev eval: 64 cases" in out and "(heuristic)" in out
    for word in ("accuracy", "macro-F1", "Cohen's κ", "focus hit rate", "p95", "cost free"):
        assert word in out
    assert "confusion matrix (rows: labelled, columns: judged)" in out


@pytest.mark.browser
def test_html_opens_in_headless_chromium(tmp_path: Path) -> None:
    binary = next(
        (
            shutil.which(n)
            for n in ("chromium", "chromium-browser", "google-chrome")
            if shutil.which(n)
        ),
        None,
    )
    if binary is None:
        pytest.skip("no chromium binary on PATH (CI installs Debian's chromium)")
    html = tmp_path / "report.html"
    assert main(["eval", str(CASES), "--judge", "rules", "--html", str(html)]) == 0
    done = subprocess.run(
        [
            binary,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--dump-dom",
            html.resolve().as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    dom = _parse(done.stdout)
    heat = [a for t, a in dom.tags if a.get("id") == "confusion-heatmap"]
    assert heat and heat[0].get("class") == "heatmap"
    assert any(t == "rect" for t, _ in dom.tags)


def test_response_errors_are_counted_and_escaped_in_html(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    names = ["complete-bugfix-coupon-zh-01", "complete-bugfix-parse-duration-en-01"]
    folder = _some_cases(tmp_path, names)
    replies = tmp_path / "replies.json"
    replies.write_text(
        json.dumps(['{"assessment": "omission", "focus": "R1"}', "<b>not json</b>"]), "utf-8"
    )
    monkeypatch.setenv("JEV_SCRIPTED_REPLIES", str(replies))
    html = tmp_path / "r.html"
    args = ["eval", str(folder), "--judge", "scripted", "--technical-retries", "0", "--json"]
    assert main([*args, "--html", str(html)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["verdicts"] == 1 and report["response_error_rate"] == 0.5
    assert report["failed_calls"] == 1 and report["calls"] == 2
    judged = [r["judged"] for r in report["results"]]
    assert judged == ["omission", "incomplete"]
    assert report["results"][1]["error_kind"] == "reply-malformed"
    assert "incomplete" in report["confusion"]["labels"]
    page = html.read_text("utf-8")
    dom = _parse(page)
    misses = [a for t, a in dom.tags if t == "tr" and a.get("class") == "miss"]
    assert len(misses) == 2
    assert "<b>not json</b>" not in page  # judge text is escaped


def test_tokens_and_cost_from_a_fake_provider(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _some_cases(tmp_path, ["complete-bugfix-parse-duration-en-01"])
    prices = tmp_path / "prices.toml"
    prices.write_text('[models."fake-model"]\ninput = 1.0\noutput = 4.0\n', "utf-8")
    with FakeProvider() as fake:
        fake.script(
            openai_completion(
                '{"assessment": "complete", "focus": "none"}',
                prompt_tokens=2000,
                completion_tokens=50,
            )
        )
        code = main(
            [
                "eval",
                str(folder),
                "--judge",
                "openai",
                "--model",
                "fake-model",
                "--base-url",
                fake.openai_base,
                "--prices",
                str(prices),
            ]
        )
    out = capsys.readouterr().out
    assert code == 0
    assert "tokens in 2,000 out 50" in out
    assert "cost 0.0022 USD" in out  # 2000 * 1.0 / 1e6 + 50 * 4.0 / 1e6


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    assert main(["eval", str(tmp_path / "none"), "--judge", "rules"]) == 2
    assert main(["eval", str(CASES), "--judge", "no-such-judge"]) == 2
    bad = tmp_path / "p.toml"
    bad.write_text("[models\n", "utf-8")
    assert main(["eval", str(CASES), "--judge", "rules", "--prices", str(bad)]) == 2


def test_a_profile_names_the_judge_without_judge_flag(
    jev_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 20 item 3: `jev eval --profile P` measures the judge profile P names."""
    from jev.settings.profiles import save_settings

    save_settings("ci", {"judge.provider": "rules"})
    assert main(["eval", str(CASES), "--profile", "ci"]) == 0
    assert "judge rules" in capsys.readouterr().out
    assert main(["eval", str(CASES)]) == 2  # neither --judge nor --profile
    assert "--profile P" in capsys.readouterr().err
