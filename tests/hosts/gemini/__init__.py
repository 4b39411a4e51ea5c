"""Tests of the gemini host package (jev/hosts/gemini/)."""
