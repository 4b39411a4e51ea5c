"""OpenTelemetry export through the real hook (design.md §11): spans and
``gen_ai.evaluation.result`` events reach a real OTLP/HTTP receiver; material only on
request; a dead collector costs at most the flush bound and the hook still exits 0."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.fakeserver import FakeProvider, closed_port
from tests.hosts_e2e.conftest import verdict
from tests.hosts_e2e.harness import ClaudeCodeSim
from tests.otlpserver import OtlpReceiver

pytest.importorskip(
    "opentelemetry.sdk", reason='the otel extra is not installed (pip install -e ".[dev]")'
)


def _two_rounds(tmp_path: Path) -> tuple[ClaudeCodeSim, list]:
    sim = ClaudeCodeSim(tmp_path)
    sim.prompt("Add a --json flag. Document it in the README.")
    sim.todo_write(("Add the --json flag", "completed"))
    sim.say("Added --json.")
    first = sim.stop()
    sim.todo_write(("Add the --json flag", "completed"), ("Update the README", "completed"))
    sim.say("Added --json and documented it in README.md.")
    second = sim.stop(stop_hook_active=True)
    return sim, [first, second]


def test_spans_and_evaluation_events_arrive_with_the_documented_attributes(
    tmp_path: Path, judge: FakeProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    judge.script(verdict("omission", "R2"), verdict("complete", "none"))
    with OtlpReceiver() as receiver:
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint)
        sim, runs = _two_rounds(tmp_path)
    assert [r.blocked for r in runs] == [True, False]
    assert [s["name"] for s in receiver.spans] == ["jev.audit", "jev.audit"]
    first, second = receiver.spans
    assert first["path"] == "/v1/traces"
    assert first["resource"]["service.name"] == "jev"
    a = first["attributes"]
    assert a["jev.host"] == "claude-code" and a["jev.profile"] == "default"
    assert a["jev.session"] == sim.session_id and a["jev.round"] == 1
    assert (a["jev.status"], a["jev.assessment"], a["jev.action"]) == (
        "verdict", "omission", "supplement",
    )  # fmt: skip
    assert (a["jev.focus.id"], a["jev.focus.kind"]) == ("R2", "request")
    assert (a["jev.supplements.used"], a["jev.supplements.max"]) == (1, 3)
    assert a["gen_ai.provider.name"] == "openai" and a["gen_ai.request.model"] == "fake-judge"
    assert a["gen_ai.usage.input_tokens"] > 0 and a["gen_ai.usage.output_tokens"] > 0
    assert a["jev.latency_ms"] > 0 and first["duration_ns"] > 0
    (event,) = first["events"]
    assert event["name"] == "gen_ai.evaluation.result"
    assert event["attributes"] == {
        "gen_ai.evaluation.name": "jev.completion_claim",
        "gen_ai.evaluation.score.label": "omission",
        "gen_ai.evaluation.score.value": 0.9,
        "gen_ai.evaluation.explanation": "R2 (request)",
    }
    assert second["attributes"]["jev.assessment"] == "complete"
    assert second["attributes"]["jev.action"] == "finish"
    # no material text anywhere without telemetry.include_material
    blob = repr(receiver.spans)
    assert "README" not in blob and "--json" not in blob


def test_material_is_exported_only_when_asked(
    tmp_path: Path, judge: FakeProvider, jev_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    judge.script(verdict("omission", "R2"), verdict("complete", "none"))
    with OtlpReceiver() as receiver:
        (jev_home / "config.toml").write_text(
            f'[telemetry]\notlp_endpoint = "{receiver.endpoint}"\ninclude_material = true\n',
            "utf-8",
        )
        _two_rounds(tmp_path)
    first = receiver.spans[0]
    assert first["events"][0]["attributes"]["gen_ai.evaluation.explanation"] == (
        "Document it in the README."
    )
    assert "Add a --json flag." in first["attributes"]["jev.material.request"]
    assert first["attributes"]["jev.material.final_answer"] == "Added --json."


def test_a_dead_collector_costs_at_most_the_flush_bound(
    tmp_path: Path, judge: FakeProvider, jev_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    judge.script(verdict("omission", "R2"))
    (jev_home / "config.toml").write_text("[telemetry]\nflush_timeout_s = 1.0\n", "utf-8")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", f"http://127.0.0.1:{closed_port()}")
    sim = ClaudeCodeSim(tmp_path)
    sim.prompt("Add a --json flag. Document it in the README.")
    sim.todo_write(("Add the --json flag", "completed"))
    sim.say("Added --json.")
    started = time.monotonic()
    run = sim.stop()  # asserts exit 0 and no traceback
    elapsed = time.monotonic() - started
    assert run.blocked  # the audit itself is unaffected
    assert "could not be sent to the OTLP collector" in run.stderr
    # one bound for the export plus the hook's own start-up on a loaded machine
    assert elapsed < 1.0 + 20


def test_export_to_a_dead_or_silent_collector_stays_within_the_bound() -> None:
    import socket

    from jev.settings.team import TeamConfig
    from jev.telemetry.export import export_records
    from tests.store.helpers import three_round_turn

    records = three_round_turn()
    dead = TeamConfig(otlp_endpoint=f"http://127.0.0.1:{closed_port()}", flush_timeout_s=1.0)
    started = time.monotonic()
    notice = export_records(records, dead)
    assert time.monotonic() - started < 1.0 + 1.0
    assert "within 1 s" in notice
    with socket.socket() as silent:  # accepts connections, never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        port = silent.getsockname()[1]
        hung = TeamConfig(otlp_endpoint=f"http://127.0.0.1:{port}", flush_timeout_s=1.0)
        started = time.monotonic()
        notice = export_records(records, hung)
        assert time.monotonic() - started < 1.0 + 1.0
    assert "could not be sent" in notice
    assert export_records(records, TeamConfig()) == ""  # no endpoint: nothing at all


def test_otlp_headers_reach_the_collector_and_bad_entries_are_skipped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from jev.settings.team import TeamConfig
    from jev.telemetry.export import export_records
    from jev.telemetry.otlp import otlp_headers
    from tests.store.helpers import three_round_turn

    env = {
        "OTEL_EXPORTER_OTLP_HEADERS": "api-key=s%20ecret,broken,x-tenant=a",
        "OTEL_EXPORTER_OTLP_TRACES_HEADERS": "x-tenant=b,bad:name=1",
    }
    assert otlp_headers(env) == {"api-key": "s ecret", "x-tenant": "b"}
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    with OtlpReceiver() as receiver:
        config = TeamConfig(otlp_endpoint=receiver.endpoint, flush_timeout_s=5.0)
        assert export_records(three_round_turn(), config) == ""
    (headers,) = receiver.headers
    assert headers["api-key"] == "s ecret" and headers["x-tenant"] == "b"
    assert headers["Content-Type"] == "application/x-protobuf"
    assert len(receiver.spans) == 3
