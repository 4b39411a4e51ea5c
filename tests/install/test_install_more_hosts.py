"""``jev install|uninstall gemini|cursor|copilot|qwen|droid`` and ``jev doctor`` for them
(issue 9). Real files under a temp HOME; each written file is checked against a JSON
schema of the host's *documented* hook-file shape (sources in each schema's comment).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from jev.cli import main
from jev.hosts import install
from jev.settings.profiles import load_settings, save_settings

_COMMAND_HANDLER = {
    "type": "object",
    "required": ["type", "command", "timeout"],
    "properties": {
        "type": {"const": "command"},
        "command": {"type": "string", "pattern": "hook"},
        "timeout": {"type": "integer", "minimum": 1},
        "name": {"type": "string"},
        "description": {"type": "string"},
    },
}


def _grouped(events: list[str], handler: dict[str, Any]) -> dict[str, Any]:
    group = {
        "type": "object",
        "required": ["hooks"],
        "properties": {
            "matcher": {"type": "string"},
            "sequential": {"type": "boolean"},
            "hooks": {"type": "array", "items": handler, "minItems": 1},
        },
    }
    return {
        "type": "object",
        "required": ["hooks"],
        "properties": {
            "hooks": {
                "type": "object",
                "required": events,
                "additionalProperties": {"type": "array", "items": group},
            }
        },
    }


SCHEMAS: dict[str, dict[str, Any]] = {
    # gemini-cli docs/hooks/reference.md "Configuration schema": hooks.{Event}[{matcher?,
    # sequential?, hooks:[{type:"command", command, name?, timeout (ms), description?}]}];
    # settingsSchema.ts experimental.taskTracker (boolean).
    "gemini": {
        **_grouped(["AfterAgent", "SessionStart"], _COMMAND_HANDLER),
        "properties": {
            **_grouped(["AfterAgent", "SessionStart"], _COMMAND_HANDLER)["properties"],
            "experimental": {
                "type": "object",
                "properties": {"taskTracker": {"type": "boolean"}},
            },
        },
    },
    # Cursor hooks docs (hosts.md (Cursor)): {version: 1, hooks: {stop: [{command, type?,
    # timeout (s), loop_limit (n|null), failClosed?, matcher?}]}}.
    "cursor": {
        "type": "object",
        "required": ["version", "hooks"],
        "properties": {
            "version": {"const": 1},
            "hooks": {
                "type": "object",
                "required": ["stop"],
                "additionalProperties": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": ["command"],
                        "properties": {
                            "command": {"type": "string"},
                            "type": {"enum": ["command", "prompt"]},
                            "timeout": {"type": "integer", "minimum": 1},
                            "loop_limit": {"type": ["integer", "null"], "minimum": 1},
                            "failClosed": {"type": "boolean"},
                        },
                        "additionalProperties": False,
                    },
                },
            },
        },
    },
    # docs.github.com copilot-cli hooks reference: {version: 1, hooks: {agentStop: [{type:
    # "command", bash, powershell, cwd?, env?, timeoutSec}]}}.
    "copilot": {
        "type": "object",
        "required": ["version", "hooks"],
        "properties": {
            "version": {"const": 1},
            "hooks": {
                "type": "object",
                "required": ["agentStop"],
                "additionalProperties": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": ["type", "bash", "powershell"],
                        "properties": {
                            "type": {"const": "command"},
                            "bash": {"type": "string"},
                            "powershell": {"type": "string", "pattern": "^& "},
                            "cwd": {"type": "string"},
                            "env": {"type": "object"},
                            "timeoutSec": {"type": "integer", "minimum": 1},
                        },
                        "additionalProperties": False,
                    },
                },
            },
        },
    },
    # QwenLM/qwen-code docs/users/features/hooks.md: Claude-style, command timeout in ms.
    "qwen": _grouped(["Stop"], _COMMAND_HANDLER),
    # docs.factory.ai hooks reference: Claude-style, timeout in seconds.
    "droid": _grouped(["Stop"], _COMMAND_HANDLER),
}

FILES = {
    "gemini": ("user", ".gemini/settings.json"),
    "cursor": ("user", ".cursor/hooks.json"),
    "copilot": ("project", ".github/hooks/jev.json"),
    "qwen": ("user", ".qwen/settings.json"),
    "droid": ("user", ".factory/hooks.json"),
}


@pytest.fixture(autouse=True)
def _homes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    monkeypatch.chdir(project)
    return home


def _file(host: str, tmp_path: Path) -> Path:
    scope, rel = FILES[host]
    return (tmp_path / ("home" if scope == "user" else "proj")) / rel


def _run(*argv: str) -> int:
    return main(list(argv))


@pytest.mark.parametrize("host", sorted(FILES))
def test_install_writes_the_documented_shape_idempotently(
    host: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scope = FILES[host][0]
    assert _run("install", host, "--scope", scope) == 0
    path = _file(host, tmp_path)
    data = json.loads(path.read_text("utf-8"))
    jsonschema.validate(data, SCHEMAS[host])
    text = path.read_text("utf-8")
    capsys.readouterr()
    assert _run("install", host, "--scope", scope) == 0  # second time: nothing changes
    assert path.read_text("utf-8") == text
    assert "already up to date" in capsys.readouterr().out
    assert not list(path.parent.glob("*.jev-backup-*"))


def test_units_and_limits(tmp_path: Path) -> None:
    save_settings("default", {"max_supplements": 4})
    timeout_s = install.hook_timeout_s(None)
    for host in FILES:
        assert _run("install", host, "--scope", FILES[host][0]) == 0
    gemini = json.loads(_file("gemini", tmp_path).read_text("utf-8"))
    (after,) = gemini["hooks"]["AfterAgent"][0]["hooks"]
    assert after["timeout"] == timeout_s * 1000 > 60_000  # ms, above Gemini's default
    assert gemini["hooks"]["SessionStart"][0]["hooks"][0]["command"].endswith(
        "hook gemini-session-start"
    )
    assert gemini["experimental"]["taskTracker"] is True
    cursor = json.loads(_file("cursor", tmp_path).read_text("utf-8"))
    (stop,) = cursor["hooks"]["stop"]
    assert stop["loop_limit"] >= 4 and stop["timeout"] == timeout_s
    copilot = json.loads(_file("copilot", tmp_path).read_text("utf-8"))
    (agent,) = copilot["hooks"]["agentStop"]
    assert agent["timeoutSec"] == timeout_s and agent["powershell"] == "& " + agent["bash"]
    qwen = json.loads(_file("qwen", tmp_path).read_text("utf-8"))
    assert qwen["hooks"]["Stop"][0]["hooks"][0]["timeout"] == timeout_s * 1000
    droid = json.loads(_file("droid", tmp_path).read_text("utf-8"))
    assert droid["hooks"]["Stop"][0]["hooks"][0]["timeout"] == timeout_s


@pytest.mark.parametrize("host", sorted(FILES))
def test_other_content_kept_backup_and_uninstall(host: str, tmp_path: Path) -> None:
    path = _file(host, tmp_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    other: dict[str, Any]
    if host in ("cursor", "copilot"):
        key = "stop" if host == "cursor" else "agentStop"
        field = "command" if host == "cursor" else "bash"
        other = {"version": 1, "hooks": {key: [{field: "/opt/other-gate.sh", "timeoutSec": 5}]}}
        if host == "cursor":
            other["hooks"]["stop"][0] = {"command": "/opt/other-gate.sh", "timeout": 5}
    else:
        event = "AfterAgent" if host == "gemini" else "Stop"
        other = {
            "theme": "dark",
            "hooks": {event: [{"hooks": [{"type": "command", "command": "/opt/other.sh"}]}]},
        }
    path.write_text(json.dumps(other, indent=2) + "\n", "utf-8")
    scope = FILES[host][0]
    assert _run("install", host, "--scope", scope) == 0
    data = json.loads(path.read_text("utf-8"))
    assert "/opt/other" in json.dumps(data)
    assert len(list(path.parent.glob("*.jev-backup-*"))) == 1
    assert _run("uninstall", host, "--scope", scope) == 0
    assert json.loads(path.read_text("utf-8")) == other  # exactly the user's file again
    assert _run("uninstall", host, "--scope", scope) == 0  # idempotent


def test_gemini_task_tracker_dry_run_opt_out_and_take_back(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _file("gemini", tmp_path)
    capsys.readouterr()
    assert _run("install", "gemini", "--dry-run") == 0
    out = capsys.readouterr().out
    assert "taskTracker" in out and not path.exists()
    assert _run("install", "gemini", "--no-todo-tools") == 0
    assert "experimental" not in json.loads(path.read_text("utf-8"))
    assert _run("install", "gemini") == 0
    assert json.loads(path.read_text("utf-8"))["experimental"]["taskTracker"] is True
    assert _run("uninstall", "gemini") == 0
    assert not path.exists() or "experimental" not in json.loads(path.read_text("utf-8") or "{}")


def test_gemini_task_tracker_the_user_had_stays(tmp_path: Path) -> None:
    path = _file("gemini", tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"experimental": {"taskTracker": True}}), "utf-8")
    assert _run("install", "gemini") == 0
    assert _run("uninstall", "gemini") == 0
    assert json.loads(path.read_text("utf-8")) == {"experimental": {"taskTracker": True}}


@pytest.mark.parametrize("host", sorted(FILES))
def test_doctor_knows_the_host(host: str, capsys: pytest.CaptureFixture[str]) -> None:
    save_settings("default", {"enabled": True, "judge.provider": "rules"})
    assert load_settings(None).enabled
    capsys.readouterr()
    main(["doctor", "--host", host, "--json"])
    before = json.loads(capsys.readouterr().out)
    assert any("not installed" in p for p in before["problems"]), before
    assert _run("install", host, "--scope", FILES[host][0]) == 0
    capsys.readouterr()
    code = main(["doctor", "--host", host, "--json"])
    report = json.loads(capsys.readouterr().out)
    (entry,) = report["hosts"]
    assert entry["host"] == host and entry["hooks"] and entry["executable_ok"]
    assert entry["todo_tools"] is True
    assert code == 0, report["problems"]


def test_qwen_todo_write_switch_opt_out_take_back_and_doctor(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Qwen 0.24.4 offers ``todo_write`` only with ``tools.todoWrite.enabled: true``
    (hosts.md §0a): install writes it, ``--no-todo-tools`` does not, uninstall takes back
    only what Jev added, and doctor says "Todo tool off" without it (issue 19)."""
    save_settings("default", {"enabled": True, "judge.provider": "rules"})
    path = _file("qwen", tmp_path)
    assert _run("install", "qwen", "--no-todo-tools") == 0
    assert "tools" not in json.loads(path.read_text("utf-8"))
    capsys.readouterr()
    main(["doctor", "--host", "qwen", "--json"])
    (entry,) = json.loads(capsys.readouterr().out)["hosts"]
    assert entry["todo_tools"] is False
    assert any("tools.todoWrite.enabled" in p for p in entry["problems"]), entry
    assert entry["block_cap"] == 7 and entry["notice_channel"] is True
    assert _run("install", "qwen") == 0
    assert json.loads(path.read_text("utf-8"))["tools"]["todoWrite"]["enabled"] is True
    capsys.readouterr()
    assert main(["doctor", "--host", "qwen", "--json"]) == 0
    assert _run("uninstall", "qwen") == 0
    assert not path.exists() or "tools" not in json.loads(path.read_text("utf-8") or "{}")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"tools": {"todoWrite": {"enabled": True}}}), "utf-8")
    assert _run("install", "qwen") == 0
    assert _run("uninstall", "qwen") == 0
    assert json.loads(path.read_text("utf-8")) == {"tools": {"todoWrite": {"enabled": True}}}


def test_copilot_default_scope_is_user_and_doctor_names_the_missing_channel(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``jev install copilot`` writes ``~/.copilot/hooks/jev.json`` (loaded in every
    folder; a project file only in a trusted one), says that Copilot shows no notice,
    and doctor warns about it without failing (issue 19)."""
    save_settings("default", {"enabled": True, "judge.provider": "rules"})
    capsys.readouterr()
    assert _run("install", "copilot") == 0
    out = capsys.readouterr().out
    assert (tmp_path / "home" / ".copilot" / "hooks" / "jev.json").is_file()
    assert "--trust-folder" in out and "jev report" in out, out
    assert main(["doctor", "--host", "copilot", "--json"]) == 0
    (entry,) = json.loads(capsys.readouterr().out)["hosts"]
    assert entry["notice_channel"] is False and list(entry["hooks"]) == ["user"]
    assert any("shows none of Jev's notices" in w for w in entry["warnings"]), entry


def test_copilot_home_moves_the_user_hook_file_and_the_sessions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``COPILOT_HOME`` is Copilot's configuration and state folder (``copilot help
    environment``): the user hook file and the newest session are read there."""
    from jev.hosts.copilot.adapter import CopilotInstaller

    folder = tmp_path / "copilot-home"
    monkeypatch.setenv("COPILOT_HOME", str(folder))
    assert _run("install", "copilot") == 0
    assert (folder / "hooks" / "jev.json").is_file()
    events = folder / "session-state" / "s1" / "events.jsonl"
    events.parent.mkdir(parents=True)
    events.write_text("{}\n", "utf-8")
    assert CopilotInstaller().newest_session() == events
