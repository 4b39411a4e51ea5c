"""The hook's full path never imports pydantic (issue 13 item 5).

Five hosts have no fast path, so every one of their stops — a disabled profile
included — runs the full hook; a Claude Code stop with Todo use runs it too and
audits. Importing pydantic there would add about 100 ms (more than the whole hook on
a disabled profile; figures in the commit that added this test), so host stop
payloads are parsed by the adapters' own stdlib code, and a usual profile and the
records it writes are validated without loading the pydantic models
(jev/settings/check.py, jev/base/record.py). These tests run the real ``jev hook`` in a
child process and look at what it imported.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from jev.hosts.registry import host_names
from jev.settings.profiles import save_settings
from jev.store import Store
from tests.conftest import FIXTURES
from tests.settings.helpers import child_env

#: Runs ``jev hook HOST`` and writes the imported module names to the file in argv[2].
_HOOK = (
    "import atexit, sys\n"
    "out = sys.argv.pop(2)\n"
    "atexit.register(lambda: open(out, 'w').write('\\n'.join(sorted(sys.modules))))\n"
    "from jev.cli import main\n"
    "sys.exit(main(['hook', sys.argv[1]]))\n"
)


def _hook_modules(host: str, payload: dict[str, object], tmp_path: Path) -> tuple[set[str], str]:
    out = tmp_path / f"{host}.modules"
    done = subprocess.run(
        [sys.executable, "-c", _HOOK, host, str(out)],
        input=json.dumps(payload),
        env=child_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return set(out.read_text().split()), done.stdout


@pytest.mark.parametrize("host", host_names())
def test_a_stop_of_a_disabled_profile_loads_no_pydantic(host: str, tmp_path: Path) -> None:
    payload = {"hook_event_name": "Stop", "session_id": "s1", "transcript_path": "/nonexistent"}
    modules, stdout = _hook_modules(host, payload, tmp_path)
    assert "jev.cli" in modules  # the hook really ran
    assert stdout.strip() in ("", "{}")  # nothing to say: the profile is off
    assert not {"pydantic", "jev.settings.model", "jev.base.record_model"} & modules


def test_an_audited_claude_code_stop_loads_no_pydantic(jev_home: Path, tmp_path: Path) -> None:
    save_settings(None, {"enabled": True})
    payload = {
        "hook_event_name": "Stop",
        "session_id": "s-imports",
        "transcript_path": str(FIXTURES / "hand" / "claude-tasks.jsonl"),
    }
    modules, _ = _hook_modules("claude-code", payload, tmp_path)
    assert "jev.pipeline.audit" in modules  # the full path, up to the audit
    with Store() as store:
        records = [r for r in store.list_records() if r.session == "s-imports"]
    assert records and records[0].status == "verdict"  # audited and recorded
    assert "pydantic" not in modules and "jev.settings.model" not in modules
