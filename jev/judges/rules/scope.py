"""Rule family: request-side understanding — run before every other family (design.md
§2, §5, §13).

Reads the request (every user message of the turn) for what the user limited, deferred,
took over, made conditional or asked to stop for, and the turn for blockers only the
user can lift. Its facts (:class:`Scope`, one per material, cached on the view) excuse
open Todo items that the user's own scope covers, so ``open-item`` and
``all-done-with-open-items`` stay silent on them and ``thin-report`` stays silent on a
hand-over of work the user took over. Three rules fire here:

``condition-ignored`` (omission)
    the request reserves an action for the user ("if there are duplicates, tell me
    first — don't delete or merge anything") and the answer reports doing it ("I merged
    … and deleted the 37 older rows"): a triggered condition that was not honoured.
``condition-triggered`` (needs-user)
    the request reserves an action for the user, the action is still open, and the
    answer tells the user instead of doing it ("The stored data does need migrating …
    telling you first"): the next step is the user's.
``user-only-blocker`` (needs-user)
    an open Todo item is blocked on something only the user can give (a credential, a
    token such as ``NPM_TOKEN``, access, a licence or legal choice, a budget) and the
    turn says it is missing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from jev.base.domain import Position
from jev.base.segments import sentences as _sentences
from jev.judges.rules._base import (
    _NEGATION,
    _OFFER,
    _REQUEST_NEGATED,
    _STOPWORDS,
    _USER_CITED,
    RuleHit,
    Rx,
    _amount,
    _contains_token,
    _content_words,
    _quote,
    _Rule,
    _strip_code,
    _topics,
    _View,
    _Words,
)

_W = _Words("scope")

_CONDITION_IGNORED = _Rule("condition-ignored", "omission", 0.75)
_CONDITION_TRIGGERED = _Rule("condition-triggered", "needs-user", 0.7)
_USER_ONLY_BLOCKER = _Rule("user-only-blocker", "needs-user", 0.7)

_LIMIT = _W.rx("limit")
_DEFERRED_START = _W.rx("deferred_start")
_DEFERRAL_ACK = _W.rx("deferral_ack")
_REVIEW_STOP = _W.rx("review_stop")
#: "Ask me before …": the user reserves an act to approve, not a stop to review.
_ASK_ME = re.compile(r"(?i)\bask me\b|\b(?:check|confirm) with me\b|先问(?:我|一下)|问过我")
_STOPS_FOR_REVIEW = _W.rx("stops_for_review")
_TAKEOVER = _W.rx("takeover")
_HANDOVER = _W.rx("handover")
_CONDITION = _W.rx("condition")
_HONOURED = _W.rx("honoured")
_USER_ONLY = _W.rx("user_only")
_ENV_SECRET = _W.rx("env_secret")
_LACKS = _W.rx("lacks")
_HOLDER = _W.gate("holder")
_CONTINUE_QUESTION = _W.rx("continue_question")
#: ``{family: (words that name the action, words that report it done)}``.
_RESERVED: dict[str, tuple[Rx, Rx]] = {
    name: (_W.rx(f"reserved.{name}"), re.compile(_W.text(f"reserved.{name}", "done"), re.I))
    for name in _W.keys("reserved")
}
#: "Phase 2", "stages 2–3", "step 4" (a word and one number or a range).
_ORDINAL = re.compile(
    r"\b([a-z]{3,12}?)s?\s*(\d{1,2})(?:\s*(?:–|-|—|to|and|&|,|or)\s*(\d{1,2}))?\b", re.I
)
#: Future or conditional wording: a sentence that plans an action does not report it.
_NOT_DONE_YET = re.compile(
    r"\b(?:will|would|need to|needs? (?:the|a|to)|going to|should|could|can|plan|before|once|if"
    r"|until)\b|要|需要|之前|如果|打算",
    re.I,
)
#: A Todo item that waits for the user ("Get the new path from user", "用户确认").
_WAITS_USER = re.compile(
    r"\b(?:from|with|by) (?:the )?user\b|\buser (?:decision|input|approval)\b|用户", re.I
)
#: The sentence that turns to the user ("I need you to add that secret", "需要你提供").
_ASKS_USER = re.compile(
    r"\b(?:I need you|could you|can you|would you|please)\b|需要[你您]|请[你您]|麻烦[你您]", re.I
)
_TEST_WORK = re.compile(r"\b(?:tests?|testing|run|verify|check)\b|测|跑|验证", re.I)


@dataclass(frozen=True, slots=True)
class Scope:
    """What the request says about the turn's scope (design.md §2).

    Attributes:
        limits: request sentences that limit or defer scope.
        deferred: lower-case words and ``word n`` ordinals the deferrals name.
        review_stop: the user asked for a stop after each stage for review.
        takeover: request sentences in which the user takes work over.
        conditions: (request position, sentence) pairs that reserve an action for the
            user.
        reserved: the families of action (``delete``, ``migrate``, …) they reserve.
        excused: ids of open Todo items that the user's scope covers.
        handover: the user took work over and the answer hands it to them.
    """

    limits: tuple[str, ...]
    deferred: frozenset[str]
    review_stop: bool
    takeover: tuple[str, ...]
    conditions: tuple[tuple[Position, str], ...]
    reserved: frozenset[str]
    excused: frozenset[str]
    handover: bool


def _ordinals(text: str) -> set[str]:
    found = set()
    for m in _ORDINAL.finditer(text):
        first, last = int(m.group(2)), int(m.group(3) or m.group(2))
        found |= {f"{m.group(1).lower()} {n}" for n in range(first, min(last, first + 9) + 1)}
    return found


def _deferred_words(sentence: str) -> set[str]:
    m = _DEFERRED_START.search(sentence)
    if m is None:
        return set()
    part = sentence[m.start() :]
    ordinals = _ordinals(part)
    if ordinals:  # "don't start phases 2–3 yet": the numbers say which, not "phase"
        return ordinals
    return _content_words(part) - _content_words(sentence[: m.start()])


def scope_of(view: _View) -> Scope:
    """The :class:`Scope` of the view's material (computed once per view)."""
    cached = view.cache.get("scope")
    if isinstance(cached, Scope):
        return cached
    limits: list[str] = []
    deferred: set[str] = set()
    takeover: list[str] = []
    conditions: list[tuple[Position, str]] = []
    reserved: set[str] = set()
    review_stop = False
    for req, sentence in view.request_sentences:
        plain = _strip_code(sentence)
        if _LIMIT.search(plain):
            limits.append(sentence)
            deferred |= _deferred_words(plain)
        if _REVIEW_STOP.search(plain) and not _ASK_ME.search(plain):
            review_stop = True  # "ask me before you drop it" reserves an act: no review stop
        if _TAKEOVER.search(plain):
            takeover.append(sentence)
        if _CONDITION.search(sentence):
            conditions.append((req, sentence))
            reserved |= {name for name, (words, _) in _RESERVED.items() if words.search(sentence)}
    facts = Scope(
        limits=tuple(limits),
        deferred=frozenset(deferred),
        review_stop=review_stop,
        takeover=tuple(takeover),
        conditions=tuple(conditions),
        reserved=frozenset(reserved),
        excused=frozenset(),
        handover=bool(takeover)
        and bool(_HANDOVER.search(view.answer_text) or _USER_CITED.search(view.answer_text)),
    )
    excused = frozenset(t.id for t in view.open_todos if _covered(view, facts, t))
    facts = replace(facts, excused=excused)
    view.cache["scope"] = facts
    return facts


def _covered(view: _View, scope: Scope, todo: Position) -> bool:
    """Does the user's own scope cover this open Todo item?"""
    text = todo.text
    if scope.limits:
        own = _content_words(text) | _ordinals(text)
        if own & scope.deferred:
            return True
        allowed = set().union(*(_ordinals(_strip_code(s)) for s in scope.limits))
        mine = _ordinals(text)
        if (
            allowed
            and mine
            and {o.split()[0] for o in mine} <= {o.split()[0] for o in allowed}
            and not mine & allowed
        ):
            return True  # "phase 1 now": the Todo's "Phase 2" is outside what was asked
        if any(_DEFERRAL_ACK.search(_strip_code(a.text)) for a in view.answers):
            return True
    if scope.review_stop and any(_STOPS_FOR_REVIEW.search(a.text) for a in view.answers):
        return True
    for clause in scope.takeover:
        if (
            _topics(clause) & _topics(text)
            or (_TEST_WORK.search(clause) and _TEST_WORK.search(text))
            or _content_words(_strip_code(clause)) & _content_words(text)
        ):
            return True
    return any(_RESERVED[name][0].search(text) for name in scope.reserved) and _honoured(view)


def _honoured(view: _View) -> bool:
    """Whether the answer (or an open Todo: "Run on prod (waiting for your go-ahead)")
    leaves the reserved act to the user, as the request asked."""
    return bool(_HONOURED.search(view.answer_text)) or any(
        _WAITS_USER.search(t.text) for t in view.open_todos
    )


def excused(view: _View, todo: Position) -> bool:
    """True when the user's scope (limit, deferral, review stop, takeover, condition)
    covers the open Todo item ``todo`` (design.md §2)."""
    return todo.id in scope_of(view).excused


def handed_over(view: _View) -> bool:
    """True when the user took work over and the answer hands it to them."""
    return scope_of(view).handover


#: Environments a condition can be limited to ("before deleting anything in prod").
_ENVIRONMENT = re.compile(r"\b(?:prod|production|live)\b|生产|线上", re.I)


def _reported_done(view: _View, family: str) -> tuple[Position, str] | None:
    """An answer sentence reporting the reserved action done, where the condition holds
    (a condition about prod is not broken by the same action on staging)."""
    _words, done = _RESERVED[family]
    scope = scope_of(view)
    env = any(_ENVIRONMENT.search(s) for _, s in scope.conditions if _words.search(s))
    limit = min(
        (_amount(*m.groups()) for _, s in scope.conditions for m in _THRESHOLD.finditer(s)),
        default=None,
    )
    for a, sentence in view.sentences:
        plain = _strip_code(sentence)
        if env and not _ENVIRONMENT.search(sentence):
            continue
        for clause in _CLAUSE_BREAK.split(_PARENTHESES.sub(" ", plain)):
            m = done.search(clause)
            if m is None or _NEGATION.search(clause) or _NOT_DONE_YET.search(clause[: m.start()]):
                continue
            counts = [_amount(n) for n in _COUNT.findall(clause) or _COUNT.findall(plain)]
            if limit is not None and counts and max(counts) <= limit:
                continue  # "if more than 1,000 rows …": 200 rows did not trigger it
            return a, sentence
    return None


#: The threshold of a condition ("if it would delete more than 1,000 rows", "超过 500 条").
_THRESHOLD = re.compile(
    r"(?:more than|over|above|exceeds?|at least|greater than|>=?|≥|超过|多于|大于|不少于)\s*"
    r"(\d[\d,]*(?:\.\d+)?)\s*(万|千|k\b|K\b)?",
    re.I,
)
_COUNT = re.compile(r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+)(?![\w.])")


#: A parenthetical aside ("(11 rows had no object)") says nothing of the main verb.
_PARENTHESES = re.compile(r"\([^()]*\)|（[^（）]*）")

#: Where a clause ends inside a sentence (a negation in one clause says nothing of the
#: next: "staging 验证没问题，prod 也一并发了").
_CLAUSE_BREAK = re.compile(r"[，;；]|,(?!\d)|\s(?=but\s)|但是|不过")


def _rule_condition_ignored(view: _View) -> RuleHit | None:
    """``condition-ignored``: an action the request reserved for the user reported done."""
    scope = scope_of(view)
    for family in sorted(scope.reserved):
        found = _reported_done(view, family)
        if found is None:
            continue
        req, sentence = next((c, s) for c, s in scope.conditions if _RESERVED[family][0].search(s))
        if _not_triggered(view, sentence) or _asks_about(view, family):
            continue  # the answer says the condition did not hold, or asks about the rest
        return _CONDITION_IGNORED.hit(
            req,
            f"the request reserves this for the user (“{_quote(req.text)}”), but the answer "
            f"reports doing it: “{_quote(found[1])}”",
        )
    return None


#: The "if" part of a condition ("If any has unmerged commits, ask me …").
_IF_PART = re.compile(
    r"\b(?:if|when|in case|unless|before)\b([^,;.\n]{3,120})|如果([^，。；\n]{2,60})", re.I
)
_VAGUE = frozenset(["anything", "everything", "something", "nothing", "would", "there", "these"])
_NOTHING_TO_ASK = _W.rx("nothing_to_ask")


def _not_triggered(view: _View, condition: str) -> bool:
    """The answer says the condition did not hold: "there was nothing to ask about", or a
    negated sentence about the condition's own subject ("None of the stale branches had
    unmerged commits")."""
    if _NOTHING_TO_ASK.search(view.answer_text):
        return True
    m = _IF_PART.search(condition)
    if m is None:
        return False
    words = {
        w
        for w in _content_words(_strip_code(m.group(1) or m.group(2)))
        if len(w) >= 5 and w not in _VAGUE and not any(rx.search(w) for rx, _ in _RESERVED.values())
    }
    if not words:
        return False
    for _a, sentence in view.sentences:
        plain = _strip_code(sentence)
        if _NEGATION.search(plain) and len(words & _content_words(plain)) >= min(2, len(words)):
            return True
    return False


def _asks_about(view: _View, family: str) -> bool:
    """A question in the answer about the reserved action ("should I delete them too?")."""
    words, _done = _RESERVED[family]
    return any(
        re.search(r"[?？]\s*$", a.text.strip()) and words.search(_strip_code(a.text))
        for a in view.answers
    )


def _rule_condition_triggered(view: _View) -> RuleHit | None:
    """``condition-triggered``: a reserved action is still open and the answer tells the
    user first, as asked: the next step is the user's (needs-user)."""
    scope = scope_of(view)
    if not scope.reserved or not _honoured(view) or stops_as_asked(view):
        return None  # a review stop is the stop the user asked for, not a condition come true
    for family in sorted(scope.reserved):
        words, _done = _RESERVED[family]
        if _reported_done(view, family) is not None:
            continue
        open_items = [t for t in view.open_todos if words.search(t.text)]
        asked = any(
            words.search(s) and not _REQUEST_NEGATED.search(_strip_code(s))
            for _, s in scope.conditions
        )
        said = [
            a
            for a in view.answers
            if asked and words.search(_strip_code(a.text)) and "?" not in a.text
        ]
        if not (open_items or said):
            continue
        focus = said[0] if said else open_items[0]
        return _CONDITION_TRIGGERED.hit(
            focus, f"the request asks to be told first, and the answer does: “{_quote(focus.text)}”"
        )
    return None


def _names_user_only(text: str) -> bool:
    return bool(_ENV_SECRET.search(text) or _USER_ONLY.search(text))


def _rule_user_only_blocker(view: _View) -> RuleHit | None:
    """``user-only-blocker``: an open Todo item blocked on a credential, token, access,
    licence, legal choice or budget that only the user can give (needs-user); with every
    Todo completed, an answer sentence that says so and names the user as its holder
    ("needs a deploy key only you have", "需要你开通权限")."""
    if not view.open_todos:
        if not _HOLDER.search(view.answer_text):
            return None
        for a, sentence in view.sentences:
            if (
                _HOLDER.search(sentence)
                and _names_user_only(sentence)
                and _LACKS.search(sentence)
                and not _OFFER.search(sentence)
            ):
                return _USER_ONLY_BLOCKER.hit(
                    a,
                    f"the answer says the work is blocked on something only the user "
                    f"can give: “{_quote(sentence)}”",
                )
        return None
    if all(view.descoped(t) or excused(view, t) for t in view.open_todos):
        return None  # what is left open is what the user kept out of the turn
    for todo in view.open_todos:
        if _names_user_only(todo.text) and _LACKS.search(todo.text):
            return _USER_ONLY_BLOCKER.hit(
                todo,
                f"Todo {todo.id} is blocked on something only the user can give: "
                f"“{_quote(todo.text, 60)}”",
                0.75,
            )
    for a, sentence in view.sentences:
        if not (_names_user_only(sentence) and _LACKS.search(sentence)):
            continue
        blocked = next(
            (
                t
                for t in view.open_todos
                if any(_contains_token(sentence, w) for w in _content_words(t.text))
            ),
            None,
        ) or next((t for t in view.open_todos if _names_user_only(t.text)), None)
        if blocked is None:
            continue
        later = view.answers[view.answers.index(a) :]
        a = next((b for b in later if _ASKS_USER.search(b.text)), a)
        return _USER_ONLY_BLOCKER.hit(
            a,
            f"Todo {blocked.id} is open and the answer says it needs something only the user "
            f"can give: “{_quote(sentence)}”",
        )
    return _handed_over(view)


_RESUME_AFTER = _W.rx("resume_after")
_OTHER_ACTS = _W.rx("other_acts")
_INSTALLABLE = _W.rx("installable")


def _handed_over(view: _View) -> RuleHit | None:
    """An open Todo whose next step the answer's closing paragraphs hand to someone
    else: a resumption that waits on their act (:data:`_RESUME_AFTER`) or an act only
    they can do (:data:`_OTHER_ACTS`), quoted with the open Todo. Not in a review stop
    the user asked for, and not when what is missing is a tool or package the agent
    could install itself (:data:`_INSTALLABLE`: that stop is an omission)."""
    todo = next((t for t in view.open_todos if not (view.descoped(t) or excused(view, t))), None)
    if todo is None or scope_of(view).review_stop:
        return None
    closing = [a for a in view.answers if view.paragraph[a.id] >= view.last_paragraph - 2]
    for a in closing:
        for sentence in _sentences(_strip_code(a.text)):
            if not (_RESUME_AFTER.search(sentence) or _OTHER_ACTS.search(sentence)):
                continue
            if _OFFER.search(sentence):
                continue
            if _INSTALLABLE.search(view.answer_text):
                return None
            return _USER_ONLY_BLOCKER.hit(
                a,
                f"Todo {todo.id} is open (“{_quote(todo.text, 60)}”) and the answer hands "
                f"the next step to someone else: “{_quote(sentence)}”",
                0.7,
            )
    return None


def asks_to_continue(view: _View, pos: Position) -> bool:
    """A question whether to go on with the rest of the requested work ("Shall I continue
    with the remaining four?") in a turn where the user did not ask for a stop."""
    return bool(_CONTINUE_QUESTION.search(pos.text)) and not scope_of(view).review_stop


def asks_for_requested_work(view: _View, pos: Position) -> Position | None:
    """The open Todo item a permission question asks about ("Should I also write the
    docs?" while "Document the endpoint" is pending), when the request asked for it and
    the user set no stop, limit or condition on it."""
    scope = scope_of(view)
    if scope.review_stop or scope.conditions:
        return None
    words = {w for w in _content_words(_strip_code(pos.text)) if len(w) >= 4}
    asked = view.request_text.lower()
    for todo in view.open_todos:
        if todo.id in scope.excused or _WAITS_USER.search(todo.text):
            continue
        if any(w in todo.text.lower() for w in words) and any(w in asked for w in words):
            return todo  # a word of the question is part of both (a whole token or not)
    return None


_KEEP_OUT = _W.rx("keep_out")
_ASCII_WORD = re.compile(r"[a-z][a-z0-9_-]{2,}", re.I)


def asks_outside_scope(view: _View, pos: Position) -> bool:
    """A closing question about something the request kept out of this turn ("prod 要不要
    同样调整？" after "prod 的配置不要动"), with no Todo item left open: an optional next
    step for the user, not a decision this turn's completion waits on (design.md §5)."""
    if view.open_todos:
        return False
    words = {w.lower() for w in _ASCII_WORD.findall(_strip_code(pos.text))} - _STOPWORDS
    for _req, sentence in view.request_sentences:
        for m in _KEEP_OUT.finditer(sentence):
            if any(_contains_token(sentence, w) for w in words):
                return True
            kept = _CJK_BEFORE.search(sentence, 0, m.start())  # "生产不要动": 生产
            if kept is not None and kept.group(0)[-2:] in pos.text:
                return True
    return False


_CJK_BEFORE = re.compile(r"[\u4e00-\u9fff]{2,6}$")


def stops_as_asked(view: _View) -> bool:
    """The user asked for a stop for review and the answer makes it ("waiting for your
    sign-off", "先停在这里等你 review"): the turn is done as asked (design.md §5)."""
    scope = scope_of(view)
    return scope.review_stop and any(_STOPS_FOR_REVIEW.search(a.text) for a in view.answers)
