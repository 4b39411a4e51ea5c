"""Small host-neutral helpers shared by the transcript readers (design.md §3, §8).

Stdlib only and free of host names: the readers of each host import these on the stop
hook's fast path.

* :func:`is_jev_supplement` — does a user-side text carry Jev's own supplement? Hosts
  that deliver a steer as the *next user message* (Gemini's deny reason, Cursor's
  ``followup_message``, Copilot's block reason) write it into the transcript as a user
  record; design.md §3 says Jev's own supplement is never a new request, so readers keep
  the turn open when they see one (design.md §3, §8).
* :func:`marked_item` — a Todo item whose host status has no counterpart in SPEC's
  three (``blocked``, ``cancelled``, …) keeps its meaning in the material: the word goes
  in front of the content and the item counts as not done (``pending``), so a blocked
  item is never silently a plain pending one (design.md §3).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from jev.base.domain import TodoItem

__all__ = [
    "SupplementTest",
    "as_dict",
    "as_list",
    "as_str",
    "is_jev_supplement",
    "marked_item",
    "supplement_test",
]

#: The first line of every supplement Jev renders (``prompts/supplement.*.j2``):
#: ``[Jev completion audit · automatic message, round N/M · …]`` or the Chinese form.
_SUPPLEMENT_HEAD = re.compile(r"^\s*\[Jev (?:completion audit|完成核查)\s*[·:]")

SupplementTest = Callable[[str], bool]


def as_dict(value: Any) -> dict[str, Any]:
    """``value`` when it is a dict, else ``{}``."""
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list[Any]:
    """``value`` when it is a list, else ``[]``."""
    return value if isinstance(value, list) else []


def as_str(value: Any) -> str:
    """``value`` when it is a str, else ``""``."""
    return value if isinstance(value, str) else ""


def is_jev_supplement(text: str, known: Iterable[str] = ()) -> bool:
    """True when ``text`` is (or starts with) a supplement Jev sent (design.md §3, §8).

    Args:
        text: a user-side message text from a transcript or a hook payload.
        known: supplement texts Jev sent in this session (from its session index);
            compared with runs of whitespace made one space, so a template override
            (``JEV_PROMPTS_DIR``) without the standard first line is still recognised.
    """
    flat = " ".join(text.split())
    if not flat:
        return False
    if _SUPPLEMENT_HEAD.match(flat):
        return True
    return any(flat == " ".join(k.split()) for k in known if k and k.strip())


def supplement_test(known: Iterable[Any] = ()) -> SupplementTest:
    """A one-argument :func:`is_jev_supplement` bound to ``known`` supplements: texts,
    or the session index's ``steers`` entries (dicts with a ``text``)."""
    frozen = tuple(k if isinstance(k, str) else as_str(as_dict(k).get("text")) for k in known if k)
    return lambda text: is_jev_supplement(text, frozen)


def marked_item(content: str, status: str, mapping: Mapping[str, str]) -> TodoItem:
    """A :class:`TodoItem` from a host's ``status`` word (design.md §3).

    Args:
        content: the item text.
        status: the host's status word (any case).
        mapping: host status (lower case) -> ``pending``/``in_progress``/``completed``
            for the words that mean exactly that. Any other word (``blocked``,
            ``cancelled``, a newer one) keeps its meaning: the item becomes
            ``pending`` with ``[word] `` in front of its content, so the judge sees
            the host's word and the item never counts as done.
    """
    word = status.strip().lower()
    mapped = mapping.get(word)
    if mapped is not None:
        return TodoItem(content, mapped)
    if not word:
        return TodoItem(content, "pending")
    return TodoItem(f"[{word}] {content}", "pending")
