"""The registry of judge factories: names → how to build the judge (design.md §10, §13).

Pure bookkeeping, importing no judge: built-in judges are registered by a lazy
``"module:attr"`` path, exactly like any third-party one. Third-party judges are
discovered from the ``jev.judges`` entry-point group of the installed distributions,
lazily — only when a name is not built in or the full list is asked for — so the
hook's path never scans installed packages for a built-in judge::

    # in the plugin's pyproject.toml
    [project.entry-points."jev.judges"]
    myjudge = "jev_myjudge:MyJudge.from_settings"

after which ``jev audit --judge myjudge`` and ``judge.provider = "myjudge"`` work.
:mod:`jev.judges` builds judges from this registry; :mod:`jev.settings.profiles` checks
``judge.provider`` against it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

__all__ = [
    "BUILTIN_JUDGES",
    "ENTRY_POINT_GROUP",
    "INTERNAL_JUDGES",
    "judge_names",
    "lookup",
    "offered_judge_names",
    "register",
    "set_resolved",
]

#: The entry-point group third-party judges register under.
ENTRY_POINT_GROUP = "jev.judges"

#: The judges shipped with Jev: name -> lazy factory path.
BUILTIN_JUDGES: dict[str, str] = {
    "rules": "jev.judges.rules:RulesJudge.from_settings",
    "openai": "jev.judges.openai_compat:OpenAIJudge.from_settings",
    "anthropic": "jev.judges.anthropic:AnthropicJudge.from_settings",
    "ollama": "jev.judges.ollama:OllamaJudge.from_settings",
    "scripted": "jev.judges.scripted:ScriptedJudge.from_settings",
}

#: A registry entry: a factory callable, or its lazy ``"module:attr"`` path.
Entry = Callable[..., Any] | str

_lock = threading.Lock()
_registry: dict[str, Entry] = dict(BUILTIN_JUDGES)
_discovered = False


def _discover() -> None:
    """Add the ``jev.judges`` entry points once (names registered in-process win)."""
    global _discovered
    with _lock:
        if _discovered:
            return
        _discovered = True
    # lazy: scanning installed distributions costs milliseconds; built-ins never need it.
    from importlib.metadata import entry_points

    found = {ep.name: ep.value for ep in entry_points(group=ENTRY_POINT_GROUP)}
    with _lock:
        for name, value in found.items():
            if _valid_name(name) and _valid_path(value):
                _registry.setdefault(name, value)


def _valid_name(name: str) -> bool:
    return bool(name) and not any(ch.isspace() for ch in name)


def _valid_path(path: str) -> bool:
    module, sep, attr = path.partition(":")
    return bool(module and sep and attr)


def register(name: str, factory: Entry) -> None:
    """Register (or replace) the judge called ``name``.

    Raises:
        ValueError: for an empty name, a name with whitespace, a string factory not
            of the form ``"module:attr"``, or a factory that is neither.
    """
    if not _valid_name(name):
        raise ValueError(f"judge name must be non-empty without whitespace, got {name!r}")
    if isinstance(factory, str):
        if not _valid_path(factory):
            raise ValueError(f"lazy judge factory must look like 'module:attr', got {factory!r}")
    elif not callable(factory):
        raise ValueError(f"judge factory for {name!r} must be callable or 'module:attr'")
    with _lock:
        _registry[name] = factory


def unregister(name: str) -> None:
    """Forget the judge called ``name`` (no error when unknown)."""
    with _lock:
        _registry.pop(name, None)


def lookup(name: str) -> Entry | None:
    """The factory (or lazy path) registered as ``name``, discovering plugins on a miss."""
    with _lock:
        entry = _registry.get(name)
    if entry is None and not _discovered:
        _discover()
        with _lock:
            entry = _registry.get(name)
    return entry


def set_resolved(name: str, path: str, factory: Callable[..., Any]) -> None:
    """Replace the lazy ``path`` of ``name`` by its imported ``factory`` (if unchanged)."""
    with _lock:
        if _registry.get(name) == path:
            _registry[name] = factory


def judge_names() -> list[str]:
    """Every registered judge name, installed plugins included, sorted."""
    _discover()
    with _lock:
        return sorted(_registry)


#: Judges for tests and replay only: accepted when set, never offered to users.
INTERNAL_JUDGES = frozenset({"scripted"})


def offered_judge_names() -> list[str]:
    """The judge names offered to users (messages, pages): :func:`judge_names` without
    :data:`INTERNAL_JUDGES` (issue 23 item 4)."""
    return [name for name in judge_names() if name not in INTERNAL_JUDGES]
