"""``jev replay``: stored records as regression tests, or re-asked live (design.md §11).

* ``jev replay SOURCE…`` (records JSONL exports and/or folders of them) or
  ``jev replay --store [--session S] [--since WHEN]``: offline, no network. Each record
  goes through the current reply parsing, loop decision and supplement text; every
  difference from the stored result is printed with both sides. Exit 6 when any
  record changed or could not be replayed, 0 otherwise (1 stays "internal error").
  A SOURCE file that is not a records export (a turn file, a transcript, a JSON
  array) is a usage error, exit 2, in one line. ``--json`` for machines.
* ``jev replay --live --judge NAME … --out FILE.jsonl [--resume]``: re-ask a judge for
  every stored material with ``--concurrency N`` calls in flight; one JSON line per
  answer in ``--out``; ``--resume`` skips records already answered there. Prints the
  agreement report (per-class counts, confusion matrix, Cohen's κ, focus agreement).
  Exit 0 when it ran (it is a comparison), 2 on usage errors.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import re
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jev.base.errors import UsageError
from jev.base.record import parse_iso_utc
from jev.base.terminal import json_visible, visible
from jev.cli import EXIT_CHANGED, EXIT_INCOMPLETE, EXIT_OK
from jev.cli.eval_cmd import add_judge_options, judge_settings_from_args
from jev.hosts.transcript import detect_format
from jev.judges import create_judge
from jev.measure.live import live_replay
from jev.measure.metrics import INCOMPLETE
from jev.measure.replay import replay
from jev.measure.replay_source import count_entries, iter_source, iter_store
from jev.store import Store

if TYPE_CHECKING:
    from collections.abc import Iterator

    from jev.measure.replay import RecordReplay
    from jev.measure.replay_source import Entry
    from jev.store import Store

__all__ = ["parse_since", "register", "run"]

_RELATIVE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*$")
_UNIT_S = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


def parse_since(text: str, now: float | None = None) -> float:
    """``--since`` as epoch seconds: an ISO-8601 time (``2026-05-01``,
    ``2026-05-01T12:00:00Z``) or an age such as ``90m``, ``12h``, ``7d``, ``2w``.

    Raises:
        UsageError: neither form.
    """
    match = _RELATIVE.match(text)
    if match:
        return (time.time() if now is None else now) - float(match[1]) * _UNIT_S[match[2]]
    try:
        return parse_iso_utc(text.strip())
    except ValueError:
        raise UsageError(
            f"--since {text!r} is neither an ISO-8601 time (2026-05-01T12:00:00Z) nor an "
            "age like 12h or 7d"
        ) from None


def register(sub: Any) -> None:
    """Add the ``replay`` subcommand to the ``jev`` parser."""
    p: argparse.ArgumentParser = sub.add_parser(
        "replay",
        help="replay stored records as regression tests (offline) or re-ask a judge (--live)",
        description=(
            "Offline: run stored records through the current reply parsing, loop decision "
            "and supplement text and report every difference (exit 1 on any). --live: "
            "re-ask a judge for each stored material and report agreement."
        ),
    )
    p.add_argument("sources", nargs="*", metavar="SOURCE", help="records export (.jsonl) or folder")
    p.add_argument("--store", action="store_true", help="read the local records store instead")
    p.add_argument("--session", metavar="S", help="with --store: only this session")
    p.add_argument("--since", metavar="WHEN", help="with --store: ISO time or age (12h, 7d)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument(
        "--validate",
        action="store_true",
        help="also check each line against the record JSON schema (several times slower)",
    )
    p.add_argument("--live", action="store_true", help="re-ask a judge for each stored material")
    add_judge_options(p, required=False)
    p.add_argument(
        "--concurrency", type=int, default=4, metavar="N", help="--live: calls in flight (4)"
    )
    p.add_argument("--out", metavar="FILE.jsonl", help="--live: answers, one JSON line per record")
    p.add_argument(
        "--resume", action="store_true", help="--live: continue --out, skip answered records"
    )
    p.add_argument(
        "--budget-from-profile",
        action="store_true",
        help="--live: use the profile's evidence_chars instead of each record's stored budget",
    )
    p.add_argument(
        "--progress", action="store_true", help="progress bar on stderr even if not a TTY"
    )


def _entries(args: argparse.Namespace, store: Store | None) -> Iterator[Entry]:
    if store is not None:
        since = parse_since(args.since) if args.since else None
        return iter_store(store, session=args.session, since=since)
    return iter_source([Path(s) for s in args.sources], validate=args.validate)


def _check_args(args: argparse.Namespace) -> None:
    if args.store and args.sources:
        raise UsageError("give SOURCE files/folders or --store, not both")
    if not args.store and not args.sources:
        raise UsageError("nothing to replay: give a records export (.jsonl), a folder, or --store")
    if not args.store and (args.session or args.since):
        raise UsageError("--session and --since select records of the store: add --store")
    if args.live:
        if not args.judge:
            raise UsageError("--live needs --judge NAME (rules, openai, anthropic, …)")
        if not args.out:
            raise UsageError("--live needs --out FILE.jsonl for the answers (resumable)")
    elif args.out or args.resume or args.judge:
        raise UsageError("--judge, --out and --resume belong to --live")
    for source in args.sources:
        if Path(source).is_file():
            _check_export(Path(source))


def _check_export(path: Path) -> None:
    """Refuse, in one line, a file that is not a ``jev records export`` (issue 10 item 10).

    The first non-blank line must be a JSON object with a record's ``created_at`` and
    ``material``; an empty file is an empty export.

    Raises:
        UsageError: anything else, saying what the file looks like instead.
    """
    try:
        with path.open("rb") as handle:
            first = next((raw for raw in handle if raw.strip()), b"")
    except OSError as exc:
        raise UsageError(f"{path}: cannot be read ({exc.strerror or exc}).") from None
    if not first:
        return
    try:
        data = json.loads(first.decode("utf-8", errors="replace"))
    except (ValueError, RecursionError):
        data = None
    if isinstance(data, dict) and "created_at" in data and "material" in data:
        return
    what = "not JSON Lines"
    if isinstance(data, list):
        what = "a JSON array"
    elif isinstance(data, dict):
        kind: str = ""
        with contextlib.suppress(UsageError):
            kind = detect_format(path)
        what = {
            "turn": "a turn file (audit it with `jev audit FILE`)",
            "claude-code": "a Claude Code transcript (audit it with `jev audit FILE`)",
            "codex": "a Codex rollout (audit it with `jev audit FILE`)",
        }.get(kind, "JSON objects that are not Jev records")
    raise UsageError(
        f"{path} is not a records export: it is {what}. jev replay reads files written "
        "by `jev records export --out FILE.jsonl`, folders of them, or --store."
    )


class _Progress:
    """A one-line progress bar on stderr: ``[#####.....] 250/500 12.3/s``."""

    def __init__(self, total: int | None, label: str) -> None:
        self.total = total
        self.label = label
        self.started = time.monotonic()
        self.last = 0.0

    def __call__(self, done: int) -> None:
        now = time.monotonic()
        if now - self.last < 0.1 and done != self.total:
            return
        self.last = now
        rate = done / max(now - self.started, 1e-9)
        if self.total:
            filled = int(30 * min(done, self.total) / self.total)
            bar = "#" * filled + "." * (30 - filled)
            text = f"\r{self.label} [{bar}] {done}/{self.total} {rate:,.1f}/s"
        else:
            text = f"\r{self.label} {done} records {rate:,.1f}/s"
        print(text, end="", file=sys.stderr, flush=True)

    def end(self) -> None:
        print(file=sys.stderr, flush=True)


def run(args: argparse.Namespace) -> int:
    """Run an offline or live replay; return the exit code (see the module docstring)."""
    _check_args(args)
    store: Store | None = None
    if args.store:
        store = Store()
    try:
        if args.live:
            return _run_live(args, store)
        return _run_offline(args, store)
    finally:
        if store is not None:
            store.close()


def _run_offline(args: argparse.Namespace, store: Store | None) -> int:
    show = args.progress or (sys.stderr.isatty() and not args.json)
    bar = _Progress(None, "jev replay") if show else None
    count = [0]

    def on_result(result: RecordReplay) -> None:
        count[0] += 1
        if not args.json and result.result != "same":
            # Printed as found, not kept: memory stays flat on any export.
            if bar is not None:
                print(file=sys.stderr)
            print(visible(result.describe()), flush=True)
        if bar is not None:
            bar(count[0])

    summary = replay(_entries(args, store), on_result=on_result, keep_problems=args.json)
    if bar is not None:
        bar.end()
    if args.json:
        print(json_visible(json.dumps(summary.to_json(), ensure_ascii=False, indent=2)))
    else:
        print(summary.line())
    return EXIT_OK if summary.ok else EXIT_CHANGED


def _run_live(args: argparse.Namespace, store: Store | None) -> int:
    settings = judge_settings_from_args(args)
    show = args.progress or sys.stderr.isatty()
    bar = None
    if show:
        total = None if store is not None else count_entries([Path(s) for s in args.sources])
        bar = _Progress(total, "jev replay --live")
    judge = create_judge(settings.judge)
    try:
        summary = live_replay(
            _entries(args, store),
            settings,
            judge,
            Path(args.out),
            concurrency=args.concurrency,
            resume=args.resume,
            budget_from_record=not args.budget_from_profile,
            on_answer=bar,
        )
    finally:
        judge.close()
    if bar is not None:
        bar.end()
    if args.json:
        print(json.dumps(summary.to_json(), ensure_ascii=False, indent=2))
    else:
        print(summary.describe())
    conf = summary.agreement.confusion
    if summary.asked and conf.total and conf.column_total(INCOMPLETE) == conf.total:
        print(
            f"jev replay --live: the judge gave no verdict at all (every audit incomplete; "
            f"the reasons are in {args.out}): check the judge settings",
            file=sys.stderr,
        )
        return EXIT_INCOMPLETE
    return EXIT_OK
