"""Telemetry: committed audit records exported as OpenTelemetry spans (README "For teams").

:mod:`~jev.telemetry.export` (records → spans, when an OTLP endpoint is configured) and
:mod:`~jev.telemetry.otlp` (the OTLP/HTTP sender).

Importing this package imports none of its modules.
"""
