"""The generic turn file: one JSON object holding a turn's material (design.md §3, §12).

Shape: ``schemas/turn.schema.json`` — ``request`` (one or more strings), ``todos``
(``content`` + ``status``), ``final_answer``, optional ``todo_used`` (default
true) and optional ``runs`` (``{command, exit_code, output}``, the turn's shell runs:
evidence for claims, never material; issue 21). Extra keys are allowed so every
labelled case in ``cases/`` is a turn file.

Validation uses jsonschema, imported lazily: this is the generic CLI path, not the
Stop hook's fast path.
"""

from __future__ import annotations

import hashlib
import json
from functools import cache
from pathlib import Path
from typing import Any

from jev.base import safejson
from jev.base.domain import Material
from jev.base.errors import UsageError
from jev.base.resources import data_file
from jev.base.schemacheck import certainly_valid
from jev.evidence.runs import run_from_json
from jev.hosts.turns import REASON_NO_TODO, LineStats, Turn

__all__ = ["load_turn_schema", "read_turn_file", "turn_from_data"]


@cache
def load_turn_schema() -> dict[str, Any]:
    """The shipped ``schemas/turn.schema.json`` as a dict."""
    data: dict[str, Any] = json.loads(data_file("schemas", "turn.schema.json").read_text("utf-8"))
    return data


def _where(path: Any) -> str:
    parts = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)
    return "$" + parts


def turn_from_data(data: Any, source: str = "turn file") -> Turn:
    """Validate a decoded turn-file object and build its :class:`Turn`.

    The key is the object's ``id`` when present, else ``sha256:`` + the first 16 hex
    digits of the SHA-256 of its first request message (stable while the turn's
    answer and Todos change). Status is ``ready`` when ``todo_used`` (default true),
    else ``skipped`` (design.md §2).

    Raises:
        UsageError: the object does not match the schema; the message names the
            source, the JSON path of the first problem and what is wrong.
    """
    schema = load_turn_schema()
    errors: list[Any] = []
    if not certainly_valid(schema, data):
        # lazy: jsonschema (~50 ms) only for a file not certainly valid (`jev audit` start-up)
        import jsonschema

        validator = jsonschema.Draft202012Validator(schema)
        errors = sorted(validator.iter_errors(data), key=lambda e: list(e.absolute_path))
    if errors:
        first = errors[0]
        raise UsageError(
            f"{source}: invalid turn file at {_where(first.absolute_path)}: {first.message}. "
            "A turn file needs request (a non-empty list of strings), todos (a list of "
            "{content, status: pending|in_progress|completed}) and final_answer (a string)."
        )
    material = Material.from_json(data)
    raw_id = data.get("id")
    if isinstance(raw_id, str) and raw_id:
        key = raw_id
    else:
        key = "sha256:" + hashlib.sha256(material.request[0].encode("utf-8")).hexdigest()[:16]
    runs = tuple(r for r in map(run_from_json, data.get("runs") or ()) if r is not None)
    return Turn(
        number=1,
        key=key,
        material=material,
        todo_used=material.todo_used,
        status="ready" if material.todo_used else "skipped",
        reason="" if material.todo_used else REASON_NO_TODO,
        ended_by_interrupt=False,
        opening="prompt",
        runs=runs,
    )


def read_turn_file(path: str | Path, stats: LineStats | None = None) -> Turn:
    """Read and validate one generic turn file.

    ``stats`` (optional) receives the count of lone surrogates replaced by U+FFFD.

    Raises:
        UsageError: the file is missing or unreadable, is not JSON, or does not
            match ``schemas/turn.schema.json`` (the message names the file and the
            JSON path of the problem).
    """
    path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise UsageError(f"{path}: no such turn file; check the path.") from None
    except OSError as exc:
        raise UsageError(f"{path}: cannot be read ({exc.strerror}).") from None
    try:
        parsed = safejson.parse(raw)
    except safejson.JsonInputError as exc:
        raise UsageError(
            f"{safejson.describe(str(path), exc)}; fix the turn file (UTF-8 JSON)."
        ) from None
    if stats is not None:
        stats.surrogates += parsed.replaced
    return turn_from_data(parsed.value, source=str(path))
