"""Step 2 of an audit: number the material into positions the judge can point at (design.md §3, §4).

Jev, not the judge, decides what a "position" is:

* ``R1…Rn`` — segments of every user request message, in order;
* ``T1…Tm`` — one per Todo item (text = ``content``, with its ``status``);
* ``A1…Ak`` — segments of the final answer;
* ``none`` (no position) and ``all`` (the material as a whole).

A request or answer text is cut by :func:`jev.base.segments.segment`. Pure and stdlib only.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from jev.base.domain import Material, Numbering, Position
from jev.base.segments import segment

__all__ = ["number"]

# a markdown table separator row: cells of dashes with optional alignment colons
_TABLE_RULE = re.compile(r"\|?(?:\s*:?-+:?\s*\|)+(?:\s*:?-+:?\s*)?")


def number(material: Material) -> Numbering:
    """Number a turn's material into positions (design.md §4).

    Args:
        material: the turn's request messages, latest Todo list and final answer.

    Returns:
        A :class:`~jev.base.domain.Numbering` whose positions are ``R1…Rn`` (segments of
        every request message in order; ``Position.message`` is the 1-based message
        index), ``T1…Tm`` (one per Todo item; text = content, with status), ``A1…Ak``
        (answer segments), then ``none`` and ``all`` (index 0, empty text).
        Request/answer position texts are their segment with surrounding whitespace
        stripped: always a non-empty exact substring of the original message/answer.
        Whitespace-only messages produce no position.
    """
    positions: list[Position] = []
    r = 0
    for message_index, message in enumerate(material.request, start=1):
        for text in _texts(message):
            r += 1
            positions.append(Position(f"R{r}", "request", r, text, message=message_index))
    for t, item in enumerate(material.todos, start=1):
        positions.append(Position(f"T{t}", "todo", t, item.content, status=item.status))
    for a, text in enumerate(_texts(material.final_answer), start=1):
        positions.append(Position(f"A{a}", "answer", a, text))
    positions.append(Position("none", "none", 0, ""))
    positions.append(Position("all", "all", 0, ""))
    return Numbering(material=material, positions=tuple(positions))


def _texts(text: str) -> Iterator[str]:
    """The stripped, non-empty segment texts of ``text``; a markdown table's separator
    line (``|---|:--:|``) says nothing and is not a position (issue 20 item 2)."""
    for piece in segment(text):
        stripped = piece.strip()
        if stripped and not _TABLE_RULE.fullmatch(stripped):
            yield stripped
