"""``jev report``: audits, blocks, catches, latency, tokens and cost over a period
(design.md §11), from the configured store or ``--store-url``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from jev.cli.replay_cmd import parse_since
from jev.measure.report import Report, load_prices
from jev.store import Store

__all__ = ["register", "run"]


def register(sub: Any) -> None:
    """Add the ``report`` subcommand."""
    p = sub.add_parser(
        "report",
        help="what the audits did: verdicts, blocks, catches, latency, tokens, cost",
        description=(
            "Summarise the stored records of a period (default: the last 7 days), in "
            "total and per day, host, profile or project. Streams the store; works on "
            "the local SQLite file or a shared PostgreSQL store."
        ),
    )
    p.add_argument("--since", default="7d", metavar="WHEN", help="ISO time or age (default 7d)")
    p.add_argument("--by", choices=("day", "host", "profile", "project"), help="group rows")
    p.add_argument("--json", action="store_true", help="one JSON object")
    p.add_argument("--store-url", metavar="URL", help="sqlite:///path or postgresql://…")
    p.add_argument(
        "--prices", type=Path, metavar="FILE", help="USD per million tokens (TOML or JSON)"
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print the report; return 0 (errors raise: usage 2, store 1)."""
    since = parse_since(args.since)
    prices = load_prices(args.prices) if args.prices else None
    report = Report(by=args.by, prices=prices)
    with Store(url=args.store_url) if args.store_url else Store() as store:
        report.add_all(store.iter_records(since=since))
    if args.json:
        json.dump(report.to_json(), sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    else:
        print(report.format())
    return 0
