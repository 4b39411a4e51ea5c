"""How many random cases the property tests (hypothesis) try in this run.

The full suite (``python -m pytest``, as README and CI run it) tries every property at
full strength. The fast default while working (``pytest -m "not slow"``) tries a quarter
of the cases (at least 10, never more than full): the same properties and the same
strategies, fewer examples. ``JEV_TEST_STRENGTH=full`` (or ``fast``) forces either in any
run. Set once by ``tests/conftest.py`` before any test module is collected.
"""

from __future__ import annotations

import os

#: True: full strength (the full suite); False: the fast default.
FULL = True


def configure(markexpr: str) -> None:
    """Choose the strength for a run selected with ``-m markexpr``."""
    global FULL
    forced = os.environ.get("JEV_TEST_STRENGTH", "").strip().lower()
    if forced in ("full", "fast"):
        FULL = forced == "full"
    else:
        FULL = "not slow" not in " ".join(markexpr.split())


def examples(full: int) -> int:
    """Examples to try for a property whose full-strength count is ``full``."""
    return full if FULL else min(full, max(10, full // 4))
