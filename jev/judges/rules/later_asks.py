"""Rule family: a mid-turn ask the report never names — ``later-ask-missing`` (omission)
(design.md §5, §13).

A request message sent during the turn asks for a named thing (a code span, an acronym,
a file or an identifier: "Also offer an XLSX download") or a value ("cap it at 1 Hz")
that neither the Todos nor the answer ever name.
"""

from __future__ import annotations

import re

from jev.judges.rules._base import (
    _CODE_SPAN,
    _UNIT_NAMES,
    RuleHit,
    _contains_token,
    _quote,
    _Rule,
    _View,
    _Words,
)
from jev.judges.rules.thin import is_thin

_W = _Words("later_asks")

_LATER_ASK_MISSING = _Rule("later-ask-missing", "omission", 0.7)

_ALSO = _W.rx("also")
_THING = re.compile(r"`([^`\n]{2,40})`|\b([A-Z]{2,6}s?)\b|\b(\w+[._/]\w[\w./]*|[a-z]+[A-Z]\w+)\b")


def _things(text: str) -> set[str]:
    """Named things of a request sentence: code spans, acronyms, files, identifiers."""
    found = set()
    for m in _THING.finditer(text):
        thing = next(g for g in m.groups() if g)
        found.add(thing.lower().rstrip("s") if thing.isupper() else thing.lower())
    return found


#: A mid-turn message that opens a sentence with an order ("Oh and set …", "For the
#: PDBs please use …", "顺便把 … 改成 …").
_IMPERATIVE = re.compile(
    r"(?im)(?:^|[.!;:—–]\s+)"
    r"(?:(?:oh|ah|also|and|btw|plus|one more thing|for [\w` -]{1,30})[,:]?\s+)*"
    r"(?:please\s+)?(?:set|use|add|make|rename|switch|change|put|include|drop|strip|pin|log"
    r"|write|return|expose|send|store|emit|enable|disable|limit|cap|throttle|sort|filter)\b"
    r"|(?:请|顺便|另外|还有)?(?:把|将)[^。；\n]{1,40}(?:改成|改为|设为|换成|加上|加到)"
    r"|^\s*(?:补充(?:一下)?|再加一条|还有一点|另外)[:：，,]|(?:改成|改为|设为|调到|换成)"
    r"|\b(?:has|have|needs?) to be\b|\bmust (?!not\b)|必须(?!不)"
)
#: A mid-turn message that keeps something as it is ("Keep the public API unchanged",
#: "接口保持不变").
_LEAVE_AS_IS = re.compile(
    r"(?i)\b(?:unchanged|as is|as-is|untouched|intact|alone)\b|保持不变|不要动|别动|不动|原样"
)
#: "instead of X", "rather than X", "而不是 X": what a later ask replaces.
_REPLACED = re.compile(
    r"(?i)\b(?:instead of|rather than|not)\s+[^.;,\n—–]*|(?:而不是|不要用)[^。；，\n]*"
)


def _rule_later_ask_missing(view: _View) -> RuleHit | None:
    """``later-ask-missing``: a mid-turn message asks for more ("Also …", "另外 …") and
    no named thing of it shows up in the Todos or the answer."""
    if is_thin(view):
        return None  # an empty or bare answer names nothing: absence is no evidence
    earlier = "\n".join(r.text for r in view.requests if (r.message or 1) == 1).lower()
    for req in view.later_requests:
        asks = _ALSO.search(req.text) or _IMPERATIVE.search(req.text)
        if not asks or "?" in req.text or "？" in req.text or _LEAVE_AS_IS.search(req.text):
            continue  # "Keep the public API unchanged": a limit on the work, not more work
        # "use X instead of Y": Y is what the ask replaces, not what it asks for
        replaced = set().union(*(_things(m.group(0)) for m in _REPLACED.finditer(req.text)))
        things = {t for t in _things(req.text) - replaced if t not in earlier}
        spans = {m.group(1).lower() for m in _CODE_SPAN.finditer(req.text)} & things
        things = spans or things  # "For the PDBs use `maxUnavailable: 1`": the span is the ask
        if things and not any(_contains_token(view.report_text, t) for t in things):
            return _LATER_ASK_MISSING.hit(
                req,
                f"a later message asks for {', '.join(sorted(things))} (“{_quote(req.text)}”), "
                "which neither the Todos nor the answer mention",
            )
        for m in _SET_VALUE.finditer(req.text):
            number, unit = m.group(1), _UNIT_NAMES.get(m.group(2).lower(), m.group(2).lower())
            names = [n for n, u in _UNIT_NAMES.items() if u == unit] + [unit]
            shown = re.compile(
                rf"(?<![\d.]){re.escape(number)}\s*(?:{'|'.join(map(re.escape, names))})(?![a-z])",
                re.I,
            )
            if not shown.search(view.report_text):
                return _LATER_ASK_MISSING.hit(
                    req,
                    f"a later message asks to set a value to {number} {m.group(2)} "
                    f"(“{_quote(req.text)}”), which neither the Todos nor the answer give",
                )
    return None


#: A value a mid-turn message asks to set ("从 5 秒改成 30 秒", "raise it to 30 s").
_SET_VALUE = re.compile(
    r"(?i)(?:改成|改为|设为|设置为|调到|调成|换成|提到|降到|\bto\b|→"
    r"|\b(?:cap|limit|throttle|pin)\b[^.;\n]{0,30}?\bat\b)\s*(\d+(?:\.\d+)?)\s*"
    r"(秒|毫秒|分钟|小时|s|ms|sec|seconds|min|minutes|mb|kb|gb|hz|fps)(?![a-z])"
)
