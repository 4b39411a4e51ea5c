"""Rule family: open items — ``all-done-with-open-items``, ``open-item`` and
``answer-admits-unfinished`` (design.md §5, §13)."""

from __future__ import annotations

import re

from jev.base.domain import Position
from jev.base.segments import sentences as _sentences
from jev.judges.rules._base import (
    _NEGATION,
    _OFFER,
    _STOPWORDS,
    _USER_CITED,
    RuleHit,
    _contains_token,
    _quote,
    _Rule,
    _strip_code,
    _View,
    _Words,
)
from jev.judges.rules.asks import _TODO_WAITS_USER, _ask_user_anywhere
from jev.judges.rules.scope import excused, scope_of

_W = _Words("open_items")

_OPEN_ITEM = _Rule("open-item", "omission", 0.7)
_ALL_DONE_WITH_OPEN_ITEMS = _Rule("all-done-with-open-items", "contradiction", 0.8)
_ANSWER_ADMITS_UNFINISHED = _Rule("answer-admits-unfinished", "omission", 0.7)

_ADMITS_UNFINISHED = _W.gate("admits_unfinished")


def _rule_open_item(view: _View) -> RuleHit | None:
    """``open-item``: a pending/in-progress Todo item the user did not descope."""
    for todo in view.open_todos:
        if _left_open_as_meant(view, todo) or _USERS_OWN.search(todo.text):
            continue
        mentions = view.answer_mentions(todo)
        if any(_USER_CITED.search(a.text) or _NOT_REQUESTED.search(a.text) for a in mentions):
            continue
        if _TODO_WAITS_USER.search(todo.text) and _ask_user_anywhere(view):
            continue
        said = "the answer does not account for it" if not mentions else "the answer leaves it open"
        return _OPEN_ITEM.hit(
            todo,
            f"Todo {todo.id} is still {todo.status} (“{_quote(todo.text, 60)}”) and {said}",
            0.8 if not mentions else 0.7,
        )
    return None


_OPTIONAL = _W.rx("optional")


def _left_open_as_meant(view: _View, todo: Position) -> bool:
    """Whether an open Todo item is meant to stay open: a later message descoped it, the
    user's scope covers it (:func:`excused`), or the agent marked it optional."""
    return view.descoped(todo) or excused(view, todo) or bool(_OPTIONAL.search(todo.text))


_USERS_OWN = _W.rx("users_own")

_NOT_REQUESTED = _W.rx("not_requested")

_ALL_DONE = _W.rx("all_done")


def _rule_all_done_with_open_items(view: _View) -> RuleHit | None:
    """``all-done-with-open-items``: "all done" while a Todo item is still open."""
    open_items = [t for t in view.open_todos if not _left_open_as_meant(view, t)]
    if not open_items:
        return None
    admitted = next(
        (
            (todo, a)
            for todo in open_items
            for a in view.answer_mentions(todo)
            if _ADMITS_UNFINISHED.search(_strip_code(a.text))
        ),
        None,
    )
    for a in view.answers:
        if admitted is not None and a is admitted[1]:
            continue
        for sentence in _sentences(_strip_code(a.text)):
            if not _ALL_DONE.search(sentence) or _NEGATION.search(sentence):
                continue
            if _OFFER.search(sentence) or _USER_CITED.search(sentence):
                continue
            todo = open_items[0] if admitted is None else admitted[0]
            other = (
                f"Todo {todo.id} is still {todo.status}: “{_quote(todo.text, 60)}”"
                if admitted is None
                else f"the answer itself says Todo {todo.id} is not done: "
                f"“{_quote(admitted[1].text, 60)}”"
            )
            return _ALL_DONE_WITH_OPEN_ITEMS.hit(
                a, f"the answer says everything is done (“{_quote(sentence, 60)}”), but {other}"
            )
    return None


_LEFT_OUT = _W.rx("left_out")


def _names_asked(view: _View, pos: Position) -> bool:
    """Whether answer position ``pos`` names a thing (a code span or a word of four or
    more letters) that a request message asks for without telling the agent to keep it."""
    found = re.findall(r"`([^`\n]+)`|([A-Za-z][\w/.-]{3,}|[\u4e00-\u9fff]{2})", pos.text)
    words = {
        w.lower()
        for span_or_word in found
        for w in span_or_word
        if w and not w.replace(".", "").isdigit()  # a bare number ("`2`") names nothing
    } - _STOPWORDS
    return any(
        not _KEEP.search(s) and any(_contains_token(s, w) for w in words)
        for _req, s in view.request_sentences
    )


_KEEP = re.compile(r"(?i)\b(?:keep|leave|don['’]t|do not|untouched)\b|保留|不要|别动|不动")


def _rule_admits_unfinished(view: _View) -> RuleHit | None:
    """``answer-admits-unfinished``: in a turn the user did not limit, the answer says it
    left out something the request asks for (:func:`_names_asked`), or says a part of the
    work is not finished, without citing the user or offering it as an option."""
    scope = scope_of(view)
    if scope.limits or scope.review_stop or scope.takeover or scope.conditions:
        return None  # the user limited the turn: what is left may be what they kept back
    for a in view.answers:
        if (
            _LEFT_OUT.search(a.text)
            and not _USER_CITED.search(_strip_code(a.text))
            and _names_asked(view, a)
        ):
            return _ANSWER_ADMITS_UNFINISHED.hit(
                a, f"the answer says it left out something the request asks for: “{_quote(a.text)}”"
            )
    if not _ADMITS_UNFINISHED.search(view.answer_plain):
        return None
    for a in view.answers:
        plain = _strip_code(a.text)
        if (
            _ADMITS_UNFINISHED.search(plain)
            and not _USER_CITED.search(plain)
            and not _OFFER.search(plain)
        ):
            return _ANSWER_ADMITS_UNFINISHED.hit(
                a, f"the answer says part of the work is not finished: “{_quote(a.text)}”"
            )
    return None
