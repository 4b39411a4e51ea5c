"""``jev ui``: a local web page for per-profile settings and for what Jev did.

The pages are server-rendered jinja2 templates (``jev/ui/templates``) with one
stylesheet (``jev/ui/static/jev.css``) and inline SVG charts; no script, no build step,
no asset from anywhere but the server itself. The server is the standard library's
WSGI server (:mod:`wsgiref`) with one thread per request:

* :mod:`jev.ui.app` — the WSGI application: the URL token, the CSRF check, the
  ``Host``/``Origin`` checks, routing, security headers;
* :mod:`jev.ui.settings_view` — the settings page (design.md §10): the same parsing
  and validation code as ``jev settings set`` (:func:`jev.settings.profiles.parse_raw`,
  :func:`jev.settings.profiles.save_settings`), profiles, "test the judge";
* :mod:`jev.ui.records_view` — what Jev did (design.md §11): turns, one turn's rounds,
  the overview's counts, all read through :class:`jev.store.Store`'s public reading
  methods;
* :mod:`jev.ui.charts` — the small inline SVG charts;
* :mod:`jev.ui.server` — binding (127.0.0.1 by default), the printed URL, the browser.

Example::

    from jev.ui import UiServer
    with UiServer(port=0) as server:       # 127.0.0.1, a free port
        print(server.url)                  # http://127.0.0.1:PORT/<token>/
        server.serve_forever()
"""

from __future__ import annotations

from jev.ui.server import LOOPBACK_HOSTS, UiServer, is_loopback

__all__ = ["LOOPBACK_HOSTS", "UiServer", "is_loopback"]
