"""A fake LLM provider on 127.0.0.1 for tests: real HTTP, scripted behaviour.

Usable by every test (``from tests.fakeserver import FakeProvider``)::

    with FakeProvider() as fake:
        fake.script(Reply(json=openai_completion('{"assessment": "complete"}')),
                    Reply(status=429, headers={"Retry-After": "3"}))
        judge = OpenAIJudge(model="m", base_url=fake.openai_base)
        ...
        assert fake.count == 2 and fake.requests[0].json["model"] == "m"

* Listens on an ephemeral port (port 0), HTTP/1.1 keep-alive, one thread per
  connection (``ThreadingHTTPServer``), so concurrent clients (16 at once for
  ``replay --live``) are served in parallel; counters and the script are guarded by a
  lock.
* Routes ``POST /chat/completions`` and ``POST /v1/chat/completions`` (OpenAI shape),
  ``POST /v1/messages`` (Anthropic shape) and ``POST /api/chat`` (Ollama's native
  shape); any other path gets 404 (and is still recorded).
* Each request takes the next scripted behaviour; when the script is empty the
  ``default`` behaviour is used (by default a 500 saying the script ran out, so a
  test making an unexpected call fails visibly).
* A behaviour is a :class:`Reply` (status, JSON or raw body, headers, delay in
  seconds, or closing the connection without answering), a ``dict`` (served as a 200
  JSON body), or a callable taking the request's parsed JSON body and returning
  either of those.
* Every request is recorded as :class:`RecordedRequest` (method, path, lower-cased
  headers, raw body, parsed JSON) in :attr:`FakeProvider.requests`.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = [
    "ANTHROPIC_PATHS",
    "OLLAMA_PATHS",
    "OPENAI_PATHS",
    "Behaviour",
    "FakeProvider",
    "RecordedRequest",
    "Reply",
    "anthropic_error",
    "anthropic_message",
    "closed_port",
    "openai_completion",
    "openai_error",
    "running_provider",
]

OPENAI_PATHS = ("/chat/completions", "/v1/chat/completions")
ANTHROPIC_PATHS = ("/v1/messages",)
OLLAMA_PATHS = ("/api/chat",)


@dataclass(frozen=True)
class Reply:
    """One scripted response.

    Attributes:
        status: HTTP status code.
        json: JSON body (serialised; ``Content-Type: application/json``).
        body: raw body (str is UTF-8 encoded); used when ``json`` is ``None``.
        headers: extra response headers.
        delay_s: seconds to wait before answering (for client timeouts).
        close: drop the connection without sending any response.
    """

    status: int = 200
    json: Any = None
    body: bytes | str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    close: bool = False


@dataclass(frozen=True)
class RecordedRequest:
    """A request the fake received: ``headers`` keys are lower-cased; ``json`` is the
    parsed body, or ``None`` when it was not JSON."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    json: Any


#: What the fake does for one request.
Behaviour = Reply | dict[str, Any] | Callable[[Any], "Reply | dict[str, Any]"]


def openai_completion(
    content: str | None,
    *,
    model: str = "fake-model",
    prompt_tokens: int | None = 100,
    completion_tokens: int | None = 12,
    choices: bool = True,
) -> dict[str, Any]:
    """An OpenAI Chat Completions body with ``content`` as the message content.

    ``choices=False`` gives an empty ``choices`` list; ``None`` token counts leave
    ``usage`` out entirely when both are ``None``.
    """
    body: dict[str, Any] = {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ]
        if choices
        else [],
    }
    if prompt_tokens is not None or completion_tokens is not None:
        body["usage"] = {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": (prompt_tokens or 0) + (completion_tokens or 0),
        }
    return body


def openai_error(
    message: str,
    *,
    status: int = 400,
    type: str = "invalid_request_error",
    code: str | None = None,
    param: str | None = None,
    headers: dict[str, str] | None = None,
) -> Reply:
    """An OpenAI-style error response ``{"error": {message, type, param, code}}``."""
    return Reply(
        status=status,
        json={"error": {"message": message, "type": type, "param": param, "code": code}},
        headers=headers or {},
    )


def anthropic_message(
    text: str | list[str],
    *,
    model: str = "claude-fake",
    input_tokens: int = 120,
    output_tokens: int = 15,
    cache_read_input_tokens: int | None = None,
) -> dict[str, Any]:
    """An Anthropic Messages body whose ``content`` holds ``text`` as text block(s)."""
    texts = [text] if isinstance(text, str) else text
    usage: dict[str, Any] = {"input_tokens": input_tokens, "output_tokens": output_tokens}
    if cache_read_input_tokens is not None:
        usage["cache_read_input_tokens"] = cache_read_input_tokens
    return {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [{"type": "text", "text": t} for t in texts],
        "stop_reason": "end_turn",
        "usage": usage,
    }


def anthropic_error(
    type: str, message: str, *, status: int = 400, headers: dict[str, str] | None = None
) -> Reply:
    """An Anthropic-style error ``{"type": "error", "error": {type, message}}``."""
    return Reply(
        status=status,
        json={"type": "error", "error": {"type": type, "message": message}},
        headers=headers or {},
    )


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    allow_reuse_address = True
    # The default listen backlog (5) drops connection attempts beyond it and the
    # client retries only after ~1 s; replay --live opens 16 at once.
    request_queue_size = 128
    fake: FakeProvider


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # silence stderr
        del format, args

    def do_GET(self) -> None:
        self._serve()

    def do_POST(self) -> None:
        self._serve()

    def _serve(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            parsed = json.loads(raw) if raw else None
        except ValueError:
            parsed = None
        request = RecordedRequest(
            method=self.command,
            path=self.path,
            headers={k.lower(): v for k, v in self.headers.items()},
            body=raw,
            json=parsed,
        )
        fake = self.server.fake
        routed = (
            self.command == "POST" and self.path in OPENAI_PATHS + ANTHROPIC_PATHS + OLLAMA_PATHS
        )
        behaviour = fake._record_and_next(request, consume=routed)
        if behaviour is None:  # unknown route: recorded, script left untouched
            reply = Reply(status=404, json={"error": {"message": f"no route {self.path}"}})
        else:
            reply = _materialise(behaviour, parsed)
        if reply.delay_s > 0:
            time.sleep(reply.delay_s)
        if reply.close:
            self.close_connection = True
            return
        if reply.json is not None:
            payload = json.dumps(reply.json).encode("utf-8")
            content_type = "application/json"
        else:
            body = reply.body or b""
            payload = body.encode("utf-8") if isinstance(body, str) else body
            content_type = "text/plain; charset=utf-8"
        try:
            self.send_response(reply.status)
            headers = {"Content-Type": content_type, **reply.headers}
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the client gave up (e.g. its timeout)


def _materialise(behaviour: Behaviour, parsed: Any) -> Reply:
    if callable(behaviour) and not isinstance(behaviour, Reply | dict):
        behaviour = behaviour(parsed)
    if isinstance(behaviour, Reply):
        return behaviour
    if isinstance(behaviour, dict):
        return Reply(json=behaviour)
    raise TypeError(f"fake provider behaviour must be Reply or dict, got {behaviour!r}")


class FakeProvider:
    """A threaded fake provider on 127.0.0.1 (see the module docstring).

    Args:
        default: behaviour when the script is empty (default: HTTP 500 "script
            exhausted").
    """

    def __init__(self, default: Behaviour | None = None) -> None:
        self._lock = threading.Lock()
        self._script: deque[Behaviour] = deque()
        self._requests: list[RecordedRequest] = []
        self.default: Behaviour = default or Reply(
            status=500, json={"error": {"message": "fake provider: script exhausted"}}
        )
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle --------------------------------------------------------------

    def start(self) -> FakeProvider:
        """Bind an ephemeral port on 127.0.0.1 and serve in a daemon thread."""
        server = _Server(("127.0.0.1", 0), _Handler)
        server.fake = self
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and release the port (idempotent)."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> FakeProvider:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- addresses ----------------------------------------------------------------

    @property
    def port(self) -> int:
        """The TCP port served."""
        if self._server is None:
            raise RuntimeError("fake provider is not running")
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT`` (the Anthropic base URL)."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def openai_base(self) -> str:
        """``http://127.0.0.1:PORT/v1`` (the OpenAI-compatible base URL)."""
        return self.url + "/v1"

    @property
    def anthropic_base(self) -> str:
        """``http://127.0.0.1:PORT`` (Anthropic base URL; the judge adds /v1/messages)."""
        return self.url

    # -- script and records ---------------------------------------------------------

    def script(self, *behaviours: Behaviour) -> None:
        """Append behaviours, used one per request in order."""
        with self._lock:
            self._script.extend(behaviours)

    def reset(self) -> None:
        """Forget the script and the recorded requests."""
        with self._lock:
            self._script.clear()
            self._requests.clear()

    @property
    def requests(self) -> list[RecordedRequest]:
        """A copy of the requests received so far, in arrival order."""
        with self._lock:
            return list(self._requests)

    @property
    def count(self) -> int:
        """Number of requests received so far."""
        with self._lock:
            return len(self._requests)

    @property
    def pending(self) -> int:
        """Scripted behaviours not used yet."""
        with self._lock:
            return len(self._script)

    def _record_and_next(self, request: RecordedRequest, *, consume: bool) -> Behaviour | None:
        with self._lock:
            self._requests.append(request)
            if not consume:
                return None
            return self._script.popleft() if self._script else self.default


@contextmanager
def running_provider(default: Behaviour | None = None) -> Iterator[FakeProvider]:
    """Context manager yielding a started :class:`FakeProvider`."""
    fake = FakeProvider(default)
    fake.start()
    try:
        yield fake
    finally:
        fake.stop()


def closed_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (bound, then released)."""
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
