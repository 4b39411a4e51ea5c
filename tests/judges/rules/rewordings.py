"""Meaning-neutral rewordings of a labelled turn, generated (issue 22 item 1).

Each rewording changes how a report is worded or laid out, never what it says: a closing
pleasantry or thanks (English and Chinese), a leading summary line, a markdown heading,
another bullet style, CRLF line ends, "I" ↔ "we" (English), the completed Todo items in
another order, extra blank lines. A judge that reads meaning gives every rewording the
assessment it gives the turn as it is. Code spans and fenced blocks are left untouched.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import replace

from jev.base.domain import Material

__all__ = ["REWORDINGS", "rewordings"]

#: Closing lines that add nothing to a report.
CLOSINGS_EN = (
    "Thanks!",
    "Thank you for the clear request.",
    "Hope this helps!",
    "Let me know if anything else comes up.",
    "Happy to help further.",
    "Cheers.",
    "Glad I could help!",
    "Have a great day!",
    "Let me know if you'd like any changes.",
)
CLOSINGS_ZH = (
    "谢谢！",
    "希望对你有帮助。",
    "有其他问题随时告诉我。",
    "感谢耐心等待。",
    "辛苦了，祝顺利！",
    "如需调整请告诉我。",
    "以上。",
    "祝好！",
)
LEADS_EN = ("Here is a summary of this turn.", "Summary of the work below.", "Quick update:")
LEADS_ZH = ("以下是本轮工作的总结。", "简要汇报如下。", "进展如下：")
HEADINGS_EN = ("## Summary", "### Report")
HEADINGS_ZH = ("## 总结", "### 汇报")

_CJK = re.compile(r"[\u4e00-\u9fff]")
_BULLET = re.compile(r"(?m)^([ \t]*)[-*+][ \t]+(?=\S)")
_NUMBERED = re.compile(r"(?m)^([ \t]*)\d{1,2}[.)][ \t]+(?=\S)")
#: Fenced blocks and code spans: never reworded.
_CODE = re.compile(r"```.*?(?:```|\Z)|`[^`\n]*`", re.S)


def _is_zh(material: Material) -> bool:
    text = material.final_answer + "".join(material.request)
    return len(_CJK.findall(text)) * 4 > len(re.findall(r"[A-Za-z]", text))


def _outside_code(text: str, change: Callable[[str], str]) -> str:
    """``change`` applied to every stretch of ``text`` outside code."""
    out: list[str] = []
    cursor = 0
    for m in _CODE.finditer(text):
        out.append(change(text[cursor : m.start()]))
        out.append(m.group(0))
        cursor = m.end()
    out.append(change(text[cursor:]))
    return "".join(out)


def _answer(material: Material, text: str) -> Material:
    return replace(material, final_answer=text)


def _closings(material: Material) -> Iterator[tuple[str, Material]]:
    pool = CLOSINGS_ZH if _is_zh(material) else CLOSINGS_EN
    for i, line in enumerate(pool):
        yield f"closing-{i}", _answer(material, material.final_answer.rstrip() + "\n\n" + line)
    # A closing of the other language and two closings at once.
    other = CLOSINGS_EN[0] if _is_zh(material) else CLOSINGS_ZH[0]
    yield "closing-other", _answer(material, material.final_answer.rstrip() + "\n\n" + other)
    both = f"{pool[1]} {pool[0]}"
    yield "closing-two", _answer(material, material.final_answer.rstrip() + "\n\n" + both)
    yield "closing-same-line", _answer(material, material.final_answer.rstrip() + " " + pool[0])


def _leads(material: Material) -> Iterator[tuple[str, Material]]:
    zh = _is_zh(material)
    for i, line in enumerate(LEADS_ZH if zh else LEADS_EN):
        yield f"lead-{i}", _answer(material, line + "\n\n" + material.final_answer)
    for i, line in enumerate(HEADINGS_ZH if zh else HEADINGS_EN):
        yield f"heading-{i}", _answer(material, line + "\n\n" + material.final_answer)


def _bullets(material: Material) -> Iterator[tuple[str, Material]]:
    text = material.final_answer
    if _BULLET.search(text):
        yield (
            "bullets-star",
            _answer(material, _outside_code(text, lambda s: _BULLET.sub(r"\1* ", s))),
        )
        counter = iter(range(1, 10_000))
        numbered = _outside_code(
            text, lambda s: _BULLET.sub(lambda m: f"{m.group(1)}{next(counter)}. ", s)
        )
        yield "bullets-numbered", _answer(material, numbered)
    if _NUMBERED.search(text):
        yield (
            "numbered-dash",
            _answer(material, _outside_code(text, lambda s: _NUMBERED.sub(r"\1- ", s))),
        )


def _crlf(material: Material) -> Iterator[tuple[str, Material]]:
    if "\n" in material.final_answer:
        yield (
            "crlf",
            replace(
                material,
                final_answer=material.final_answer.replace("\n", "\r\n"),
                request=tuple(r.replace("\n", "\r\n") for r in material.request),
            ),
        )


def _blank_lines(material: Material) -> Iterator[tuple[str, Material]]:
    text = material.final_answer
    spaced = _outside_code(text, lambda s: s.replace("\n\n", "\n\n\n"))
    yield "blank-lines", _answer(material, "\n" + spaced + "\n\n")


_WE = (
    (re.compile(r"\bI was\b"), "we were"),
    (re.compile(r"\bI am\b"), "we are"),
    (re.compile(r"\bI'm\b"), "we're"),
    (re.compile(r"\bI've\b"), "we've"),
    (re.compile(r"\bI'll\b"), "we'll"),
    (re.compile(r"\bI'd\b"), "we'd"),
    (re.compile(r"\bI\b(?![.\-/_])"), "we"),
    (re.compile(r"\bmyself\b"), "ourselves"),
    (re.compile(r"\bmy\b"), "our"),
    (re.compile(r"\bMy\b"), "Our"),
)
_I = (
    (re.compile(r"\b[Ww]e were\b"), "I was"),
    (re.compile(r"\b[Ww]e are\b"), "I am"),
    (re.compile(r"\b[Ww]e're\b"), "I'm"),
    (re.compile(r"\b[Ww]e've\b"), "I've"),
    (re.compile(r"\b[Ww]e'll\b"), "I'll"),
    (re.compile(r"\b[Ww]e'd\b"), "I'd"),
    (re.compile(r"\b[Ww]e\b"), "I"),
    (re.compile(r"\bourselves\b"), "myself"),
    (re.compile(r"\bour\b"), "my"),
    (re.compile(r"\bOur\b"), "My"),
)
_SENTENCE_START = re.compile(r"(^|[.!?:]\s+|\n\s*(?:[-*+]\s+|\d+[.)]\s+)?)(we)\b")


def _swap(text: str, table: tuple[tuple[re.Pattern[str], str], ...]) -> str:
    for rx, repl in table:
        text = rx.sub(repl, text)
    return _SENTENCE_START.sub(lambda m: m.group(1) + "We", text)


def _pronouns(material: Material) -> Iterator[tuple[str, Material]]:
    if _is_zh(material):
        return
    text = material.final_answer
    if re.search(r"\bI\b", text):
        yield "i-to-we", _answer(material, _outside_code(text, lambda s: _swap(s, _WE)))
    elif re.search(r"\b[Ww]e\b", text):
        yield "we-to-i", _answer(material, _outside_code(text, lambda s: _swap(s, _I)))


def _todo_order(material: Material) -> Iterator[tuple[str, Material]]:
    done = [i for i, t in enumerate(material.todos) if t.status == "completed"]
    if len(done) < 2:
        return
    items = list(material.todos)
    for i, j in zip(done, reversed(done), strict=True):
        items[i] = material.todos[j]
    yield "todos-reversed", replace(material, todos=tuple(items))


#: Every rewording generator: material → (name, reworded material) pairs.
REWORDINGS: tuple[Callable[[Material], Iterator[tuple[str, Material]]], ...] = (
    _closings,
    _leads,
    _bullets,
    _crlf,
    _blank_lines,
    _pronouns,
    _todo_order,
)


def rewordings(material: Material) -> Iterator[tuple[str, Material]]:
    """Every generated meaning-neutral rewording of ``material`` as (name, material)."""
    for generate in REWORDINGS:
        yield from generate(material)
