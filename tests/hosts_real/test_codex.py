"""Codex CLI 0.169.0, the real CLI (issue 19): ``codex exec …`` against the scripted
Responses API (:mod:`tests.hosts_real.server_responses`), pointed at it by a
``model_providers`` entry in a temp ``$CODEX_HOME/config.toml``, with Jev installed the
way README says (``jev install codex --enable``, which also writes
``[tools.update_plan] enabled = true``: ``update_plan`` is off without it).

Two set-ups, the two ways Codex runs a hook:

* user scope, **trusted** the way the TUI's "Hooks need review" → "Trust all and
  continue" stores it (``[hooks.state."<hooks.json>:stop:0:0"] trusted_hash``; the hash
  is :func:`jev.hosts.codex.trust.hook_trust_hash`, equal to what the real TUI
  wrote); no bypass flag, so a wrong hash would leave the hook silent and fail the test;
* project scope, ``codex exec --trust --dangerously-bypass-hook-trust``.

The scripted agent (:class:`Script`) keeps a plan with ``update_plan``, stops with a
report and, when Jev's supplement comes back as the next user message (Codex's
``<hook_prompt …>``), either fixes the open item or repeats its report. Each prompt
starts with a marker (``[T1]`` …) so the agent finds the current turn in a resumed
session's request. ``codex exec`` prints no hook ``systemMessage`` (neither in text
nor with ``--json``; the TUI shows it): the needs-user notice has no channel in
``exec``, asserted below.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jev.hosts.codex.trust import hook_trust_hash
from tests.hosts_real.conftest import HostHome
from tests.hosts_real.npm_hosts import host_program
from tests.hosts_real.scripted import Logged, Step, Text, Tool
from tests.hosts_real.server_responses import ResponsesServer, provider_config, user_texts

#: How Jev's supplement starts inside Codex's ``<hook_prompt …>`` user message.
SUPPLEMENT = "[Jev completion audit"
_RUN_TIMEOUT_S = 60


@dataclass
class Turn:
    """One prompt's script: tool ``rounds`` then the final ``answer``; after the k-th
    supplement, ``fixes[k-1]`` (the last entry repeats): more rounds and a new answer."""

    rounds: list[Sequence[Step]]
    answer: str
    fixes: list[tuple[list[Sequence[Step]], str]] = field(default_factory=list)


def _items(request: Logged) -> list[dict[str, Any]]:
    return [i for i in request.body.get("input") or () if isinstance(i, dict)]


def _text(item: dict[str, Any]) -> str:
    content = item.get("content")
    if isinstance(content, str):
        return content
    return "".join(str(b.get("text", "")) for b in content or () if isinstance(b, dict))


class Script:
    """The agent: a function of the request (see the module docstring)."""

    def __init__(self, turns: dict[str, Turn]) -> None:
        self.turns = turns

    def __call__(self, request: Logged) -> list[Step]:
        items = _items(request)
        anchor, marker = -1, ""
        for i, item in enumerate(items):
            if item.get("role") == "user":
                for key in self.turns:
                    if _text(item).startswith(key):
                        anchor, marker = i, key
        if not marker:
            return [Text("Nothing to do.")]
        turn = self.turns[marker]
        rounds, answer = turn.rounds, turn.answer
        phase = since = 0
        for item in items[anchor + 1 :]:
            if item.get("type") == "function_call" or item.get("role") == "assistant":
                since += 1
            elif item.get("role") == "user" and SUPPLEMENT in _text(item):
                phase, since = phase + 1, 0
        if phase and turn.fixes:
            rounds, answer = turn.fixes[min(phase, len(turn.fixes)) - 1]
        sequence: list[Sequence[Step]] = [*rounds, [Text(answer)]]
        return list(sequence[min(since, len(sequence) - 1)])


def plan(*items: tuple[str, str]) -> list[Step]:
    """One ``update_plan`` call with the whole plan."""
    return [Tool("update_plan", {"plan": [{"step": s, "status": st} for s, st in items]})]


OPEN = plan(("Add the signup form", "completed"), ("Update the README signup section", "pending"))
DONE = plan(("Add the signup form", "completed"), ("Update the README signup section", "completed"))
CLAIM = "All done: the signup form is finished."
FIXED = (
    "Added the signup form in src/signup.ts and the Signup section in README.md; "
    "npm test signup: 4 passed."
)
ASK = (
    "The migration is prepared. Should I run it on production now, "
    "or do you want to review it first?"
)


@dataclass
class Codex:
    """The temp user with Jev installed and Codex pointed at ``server``."""

    home: HostHome
    server: ResponsesServer
    program: Path

    @property
    def codex_home(self) -> Path:
        return Path(self.home.env["CODEX_HOME"])

    def run(
        self, prompt: str, *flags: str, resume: str | None = None
    ) -> subprocess.CompletedProcess[str]:
        """``codex exec FLAGS… PROMPT`` (``exec resume FLAGS… SESSION PROMPT`` with
        ``resume``) in the project folder, stdin closed."""
        args = [str(self.program), "exec"]
        args += ["resume", *flags, resume, prompt] if resume else [*flags, prompt]
        proc = subprocess.run(
            args,
            cwd=self.home.project,
            env=dict(self.home.env, OPENAI_API_KEY="scripted-key"),
            capture_output=True,
            text=True,
            timeout=_RUN_TIMEOUT_S,
            stdin=subprocess.DEVNULL,
        )
        assert proc.returncode == 0, f"codex exited {proc.returncode}: {proc.stderr[-2000:]}"
        return proc

    def records(self) -> list[dict[str, Any]]:
        """Jev's records, oldest first."""
        out = self.home.jev("records", "list", "--json", "--limit", "500").stdout
        return list(reversed(json.loads(out)))

    def supplements_seen(self, since: int = 0) -> list[str]:
        """Jev's supplements that reached the model: the last user message of each agent
        request after request ``since`` that carries one."""
        seen = []
        for request in self.server.agent_calls()[since:]:
            texts = user_texts(request)
            if texts and SUPPLEMENT in texts[-1] and not _ends_with_output(request):
                seen.append(texts[-1])
        return seen

    def rollouts(self) -> list[Path]:
        return sorted((self.codex_home / "sessions").rglob("rollout-*.jsonl"))

    def trust_hook(self, hooks_json: Path) -> None:
        """Write the trust entry the TUI writes on "Trust all and continue"."""
        handler = json.loads(hooks_json.read_text())["hooks"]["Stop"][0]["hooks"][0]
        config = self.codex_home / "config.toml"
        config.write_text(
            config.read_text()
            + f'\n[hooks.state."{hooks_json}:stop:0:0"]\n'
            + f'trusted_hash = "{hook_trust_hash(handler)}"\n'
        )


def _ends_with_output(request: Logged) -> bool:
    items = _items(request)
    return bool(items) and items[-1].get("type") == "function_call_output"


def _codex(host_home: HostHome, server: ResponsesServer, *install: str) -> tuple[Codex, str]:
    """A temp ``CODEX_HOME`` whose ``config.toml`` names the scripted provider, then
    ``jev install codex --enable INSTALL…``; the Codex handle and the install output."""
    program = host_program("codex")
    codex_home = host_home.home / ".codex"
    codex_home.mkdir()
    host_home.env["CODEX_HOME"] = str(codex_home)
    (codex_home / "config.toml").write_text(provider_config(server.base_url))
    out = host_home.jev("install", "codex", "--enable", "--judge", "rules", *install).stdout
    folder = host_home.project / ".codex" if "project" in install else codex_home
    assert "update_plan" in (folder / "config.toml").read_text()
    return Codex(host_home, server, program), out


def _session_id(proc: subprocess.CompletedProcess[str]) -> str:
    for line in proc.stderr.splitlines():
        if line.startswith("session id: "):
            return line.removeprefix("session id: ").strip()
    raise AssertionError(f"no session id in codex's output: {proc.stderr[-1500:]}")


def test_trusted_user_hook_budget_fix_silent_needs_user_resume_and_doctor(
    host_home: HostHome,
) -> None:
    """User scope, trusted like the TUI does it: doctor says "untrusted" before the trust
    entry and nothing else after; a repeated report gets exactly 3 blocks and each
    supplement reaches the model; in the resumed session the next turn has its own budget
    and is fixed after one block (complete); a turn without ``update_plan`` is silent; a
    needs-user turn is not blocked (and ``exec`` shows no notice); doctor reads the newest
    rollout, and says "cannot read the newest rollout" for one this reader cannot read."""
    script = Script(
        {
            "[T0]": Turn([OPEN], CLAIM),
            "[T1]": Turn([OPEN], CLAIM, fixes=[([], CLAIM)]),
            "[T2]": Turn([OPEN], CLAIM, fixes=[([DONE], FIXED)]),
            "[T3]": Turn([], "The README has one heading, 'Signup'."),
            "[T4]": Turn(
                [
                    plan(
                        ("Prepare the migration", "completed"),
                        ("Run the migration on production", "pending"),
                    )
                ],
                ASK,
            ),
        }
    )
    with ResponsesServer(script) as server:
        codex, installed = _codex(host_home, server)
        assert "Hooks need review" in installed and "--dangerously-bypass-hook-trust" in installed
        hooks_json = codex.codex_home / "hooks.json"
        before = host_home.jev("doctor", "--host", "codex", check=False)
        assert before.returncode != 0 and "is untrusted" in before.stdout, before.stdout

        # untrusted: `codex exec` skips the hook without a word, open plan or not
        untrusted = codex.run("[T0] Add the signup form and update the README signup section.")
        assert codex.records() == [] and codex.supplements_seen() == []
        assert "hook: Stop" not in untrusted.stderr

        codex.trust_hook(hooks_json)
        doctor = host_home.jev("doctor", "--host", "codex", "--json", check=False)
        (report,) = json.loads(doctor.stdout)["hosts"]
        assert report["problems"] == [] and report["session_readable"] is True, report
        assert any("`codex exec` shows none of Jev's notices" in w for w in report["warnings"])
        assert report["newest_session"] == str(codex.rollouts()[-1])

        first = codex.run("[T1] Add the signup form and update the README signup section.")
        session = _session_id(first)
        seen = codex.supplements_seen()
        assert len(seen) == 3 and all(CLAIM in s for s in seen)
        assert "round 1/3" in seen[0] and "round 3/3" in seen[2]
        t1 = codex.records()
        assert [r["action"]["kind"] for r in t1] == ["supplement"] * 3 + ["exhausted"]
        assert len({r["turn"] for r in t1}) == 1
        assert "supplement budget used up" not in first.stdout + first.stderr  # no channel

        calls = len(server.agent_calls())
        codex.run("[T2] Now add the signup form to the mobile layout too.", resume=session)
        (supplement,) = codex.supplements_seen(calls)
        assert "round 1/3" in supplement  # the new turn's own budget
        t2 = codex.records()[len(t1) :]
        assert [r["assessment"] for r in t2] == ["contradiction", "complete"]
        assert t2[-1]["action"]["kind"] != "supplement"
        assert len({r["turn"] for r in t2}) == 1 and t2[0]["turn"] != t1[0]["turn"]
        assert {r["session"] for r in t1 + t2} == {t1[0]["session"]}

        calls, count = len(server.agent_calls()), len(codex.records())
        codex.run("[T3] What does the README say?", resume=session)
        assert codex.supplements_seen(calls) == [] and len(codex.records()) == count

        ask = codex.run("[T4] Prepare the database migration.", resume=session)
        assert codex.supplements_seen(calls) == []
        last = codex.records()[-1]
        assert last["assessment"] == "needs-user" and last["action"]["kind"] != "supplement"
        assert "needs-user" not in ask.stdout + ask.stderr  # exec shows no systemMessage

        # `jev audit` reads the rollout Codex wrote, each turn as the hook judged it
        rollout = max(codex.rollouts(), key=lambda p: p.stat().st_mtime)
        assert len(codex.rollouts()) == 2  # the untrusted run, and the resumed session
        audit = host_home.jev("audit", "--turn", "1", "--no-record", str(rollout), check=False)
        assert "turn 1: contradiction" in audit.stdout, audit.stdout + audit.stderr
        assert "Update the README signup section" in audit.stdout
        audit = host_home.jev("audit", "--no-record", str(rollout), check=False)
        assert "turn 4: needs-user" in audit.stdout, audit.stdout + audit.stderr

        # the newest rollout as the reader before the 0.169 fix saw it: no request anywhere
        newer = rollout.with_name("rollout-2099-01-01T00-00-00-unreadable.jsonl")
        newer.write_text(rollout.read_text().replace('"UserMessage"', '"UserMessageV9"'))
        os.utime(newer, (rollout.stat().st_mtime + 5,) * 2)
        broken = host_home.jev("doctor", "--host", "codex", check=False)
        assert broken.returncode != 0
        assert f"cannot read the newest rollout {newer}" in broken.stdout, broken.stdout


def test_project_scope_bypass_flag_budget_one(host_home: HostHome) -> None:
    """Project scope: the install says the project must be trusted, doctor says so and
    that the hook is untrusted; ``codex exec --trust --dangerously-bypass-hook-trust``
    runs it, and with ``max_supplements = 1`` a repeated report gets exactly 1 block."""
    script = Script({"[T1]": Turn([OPEN], CLAIM, fixes=[([], CLAIM)])})
    with ResponsesServer(script) as server:
        codex, installed = _codex(host_home, server, "--scope", "project")
        assert "codex exec --trust" in installed
        doctor = host_home.jev("doctor", "--host", "codex", check=False)
        assert "is untrusted" in doctor.stdout and "is not trusted" in doctor.stdout
        host_home.jev("settings", "set", "max_supplements", "1")
        codex.run(
            "[T1] Add the signup form and update the README signup section.",
            "--trust",
            "--dangerously-bypass-hook-trust",
        )
        (supplement,) = codex.supplements_seen()
        assert "round 1/1" in supplement
        assert [r["action"]["kind"] for r in codex.records()] == ["supplement", "exhausted"]
        after = host_home.jev("doctor", "--host", "codex", check=False)
        assert "is not trusted" not in after.stdout and "is untrusted" in after.stdout
