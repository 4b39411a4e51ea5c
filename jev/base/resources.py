"""Locate the data files shipped with Jev: ``prompts/``, ``schemas/``, ``settings/``
and the built-in benchmark's ``corpus/``.

In the repository they are top-level folders; in an installed wheel they live inside
the package as ``jev/prompts``, ``jev/schemas`` and ``jev/settings/defaults`` (see
``pyproject.toml``). Stdlib only, so it is safe on the hook's fast path.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

__all__ = ["data_dir", "data_file"]

_KINDS = ("prompts", "schemas", "settings", "corpus")
#: Where a kind lives in the repository when it is not a top-level folder of its name.
_REPO_FOLDERS = {"corpus": ("tests", "fixtures")}
#: Where a kind lives in an installed wheel when it is not ``jev/<kind>``: the settings
#: defaults sit below the ``jev.settings`` code package.
_WHEEL_FOLDERS = {"settings": ("settings", "defaults")}


@cache
def data_dir(kind: str) -> Path:
    """Return the folder holding the shipped files of ``kind``.

    Args:
        kind: ``"prompts"``, ``"schemas"``, ``"settings"`` or ``"corpus"`` (the
            built-in benchmark's labelled turns: ``tests/fixtures`` in the repository).

    Raises:
        ValueError: for an unknown kind.
        FileNotFoundError: when the installation lacks the folder (a broken install;
            reinstall Jev with ``pip install .``).
    """
    if kind not in _KINDS:
        raise ValueError(f"unknown data kind {kind!r}; expected one of {_KINDS}")
    here = Path(__file__).resolve().parent.parent  # the jev package (this is jev/base/)
    repo = here.parent.joinpath(*_REPO_FOLDERS.get(kind, (kind,)))
    for candidate in (here.joinpath(*_WHEEL_FOLDERS.get(kind, (kind,))), repo):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(
        f"Jev's {kind}/ folder is missing from the installation at {here}; "
        "reinstall Jev (pip install .)."
    )


def data_file(kind: str, name: str) -> Path:
    """Return the path of one shipped file, e.g. ``data_file("schemas", "turn.schema.json")``.

    Raises:
        FileNotFoundError: when the file is not shipped.
    """
    path = data_dir(kind) / name
    if not path.is_file():
        raise FileNotFoundError(f"Jev's shipped file {kind}/{name} is missing at {path}")
    return path
