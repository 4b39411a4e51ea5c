"""The Python API a host drives when an agent turn is about to stop (design.md §2, §8, §11, §14).

A stable import path for hosts and embedders: :class:`Auditor` and :class:`Decision`
live in :mod:`jev.pipeline.audit` (the one audit orchestrator, whose docstring shows the flow
and an agent-loop example.
"""

from __future__ import annotations

from jev.pipeline.audit import Auditor
from jev.pipeline.decide import Decision

__all__ = ["Auditor", "Decision"]
