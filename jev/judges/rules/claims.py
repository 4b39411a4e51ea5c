"""Rule family: status/claim conflicts between the Todo list and the answer —
``open-item-claimed-passing``, ``pending-item-claimed-done``, ``done-item-denied``
(design.md §5, §13)."""

from __future__ import annotations

import functools
import re

from jev.base.domain import Position
from jev.base.segments import sentences as _sentences
from jev.judges.rules._base import (
    _GREEN_CLAIM,
    _I,
    _KEPT,
    _NEGATION,
    _OFFER,
    _STOPWORDS,
    _SUCCESS_CLAIM,
    _USER_CITED,
    _VERB_CLASSES,
    RuleHit,
    _code_tokens,
    _contains_token,
    _distinctive_tokens,
    _done_fractions,
    _object_tokens,
    _open_marked,
    _qualifiers,
    _quote,
    _Rule,
    _strip_code,
    _topics,
    _View,
    _Words,
)
from jev.judges.rules.scope import excused

_W = _Words("claims")

_OPEN_ITEM_CLAIMED_PASSING = _Rule("open-item-claimed-passing", "contradiction", 0.8)
_PENDING_ITEM_CLAIMED_DONE = _Rule("pending-item-claimed-done", "contradiction", 0.75)
_DONE_ITEM_DENIED = _Rule("done-item-denied", "contradiction", 0.8)

_STRONG_CLAIM = _W.rx("strong_claim")
#: A Todo's own words say failures remain ("1 failure left", "还剩 2 个失败").
_FAILING = re.compile(r"\bfail\w*|\berrors?\b|\bred\b|失败|报错|错误", re.I)

_DONE_CLAIM = _W.rx("done_claim")
_UNIVERSAL_DONE = _W.rx("universal_done")


def _word_keys(text: str) -> set[str]:
    """Five-letter word heads (≥ 4 letters, no stop words) and CJK bigrams of ``text``."""
    keys = {w[:5] for w in re.findall(r"[a-z]{4,}", text.lower()) if w not in _STOPWORDS}
    for run in re.findall(r"[\u4e00-\u9fff]+", text):
        keys.update(run[i : i + 2] for i in range(len(run) - 1))
    return keys


def _shares_word(todo_text: str, answer_text: str) -> bool:
    """Whether the Todo's own words before its note ("Rotate partner keys — …") share
    a word with the answer sentence."""
    head = re.split(r"\s[—–-]{1,2}\s|[(:：（]|——", todo_text, maxsplit=1)[0]
    return bool(_word_keys(head) & _word_keys(_strip_code(answer_text)))


#: "no class components left", "reports no vulnerabilities", "0 issues", "没有遗留".
_NONE_LEFT = re.compile(
    r"\bno (?:[\w-]+ ){0,3}(?:left|remaining)\b|\b(?:no|zero|0) (?:[\w-]+ )?(?:vulnerabilit\w+|"
    r"issues|problems|findings|warnings)\b|(?:没有|无)(?:遗留|剩余)",
    re.I,
)


def _universal_done_claims(view: _View) -> list[Position]:
    """Answer positions claiming every item done ("Rotated the keys for all three
    partners", "no class components left", "三个服务都已统一为 JSON")."""
    found = []
    for a in view.answers:
        plain = _strip_code(a.text)
        if not _UNIVERSAL_DONE.search(plain) or _OFFER.search(plain):
            continue
        if _NONE_LEFT.search(plain) or (_DONE_CLAIM.search(plain) and not _NEGATION.search(plain)):
            found.append(a)
    return found


def _same_topic(todo_text: str, answer_text: str, tokens: set[str]) -> bool:
    if any(_contains_token(answer_text, tok) for tok in tokens):
        return True
    if not _topics(todo_text) & _topics(answer_text):
        return False
    qa, qt = _qualifiers(answer_text), _qualifiers(todo_text)
    return not (qa and qa - qt)


def _rule_open_item_claimed_passing(view: _View) -> RuleHit | None:
    """``open-item-claimed-passing``: "still failing"/unfinished Todo vs a success claim."""
    for todo in view.todos:
        open_status = todo.status in ("pending", "in_progress")
        marked = _open_marked(todo.text) or _partial_fraction(todo.text)
        if not (open_status or marked):
            continue
        universal = _universal_done_claims(view) if marked and not open_status else []
        if not view.success_claims and not universal:
            return None
        tokens = _distinctive_tokens(todo, view.todos)
        # a code name a completed Todo shares ("next_cursor" in the documented API and in
        # the open UI item) says nothing about which of them the answer reports
        shared = " ".join(t.text for t in view.todos if t.status == "completed").lower()
        code = {t for t in _code_tokens(todo.text) if t not in shared}
        if open_status and any(_same_topic(todo.text, a.text, code) for a in view.negated_answers):
            continue  # the answer accounts for the open item: not a claim of success
        names = {t for t in tokens if len(t) >= 5 and (t in code or re.search(r"[-_./]", t))}
        claims = [
            a
            for a in (*view.success_claims, *universal)
            if _same_topic(todo.text, a.text, code)
            or (marked and any(_contains_token(a.text, t) for t in tokens if len(t) >= 5))
            or (names and _claim_names(a.text, names))
            or (marked and _FAILING.search(todo.text) and _GREEN_CLAIM.search(_strip_code(a.text)))
            or (a in universal and _shares_word(todo.text, a.text))
        ]
        claims.sort(key=lambda a: not _STRONG_CLAIM.search(a.text))
        for a in claims[:1]:
            return _OPEN_ITEM_CLAIMED_PASSING.hit(
                a,
                f"Todo {todo.id} is "
                + (f"still {todo.status}" if todo.status != "completed" else "noted as open")
                + f" (“{_quote(todo.text, 60)}”), but the answer reports it done: "
                f"“{_quote(a.text)}” (a status contradiction, not an omission)",
            )
    return None


def _claim_names(text: str, names: set[str]) -> bool:
    """A sentence of ``text`` that claims success and names one of ``names`` (an open
    Todo's own identifier, e.g. the branch or job it was to verify on)."""
    return any(
        _SUCCESS_CLAIM.search(s)
        and not _NEGATION.search(_strip_code(s))
        and any(_contains_token(s, t) for t in names)
        for s in _sentences(text)
    )


def _partial_fraction(text: str) -> bool:
    return any(int(m.group(1)) < int(m.group(2)) for m in _done_fractions(text))


def _rule_pending_claimed_done(view: _View) -> RuleHit | None:
    """``pending-item-claimed-done``: an open Todo's own tokens reported as done, or its
    own action reported in the past tense with its own object ("Apply migration on
    staging" pending, "Applied on staging successfully"; "Deploy … to staging" in
    progress, "It's live on staging")."""
    for todo in view.open_todos:
        if excused(view, todo):
            continue
        found = _action_reported(view, todo) or _code_reported_done(view, todo)
        if found is not None:
            return _PENDING_ITEM_CLAIMED_DONE.hit(
                found,
                f"Todo {todo.id} is still {todo.status}, but the answer reports it done: "
                f"“{_quote(found.text)}”",
            )
    return None


def _code_reported_done(view: _View, todo: Position) -> Position | None:
    """An answer position that names this open Todo's own code tokens with a done-verb
    (:data:`_DONE_CLAIM`), when no answer position naming them holds a negation."""
    tokens = {t for t in _distinctive_tokens(todo, view.todos) if t in _code_tokens(todo.text)}
    mentions = [a for a in view.answers if any(_contains_token(a.text, t) for t in tokens)]
    if any(_NEGATION.search(_strip_code(a.text)) for a in mentions):
        return None
    found = next((a for a in mentions if _DONE_CLAIM.search(_strip_code(a.text))), None)
    if found is not None:
        return found
    if not mentions:  # no code name: three of the item's own words in one answer line
        words = {w for w in _distinctive_tokens(todo, view.todos) if len(w) >= 4 or not w.isascii()}
        label = _label(todo.text)
        mentions = [
            a
            for a in view.answers
            if sum(_contains_token(a.text, w) for w in words) >= 3
            or (label is not None and _label(a.text) == label)
        ]
        found = next((a for a in mentions if _reports_done(a.text)), None)
    if found is not None or not _headline_claims_done(view):
        return found
    # under a headline of completion ("Both pieces are in."), a plain statement naming
    # the open item's own code ("`QueueConsumerLagHigh` fires when lag > 10000")
    return next(
        (
            a
            for a in mentions
            if not _LEFT_WORD.search(_strip_code(a.text)) and not _FENCE_START.match(a.text)
        ),
        None,
    )


#: The label a Todo or an answer line opens with: "HIL test: …", "- **HIL test** …".
_LABEL = re.compile(
    r"^\s*(?:[-*+•]\s+|\d+[.)]\s+)?(?:\*\*([^*\n]{2,40})\*\*|([^:：*`\n]{2,40})[:：])"
)


def _label(text: str) -> str | None:
    m = _LABEL.match(text)
    return None if m is None else (m.group(1) or m.group(2)).strip(" :：").lower()


def _reports_done(text: str) -> bool:
    """A line that reports its work done and leaves nothing of it open or undone."""
    plain = _strip_code(text)
    return bool(_DONE_CLAIM.search(plain)) and not (
        _LEFT_WORD.search(plain) or _NEGATION.search(plain) or _FENCE_START.match(text)
    )


_FENCE_START = re.compile(r"\s*```")
#: A word that leaves the item open ("pending", "not yet", "TODO", "待", "还没").
_LEFT_WORD = re.compile(
    r"(?i)\b(?:pending|not yet|later|left|remains?|remaining|will|todo|still|next|wip)\b"
    r"|[❌⏳⚠]|待|还没|未|稍后|之后再"
)


def _headline_claims_done(view: _View) -> bool:
    """Whether the answer opens with a claim that the work is done ("Both pieces are
    in.", "Freshness checks are in and wired into the hourly run.", "CI now covers the
    C3:"): a first sentence of success without a negation or a word of work left."""
    first = next(iter(view.sentences), None)
    if first is None:
        return False
    plain = _strip_code(first[1])
    return bool(
        (_SUCCESS_CLAIM.search(plain) or _HEADLINE_DONE.search(plain))
        and not _NEGATION.search(plain)
        and not _STILL_OPEN.search(plain)
    )


#: An opening line that says the work is in ("are in", "is out", "now covers", "已上线").
_HEADLINE_DONE = re.compile(
    r"(?i)\b(?:is|are) (?:now )?(?:in|out|live|done|shipped|wired)\b"
    r"|\bnow (?:covers|runs|has|ships)\b|已(?:经)?(?:上线|接入|完成|加上|部署)"
)


_DENY_ALL = _W.rx("deny_all")

_DENY_VERB = _W.rx("deny_verb")

#: Where a denial's object ends: a contrast ("…, only X") or a clause break.
_DENIAL_CLAUSE_BREAK = re.compile(
    r"[;；:：，、|]|,\s*(?=(?:only|just|but|except|instead|while|although|though|so|because)\b)"
    r"|\s(?=(?:but|only|except|instead|because)\s)|只是|但是|不过|而是|因为",
    _I,
)


#: A negation inside a condition ("不加 X 时", "if it isn't set", "without X it …").
_IF_NOT = re.compile(
    r"(?i)(?:不|没|未)[^，。；]{0,12}(?:时|的话|就会)|\b(?:if|when|unless)\b[^,;.]{0,20}\b(?:not|no|n['’]t)\b"
    r"|\bwithout\b[^,;.]{0,30}\b(?:it|the \w+) (?:will|would|asks|prints|fails)\b"
)


@functools.lru_cache(maxsize=4096)
def _denials_of(sentence: str) -> tuple[tuple[str, bool, frozenset[str], frozenset[str]], ...]:
    """Denial clauses of ``sentence``: (clause, denies all changes, denied verb classes,
    topic classes of the clause without code). Empty for a user-cited or optional
    sentence."""
    if _USER_CITED.search(sentence) or _OFFER.search(sentence):
        return ()
    found = []
    for clause in _DENIAL_CLAUSE_BREAK.split(sentence):
        plain = _strip_code(clause)
        if not clause.strip() or not (_DENY_VERB.search(plain) or _KEPT.search(plain)):
            continue  # no denial (negation or "kept") in this clause
        if _IF_NOT.search(plain):
            continue  # "不加 --dry-run 时会先确认", "without the flag it asks": a behaviour
        deny_all = bool(_DENY_ALL.search(plain))
        denied = _denied_verbs(plain)
        if _KEPT.search(plain):
            denied.add("remove")
        if deny_all or denied:
            found.append((clause, deny_all, frozenset(denied), _topics(plain)))
    return tuple(found)


@functools.lru_cache(maxsize=4096)
def _prose(text: str) -> str:
    """``text`` without code spans and identifier-like tokens (``drop_duplicates(...)``,
    ``executeInTransaction=false``, ``a.b``): what is left are the words that describe
    the work, so an identifier never passes for a verb of the work."""
    return _IDENTIFIER_LIKE.sub(" ", _strip_code(text))


_IDENTIFIER_LIKE = re.compile(r"[^\s]*(?:[_(=/]|[a-z][A-Z]|\w\.\w)[^\s]*")


_KEEP_TODO = _W.rx("keep_todo")
#: A verb that only qualifies a thing ("可删字段", "removable", "candidates to drop"): the
#: Todo does not do it.
_MODAL_VERB = re.compile(
    r"(?i)(?:可|能|待|应|该)(?:以|被)?(?:删除?|移除|去掉|改|加)|\b\w+able\b"
    r"|\bcandidates? (?:for|to) \w+"
)
#: A Todo that acts only where a condition holds ("flags fully on ≥30 days", "where
#: unused", "未被引用的"): keeping one it does not hold for is no denial.
_CONDITIONAL_TODO = re.compile(
    r"(?i)[≥≤<>]|\b(?:where|if|unless|that (?:are|is|have)|older than|at least|unused|only)\b"
    r"|(?:未被?|没有?)(?:引用|使用)|超过|以上|满\s*\d"
)
#: A Todo whose own note says it was called off ("— cancelled by user", "（用户取消）").
_CANCELLED = re.compile(
    r"(?i)\b(?:cancel+ed|withdrawn|called off|descoped|dropped by|not needed)\b|取消|撤回|不做了"
)


def _rule_done_item_denied(view: _View) -> RuleHit | None:
    """``done-item-denied``: a completed Todo vs an answer clause denying that work.

    The denial's clause (up to a contrast such as "…, only X" or a clause break) must
    share a topic class or a distinctive object token with the Todo item, and deny a
    verb of the Todo's kind (add/run/remove/change), deny all changes ("didn't touch"),
    or keep what the Todo removed. A Todo whose work is to keep a thing ("保留旧的
    路由") is fulfilled, not denied, by "没改动".
    """
    done = [
        t
        for t in view.todos
        if t.status == "completed"
        and not _open_marked(t.text)
        and not _NEGATION.search(_strip_code(t.text))
        and not _KEEP_TODO.search(t.text)
        and not _CANCELLED.search(t.text)
    ]
    if not done or not (_DENY_VERB.search(view.answer_plain) or _KEPT.search(view.answer_plain)):
        return None
    facts: list[tuple[Position, frozenset[str], set[str], set[str]]] = []
    open_words: set[str] | None = None
    for a in view.negated_or_kept:
        for sentence in _sentences(a.text):
            for clause, deny_all, denied, c_topics in _denials_of(sentence):
                if not facts:
                    facts = [
                        (
                            todo,
                            _topics(todo.text),
                            _object_tokens(todo, view.todos),
                            {
                                n
                                for n, rx in _VERB_CLASSES.items()
                                if rx.search(_MODAL_VERB.sub(" ", _prose(todo.text)))
                            },
                        )
                        for todo in done
                    ]
                if open_words is None:
                    open_words = {w for t in view.open_todos for w in _object_tokens(t, view.todos)}
                if any(_contains_token(clause, w) for w in open_words):
                    continue  # "staging 迁移和删旧表这两项我没动": the open items, as they are
                deny = _DENY_VERB.search(clause)
                counted = deny is not None and _COUNTED_SUBJECT.search(clause, 0, deny.start())
                for todo, t_topics, objects, t_verbs in facts:
                    if not (deny_all or denied & t_verbs):
                        continue
                    if counted and not re.search(r"\d", todo.text):
                        continue  # "那 6 个用例没跑起来" after "运行全量 pytest": a part's result
                    if _CONDITIONAL_TODO.search(todo.text) and _KEPT.search(clause):
                        continue  # "remove flags on ≥30 days" keeps one that is not
                    shared = bool(c_topics & t_topics) or any(
                        _contains_token(clause, tok) for tok in objects
                    )
                    if shared and not _qualifiers(clause) - _qualifiers(todo.text):
                        return _DONE_ITEM_DENIED.hit(
                            a,
                            f"Todo {todo.id} is completed (“{_quote(todo.text, 60)}”), but the "
                            f"answer says it was not done: “{_quote(sentence)}”",
                        )
    return None


#: A counted subject before a denial ("那 6 个用例没跑起来", "3 specs never ran"): the
#: denial reports a part of the Todo's work, not the work left undone.
_COUNTED_SUBJECT = re.compile(
    r"(?<![\w.])[1-9]\d*\s*(?:个|项|条|张|份)?\s*(?:[\u4e00-\u9fff]|[A-Za-z]{3,})"
)


def _denied_verbs(clause: str) -> set[str]:
    """Verb classes that occur after a negation in ``clause``."""
    m = _DENY_VERB.search(clause)
    if m is None:
        return set()
    window = clause[m.start() : m.end() + 16]
    return {name for name, rx in _VERB_CLASSES.items() if rx.search(window)}


#: The leading verb of an English Todo item ("Apply migration on staging").
_LEAD_VERB = re.compile(r"^\W*([A-Za-z]{3,12})\b")
#: Past forms that are not the verb plus -ed, and words that report the same result.
_PAST_EXTRA = {
    "run": r"ran",
    "send": r"sent",
    "build": r"built",
    "write": r"wrote|written",
    "make": r"made",
    "deploy": r"(?:is |it['’]s |now )live|rolled out|shipped",
    "ship": r"(?:is |it['’]s |now )live|shipped",
    "release": r"(?:is |it['’]s |now )live|shipped",
    "push": r"pushed",
    "set": r"set",
}
#: A clause that still calls the work open or plans it ("left pending", "will apply").
_STILL_OPEN = re.compile(
    r"\b(?:pending|not yet|later|left|remains?|will|would|once|after you|next|todo|still"
    r"|to be|needs?|should|could|can)\b|待|还没|未|稍后|之后再",
    re.I,
)
_CLAUSE_SPLIT = re.compile(r"[;；，]|,(?!\d)|\s[—–-]\s|\bbut\b")


def _past_forms(verb: str) -> str:
    verb = verb.lower()
    if verb.endswith("e"):
        forms = [verb + "d"]
    elif verb.endswith("y") and verb[-2:-1] not in "aeiou":
        forms = [verb[:-1] + "ied"]
    else:
        forms = [verb + "ed", verb + verb[-1] + "ed"]
    extra = _PAST_EXTRA.get(verb)
    return "|".join([*forms, *([extra] if extra else [])])


def _action_reported(view: _View, todo: Position) -> Position | None:
    """An answer clause that reports this open Todo's own leading action in the past
    tense together with another of its distinctive words, not negated or planned."""
    m = _LEAD_VERB.match(todo.text)
    if m is None or not _VERB_CLASSES_ANY.match(m.group(1)):
        return None
    verb = m.group(1).lower()
    past = re.compile(rf"\b(?:{_past_forms(verb)})\b", re.I)
    others = {
        t
        for t in _distinctive_tokens(todo, view.todos)
        if t.isascii() and len(t) >= 4 and not t.startswith(verb[:4])
    }
    if not others:
        return None
    for a in view.answers:
        for clause in _CLAUSE_SPLIT.split(_strip_code(a.text)):
            if not past.search(clause) or _NEGATION.search(clause) or _STILL_OPEN.search(clause):
                continue
            if any(_contains_token(clause, t) for t in others):
                return a
    return None


#: English verbs of work a Todo item can lead with (a noun-led item has no action).
_VERB_CLASSES_ANY = re.compile(
    r"^(?:apply|deploy|run|migrate|publish|release|merge|push|upload|send|install|enable"
    r"|roll|ship|build|write|create|add|update|remove|delete|drop|rename|tag|backfill"
    r"|configure|set|upgrade|bump|regenerate|rotate|submit|open|register|import|seed|make)$",
    re.I,
)
