"""One module per agent host (see :mod:`jev.hosts.base` and :mod:`jev.hosts.registry`).

Each module exposes ``ADAPTER``. Module level imports stay within the standard library
and :mod:`jev.paths` / :mod:`jev.hosts.cc_records`-like stdlib-only helpers, without
``typing`` or ``dataclasses``: ``jev hook`` imports the adapter on its fast path.
"""
