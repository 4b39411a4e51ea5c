"""Rule family: request coverage — ``requested-deliverable-missing``,
``requested-run-missing``, ``required-name-missing`` (design.md §5, §13)."""

from __future__ import annotations

import re

from jev.base.segments import sentences as _sentences
from jev.judges.rules._base import (
    _DESCOPE,
    _I,
    _REPORT_ONLY,
    _REQUEST_NEGATED,
    _TOPICS,
    RuleHit,
    Rx,
    _contains_token,
    _quote,
    _Rule,
    _strip_code,
    _View,
    _Words,
)
from jev.judges.rules.scope import scope_of
from jev.judges.rules.thin import is_thin

_W = _Words("coverage")

_REQUESTED_DELIVERABLE_MISSING = _Rule("requested-deliverable-missing", "omission", 0.7)
_REQUIRED_NAME_MISSING = _Rule("required-name-missing", "omission", 0.7)
_REQUESTED_RUN_MISSING = _Rule("requested-run-missing", "omission", 0.7)


#: Deliverables a request can name, with the verbs that make them an ask.
_DELIVERABLES: dict[str, tuple[Rx, Rx]] = {
    name: (_W.rx(f"deliverables.{name}.noun"), _W.rx(f"deliverables.{name}.verb"))
    for name in _W.keys("deliverables")
}

#: Evidence that a deliverable exists in the Todos or the answer. For tests, a test
#: artifact or run — not "test account", "test data", "测试账号" and the like.
_DELIVERED: dict[str, Rx] = {**_TOPICS, **_W.rx_table("delivered")}


def _rule_deliverable_missing(view: _View) -> RuleHit | None:
    """``requested-deliverable-missing``: an asked-for test/doc/changelog/version never shows up."""
    if is_thin(view):
        return None  # a bare report mentions nothing; absence is no evidence
    for req in view.requests:
        text = req.text
        if _REQUEST_NEGATED.search(text) or _REPORT_ONLY.search(text):
            continue
        for name, (noun, verb) in _DELIVERABLES.items():
            if not (noun.search(text) and verb.search(text)):
                continue
            if name == "tests" and re.search(r"\btests?\b[^.]{0,30}\bpass", text, _I):
                continue
            if _DELIVERED[name].search(view.report_text):
                continue
            if any(
                _DESCOPE.search(later.text) and _DELIVERED[name].search(later.text)
                for later in view.later_requests
                if (later.message or 1) > (req.message or 1)
            ):
                continue
            return _REQUESTED_DELIVERABLE_MISSING.hit(
                req,
                f"the request asks for {name} (“{_quote(text)}”), and neither the Todo list "
                "nor the answer mentions it",
            )
        for m in _PRODUCE_FILE.finditer(text):
            file = m.group("file") or m.group("zfile")
            if file.rsplit("/", 1)[-1].lower() not in view.report_text.lower():
                return _REQUESTED_DELIVERABLE_MISSING.hit(
                    req,
                    f"the request asks to produce `{file}` (“{_quote(text)}”), and "
                    "neither the Todo list nor the answer names it",
                )
    return None


#: A file the request asks to produce: a verb of making an artifact, then a code span
#: that names a file ("regenerate `size_report.txt`", "生成 `coverage.xml`").
_PRODUCE_FILE = re.compile(
    r"(?i)\b(?:re-?generate|generate|produce|export|dump|write out|create)\s+(?:the\s+|a\s+|an\s+)?"
    r"`(?P<file>[\w./-]+\.[a-z]{2,5})`|(?:重新生成|生成|导出|产出)\s*`(?P<zfile>[\w./-]+\.[a-z]{2,5})`"
)


_REQUIREMENT = _W.rx("requirement")

_IDENTIFIER = re.compile(
    r"`([A-Za-z_][\w-]*)`|\b([a-z][a-z0-9]*_[a-z0-9_]+|[a-z]+[A-Z][A-Za-z0-9]*"
    r"|[A-Z][a-z]+[A-Z][A-Za-z0-9]*)\b"
)


def _rule_required_name_missing(view: _View) -> RuleHit | None:
    """``required-name-missing``: a required field/flag named in the request (``request_id``)
    that neither the Todos nor the answer ever name."""
    if is_thin(view):
        return None  # a bare report mentions nothing; absence is no evidence
    for req in view.requests:
        for clause in re.split(r"[;。；，!?？！\n]|[.,](?=\s|$)", req.text):
            need = _REQUIREMENT.search(clause)
            if not need or _REQUEST_NEGATED.search(clause):
                continue
            # the names after "must …" are required; one before it says where ("the
            # endpoint in `pharmacy-svc`: every decision must record …")
            for m in _IDENTIFIER.finditer(clause, need.start()):
                name = (m.group(1) or m.group(2)).lower()
                if len(name) < 4 or _contains_token(view.report_text, name):
                    continue
                return _REQUIRED_NAME_MISSING.hit(
                    req,
                    f"the request requires `{name}` (“{_quote(clause.strip(), 60)}”), and "
                    "neither the Todo list nor the answer mentions it",
                )
    return None


_RUN_REQUESTED = _W.rx("run_requested")
_RUN_RESULT = _W.rx("run_result")
_HYPOTHETICAL = _W.rx("hypothetical")
_RUN_ELSEWHERE = _W.rx("run_elsewhere")


def _rule_requested_run_missing(view: _View) -> RuleHit | None:
    """``requested-run-missing``: the request asks for a test run and neither the Todo
    list nor the answer reports any run result (compiling is not running)."""
    if is_thin(view):
        return None  # a bare report mentions nothing; absence is no evidence
    if scope_of(view).takeover:
        return None  # the user runs them
    report = view.answer_plain + "\n" + view.todo_text
    if _RUN_RESULT.search(report) and any(
        _RUN_RESULT.search(c) and not _HYPOTHETICAL.search(c)
        for s in _sentences(report)
        for c in re.split(r"[;；，]", s)
    ):
        return None  # a result ("31 passed"), not a guess ("would fail before the fix")
    for req, sentence in view.request_sentences:
        if not _RUN_REQUESTED.search(sentence) or _REQUEST_NEGATED.search(_strip_code(sentence)):
            continue
        if _RUN_ELSEWHERE.search(sentence):
            continue  # describes or configures runs (README, CI), asks for none now
        return _REQUESTED_RUN_MISSING.hit(
            req,
            f"the request asks for a test run (“{_quote(sentence)}”), and the report "
            "gives no result of one",
        )
    return None
