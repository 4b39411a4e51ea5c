"""Tests of the copilot host package (jev/hosts/copilot/)."""
