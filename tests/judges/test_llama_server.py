"""The strict reply schema against a real llama.cpp ``llama-server`` (issue 20 item 3).

Runs when a ``llama-server`` binary is on PATH and ``JEV_LLAMA_MODEL`` names a small
GGUF model file; skips, saying so, otherwise (neither ships with Jev, and this
workplace cannot download a model). It starts the server on 127.0.0.1, audits a few
built-in turns through the ``openai`` judge (which sends the per-verdict branches) and
checks that no reply is refused for its shape: every audit ends in a verdict.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from dataclasses import replace
from pathlib import Path

import pytest

from jev.base.domain import JudgeSettings
from jev.judges import create_judge
from jev.measure.benchmark import builtin_cases
from jev.pipeline.audit import run_audit
from jev.settings.profiles import load_settings

pytestmark = pytest.mark.slow


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_branches_hold_on_a_real_llama_server(jev_home: Path) -> None:
    binary = shutil.which("llama-server")
    model = os.environ.get("JEV_LLAMA_MODEL", "")
    if binary is None or not model or not Path(model).is_file():
        pytest.skip(
            "needs llama.cpp's llama-server on PATH and JEV_LLAMA_MODEL=<small .gguf file>; "
            "neither is installed here"
        )
    port = _free_port()
    proc = subprocess.Popen(
        [binary, "-m", model, "--host", "127.0.0.1", "--port", str(port), "-c", "8192"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.5)
        settings = load_settings(None)
        judge_settings = JudgeSettings(
            provider="openai",
            model="local",
            base_url=f"http://127.0.0.1:{port}/v1",
            api_key_env="JEV_NO_KEY_SET",
            timeout_s=300,
            technical_retries=1,
        )
        judge = create_judge(judge_settings)
        settings = replace(settings, judge=judge_settings)
        for _, case in builtin_cases(("issue12",)):
            outcome = run_audit(case.material, settings, judge)
            assert outcome.status == "verdict", outcome.reason
    finally:
        proc.terminate()
        proc.wait(timeout=30)
