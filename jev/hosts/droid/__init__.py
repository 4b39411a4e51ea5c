"""The Factory Droid host: ``adapter`` (hook, installer), ``fileformat`` (sniffing, reading)
and its transcript reader (design.md §12). Imports nothing: the hook's fast path
imports this package."""
