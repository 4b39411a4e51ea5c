"""The bottom of Jev: the values every step passes on, the errors, and text and file safety.

:mod:`~jev.base.domain` (material, positions, verdicts, outcomes, settings values),
:mod:`~jev.base.errors` (the error tree), :mod:`~jev.base.loop_state` (a turn's loop
state and action), :mod:`~jev.base.record` and :mod:`~jev.base.record_model` (the audit
record and its JSON form), :mod:`~jev.base.segments` (sentences, list items, lines) and
:mod:`~jev.base.language` (en/zh detection); :mod:`~jev.base.safejson`,
:mod:`~jev.base.redaction`, :mod:`~jev.base.terminal` (untrusted text in, secrets and
escapes out), :mod:`~jev.base.schemacheck`, :mod:`~jev.base.files` (lock, atomic write),
:mod:`~jev.base.paths` and :mod:`~jev.base.resources` (where state and shipped files
are). Nothing here imports the rest of Jev.

Importing this package imports none of its modules (the hook's fast path imports
:mod:`jev.base.paths` alone).
"""
