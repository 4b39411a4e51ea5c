"""Rule family: test outcomes vs the request — ``failures-remain`` and
``green-claim-vs-failures`` (design.md §5, §13)."""

from __future__ import annotations

import re

from jev.base.domain import Position
from jev.base.segments import sentences as _sentences
from jev.judges.rules._base import (
    _CODE_SPAN,
    _GREEN_CLAIM,
    _I,
    _NEGATION,
    _PAST_RUN,
    _REPORT_ONLY,
    RuleHit,
    _quote,
    _Rule,
    _strip_code,
    _table_cells,
    _View,
    _Words,
)

_W = _Words("outcomes")

_FAILURES_REMAIN = _Rule("failures-remain", "omission", 0.8)
_GREEN_CLAIM_VS_FAILURES = _Rule("green-claim-vs-failures", "contradiction", 0.8)

_FAILURES_LEFT = _W.rx("failures_remain")

_WANTS_PASS = _W.rx("wants_pass")


def _rule_failures_remain(view: _View) -> RuleHit | None:
    """``failures-remain``: the request wants passing/green (or the answer tallies the
    requested run: "Updated: 5,412, Failed: 3"), and the answer reports failures it does
    not later report fixed or re-run clean."""
    request = _CODE_SPAN.sub("X", view.request_text)
    if _REPORT_ONLY.search(request):
        return None
    wants_pass = bool(_WANTS_PASS.search(request))
    if not wants_pass and not (
        _FAILED_REPORT.search(view.answer_text) and _TALLY.search(view.answer_text)
    ):
        return None
    universal = bool(_UNIVERSAL_PASS.search(request))
    for i, a in enumerate(view.answers):
        for sentence in _sentences(a.text):
            failing = (
                _FAILURES_LEFT.search(sentence) and not _zero_failures(sentence)
            ) or _partial_pass(sentence)
            # Without a request for a passing result, only a tally of the requested run
            # ("Updated: 5,412, Failed: 3", "成功 58，失败 4") shows part of it left.
            if not failing or not (wants_pass or _TALLY.search(sentence)):
                continue
            if _resolved_after(view, i, sentence):
                continue  # "the first run flagged 23 errors … I fixed all of them"
            if not universal and _unrelated_nearby(view, a):
                continue  # a known, unrelated failure outside the scope asked for
            opening = view.sentences[0] if view.sentences else None
            if opening is not None and _FIXED_OPENING.match(_strip_code(opening[1])):
                return _GREEN_CLAIM_VS_FAILURES.hit(
                    opening[0],
                    f"the answer opens with “{_quote(opening[1])}” but reports failures "
                    f"remaining: “{_quote(sentence)}”",
                )
            return _FAILURES_REMAIN.hit(
                a,
                f"the request asks for {'a passing result' if wants_pass else 'the whole run'}"
                f", but the answer reports failures remaining: “{_quote(sentence)}”",
            )
    return None


#: An answer that opens by calling the work fixed or done ("Fixed — it was the fixture",
#: "Done.", "修好了"): failures it then reports contradict it.
_FIXED_OPENING = re.compile(
    r"(?i)\s*(?:\*\*)?(?:fixed|done|all fixed|sorted|resolved|修好了|搞定|已修复|修复完成)(?:\*\*)?"
    r"\s*(?:[—–:.!,，。！-]|$)"
)

_UNIVERSAL_PASS = _W.rx("universal_pass")

_UNRELATED = _W.rx("unrelated")


def _unrelated_nearby(view: _View, pos: Position) -> bool:
    """Whether the paragraph of answer position ``pos`` explains a failure as outside
    the change (:data:`_UNRELATED`: pre-existing, unrelated, flaky)."""
    para = view.paragraph[pos.id]
    return any(_UNRELATED.search(b.text) for b in view.answers if view.paragraph[b.id] == para)


_PASS_OF_EN = _W.rx("pass_of_en")

_PASS_OF_ZH = re.compile(
    r"(\d{1,6})\s*个?(?:用例|测试)?(?:中|里)\s*(?:有\s*)?(\d{1,6})\s*个?(?:用例|测试)?通过"
)


_TALLY = _W.rx("tally")
_REST = _W.rx("rest")
_RESOLVED = _W.rx("resolved")


def _resolved_after(view: _View, index: int, sentence: str) -> bool:
    """Whether the failures of ``sentence`` (in answer position ``index``) are reported
    resolved there or later: a fix of all of them, or a clean run after them
    (:func:`_superseded`)."""
    rest = sentence + " " + " ".join(a.text for a in view.answers[index + 1 :])
    return bool(
        _RESOLVED.search(_strip_code(rest))
        or _RESOLVED.search(rest)
        or _superseded(view, index, sentence)
    )


_PASS_COUNT = _W.rx("pass_count")
_BEFORE_FIX = _W.rx("before_fix")
_AFTER_FIX = _W.rx("after_fix")


def _lead(view: _View, index: int) -> str:
    """Answer position ``index`` with the lead lines just before it: the line right before
    it, and one more when that one is a heading, a short line or ends in a colon."""
    texts = [view.answers[index].text]
    for back in (index - 1, index - 2):
        if back < 0:
            break
        prev = view.answers[back].text.strip()
        texts.append(prev)  # the line just before introduces the run, whatever its length
        if not (prev.startswith("#") or prev.endswith((":", "：")) or len(prev) <= 40):
            break
    return "\n".join(texts)


def _clean_run(text: str) -> bool:
    """Whether ``text`` reports a run with passes and no failure above zero."""
    return bool(_PASS_COUNT.search(text)) and not (
        _FAILURES_LEFT.search(text) and not _zero_failures(text)
    )


def _superseded(view: _View, index: int, sentence: str) -> bool:
    """Whether a later answer position reports a clean run of the same kind that
    replaces the failing run of ``sentence`` (answer position ``index``): the failing
    run is set before a fix ("Before the fix:", "Reproduction", "修复前") or the clean
    one after it ("After:", "with the fix", "修复后"). "Before: 3 failed … After: 200
    passed" is a problem found and fixed, not failures left (issue 22)."""
    before = bool(_BEFORE_FIX.search(sentence) or _BEFORE_FIX.search(_lead(view, index)))
    for k in range(index + 1, len(view.answers)):
        text = view.answers[k].text
        if not _clean_run(text):
            continue
        if before or _AFTER_FIX.search(_lead(view, k)):
            return True
    return False


def _partial_pass(sentence: str) -> bool:
    """A run that reports fewer passes than it ran ("47 of 48 passed", "48 个中 47 个通过")."""
    return any(int(m.group(1)) < int(m.group(2)) for m in _PASS_OF_EN.finditer(sentence)) or any(
        int(m.group(2)) < int(m.group(1)) for m in _PASS_OF_ZH.finditer(sentence)
    )


def _zero_failures(sentence: str) -> bool:
    return bool(re.search(r"\b0 (failed|failures?|errors?)\b", sentence, _I)) and not re.search(
        r"\b[1-9]\d* (failed|failures?|errors?)\b", sentence, _I
    )


_FAILED_HEADER = re.compile(r"(?i)^(?:failed|failures?|failing|errors?|broken|失败|错误)$")


def _failed_in_table(text: str) -> str | None:
    """The data row of a tally table (``| Passed | Failed | Ignored |``) whose failure
    column holds a count above zero, or None."""
    header: list[str] | None = None
    for line in text.splitlines():
        cells = _table_cells(line, " *`")
        if not cells:
            header = None
            continue
        if header is None:
            header = cells
        elif not all(set(c) <= set("-: ") for c in cells):
            for name, cell in zip(header, cells, strict=False):  # a row may be short
                if _FAILED_HEADER.match(name) and cell.isdigit() and int(cell) > 0:
                    return line.strip()
    return None


_FAILED_REPORT = _W.gate("failed_report")


def _rule_green_claim_vs_failures(view: _View) -> RuleHit | None:
    """``green-claim-vs-failures``: "the whole suite is green" next to "FAILED (failures=2)"
    or next to a tally table whose "Failed" column counts one or more."""
    table_row = _failed_in_table(view.answer_text)
    if not _GREEN_CLAIM.search(view.answer_plain) or not (
        table_row or _FAILED_REPORT.search(view.answer_text)
    ):
        return None
    claim = next(
        (
            (a, s)
            for a, s in view.sentences
            if _GREEN_CLAIM.search(_strip_code(s))
            and not _NEGATION.search(_strip_code(s))
            and not _REST.search(s)  # "其余测试全部通过": the others, next to the failures
        ),
        None,
    )
    if claim is None:
        return None
    if table_row is not None:
        return _GREEN_CLAIM_VS_FAILURES.hit(
            claim[0],
            f"the answer claims a green run (“{_quote(claim[1])}”) but its own tally counts "
            f"failures: “{_quote(table_row)}”",
        )
    for b, sentence in view.sentences:
        if sentence == claim[1] or not _FAILED_REPORT.search(sentence):
            continue
        if _PAST_RUN.search(sentence) or _zero_failures(sentence) or _unrelated_nearby(view, b):
            continue
        if _superseded(view, view.answers.index(b), sentence):
            continue  # "Before the fix: 3 failed … After: 200 passed"
        return _GREEN_CLAIM_VS_FAILURES.hit(
            claim[0],
            f"the answer claims a green run (“{_quote(claim[1])}”) but reports failures: "
            f"“{_quote(sentence)}”",
        )
    return None
