"""Redaction of secrets that a provider or a user may echo back (design.md §11).

Stdlib only (imported by the judges, the store and the hook).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["SECRET_FRAGMENT_CHARS", "redact_secrets"]

#: Shortest fragment of a secret that is redacted wherever it appears (characters).
SECRET_FRAGMENT_CHARS = 12


def redact_secrets(text: str, secrets: Sequence[str], mask: str = "***") -> str:
    """``text`` with every trace of each secret replaced by ``mask`` (design.md §11).

    A provider may echo the key transformed; all of these are caught, in any letter
    case: the whole key; the key without its provider prefix (``sk-``, ``sk-proj-``,
    ``sk-ant-api03-``, …); any fragment of :data:`SECRET_FRAGMENT_CHARS` (12) or more
    consecutive characters of the key (so a key split in two halves of >= 12 each is
    caught piece by piece); and any token starting with the key's first 8 characters.

    Args:
        text: any text about to reach a message, record or screen.
        secrets: the secrets (empty strings are ignored).
        mask: what each trace is replaced by.

    Returns:
        the redacted text (unchanged when no secret occurs).
    """
    for secret in secrets:
        if not secret:
            continue
        lowered = text.lower()
        key = secret.lower()
        spans: list[tuple[int, int]] = []
        if len(key) < SECRET_FRAGMENT_CHARS:
            pieces = [key]
        else:
            pieces = [
                key[i : i + SECRET_FRAGMENT_CHARS]
                for i in range(len(key) - SECRET_FRAGMENT_CHARS + 1)
            ]
        for piece in dict.fromkeys(pieces):
            start = lowered.find(piece)
            while start != -1:
                spans.append((start, start + len(piece)))
                start = lowered.find(piece, start + 1)
        if spans:
            spans.sort()
            merged: list[list[int]] = []
            for begin, end in spans:
                if merged and begin <= merged[-1][1]:
                    merged[-1][1] = max(merged[-1][1], end)
                else:
                    merged.append([begin, end])
            out: list[str] = []
            last = 0
            for begin, end in merged:
                out.append(text[last:begin])
                out.append(mask)
                last = end
            out.append(text[last:])
            text = "".join(out)
        if len(secret) >= 8:
            text = re.sub(re.escape(secret[:8]) + r"\S*", mask, text, flags=re.IGNORECASE)
    return text
