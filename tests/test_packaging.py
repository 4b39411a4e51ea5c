"""`pip install .` ships prompts, schemas and settings inside the package (issue 2, item 1).

Builds a real wheel, installs it into a fresh venv (dependencies come from the running
interpreter's site-packages through a .pth line, so no network is needed) and runs the
installed ``jev audit`` from an unrelated working directory.
"""

from __future__ import annotations

import json
import os
import site
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from tests.conftest import REPO

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(out),
            str(REPO),
        ],
        check=True,
        cwd=out,
    )
    (whl,) = out.glob("jev-*.whl")
    return whl


def test_wheel_contains_data_files(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "jev/settings/defaults/default.toml" in names
    assert "jev/schemas/judge-reply.schema.json" in names
    assert "jev/schemas/turn.schema.json" in names
    assert "jev/schemas/record.schema.json" in names
    assert any(n.startswith("jev/prompts/judge") and n.endswith(".j2") for n in names)
    assert any(n.startswith("jev/prompts/supplement") for n in names)
    assert "jev/judges/rules/base.toml" in names  # the rules judge's word lists
    assert "jev/judges/rules/asks.toml" in names
    # jev ui: templates, stylesheet and the bundled test turn
    for name in ("settings.html", "turn.html", "turns.html", "overview.html", "base.html"):
        assert f"jev/ui/templates/{name}" in names
    assert "jev/ui/static/jev.css" in names and "jev/ui/sample_turn.json" in names
    # the built-in benchmark's labelled turns (jev eval --builtin)
    assert "jev/corpus/heldout4/README.md" in names
    assert "jev/corpus/heldout5/README.md" in names
    assert "jev/corpus/heldout6/README.md" in names
    assert sum(n.startswith("jev/corpus/") and n.endswith(".json") for n in names) > 300
    assert not any(n.startswith("jev/corpus/real/") for n in names)


def test_installed_wheel_runs_audit_from_any_directory(wheel: Path, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    purelib = Path(
        subprocess.run(
            [
                str(venv / "bin" / "python"),
                "-c",
                "import sysconfig; print(sysconfig.get_path('purelib'))",
            ],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
    )
    # Dependencies from this interpreter, appended after the venv's own site-packages.
    deps = [sysconfig.get_path("purelib"), *site.getsitepackages()]
    (purelib / "_jev_test_deps.pth").write_text("\n".join(dict.fromkeys(deps)) + "\n")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--no-deps",
            "-q",
            "--target",
            str(purelib),
            str(wheel),
        ],
        check=True,
    )
    _installed_ui_serves_pages(venv, tmp_path)
    installed = purelib / "jev"
    assert (installed / "prompts").is_dir() and (installed / "schemas").is_dir()
    work = tmp_path / "elsewhere"
    work.mkdir()
    env = {**os.environ, "JEV_HOME": str(tmp_path / "home"), "PYTHONPATH": ""}
    example = REPO / "examples" / "turn-omission.json"
    proc = subprocess.run(
        [
            str(venv / "bin" / "python"),
            "-c",
            "import sys; from jev.cli import main; sys.exit(main())",
            "audit",
            str(example),
            "--json",
        ],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
    )
    assert proc.returncode in (0, 4, 5), proc.stderr
    line = json.loads(proc.stdout.splitlines()[0])
    assert line["status"] == "verdict"
    assert line["judge"]["provider"] == "rules" and line["judge"]["heuristic"] is True
    # the code that ran is the installed copy, not the repository's
    probe = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import jev; print(jev.__file__)"],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert str(purelib) in probe.stdout
    # the built-in benchmark runs from the installed copy, anywhere
    bench = subprocess.run(
        [
            str(venv / "bin" / "python"),
            "-c",
            "import sys; from jev.cli import main; sys.exit(main())",
            *("eval", "--builtin", "--judge", "rules", "--json", "out.json"),
        ],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
    )
    assert bench.returncode == 0, bench.stderr
    result = json.loads((work / "out.json").read_text(encoding="utf-8"))
    assert result["schema"] == "jev-eval-result/1" and result["figures"]["turns"] > 300


def _installed_ui_serves_pages(venv: Path, tmp_path: Path) -> None:
    """`jev ui --no-browser --port 0` of the installed copy prints its URL and serves."""
    import http.client
    import re
    import select
    import time
    from urllib.parse import urlsplit

    env = {**os.environ, "JEV_HOME": str(tmp_path / "ui-home"), "PYTHONPATH": ""}
    proc = subprocess.Popen(
        [
            str(venv / "bin" / "python"),
            "-c",
            "import sys; from jev.cli import main; sys.exit(main())",
            "ui",
            "--no-browser",
            "--port",
            "0",
        ],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert proc.stdout is not None
        url = ""
        end = time.monotonic() + 30
        while not url and time.monotonic() < end:
            if select.select([proc.stdout], [], [], 0.2)[0]:
                match = re.search(r"Jev UI: (http://127\.0\.0\.1:\d+/\S+/)", proc.stdout.readline())
                url = match.group(1) if match else ""
        assert url, "jev ui printed no URL"
        parts = urlsplit(url)
        for page in ("settings", "turns", "overview"):
            conn = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=10)
            conn.request("GET", parts.path + page)
            response = conn.getresponse()
            body = response.read().decode()
            conn.close()
            assert response.status == 200 and "</html>" in body, page
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        if proc.stdout:
            proc.stdout.close()


def _runtime_closure() -> set[str]:
    """Top-level import folders/modules of jev's runtime dependencies (no extras),
    following each distribution's own requirements whose markers hold here."""
    from importlib import metadata

    from packaging.requirements import Requirement

    seen: set[str] = set()
    tops: set[str] = set()
    todo = [Requirement(r) for r in metadata.requires("jev") or []]
    while todo:
        req = todo.pop()
        if req.marker is not None and not req.marker.evaluate({"extra": ""}):
            continue
        name = req.name.lower().replace("_", "-")
        if name in seen:
            continue
        seen.add(name)
        dist = metadata.distribution(name)
        for file in dist.files or []:
            first = file.parts[0]
            if not first.endswith(".dist-info") and first != "..":
                tops.add(first)
        todo.extend(Requirement(r) for r in dist.requires or [])
    return tops


def test_installed_without_extras_runs_with_no_driver_or_otel(wheel: Path, tmp_path: Path) -> None:
    """`pip install .` (no extras): only the runtime dependencies are importable; jev
    still audits, and a PostgreSQL store URL says which extra to install."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    py = str(venv / "bin" / "python")
    purelib = Path(
        subprocess.run(
            [py, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
    )
    site_dir = Path(sysconfig.get_path("purelib"))
    for top in _runtime_closure():
        source = site_dir / top
        if source.exists() and top != "jev":
            (purelib / top).symlink_to(source)
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(purelib),
         str(wheel)],
        check=True,
    )  # fmt: skip
    env = {**os.environ, "JEV_HOME": str(tmp_path / "home"), "PYTHONPATH": ""}
    missing = subprocess.run(
        [py, "-c", "import importlib.util as u; print([m for m in ('psycopg', 'opentelemetry')"
         " if u.find_spec(m)])"],
        env=env, capture_output=True, text=True, check=True, cwd=tmp_path,
    )  # fmt: skip
    assert missing.stdout.strip() == "[]"
    run = [py, "-c", "import sys; from jev.cli import main; sys.exit(main())"]
    example = str(REPO / "examples" / "turn-omission.json")
    audit = subprocess.run(
        [*run, "audit", example, "--json"], env=env, capture_output=True, text=True, cwd=tmp_path
    )
    assert audit.returncode in (0, 4, 5), audit.stderr
    assert json.loads(audit.stdout.splitlines()[0])["status"] == "verdict"
    shared = {**env, "JEV_STORE_URL": "postgresql://jev@127.0.0.1:1/jev"}
    records = subprocess.run(
        [*run, "records", "list"], env=shared, capture_output=True, text=True, cwd=tmp_path
    )
    assert records.returncode == 1
    assert 'pip install ".[postgres]" in your Jev checkout' in records.stderr
    assert "Traceback" not in records.stderr
