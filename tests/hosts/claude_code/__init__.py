"""Tests of the claude_code host package (jev/hosts/claude_code/)."""
