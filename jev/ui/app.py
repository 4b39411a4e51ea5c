"""The WSGI application behind ``jev ui``: token, CSRF, routing, headers.

Every URL starts with a random per-start token (``/<token>/settings``): a request
without it is answered 404 and touches nothing, so another local user's browser or a
web site that guesses the port cannot even read the pages. Every change is a POST
that must also carry the per-start CSRF value of the forms (``csrf``) and, when the
browser sends one, an ``Origin`` of this server; a request failing either check is
answered 403 and changes nothing. Every method other than GET and HEAD (OPTIONS, PUT,
DELETE, …) passes the same checks, and only a POST then reaches a handler (405
otherwise). When the server listens on a loopback address, the
``Host`` header must name a loopback address too (no DNS-rebinding).

Every answer carries a Content-Security-Policy that allows nothing but this server
(``default-src 'none'``; the stylesheet and forms from ``'self'``), no referrer to
other sites, no framing, no caching. (The referrer policy is ``same-origin``, not
``no-referrer``: with ``no-referrer`` Chromium sends ``Origin: null`` on form posts,
which the Origin check refuses.)
"""

from __future__ import annotations

import hmac
import json
import traceback
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode

from jev.base.terminal import visible
from jev.store import Store

__all__ = ["MAX_FORM_BYTES", "Request", "Response", "UiApp", "shown"]

#: Largest accepted form body (bytes); a settings form is a few hundred bytes.
MAX_FORM_BYTES = 64 * 1024

_HERE = Path(__file__).resolve().parent
_CSP = (
    "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; "
    "frame-ancestors 'none'; base-uri 'none'"
)
_STATUS_TEXT = {
    200: "OK",
    303: "See Other",
    400: "Bad Request",
    403: "Forbidden",
    404: "Not Found",
    405: "Method Not Allowed",
    413: "Content Too Large",
    415: "Unsupported Media Type",
    500: "Internal Server Error",
}


@dataclass(frozen=True, slots=True)
class Request:
    """One request, already past the token check.

    Attributes:
        method: ``GET`` or ``POST``.
        path: the path after the token, starting with ``/`` (``/settings``).
        query: query parameters (first value of each name).
        form: the url-encoded form of a POST (first value of each name).
    """

    method: str
    path: str
    query: Mapping[str, str] = field(default_factory=dict)
    form: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Response:
    """One answer: HTTP status, body bytes, content type and extra headers."""

    status: int
    body: bytes = b""
    content_type: str = "text/html; charset=utf-8"
    headers: tuple[tuple[str, str], ...] = ()


Handler = Callable[["UiApp", Request], Response]


class UiApp:
    """The WSGI callable serving the settings and records pages.

    Args:
        token: the per-start URL token (URL-safe text, e.g. ``secrets.token_urlsafe``).
        csrf: the per-start value every POST form must carry in its ``csrf`` field.
        allowed_hosts: ``Host`` header host names accepted (lower case, without port);
            ``None`` accepts any (a non-loopback ``--host``, where the token is the guard).
        store_path: the records database (``None`` = ``$JEV_HOME/jev.sqlite3``).

    The store is opened on first use and shared by the request threads (the store
    serialises its calls); :meth:`close` closes it.
    """

    def __init__(
        self,
        *,
        token: str,
        csrf: str,
        allowed_hosts: frozenset[str] | None = None,
        store_path: Path | None = None,
    ) -> None:
        # lazy: jinja2 only when the UI serves (jev --help imports every command module)
        import jinja2

        self.token = token
        self.csrf = csrf
        self.allowed_hosts = allowed_hosts
        self.store_path = store_path
        self._store: Any = None
        self.env = jinja2.Environment(
            loader=jinja2.FileSystemLoader(str(_HERE / "templates")),
            autoescape=True,
            finalize=shown,
            undefined=jinja2.StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
        )
        self.env.globals["csrf"] = csrf
        self.env.globals["base"] = f"/{token}"
        self.env.filters["qs"] = _query_string

    # -- the store -------------------------------------------------------------------

    def store(self) -> Any:
        """The records store (:class:`jev.store.Store`), opened on first use.

        Raises:
            jev.base.errors.StoreError: the database cannot be opened.
        """
        if self._store is None:
            self._store = Store(self.store_path)
        return self._store

    def close(self) -> None:
        """Close the store if it was opened."""
        if self._store is not None:
            self._store.close()
            self._store = None

    # -- rendering -------------------------------------------------------------------

    def render(self, template: str, status: int = 200, **context: Any) -> Response:
        """Render ``templates/<template>`` with ``context`` into an HTML response."""
        html = self.env.get_template(template).render(**context)
        return Response(status, html.encode("utf-8"))

    def redirect(self, path: str, **query: str) -> Response:
        """A 303 to ``/<token><path>`` with ``query`` (after a successful POST)."""
        location = f"/{self.token}{path}" + _query_string(query)
        return Response(303, b"", "text/plain; charset=utf-8", (("Location", location),))

    # -- WSGI ------------------------------------------------------------------------

    def __call__(
        self, environ: dict[str, Any], start_response: Callable[..., Any]
    ) -> Iterable[bytes]:
        try:
            response = self._dispatch(environ)
        except Exception as exc:  # one page per internal error; the server keeps running
            traceback.print_exc()
            response = self._plain(
                500,
                f"Jev's page failed: {type(exc).__name__}: {exc}. The settings on disk are "
                "unchanged; see the terminal running `jev ui` for details.",
            )
        headers = [
            ("Content-Type", response.content_type),
            ("Content-Length", str(len(response.body))),
            ("Content-Security-Policy", _CSP),
            ("X-Content-Type-Options", "nosniff"),
            ("X-Frame-Options", "DENY"),
            ("Referrer-Policy", "same-origin"),
            ("Cache-Control", "no-store"),
            *response.headers,
        ]
        status = f"{response.status} {_STATUS_TEXT.get(response.status, '')}".strip()
        start_response(status, headers)
        return [response.body]

    def _plain(self, status: int, text: str) -> Response:
        return Response(status, (text + "\n").encode("utf-8"), "text/plain; charset=utf-8")

    def _dispatch(self, environ: Mapping[str, Any]) -> Response:
        if not self._host_ok(environ):
            return self._plain(
                403, "Refused: the Host header does not name this local server (DNS rebinding?)."
            )
        path = str(environ.get("PATH_INFO") or "/")
        rest = self._strip_token(path)
        if rest is None:
            return self._plain(
                404,
                "Not found. Open the address `jev ui` printed: it carries a token that "
                "changes at every start.",
            )
        method = str(environ.get("REQUEST_METHOD") or "GET").upper()
        query = dict(parse_qsl(str(environ.get("QUERY_STRING") or ""), keep_blank_values=True))
        if rest == "/static/jev.css" and method in ("GET", "HEAD"):
            css = (_HERE / "static" / "jev.css").read_bytes()
            return Response(200, css, "text/css; charset=utf-8")
        reading = method in ("GET", "HEAD")
        routes = _get_routes() if reading else _post_routes()
        handler = routes.get(rest)
        if handler is None:
            if rest in _get_routes() or rest in _post_routes():
                return self._plain(405, f"{method} is not allowed here.")
            return self._plain(404, f"No page {rest!r}. Start from the settings page.")
        if reading:
            return handler(self, Request(method, rest, query, {}))
        # every other method (OPTIONS, PUT, PATCH, DELETE, …) passes the same checks as a
        # POST first, and only a POST reaches a handler: nothing else changes anything
        refused = self._check_post(environ)
        if isinstance(refused, Response):
            return refused
        if method != "POST":
            return self._plain(405, f"{method} is not allowed here; the page's forms POST.")
        return handler(self, Request(method, rest, query, refused))

    def _strip_token(self, path: str) -> str | None:
        parts = path.split("/", 2)  # "", token, rest
        if len(parts) < 2 or not hmac.compare_digest(parts[1].encode(), self.token.encode()):
            return None
        return "/" + (parts[2] if len(parts) > 2 else "")

    def _host_ok(self, environ: Mapping[str, Any]) -> bool:
        if self.allowed_hosts is None:
            return True
        host = str(environ.get("HTTP_HOST") or "")
        name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
        return name.strip("[]").lower() in self.allowed_hosts

    def _check_post(self, environ: Mapping[str, Any]) -> Response | dict[str, str]:
        """The form of a POST that passes the CSRF and Origin checks, else a 4xx."""
        origin = environ.get("HTTP_ORIGIN")
        if origin is not None:  # "null" too: an opaque origin is never this server's page
            server = f"{environ.get('wsgi.url_scheme', 'http')}://{environ.get('HTTP_HOST', '')}"
            if origin != server:
                return self._plain(403, "Refused: this change came from another site's page.")
        ctype = str(environ.get("CONTENT_TYPE") or "").split(";")[0].strip().lower()
        if ctype != "application/x-www-form-urlencoded":
            return self._plain(415, "Refused: send the page's form (url-encoded).")
        try:
            length = int(environ.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = -1
        if length < 0 or length > MAX_FORM_BYTES:
            return self._plain(413, "Refused: the form is too large.")
        body = environ["wsgi.input"].read(length) if length else b""
        try:
            form = dict(parse_qsl(body.decode("utf-8"), keep_blank_values=True))
        except UnicodeDecodeError:
            return self._plain(400, "Refused: the form is not UTF-8 text.")
        given = form.get("csrf", "")
        if not hmac.compare_digest(given.encode(), self.csrf.encode()):
            return self._plain(
                403,
                "Refused: the form's CSRF value is missing or wrong (a page from an older "
                "start of `jev ui`, or another site). Nothing was changed; reload the page.",
            )
        return form


def shown(value: Any) -> Any:
    """``value`` as a page shows it: control and bidi characters made visible.

    Every ``{{ … }}`` of the templates passes through here (jinja2's ``finalize``),
    before HTML escaping: a bidi override (U+202E …) is shown as ``\\u202e`` instead of
    reordering what the reader sees ("evil" displayed as "live"), with the same escapes
    as terminal output (:func:`jev.base.terminal.visible`). Newlines, tabs and carriage
    returns stay (HTML does not interpret them). Values that are not text are unchanged;
    already-safe markup stays markup (the escapes add no HTML).
    """
    if not isinstance(value, str) or (value.isascii() and value.isprintable()):
        return value
    text = "\r".join(visible(part) for part in value.split("\r"))
    if text == value:
        return value
    return type(value)(text) if hasattr(value, "__html__") else text  # Markup stays Markup


def _query_string(params: Mapping[str, Any]) -> str:
    """``?a=1&b=2`` of the non-empty values (``""`` when there are none)."""
    kept = {k: str(v) for k, v in params.items() if v not in (None, "")}
    return ("?" + urlencode(kept)) if kept else ""


def _get_routes() -> dict[str, Handler]:
    # lazy: import cycle: jev.ui imports this module
    from jev.ui import records_view, settings_view

    return {
        "/": settings_view.page,
        "/settings": settings_view.page,
        "/turns": records_view.turns_page,
        "/turn": records_view.turn_page,
        "/overview": records_view.overview_page,
    }


def _post_routes() -> dict[str, Handler]:
    # lazy: import cycle: jev.ui imports this module
    from jev.ui import settings_view

    return {
        "/settings/save": settings_view.save,
        "/settings/enabled": settings_view.switch,
        "/settings/test-judge": settings_view.try_judge,
        "/profiles/create": settings_view.create_profile,
        "/profiles/delete": settings_view.delete_profile,
    }


def json_text(value: Any) -> str:
    """Pretty JSON for showing a stored value on a page."""
    return json.dumps(value, ensure_ascii=False, indent=2)
