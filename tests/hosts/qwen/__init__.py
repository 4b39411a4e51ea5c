"""Tests of the qwen host package (jev/hosts/qwen/)."""
