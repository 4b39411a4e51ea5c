"""Jev: a completion-claim auditor for coding-agent turns that used a Todo list.

Importing :mod:`jev` is cheap: it loads no HTTP client, templates or schemas, so the
hook's fast path stays light. Import the parts you need from their modules
(``jev.domain``, ``jev.api``, ``jev.judges``, …).
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
