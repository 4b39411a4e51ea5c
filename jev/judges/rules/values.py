"""Rule family: a claim against the report's own evidence — ``claim-vs-evidence``
(contradiction) (design.md §5, §13; issue 22).

The answer claims all or none of a kind, and its own evidence says otherwise: a table of
the answer marks some rows not done ("All 9 handlers are moved" over ``| void | no |``);
its pasted output counts what it says is gone ("all warnings are gone" over ``3
warnings``); or a completed Todo's note names a problem the answer says there is none of.
"""

from __future__ import annotations

import re

from jev.base.domain import Position
from jev.base.segments import sentences as _sentences
from jev.judges.rules._base import (
    _ALL_DONE,
    _CODE_SPAN,
    _FENCE,
    _NEGATION,
    _NUMBER_WORDS,
    _PAST_RUN,
    RuleHit,
    _contains_token,
    _quote,
    _Rule,
    _strip_code,
    _table_cells,
    _View,
    _Words,
)

_W = _Words("values")

_CLAIM_VS_EVIDENCE = _Rule("claim-vs-evidence", "contradiction", 0.75)

_CELL_YES = _W.rx("cell_yes")
_CELL_NO = _W.rx("cell_no")
_STATUS_HEADER = _W.rx("status_header")
#: "No warnings", "warnings are gone", "0 errors", "没有警告", by kind.
_NONE_LEFT = {kind: _W.gate(f"none_left.{kind}") for kind in _W.keys("none_left")}
#: A positive count of that kind in output ("3 warnings", "2 errors", "1 failed").
_COUNT_OF = _W.rx_table("count_of")
_NO_ISSUES = _W.gate("no_issues")
_PROBLEM = _W.rx("problem")
_OK_ITEM = _W.rx("ok_item")

#: Kinds whose evidence is a count in the answer's code (elsewhere it may be old).
_IN_CODE = frozenset({"warnings", "errors", "broken"})


def _table_against_all(view: _View) -> RuleHit | None:
    """A claim of the whole over a table of the answer whose status column says no."""
    if "|" not in view.answer_text:
        return None
    rows = [(a, cells) for a in view.answers if len(cells := _table_cells(a.text, " *`_")) >= 2]
    if not rows:
        return None
    header = rows[0][1]
    columns: dict[int, tuple[bool, Position | None]] = {}
    marked: set[int] = set()
    for a, cells in rows[1:]:
        for i, cell in enumerate(cells):
            yes, no = columns.get(i, (False, None))
            yes_cell = bool(_CELL_YES.fullmatch(cell)) or cell[:1] in _YES_MARKS
            no_cell = (
                bool(_CELL_NO.fullmatch(cell))
                or cell[:1] in _NO_MARKS
                or bool(_NO_FIRST.match(cell))  # "failed: GH006 …", "skipped (needs …)"
            )
            columns[i] = (yes or yes_cell, no or (a if no_cell else None))
            if cell[:1] in _YES_MARKS + _NO_MARKS:
                marked.add(i)
    # a status column ("| migrated |", "| 状态 |", or one of ✅/❌ marks), not a property
    # such as "nullable"
    mixed = [
        no
        for i, (yes, no) in columns.items()
        if yes
        and no is not None
        and i < len(header)
        and (i in marked or _STATUS_HEADER.search(header[i]))
    ]
    mixed += _short_count_rows(header, rows[1:])
    if not mixed:
        return None
    # a prose claim of the whole ("all …", "every …", "全部"), outside the table, not negated
    claim = next(
        (
            (a, sentence)
            for a, sentence in view.sentences
            if not _table_cells(a.text)
            and (_ALL_DONE.search(plain := _strip_code(sentence)) or _WHOLE.search(plain))
            and not _NEGATION.search(plain)
        ),
        None,
    )
    if claim is None:
        return None
    a, sentence = claim
    return _CLAIM_VS_EVIDENCE.hit(
        a,
        f"the answer claims all (“{_quote(sentence)}”), but its own table marks a row not "
        f"done: “{_quote(mixed[0].text)}”",
    )


def _short_count_rows(header: list[str], rows: list[tuple[Position, list[str]]]) -> list[Position]:
    """Rows of a table whose done count falls short of its total where the other rows
    match: ``| columns | described |`` with ``| 18 | 18 |`` … ``| 13 | 9 |``; the done
    column's header is a word of completion (:data:`_STATUS_HEADER`)."""
    for j in range(1, len(header)):
        if not _STATUS_HEADER.search(header[j]):
            continue
        for i in range(j):
            pairs = [
                (a, int(c[i]), int(c[j]))
                for a, c in rows
                if len(c) > j and c[i].isdigit() and c[j].isdigit()
            ]
            if len(pairs) < 2 or len(pairs) < len(rows):
                continue
            short = [a for a, total, done in pairs if done < total]
            if (
                short
                and any(total == done for _, total, done in pairs)
                and all(done <= total for _, total, done in pairs)
            ):
                return short[:1]
    return []


#: A status cell that opens with a word of failure and then explains it, or with a
#: count of errors ("1 error: `INS04` missing").
_NO_FIRST = re.compile(
    r"(?i)(?:failed|skipped|blocked|not done|not started|pending|still|kept|rolled back|reverted"
    r"|partial(?:ly)?)\b\W|(?:no|not yet)\s*[,(—–:;-]|(?:未|没|仍|还是|回滚)"
    r"|[1-9]\d*\s*(?:errors?|failures?|failed|个?错误)\b"
)
_YES_MARKS = "✅✓✔"
_NO_MARKS = "❌✗✘⚠⏸⛔🚫🟡🔴"
#: A claim of the whole by its count or a word of totality ("All six steps", "5 个服务已全部").
_WHOLE = re.compile(
    rf"(?i)\ball (?:\d+|{_NUMBER_WORDS}) [\w-]+"
    r"|\bevery (?:one|single)\b|\bevery [a-z]{3,}\b|\bacross the board\b|全部|都已|均已|全都"
)


def _none_claims(view: _View) -> list[tuple[Position, str]]:
    """(position, sentence) of each completed Todo and of the answer's prose (outside
    fenced code)."""
    return [(t, t.text) for t in view.todos if t.status == "completed"] + [
        (a, s) for a in view.answers for s in _sentences(_FENCE.sub(" ", a.text))
    ]


def _output_against_none(view: _View) -> RuleHit | None:
    """ "All warnings are gone" / "没有跳过任何用例" / a Todo's "nothing destroyed" while
    the answer's own output or text shows some of that kind."""
    whole = view.todo_text + "\n" + view.answer_plain
    low = whole.lower()
    if not any(claim.search_low(whole, low) for claim in _NONE_LEFT.values()):
        return None
    code = "\n".join(_FENCE.findall(view.answer_text) + _CODE_SPAN.findall(view.answer_text))
    for where, sentence in _none_claims(view):
        plain = _strip_code(sentence)
        for kind, claim in _NONE_LEFT.items():
            if not claim.search(plain):
                continue
            in_code = kind in _IN_CODE and where.kind == "answer"
            text = code if in_code else view.answer_text.replace(sentence, " ")
            m = _COUNT_OF[kind].search(text)
            line = text[text.rfind("\n", 0, m.start()) + 1 : m.start()] if m else ""
            clause = re.split(r"[,，;；。.]", line)[-1]
            if m is not None and not _PAST_RUN.search(line if in_code else clause):
                return _CLAIM_VS_EVIDENCE.hit(
                    where,
                    f"{where.id} says none (“{_quote(sentence)}”), but the answer shows "
                    f"“{_quote(m.group(0).strip(), 60)}”",
                )
    return None


def _noted_problem(text: str) -> str | None:
    """The part of a completed Todo's note that names a problem: an item of a checklist
    whose other items are "ok" ("Chrome ok, Firefox: popup opens off-screen"), or a
    problem word."""
    split = re.split(r"[:：—–]\s*", text, maxsplit=1)
    # the note after a colon or dash, and one in parentheses ("Fix contrast (tried
    # #6b7cff, still 3.9:1)"); the first that names a problem counts
    notes = [split[1]] if len(split) == 2 else []
    notes += [m.group(1) for m in _ASIDE.finditer(text)]
    for note in notes:
        if _PAST_RUN.search(note) or _FINDING_FIXED.search(note):
            continue  # "(was: NPE on empty email)", "(found 3, all fixed)"
        items = [i.strip() for i in re.split(r"(?:[;，；]|,(?!\d{3}\b))\s*", note) if i.strip()]
        oks = [i for i in items if _OK_ITEM.search(i)]
        for item in items:
            if item not in oks and (oks or _PROBLEM.search(item) or _SINGLED_OUT.match(item)):
                return item
    return None


#: A note that singles out what it found: a count of things that show or lack something
#: ("6 dental-only notices show a $0.00 premium", "3 条记录缺少税号") or one member by its
#: id ("J07 无保护左转：自车闯红灯").
_SINGLED_OUT = re.compile(
    r"(?i)\s*(?:[1-9]\d*\s+[\w-]+(?:\s+[\w-]+)?\s+(?:show|shows|have|has|lack|lacks|miss"
    r"|contain|contains|are|were)\b|[1-9]\d*\s*(?:个|张|条|份|项)[\u4e00-\u9fff]{1,6}"
    r"(?:显示|缺少|没有|为|有)|[A-Z]{1,4}-?\d{1,4}\b[^:：\n]{0,20}[:：])"
)


#: A Todo's note in parentheses ("(still 3.9:1)", "（0035 没写 down 迁移）").
_ASIDE = re.compile(r"[(（]([^()（）]{4,})[)）]")

_FINDING_LEFT = _W.rx("finding_left")
_FINDING_FIXED = _W.rx("finding_fixed")
#: A counted finding: "1 HIGH", "2 个 HIGH", "3 warnings".
_COUNTED = re.compile(
    r"(?<![\w.])([1-9]\d{0,3})\s*(?:个|项|条|处)?\s*([A-Za-z][\w-]{1,30}|[\u4e00-\u9fff]{2,4})"
)


def _note_against_none(view: _View) -> RuleHit | None:
    """A completed Todo's note names what is still wrong and the answer says there is
    none of it: a problem of the note (:func:`_noted_problem`) against "no issues"; or a
    counted finding still there ("rescan: 1 HIGH left", "扫描（发现 2 个 HIGH）") against
    "no HIGH or CRITICAL findings" / "没有 HIGH 级别的漏洞", the count never given."""
    done = [t for t in view.todos if t.status == "completed"]
    if _NO_ISSUES.search(view.answer_text):
        claims = [(a, s) for a, s in view.sentences if _NO_ISSUES.search(_strip_code(s))]
        for todo in done if claims else ():
            problem = _noted_problem(todo.text)
            if problem and (_PROBLEM.search(problem) or _SINGLED_OUT.match(problem)):
                a, sentence = claims[0]
                return _CLAIM_VS_EVIDENCE.hit(
                    a, f"the answer says “{_quote(sentence)}”, but Todo {todo.id} notes “{problem}”"
                )
    for todo in done:
        text = _strip_code(todo.text)
        if not _FINDING_LEFT.search(text) or _FINDING_FIXED.search(text):
            continue
        for m in _COUNTED.finditer(text):
            count, thing = m.group(1), m.group(2)
            if _contains_token(view.answer_text, f"{count} {thing}") or re.search(
                rf"{count}\s*(?:个|项|条|处)?\s*{re.escape(thing)}", view.answer_text, re.I
            ):
                continue  # the answer gives the count: it accounts for the finding
            none = re.compile(
                rf"(?i)\b(?:no|zero|0)\s+(?:[\w/-]+\s+){{0,3}}?{re.escape(thing)}"
                rf"|(?:没有|无|零)[^，。；\n]{{0,12}}{re.escape(thing)}"
            )
            for a, sentence in view.sentences:
                if none.search(sentence) and not _NEGATION_OF_NONE.search(sentence):
                    return _CLAIM_VS_EVIDENCE.hit(
                        a,
                        f"the answer says there is none (“{_quote(sentence)}”), but Todo "
                        f"{todo.id} notes {count} {thing}: “{_quote(todo.text, 60)}”",
                    )
    return None


#: "no new HIGH", "besides the known one": a none that excludes something on purpose.
_NEGATION_OF_NONE = re.compile(r"(?i)\bno new\b|\bapart from\b|\bexcept\b|\bother than\b|除了|之外")


def _rule_claim_vs_evidence(view: _View) -> RuleHit | None:
    """``claim-vs-evidence``: a claim of all or none against the answer's own table,
    its pasted output, or a completed Todo's note (see the module docstring)."""
    return _table_against_all(view) or _output_against_none(view) or _note_against_none(view)
