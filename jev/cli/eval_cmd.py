"""``jev eval CASES_DIR``: measure a judge on a labelled corpus (SPEC §11).

Runs every case (``*.json``, format of ``tests/fixtures/cases``) through the live audit
path and prints accuracy per assessment, macro-F1, Cohen's κ, the confusion matrix,
focus hit rate, response-error rate, latency p50/p95, tokens and an estimated cost.
``--json`` prints the whole report as JSON; ``--html FILE`` writes a self-contained
page (heat map, bars, misses). It is a measurement: exit 0 whenever it ran and at least
one case got a verdict, 3 when no case did (every audit incomplete: the reasons are
printed), 2 on usage errors (bad folder, bad case file, unknown judge, bad price table).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jev.cli import EXIT_INCOMPLETE, EXIT_OK

if TYPE_CHECKING:
    from jev.domain import Settings

__all__ = ["add_judge_options", "judge_settings_from_args", "register", "run"]


def add_judge_options(p: argparse.ArgumentParser, *, required: bool) -> None:
    """Add ``--judge/--model/--base-url/--api-key-env/--timeout/--technical-retries/
    --profile`` (shared by ``jev eval`` and ``jev replay --live``)."""
    p.add_argument(
        "--judge",
        metavar="NAME",
        required=required,
        help="judge to measure: rules, openai, anthropic (or any registered judge)",
    )
    p.add_argument("--model", metavar="M", help="judge model name")
    p.add_argument("--base-url", metavar="URL", help="judge base URL")
    p.add_argument("--api-key-env", metavar="NAME", help="environment variable holding the API key")
    p.add_argument("--timeout", type=float, metavar="S", help="seconds per judge call (> 0)")
    p.add_argument(
        "--technical-retries",
        type=int,
        metavar="N",
        help="extra calls after a response error (0..10)",
    )
    p.add_argument(
        "--profile", metavar="P", help="settings profile (default: JEV_PROFILE or 'default')"
    )


def judge_settings_from_args(args: argparse.Namespace) -> Settings:
    """The profile's settings with the judge options of the command line applied.

    Raises:
        UsageError: an option value is out of range.
        SettingsError: the profile cannot be read.
    """
    from dataclasses import replace

    from jev.errors import SettingsError, UsageError
    from jev.settings import load_settings, validate_settings

    settings = load_settings(args.profile)
    overrides: dict[str, Any] = {}
    for attr, key in (
        ("judge", "provider"),
        ("model", "model"),
        ("base_url", "base_url"),
        ("api_key_env", "api_key_env"),
        ("timeout", "timeout_s"),
        ("technical_retries", "technical_retries"),
    ):
        value = getattr(args, attr, None)
        if value is not None:
            overrides[key] = value
    try:
        return validate_settings(replace(settings, judge=replace(settings.judge, **overrides)))
    except SettingsError as exc:
        raise UsageError(str(exc)) from None


def register(sub: Any) -> None:
    """Add the ``eval`` subcommand to the ``jev`` parser."""
    p: argparse.ArgumentParser = sub.add_parser(
        "eval",
        help="measure a judge on a labelled corpus of turns",
        description=(
            "Run every labelled case of CASES_DIR through the audit and report accuracy per "
            "assessment, macro-F1, Cohen's kappa, the confusion matrix, focus hit rate, "
            "response-error rate, latency, tokens and estimated cost. Exit 0 when it ran."
        ),
    )
    p.add_argument("cases", metavar="CASES_DIR", help="folder of labelled case files (*.json)")
    add_judge_options(p, required=True)
    p.add_argument("--language", choices=("auto", "en", "zh"), help="prompt language")
    p.add_argument("--json", action="store_true", help="print the whole report as JSON")
    p.add_argument("--html", metavar="FILE", help="also write a self-contained HTML report")
    p.add_argument(
        "--prices",
        metavar="FILE.toml",
        help='price table: [models."NAME"] input = …, output = … per million tokens',
    )
    p.add_argument("--progress", action="store_true", help="show progress on stderr")


def run(args: argparse.Namespace) -> int:
    """Run the evaluation; print the table (or JSON); write the HTML page if asked."""
    from dataclasses import replace

    from jev.errors import UsageError
    from jev.eval_report import format_table, render_html
    from jev.evaluate import evaluate, load_cases, load_prices
    from jev.judges import create_judge

    cases = load_cases(Path(args.cases))
    settings = judge_settings_from_args(args)
    if args.language:
        settings = replace(settings, language=args.language)
    prices = load_prices(Path(args.prices)) if args.prices else None
    html_path = Path(args.html) if args.html else None
    if html_path is not None and not html_path.parent.is_dir():
        raise UsageError(f"cannot write {html_path}: the folder {html_path.parent} does not exist")
    show = args.progress or sys.stderr.isatty()
    done = [0]

    def progress(_: object) -> None:
        done[0] += 1
        if show:
            print(f"\rjev eval: {done[0]}/{len(cases)} cases", end="", file=sys.stderr, flush=True)

    judge = create_judge(settings.judge)
    try:
        report = evaluate(
            cases, settings, judge, corpus=str(args.cases), prices=prices, on_result=progress
        )
    finally:
        judge.close()
    if show:
        print(file=sys.stderr)
    if html_path is not None:
        try:
            html_path.write_text(render_html(report), encoding="utf-8")
        except OSError as exc:
            raise UsageError(f"cannot write {html_path} ({exc.strerror or exc})") from None
    if args.json:
        print(json.dumps(report.to_json(), ensure_ascii=False, indent=2))
    else:
        print(format_table(report))
        if html_path is not None:
            print(f"\nHTML report written to {html_path}")
    if report.results and report.verdicts == 0:
        print(
            "jev eval: no case got a verdict (every audit was incomplete; see the reasons "
            "above): check the judge settings",
            file=sys.stderr,
        )
        return EXIT_INCOMPLETE
    return EXIT_OK
