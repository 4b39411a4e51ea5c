"""The audit pipeline: one module per step, in the order an audit runs them (design.md §2–§8).

1. :mod:`~jev.pipeline.gate` — no Todo use in the turn: ``skipped``, no judge call; an
   exhausted or cancelled turn audits nothing more;
2. :mod:`~jev.pipeline.material` — the material numbered into positions (``R1…``,
   ``T1…``, ``A1…``);
3. :mod:`~jev.pipeline.render` — the whole judge input, in the profile's language;
4. :mod:`~jev.pipeline.budget` — input over ``evidence_chars`` is refused, never
   truncated;
5. :mod:`~jev.pipeline.ask` and :mod:`~jev.pipeline.parse` — ask the judge, parse its
   reply, make the technical retries;
6. :mod:`~jev.pipeline.decide` — the turn's loop decides (finish, supplement, hand to
   the user…), with the words of :mod:`~jev.pipeline.texts`;
7. :mod:`~jev.pipeline.record` — the record of the attempt;

and :mod:`~jev.pipeline.turn_state`, the turn's row in the store (claim, lease, judge
calls). :mod:`~jev.pipeline.audit` is the orchestrator: :func:`~jev.pipeline.audit.run_audit`
(steps 1–5) and :class:`~jev.pipeline.audit.Auditor` (the turn around it: claim, steps
1–7, one store transaction), read top to bottom. A step imports only earlier steps
(import-linter's "pipeline order" contract in pyproject.toml); everything below the
pipeline (values, settings, judges, store, evidence) is imported, never the reverse.

Importing this package imports none of its modules.
"""
