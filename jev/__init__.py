"""Jev: a completion-claim auditor for coding-agent turns that used a Todo list.

The public surface, importable from ``jev`` directly::

    from jev import Auditor, Decision, Material, TodoItem, Settings, Store, run_audit, create_judge

Importing :mod:`jev` itself is cheap: the names are loaded on first use (PEP 562), so
the Stop hook's fast path loads no HTTP client, templates or schemas.
"""

from __future__ import annotations

import importlib

__version__ = "0.1.0"

#: public name -> module that defines it
_EXPORTS: dict[str, str] = {
    "Auditor": "jev.pipeline.audit",
    "Decision": "jev.pipeline.decide",
    "run_audit": "jev.pipeline.audit",
    "Material": "jev.base.domain",
    "TodoItem": "jev.base.domain",
    "Settings": "jev.base.domain",
    "JudgeSettings": "jev.base.domain",
    "Verdict": "jev.base.domain",
    "AuditOutcome": "jev.base.domain",
    "JevError": "jev.base.errors",
    "Judge": "jev.judges",
    "create_judge": "jev.judges",
    "register_judge": "jev.judges",
    "load_settings": "jev.settings.profiles",
    "Store": "jev.store",
}

__all__ = ["__version__", *sorted(_EXPORTS)]


def __getattr__(name: str) -> object:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'jev' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
