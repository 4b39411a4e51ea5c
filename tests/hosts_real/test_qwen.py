"""Qwen Code 0.24.4, the real CLI (issue 19): ``qwen -p … --approval-mode yolo``
against the scripted chat-completions server (:mod:`tests.hosts_real.server_chat`,
``OPENAI_BASE_URL``/``OPENAI_API_KEY``/``OPENAI_MODEL``), with Jev installed the way
README says (``jev install qwen --enable``). That install writes
``tools.todoWrite.enabled: true``: without it Qwen 0.24.4 does not offer
``todo_write`` at all (asserted on the first request).

One session, resumed with ``qwen -c``; each prompt has its own budget:

* T1 repeats its report: exactly 3 blocks, each supplement in the next request;
* T2 fixes the open item after one block and ends complete;
* T3 uses no Todo list: silent, no record;
* T4 asks the user: not blocked; Qwen ``-p`` prints Jev's ``systemMessage`` on stderr;
* T5 with ``max_supplements = 1``: exactly 1 block;
* T6 with ``max_supplements = 8``: Qwen delivers 7 blocks per prompt, so Jev counts and
  sends 7, never an 8th it would not deliver; doctor warns about the cap.

Doctor tells the truth before and after (Todo switch, newest chat file readable, and
"cannot read the newest session" for a file this reader cannot read); uninstall takes
back the Todo switch Jev added.
"""

from __future__ import annotations

import json
import os
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
from tests.hosts_real.server_chat import MODEL, ChatServer, tool_names

_RUN_TIMEOUT_S = 60


def todos(*items: tuple[str, str]) -> list[Step]:
    """One ``todo_write`` call with the whole list."""
    return [
        Tool(
            "todo_write",
            {
                "todos": [
                    {"id": str(i), "content": c, "status": s}
                    for i, (c, s) in enumerate(items, start=1)
                ]
            },
        )
    ]


FORM, README = "Add the signup form", "Update the README signup section"
OPEN = todos((FORM, "completed"), (README, "pending"))
DONE = todos((FORM, "completed"), (README, "completed"))
ASKING = todos(("Measure the image layers", "completed"), ("Pick the base image", "pending"))


@dataclass
class Qwen:
    """The temp user with Jev installed and Qwen pointed at ``server``."""

    home: HostHome
    server: ChatServer
    program: Path

    def run(self, prompt: str, *, resume: bool = False) -> subprocess.CompletedProcess[str]:
        """``qwen [-c] -p PROMPT --approval-mode yolo`` in the project, stdin closed."""
        args = [str(self.program), *(["-c"] if resume else []), "-p", prompt]
        env = dict(
            self.home.env,
            OPENAI_BASE_URL=f"{self.server.base_url}/v1",
            OPENAI_API_KEY="scripted-key",
            OPENAI_MODEL=MODEL,
            QWEN_CODE_SUPPRESS_YOLO_WARNING="1",
        )
        proc = subprocess.run(
            [*args, "--approval-mode", "yolo"],
            cwd=self.home.project,
            env=env,
            capture_output=True,
            text=True,
            timeout=_RUN_TIMEOUT_S,
            stdin=subprocess.DEVNULL,
        )
        assert proc.returncode == 0, f"qwen exited {proc.returncode}: {proc.stderr[-2000:]}"
        return proc

    def records(self) -> list[dict[str, Any]]:
        """Jev's records, oldest first."""
        out = self.home.jev("records", "list", "--json", "--limit", "500").stdout
        return list(reversed(json.loads(out)))

    def chats(self) -> list[Path]:
        return sorted((self.home.home / ".qwen" / "projects").glob("*/chats/*.jsonl"))


def _user_uuids(chat: Path) -> list[str]:
    """The ``uuid`` of every typed prompt's record (Qwen writes no ``promptId``)."""
    out = []
    for line in chat.read_text().splitlines():
        rec = json.loads(line)
        if rec.get("type") == "user" and rec.get("subtype") is None:
            assert "promptId" not in rec
            out.append(rec["uuid"])
    return out


def test_budgets_fix_silent_needs_user_cap_resume_and_doctor(host_home: HostHome) -> None:
    script = Script(
        {
            "[T1]": Turn([OPEN], CLAIM, fixes=[([], CLAIM)]),
            "[T2]": Turn([OPEN], CLAIM, fixes=[([DONE], FIXED)]),
            "[T3]": Turn([], PLAIN),
            "[T4]": Turn([ASKING], ASK),
            "[T5]": Turn([OPEN], CLAIM, fixes=[([], CLAIM)]),
            "[T6]": Turn([OPEN], CLAIM, fixes=[([], CLAIM)]),
        }
    )
    with ChatServer(script) as server:
        installed = host_home.jev("install", "qwen", "--enable", "--judge", "rules").stdout
        settings_file = host_home.home / ".qwen" / "settings.json"
        assert json.loads(settings_file.read_text())["tools"]["todoWrite"]["enabled"] is True
        assert "todoWrite" in installed, installed
        qwen = Qwen(host_home, server, host_program("qwen"))
        doctor = host_home.jev("doctor", "--host", "qwen", "--json", check=False)
        (report,) = json.loads(doctor.stdout)["hosts"]
        assert report["todo_tools"] is True and report["problems"] == [], report
        assert report["block_cap"] == 7 and report["notice_channel"] is True

        first = qwen.run("[T1] Add the signup form and update the README signup section.")
        assert "todo_write" in tool_names(server.agent_calls()[0])
        seen = supplements_seen(server.agent_calls())
        assert len(seen) == 3 and all(CLAIM in s for s in seen)
        assert "round 1/3" in seen[0] and "round 3/3" in seen[2]
        t1 = qwen.records()
        assert [r["action"]["kind"] for r in t1] == ["supplement"] * 3 + ["exhausted"]
        (chat,) = qwen.chats()
        assert {r["turn"] for r in t1} == {_user_uuids(chat)[0]}  # the user record's uuid
        assert "supplement budget used up" in first.stderr  # -p prints systemMessage

        calls = len(server.agent_calls())
        qwen.run("[T2] Now add the signup form to the mobile layout too.", resume=True)
        (supplement,) = supplements_seen(server.agent_calls()[calls:])
        assert "round 1/3" in supplement  # the new turn's own budget
        t2 = qwen.records()[len(t1) :]
        assert [r["assessment"] for r in t2] == ["contradiction", "complete"]
        assert [r["material"]["final_answer"] for r in t2] == [CLAIM, FIXED]
        assert len({r["turn"] for r in t2}) == 1 and t2[0]["turn"] != t1[0]["turn"]
        assert {r["session"] for r in t1 + t2} == {t1[0]["session"]}
        assert qwen.chats() == [chat]  # resumed, not a new session

        calls, count = len(server.agent_calls()), len(qwen.records())
        plain = qwen.run("[T3] What does the README say?", resume=True)
        assert supplements_seen(server.agent_calls()[calls:]) == []
        assert len(qwen.records()) == count and "Jev" not in plain.stderr

        ask = qwen.run("[T4] Shrink the API Docker image.", resume=True)
        assert supplements_seen(server.agent_calls()[calls:]) == []
        last = qwen.records()[-1]
        assert last["assessment"] == "needs-user" and last["action"]["kind"] != "supplement"
        assert "needs-user" in ask.stderr, ask.stderr  # the notice reaches the user

        host_home.jev("settings", "set", "max_supplements", "1")
        calls, count = len(server.agent_calls()), len(qwen.records())
        qwen.run("[T5] Add the signup form and update the README signup section.", resume=True)
        (supplement,) = supplements_seen(server.agent_calls()[calls:])
        assert "round 1/1" in supplement
        assert [r["action"]["kind"] for r in qwen.records()[count:]] == ["supplement", "exhausted"]

        # above Qwen's cap: 7 blocks delivered and counted, never an 8th
        host_home.jev("settings", "set", "max_supplements", "8")
        calls, count = len(server.agent_calls()), len(qwen.records())
        qwen.run("[T6] Add the signup form and update the README signup section.", resume=True)
        seen = supplements_seen(server.agent_calls()[calls:])
        assert len(seen) == 7 and "round 7/7" in seen[-1], [s[:80] for s in seen]
        t6 = qwen.records()[count:]
        assert [r["action"]["kind"] for r in t6] == ["supplement"] * 7 + ["exhausted"]

        doctor = host_home.jev("doctor", "--host", "qwen", "--json", check=False)
        (report,) = json.loads(doctor.stdout)["hosts"]
        assert report["problems"] == [] and report["session_readable"] is True, report
        assert report["newest_session"] == str(chat)
        assert any("at most 7 blocks" in w for w in report["warnings"]), report

        # the newest chat file as a reader that lost the user records would see it
        newer = chat.with_name("ffffffff-unreadable.jsonl")
        newer.write_text(chat.read_text().replace('"type":"user"', '"type":"user_v9"'))
        os.utime(newer, (chat.stat().st_mtime + 5,) * 2)
        broken = host_home.jev("doctor", "--host", "qwen", check=False)
        assert broken.returncode != 0
        assert f"cannot read the newest session {newer}" in broken.stdout, broken.stdout

        host_home.jev("uninstall", "qwen")
        # a file Jev created holding only Jev's entries is deleted by uninstall
        left = json.loads(settings_file.read_text()) if settings_file.exists() else {}
        assert "todoWrite" not in json.dumps(left) and "jev" not in json.dumps(left), left
