"""The Claude Code message format, shared by the Claude Code and Factory Droid readers:
the record rules (``records``), the Todo state (``todos``) and the turn state machine
(``machine``). Generic, so that host packages never import each other. Imports
nothing: the hook's fast path imports this package."""
