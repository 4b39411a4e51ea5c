"""Host judges through the real host CLIs (issue 20 item 4 and its "done when" lines).

Each host's real CLI (the pinned npm version) runs as Jev's judge against that host's
scripted model server on 127.0.0.1: ``jev audit TURN --judge <host>`` makes exactly one
judge call through the CLI, returns the model's verdict (exit 4 for an omission), writes
one record and no nested audit, even with Jev's own hook installed in the same HOME;
a garbage reply is a failed call (exit 3), a hung CLI is killed at the deadline, a
missing CLI is a clear notice. What reached the model is read from the server's log:
the judge request carries Jev's judge rules and offers no tools where the CLI allows.
"""

from __future__ import annotations

import json
import os
import stat
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FIXTURES
from tests.hosts_real.conftest import HostHome
from tests.hosts_real.npm_hosts import host_program
from tests.hosts_real.scripted import Logged, ScriptedServer, Step, Text, Tool
from tests.hosts_real.server_anthropic import AnthropicServer
from tests.hosts_real.server_chat import ChatServer
from tests.hosts_real.server_gemini import GeminiServer
from tests.hosts_real.server_responses import ResponsesServer, provider_config

TURN = FIXTURES / "cases" / "omission-no-tests-en-08.json"
RULES = "You audit a coding agent"
VERDICT = {"assessment": "omission", "focus": "R1", "confidence": 0.9}


def judge_calls(server: ScriptedServer) -> list[Logged]:
    """The requests that carry Jev's judge rules (the host's side calls do not)."""
    return [r for r in server.requests if RULES in r.raw]


class JudgeChat(ChatServer):
    """The chat-completions server, answering a judge call even when it offers no tools
    (Copilot with ``--available-tools=none``)."""

    def is_agent_call(self, logged: Logged) -> bool:
        return RULES in logged.raw or super().is_agent_call(logged)


def _reply(garbage: bool) -> Callable[[Logged], list[Step]]:
    def agent(request: Logged) -> list[Step]:
        if garbage:
            return [Text("Looks fine to me overall, nothing to add.")]
        tools = [t.get("name") for t in (request.body or {}).get("tools") or []]
        if "StructuredOutput" in tools:  # claude -p --json-schema
            return [Tool("StructuredOutput", VERDICT)]
        return [Text(json.dumps(VERDICT))]

    return agent


@contextmanager
def host_judge(host: str, home: HostHome, *, garbage: bool = False) -> Iterator[ScriptedServer]:
    """The host's scripted server, and ``home.env`` pointing that host's CLI at it."""
    program = host_program(host)
    agent = _reply(garbage)
    server: ScriptedServer
    env: dict[str, str] = {"PATH": f"{program.parent}{os.pathsep}{home.env['PATH']}"}
    if host == "claude-code":
        server = AnthropicServer(agent)
    elif host == "codex":
        server = ResponsesServer(agent)
    elif host == "gemini":
        server = GeminiServer(agent)
    else:
        server = JudgeChat(agent)
    with server:
        if host == "claude-code":
            env.update(
                ANTHROPIC_BASE_URL=server.base_url,
                ANTHROPIC_API_KEY="sk-ant-scripted",
                CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
                DISABLE_AUTOUPDATER="1",
            )
        elif host == "codex":
            codex_home = home.home / ".codex"
            codex_home.mkdir(exist_ok=True)
            config = codex_home / "config.toml"
            old = config.read_text() if config.exists() else ""
            config.write_text(provider_config(server.base_url) + "\n" + old)
            env.update(CODEX_HOME=str(codex_home), OPENAI_API_KEY="sk-scripted")
        elif host == "gemini":
            folder = home.home / ".gemini"
            folder.mkdir(exist_ok=True)
            settings_path = folder / "settings.json"
            data = json.loads(settings_path.read_text()) if settings_path.exists() else {}
            data.setdefault("security", {})["auth"] = {"selectedType": "gemini-api-key"}
            data["model"] = {"name": "gemini-2.5-pro"}
            settings_path.write_text(json.dumps(data))
            env.update(
                GOOGLE_GEMINI_BASE_URL=server.base_url,
                GEMINI_API_KEY="scripted-key",
                GEMINI_CLI_TRUST_WORKSPACE="true",
            )
        elif host == "qwen":
            env.update(
                OPENAI_BASE_URL=server.base_url + "/v1",
                OPENAI_API_KEY="sk-scripted",
                OPENAI_MODEL="scripted-model",
            )
        else:
            env.update(
                COPILOT_OFFLINE="true",
                COPILOT_PROVIDER_BASE_URL=server.base_url + "/v1",
                COPILOT_PROVIDER_API_KEY="sk-scripted",
                COPILOT_MODEL="scripted-model",
            )
        home.env.update(env)
        yield server


def _records(home: HostHome) -> list[dict[str, Any]]:
    proc = home.jev("records", "list", "--json", check=False)
    text = proc.stdout.strip()
    if not text:
        return []
    value = json.loads(text)
    return value if isinstance(value, list) else value.get("records", [])


@pytest.mark.parametrize("host", ["claude-code", "codex"])
def test_one_call_the_models_verdict_no_nested_audit(host: str, host_home: HostHome) -> None:
    """Done when: exactly one judge call through the CLI, the model's verdict (exit 4),
    no nested audit record although Jev's own hook is installed in the same HOME."""
    with host_judge(host, host_home) as server:
        host_home.jev("install", host, "--enable", "--judge", "rules")
        proc = host_home.jev("audit", str(TURN), "--judge", host, "--json", check=False)
        assert proc.returncode == 4, proc.stdout + proc.stderr
        out = json.loads(proc.stdout)
        assert out["assessment"] == "omission" and out["focus"]["id"] == "R1"
        assert out["judge"]["provider"] == host
        calls = judge_calls(server)
        assert len(calls) == 1, [c.path for c in server.requests]
        if host == "claude-code":  # the schema's tool only: no Bash, no Read, …
            tools = {t.get("name") for t in calls[0].body.get("tools") or []}
            assert "StructuredOutput" in tools and not tools & {"Bash", "Read", "Edit", "Write"}
    records = _records(host_home)
    assert len(records) == 1, records  # the audit's own; the judge's session audited nothing


@pytest.mark.parametrize("host", ["claude-code", "codex"])
def test_a_garbage_reply_is_a_failed_call_not_a_verdict(host: str, host_home: HostHome) -> None:
    with host_judge(host, host_home, garbage=True) as server:
        host_home.jev("settings", "set", "judge.technical_retries", "1")
        proc = host_home.jev("audit", str(TURN), "--judge", host, check=False)
        assert proc.returncode == 3, proc.stdout + proc.stderr
        assert len(judge_calls(server)) >= 2  # the technical retry went out too


@pytest.mark.parametrize("host", ["gemini", "qwen", "copilot"])
def test_the_other_host_judges_answer_through_their_cli(host: str, host_home: HostHome) -> None:
    with host_judge(host, host_home) as server:
        host_home.jev("settings", "set", "judge.timeout_s", "120")
        proc = host_home.jev("audit", str(TURN), "--judge", host, "--json", check=False)
        assert proc.returncode == 4, proc.stdout + proc.stderr
        assert json.loads(proc.stdout)["focus"]["id"] == "R1"
        (call,) = judge_calls(server)
        assert "validate against this JSON schema" in call.raw  # the schema is in the prompt
        if host == "copilot":
            assert not (call.body or {}).get("tools")  # --available-tools=none


def _fake_cli(home: HostHome, name: str, script: str) -> None:
    folder = home.home / "fakebin"
    folder.mkdir(exist_ok=True)
    path = folder / name
    path.write_text(f"#!/bin/sh\n{script}\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    home.env["PATH"] = f"{folder}{os.pathsep}{home.env['PATH']}"


def test_a_hung_cli_is_killed_at_the_deadline(host_home: HostHome) -> None:
    _fake_cli(host_home, "claude", "sleep 60 & sleep 60")
    host_home.jev("settings", "set", "judge.timeout_s", "2")
    started = time.monotonic()
    proc = host_home.jev("audit", str(TURN), "--judge", "claude-code", check=False)
    elapsed = time.monotonic() - started
    assert proc.returncode == 3 and "did not answer within 2 s" in proc.stdout + proc.stderr
    assert elapsed < 12, elapsed  # 2 s deadline, no retry after a timeout, plus start-up


def test_a_missing_cli_names_the_fix(host_home: HostHome) -> None:
    host_home.env["PATH"] = str(Path(host_home.env["PATH"].split(os.pathsep)[0]))  # jev only
    proc = host_home.jev("audit", str(TURN), "--judge", "codex", check=False)
    text = proc.stdout + proc.stderr
    assert proc.returncode == 3, text
    assert "codex program, which is not on PATH" in text and "npm install -g @openai/codex" in text


def test_doctor_names_the_host_judge_its_cli_and_login_and_tries_it(host_home: HostHome) -> None:
    """Issue 20 item 1: `jev doctor` says which judge, whether its CLI is on PATH and
    logged in (the CLI's free check), and `--try-judge` makes one real call."""
    with host_judge("claude-code", host_home) as server:
        host_home.jev("install", "claude-code", "--enable", "--judge", "claude-code")
        proc = host_home.jev("doctor", "--host", "claude-code", check=False)
        line = next(x for x in proc.stdout.splitlines() if x.startswith("judge:"))
        assert "claude-code" in line and "logged in (api_key)" in line, proc.stdout
        assert not judge_calls(server)  # the check is free
        proc = host_home.jev("doctor", "--host", "claude-code", "--try-judge", check=False)
        assert "try-judge: claude-code answered omission (R1)" in proc.stdout, proc.stdout
        assert len(judge_calls(server)) == 1
    host_home.env["PATH"] = str(Path(host_home.env["PATH"].split(os.pathsep)[-1]))
    host_home.env["PATH"] = f"{Path(host_home.env['PATH'])}{os.pathsep}/usr/bin{os.pathsep}/bin"
    proc = host_home.jev("doctor", "--host", "claude-code", check=False)
    assert "runs the claude program, which is not on PATH" in proc.stdout, proc.stdout


def test_eval_measures_a_host_judge_on_a_builtin_set(host_home: HostHome) -> None:
    """Issue 20 item 4: `jev eval --builtin --judge <host>` works, one CLI call per turn,
    and its result file compares with the rules judge's (`--compare`)."""
    with host_judge("codex", host_home) as server:
        out = host_home.home / "codex.json"
        proc = host_home.jev(
            "eval",
            "--builtin",
            "--set",
            "issue12",
            "--judge",
            "codex",
            "--json",
            str(out),
            check=False,
            timeout=300,
        )
        assert proc.returncode == 0, proc.stdout + proc.stderr
        cases = json.loads(out.read_text())["figures"]
        assert len(judge_calls(server)) >= 7 and cases
    rules = host_home.home / "rules.json"
    host_home.jev("eval", "--builtin", "--set", "issue12", "--judge", "rules", "--json", str(rules))
    table = host_home.jev("eval", "--compare", str(rules), str(out)).stdout
    assert "rules.json" in table and "codex.json" in table and "exact verdict" in table
