"""Tests of the codex host package (jev/hosts/codex/)."""
