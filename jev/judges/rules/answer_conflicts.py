"""Rule family: conflicts inside the answer (or between an "all" Todo and the answer) —
``answer-self-conflict``, ``unchanged-claim-vs-change``, ``all-claimed-some-deferred``,
``done-all-some-left`` (design.md §5, §13)."""

from __future__ import annotations

import re

from jev.judges.rules._base import (
    _CODE_SPAN,
    _NEGATION,
    _OFFER,
    _USER_CITED,
    RuleHit,
    _AnyGate,
    _contains_token,
    _Gate,
    _hit,
    _object_tokens,
    _quote,
    _strip_code,
    _View,
    _Words,
)
from jev.positions import sentences as _sentences

_W = _Words("answer_conflicts")

_LEFT_IN_PLACE = _W.gate("left_in_place")

_CHANGED = _W.gate("changed")


def _rule_answer_self_conflict(view: _View) -> RuleHit | None:
    """``answer-self-conflict``: the same code token reported removed and left in place."""
    if not (_LEFT_IN_PLACE.search(view.answer_plain) and _CHANGED.search(view.answer_plain)):
        return None
    left = [a for a in view.answers if _LEFT_IN_PLACE.search(_strip_code(a.text))]
    changed = [
        a
        for a in view.answers
        if _CHANGED.search(_strip_code(a.text)) and not _NEGATION.search(_strip_code(a.text))
    ]
    for keep in left:
        tokens = {m.group(1).strip().lower() for m in _CODE_SPAN.finditer(keep.text)}
        for a in changed:
            if a.id == keep.id:
                continue
            shared = [t for t in tokens if _contains_token(a.text, t) or f"`{t}`" in a.text.lower()]
            if shared:
                return _hit(
                    "answer-self-conflict",
                    "contradiction",
                    a,
                    f"the answer reports `{shared[0]}` as changed and also as left in place: "
                    f"“{_quote(a.text)}” vs “{_quote(keep.text)}”",
                    0.75,
                )
    return None


#: Verb families for "all X were <verb>ed" versus "I'll <verb> them later".
_ALL_VERB_FAMILIES: dict[str, str] = {
    name: _W.pattern(f"all_verb_families.{name}") for name in _W.keys("all_verb_families")
}

_ALL_CLAIM = {name: _W.gate("all_claim", verbs=verbs) for name, verbs in _ALL_VERB_FAMILIES.items()}

_LATER_SAME = {
    name: _W.gate("later_same", verbs=verbs) for name, verbs in _ALL_VERB_FAMILIES.items()
}


def _one_space(text: str) -> str:
    """Runs of spaces (left where code spans were: "All `v1` endpoints") as one."""
    return re.sub(r"[ \t]{2,}", " ", text)


#: Something said to be removed is still there ("is still served", "仍然可以访问").
_STILL_PRESENT = _W.gate("still_present")


def _rule_all_claimed_some_deferred(view: _View) -> RuleHit | None:
    """``all-claimed-some-deferred``: "all N X were migrated" and "I'll port the rest later"."""
    for name, claim_rx in _ALL_CLAIM.items():
        if not claim_rx.search(_one_space(view.answer_plain)):
            continue
        later_rx: _Gate | _AnyGate = _LATER_SAME[name]
        if name == "remove":  # "all removed" vs "`/v1/orders` is still served"
            later_rx = _AnyGate(_LATER_SAME[name], _STILL_PRESENT)
        if not later_rx.search(view.answer_plain):
            continue
        claims = []
        for a in view.answers:
            for sentence in _sentences(a.text):
                plain = _one_space(_strip_code(sentence))
                if claim_rx.search(plain) and not _NEGATION.search(plain):
                    claims.append((a, sentence))
        if not claims:
            continue
        for b in view.answers:
            for sentence in _sentences(b.text):
                plain = _strip_code(sentence)
                if not later_rx.search(plain) or _OFFER.search(plain) or _USER_CITED.search(plain):
                    continue
                if any(sentence == c for _, c in claims):
                    continue
                a, claim = claims[0]
                return _hit(
                    "all-claimed-some-deferred",
                    "contradiction",
                    a,
                    f"the answer says all were done (“{_quote(claim)}”) and also that some "
                    f"are left for later: “{_quote(sentence)}”",
                    0.75,
                )
    return None


#: "The public API is unchanged" and its Chinese forms.
_API_UNCHANGED = _W.gate("api_unchanged")

#: A renamed or removed code-named member ("`a.b` is now `a.c`", "renamed `x` to `y`").
_MEMBER_RENAMED = _W.gate("member_renamed")

_PRIVATE = _W.rx("private")


def _rule_unchanged_claim_vs_change(view: _View) -> RuleHit | None:
    """``unchanged-claim-vs-change``: "public API unchanged" and a renamed public member."""
    if not (_API_UNCHANGED.search(view.answer_plain) and _MEMBER_RENAMED.search(view.answer_text)):
        return None
    claim = next(
        (a for a in view.answers if _API_UNCHANGED.search(_strip_code(a.text))),
        None,
    )
    if claim is None:
        return None
    for b in view.answers:
        for sentence in _sentences(b.text):
            if _MEMBER_RENAMED.search(sentence) and not _PRIVATE.search(sentence):
                if _API_UNCHANGED.search(_strip_code(sentence)):
                    continue
                return _hit(
                    "unchanged-claim-vs-change",
                    "contradiction",
                    claim,
                    f"the answer says the public API is unchanged (“{_quote(claim.text)}”) but "
                    f"reports a rename: “{_quote(sentence)}”",
                    0.75,
                )
    return None


#: A completed Todo over a whole set ("Convert all 12 class components", "全部替换").
_TODO_ALL = _W.rx("todo_all")

_TODO_TRANSFORM = _W.rx("todo_transform")

#: Some members are still in the old state: "X and Y are still class components".
_STILL_OLD = _W.rx("still_old")


def _rule_done_all_some_left(view: _View) -> RuleHit | None:
    """``done-all-some-left``: a completed "convert all X" Todo while the answer says some
    X are still in the old state ("`A`, `B` and `C` are still class components")."""
    if not _STILL_OLD.search(view.answer_plain):
        return None
    for todo in view.todos:
        if todo.status != "completed" or not _TODO_ALL.search(todo.text):
            continue
        if not _TODO_TRANSFORM.search(todo.text):
            continue
        objects = {t for t in _object_tokens(todo, view.todos) if len(t) >= 4}
        if not objects:
            continue
        for a in view.answers:
            for sentence in _sentences(a.text):
                plain = _strip_code(sentence)
                if _USER_CITED.search(plain) or _OFFER.search(plain):
                    continue
                for m in _STILL_OLD.finditer(plain):
                    tail = plain[m.end() : m.end() + 40]
                    if any(_contains_token(tail, t) for t in objects):
                        return _hit(
                            "done-all-some-left",
                            "contradiction",
                            a,
                            f"Todo {todo.id} is completed for all (“{_quote(todo.text, 60)}”), "
                            f"but the answer says some are left: “{_quote(sentence)}”",
                            0.75,
                        )
    return None
