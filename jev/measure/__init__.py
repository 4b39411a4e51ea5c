"""Measurement: how well a judge and Jev do, on labelled turns and on stored records.

:mod:`~jev.measure.evaluate` (``jev eval`` on labelled turns), :mod:`~jev.measure.benchmark`
(the built-in benchmark), :mod:`~jev.measure.eval_report` (its HTML report),
:mod:`~jev.measure.metrics` (confusion, κ, percentiles), :mod:`~jev.measure.replay` and
:mod:`~jev.measure.replay_source` (offline replay of stored records),
:mod:`~jev.measure.live` (re-asking a judge), :mod:`~jev.measure.report` (``jev report``:
what the audits did). They run the pipeline; the pipeline never imports them.

Importing this package imports none of its modules.
"""
