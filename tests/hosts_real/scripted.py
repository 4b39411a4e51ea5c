"""A scripted model server on 127.0.0.1 for the real host CLIs (issue 19 item 1).

Each host speaks its own model API; a subclass of :class:`ScriptedServer` turns the
agent's next :class:`Step` list into that API's (streamed) response. The agent is a
plain function of what the host sent: ``agent(request) -> list[Step]``, so a test
scripts "make a Todo list, stop; if Jev's supplement is in the request, finish the
item". Every request is logged (:attr:`ScriptedServer.requests`) so a test can see
what reached the model (the supplement, the SessionStart hint, a judge prompt).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["Logged", "ScriptedServer", "Step", "Text", "Tool"]


@dataclass(frozen=True)
class Text:
    """The model says ``text`` (a final answer when it is the last step)."""

    text: str


@dataclass(frozen=True)
class Tool:
    """The model calls tool ``name`` with ``args`` (a JSON object)."""

    name: str
    args: dict[str, Any]


Step = Text | Tool


@dataclass
class Logged:
    """One request the host sent: method, path, headers, the JSON body (or None) and
    the raw body text (for substring checks)."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any
    raw: str
    index: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


Agent = Callable[[Logged], list[Step]]


class ScriptedServer:
    """Base class: a threaded HTTP server on 127.0.0.1; subclasses implement
    :meth:`respond` for their host's API. Use as a context manager."""

    def __init__(self, agent: Agent) -> None:
        self.agent = agent
        self.requests: list[Logged] = []
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                return

            def _handle(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length).decode("utf-8", "replace") if length else ""
                try:
                    body = json.loads(raw) if raw else None
                except ValueError:
                    body = None
                with server._lock:
                    logged = Logged(
                        self.command,
                        self.path,
                        {k.lower(): v for k, v in self.headers.items()},
                        body,
                        raw,
                        len(server.requests),
                    )
                    server.requests.append(logged)
                logged.extra["t"] = time.perf_counter()  # arrival (bench/host_judge_overhead.py)
                server.respond(self, logged)
                logged.extra["t_done"] = time.perf_counter()  # reply written

            do_GET = do_POST = do_PUT = do_DELETE = _handle

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT``."""
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    def __enter__(self) -> ScriptedServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def respond(self, handler: BaseHTTPRequestHandler, logged: Logged) -> None:
        """Answer one request (subclasses)."""
        raise NotImplementedError

    # helpers for subclasses -------------------------------------------------------

    @staticmethod
    def send_json(handler: BaseHTTPRequestHandler, payload: Any, status: int = 200) -> None:
        """A plain JSON response."""
        data = json.dumps(payload).encode()
        handler.send_response(status)
        handler.send_header("content-type", "application/json")
        handler.send_header("content-length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)

    @staticmethod
    def send_sse(
        handler: BaseHTTPRequestHandler, events: list[tuple[str | None, Any]], *, done: bool = False
    ) -> None:
        """A ``text/event-stream`` response: each ``(event name or None, data)``; data
        that is not a string is JSON-encoded; ``done`` appends ``data: [DONE]``."""
        chunks = []
        for name, data in events:
            text = data if isinstance(data, str) else json.dumps(data)
            chunks.append((f"event: {name}\n" if name else "") + f"data: {text}\n\n")
        if done:
            chunks.append("data: [DONE]\n\n")
        payload = "".join(chunks).encode()
        handler.send_response(200)
        handler.send_header("content-type", "text/event-stream")
        handler.send_header("cache-control", "no-cache")
        handler.send_header("content-length", str(len(payload)))
        handler.end_headers()
        handler.wfile.write(payload)

    def bodies_text(self) -> list[str]:
        """Every logged request's raw body, in order."""
        return [r.raw for r in self.requests]
