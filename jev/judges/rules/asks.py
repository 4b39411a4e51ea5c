"""Rule family: asks to the user — ``asks-user`` (needs-user) and ``already-authorized``
(omission) (design.md §5, §13)."""

from __future__ import annotations

import re

from jev.base.domain import Position
from jev.judges.rules._base import (
    _I,
    _OFFER,
    _REQUEST_NEGATED,
    RuleHit,
    _AnyGate,
    _quote,
    _Rule,
    _View,
    _Words,
)
from jev.judges.rules.scope import (
    asks_for_requested_work,
    asks_outside_scope,
    asks_to_continue,
    stops_as_asked,
)

_W = _Words("asks")

_ALREADY_AUTHORIZED = _Rule("already-authorized", "omission", 0.7)
_ASKS_FOR_REQUESTED_WORK = _Rule("asks-for-requested-work", "omission", 0.7)
_ASKS_USER = _Rule("asks-user", "needs-user", 0.75)

_QUESTION_MARK = re.compile(r"[?？]")

_HEDGED_SUGGESTION = _W.rx("hedged_suggestion")

_ANALYSIS_REQUEST = _W.rx("analysis_request")

_CHANGE_REQUEST = _W.rx("change_request")

_GO_ON_TO_CHANGE = _W.rx("go_on_to_change")

_CHOICE = _W.rx("choice")

_PERMISSION = _W.rx("permission")

_EXPLICIT_ASK_1 = _W.gate("explicit_ask_1")

_EXPLICIT_ASK_2 = _W.gate("explicit_ask_2")

_EXPLICIT_ASK = _AnyGate(_EXPLICIT_ASK_1, _EXPLICIT_ASK_2)

#: The agent lacks a credential or access that only the user can give ("I have
#: neither", "Token … 我这边没有"): an ask only in a turn that is visibly blocked.
_LACKS_ACCESS = _AnyGate(_W.gate("lacks_access_en"), _W.gate("lacks_access_zh"))

_WH_QUESTION = _W.rx("wh_question")


_RISKY = _W.rx("risky")

_TODO_WAITS_USER = _W.rx("todo_waits_user")


_ASK_FIRST = _W.rx("ask_first")


def _closing_answers(view: _View) -> list[Position]:
    """Answer positions in the last paragraph plus the last two positions overall."""
    tail = {a.id for a in view.answers[-2:]}
    return [
        a for a in view.answers if a.id in tail or view.paragraph.get(a.id) == view.last_paragraph
    ]


def _ask_kind(text: str) -> str | None:
    """Classify an answer position's text as an ask of the user: choice, permission,
    explicit or info (``None``: no ask)."""
    if _EXPLICIT_ASK.search(text):
        return "explicit"
    if not _QUESTION_MARK.search(text) or _HEDGED_SUGGESTION.search(text):
        return None
    if _CHOICE.search(text):
        return "choice"
    if _PERMISSION.search(text):
        return "permission"
    if _WH_QUESTION.search(text):
        return "info"
    return None


def _blocked(view: _View) -> bool:
    """Is the turn visibly waiting on the user (an open Todo, an explicit ask)?"""
    return bool(view.open_todos or _EXPLICIT_ASK.search(view.answer_text))


def _authorizing_request(view: _View, question: str) -> Position | None:
    """The request segment that already asked for the risky action the question asks about."""
    if _ASK_FIRST.search(view.request_text):
        return None
    terms = {m.group(0).lower() for m in _RISKY.finditer(question)}
    commands = {m.group(1).strip().lower() for m in _COMMAND_SPAN.finditer(question)}
    if not (terms or commands):
        return None
    for req in view.requests:
        if _REQUEST_NEGATED.search(req.text) and not re.search(r"已经|already", req.text, _I):
            continue
        low = req.text.lower()
        if any(_term_in(low, term) for term in terms) or any(f"`{cmd}" in low for cmd in commands):
            return req
    return None


#: A code span that reads as a command (“`helm upgrade`”, “`terraform apply`”): a tool
#: name and a sub-command, the kind of action a request can name and thereby authorize.
_COMMAND_SPAN = re.compile(r"`([a-z][\w.-]*(?: [a-z][\w:.-]*){1,2})`")


def _term_in(text: str, term: str) -> bool:
    if term[0].isascii():  # its first five letters, at the start of a word
        return re.search(r"(?<![\w])" + re.escape(term[:5]), text) is not None
    return term in text


def _offers_next_step(view: _View, pos: Position) -> bool:
    """An analysis-only request answered, then "shall I implement it?": an optional
    offer of further work, not a decision the completion depends on."""
    return (
        bool(_GO_ON_TO_CHANGE.search(pos.text))
        and bool(_ANALYSIS_REQUEST.search(view.request_text))
        and not _CHANGE_REQUEST.search(view.request_text)
    )


def _rule_asks_user(view: _View) -> RuleHit | None:
    """``asks-user`` (needs-user) and ``already-authorized`` (omission)."""
    review_stop = stops_as_asked(view)  # the stop the user asked for is no decision
    for pos in _closing_answers(view):
        kind = _ask_kind(pos.text)
        if kind is None or asks_outside_scope(view, pos):
            continue
        if review_stop and not _CHOICE.search(pos.text):
            continue  # "waiting for your sign-off": the review stop, not a question
        risky = bool(_RISKY.search(pos.text))
        if kind == "permission":
            req = _authorizing_request(view, pos.text)
            if req is not None:
                return _ALREADY_AUTHORIZED.hit(
                    req,
                    f"the answer asks permission for something the request already asked for: "
                    f"“{_quote(req.text)}”",
                )
        if kind == "permission" and not risky:
            todo = asks_for_requested_work(view, pos)
            if todo is not None or asks_to_continue(view, pos):
                return _ASKS_FOR_REQUESTED_WORK.hit(
                    pos,
                    "the answer asks whether to do work the request already asked for"
                    + (f" (Todo {todo.id} is still {todo.status})" if todo else "")
                    + f": “{_quote(pos.text)}”",
                )
        offer = bool(_OFFER.search(pos.text)) or _offers_next_step(view, pos)
        paragraph_offer = any(
            _OFFER.search(a.text) and view.paragraph.get(a.id) == view.paragraph.get(pos.id)
            for a in view.answers
            if a.id != pos.id and not _QUESTION_MARK.search(a.text)
        )
        if kind == "explicit" and not offer:
            return _ASKS_USER.hit(
                pos, f"the answer asks the user for a decision or input: “{_quote(pos.text)}”", 0.8
            )
        if offer or paragraph_offer:
            continue
        if kind == "choice" or (kind in ("permission", "info") and (_blocked(view) or risky)):
            return _ASKS_USER.hit(
                pos,
                f"the answer ends by asking the user to choose or authorize: “{_quote(pos.text)}”",
            )
    explicit = bool(_EXPLICIT_ASK.search(view.answer_text))
    lacks = bool(_LACKS_ACCESS.search(view.answer_text)) and bool(view.open_todos)
    if review_stop or not (lacks or (explicit and _blocked(view))):
        return None
    for pos in view.answers:  # an explicit ask earlier in a turn that is visibly blocked
        if (
            (explicit and _EXPLICIT_ASK.search(pos.text))
            or (lacks and _LACKS_ACCESS.search(pos.text))
        ) and not (_OFFER.search(pos.text) or asks_outside_scope(view, pos)):
            return _ASKS_USER.hit(
                pos,
                f"the turn is blocked and the answer asks the user for a decision or input: "
                f"“{_quote(pos.text)}”",
            )
    return None


def _ask_user_anywhere(view: _View) -> bool:
    return any(_ask_kind(a.text) for a in view.answers)
