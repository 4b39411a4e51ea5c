"""Every hook command exits 0 on hostile stdin and hostile transcripts (issue 11).

Run in-process through :func:`jev.cli.main` (the console script's own entry point)
for the many stdin classes, and as real subprocesses where only a process can show
the problem (a FIFO or device as ``transcript_path``, stdout closed or full, peak RSS
on a NUL-filled transcript tail). Each class runs with Jev enabled and disabled.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from jev.cli import main
from jev.hosts.registry import hook_names
from tests.conftest import FIXTURES

HOOKS = hook_names()

REAL = FIXTURES / "real" / "claude-code-2.1.96_pookNast-loopkit_chat.jsonl"
JEV = Path(sys.executable).parent / "jev"


def stop(**fields: object) -> dict[str, object]:
    return {"hook_event_name": "Stop", "session_id": "s-1", "cwd": "/tmp", **fields}


def _deep(n: int) -> str:
    return "[" * n + "]" * n


#: (id, stdin bytes): every class of the issue's table and the fuzz corpus's seeds.
STDIN_CLASSES: list[tuple[str, bytes]] = [
    ("deep-array-100000", _deep(100_000).encode()),
    ("deep-field-100000", b'{"hook_event_name": "Stop", "x": ' + _deep(100_000).encode() + b"}"),
    ("deep-field-900", b'{"hook_event_name": "Stop", "x": ' + _deep(900).encode() + b"}"),
    ("int-5000-digits", b'{"hook_event_name": "Stop", "n": ' + b"7" * 5000 + b"}"),
    ("nul-in-transcript-path", json.dumps(stop(transcript_path="/tmp/a\u0000b")).encode()),
    (
        "lone-surrogates",
        b'{"hook_event_name": "Stop", "session_id": "\\ud83d", "transcript_path": "\\udc00",'
        b' "last_assistant_message": "done \\ud83d", "prompt": "\\ud83d"}',
    ),
    ("invalid-utf8", b'{"hook_event_name": "Stop", "session_id": "\xff\xfe\x80"}'),
    ("empty", b""),
    ("not-an-object", b'["Stop"]'),
    ("a-string", b'"Stop"'),
    ("nan", b'{"hook_event_name": "Stop", "loop_count": NaN}'),
    (
        "wrong-types",
        json.dumps(stop(transcript_path=7, session_id=[1], stop_hook_active="yes")).encode(),
    ),
    ("directory-as-transcript", json.dumps(stop(transcript_path="/")).encode()),
    ("huge-garbage", b"\x00" * (2 << 20)),
    ("half-json", b'{"hook_event_name": "Stop", "session_id": "s'),
]


def run_hook_in_process(
    name: str, data: bytes, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    code = main(["hook", name])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(params=["enabled", "disabled"])
def state(request: pytest.FixtureRequest) -> str:
    from jev.settings.profiles import save_settings

    save_settings(None, {"enabled": request.param == "enabled"})
    return str(request.param)


@pytest.mark.parametrize("name", HOOKS)
@pytest.mark.parametrize(("case", "data"), STDIN_CLASSES, ids=[c for c, _ in STDIN_CLASSES])
def test_every_hook_exits_0_on_hostile_stdin(
    name: str,
    case: str,
    data: bytes,
    state: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    code, out, err = run_hook_in_process(name, data, capsys, monkeypatch)
    assert code == 0, (case, state, err)
    assert "Traceback" not in err
    if out.strip() and name != "claude-code-session-start":
        json.loads(out)  # whatever is answered is the host's JSON contract


def transcript_with(tmp_path: Path, *lines: bytes) -> Path:
    path = tmp_path / "session.jsonl"
    shutil.copyfile(REAL, path)
    with path.open("ab") as handle:
        for line in lines:
            handle.write(line + b"\n")
    return path


def _user(text: str) -> bytes:
    rec = {
        "type": "user",
        "isSidechain": False,
        "sessionId": "s-1",
        "uuid": "u-1",
        "message": {"role": "user", "content": text},
    }
    return json.dumps(rec).encode()


TRANSCRIPT_CLASSES: list[tuple[str, list[bytes]]] = [
    ("record-nested-1100", [b'{"type": "user", "message": ' + _deep(1100).encode() + b"}"]),
    ("record-nested-100000", [b'{"type": "assistant", "x": ' + _deep(100_000).encode() + b"}"]),
    ("lone-surrogate-prompt", [_user("fix it \\ud83d").replace(b"\\\\ud83d", b"\\ud83d")]),
    ("int-5000-digits", [b'{"type": "user", "n": ' + b"1" * 5000 + b"}"]),
    ("not-utf8", [b'{"type": "user", "message": {"content": "\xff\xfe"}}']),
    ("nul-line", [b"\x00" * 100_000]),
    ("half-line", [b'{"type": "assistant", "message": {"content": [{"type": "text"']),
]


@pytest.mark.parametrize(
    ("case", "lines"), TRANSCRIPT_CLASSES, ids=[c for c, _ in TRANSCRIPT_CLASSES]
)
@pytest.mark.parametrize("name", ["claude-code", "cursor"])
def test_stop_hook_exits_0_on_hostile_transcript(
    case: str,
    lines: list[bytes],
    name: str,
    state: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = transcript_with(tmp_path, *lines)
    data = json.dumps(stop(transcript_path=str(path))).encode()
    code, _out, err = run_hook_in_process(name, data, capsys, monkeypatch)
    assert code == 0, (case, state, err)
    assert "Traceback" not in err and "internal error" not in err, err


@pytest.mark.parametrize(
    ("case", "lines"), TRANSCRIPT_CLASSES, ids=[c for c, _ in TRANSCRIPT_CLASSES]
)
def test_jev_audit_ends_cleanly_on_hostile_transcript(
    case: str, lines: list[bytes], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = transcript_with(tmp_path, *lines)
    code = main(["audit", str(path), "--no-record"])
    _, err = capsys.readouterr()
    assert code in (0, 2, 3, 4, 5), (case, err)  # never 1 (internal error)
    assert "internal error" not in err


# -- only a process can show these ---------------------------------------------------


def _run(args: list[str], stdin: bytes, **kw: object) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([str(JEV), *args], input=stdin, capture_output=True, timeout=60, **kw)  # type: ignore[call-overload, no-any-return]


@pytest.mark.slow
@pytest.mark.skipif(not JEV.exists(), reason="console script not installed")
@pytest.mark.parametrize("kind", ["fifo", "device", "directory"])
def test_special_file_as_transcript_is_refused_without_reading(
    kind: str, tmp_path: Path, state: str
) -> None:
    if kind == "fifo":
        target = tmp_path / "fifo"
        os.mkfifo(target)
    elif kind == "device":
        target = Path("/dev/zero")
    else:
        target = tmp_path
    started = time.monotonic()
    for name in ("claude-code", "codex", "cursor"):
        proc = _run(["hook", name], json.dumps(stop(transcript_path=str(target))).encode())
        assert proc.returncode == 0, proc.stderr
    assert time.monotonic() - started < 30  # never blocked on the FIFO, never read /dev/zero


@pytest.mark.slow
@pytest.mark.skipif(not JEV.exists(), reason="console script not installed")
@pytest.mark.parametrize("how", ["closed", "full"])
def test_stdout_closed_or_full_still_exits_0(how: str) -> None:
    payload = json.dumps({"hook_event_name": "SessionStart", "session_id": "s", "source": "x"})
    redirect = ">&-" if how == "closed" else ">/dev/full"
    for name in ("claude-code-session-start", "claude-code"):
        proc = subprocess.run(
            f"'{JEV}' hook {name} {redirect}",
            shell=True,
            input=payload.encode(),
            capture_output=False,
            stderr=subprocess.PIPE,
            timeout=60,
        )
        assert proc.returncode == 0, proc.stderr
        assert b"Traceback" not in proc.stderr


_RSS_WRAPPER = r"""
import json, resource, subprocess, sys
proc = subprocess.run(sys.argv[2:], input=sys.argv[1].encode(), capture_output=True, timeout=120)
print(json.dumps({"rc": proc.returncode, "stderr": proc.stderr.decode("utf-8", "replace"),
                  "rss_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024}))
"""


@pytest.mark.slow
@pytest.mark.skipif(not JEV.exists(), reason="console script not installed")
def test_nul_filled_tail_costs_bounded_memory(tmp_path: Path) -> None:
    from jev.settings.profiles import save_settings

    save_settings(None, {"enabled": True})
    path = transcript_with(tmp_path, _user("Fix the parser."))
    with path.open("r+b") as handle:  # a 300 MB NUL tail without a newline (sparse)
        handle.truncate(path.stat().st_size + 300 * 1024 * 1024)
    payload = json.dumps(stop(transcript_path=str(path)))
    out = subprocess.run(
        [sys.executable, "-c", _RSS_WRAPPER, payload, str(JEV), "hook", "claude-code"],
        capture_output=True,
        text=True,
        timeout=180,
        check=True,
    )
    result = json.loads(out.stdout)
    assert result["rc"] == 0, result
    assert result["rss_mb"] < 200, result
