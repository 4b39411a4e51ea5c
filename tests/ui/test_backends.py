"""The records pages on both store backends (SQLite and PostgreSQL), over real HTTP.

``jev ui`` opens the store the way every other command does (``JEV_STORE_URL``, else
the SQLite file under ``JEV_HOME``), and reads it only through the store's public
reading methods, so the same pages and the same counts come out of either backend.
"""

from __future__ import annotations

import http.client
import re
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit

from jev.store import default_store_path
from tests.fakeserver import running_provider
from tests.ui.conftest import start_ui
from tests.ui.seed import ANSWER_2_CLAIM, REINDEX, SEEDED, seed


def get(url: str) -> str:
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=20)
    try:
        conn.request("GET", parts.path + ("?" + parts.query if parts.query else ""))
        response = conn.getresponse()
        body = response.read().decode("utf-8")
        assert response.status == 200, body[:500]
        return body
    finally:
        conn.close()


def test_pages_on_each_backend(db: Callable[[Path | str], str]) -> None:
    with running_provider() as fake:
        seed(db(default_store_path()), fake)
    ui = start_ui()
    try:
        overview = get(ui.url + "overview")
        stats = dict(re.findall(r'data-stat="(\w+)">(\d+)<', overview))
        assert int(stats.pop("p50")) <= int(stats.pop("p95"))  # milliseconds
        assert {k: int(v) for k, v in stats.items()} == {
            "turns": SEEDED.turns,
            "audits": SEEDED.audits,
            "blocks": SEEDED.blocks,
            "catches": SEEDED.catches,
            "handoffs": SEEDED.handoffs,
            "handed_over": 0,  # the seed's only hand-off is a needs-user verdict
            "incomplete": SEEDED.incomplete,
            "input_tokens": SEEDED.input_tokens,
            "output_tokens": SEEDED.output_tokens,
        }
        turns = get(ui.url + "turns")
        assert turns.count("<tr data-turn=") == SEEDED.turns
        turn = get(ui.url + "turn?host=claude-code&session=sess-alpha&turn=turn-chain")
        assert turn.count('<section class="card round"') == 3
        marks = re.findall(r'<mark class="focus" id="focus-(\w+)">(.*?)</mark>', turn, re.S)
        assert [m[0] for m in marks] == ["T3", "A2"]
        assert REINDEX in marks[0][1] and ANSWER_2_CLAIM in marks[1][1]
    finally:
        ui.stop()
