"""Adding a host is one new folder (issue 24 item 2, "Done when").

A throwaway host package is written to ``tmp_path`` — one folder, ``toyhost/``, with
its adapter and its file format — and put on ``sys.path`` (``PYTHONPATH``) of real
``jev`` processes. Its one registration line is the ``jev.hosts`` entry point a
distribution declares in its ``pyproject.toml`` (``toy = "toyhost"``); the test writes
the ``entry_points.txt`` that ``pip install`` makes of that line. No file of Jev is
touched: the registry, format detection, ``jev audit --from`` and ``jev hook`` find the
host through the registry.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from jev.settings.profiles import save_settings
from jev.store import Store
from tests.conftest import REPO
from tests.settings.helpers import MAIN_SNIPPET

#: The turn of ``examples/turn-omission.json``: an omission the rules judge finds.
TURN = json.loads((REPO / "examples" / "turn-omission.json").read_text("utf-8"))

_INIT = '''\
"""A stand-in host for a test: one folder, registered by the one ``jev.hosts`` entry
point of its distribution (pyproject.toml: [project.entry-points."jev.hosts"]
toy = "toyhost")."""
'''

_FILEFORMAT = '''\
"""The toy transcript: JSON lines, each ``{"toy": <a Jev turn object>}``, one turn each."""

from __future__ import annotations

import json
from pathlib import Path

SNIFF_RANK = 5
LABEL = "the toy transcript"


def sniff_head(head: bytes) -> bool:
    return False


def sniff_record(rec: dict[str, object]) -> bool:
    return isinstance(rec.get("toy"), dict)


def sniff_document(doc: object) -> bool:
    return False


def read_turns(path: Path, stats: object) -> list:
    from dataclasses import replace

    from jev.hosts.turnfile import turn_from_data

    lines = Path(path).read_text("utf-8").splitlines()
    records = [json.loads(line)["toy"] for line in lines if line.strip()]
    return [replace(turn_from_data(rec), number=n) for n, rec in enumerate(records, 1)]


def read_current_turn(path: Path, stats: object) -> object:
    from dataclasses import replace

    return replace(read_turns(path, stats)[-1], number=0)
'''

_ADAPTER = '''\
"""The toy host's adapter: every stop takes the full hook; Claude Code's answer form."""

from __future__ import annotations

from jev.hosts.adapter_kit import FullHookAdapter, decision_answer, transcript_file
from jev.hosts.base import HookInput, common_fields


class ToyAdapter(FullHookAdapter):
    name = "toy"
    hooks = {"toy": "stop"}

    def parse(self, data):
        return HookInput(host=self.name, event="Stop", kind="stop", **common_fields(data))

    def read_turn(self, hook, index, session):
        return self.read_file(transcript_file(hook))

    def read_file(self, path):
        from toyhost.fileformat import read_current_turn

        return read_current_turn(path, None)

    def render(self, answer, hook=None):
        return decision_answer(answer)


ADAPTER = ToyAdapter()
'''


def _toy_host(root: Path) -> Path:
    """Write the host folder and its distribution's metadata under ``root``; return
    the toy transcript of two turns (the second one is the omission)."""
    folder = root / "toyhost"
    folder.mkdir()
    (folder / "__init__.py").write_text(_INIT)
    (folder / "adapter.py").write_text(_ADAPTER)
    (folder / "fileformat.py").write_text(_FILEFORMAT)
    dist = root / "toyhost-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: toyhost\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[jev.hosts]\ntoy = toyhost\n")
    first = {**TURN, "id": "toy-1", "todo_used": False}
    transcript = root / "session.toy.jsonl"
    lines = [json.dumps({"toy": first}), json.dumps({"toy": {**TURN, "id": "toy-2"}})]
    transcript.write_text("\n".join(lines) + "\n")
    return transcript


def _jev(root: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    path = os.pathsep.join(p for p in (str(root), os.environ.get("PYTHONPATH", "")) if p)
    env = {**os.environ, "PYTHONPATH": path}
    env.pop("JEV_DEBUG", None)
    return subprocess.run(
        [sys.executable, "-c", MAIN_SNIPPET, *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        timeout=120,
    )


def test_a_host_in_one_new_folder_is_audited_by_jev_audit_and_jev_hook(
    jev_home: Path, tmp_path: Path
) -> None:
    transcript = _toy_host(tmp_path)

    named = _jev(tmp_path, "audit", str(transcript), "--from", "toy", "--json", "--no-record")
    assert named.returncode == 4, named.stderr  # the omission, found by the rules judge
    assert json.loads(named.stdout)["assessment"] == "omission"

    sniffed = _jev(tmp_path, "audit", str(transcript), "--all-turns", "--json", "--no-record")
    assert sniffed.returncode == 4, sniffed.stderr  # detected as toy without --from
    rows = [json.loads(line) for line in sniffed.stdout.splitlines()]
    assert [(r["key"], r["status"], r["assessment"]) for r in rows] == [
        ("toy-1", "skipped", None),  # no Todo use in that turn
        ("toy-2", "verdict", "omission"),
    ]

    unknown = _jev(tmp_path, "audit", str(transcript), "--from", "toy2")
    assert unknown.returncode != 0 and "toy" in unknown.stderr  # listed among the choices

    save_settings(None, {"enabled": True})
    payload = {
        "hook_event_name": "Stop",
        "session_id": "toy-s1",
        "transcript_path": str(transcript),
    }
    hook = _jev(tmp_path, "hook", "toy", stdin=json.dumps(payload))
    assert hook.returncode == 0, hook.stderr
    answer = json.loads(hook.stdout)
    assert answer["decision"] == "block" and answer["reason"]  # the supplement, same turn
    with Store() as store:
        records = [r for r in store.list_records() if r.session == "toy-s1"]
    assert [(r.host, r.status, r.assessment) for r in records] == [("toy", "verdict", "omission")]


def test_the_toy_host_is_unknown_without_its_entry_point(tmp_path: Path) -> None:
    transcript = _toy_host(tmp_path)
    (tmp_path / "toyhost-1.0.dist-info" / "entry_points.txt").unlink()
    done = _jev(tmp_path, "audit", str(transcript), "--from", "toy")
    assert done.returncode != 0 and "invalid choice" in done.stderr
    hook = _jev(tmp_path, "hook", "toy", stdin="{}")
    assert hook.returncode == 0  # a hook always exits 0, even for an unknown host
    assert "unknown or missing hook name ['toy']" in hook.stderr
