"""A real OTLP/HTTP trace receiver on 127.0.0.1 for the telemetry tests.

Accepts ``POST /v1/traces`` with a protobuf ``ExportTraceServiceRequest`` (decoded with
opentelemetry-proto, gzip or plain) and keeps every span as a plain dict.
"""

from __future__ import annotations

import gzip
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def _value(v: Any) -> Any:
    kind = v.WhichOneof("value")
    return getattr(v, kind) if kind else None


class OtlpReceiver:
    """Context manager: ``with OtlpReceiver() as r: ... r.spans``."""

    def __init__(self) -> None:
        self.spans: list[dict[str, Any]] = []
        self.requests = 0
        self.headers: list[dict[str, str]] = []  # each request's headers
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
                    ExportTraceServiceRequest,
                    ExportTraceServiceResponse,
                )

                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                if self.headers.get("Content-Encoding") == "gzip":
                    body = gzip.decompress(body)
                request = ExportTraceServiceRequest()
                request.ParseFromString(body)
                receiver.requests += 1
                receiver.headers.append(dict(self.headers.items()))
                for resource_spans in request.resource_spans:
                    resource = {a.key: _value(a.value) for a in resource_spans.resource.attributes}
                    for scope_spans in resource_spans.scope_spans:
                        for span in scope_spans.spans:
                            receiver.spans.append(
                                {
                                    "path": self.path,
                                    "name": span.name,
                                    "resource": resource,
                                    "attributes": {a.key: _value(a.value) for a in span.attributes},
                                    "events": [
                                        {
                                            "name": e.name,
                                            "attributes": {
                                                a.key: _value(a.value) for a in e.attributes
                                            },
                                        }
                                        for e in span.events
                                    ],
                                    "status": span.status.code,
                                    "duration_ns": span.end_time_unix_nano
                                    - span.start_time_unix_nano,
                                }
                            )
                payload = ExportTraceServiceResponse().SerializeToString()
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.endpoint = f"http://127.0.0.1:{self.server.server_address[1]}"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> OtlpReceiver:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
