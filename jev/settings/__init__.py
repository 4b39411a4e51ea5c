"""Settings: per-profile settings and the machine-wide team file (design.md §10, §11).

:mod:`~jev.settings.profiles` (shipped defaults + the user's sparse TOML overlay: load,
save, profiles), :mod:`~jev.settings.keys` (the key table), :mod:`~jev.settings.check`
(validation without pydantic for the usual values), :mod:`~jev.settings.model` (the
pydantic model of a profile), :mod:`~jev.settings.team` (``<jev_home>/config.toml``:
the shared store and telemetry). The shipped defaults are the top-level
``settings/default.toml``.

Importing this package imports none of its modules.
"""
