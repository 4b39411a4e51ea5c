"""Terminal safety for text Jev prints (issue 10 item 12).

Transcripts, records and judge replies are untrusted text. Printed raw, an ESC
sequence can recolour, move the cursor or rewrite the screen, BEL rings, C1 codes act
like ESC on some terminals, and bidi overrides reorder what the reader sees (a quote
could appear to say the opposite). :func:`visible` makes each such character visible
as an escape (``\\x1b``, ``\\u202e``) instead of letting the terminal interpret it.
Pure stdlib, no I/O.
"""

from __future__ import annotations

__all__ = ["json_visible", "visible"]

#: Bidi controls: embeddings/overrides (U+202A–U+202E), isolates (U+2066–U+2069),
#: marks (U+200E, U+200F, U+061C).
#: The line and paragraph separators U+2028/U+2029 are in the set too: a terminal or
#: editor may break the line there, so a quote could seem to end early (issue 23).
_BIDI = frozenset(
    [0x061C, 0x200E, 0x200F, 0x2028, 0x2029, *range(0x202A, 0x202F), *range(0x2066, 0x206A)]
)


def _unsafe(code: int, keep_newlines: bool) -> bool:
    if code < 0x20:
        return not (keep_newlines and code in (0x0A, 0x09))
    return code == 0x7F or 0x80 <= code <= 0x9F or code in _BIDI


def _escape(code: int) -> str:
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def visible(text: str, *, keep_newlines: bool = True) -> str:
    """``text`` with control characters made visible, never interpreted.

    Args:
        text: any text (a quote, a reason, a raw reply).
        keep_newlines: keep ``\\n`` and ``\\t`` (multi-line human output); else they
            are escaped too.

    Returns:
        The text with C0 controls (ESC, BEL, CR, …), DEL, C1 controls, bidi
        controls and the separators U+2028/U+2029 replaced by ``\\xNN`` /
        ``\\uNNNN``; every other character unchanged.
        Carriage returns are escaped (a bare CR can overwrite a printed line).
    """
    if text.isascii() and text.isprintable():
        return text
    return "".join(_escape(ord(ch)) if _unsafe(ord(ch), keep_newlines) else ch for ch in text)


def json_visible(line: str) -> str:
    """A JSON text with C1 and bidi controls and U+2028/U+2029 written as ``\\uNNNN``
    escapes.

    ``json.dumps(..., ensure_ascii=False)`` already escapes C0 controls; the others
    pass through raw. Escaping them keeps the JSON equal (same decoded value) and the
    terminal safe.
    """
    if line.isascii():
        return line
    return "".join(
        f"\\u{ord(ch):04x}" if (0x7F <= ord(ch) <= 0x9F or ord(ch) in _BIDI) else ch for ch in line
    )
