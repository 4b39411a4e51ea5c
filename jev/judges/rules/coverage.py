"""Rule family: request coverage — ``constraint-violated``,
``requested-deliverable-missing``, ``listed-item-missing``, ``required-name-missing``
(design.md §5, §13)."""

from __future__ import annotations

import re
from collections.abc import Iterable

from jev.base.segments import sentences as _sentences
from jev.judges.rules._base import (
    _DESCOPE,
    _I,
    _NEGATION,
    _REPORT_ONLY,
    _REQUEST_NEGATED,
    _TOPICS,
    _USER_CITED,
    RuleHit,
    Rx,
    _code_tokens,
    _contains_token,
    _content_words,
    _lower,
    _quote,
    _Rule,
    _strip_code,
    _topics,
    _View,
    _Words,
)
from jev.judges.rules.scope import scope_of
from jev.judges.rules.thin import is_thin

_W = _Words("coverage")

_CONSTRAINT_VIOLATED = _Rule("constraint-violated", "omission", 0.7)
_REQUESTED_DELIVERABLE_MISSING = _Rule("requested-deliverable-missing", "omission", 0.7)
_LISTED_ITEM_MISSING = _Rule("listed-item-missing", "omission", 0.7)
_REQUIRED_NAME_MISSING = _Rule("required-name-missing", "omission", 0.7)
_REQUESTED_RUN_MISSING = _Rule("requested-run-missing", "omission", 0.7)
_REQUESTED_ITEM_DECLINED = _Rule("requested-item-declined", "omission", 0.7)

#: A request sentence that forbids a kind of change.
_PROHIBITION = _W.rx("prohibition")

#: An answer sentence reporting a change.
_CHANGE_REPORTED = _W.rx("change_reported")


def _rule_constraint_violated(view: _View) -> RuleHit | None:
    """``constraint-violated``: the answer reports the kind of change the request forbade."""
    if not _CHANGE_REPORTED.search(view.answer_plain):
        return None
    for req in view.requests:
        plain_req = _strip_code(req.text)
        if not _PROHIBITION.search(plain_req):
            continue
        forbidden = _topics(plain_req)
        if not forbidden:
            continue
        for _a, sentence in view.sentences:
            plain = _strip_code(sentence)
            if not _CHANGE_REPORTED.search(plain) or _NEGATION.search(plain):
                continue
            if forbidden & _topics(plain):
                return _CONSTRAINT_VIOLATED.hit(
                    req,
                    f"the request forbids this (“{_quote(req.text)}”), but the answer "
                    f"reports it: “{_quote(sentence)}”",
                )
    return None


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


_LIST_VERB_EN = _W.rx("list_verb_en")

_LIST_VERB_ZH = re.compile(
    r"(把|给|将|为|对)[^，。；]{0,40}(加|改|换|删|补|更新|迁移|升级|接入|支持|处理)"
)

_EXAMPLES = _W.rx("examples")

_ITEM_SPLIT_EN = re.compile(r"(?<!\d),\s*(?:and\s+)?|,(?!\d)\s*(?:and\s+)?|\s+and\s+")

_ITEM_SPLIT_ZH = re.compile(r"、|以及|和|及")


def _request_lists(text: str) -> Iterable[list[str]]:
    """Enumerations of three or more things the request asks to act on."""
    for sentence in re.split(r"(?<=[.!?])\s+|[。！？\n；;]", text):
        sentence = sentence.strip()
        if not sentence or _REQUEST_NEGATED.search(sentence) or _EXAMPLES.search(sentence):
            continue
        after_colon = sentence.split(":", 1)[1].strip() if ":" in sentence else ""
        lists: list[list[str]] = []
        if _LIST_VERB_EN.search(sentence) or _LIST_VERB_EN.search(after_colon):
            body = after_colon or sentence
            if re.search(r",(?!\d)", body) and " and " in body:
                lists.append(_ITEM_SPLIT_EN.split(body.rstrip(".")))
        elif _LIST_VERB_ZH.search(sentence):
            for clause in re.split(r"[，,]", sentence):
                body = re.split(r"：|:\s", clause)[-1]
                if body.count("、") >= 2:
                    lists.append(_ITEM_SPLIT_ZH.split(body))
        for found in lists:
            items = [i for i in found if i.strip() and not _RESTRICTION.search(i)]
            if len(items) >= 3:
                yield items


#: A list part that restricts the ask instead of naming a thing ("nothing else",
#: "only those", "别的不动").
_RESTRICTION = re.compile(
    r"(?i)^\s*(?:and\s+)?(?:nothing|no(?:thing)? other|none|not|only|just)\b[^,]{0,20}$"
    r"|别的|其他不|其余不"
)


_TRAILING_COUNT = re.compile(r"[一二三四五六七八九十两\d]+\s*(个|项|种|类)[^、，,]*$")


def _item_tokens(item: str) -> set[str]:
    return {t for t in _code_tokens(item) | _content_words(item) if t.isascii()} or {
        t for t in _content_words(item)
    }


def _mentions_part(text: str, token: str) -> bool:
    """Like :func:`_contains_token`, but a part of an identifier counts too: "deletion
    protection" is mentioned by ``deletion_protection`` and ``deletion.protection``."""
    if not token[0].isascii():
        return _contains_token(text, token)
    # borders of [a-z0-9] only: every \w-bordered match of _contains_token is one too
    return bool(re.search(r"(?<![a-z0-9])" + re.escape(token) + r"(?![a-z0-9])", _lower(text)))


#: A code identifier (``http_requests_total``, ``parseRow``, ``a.b``).
_IDENT = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b|\b[a-z]+[A-Z]\w*\b")

#: A listed item that asks for the report itself ("paste the summary", "把结果告诉我").
_REPORT_ITEM = _W.rx("report_item")


#: Question words that make a listed item a field, not a named thing ("who, when …").
_QUESTION_WORDS = frozenset({"what", "when", "where", "which", "whom", "whose", "with"})
#: Words of action and courtesy only: an item whose own words are these names no thing
#: ("Please fix it", "rerun gazelle" when gazelle is another item's).
_ACTION_WORDS = (
    re.compile(
        r"(?i)please|(?:re-?)?(?:run|fix|check|verify|make|ensure|update|add|bump|build|test"
        r"|review|confirm|redo|rebuild|regenerate|cut|ship|apply)\w*"
    ),
)


def _rule_listed_item_missing(view: _View) -> RuleHit | None:
    """``listed-item-missing``: the request lists three or more things to act on; the
    Todos and the answer name all but one, and that one — an item with a named thing of
    its own, not only verbs or question words — nowhere."""
    if is_thin(view) or scope_of(view).review_stop:
        return None  # a bare report mentions nothing; a review stop leaves the rest
    for req in view.requests:
        for items in _request_lists(req.text):
            items = [_TRAILING_COUNT.sub("", i) for i in items]
            own = [_item_tokens(i) for i in items]
            tokens = [
                t - set().union(*(o for j, o in enumerate(own) if j != k))
                for k, t in enumerate(own)
            ]
            if any(not t for t in tokens):
                continue
            missing = [
                i
                for i, toks in zip(items, tokens, strict=True)
                if not any(_mentions_part(view.report_text, t) for t in toks)
            ]
            if len(missing) != 1 or _REPORT_ITEM.search(missing[0]):
                continue  # "paste the summary", "tell me the result": the answer is that
            own_words = tokens[items.index(missing[0])]
            if not {
                w
                for w in own_words
                if (len(w) >= 4 or not w.isascii())
                and w not in _QUESTION_WORDS
                and not any(rx.fullmatch(w) for rx in _ACTION_WORDS)
            }:
                continue  # "please fix it", "rerun …", "when": no named thing of its own
            words = _item_tokens(missing[0])
            if not any(t.isascii() for t in words) and _IDENT.search(view.todo_text):
                continue  # Todos that name the work in code may name a listed word only so
            if any(
                _DESCOPE.search(later.text) and any(_contains_token(later.text, t) for t in words)
                for later in view.later_requests
            ):
                continue
            return _LISTED_ITEM_MISSING.hit(
                req,
                f"the request lists {len(items)} things; neither the Todos nor the answer "
                f"mention “{_quote(missing[0].strip(), 60)}”",
            )
    return None


#: A request clause that requires something ("must", "each … should", "都要").
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
_DECLINED = _W.rx("declined")
#: A sentence that guesses or plans a result instead of reporting one.
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


def _rule_requested_item_declined(view: _View) -> RuleHit | None:
    """``requested-item-declined``: the answer says it did not do what the request asked
    for ("I didn't add the index, because …") without the user having said so and
    without asking the user."""
    scope = scope_of(view)
    if scope.conditions or scope.takeover:
        return None
    for _a, sentence in view.sentences:
        m = _DECLINED.search(sentence)
        if m is None or _USER_CITED.search(sentence):
            continue
        rest = m.group(2) if m.group(2) is not None else (m.group(4) or "")
        words = _content_words(_strip_code(rest)) | _code_tokens(rest)
        for req, clause in view.request_sentences:
            if _REQUEST_NEGATED.search(_strip_code(clause)):
                continue
            low = clause.lower()
            if any(_contains_token(clause, w) or (not w.isascii() and w in low) for w in words):
                return _REQUESTED_ITEM_DECLINED.hit(
                    req,
                    f"the request asks for it (“{_quote(clause)}”), but the answer "
                    f"decided not to, without asking: “{_quote(sentence)}”",
                )
    return None
