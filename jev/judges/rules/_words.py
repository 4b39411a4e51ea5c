"""The rules judge's word lists and patterns: TOML loading, lazily compiled regexes and
literal-anchor gates (design.md §13). Shared by every rule family through ``_base``."""

from __future__ import annotations

import functools
import re
import sys
import tomllib
from collections.abc import Iterator
from importlib import resources
from typing import Any, cast

#: An alternative that names another entry: ``<key>`` or ``<family:key>``.
_REF = re.compile(r"<(?:[a-z_]+:)?[a-z_][\w.-]*>")
#: A character class, or the informal "你" outside one.
_CLASS_OR_YOU = re.compile(r"\\.|\[(?:\\.|[^\]\\])*\]|你")


def _polite(alt: str) -> str:
    """``alt`` with each "你" outside a character class read as "你" or the polite "您"
    (a formal answer says "按您的安排", "等您确认"; the word lists are written with 你)."""
    return _CLASS_OR_YOU.sub(lambda m: "[你您]" if m.group(0) == "你" else m.group(0), alt)


class _Words:
    """The word lists of one rule family: ``<family>.toml`` next to its module (design.md §13).

    Each entry is a TOML table with ``en`` and ``zh`` lists of regular-expression
    alternatives (joined with ``|``, English first; either may be absent; "你" also
    matches the polite "您", in the patterns and in the anchors), optional
    ``anchors`` (literal lower-case strings, one of which every match contains: a cheap
    pre-check before the regex) and optional ``case_sensitive`` (default ``false``).
    Dotted keys address nested tables (``"topics.tests"``). The comment above an entry
    says what it matches (the module that names the entry does not repeat it). The files
    ship inside the package; a missing key raises ``KeyError`` at import, a bad pattern
    ``re.error`` at its first use (each pattern is compiled lazily, see :class:`LazyRx`;
    a test compiles every entry).
    """

    __slots__ = ("_data", "family")

    def __init__(self, family: str) -> None:
        self.family = family
        text = resources.files(__package__).joinpath(f"{family}.toml").read_text(encoding="utf-8")
        self._data: dict[str, Any] = tomllib.loads(text)

    def _entry(self, key: str) -> dict[str, Any]:
        entry: Any = self._data
        for part in key.split("."):
            entry = entry[part]
        return cast("dict[str, Any]", entry)

    def keys(self, key: str) -> list[str]:
        """The names of the sub-tables under ``key``, in file order."""
        return list(self._entry(key))

    def pattern(self, key: str, verbs: str | None = None) -> str:
        """The regex source of ``key``; ``verbs`` replaces each ``{verbs}`` in it. An
        alternative ``"<family:key>"`` (or ``"<key>"`` in the same family) stands for all
        alternatives of that entry, so a kind is listed once and named elsewhere."""
        entry = self._entry(key)
        parts = []
        for alt in (*entry.get("en", ()), *entry.get("zh", ())):
            if _REF.fullmatch(alt):
                family, _, ref = alt[1:-1].rpartition(":")
                words = self if not family or family == self.family else _Words(family)
                alt = words.pattern(ref)
            parts.append(_polite(alt))
        text = "|".join(parts)
        return text if verbs is None else text.replace("{verbs}", verbs)

    def rx(self, key: str, verbs: str | None = None) -> LazyRx:
        """The regex of ``key``, compiled at its first use (case-insensitive unless
        ``case_sensitive``)."""
        flags = 0 if self._entry(key).get("case_sensitive") else _I
        return LazyRx(self.pattern(key, verbs), flags)

    def gate(self, key: str, verbs: str | None = None) -> _Gate:
        """The regex of ``key`` behind its ``anchors`` pre-check."""
        return _Gate(self.rx(key, verbs), self.anchors(key))

    def rx_table(self, key: str) -> dict[str, LazyRx]:
        """``{name: regex}`` for each sub-table of ``key``."""
        return {name: self.rx(f"{key}.{name}") for name in self.keys(key)}

    def text(self, key: str, field: str) -> str:
        """The plain string ``field`` of entry ``key`` (e.g. a pattern kept whole)."""
        return str(self._entry(key)[field])

    def anchors(self, key: str) -> tuple[str, ...]:
        """The ``anchors`` of ``key`` (each one with "你" also as "您")."""
        anchors = self._entry(key)["anchors"]
        return tuple(dict.fromkeys(v for a in anchors for v in (a, a.replace("你", "您"))))

    def words(self, key: str) -> frozenset[str]:
        """The plain word list ``words`` of ``key``."""
        return frozenset(self._entry(key)["words"])


class LazyRx:
    """A regular expression compiled at its first use, with the methods of
    :class:`re.Pattern` the rule families call (same arguments, same results).

    The word lists give the rules judge about 150 patterns, most of them long
    alternations; compiling them all when the judge is imported took ~85 ms of every
    ``jev audit`` (about 15 % of its wall time, bench/cli_latency.py), while one audit
    searches with a quarter of them (19–48 of 165 on the labelled turns). A bad pattern
    raises ``re.error`` at its first use.
    """

    __slots__ = ("_compiled", "flags", "pattern")

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.pattern = pattern
        self.flags = flags
        self._compiled: re.Pattern[str] | None = None

    def compiled(self) -> re.Pattern[str]:
        """The compiled pattern (compiled once, on the first call)."""
        rx = self._compiled
        if rx is None:
            rx = self._compiled = re.compile(self.pattern, self.flags)
        return rx

    def search(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        """As :meth:`re.Pattern.search`."""
        return (self._compiled or self.compiled()).search(string, pos, endpos)

    def match(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        """As :meth:`re.Pattern.match`."""
        return (self._compiled or self.compiled()).match(string, pos, endpos)

    def fullmatch(self, string: str) -> re.Match[str] | None:
        """As :meth:`re.Pattern.fullmatch`."""
        return (self._compiled or self.compiled()).fullmatch(string)

    def finditer(
        self, string: str, pos: int = 0, endpos: int = sys.maxsize
    ) -> Iterator[re.Match[str]]:
        """As :meth:`re.Pattern.finditer`."""
        return (self._compiled or self.compiled()).finditer(string, pos, endpos)

    def sub(self, repl: str, string: str, count: int = 0) -> str:
        """As :meth:`re.Pattern.sub` (``repl`` a string)."""
        return (self._compiled or self.compiled()).sub(repl, string, count)

    def split(self, string: str, maxsplit: int = 0) -> list[str | Any]:
        """As :meth:`re.Pattern.split`."""
        return (self._compiled or self.compiled()).split(string, maxsplit)


#: A pattern as the rule families use it: compiled (``re.compile``) or lazy (word lists).
Rx = re.Pattern[str] | LazyRx

_I = re.IGNORECASE


def _rx(pattern: str) -> LazyRx:
    return LazyRx(pattern, _I)


@functools.lru_cache(maxsize=8192)
def _lower(text: str) -> str:
    return text.lower()


class _Gate:
    """A regex behind a cheap literal pre-check: ``search`` runs the regex only when the
    lower-cased text holds one of ``anchors`` (every match must contain one of them)."""

    __slots__ = ("anchors", "rx")

    def __init__(self, rx: Rx, anchors: tuple[str, ...]) -> None:
        self.rx = rx
        self.anchors = anchors

    def search(self, text: str) -> re.Match[str] | None:
        """``rx.search(text)`` when the lower-cased ``text`` holds an anchor, else None."""
        return self.search_low(text, _lower(text))

    def match_start(self, text: str) -> re.Match[str] | None:
        """``match`` (at the start of ``text``) behind the same pre-check (``text`` is
        lower-cased here, not cached: it is a short segment)."""
        low = text.lower()
        if not any(anchor in low for anchor in self.anchors):
            return None
        return self.rx.match(text)

    def search_low(self, text: str, low: str) -> re.Match[str] | None:
        """``search`` with the caller's lower-cased ``low`` of ``text`` (for a text built
        once per material, which the shared lower-case cache should not hold)."""
        if not any(anchor in low for anchor in self.anchors):
            return None
        return self.rx.search(text)


class _AnyGate:
    """Several gates searched in order: the first match wins (``search`` as in re)."""

    __slots__ = ("gates",)

    def __init__(self, *gates: _Gate) -> None:
        self.gates = gates

    def search(self, text: str) -> re.Match[str] | None:
        """The match of the first gate that matches ``text``, or None."""
        return next((m for gate in self.gates if (m := gate.search(text)) is not None), None)
