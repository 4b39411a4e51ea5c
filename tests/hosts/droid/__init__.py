"""Tests of the droid host package (jev/hosts/droid/)."""
