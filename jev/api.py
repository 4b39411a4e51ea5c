"""The Python API a host drives when an agent turn is about to stop (design.md §2, §8, §11, §14).

A stable import path for hosts and embedders: :class:`Auditor` and :class:`Decision`
live in :mod:`jev.auditor`, the one audit orchestrator, whose docstring shows the flow
and an agent-loop example.
"""

from __future__ import annotations

from jev.auditor import Auditor, Decision

__all__ = ["Auditor", "Decision"]
