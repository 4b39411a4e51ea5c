"""Rule family: thin reports — ``thin-report`` (unknown) (design.md §5, §13)."""

from __future__ import annotations

import re

from jev.domain import Position
from jev.judges.rules._base import RuleHit, _hit, _quote, _View, _Words
from jev.judges.rules.scope import handed_over
from jev.positions import sentences as _sentences

_W = _Words("thin")

_EVIDENCE = re.compile(
    r"`[^`\n]+`|\b[\w-]+/[\w./-]+|\b[\w-]+\.(py|ts|tsx|js|jsx|go|rs|java|kt|rb|php|cs|c|h|cpp"
    r"|md|ya?ml|json|toml|sql|sh|txt|cfg|ini|lock|html|css|vue)\b"
    r"|\b\w+_\w+\b|\b[a-z]+[A-Z]\w*\b|\b[A-Z][a-z]+[A-Z]\w*\b|\w+\(\)"
    r"|\b\d+(\.\d+)?\s*(passed|failed|tests?|ms|s|%|files?|rows?|errors?)\b"
    r"|\b(pytest|npm|pnpm|yarn|go (test|build|vet)|cargo|make|gradle|mvn|tsc|docker|kubectl"
    r"|git|pip|uv)\b|\d+\s*个(用例|测试|文件|错误)|\d+\s*(行|处)"
)

_DEFERRAL = _W.rx("deferral")


def is_thin(view: _View) -> bool:
    """True when the ``thin-report`` rule fires on this material (computed once per
    view; the absence rules of ``coverage`` stay silent on a thin report)."""
    cached = view.cache.get("thin")
    if not isinstance(cached, bool):
        cached = _rule_thin_report(view) is not None
        view.cache["thin"] = cached
    return cached


def _rule_thin_report(view: _View) -> RuleHit | None:
    """``thin-report``: an empty or bare "done" answer and no evidence in the Todos."""
    answer = view.answer_text.strip()
    if answer and handed_over(view):
        return None  # the user took the work over; the answer hands it to them
    if len(answer) > (240 if answer.isascii() else 80) or _EVIDENCE.search(view.todo_text):
        return None
    if answer and _EVIDENCE.search(_DEFERRAL.sub(" ", answer)):
        return None
    if len(_sentences(answer)) > 3:
        return None
    focus: Position | None = None
    for a in view.answers:
        if _DEFERRAL.search(a.text):
            focus = a
            break
    target = focus or view.numbering.get("all")
    if target is None:  # pragma: no cover - every Numbering has "all"
        return None
    why = (
        "the final answer is empty and the Todo list gives no evidence"
        if not answer
        else f"the answer gives no actions, paths, commands or results: “{_quote(answer)}”"
    )
    return _hit("thin-report", "unknown", target, why, 0.6)
