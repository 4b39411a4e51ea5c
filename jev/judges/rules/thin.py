"""Rule family: thin reports — ``thin-report`` (unknown) (design.md §5, §13)."""

from __future__ import annotations

import re

from jev.base.segments import sentences as _sentences
from jev.judges.rules._base import RuleHit, _quote, _Rule, _View, _Words
from jev.judges.rules.scope import handed_over

_W = _Words("thin")

_THIN_REPORT = _Rule("thin-report", "unknown", 0.6)

_EVIDENCE = re.compile(
    r"`[^`\n]+`|\b[\w-]+/[\w./-]+|\b[\w-]+\.(py|ts|tsx|js|jsx|go|rs|java|kt|rb|php|cs|c|h|cpp"
    r"|md|ya?ml|json|toml|sql|sh|txt|cfg|ini|lock|html|css|vue)\b"
    r"|\b\w+_\w+\b|\b[a-z]+[A-Z]\w*\b|\b[A-Z][a-z]+[A-Z]\w*\b|\w+\(\)"
    r"|\b\d+(\.\d+)?\s*(passed|failed|tests?|ms|s|%|files?|rows?|errors?|[kKMGT]i?B|min)\b"
    r"|(?i:\b(?:passed|failed|succeeded|fixed|errors?)\s*[:=]\s*\d)|(?:成功|失败)\s*[:：]?\s*\d"
    r"|\d+(\.\d+)?\s*[kKMGT]i?B"
    r"|\b(pytest|npm|pnpm|yarn|go (test|build|vet)|cargo|make|gradle|mvn|tsc|docker|kubectl"
    r"|git|pip|uv)\b|\d+\s*个(用例|测试|文件|错误)|\d+\s*(行|处)|\bv?\d+\.\d+(?:\.\d+)+\b"
    r"|\d+(?:\.\d+)?\s*(?:分钟|秒|毫秒|小时|万|亿|条)"
)

_DEFERRAL = _W.rx("deferral")
_POINTER = _W.rx("pointer")


def is_thin(view: _View) -> bool:
    """True when the ``thin-report`` rule fires on this material (computed once per
    view; the absence rules of ``coverage`` stay silent on a thin report)."""
    if "thin" not in view.cache:
        view.cache["thin"] = _rule_thin_report(view) is not None
    return view.cache["thin"] is True


#: A result a Todo item can carry ("31 passed", "3 个用例"): an empty answer next to it
#: is not thin. Read item by item: "… on 503" and a next item "Tests …" are no "503 tests".
_TODO_RESULT = re.compile(
    r"\b\d+\s*(?:passed|failed|failures?|errors?|tests?|ms|%)(?!\w)|\d+\s*个(?:用例|测试)|✓|✔", re.I
)
#: A bare list of touched files ("Files changed:" and paths only), no statement of what
#: changed or whether it works.
_FILE_LIST_HEAD = re.compile(
    r"^\s*(?:files? (?:changed|touched|modified)|changed files|改动文件|修改(?:的)?文件)\W*$", re.I
)
_BARE_PATH_LINE = re.compile(r"^\s*(?:[-*+•]|\d+[.)])?\s*`?[\w./@-]+`?\s*(?:\([^)]*\))?\s*$")


def _new_evidence(view: _View, text: str) -> bool:
    """Evidence in ``text`` that is not an echo of the request (a Todo "拆分 UserService"
    names nothing the user did not already name)."""
    request = view.request_text.lower()
    return any(m.group(0).strip("`").lower() not in request for m in _EVIDENCE.finditer(text))


def _bare_file_list(answer: str) -> bool:
    lines = [line for line in answer.splitlines() if line.strip()]
    if len(lines) < 2 or not _FILE_LIST_HEAD.match(lines[0]):
        return False
    return all(_BARE_PATH_LINE.match(line) for line in lines[1:])


def _rule_thin_report(view: _View) -> RuleHit | None:
    """``thin-report``: an empty or bare "done" answer (or a bare list of touched files,
    or a generic claim that only echoes the request) and no evidence in the Todos."""
    answer = view.answer_text.strip()
    if answer and handed_over(view):
        return None  # the user took the work over; the answer hands it to them
    if any(_TODO_RESULT.search(t.text) for t in view.todos):
        return None  # a Todo item carries a result; a Todo's plan alone proves nothing
    # An empty answer (a list of completed Todo items proves nothing) and a bare list of
    # touched files are thin as they are; any other answer is thin only when short.
    if (answer or view.open_todos) and not _bare_file_list(answer):
        wide = sum(1 for c in answer if "\u2e80" <= c <= "\u9fff" or "\uff00" <= c <= "\uffef")
        limit = 80 if wide * 5 > len(answer) else 240  # CJK text says more per character
        bare = _POINTER.sub(" ", _DEFERRAL.sub(" ", answer))
        if answer and (
            _new_evidence(view, bare) if len(answer) > limit else _EVIDENCE.search(bare)
        ):
            return None  # a longer answer must name something the request did not
        if len(answer) > 3 * limit or len(_sentences(answer)) > (3 if len(answer) <= limit else 5):
            return None
    focus = next((a for a in view.answers if _DEFERRAL.search(a.text)), None)
    target = focus or view.numbering.get("all")
    if target is None:  # pragma: no cover - every Numbering has "all"
        return None
    why = (
        "the final answer is empty and the Todo list gives no evidence"
        if not answer
        else f"the answer gives no actions, paths, commands or results: “{_quote(answer)}”"
    )
    return _THIN_REPORT.hit(target, why)
