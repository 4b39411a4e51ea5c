"""Tests of the cursor host package (jev/hosts/cursor/)."""
