"""GitHub Copilot CLI 1.0.102, the real CLI (issue 19): ``copilot -p … --allow-all-tools``
offline (``COPILOT_OFFLINE=true``) against the scripted chat-completions server
(:mod:`tests.hosts_real.server_chat`, ``COPILOT_PROVIDER_BASE_URL`` + ``COPILOT_MODEL``),
with Jev installed the way README says (``jev install copilot --enable``: user scope,
``~/.copilot/hooks/jev.json``, which Copilot always loads).

The Todo list is Copilot's session SQL table, written with its ``sql`` tool; each
turn's first write starts a new list (``DELETE FROM todos``), as the table outlives
the prompt. One session, resumed with ``--continue``; each prompt has its own budget:

* T1 fixes the open item after one block and ends complete — the fixed answer is the
  one judged (Jev waits for ``events.jsonl`` to log the stop and never judges the
  previous round's answer);
* T2 repeats its report: exactly 3 blocks, each supplement in the next request;
* T3 uses no Todo list: silent, no record;
* T4 asks the user: not blocked; Copilot shows no hook output at all, so the notice is
  not on the terminal, and ``jev report`` counts it (doctor and the install output name
  the missing channel);
* T5 with ``max_supplements = 1``: exactly 1 block.

A second test: the project scope loads only in a trusted folder (``--trust-folder``).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.hosts_real.chat_script import (
    ASK,
    CLAIM,
    FIXED,
    PLAIN,
    Script,
    Turn,
    supplements_seen,
)
from tests.hosts_real.conftest import HostHome
from tests.hosts_real.npm_hosts import host_program
from tests.hosts_real.scripted import Step, Tool
from tests.hosts_real.server_chat import MODEL, ChatServer

_RUN_TIMEOUT_S = 60
FORM, README = "Add the signup form", "Update the README signup section"


def sql(query: str) -> list[Step]:
    """One call of Copilot's ``sql`` tool on the session database."""
    return [Tool("sql", {"description": "Track todos", "query": query})]


def new_list(*items: tuple[str, str, str]) -> list[Step]:
    """A new Todo list: ``(id, title, status)`` rows (``done``/``pending``)."""
    rows = ", ".join(f"('{i}', '{t}', '{s}')" for i, t, s in items)
    return sql(f"DELETE FROM todos; INSERT INTO todos (id, title, status) VALUES {rows};")


OPEN = new_list(("form", FORM, "done"), ("readme", README, "pending"))
DONE = sql("UPDATE todos SET status = 'done' WHERE id = 'readme';")
ASKING = new_list(
    ("layers", "Measure the image layers", "done"), ("base", "Pick the base", "pending")
)


@dataclass
class Copilot:
    """The temp user with Jev installed and Copilot pointed at ``server``."""

    home: HostHome
    server: ChatServer
    program: Path

    def run(
        self, prompt: str, *flags: str, resume: bool = False
    ) -> subprocess.CompletedProcess[str]:
        """``copilot [--continue] -p PROMPT --allow-all-tools FLAGS…`` in the project."""
        args = [str(self.program), *(["--continue"] if resume else []), "-p", prompt]
        env = dict(
            self.home.env,
            COPILOT_OFFLINE="true",
            COPILOT_PROVIDER_BASE_URL=f"{self.server.base_url}/v1",
            COPILOT_PROVIDER_API_KEY="scripted-key",
            COPILOT_MODEL=MODEL,
        )
        proc = subprocess.run(
            [*args, "--allow-all-tools", "--no-auto-update", *flags],
            cwd=self.home.project,
            env=env,
            capture_output=True,
            text=True,
            timeout=_RUN_TIMEOUT_S,
            stdin=subprocess.DEVNULL,
        )
        assert proc.returncode == 0, f"copilot exited {proc.returncode}: {proc.stderr[-2000:]}"
        return proc

    def records(self) -> list[dict[str, Any]]:
        """Jev's records, oldest first."""
        out = self.home.jev("records", "list", "--json", "--limit", "500").stdout
        return list(reversed(json.loads(out)))

    def sessions(self) -> list[Path]:
        return sorted((self.home.home / ".copilot" / "session-state").glob("*/events.jsonl"))


def _session_id(proc: subprocess.CompletedProcess[str]) -> str:
    found = re.search(r"--resume=([0-9a-f-]{36})", proc.stdout + proc.stderr)
    assert found, f"no session id in copilot's output: {proc.stderr[-1500:]}"
    return found.group(1)


def test_budgets_fix_silent_needs_user_resume_report_and_doctor(host_home: HostHome) -> None:
    script = Script(
        {
            "[T1]": Turn([OPEN], CLAIM, fixes=[([DONE], FIXED)]),
            "[T2]": Turn([OPEN], CLAIM, fixes=[([], CLAIM)]),
            "[T3]": Turn([], PLAIN),
            "[T4]": Turn([ASKING], ASK),
            "[T5]": Turn([OPEN], CLAIM, fixes=[([], CLAIM)]),
        }
    )
    with ChatServer(script) as server:
        installed = host_home.jev("install", "copilot", "--enable", "--judge", "rules").stdout
        hook_file = host_home.home / ".copilot" / "hooks" / "jev.json"
        assert str(hook_file) in installed and hook_file.is_file()  # user scope, the default
        assert "trusted" in installed and "jev report" in installed, installed
        doctor = host_home.jev("doctor", "--host", "copilot", "--json", check=False)
        (report,) = json.loads(doctor.stdout)["hosts"]
        assert report["problems"] == [] and report["notice_channel"] is False, report
        assert any("shows none of Jev's notices" in w for w in report["warnings"]), report
        copilot = Copilot(host_home, server, host_program("copilot"))

        first = copilot.run("[T1] Add the signup form and update the README signup section.")
        session = _session_id(first)
        (supplement,) = supplements_seen(server.agent_calls())
        assert "round 1/3" in supplement and CLAIM in supplement
        t1 = copilot.records()
        assert [r["assessment"] for r in t1] == ["contradiction", "complete"], t1
        assert [r["material"]["final_answer"] for r in t1] == [CLAIM, FIXED]  # never stale
        assert [t["status"] for t in t1[-1]["material"]["todos"]] == ["completed"] * 2
        assert t1[0]["session"] == session and len({r["turn"] for r in t1}) == 1

        calls = len(server.agent_calls())
        copilot.run("[T2] Add the signup form and update the README signup section.", resume=True)
        seen = supplements_seen(server.agent_calls()[calls:])
        assert len(seen) == 3 and "round 1/3" in seen[0] and "round 3/3" in seen[2]
        t2 = copilot.records()[len(t1) :]
        assert [r["action"]["kind"] for r in t2] == ["supplement"] * 3 + ["exhausted"]
        assert len({r["turn"] for r in t2}) == 1 and t2[0]["turn"] != t1[0]["turn"]
        assert {r["session"] for r in t1 + t2} == {session}
        assert len(copilot.sessions()) == 1  # resumed, not a new session

        calls, count = len(server.agent_calls()), len(copilot.records())
        plain = copilot.run("[T3] What does the README say?", resume=True)
        assert supplements_seen(server.agent_calls()[calls:]) == []
        assert len(copilot.records()) == count and "Jev" not in plain.stdout + plain.stderr

        ask = copilot.run("[T4] Shrink the API Docker image.", resume=True)
        assert supplements_seen(server.agent_calls()[calls:]) == []
        last = copilot.records()[-1]
        assert last["assessment"] == "needs-user" and last["action"]["kind"] != "supplement"
        assert "needs-user" not in ask.stdout + ask.stderr  # Copilot shows no hook output
        summary = json.loads(host_home.jev("report", "--json").stdout)
        assert summary["total"]["needs_user"] == 1, summary  # where the user does look

        host_home.jev("settings", "set", "max_supplements", "1")
        calls, count = len(server.agent_calls()), len(copilot.records())
        copilot.run("[T5] Add the signup form and update the README signup section.", resume=True)
        (supplement,) = supplements_seen(server.agent_calls()[calls:])
        assert "round 1/1" in supplement
        kinds = [r["action"]["kind"] for r in copilot.records()[count:]]
        assert kinds == ["supplement", "exhausted"]

        (events,) = copilot.sessions()
        doctor = host_home.jev("doctor", "--host", "copilot", "--json", check=False)
        (report,) = json.loads(doctor.stdout)["hosts"]
        assert report["problems"] == [] and report["session_readable"] is True, report
        assert report["newest_session"] == str(events)

        # the newest session as a reader that lost the user messages would see it
        newer = events.parent.parent / "ffffffff-unreadable" / "events.jsonl"
        newer.parent.mkdir()
        newer.write_text(events.read_text().replace('"user.message"', '"user.message_v9"'))
        os.utime(newer, (events.stat().st_mtime + 5,) * 2)
        broken = host_home.jev("doctor", "--host", "copilot", check=False)
        assert broken.returncode != 0
        assert f"cannot read the newest session {newer}" in broken.stdout, broken.stdout


def test_project_scope_loads_only_in_a_trusted_folder(host_home: HostHome) -> None:
    """``--scope project``: Copilot skips ``.github/hooks/jev.json`` silently in an
    untrusted folder; with ``--trust-folder`` it runs it (1 block with max 1). Doctor
    warns about the trust without failing."""
    script = Script({"[T1]": Turn([OPEN], CLAIM, fixes=[([], CLAIM)])})
    with ChatServer(script) as server:
        installed = host_home.jev(
            "install", "copilot", "--enable", "--judge", "rules", "--scope", "project"
        ).stdout
        assert (host_home.project / ".github" / "hooks" / "jev.json").is_file()
        assert "--trust-folder" in installed
        doctor = host_home.jev("doctor", "--host", "copilot", "--json", check=False)
        (report,) = json.loads(doctor.stdout)["hosts"]
        assert report["problems"] == [] and any("trusts" in w for w in report["warnings"])
        host_home.jev("settings", "set", "max_supplements", "1")
        copilot = Copilot(host_home, server, host_program("copilot"))
        prompt = "[T1] Add the signup form and update the README signup section."
        copilot.run(prompt)
        assert copilot.records() == [] and supplements_seen(server.agent_calls()) == []
        copilot.run(prompt, "--trust-folder")
        (supplement,) = supplements_seen(server.agent_calls())
        assert "round 1/1" in supplement
        assert [r["action"]["kind"] for r in copilot.records()] == ["supplement", "exhausted"]
