"""Step 3 of an audit: render the whole judge input (design.md §5), and Jev's other prompts (§9).

:func:`render_audit` is the step: the numbered material (:mod:`jev.pipeline.material`)
becomes the judge input in the profile's language, whole — the next step
(:mod:`jev.pipeline.budget`) refuses it when it is too large; nothing is cut here.

This is the only module that imports jinja2. Templates live in the shipped
``prompts/`` folder and are rendered by one cached environment with
``autoescape=False`` (prompts are not HTML), ``StrictUndefined`` (a missing variable
is a bug, not an empty string) and ``keep_trailing_newline=True``.

The judge input has two parts:

* ``system`` — ``judge_system.<lang>.j2``: the fixed rules only, identical for every
  audit in a language, so providers with prompt caching reuse it as a prefix;
* ``user`` — ``judge_user.<lang>.j2``: the reference list (which ids exist) and the
  material as an inert data block, one JSON object per line between
  :data:`OPEN_MARKER` and :data:`CLOSE_MARKER`.

Material text goes in only through :func:`data_json`: ``json.dumps`` escapes quotes,
newlines and control characters, and every ``<<<`` / ``>>>`` run is written as
``\\u003c``/``\\u003e`` escapes, so the markers can never appear inside the block and
nothing in the material can end the block or pose as instructions (design.md §5).
"""

from __future__ import annotations

import hashlib
import json
import json.encoder
import os
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

from jev.base.domain import JudgeInput, Material, Numbering, Settings
from jev.base.errors import UsageError
from jev.base.language import LANGUAGES, resolve_language
from jev.base.resources import data_dir
from jev.base.safejson import scrub_surrogates

if TYPE_CHECKING:
    import jinja2

__all__ = [
    "CLOSE_MARKER",
    "OPEN_MARKER",
    "Prepared",
    "data_json",
    "judge_template_names",
    "render_audit",
    "render_judge_input",
    "render_template",
    "rules_chars",
    "template_hash",
]

#: Line that opens the material data block in the judge's user message.
OPEN_MARKER = "<<<MATERIAL>>>"
#: Line that closes the material data block; never appears inside the block.
CLOSE_MARKER = "<<<END MATERIAL>>>"
_encode_string: Any = json.encoder.encode_basestring  # C-accelerated when available


@dataclass(frozen=True, slots=True)
class Prepared:
    """A rendered audit ready for the judge: numbering, judge input and language."""

    material: Material
    numbering: Numbering
    judge_input: JudgeInput
    language: str


def render_audit(
    numbering: Numbering, settings: Settings, *, language: str | None = None
) -> Prepared:
    """Step 3: render the whole judge input of the numbered material (design.md §5).

    Args:
        numbering: the numbered material (:func:`jev.pipeline.material.number`).
        settings: the effective profile (``language`` is used unless overridden).
        language: ``en``/``zh``/``auto`` to override ``settings.language``.

    Returns:
        The :class:`Prepared` audit. Budget is not checked here
        (:func:`jev.pipeline.budget.budget_refusal` is the next step).
    """
    material = numbering.material
    lang = resolve_language(language or settings.language, material)
    return Prepared(material, numbering, render_judge_input(numbering, lang), lang)


def data_json(value: Any) -> str:
    """Serialise ``value`` as one line of inert JSON data for a prompt's data block.

    ``json.dumps(..., ensure_ascii=False)`` (quotes, backslashes, newlines and control
    characters escaped, CJK and emoji kept readable), then every ``<<<`` and ``>>>``
    written as JSON ``\\u003c``/``\\u003e`` escapes so the block markers cannot occur.
    ``json.loads`` of the result gives ``value`` back unchanged.
    """
    return _neutralise_markers(json.dumps(value, ensure_ascii=False))


def _quote(text: str) -> str:
    """JSON string literal of ``text`` (ensure_ascii=False), like ``json.dumps(text)``."""
    quoted: str = _encode_string(text)
    return quoted


_LINE_BREAKS = (("\u2028", "\\u2028"), ("\u2029", "\\u2029"), ("\u0085", "\\u0085"))


def _neutralise_markers(json_text: str) -> str:
    """Write every ``<<<``/``>>>`` run of JSON text as ``\\u003c``/``\\u003e`` escapes.

    Only valid where the runs are inside JSON strings (the only place ``<`` and ``>``
    can occur in JSON), so the decoded value is unchanged. Raw U+2028, U+2029 and
    U+0085 are written as ``\\u`` escapes too, and lone surrogates become U+FFFD.
    """
    if "<<<" in json_text:
        json_text = json_text.replace("<<<", "\\u003c\\u003c\\u003c")
    if ">>>" in json_text:
        json_text = json_text.replace(">>>", "\\u003e\\u003e\\u003e")
    # Line separators a model or log viewer may take for a line break (design.md §5:
    # the material is inert data on its own lines), and lone surrogates, which no
    # encoder can send: escaped / replaced so the block stays one line per value.
    for char, escape in _LINE_BREAKS:
        if char in json_text:
            json_text = json_text.replace(char, escape)
    return scrub_surrogates(json_text)[0]


#: Environment variable naming a folder of replacement templates (checked first).
PROMPTS_DIR_ENV = "JEV_PROMPTS_DIR"


def prompt_dirs() -> tuple[str, ...]:
    """Folders templates are loaded from, first match wins.

    ``$JEV_PROMPTS_DIR`` (when set) comes first, so a user can change a prompt or a
    supplement template without editing the installation — and then run
    ``jev replay`` to see which stored records it changes (design.md §11); the shipped
    ``prompts/`` folder supplies every template the override folder lacks.
    """
    override = os.environ.get(PROMPTS_DIR_ENV)
    shipped = str(data_dir("prompts"))
    return (override, shipped) if override else (shipped,)


@cache
def _environment(dirs: tuple[str, ...]) -> jinja2.Environment:
    # lazy: jinja2 only when a template is rendered (jev audit --judge rules renders none)
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(list(dirs)),
        autoescape=False,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        auto_reload=False,
    )
    env.filters["data"] = data_json
    return env


def render_template(name: str, **context: Any) -> str:
    """Render one shipped template of ``prompts/`` (e.g. ``supplement.en.j2``).

    The environment is shared and cached; a ``data`` filter (:func:`data_json`) is
    available for embedding material as inert JSON.

    Args:
        name: the template's file name inside ``prompts/``.
        **context: the template's variables; every variable it uses must be given.

    Returns:
        The rendered text, trailing newline kept as in the template.

    Raises:
        jinja2.TemplateNotFound: no such template is shipped.
        jinja2.UndefinedError: the template uses a variable missing from ``context``.
    """
    return _environment(prompt_dirs()).get_template(name).render(**context)


def _source(name: str) -> str:
    return _source_in(prompt_dirs(), name)


@cache
def _source_in(dirs: tuple[str, ...], name: str) -> str:
    for folder in dirs:
        path = os.path.join(folder, name)
        if os.path.isfile(path):
            with open(path, encoding="utf-8") as handle:
                return handle.read()
    raise FileNotFoundError(f"prompt template {name!r} not found in {', '.join(dirs)}")


def template_hash(*names: str) -> str:
    """SHA-256 hex digest over the named templates' sources, in the order given.

    Each name and its source enter the hash, so renaming or editing a template
    changes it (records keep it for replay, design.md §11).

    Raises:
        FileNotFoundError: a named template is not shipped.
    """
    digest = hashlib.sha256()
    for name in names:
        digest.update(name.encode("utf-8") + b"\0")
        digest.update(_source(name).encode("utf-8") + b"\0")
    return digest.hexdigest()


def judge_template_names(language: str) -> tuple[str, str]:
    """The (system, user) template names of the judge prompt for ``language``.

    Raises:
        UsageError: ``language`` is not ``en`` or ``zh``.
    """
    if language not in LANGUAGES:
        raise UsageError(f"prompt language must be one of {', '.join(LANGUAGES)}, got {language!r}")
    return f"judge_system.{language}.j2", f"judge_user.{language}.j2"


def rules_chars(language: str) -> int:
    """Characters of the fixed rules text (the judge's system message) in ``language``.

    Raises:
        UsageError: ``language`` is not ``en`` or ``zh``.
    """
    return len(render_template(judge_template_names(language)[0]))


def render_judge_input(numbering: Numbering, language: str) -> JudgeInput:
    """Render the whole judge input for one audit (design.md §5).

    Args:
        numbering: the numbered material (:func:`jev.pipeline.material.number`).
        language: ``"en"`` or ``"zh"`` (:func:`jev.base.language.resolve_language`).

    Returns:
        A :class:`~jev.base.domain.JudgeInput`: ``system`` = the fixed rules, ``user`` =
        the reference list plus the material data block (one JSON object per position:
        ``{"id", "msg", "text"}`` for request segments, ``{"id", "status", "text"}`` for
        Todo items, ``{"id", "text"}`` for answer segments, each line made by :func:`data_json`),
        ``template_hash`` over both template sources.

    Raises:
        UsageError: ``language`` is not ``en`` or ``zh``.
    """
    system_name, user_name = judge_template_names(language)
    lines: list[str] = []
    counts = {"request": 0, "todo": 0, "answer": 0}
    quote = _quote
    # Hand-built equivalent of data_json({...}) per position (ids are plain ASCII,
    # strings go through json's own string encoder): same output, several times faster.
    for p in numbering.positions:
        if p.kind == "request":
            lines.append(f'{{"id": "{p.id}", "msg": {p.message}, "text": {quote(p.text)}}}')
        elif p.kind == "todo":
            status = quote(p.status or "")
            lines.append(f'{{"id": "{p.id}", "status": {status}, "text": {quote(p.text)}}}')
        elif p.kind == "answer":
            lines.append(f'{{"id": "{p.id}", "text": {quote(p.text)}}}')
        else:
            continue
        counts[p.kind] += 1
    block = "\n".join(lines)
    block = _neutralise_markers(block)  # cheap when there is nothing to escape
    user = render_template(
        user_name,
        block=block,
        n_request=counts["request"],
        n_todo=counts["todo"],
        n_answer=counts["answer"],
        n_messages=len(numbering.material.request),
        open_marker=OPEN_MARKER,
        close_marker=CLOSE_MARKER,
    )
    return JudgeInput(
        system=render_template(system_name),
        user=user,
        language=language,
        template_hash=template_hash(system_name, user_name),
    )
