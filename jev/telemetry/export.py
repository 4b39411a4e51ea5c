"""OpenTelemetry export of audits (design.md §11): one ``jev.audit`` span per audit.

Optional: needs ``pip install "jev[otel]"`` (the OpenTelemetry SDK and its OTLP/HTTP
exporter, imported only when an endpoint is configured — never on the hook's no-audit
path). Configured by ``OTEL_EXPORTER_OTLP_ENDPOINT`` (``/v1/traces`` is appended),
``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`` (used as is) or ``telemetry.otlp_endpoint`` in
``$JEV_HOME/config.toml`` (:mod:`jev.settings.team`); ``OTEL_EXPORTER_OTLP_HEADERS`` is honoured
by the exporter (collector credentials).

Each audit record becomes a span ``jev.audit`` (start = its time minus the judge
latency) with attributes ``jev.host``, ``jev.profile``, ``jev.session``, ``jev.turn``,
``jev.round``, ``jev.status``, ``jev.assessment``, ``jev.focus.id``, ``jev.focus.kind``,
``jev.supplements.used``, ``jev.supplements.max``, ``jev.action``, ``jev.latency_ms``,
``jev.error_kind`` and the GenAI attributes ``gen_ai.provider.name``,
``gen_ai.request.model``, ``gen_ai.usage.input_tokens``, ``gen_ai.usage.output_tokens``;
a verdict adds the event ``gen_ai.evaluation.result`` with ``gen_ai.evaluation.name``
(``jev.completion_claim``), ``gen_ai.evaluation.score.label`` (the assessment),
``gen_ai.evaluation.score.value`` (the judge's confidence, when given) and
``gen_ai.evaluation.explanation``. These follow the OpenTelemetry GenAI semantic
conventions as published with semantic-conventions 1.44.0 (Python package
opentelemetry-semantic-conventions 0.66b2; the GenAI attributes and the
``gen_ai.evaluation.result`` event are "development" stability and now maintained in
the semantic-conventions-genai repository, model/gen-ai/events.yaml), attached as a
span event on the evaluation's own span.

Material text (request, final answer, the focus quote) is never exported unless
``telemetry.include_material = true``; without it the explanation is the focus id and
kind (``R2 (request)``), with it the quote, cut to 200 characters.

Cost bound: the spans are sent in one POST by :mod:`jev.telemetry.otlp` (not the SDK's
exporter, whose timeout bounds each socket read, not the call, and which reads the whole
response body), with ``telemetry.flush_timeout_s`` (default 2 s) — or the time left of
the hook's per-stop deadline, if shorter — as the hard bound for the whole export and
64 KiB as the bound on what is read back; a dead, slow or endless collector costs at
most that and yields a one-line notice, never a failure. A Stop hook exports after its
answer is written (:mod:`jev.cli.hook_cmd`; issue 23).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from typing import Any

from jev import __version__
from jev.base.errors import SettingsError
from jev.base.record import Record, parse_iso_utc
from jev.settings.team import TeamConfig, load_team_config

__all__ = ["EVALUATION_NAME", "export_records", "traces_url"]

#: ``gen_ai.evaluation.name`` of Jev's verdicts.
EVALUATION_NAME = "jev.completion_claim"
_EXPLANATION_CHARS = 200
_SKIP_STATUSES = frozenset({"skipped"})


def traces_url(config: TeamConfig) -> str:
    """The OTLP/HTTP traces URL: the endpoint plus ``/v1/traces`` unless it came from
    ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`` or already ends with it."""
    endpoint = config.otlp_endpoint.rstrip("/")
    if config.otlp_traces_url or endpoint.endswith("/v1/traces"):
        return endpoint
    return endpoint + "/v1/traces"


def export_records(
    records: Sequence[Record], config: TeamConfig | None = None, seconds: float | None = None
) -> str:
    """Export the audits among ``records`` as spans; return a notice ("" when all went
    well or no endpoint is configured). Never raises.

    The whole export — spans built, encoded and posted (:func:`jev.telemetry.otlp.post`) —
    ends within ``telemetry.flush_timeout_s`` or ``seconds``, whichever is shorter,
    and reads at most :data:`jev.telemetry.otlp.MAX_REPLY_BYTES` of the collector's answer.

    Args:
        records: the records just written (skipped ones are not exported).
        config: the team settings; default :func:`jev.settings.team.load_team_config`.
        seconds: the time left of the caller's own deadline (the hook's per-stop
            deadline, :mod:`jev.deadline`); ``None``: the flush bound alone.
    """
    audits = [r for r in records if r.status not in _SKIP_STATUSES]
    if not audits:
        return ""
    try:
        config = config or load_team_config()
    except SettingsError as exc:
        return f"Jev: telemetry not exported: {exc}"
    if not config.otlp_endpoint:
        return ""
    bound = config.flush_timeout_s if seconds is None else min(config.flush_timeout_s, seconds)
    if bound <= 0:
        return "Jev: telemetry not exported: the hook's time was used up by the audit."
    try:
        return _export(audits, config, bound)
    except ImportError:
        return (
            "Jev: an OTLP endpoint is set but the OpenTelemetry packages are not installed; "
            'run pip install ".[otel]" in your Jev checkout (the audit itself is unaffected).'
        )
    except Exception as exc:  # telemetry must never break an audit
        return f"Jev: telemetry not exported ({type(exc).__name__}: {exc})."


def _export(records: Sequence[Record], config: TeamConfig, seconds: float) -> str:
    # lazy: OpenTelemetry is the optional [otel] extra, loaded only when an endpoint is set
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
    from opentelemetry.sdk.trace.export import (
        SimpleSpanProcessor,
        SpanExporter,
        SpanExportResult,
    )

    from jev.telemetry.otlp import OtlpSendError, otlp_headers, post

    quiet = logging.getLogger("opentelemetry")  # our notice replaces their tracebacks
    if not quiet.handlers:
        quiet.addHandler(logging.NullHandler())
    quiet.propagate = False

    class Keep(SpanExporter):
        """Keeps the ended spans; they are sent by :func:`jev.telemetry.otlp.post`."""

        def __init__(self) -> None:
            self.spans: list[ReadableSpan] = []

        def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
            self.spans.extend(spans)
            return SpanExportResult.SUCCESS

    keep = Keep()
    provider = TracerProvider(
        resource=Resource.create({"service.name": "jev", "service.version": __version__}),
        shutdown_on_exit=False,
    )
    provider.add_span_processor(SimpleSpanProcessor(keep))
    tracer = provider.get_tracer("jev", __version__)
    for record in records:
        _emit(tracer, record, config.include_material)
    url = traces_url(config)
    body = encode_spans(keep.spans).SerializeToString()
    headers = {
        **otlp_headers(),
        "Content-Type": "application/x-protobuf",
        "User-Agent": f"jev/{__version__}",
    }
    try:
        post(url, body, headers, seconds)
    except OtlpSendError as exc:
        return (
            f"Jev: the audit span could not be sent to the OTLP collector at {url} within "
            f"{seconds:g} s ({exc}); the audit itself is unaffected (check "
            f"telemetry.otlp_endpoint / OTEL_EXPORTER_OTLP_ENDPOINT)."
        )
    return ""


def _emit(tracer: Any, record: Record, include_material: bool) -> None:
    # lazy: OpenTelemetry is the optional [otel] extra, loaded only when an endpoint is set
    from opentelemetry.trace import Status, StatusCode

    end_s = parse_iso_utc(record.created_at) if record.created_at else time.time()
    end_ns = int(end_s * 1e9)
    start_ns = end_ns - int(max(record.latency_ms, 0.0) * 1e6)
    span = tracer.start_span("jev.audit", start_time=start_ns)
    for key, value in _attributes(record, include_material).items():
        span.set_attribute(key, value)
    if record.status == "verdict" and record.assessment:
        span.add_event("gen_ai.evaluation.result", _evaluation(record, include_material), end_ns)
    if record.status == "incomplete":
        span.set_status(Status(StatusCode.ERROR, record.error_kind or record.reason))
    span.end(end_time=end_ns)


def _attributes(record: Record, include_material: bool) -> dict[str, Any]:
    focus = record.focus or {}
    judge = record.judge or {}
    usage = record.usage or {}
    values: dict[str, Any] = {
        "jev.host": record.host,
        "jev.profile": record.profile,
        "jev.session": record.session,
        "jev.turn": record.turn,
        "jev.round": record.round,
        "jev.status": record.status,
        "jev.assessment": record.assessment,
        "jev.focus.id": focus.get("id"),
        "jev.focus.kind": focus.get("kind"),
        "jev.supplements.used": record.supplements_used,
        "jev.supplements.max": record.max_supplements,
        "jev.action": (record.action or {}).get("kind"),
        "jev.latency_ms": float(record.latency_ms),
        "jev.error_kind": record.error_kind,
        "gen_ai.provider.name": judge.get("provider"),
        "gen_ai.request.model": judge.get("model"),
        "gen_ai.usage.input_tokens": usage.get("input_tokens"),
        "gen_ai.usage.output_tokens": usage.get("output_tokens"),
    }
    if include_material and record.material:
        request = record.material.get("request") or []
        values["jev.material.request"] = "\n".join(str(part) for part in request)
        values["jev.material.final_answer"] = str(record.material.get("final_answer", ""))
        values["jev.focus.quote"] = str(focus.get("quote", ""))
    return {k: v for k, v in values.items() if v is not None and v != ""}


def _evaluation(record: Record, include_material: bool) -> dict[str, Any]:
    focus = record.focus or {}
    if include_material and focus.get("quote"):
        explanation = str(focus["quote"])[:_EXPLANATION_CHARS]
    else:
        explanation = f"{focus.get('id', 'none')} ({focus.get('kind', 'none')})"
    event: dict[str, Any] = {
        "gen_ai.evaluation.name": EVALUATION_NAME,
        "gen_ai.evaluation.score.label": record.assessment,
        "gen_ai.evaluation.explanation": explanation,
    }
    if record.confidence is not None:
        event["gen_ai.evaluation.score.value"] = float(record.confidence)
    return event
