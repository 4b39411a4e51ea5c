"""Judges: the :class:`Judge` protocol and the registry of judge factories (design.md §13).

A judge turns one rendered :class:`~jev.base.domain.JudgeInput` into one raw
:class:`~jev.base.domain.JudgeAnswer`. It never parses the verdict (the core does, with
``jev.pipeline.parse.parse_reply``) and never retries (the core retries; judges only classify
errors as :class:`~jev.base.errors.TransportError` with ``kind``/``status``/
``retry_after_s``/``retryable``, or :class:`~jev.base.errors.ContextLengthError`).

Built-in judges register through the same registry (:mod:`jev.registry`) as any
third-party one, lazily by ``"module:attr"`` path, so importing this package imports
neither httpx nor any judge module (the hook's fast path stays light). Installed
packages add judges through the ``jev.judges`` entry-point group, discovered on first
need:

=============  ==================================================  =====================
name           factory                                             what it is
=============  ==================================================  =====================
``rules``      ``jev.judges.rules:RulesJudge.from_settings``       offline heuristic
``openai``     ``jev.judges.openai_compat:OpenAIJudge.from_settings``  Chat Completions
``anthropic``  ``jev.judges.anthropic:AnthropicJudge.from_settings``   Messages API
``ollama``     ``jev.judges.ollama:OllamaJudge.from_settings``         Ollama /api/chat
``scripted``   ``jev.judges.scripted:ScriptedJudge.from_settings``     tests / replay
=============  ==================================================  =====================

Example::

    from jev.judges import create_judge
    judge = create_judge(settings.judge)
    try:
        answer = judge.ask(judge_input, numbering)
    finally:
        judge.close()
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from jev import registry
from jev.base.errors import SettingsError, UsageError

if TYPE_CHECKING:
    from jev.base.domain import JudgeAnswer, JudgeInfo, JudgeInput, JudgeSettings, Numbering

__all__ = [
    "Judge",
    "JudgeFactory",
    "create_judge",
    "judge_class_attribute",
    "judge_names",
    "register_judge",
]


@runtime_checkable
class Judge(Protocol):
    """What the core needs from any judge (design.md §5, §6, §13).

    Attributes:
        info: provider name, model name and whether the judge is a heuristic.

    ``ask`` sends ``judge_input.system`` as the system message and
    ``judge_input.user`` as the user message (HTTP judges send nothing else);
    ``numbering`` is the same material, structured, for offline judges. They return
    the raw reply text with usage, model and latency in milliseconds, and raise
    :class:`~jev.base.errors.TransportError` (timeout, connection, HTTP status, bad body)
    or :class:`~jev.base.errors.ContextLengthError`. ``close`` releases connections and
    is idempotent.
    """

    info: JudgeInfo

    def ask(self, judge_input: JudgeInput, numbering: Numbering) -> JudgeAnswer:
        """Ask once; return the raw answer (see the class docstring)."""
        ...

    def close(self) -> None:
        """Release resources (idempotent)."""
        ...


#: A judge factory: builds a judge from the profile's ``[judge]`` table.
JudgeFactory = Callable[["JudgeSettings"], Judge]

# The registry's own table and lock (tests inspect them).
_registry = registry._registry
_lock = registry._lock


def register_judge(name: str, factory: JudgeFactory | str) -> None:
    """Register (or replace) the judge called ``name`` (design.md §10 ``judge.provider``).

    Installed distributions can also register judges without any code running, through
    the ``jev.judges`` entry-point group (see :mod:`jev.registry`).

    Args:
        name: the provider name users put in ``judge.provider`` (non-empty, no
            whitespace).
        factory: a callable ``JudgeSettings -> Judge``, or a lazy ``"module:attr"``
            path (``attr`` may be dotted, e.g. ``"pkg.mod:Class.from_settings"``)
            imported only when the judge is first created.

    Raises:
        ValueError: for an empty name, a name with whitespace, or a string factory
            that is not of the form ``"module:attr"``.
    """
    registry.register(name, factory)


def judge_names() -> list[str]:
    """The registered judge names, installed plugins included, sorted (imports no judge)."""
    return registry.judge_names()


def _resolve(name: str, path: str) -> JudgeFactory:
    module_name, _, attr = path.partition(":")
    try:
        obj: object = importlib.import_module(module_name)
    except ImportError as exc:
        raise SettingsError(
            f"judge {name!r} cannot be loaded: module {module_name} failed to import "
            f"({type(exc).__name__}: {exc}); reinstall Jev (or the judge's package) or "
            "choose another judge.provider"
        ) from exc
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise SettingsError(
                f"judge {name!r} cannot be loaded: {path} does not exist; reinstall Jev "
                "(or the judge's package) or choose another judge.provider"
            ) from None
    if not callable(obj):
        raise SettingsError(f"judge {name!r} cannot be loaded: {path} is not callable")
    factory: JudgeFactory = obj
    return factory


def judge_class_attribute(provider: str, name: str, default: object = None) -> object:
    """Attribute ``name`` of the class behind judge ``provider`` (a host judge's
    ``program``, an HTTP judge's ``default_key_env``, …), read without building the
    judge; ``default`` when the provider is unknown, registered as a callable, cannot
    be imported, or the attribute is missing or empty. Never raises."""
    try:
        target = registry.lookup(provider)
        if not isinstance(target, str):
            return default
        module, _, attr = target.partition(":")
        obj: object = importlib.import_module(module)
        for part in attr.split(".")[:-1] or [attr]:
            obj = getattr(obj, part)
        value = getattr(obj, name, default)
    except Exception:
        return default
    return default if value is None or value == "" else value


def create_judge(settings: JudgeSettings) -> Judge:
    """Build the judge named by ``settings.provider`` (design.md §10, §13).

    A name that is not built in or registered in this process is looked up among the
    installed ``jev.judges`` entry points.

    Args:
        settings: the profile's ``[judge]`` table.

    Returns:
        a ready judge; call ``close()`` when done.

    Raises:
        UsageError: the provider name is not registered (the message lists the
            registered names).
        SettingsError: the judge cannot be loaded, or refuses the settings (e.g. an
            HTTP judge without a model).
    """
    name = settings.provider
    entry = registry.lookup(name)
    if entry is None:
        raise UsageError(
            f"unknown judge provider {name!r}; registered judges: "
            f"{', '.join(registry.offered_judge_names())}. Set one with `jev settings set "
            "judge.provider NAME` "
            "or install the judge's package"
        )
    if isinstance(entry, str):
        factory = _resolve(name, entry)
        registry.set_resolved(name, entry, factory)
    else:
        factory = entry
    judge: Judge = factory(settings)
    return judge
