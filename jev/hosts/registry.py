"""The host registry: which adapter module serves which host (design.md §12; issue 8 item 1).

Stdlib only and import-light: ``jev hook`` looks its host up here on the fast path,
before anything else is imported. Adapters are loaded lazily by module path, so a
stop of one host never imports another host's code.

Register a new host by adding one line to :data:`_BUILTIN` (a module under
``jev/hosts/adapters/`` exposing ``ADAPTER``), or at run time with
:func:`register_host` (a plugin's own module).
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # no ``typing`` import on the fast path
if TYPE_CHECKING:
    from jev.hosts.base import HostAdapter

__all__ = ["adapter", "adapter_for_hook", "hook_names", "host_names", "register_host"]

#: host name → module defining ``ADAPTER`` (a :class:`jev.hosts.base.HostAdapter`).
_BUILTIN: dict[str, str] = {
    "claude-code": "jev.hosts.adapters.claude_code",
    "codex": "jev.hosts.adapters.codex",
    "gemini": "jev.hosts.adapters.gemini",
    "cursor": "jev.hosts.adapters.cursor",
    "copilot": "jev.hosts.adapters.copilot",
    "qwen": "jev.hosts.adapters.qwen",
    "droid": "jev.hosts.adapters.droid",
}
_modules: dict[str, str] = dict(_BUILTIN)
#: Hook names that are not the host's own name: ``jev hook <name>`` → (host, role).
_EXTRA_HOOKS: dict[str, tuple[str, str]] = {
    "claude-code-session-start": ("claude-code", "session-start"),
    "gemini-session-start": ("gemini", "session-start"),
}


def register_host(name: str, module: str, extra_hooks: dict[str, str] | None = None) -> None:
    """Register (or replace) the adapter module of host ``name``.

    Args:
        name: the host's name (``jev hook NAME``, records, turn keys).
        module: an importable module path whose ``ADAPTER`` attribute is the adapter.
        extra_hooks: further hook names of this host, ``{hook name: role}``.
    """
    _modules[name] = module
    for hook, role in (extra_hooks or {}).items():
        _EXTRA_HOOKS[hook] = (name, role)


def host_names() -> tuple[str, ...]:
    """Every registered host, built-in ones first in their table order."""
    return tuple(_modules)


def hook_names() -> tuple[str, ...]:
    """Every name ``jev hook`` accepts: each host's own name plus extra hook names."""
    return (*_modules, *(h for h, (host, _) in _EXTRA_HOOKS.items() if host in _modules))


def resolve_hook(name: str) -> tuple[str, str] | None:
    """``(host, role)`` of the hook ``name`` (role ``stop`` or ``session-start``), or
    ``None`` for an unknown name. Imports nothing."""
    if name in _modules:
        return name, "stop"
    extra = _EXTRA_HOOKS.get(name)
    if extra is not None and extra[0] in _modules:
        return extra
    return None


def adapter(host: str) -> HostAdapter:
    """The adapter of ``host`` (its module is imported on first use).

    Raises:
        jev.errors.UsageError: ``host`` is not registered.
    """
    module = _modules.get(host)
    if module is None:
        # lazy: the fast path imports this module at every stop; jev.errors only when raising
        from jev.errors import UsageError

        raise UsageError(f"unknown host {host!r}; expected one of: {', '.join(_modules)}")
    found: HostAdapter = importlib.import_module(module).ADAPTER
    return found


def adapter_for_hook(name: str) -> tuple[HostAdapter, str]:
    """``(adapter, role)`` of the hook ``name``.

    Raises:
        jev.errors.UsageError: unknown hook name.
    """
    resolved = resolve_hook(name)
    if resolved is None:
        # lazy: the fast path imports this module at every stop; jev.errors only when raising
        from jev.errors import UsageError

        raise UsageError(f"unknown hook {name!r}; expected one of: {', '.join(hook_names())}")
    return adapter(resolved[0]), resolved[1]
