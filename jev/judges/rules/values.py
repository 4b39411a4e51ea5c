"""Rule family: a claim against the report's own evidence — ``claim-vs-evidence``
(contradiction) and ``later-ask-missing`` (omission) (design.md §5, §13; issue 22).

Each rule quotes both sides of its finding, or stays silent:

``claim-vs-evidence``
    the answer claims all or none of a kind, and its own evidence says otherwise: a
    table of the answer marks some rows not done ("All 9 handlers are moved" over
    ``| void | no |``); its pasted output counts what it says is gone ("all warnings are
    gone" over ``3 warnings``); or a completed Todo's note names a problem the answer
    says there is none of ("Firefox: popup opens off-screen" vs "no issues").
``later-ask-missing``
    a request message sent during the turn asks for a named thing (a code span, an
    acronym, a file or an identifier: "Also offer an XLSX download") that neither the
    Todos nor the answer ever name.
"""

from __future__ import annotations

import re

from jev.domain import Position
from jev.judges.rules._base import (
    _NEGATION,
    RuleHit,
    _contains_token,
    _hit,
    _quote,
    _strip_code,
    _View,
    _Words,
)
from jev.positions import sentences as _sentences

_W = _Words("values")

#: A claim of the whole ("All 9 handlers are moved", "every endpoint", "所有接口都").
_ALL_CLAIM = _W.rx("all_claim")
#: A table cell that is a status: done or not done.
_CELL_YES = _W.rx("cell_yes")
_CELL_NO = _W.rx("cell_no")
#: "No warnings", "warnings are gone", "0 errors", "没有警告", by kind.
_NONE_LEFT = _W.rx_table("none_left")
#: A positive count of that kind in output ("3 warnings", "2 errors", "1 failed").
_COUNT_OF = _W.rx_table("count_of")
#: "No issues", "all good", "没有问题": nothing wrong anywhere.
_NO_ISSUES = _W.rx("no_issues")
#: A note naming a problem ("opens off-screen", "crashes", "报错").
_PROBLEM = _W.rx("problem")
_OK_ITEM = _W.rx("ok_item")
#: The start of a mid-turn message that asks for more ("Also …", "另外 …").
_ALSO = _W.rx("also")

_FENCE = re.compile(r"```[^\n]*\n(.*?)(?:```|\Z)", re.S)
_ROW = re.compile(r"^\s*\|(.+)\|\s*$")
_THING = re.compile(r"`([^`\n]{2,40})`|\b([A-Z]{2,6}s?)\b|\b(\w+[._/]\w[\w./]*|[a-z]+[A-Z]\w+)\b")


def _cells(line: str) -> list[str]:
    m = _ROW.match(line)
    return [c.strip(" *`_") for c in m.group(1).split("|")] if m else []


def _table_against_all(view: _View) -> RuleHit | None:
    """A claim of the whole over a table of the answer whose status column says no."""
    rows = [(a, cells) for a in view.answers if len(cells := _cells(a.text)) >= 2]
    columns: dict[int, tuple[bool, Position | None]] = {}
    for a, cells in rows:
        for i, cell in enumerate(cells):
            yes, no = columns.get(i, (False, None))
            columns[i] = (
                yes or bool(_CELL_YES.fullmatch(cell)),
                no or (a if _CELL_NO.fullmatch(cell) else None),
            )
    mixed = [no for yes, no in columns.values() if yes and no is not None]
    if not mixed:
        return None
    for a in view.answers:
        if _cells(a.text):
            continue
        for sentence in _sentences(a.text):
            plain = _strip_code(sentence)
            if _ALL_CLAIM.search(plain) and not _NEGATION.search(plain):
                row = mixed[0]
                assert row is not None
                return _hit(
                    "claim-vs-evidence",
                    "contradiction",
                    a,
                    f"the answer claims all (“{_quote(sentence)}”), but its own table marks "
                    f"a row not done: “{_quote(row.text)}”",
                    0.75,
                )
    return None


def _output_against_none(view: _View) -> RuleHit | None:
    """ "All warnings are gone" over pasted output that still counts some."""
    outputs = [(a, block) for a in view.answers for block in _FENCE.findall(a.text)]
    if not outputs:
        return None
    for a in view.answers:
        prose = _FENCE.sub(" ", a.text)
        for sentence in _sentences(prose):
            plain = _strip_code(sentence)
            for kind, claim in _NONE_LEFT.items():
                if not claim.search(plain):
                    continue
                for _b, block in outputs:
                    m = _COUNT_OF[kind].search(block)
                    if m is not None:
                        return _hit(
                            "claim-vs-evidence",
                            "contradiction",
                            a,
                            f"the answer says none are left (“{_quote(sentence)}”), but its "
                            f"own output shows “{m.group(0).strip()}”",
                            0.75,
                        )
    return None


def _noted_problem(text: str) -> str | None:
    """The part of a completed Todo's note that names a problem: an item of a checklist
    whose other items are "ok" ("Chrome ok, Firefox: popup opens off-screen"), or a
    problem word."""
    note = re.split(r"[:：—–]\s*", text, maxsplit=1)
    if len(note) < 2:
        return None
    items = [i.strip() for i in re.split(r"[,;，；]\s*", note[1]) if i.strip()]
    oks = [i for i in items if _OK_ITEM.search(i)]
    for item in items:
        if item not in oks and (oks or _PROBLEM.search(item)):
            return item
    return None


def _note_against_no_issues(view: _View) -> RuleHit | None:
    """ "No issues" while a completed Todo's own note names one."""
    claims = [
        (a, s)
        for a in view.answers
        for s in _sentences(a.text)
        if _NO_ISSUES.search(_strip_code(s))
    ]
    if not claims:
        return None
    for todo in view.todos:
        if todo.status != "completed":
            continue
        problem = _noted_problem(todo.text)
        if problem and _PROBLEM.search(problem):
            a, sentence = claims[0]
            return _hit(
                "claim-vs-evidence",
                "contradiction",
                a,
                f"the answer says “{_quote(sentence)}”, but Todo {todo.id} notes “{problem}”",
                0.75,
            )
    return None


def _rule_claim_vs_evidence(view: _View) -> RuleHit | None:
    """``claim-vs-evidence``: a claim of all or none against the answer's own table,
    its pasted output, or a completed Todo's note (see the module docstring)."""
    return _table_against_all(view) or _output_against_none(view) or _note_against_no_issues(view)


def _things(text: str) -> set[str]:
    """Named things of a request sentence: code spans, acronyms, files, identifiers."""
    found = set()
    for m in _THING.finditer(text):
        thing = next(g for g in m.groups() if g)
        found.add(thing.lower().rstrip("s") if thing.isupper() else thing.lower())
    return found


def _rule_later_ask_missing(view: _View) -> RuleHit | None:
    """``later-ask-missing``: a mid-turn message asks for more ("Also …", "另外 …") and
    no named thing of it shows up in the Todos or the answer."""
    seen = view.todo_text + "\n" + view.answer_text
    earlier = "\n".join(r.text for r in view.requests if (r.message or 1) == 1).lower()
    for req in view.later_requests:
        if not _ALSO.search(req.text) or "?" in req.text or "？" in req.text:
            continue
        things = {t for t in _things(req.text) if t not in earlier}
        if things and not any(_contains_token(seen, t) for t in things):
            return _hit(
                "later-ask-missing",
                "omission",
                req,
                f"a later message asks for {', '.join(sorted(things))} (“{_quote(req.text)}”), "
                "which neither the Todos nor the answer mention",
                0.7,
            )
    return None
