"""Shared parts of the rules judge: the per-material view (with the answer's filler
left out), each rule's identity (:class:`_Rule`), shared vocabulary, token helpers and
the table-row and count parsers (design.md §5, §13); the word-list machinery lives in
``_words`` and is re-exported here. Every rule family module imports from here."""

from __future__ import annotations

import bisect
import functools
import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace

from jev.base.domain import Numbering, Position
from jev.base.segments import sentences as _sentences
from jev.judges.rules._words import _I as _I
from jev.judges.rules._words import LazyRx as LazyRx
from jev.judges.rules._words import Rx as Rx
from jev.judges.rules._words import _AnyGate as _AnyGate
from jev.judges.rules._words import _Gate as _Gate
from jev.judges.rules._words import _lower as _lower
from jev.judges.rules._words import _rx as _rx
from jev.judges.rules._words import _Words as _Words

_W = _Words("base")

#: Topic classes: a Todo item and an answer sentence "talk about the same thing" when
#: they share a class (or a distinctive token). General software vocabulary only.
_TOPICS = _W.rx_table("topics")

#: Literal, lower-case anchors per topic: a topic pattern can only match a text that
#: contains one of them (a cheap ``in`` test before the slower regex search).
_TOPIC_ANCHORS = {name: _W.anchors(f"topics.{name}") for name in _TOPICS}


_QUALIFIERS = _W.rx("qualifiers")

_NEGATION = _W.rx("negation")

_USER_CITED = _W.rx("user_cited")

_DESCOPE = _W.rx("descope")

_SUCCESS_CLAIM = _W.rx("success_claim")

_OPEN_MARKER = _W.rx("open_marker")

#: Words that describe a state only when used as one ("E2E tests skipped", "(blocked)",
#: "TODO: …"), not as an adjective of the work ("render skipped tests", "blocked users",
#: "todo list", "deferred image loading").
_OPEN_WORD = re.compile(r"(?i:\bblocked\b|(?<!\d )\bskipped\b|\bremaining\b|\bdeferred\b)|\bTODO\b")

_STATE_AFTER = re.compile(r"\s*(?:$|[)\]}.,;:!?—–-]|\((?:for|until|see|pending)\b)")

_STATE_BEFORE = re.compile(
    r"(?:[(\[{:—–-]|\b(?:is|was|are|were|got|marked|left|still|now))\s*$", re.I
)


def _open_marked(text: str) -> bool:
    """Whether a Todo's own text says it is unfinished, unverified or skipped."""
    return bool(_OPEN_MARKER.search(text)) or any(
        _STATE_AFTER.match(text, m.end()) or _STATE_BEFORE.search(text, 0, m.start())
        for m in _OPEN_WORD.finditer(text)
    )


_FRACTION_RX = re.compile(
    r"(?<![\d.])(\d{1,6})\s*(?:/|\bof\b|\bout of\b)\s*(\d{1,6})(?![\d.])", re.I
)
#: The word before "N of M" when it is a position, not a count done: a singular noun
#: ("step 2 of 4", "digit 1 of 6", "slot 2 of 8", "第 2/5"); a plural, a verb or an
#: adverb before it ("tests 14/15", "moved 5 of 7", "only 3 of 4") makes it a count.
_INDEX_BEFORE = re.compile(r"(?:\b([A-Za-z]{3,})|(第))\s*$")
_COUNT_WORDS = _W.words("count_before")


def _done_fractions(text: str) -> Iterator[re.Match[str]]:
    """The counts done of ``text`` ("14/15", "5 of 7"; groups: done, total), without the
    positions ("phase 1 of 3", "digit 1 of 6": :data:`_INDEX_BEFORE`)."""
    for m in _FRACTION_RX.finditer(text):
        before = _INDEX_BEFORE.search(text, max(0, m.start() - 24), m.start())
        if before is not None:
            word = (before.group(1) or "").lower()
            if before.group(2) or not (
                word in _COUNT_WORDS or word.endswith(("s", "ed", "en", "ly"))
            ):
                continue
        yield m


#: English number words from two to twelve, as a regex alternation ("All six steps").
_NUMBER_WORDS = "two|three|four|five|six|seven|eight|nine|ten|eleven|twelve"

_REPORT_ONLY = _W.rx("report_only")

_OFFER = _W.rx("offer")


_REQUEST_NEGATED = _W.rx("request_negated")

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_.\-/]*[A-Za-z0-9]|[\u4e00-\u9fff]+")

_CODE_SPAN = re.compile(r"`([^`\n]+)`")

_STOPWORDS = _W.words("stopwords")


@dataclass(frozen=True, slots=True)
class RuleHit:
    """What the rules judge decided and why (design.md §5; heuristic, see module docstring).

    Attributes:
        rule: the id of the rule that fired (one of :data:`RULE_IDS`).
        assessment: ``complete`` | ``omission`` | ``contradiction`` | ``needs-user`` |
            ``unknown``.
        focus: the position id that is the rule's evidence (``R#``, ``T#``, ``A#``,
            ``none`` for ``complete``, ``all`` for a thin material).
        explanation: one short English sentence for people (CLI, README, records).
        confidence: a fixed per-rule diagnostic in 0..1, never a chance of correctness.
    """

    rule: str
    assessment: str
    focus: str
    explanation: str
    confidence: float

    def to_reply(self) -> str:
        """The reply text a model would send, plus ``rule`` and ``heuristic`` keys.

        Returns:
            Compact JSON: ``{"assessment", "focus", "confidence", "rule", "why",
            "heuristic": true}`` (design.md §5 shape; extra keys are allowed). ``why`` is
            the rule's one-line English explanation, naming both sides of a conflict.
        """
        return json.dumps(
            {
                "assessment": self.assessment,
                "focus": self.focus,
                "confidence": self.confidence,
                "rule": self.rule,
                "why": self.explanation,
                "heuristic": True,
            },
            ensure_ascii=False,
        )


#: A whole sentence of courtesy (thanks, well-wishing, a generic offer of more help).
_COURTESY_SRC = r"(?:(?:" + _W.pattern("courtesy") + r")[\s,，.!！。~～:)(😊🙂]*)+"
_COURTESY = _Gate(LazyRx(_COURTESY_SRC + r"\Z", _I), _W.anchors("courtesy"))

#: A courtesy sentence run on at the end of the last line ("- app.py Thanks!").
_TRAILING_COURTESY = _Gate(
    LazyRx(r"(?<=[\s.!?。！？])" + _COURTESY_SRC + r"\Z", _I), _COURTESY.anchors
)

#: The longest segment read as courtesy or as an announcement (characters).
_COURTESY_MAX = 120


def _courtesy(text: str) -> bool:
    text = text.strip()
    return len(text) <= _COURTESY_MAX and _COURTESY.match_start(text) is not None


_ANNOUNCE = sorted(_W.words("announce"), key=len, reverse=True)
_ANNOUNCE_NOUNS = _W.words("announce_nouns")


def _filler(text: str) -> bool:
    """Whether an answer segment says nothing about the work: a courtesy sentence
    (:data:`_COURTESY`), or a heading / lead line made only of :data:`_ANNOUNCE` words
    with one announcing noun ("## Summary", "Here is what I did:", "以下是总结")."""
    text = text.strip()
    if len(text) > _COURTESY_MAX:
        return False
    if _COURTESY.match_start(text):
        return True
    low = text.lower().lstrip("#* \t").rstrip(" \t:：.。!！*")
    if not low or len(low) > 60 or not any(noun in low for noun in _ANNOUNCE_NOUNS):
        return False
    for word in _ANNOUNCE:
        low = re.sub(rf"(?<![a-z]){re.escape(word)}(?![a-z])", " ", low)
    return not low.strip(" ,，'’")


def _core_answers(answers: tuple[Position, ...]) -> tuple[Position, ...]:
    """The answer positions without a leading announcement or trailing courtesy lines
    (issue 22: a closing "Thanks!" or a "## Summary" heading changes no verdict). The
    first two positions may be filler only as a heading or a lead line, and a courtesy
    sentence run on at the end of the last line is cut off."""
    end = len(answers)
    while end > 0 and _courtesy(answers[end - 1].text):
        end -= 1
    start = 0
    while start < end and start < 2 and _filler(answers[start].text):
        start += 1
    core = answers[start:end]
    tail = core[-1].text[-80:] if core else ""
    if (m := _TRAILING_COURTESY.search_low(tail, tail.lower())) and (
        cut := len(core[-1].text) - len(tail) + m.start()
    ):
        core = (*core[:-1], replace(core[-1], text=core[-1].text[:cut].rstrip()))
    return core


def _plain_lines(position: Position) -> Position:
    """``position`` with CRLF line ends read as LF."""
    return (
        replace(position, text=position.text.replace("\r\n", "\n"))
        if "\r" in position.text
        else position
    )


class _View:
    """Pre-computed facts about one numbering that several rules share.

    The rules read the answer without its filler (:func:`_core_answers`) and every text
    with LF line ends, so wording that says nothing cannot change a verdict."""

    def __init__(self, numbering: Numbering) -> None:
        self.numbering = numbering
        self.requests = tuple(_plain_lines(p) for p in numbering.of_kind("request"))
        self.todos = numbering.of_kind("todo")
        self.answers = _core_answers(tuple(_plain_lines(p) for p in numbering.of_kind("answer")))
        answer_text = numbering.material.final_answer.replace("\r\n", "\n")
        if self.answers:
            first = answer_text.find(self.answers[0].text)
            last = answer_text.rfind(self.answers[-1].text)
            if 0 <= first <= last:
                answer_text = answer_text[first : last + len(self.answers[-1].text)]
        else:
            answer_text = ""
        self.answer_text = answer_text
        self.answer_plain = _strip_code(self.answer_text)
        self.request_text = "\n".join(numbering.material.request).replace("\r\n", "\n")
        self.todo_text = "\n".join(t.text for t in self.todos)
        #: The Todo list and the answer: where the report can name a requested thing.
        self.report_text = self.todo_text + "\n" + self.answer_text
        self.spans = _spans(self.answer_text, self.answers)
        breaks = [m.start() for m in re.finditer(r"\n[ \t]*\n", self.answer_text)]
        #: The 0-based paragraph (blank-line block) of each answer position, by id.
        self.paragraph = {
            a.id: bisect.bisect_left(breaks, start)
            for a, (start, _) in zip(self.answers, self.spans, strict=True)
        }
        self.last_paragraph = max(self.paragraph.values(), default=0)
        self.open_todos = tuple(t for t in self.todos if t.status in ("pending", "in_progress"))
        self.later_requests = tuple(p for p in self.requests if (p.message or 1) > 1)
        #: Facts a rule family computes once per material (e.g. the request's scope).
        self.cache: dict[str, object] = {}

    @functools.cached_property
    def sentences(self) -> tuple[tuple[Position, str], ...]:
        """(answer position, sentence) for every sentence of the answer, in order."""
        return tuple((a, s) for a in self.answers for s in _sentences(a.text))

    @functools.cached_property
    def request_sentences(self) -> tuple[tuple[Position, str], ...]:
        """(request position, sentence) for every sentence of the request, in order."""
        return tuple((r, s) for r in self.requests for s in _sentences(r.text))

    @functools.cached_property
    def negated_answers(self) -> tuple[Position, ...]:
        """Answer positions whose text outside code spans holds a negation (computed once)."""
        return tuple(a for a in self.answers if _NEGATION.search(_strip_code(a.text)))

    @functools.cached_property
    def negated_or_kept(self) -> tuple[Position, ...]:
        """Answer positions with a negation or a "kept / left in place" (computed once)."""
        hits = {m.start() for m in _NEGATION.finditer(self.answer_text)}
        if _KEPT.search(self.answer_text):
            hits.update(m.start() for m in _KEPT.rx.finditer(self.answer_text))
        return tuple(
            a
            for a in self._positions_at(sorted(hits))
            if _NEGATION.search(p := _strip_code(a.text)) or _KEPT.search(p)
        )

    def _positions_at(self, offsets: list[int]) -> list[Position]:
        """Answer positions whose span holds one of ``offsets`` (sorted), in order."""
        starts = [start for start, _ in self.spans]
        found: dict[str, Position] = {}
        for off in offsets:
            i = bisect.bisect_right(starts, off) - 1
            if i >= 0 and off < self.spans[i][1] + 1:
                pos = self.answers[i]
                found[pos.id] = pos
        return [a for a in self.answers if a.id in found]

    @functools.cached_property
    def success_claims(self) -> tuple[Position, ...]:
        """Answer positions with a sentence that claims success (:data:`_SUCCESS_CLAIM`)
        outside a negation (computed once)."""
        if not _SUCCESS_CLAIM.search(self.answer_text):
            return ()
        return tuple(
            a
            for a in self.answers
            if any(
                _SUCCESS_CLAIM.search(s) and not _NEGATION.search(_strip_code(s))
                for s in _sentences(a.text)
            )
        )

    def answer_mentions(self, todo: Position) -> list[Position]:
        """Answer positions that talk about this Todo item's distinctive tokens (a part
        of a compound token counts: "deploy-production" is talked about as "production"
        when no other Todo item names that part)."""
        tokens = _distinctive_tokens(todo, self.todos)
        others = " ".join(t.text for t in self.todos if t.id != todo.id).lower()
        tokens |= {
            part
            for tok in tokens
            for part in re.split(r"[-_/.]", tok)
            if len(part) >= 4 and part not in _STOPWORDS and part not in others
        }
        if not tokens:
            return []
        return [a for a in self.answers if any(_contains_token(a.text, tok) for tok in tokens)]

    def descoped(self, todo: Position) -> bool:
        """True when a later user message narrows the scope away from this Todo item."""
        tokens = _distinctive_tokens(todo, self.todos) | _content_words(todo.text)
        return any(
            _DESCOPE.search(req.text)
            and (
                any(_contains_token(req.text, tok) for tok in tokens)
                or _topics(req.text) & _topics(todo.text)
            )
            for req in self.later_requests
        )


def _spans(text: str, positions: Sequence[Position]) -> list[tuple[int, int]]:
    """Character span (start, end) of each answer position inside the answer text."""
    spans: list[tuple[int, int]] = []
    cursor = 0
    for pos in positions:
        found = text.find(pos.text, cursor)
        if found < 0:
            found = cursor
        spans.append((found, found + len(pos.text)))
        cursor = found + len(pos.text)
    return spans


@functools.lru_cache(maxsize=4096)
def _topics(text: str) -> frozenset[str]:
    """The :data:`_TOPICS` classes ``text`` talks about."""
    low = text.lower()
    return frozenset(
        name
        for name, rx in _TOPICS.items()
        if any(anchor in low for anchor in _TOPIC_ANCHORS[name]) and rx.search(text)
    )


@functools.lru_cache(maxsize=4096)
def _qualifiers(text: str) -> set[str]:
    return {m.group(0).lower().replace(" ", "-") for m in _QUALIFIERS.finditer(text)}


@functools.lru_cache(maxsize=4096)
def _content_words(text: str) -> set[str]:
    words: set[str] = set()
    for m in _WORD.finditer(text):
        w = m.group(0).lower()
        if w[0].isascii():
            if len(w) >= 4 and w not in _STOPWORDS:
                words.add(w)
        elif len(w) >= 2:
            words.update(w[i : i + 2] for i in range(len(w) - 1))
    return words


@functools.lru_cache(maxsize=4096)
def _code_tokens(text: str) -> set[str]:
    """Identifier-like tokens: code spans, paths/file names, snake/camel/Pascal names."""
    tokens = {m.group(1).strip().lower() for m in _CODE_SPAN.finditer(text)}
    for m in _WORD.finditer(text):
        w = m.group(0)
        if not w[0].isascii():
            continue
        if any(c in w for c in "._/") or re.search(r"[a-z][A-Z]|\d", w):
            tokens.add(w.lower())
    stems = set()
    for tok in tokens:
        stem = re.sub(r"\.(py|ts|tsx|js|jsx|go|rs|java|rb|vue|md|ya?ml|json|toml|sql)$", "", tok)
        if stem != tok and len(stem) >= 4:
            stems.add(stem)
    return {t for t in tokens | stems if len(t) >= 3}


def _distinctive_tokens(todo: Position, todos: Sequence[Position]) -> set[str]:
    """Tokens of this Todo item that no other Todo item contains (lower-cased)."""
    others = " ".join(t.text for t in todos if t.id != todo.id).lower()
    tokens = _code_tokens(todo.text) | _content_words(todo.text)
    return {tok for tok in tokens if tok not in others}


def _contains_token(text: str, token: str) -> bool:
    low = text.lower()
    if not token[0].isascii():
        return token in low
    return re.search(r"(?<![\w])" + re.escape(token) + r"(?![\w])", low) is not None


@dataclass(frozen=True, slots=True)
class _Rule:
    """One rule's id, assessment and usual confidence, stated once: every finding of the
    rule is made by :meth:`hit`, so a rule cannot report another rule's assessment."""

    id: str
    assessment: str
    confidence: float

    def hit(self, focus: Position, why: str, confidence: float | None = None) -> RuleHit:
        """The rule's finding: ``focus`` is its evidence, ``why`` quotes both sides;
        ``confidence`` overrides the rule's usual one for a weaker or stronger sub-check."""
        conf = self.confidence if confidence is None else confidence
        return RuleHit(self.id, self.assessment, focus.id, why, conf)


def _quote(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


@functools.lru_cache(maxsize=4096)
def _strip_code(text: str) -> str:
    return _CODE_SPAN.sub(" ", text)


#: Verb classes for "the answer denies doing what a completed Todo says was done".
_VERB_CLASSES = _W.rx_table("verb_classes")

_KEPT = _W.gate("kept")

_GREEN_CLAIM = _W.gate("green_claim")

_ALL_DONE = _W.rx("all_done")


def _object_tokens(todo: Position, todos: Sequence[Position]) -> set[str]:
    """Distinctive tokens of a Todo item that name a thing, not an action or a topic word."""
    return {
        tok
        for tok in _distinctive_tokens(todo, todos)
        if not any(rx.search(tok) for rx in _VERB_CLASSES.values()) and not _topics(tok)
    }


_PAST_RUN = _W.rx("past_run")


#: A fenced code block of the answer (its body is group 1; an unclosed one runs to the end).
_FENCE = re.compile(r"```[^\n]*\n(.*?)(?:```|\Z)", re.S)

_TABLE_ROW = re.compile(r"^\s*\|(.+)\|\s*$")


def _table_cells(line: str, strip: str | None = None) -> list[str]:
    """The cells of a markdown table row (``| a | b |``), each stripped of ``strip``
    (whitespace by default); ``[]`` for a line that is no table row."""
    m = _TABLE_ROW.match(line)
    return [c.strip(strip) for c in m.group(1).split("|")] if m else []


#: The multiplier of a magnitude after a count ("120.5 万", "5k", "1.2 million"), by its
#: lower-case form.
_MAGNITUDE = {"千": 1e3, "万": 1e4, "亿": 1e8, "k": 1e3, "thousand": 1e3, "m": 1e6, "million": 1e6}


def _amount(digits: str, magnitude: str | None = None) -> float:
    """The value of a count written with digits (thousands commas allowed: "1,204") and
    an optional :data:`_MAGNITUDE` ("万", "k", "million")."""
    return float(digits.replace(",", "")) * _MAGNITUDE.get((magnitude or "").lower(), 1.0)


#: The canonical name of a unit ("sec", "秒" → "s"; "records", "条记录" → "rows"), by its
#: lower-case name; a unit not listed is its own name.
_UNIT_NAMES = {
    alias: unit
    for unit, aliases in (
        ("errors", ("error", "个错误")),
        ("warnings", ("warning", "个警告")),
        ("ms", ("毫秒",)),
        ("s", ("sec", "second", "seconds", "秒")),
        ("min", ("minute", "minutes", "分钟")),
        ("h", ("hour", "hours", "小时")),
        ("rows", ("row", "行", "record", "records", "条记录")),
    )
    for alias in aliases
}
