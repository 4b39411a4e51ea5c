"""Texts Jev shows: the supplement, user notices, the report line, the system-prompt
section (design.md §6–§9). Step 6 (:mod:`jev.pipeline.decide`) renders the first three.

Every wording lives in a template of ``prompts/`` in English and Chinese
(``supplement.*.j2``, ``notice.*.j2``, ``system_section.*.j2``); this module only
prepares the context and picks the language. Templates are rendered through
:func:`jev.pipeline.render.render_template`, imported inside each function, so importing
this module on the hook's fast path costs no jinja2.

Quotes are handled in two ways:

* In a supplement the quote goes back to the agent verbatim, as one JSON string
  (quotes, newlines, backticks and line separators escaped), so text of the turn can
  never pose as a line of the audit message.
* In user-facing one-liners the quote is shortened for display only
  (:data:`DISPLAY_QUOTE_CHARS` characters, whitespace collapsed, ``…`` appended);
  records keep the full text.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from jev.base.domain import EvidenceNote, Position, Verdict
    from jev.base.loop_state import Action, LoopState

__all__ = [
    "DISPLAY_QUOTE_CHARS",
    "LANGUAGES",
    "display_quote",
    "exhausted_notice",
    "incomplete_notice",
    "needs_user_notice",
    "quote_json",
    "report_line",
    "supplement_text",
    "system_prompt_section",
    "text_template_names",
]

#: Languages with shipped templates.
LANGUAGES: tuple[str, ...] = ("en", "zh")
#: Maximum characters of a quote shown in a one-line notice (the ellipsis included).
DISPLAY_QUOTE_CHARS = 120

_PROBLEMS = ("omission", "contradiction", "unknown")
_WHITESPACE = re.compile(r"\s+")


def _language(language: str) -> str:
    if language not in LANGUAGES:
        raise ValueError(f"language must be one of {LANGUAGES}, got {language!r}")
    return language


def _render(stem: str, language: str, **context: Any) -> str:
    # lazy: jinja2 (via jev.pipeline.render) only when a text is rendered; importing
    # texts stays light
    from jev.pipeline.render import render_template

    return render_template(f"{stem}.{_language(language)}.j2", **context).strip("\n")


def text_template_names(language: str) -> tuple[str, ...]:
    """File names of the text templates of ``language`` (for
    :func:`jev.pipeline.render.template_hash`).

    Raises:
        ValueError: for a language other than ``en``/``zh``.
    """
    lang = _language(language)
    return (f"supplement.{lang}.j2", f"notice.{lang}.j2", f"system_section.{lang}.j2")


def quote_json(text: str) -> str:
    """``text`` as one JSON string literal: verbatim content, nothing able to break the line.

    Beyond :func:`json.dumps` escaping, U+2028/U+2029 (line breaks for some readers)
    are escaped too, so the result is always a single line.
    """
    dumped = json.dumps(text, ensure_ascii=False)
    return dumped.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def display_quote(text: str, limit: int = DISPLAY_QUOTE_CHARS) -> str:
    """``text`` on one line for display: whitespace runs collapsed to one space, cut
    to at most ``limit`` characters with a trailing ``…`` when longer.

    Raises:
        ValueError: when ``limit`` < 2.
    """
    if limit < 2:
        raise ValueError(f"limit must be at least 2 characters, got {limit}")
    line = _WHITESPACE.sub(" ", text).strip()
    if len(line) <= limit:
        return line
    return line[: limit - 1].rstrip() + "…"


def _focus_context(focus: Position | None) -> dict[str, Any]:
    if focus is None:
        return {"focus_kind": "", "focus_id": "", "status": None, "quote": ""}
    return {
        "focus_kind": focus.kind,
        "focus_id": focus.id,
        "status": focus.status,
        "quote": display_quote(focus.text),
    }


def supplement_text(
    verdict: Verdict, action: Action, language: str, evidence: EvidenceNote | None = None
) -> str:
    """The supplement sent back into the turn for a problem verdict (design.md §8).

    It names itself an automatic completion-audit message (not the user) with its
    round ``k/N``, gives the verdict category with a one-line meaning, quotes the focus
    position (kind, id, Todo status, exact text as a JSON string; "the material as a
    whole" for ``all``), says what to do for the category, and carries the standing
    instructions (original authorization only; update related Todo items; do not redo
    completed items; state missing evidence truthfully; invent nothing; never force
    ``completed``; no new acceptance criteria or permissions). About 850 characters in
    English plus the quote.

    Args:
        verdict: the problem verdict (``omission``, ``contradiction`` or ``unknown``).
        action: the :func:`jev.pipeline.decide.decide` action of kind ``supplement``.
        language: ``en`` or ``zh``.
        evidence: when the evidence step decided the verdict (issue 21): the
            supplement also names the run's or check's command and exit code and
            quotes its summary line or failing tail (bounded, a JSON string).

    Raises:
        ValueError: when the action is not a supplement, the verdict is not a problem
            verdict, or the language is unsupported.
    """
    if action.kind != "supplement":
        raise ValueError(f"a supplement text needs a supplement action, got {action.kind!r}")
    if verdict.assessment not in _PROBLEMS:
        raise ValueError(
            f"only {', '.join(_PROBLEMS)} verdicts get a supplement, got {verdict.assessment!r}"
        )
    focus = verdict.focus
    return _render(
        "supplement",
        language,
        round=action.round,
        max_supplements=action.max_supplements,
        assessment=verdict.assessment,
        focus_kind=focus.kind,
        focus_id=focus.id,
        status=focus.status,
        quote_json=quote_json(focus.text),
        evidence=evidence.kind if evidence is not None else "",
        command_json=quote_json(evidence.command) if evidence is not None else "",
        exit_code=evidence.exit_code if evidence is not None else None,
        evidence_json=quote_json(evidence.quote) if evidence is not None else "",
    )


def report_line(state: LoopState, action: Action, focus: Position | None, language: str) -> str:
    """The one-line report shown to the user after each audit or supplement (design.md §8).

    Shape (English): ``Jev completion audit: omission → complete · supplements 1/3 ·
    complete · focus R2: “…”`` — the verdict chain of the turn, supplements used of the
    maximum, where the turn stands after ``action``, and the focus with its quote
    shortened by :func:`display_quote` (no focus part for ``None`` or ``none``).

    Args:
        state: the loop state after the decision.
        action: the decision's action (any kind of :data:`jev.base.loop_state.ACTION_KINDS`);
            ``action.reason`` is shown for ``incomplete`` and ``skip``.
        focus: the focus position of the latest verdict, or ``None``.
        language: ``en`` or ``zh``.

    Raises:
        ValueError: for an unsupported language.
    """
    return _render(
        "notice",
        language,
        kind="report",
        chain=list(state.chain),
        used=state.supplements_used,
        max_supplements=action.max_supplements,
        action=action.kind,
        reason=_WHITESPACE.sub(" ", action.reason).strip(),
        **_focus_context(focus),
    )


def incomplete_notice(reason: str, language: str) -> str:
    """The notice for an audit that did not complete (design.md §6, §7).

    Says the completion audit did not complete and why, that the answer stays as it
    is, and that ``jev retry`` or ``jev cancel`` follow. ``reason`` is shown on one line.

    Raises:
        ValueError: for an unsupported language.
    """
    text = _WHITESPACE.sub(" ", reason).strip().rstrip(".。") or "unknown reason"
    return _render("notice", language, kind="incomplete", reason=text)


def needs_user_notice(focus: Position | None, language: str) -> str:
    """The notice for a ``needs-user`` verdict: the user decides, no supplement was sent
    (design.md §8), with the focus and its shortened quote.

    Raises:
        ValueError: for an unsupported language.
    """
    return _render("notice", language, kind="needs_user", **_focus_context(focus))


def exhausted_notice(
    state: LoopState, focus: Position | None, max_supplements: int, language: str
) -> str:
    """The notice when the supplement budget is used up and a problem remains (design.md §8):
    the last verdict, supplements used of the maximum, no more automatic supplements,
    the focus and its shortened quote.

    Raises:
        ValueError: for an unsupported language.
    """
    return _render(
        "notice",
        language,
        kind="exhausted",
        last=state.last_verdict or "problem",
        used=state.supplements_used,
        max_supplements=max_supplements,
        **_focus_context(focus),
    )


def system_prompt_section(language: str, todo_tools: str = "", todo_load: str = "") -> str:
    """The short section for the main agent's system prompt (design.md §9).

    Factual statements, not imperatives (HOSTS §1.8): what the audit reads; that
    actions, artifact paths, commands and observations count only when written in the
    Todo items or the answer; that truthful failures are fine and invented evidence is
    not; no unrequested verification; no Todos for simple tasks just to be audited.
    It asks for no new Todo fields, event ids or extra evidence report.

    Args:
        todo_tools: the host's Todo tool names (e.g. ``TaskCreate/TaskUpdate``); when
            given, one line names them and asks for a Todo list on multi-step work
            (a host whose Todo tools are easy to miss, hosts.md (Claude Code)).
        todo_load: the ``ToolSearch`` query that loads deferred Todo tools ("" when
            they are offered directly).

    Raises:
        ValueError: for an unsupported language.
    """
    return _render("system_section", language, todo_tools=todo_tools, todo_load=todo_load)
