"""The host registry: which host package serves which host (design.md §12; issue 24 item 2).

A host is one package (``jev/hosts/<host>/`` for the built-in ones) holding
``adapter.py`` (its ``ADAPTER``, a :class:`jev.hosts.base.HostAdapter`) and
``fileformat.py`` (its transcript format: sniffing and reading, a
:class:`jev.hosts.base.TranscriptFormat`), plus whatever else it needs (reader,
installer details, judge). The generic modules (the hook, ``jev audit --from``,
format detection, install, doctor) loop over this registry; none names a host.

Stdlib only and import-light: ``jev hook`` looks its host up here on the fast path,
before anything else is imported. Host packages are loaded lazily, so a stop of one
host never imports another host's code.

A built-in host is one line in :data:`_BUILTIN`. A third-party host registers itself
with one line in its own distribution's ``pyproject.toml``::

    [project.entry-points."jev.hosts"]
    my-host = "my_host"          # the package holding adapter.py and fileformat.py

(found when it is first named: ``jev hook my-host``, ``jev audit --from my-host``, and in
format detection), or at run time with :func:`register_host`.
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # no ``typing`` import on the fast path
if TYPE_CHECKING:
    from jev.hosts.base import HostAdapter, TranscriptFormat

__all__ = [
    "ENTRY_POINT_GROUP",
    "adapter",
    "adapter_for_hook",
    "discover",
    "file_format",
    "hook_names",
    "host_names",
    "register_host",
]

#: The entry-point group a third-party host package is registered under.
ENTRY_POINT_GROUP = "jev.hosts"

#: host name → host package (holding ``adapter.py`` and ``fileformat.py``).
_BUILTIN: dict[str, str] = {
    "claude-code": "jev.hosts.claude_code",
    "codex": "jev.hosts.codex",
    "gemini": "jev.hosts.gemini",
    "cursor": "jev.hosts.cursor",
    "copilot": "jev.hosts.copilot",
    "qwen": "jev.hosts.qwen",
    "droid": "jev.hosts.droid",
}
_modules: dict[str, str] = dict(_BUILTIN)
_discovered = False
#: Hook names that are not the host's own name: ``jev hook <name>`` → (host, role).
_EXTRA_HOOKS: dict[str, tuple[str, str]] = {
    "claude-code-session-start": ("claude-code", "session-start"),
    "gemini-session-start": ("gemini", "session-start"),
}


def register_host(name: str, package: str, extra_hooks: dict[str, str] | None = None) -> None:
    """Register (or replace) the host package of host ``name``.

    Args:
        name: the host's name (``jev hook NAME``, records, turn keys).
        package: an importable package path holding ``adapter`` (whose ``ADAPTER``
            attribute is the adapter) and ``fileformat`` (its transcript format).
        extra_hooks: further hook names of this host, ``{hook name: role}``.
    """
    _modules[name] = package
    for hook, role in (extra_hooks or {}).items():
        _EXTRA_HOOKS[hook] = (name, role)


def discover() -> tuple[str, ...]:
    """Add the hosts of the ``jev.hosts`` entry points once (names already registered
    win) and return every registered host. Costs a scan of the installed distributions,
    so the hook's paths never call it for a built-in host."""
    global _discovered
    if not _discovered:
        _discovered = True
        # lazy: scanning installed distributions costs milliseconds; built-ins never need it
        from importlib.metadata import entry_points

        for ep in entry_points(group=ENTRY_POINT_GROUP):
            if ep.name and ep.value and not any(ch.isspace() for ch in ep.name):
                _modules.setdefault(ep.name, ep.value)
    return tuple(_modules)


def host_names() -> tuple[str, ...]:
    """Every registered host, built-in ones first in their table order (entry-point
    hosts once :func:`discover` has run)."""
    return tuple(_modules)


def hook_names() -> tuple[str, ...]:
    """Every name ``jev hook`` accepts: each host's own name plus extra hook names."""
    return (*_modules, *(h for h, (host, _) in _EXTRA_HOOKS.items() if host in _modules))


def resolve_hook(name: str) -> tuple[str, str] | None:
    """``(host, role)`` of the hook ``name`` (role ``stop`` or ``session-start``), or
    ``None`` for an unknown name. Imports nothing for a registered name (an unknown
    one runs :func:`discover`)."""
    if name not in _modules and name not in _EXTRA_HOOKS:
        discover()
    if name in _modules:
        return name, "stop"
    extra = _EXTRA_HOOKS.get(name)
    if extra is not None and extra[0] in _modules:
        return extra
    return None


def adapter(host: str) -> HostAdapter:
    """The adapter of ``host`` (its module is imported on first use).

    Raises:
        jev.base.errors.UsageError: ``host`` is not registered.
    """
    if host not in _modules:
        discover()
    module = _modules.get(host)
    if module is None:
        # lazy: the fast path imports this module at every stop; jev.base.errors only when raising
        from jev.base.errors import UsageError

        raise UsageError(f"unknown host {host!r}; expected one of: {', '.join(_modules)}")
    found: HostAdapter = importlib.import_module(module + ".adapter").ADAPTER
    return found


def file_format(host: str) -> TranscriptFormat:
    """The transcript format of ``host`` (its package's ``fileformat`` module, imported
    on first use; light: no reader is imported until a file is read).

    Raises:
        jev.base.errors.UsageError: ``host`` is not registered.
    """
    if host not in _modules:
        discover()
    module = _modules.get(host)
    if module is None:
        # lazy: jev.base.errors only when raising
        from jev.base.errors import UsageError

        raise UsageError(f"unknown host {host!r}; expected one of: {', '.join(_modules)}")
    found: TranscriptFormat = importlib.import_module(module + ".fileformat")
    return found


def adapter_for_hook(name: str) -> tuple[HostAdapter, str]:
    """``(adapter, role)`` of the hook ``name``.

    Raises:
        jev.base.errors.UsageError: unknown hook name.
    """
    resolved = resolve_hook(name)
    if resolved is None:
        # lazy: the fast path imports this module at every stop; jev.base.errors only when raising
        from jev.base.errors import UsageError

        raise UsageError(f"unknown hook {name!r}; expected one of: {', '.join(hook_names())}")
    return adapter(resolved[0]), resolved[1]
