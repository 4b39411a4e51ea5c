"""Jev's one backward file reader: a file's lines from its end (stdlib ``os`` only).

The Stop hook reads a transcript from its end to the last turn, so its cost follows
the turn, not the session; both the hook's fast path and the full transcript readers
use :func:`lines_backward`. It imports nothing beyond ``os``, so the fast path stays
light.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

__all__ = ["BLOCK", "LineTooLong", "lines_backward"]

#: Bytes read per block from the end of the file.
BLOCK = 1 << 16


class LineTooLong(ValueError):
    """A line grew past the caller's ``max_line`` bytes before its start was found."""


def lines_backward(
    path: str | os.PathLike[str],
    *,
    block: int = BLOCK,
    max_line: int | None = None,
    skip_long: bool = False,
) -> Iterator[tuple[int, bytes]]:
    """Yield ``(byte offset, line)`` for each line of the file, last to first.

    Lines are split on ``b"\\n"`` and yielded without it (a file ending in a newline
    yields an empty last line first). Reads ``block``-byte blocks from the end, so
    stopping early costs only the bytes after the stopping point; the pieces of a long
    line are joined once.

    Args:
        path: the file.
        block: bytes per read.
        max_line: raise :class:`LineTooLong` once the line being assembled is longer
            than this many bytes (``None``: no limit).
        skip_long: instead of raising, drop such a line unread and yield it as
            ``b""`` (memory stays bounded by ``max_line`` whatever junk the file holds,
            e.g. a NUL-filled tail; issue 11).

    Raises:
        OSError: the file cannot be opened or read.
        LineTooLong: see ``max_line``.
    """
    with open(path, "rb") as handle:
        pos = handle.seek(0, os.SEEK_END)
        parts: list[bytes] = []  # pieces of the current line, right to left
        size_so_far = 0
        dropping = False  # the current line passed max_line and is being skipped
        while pos > 0:
            size = min(block, pos)
            pos -= size
            handle.seek(pos)
            chunk = handle.read(size)
            end = len(chunk)
            while True:
                nl = chunk.rfind(b"\n", 0, end)
                if nl < 0:
                    if not dropping:
                        parts.append(chunk[:end])
                        size_so_far += end
                    if max_line is not None and size_so_far > max_line:
                        if not skip_long:
                            raise LineTooLong(f"a line of {path} is longer than {max_line} bytes")
                        parts, size_so_far, dropping = [], 0, True
                    break
                if dropping:
                    yield pos + nl + 1, b""
                    dropping = False
                else:
                    parts.append(chunk[nl + 1 : end])
                    yield pos + nl + 1, b"".join(reversed(parts))
                parts, size_so_far = [], 0
                end = nl
        if dropping:
            yield 0, b""
        elif parts:
            yield 0, b"".join(reversed(parts))
