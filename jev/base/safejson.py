"""JSON from outside Jev, parsed so that no input can escape the caller (design.md §11).

Every JSON text Jev did not write itself (hook stdin, transcripts, turn files, rollouts,
judge replies and HTTP bodies, record imports, installer targets) goes through
:func:`loads`. It turns the whole family of parser failures into one
:class:`JsonInputError` (a ``ValueError``):

* syntax errors (``json.JSONDecodeError``), with line and column;
* bytes that are not UTF-8 (``"not UTF-8 at byte N"``);
* nesting deeper than ``max_depth`` (checked without recursion, so a 100,000-deep
  array is an error, never a ``RecursionError`` later in Jev);
* integers over Python's digit limit (4,300 digits), and ``NaN``/``Infinity``;
* duplicate object keys, when ``unique_keys`` is set (contracts such as the judge
  reply and the HTTP body must be exact: "last one wins" is refused).

Lone UTF-16 surrogates (``"\\ud83d"``, which JavaScript writes for a split emoji) are
valid JSON but cannot be encoded as UTF-8: they are replaced by U+FFFD (the Unicode
replacement character) in every string and key, and :attr:`Parsed.replaced` counts
them so a caller can add a note. Everything downstream (material, digest, records,
output) then sees the same text.

Stdlib only and cheap to import: the hook's fast path uses it.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = [
    "DEFAULT_MAX_DEPTH",
    "JsonInputError",
    "Parsed",
    "decode_utf8",
    "describe",
    "loads",
    "parse",
    "scrub_surrogates",
    "scrub_value",
    "toml_problem",
    "too_deep",
]

#: Deepest nesting accepted by default (arrays + objects). Real transcripts stay < 30.
DEFAULT_MAX_DEPTH = 200

_SURROGATE_RE = re.compile("[\ud800-\udfff]")
_SURROGATE_ESCAPE_RE = re.compile(r"\\u[dD][89abcdefABCDEF]")


class JsonInputError(ValueError):
    """A JSON text from outside Jev cannot be used.

    Attributes:
        reason: what is wrong, in words (``"not UTF-8 at byte 17"``, ``"nested deeper
            than 200 levels"``, ``"Expecting value"``).
        line: 1-based line of the problem inside the text, or ``None``.
        column: 1-based column, or ``None``.
    """

    def __init__(self, reason: str, *, line: int | None = None, column: int | None = None):
        where = f" (line {line}, column {column})" if line is not None else ""
        super().__init__(f"{reason}{where}")
        self.reason = reason
        self.line = line
        self.column = column


class Parsed:
    """A parsed JSON value and how many lone surrogates were replaced by U+FFFD.

    (A plain class, not a dataclass: this module is imported on the hook's fast path.)
    """

    __slots__ = ("replaced", "value")

    def __init__(self, value: Any, replaced: int = 0) -> None:
        self.value = value
        self.replaced = replaced

    def __repr__(self) -> str:
        return f"Parsed(value={self.value!r}, replaced={self.replaced})"


def decode_utf8(data: bytes) -> str:
    """``data`` decoded as UTF-8 (a leading BOM is dropped).

    Raises:
        JsonInputError: the bytes are not UTF-8; the reason names the byte offset.
    """
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise JsonInputError(f"not UTF-8 at byte {exc.start}") from None


def scrub_surrogates(text: str) -> tuple[str, int]:
    """``text`` with every lone surrogate replaced by U+FFFD, and how many were."""
    if not _SURROGATE_RE.search(text):
        return text, 0
    return _SURROGATE_RE.subn("\ufffd", text)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise ValueError(f"duplicate key {key[:40]!r}")
        result[key] = value
    return result


def too_deep(value: Any, max_depth: int) -> bool:
    """Whether ``value`` nests deeper than ``max_depth`` (iterative, no recursion)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > max_depth:
            return True
        if isinstance(node, dict):
            stack.extend((v, depth + 1) for v in node.values() if isinstance(v, dict | list))
        elif isinstance(node, list):
            stack.extend((v, depth + 1) for v in node if isinstance(v, dict | list))
    return False


def scrub_value(value: Any) -> tuple[Any, int]:
    """``(value, count)``: lone surrogates replaced by U+FFFD in every string and key
    of a parsed JSON value (in place for lists and dicts; iterative, any depth)."""
    if isinstance(value, str):
        return scrub_surrogates(value)
    count = 0
    root: list[Any] = [value]
    stack: list[tuple[Any, Any]] = [(root, 0)]
    while stack:
        parent, key = stack.pop()
        node = parent[key]
        if isinstance(node, str):
            fixed, n = scrub_surrogates(node)
            if n:
                parent[key] = fixed
                count += n
        elif isinstance(node, list):
            stack.extend((node, i) for i in range(len(node)))
        elif isinstance(node, dict):
            for k in list(node):
                fixed_key, n = scrub_surrogates(k)
                if n:
                    node[fixed_key] = node.pop(k)
                    count += n
                stack.append((node, fixed_key))
    return root[0], count


def parse(
    data: str | bytes,
    *,
    max_depth: int = DEFAULT_MAX_DEPTH,
    unique_keys: bool = False,
    scrub: bool = True,
) -> Parsed:
    """Parse one JSON text from outside Jev (see the module docstring).

    Args:
        data: the JSON text, or UTF-8 bytes.
        max_depth: deepest nesting of arrays/objects accepted (levels, >= 1).
        unique_keys: refuse an object that repeats a key.
        scrub: replace lone surrogates (default). ``False`` leaves them for a caller
            that counts them per part with :func:`scrub_value` (it must).

    Returns:
        :class:`Parsed` with the value (lone surrogates replaced) and the count of
        replacements.

    Raises:
        JsonInputError: any reason the text cannot be used (never ``RecursionError``,
            ``UnicodeError`` or a bare ``ValueError``).
    """
    text = decode_utf8(data) if isinstance(data, bytes | bytearray) else data
    try:
        value = json.loads(
            text,
            parse_constant=_reject_constant,
            object_pairs_hook=_unique_pairs if unique_keys else None,
        )
    except json.JSONDecodeError as exc:
        raise JsonInputError(exc.msg, line=exc.lineno, column=exc.colno) from None
    except RecursionError:
        raise JsonInputError(f"nested deeper than {max_depth} levels") from None
    except ValueError as exc:  # digit limit, NaN, duplicate key
        raise JsonInputError(str(exc).split(";")[0][:200]) from None
    if (
        isinstance(value, dict | list)
        and text.count("[") + text.count("{") > max_depth
        and too_deep(value, max_depth)
    ):
        raise JsonInputError(f"nested deeper than {max_depth} levels")
    replaced = 0
    if scrub and (_SURROGATE_ESCAPE_RE.search(text) or _SURROGATE_RE.search(text)):
        value, replaced = scrub_value(value)
    return Parsed(value, replaced)


def loads(
    data: str | bytes,
    *,
    max_depth: int = DEFAULT_MAX_DEPTH,
    unique_keys: bool = False,
) -> Any:
    """Like :func:`parse` but return only the value (surrogates replaced silently).

    Raises:
        JsonInputError: see :func:`parse`.
    """
    return parse(data, max_depth=max_depth, unique_keys=unique_keys).value


#: Deepest nesting accepted in a TOML file Jev reads (levels).
TOML_MAX_DEPTH = 32
_LONG_DIGITS_RE = re.compile(r"[0-9][0-9_]{4299,}")


def toml_problem(text: str, *, max_depth: int = TOML_MAX_DEPTH) -> str | None:
    """Why ``text`` must not be given to ``tomllib`` at all, with its line, or ``None``.

    ``tomllib`` recurses per nesting level and converts integers with ``int()``, so a
    hand-broken file nested thousands deep or holding a 5000-digit number raises
    ``RecursionError``/``ValueError`` without a line. This pre-check finds both first:
    ``"line 3: nested deeper than 32 levels"``, ``"line 1: a number of over 4,300
    digits"``. Brackets inside quoted strings and comments are not counted.
    """
    match = _LONG_DIGITS_RE.search(text)
    if match:
        return f"line {text.count(chr(10), 0, match.start()) + 1}: a number of over 4,300 digits"
    if text.count("[") + text.count("{") <= max_depth:
        return None
    depth = 0
    quote = ""
    line = 1
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            if quote in ('"', "'"):
                quote = ""  # single-line strings end at the line (tomllib reports it)
        elif quote:
            if c == "\\" and quote in ('"', '"""'):
                i += 1
            elif text.startswith(quote, i):
                i += len(quote) - 1
                quote = ""
        elif c == "#":
            nl = text.find("\n", i)
            i = n if nl < 0 else nl - 1
        elif c in "\"'":
            quote = c * 3 if text.startswith(c * 3, i) else c
            i += len(quote) - 1
        elif c in "[{":
            depth += 1
            if depth > max_depth:
                return f"line {line}: nested deeper than {max_depth} levels"
        elif c in "]}":
            depth = max(depth - 1, 0)
        i += 1
    return None


def describe(source: str, exc: JsonInputError, *, line: int | None = None) -> str:
    """Name a broken file and where it breaks, for a user-facing message.

    ``"F is not valid JSON (line 3, column 7: Expecting value)"``, ``"F: not UTF-8 at
    byte 17"``, ``"F is not usable JSON (nested deeper than 200 levels)"``; with
    ``line`` (a JSON Lines file): ``"F line 12 is not valid JSON (…)"``.

    Args:
        source: the file's path (or ``"stdin"``).
        exc: the parse failure.
        line: the line of the file this JSON text is (JSON Lines files).
    """
    where = f"{source} line {line}" if line is not None else source
    if exc.reason.startswith("not UTF-8"):
        return f"{where}: {exc.reason}"
    if exc.line is not None and line is None:
        return f"{where} is not valid JSON (line {exc.line}, column {exc.column}: {exc.reason})"
    if exc.line is not None:
        return f"{where} is not valid JSON (column {exc.column}: {exc.reason})"
    return f"{where} is not usable JSON ({exc.reason})"
