"""Rule family: numeric and count conflicts — ``partial-count-claimed-all``,
``number-mismatch``, ``version-mismatch`` (design.md §5, §13)."""

from __future__ import annotations

import re

from jev.judges.rules._base import (
    _ALL_DONE,
    _FENCE,
    _NEGATION,
    _NUMBER_WORDS,
    _STOPWORDS,
    _UNIT_NAMES,
    _VERB_CLASSES,
    LazyRx,
    RuleHit,
    _amount,
    _code_tokens,
    _contains_token,
    _content_words,
    _distinctive_tokens,
    _done_fractions,
    _open_marked,
    _quote,
    _Rule,
    _rx,
    _strip_code,
    _topics,
    _View,
    _Words,
)

_W = _Words("numbers")

_PARTIAL_COUNT_CLAIMED_ALL = _Rule("partial-count-claimed-all", "contradiction", 0.85)
_NUMBER_MISMATCH = _Rule("number-mismatch", "contradiction", 0.7)
_VERSION_MISMATCH = _Rule("version-mismatch", "contradiction", 0.75)

_UNIT_VALUE = _W.rx("unit_value")

_BASELINE = _W.rx("baseline")


#: Number words for "all four endpoints" against a Todo's "3/4" ("both" for 2/2).
_ALL_OF = dict(enumerate(_NUMBER_WORDS.split("|"), 2)) | {2: "two|both"}
#: The noun after a Todo's fraction ("21/23 个页面", "3/4 endpoints").
_FRACTION_NOUN = LazyRx(r"\s*(?:个|项|条|处)?\s*([\u4e00-\u9fff]{2,4}|[a-z]{4,}s?\b)", re.I)


def _loose_universal(todo_text: str, end: int, total: int) -> re.Pattern[str] | None:
    """An "all of them" claim without the Todo's own number: "all four …", or "所有/全部"
    with the noun the Todo counted ("21/23 个页面" → "所有页面")."""
    parts = []
    if total in _ALL_OF:
        parts.append(rf"\ball (?:the |of the )?(?:{_ALL_OF[total]})\b")
    noun = _FRACTION_NOUN.match(todo_text, end)
    if noun is not None:
        word = re.escape(noun.group(1).rstrip("s"))
        parts.append(rf"(?:所有|全部)[^，。；\n]{{0,4}}{word}|\ball (?:the )?{word}s?\b")
    return re.compile("|".join(parts), re.I) if parts else None


_CLAUSES = re.compile(r"[，,;；。.!?！？]\s*")


#: "12 张里完成 9 张", "共 20 个，完成 18 个": the total first, then the part done.
_TOTAL_FIRST_ZH = re.compile(
    r"(\d{1,6})\s*[个张项处条页篇份]?[^，。；\d]{0,6}?(?:里|中|之中)[^，。；\d]{0,4}?"
    r"(?:完成|做了|处理了?|改了|迁了|转了|换了)\s*(?:了)?\s*(\d{1,6})"
)


def _fractions(text: str) -> list[tuple[int, int, int]]:
    """(done, total, end offset) of each count a Todo gives ("14/15", "5 of 7",
    "12 张里完成 9 张")."""
    found = [(int(m.group(1)), int(m.group(2)), m.end()) for m in _done_fractions(text)]
    found += [(int(m.group(2)), int(m.group(1)), m.end()) for m in _TOTAL_FIRST_ZH.finditer(text)]
    return found


def _rule_partial_count(view: _View) -> RuleHit | None:
    """``partial-count-claimed-all``: Todo "14/15" while the answer says "all 15"."""
    for todo in view.todos:
        for done, total, end in _fractions(todo.text):
            if not 0 <= done < total:
                continue
            universal = _rx(
                rf"\ball (the |of the )?{total}\b|\b{total}\s*/\s*{total}\b"
                rf"|(全部|所有)\s*{total}|{total}\s*个[^，。]{{0,16}}(都|全部)"
            )
            loose = _loose_universal(todo.text, end, total)
            for a in view.answers:
                clauses = [c for c in _CLAUSES.split(_strip_code(a.text)) if c.strip()]
                if any(
                    not _NEGATION.search(c)
                    and (
                        universal.search(c)
                        or (loose is not None and loose.search(c))
                        or _ALL_DONE.search(c)
                    )
                    for c in clauses
                ) or (universal.search(a.text) and not _NEGATION.search(_strip_code(a.text))):
                    return _PARTIAL_COUNT_CLAIMED_ALL.hit(
                        a,
                        f"Todo {todo.id} says {done}/{total}, the answer says all {total}: "
                        f"“{_quote(a.text)}”",
                    )
    return None


#: Units that name their own subject (a test run's tally).
_TALLY_UNITS = frozenset({"passed", "failed", "skipped", "errors", "warnings"})

#: A token that is a unit's name ("分钟", "rows", "ms"), no evidence of a shared subject.
_UNIT_WORD = re.compile(
    r"(?i)^(?:ms|s|sec\w*|min\w*|hours?|rows?|records?|errors?|warnings?|passed|failed"
    r"|skipped)$|分钟|毫秒|秒|小时|行|条|个"
)

#: "约", "about", "~" just before a value: it is rounded.
_APPROX = re.compile(r"(?:约|大约|近|~|≈|\babout|\baround|\broughly|\bapprox\.?)\s*\Z", re.I)
_RATE = re.compile(r"\s*(?:/|per\b|每)", re.I)


def _unit_values(text: str) -> dict[str, set[tuple[float, bool]]]:
    """``{unit: {(value, approximate)}}`` of ``text`` ("约 187 万行" → rows 1.87e6, ≈)."""
    values: dict[str, set[tuple[float, bool]]] = {}
    for m in _UNIT_VALUE.finditer(text):
        if _RATE.match(text, m.end()):
            continue  # "50k rows/batch": a rate, not an amount
        if _ORDINAL.search(text, max(0, m.start() - 12), m.start()):
            continue  # "第 2 分钟", "the 3rd minute", "at minute 2": a point, not an amount
        if _PERIOD.search(text, max(0, m.start() - 8), m.start()) or _COUNTDOWN.match(
            text, m.end()
        ):
            continue  # "every 15 min", "9min left": a schedule or a countdown, no result
        unit = m.group(3).lower()
        approx = m.group("mag") or _APPROX.search(text, max(0, m.start() - 9), m.start())
        values.setdefault(_UNIT_NAMES.get(unit, unit), set()).add(
            (_amount(m.group(1), m.group("mag")), bool(approx))
        )
    return values


#: Words around a value that make it a schedule's period or a countdown ("every 15
#: min", "每 5 分钟", "9min left", "3 s ago").
_PERIOD = re.compile(r"(?i:\b(?:every|each)\s+\Z)|每\s*(?:隔\s*)?\Z")
_COUNTDOWN = re.compile(r"(?i:\s*(?:left|ago|remaining|from now)\b)|\s*(?:后|前)(?!端)")

#: Words before a value that make it a point on a scale, not an amount.
_ORDINAL = re.compile(r"第\s*$|(?i:\b(?:at|from|since|until) the\s+$)")


def _agree(x: tuple[float, bool], y: tuple[float, bool]) -> bool:
    """Two values of one unit agree: equal, or within 5 % when either is approximate."""
    return x[0] == y[0] or ((x[1] or y[1]) and abs(x[0] - y[0]) <= 0.05 * max(abs(x[0]), abs(y[0])))


#: A count written in a magnitude ("312 万", "约 3.3 亿", "1.2 million", "31.6k").
_ROUNDED = re.compile(
    r"(约|大约|近|~|≈|about |around |roughly )?(?<![\w.])(\d+(?:\.\d+)?)\s*"
    r"(万|亿|million\b|[kKM](?![\w]))"
)
#: An exact count in code or output ("3,102,417", "32768000").
_EXACT = re.compile(r"(?<![\w.,])(\d{1,3}(?:,\d{3})+|\d{4,})(?![\w.,])")
#: A counted noun right after a count ("312 万条", "3.3 亿次", "1.2M rows", "48k events").
_COUNTED_AFTER = re.compile(
    r"(?i)\s*(?:个|条|行|次|笔|张|人|台|处|项)|\s*(?:rows?|records?|runs?|events?|items?|users?"
    r"|requests?|messages?|entries|lines|executions?|documents?|files?)\b"
)
#: A claim that covers several counts ("两边都是", "both", "each", "一致").
_BOTH = re.compile(r"(?i)\bboth\b|\beach\b|\ball\b|都|一致|均")


def _last_digit(digits: str, magnitude: str | None) -> float:
    """The value of one step of the last written digit of a count ("3.3 亿" → 1e7,
    "312 万" → 1e4, "1,204" → 1): the rounding a written count allows is half of it."""
    return _amount("1", magnitude) * 10.0 ** -len(digits.partition(".")[2])


def _restated_count(view: _View) -> RuleHit | None:
    """The answer's prose restates a count of its own pasted output in a magnitude, and
    the two do not agree: "两边都是 312 万条" over ``target: 3,102,417`` (another count
    nearby, outside the rounding), or "约 3.3 亿次" over ``Done 32768000 runs`` (a slip of
    a factor of ten). Both sides are quoted."""
    code = "\n".join(_FENCE.findall(view.answer_text))
    exact = [(m, _amount(m.group(1))) for m in _EXACT.finditer(code)]
    if not exact:
        return None
    for a, sentence in view.sentences:
        plain = _strip_code(_FENCE.sub(" ", sentence))
        for m in _ROUNDED.finditer(plain):
            if not (_COUNTED_AFTER.match(plain, m.end()) or _BOTH.search(plain)):
                continue  # "the bounded 10k queue": a size of a thing, not a count reported
            value = _amount(m.group(2), m.group(3))
            unit = _last_digit(m.group(2), m.group(3))
            slack = unit if m.group(1) else unit / 2  # "约 3.1 万" allows a whole unit
            near = [(e, c) for e, c in exact if abs(c - value) <= 0.1 * value]
            agree = [c for _, c in near if abs(c - value) <= slack]
            off = [(e, c) for e, c in near if abs(c - value) > slack]
            slip = [
                (e, c)
                for e, c in exact
                if any(abs(c * f - value) <= 0.05 * value for f in (10, 0.1))
            ]
            if off and (not agree or _BOTH.search(plain)):
                found = off[0][0]
            elif slip and not near:
                found = slip[0][0]
            else:
                continue
            start = code.rfind("\n", 0, found.start()) + 1
            end = code.find("\n", found.end())
            line = code[start : end if end >= 0 else len(code)].strip()
            return _NUMBER_MISMATCH.hit(
                a,
                f"the answer says “{_quote(sentence)}”, but its own output shows "
                f"“{_quote(line, 60)}”",
            )
    return None


def _rule_number_mismatch(view: _View) -> RuleHit | None:
    """``number-mismatch``: same unit, different values, Todo value absent from the
    answer; or the answer restates a count of its own output that does not agree
    (:func:`_restated_count`)."""
    return _todo_value_mismatch(view) or _restated_count(view)


def _todo_value_mismatch(view: _View) -> RuleHit | None:
    answer_values = _unit_values(view.answer_text)
    if not answer_values:
        return None
    for todo in view.todos:
        if _BASELINE.search(todo.text):
            continue
        for unit, todo_vals in _unit_values(todo.text).items():
            seen = answer_values.get(unit)
            if not seen or any(_agree(t, v) for t in todo_vals for v in seen):
                continue
            if unit in ("s", "ms", "min") and not (_topics(todo.text) or _code_tokens(todo.text)):
                continue
            words = {
                w
                for w in _content_words(todo.text) | _code_tokens(todo.text)
                if not w.replace(".", "").replace(",", "").isdigit() and not _UNIT_WORD.search(w)
            }
            for a in view.answers:
                values = _unit_values(a.text).get(unit, set())
                if unit not in _TALLY_UNITS and not any(_contains_token(a.text, w) for w in words):
                    continue  # "回放 30 分钟流量" and "2 分钟的 SLA" measure different things
                if any(not any(_agree(v, t) for t in todo_vals) for v in values):
                    return _NUMBER_MISMATCH.hit(
                        a,
                        f"Todo {todo.id} reports {sorted(v for v, _ in todo_vals)} {unit}, "
                        "the answer "
                        f"reports otherwise: “{_quote(a.text)}”",
                    )
    return None


_VERSION = re.compile(r"(?<![\w.])v?(\d{1,4}(?:\.\d{1,4}){1,3})(?![\w.]*\d)")

_CLAUSE_BREAK = re.compile(r"[;；。]|[:：](?=\s)|，|, (?=(?:but|while|and|so)\b)")


#: Words that make a version the one around the work, not its result ("the runner image
#: ships probe-rs 0.25.0", "latest is 3.2", "默认带的是 1.4"): the reason for a pin.
_ENVIRONMENT_VERSION = re.compile(
    r"(?i)\b(?:ships|comes with|bundles|defaults? to|latest|newest|upstream|released)\b"
    r"|默认|自带|最新"
)


def _rule_version_mismatch(view: _View) -> RuleHit | None:
    """``version-mismatch``: a completed Todo sets X to version V; the answer has X at W.

    Only a clause that names one of the Todo's distinctive object tokens, holds another
    version of the same shape and major number, does not hold V and does not read as
    the old value ("from", "was", "→") counts.
    """
    if not _VERSION.search(view.answer_text):
        return None
    for todo in view.todos:
        if todo.status != "completed" or _open_marked(todo.text):
            continue
        versions = {m.group(1) for m in _VERSION.finditer(todo.text)}
        if len(versions) != 1:
            continue
        (wanted,) = versions
        objects = {
            t
            for t in _distinctive_tokens(todo, view.todos)
            if not any(ch.isdigit() for ch in t)
            and not any(rx.search(t) for rx in _VERB_CLASSES.values())
            and t not in ("bump", "upgrade", "pin", "set", "deploy", "release")
        }
        objects |= {
            part
            for t in objects
            if "-" in t
            for part in t.split("-")
            if len(part) >= 4 and part not in _STOPWORDS and part not in _VERSION_NOISE
        }
        if not objects:
            continue
        for a in view.answers:
            if wanted in a.text and not _VERSION.search(a.text.replace(wanted, "")):
                continue
            for clause in _CLAUSE_BREAK.split(a.text):
                if wanted in clause or not any(_contains_token(clause, t) for t in objects):
                    continue  # (so no version of the clause is the wanted one)
                for m in _VERSION.finditer(clause):
                    other = m.group(1)
                    if (
                        _same_version_shape(wanted, other)
                        and not _old_version(clause, m.start(), m.end())
                        and not _ENVIRONMENT_VERSION.search(clause, 0, m.start())
                        and not _both_meet_request(view, wanted, other)
                    ):
                        return _VERSION_MISMATCH.hit(
                            todo,
                            f"Todo {todo.id} is completed with {wanted} "
                            f"(“{_quote(todo.text, 60)}”), but the answer reports {other}: "
                            f"“{_quote(clause)}”",
                        )
    return None


#: Parts of a hyphenated package name that say nothing about which thing it is.
_VERSION_NOISE = frozenset(["starter", "parent", "plugin", "core", "common", "utils", "main"])

_VERSION_FROM_BEFORE = _W.rx("version_from_before")

_VERSION_TO_AFTER = re.compile(r"[\s*_`)]*(?:→|->|=>|\bto\b|到)", re.I)


def _old_version(clause: str, start: int, end: int) -> bool:
    """Whether the version at ``clause[start:end]`` reads as the old value ("from 3.1.9",
    "3.1.9 → 3.2.5", "was 2.0")."""
    before = clause[max(0, start - 24) : start]
    return bool(_VERSION_FROM_BEFORE.search(before) or _VERSION_TO_AFTER.match(clause, end))


_LATEST = re.compile(r"(?i)\blatest\b|\bnewest\b|最新")


def _both_meet_request(view: _View, wanted: str, other: str) -> bool:
    """Whether a version the request names ("to 1.2") is a prefix of both the Todo's
    and the answer's version ("^1.2.0", "^1.2.1"): then the answer still delivers what
    was asked, and the two sides differ only below the request's precision. A request
    for the *latest* release asks for one version, so there the two still disagree."""
    for req in view.requests:
        if _LATEST.search(req.text):
            continue
        for m in _VERSION.finditer(req.text):
            asked = m.group(1).split(".")
            if wanted.split(".")[: len(asked)] == asked == other.split(".")[: len(asked)] and len(
                asked
            ) < len(wanted.split(".")):
                return True
    return False


def _same_version_shape(a: str, b: str) -> bool:
    pa, pb = a.split("."), b.split(".")
    return len(pa) == len(pb) and pa[0] == pb[0]
