"""``jev eval CASES_DIR`` / ``--builtin`` / ``--compare``: measure a judge on a labelled
corpus, or on the labelled turns shipped with Jev (design.md §11; :mod:`jev.measure.benchmark`).

Runs every case (``*.json``, format of ``tests/fixtures/cases``) through the live audit
path and prints accuracy per assessment, macro-F1, Cohen's κ, the confusion matrix,
focus hit rate, response-error rate, latency p50/p95, tokens and an estimated cost.
``--json`` prints the whole report as JSON (``--json FILE`` writes it; with
``--builtin`` it is the versioned result file that ``--compare`` reads);
``--html FILE`` writes a self-contained page (heat map, bars, misses). It is a
measurement: exit 0 whenever it ran and at least one case got a verdict, 3 when no
case did (every audit incomplete: the reasons are printed), 2 on usage errors (bad
folder, bad case file, unknown judge, bad price table).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jev.base.errors import SettingsError, UsageError
from jev.cli import EXIT_INCOMPLETE, EXIT_OK
from jev.judges import create_judge
from jev.measure.benchmark import (
    BUILTIN_SETS,
    builtin_cases,
    compare_table,
    corpus_version,
    load_result,
    result_json,
    sets_table,
)
from jev.measure.eval_report import format_table, render_html
from jev.measure.evaluate import evaluate, load_cases, load_prices
from jev.settings.profiles import load_settings, validate_settings

if TYPE_CHECKING:
    from jev.base.domain import Settings

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
        help="measure a judge on a labelled corpus of turns (or the built-in benchmark)",
        description=(
            "Run every labelled case of CASES_DIR (or, with --builtin, the labelled turns "
            "shipped with Jev) through the audit and report accuracy per assessment, "
            "macro-F1, Cohen's kappa, the confusion matrix, focus hit rate, response-error "
            "rate, latency, tokens and estimated cost. --compare A.json B.json puts result "
            "files side by side. Exit 0 when it ran."
        ),
    )
    p.add_argument(
        "cases", metavar="CASES_DIR", nargs="?", help="folder of labelled case files (*.json)"
    )
    p.add_argument(
        "--builtin",
        action="store_true",
        help="measure on the labelled turns shipped with Jev (one row per set)",
    )
    p.add_argument(
        "--set",
        dest="sets",
        action="append",
        metavar="NAME",
        help="with --builtin: only this set (repeatable)",
    )
    p.add_argument(
        "--compare",
        nargs="+",
        metavar="RESULT.json",
        help="print result files of jev eval --builtin --json FILE side by side",
    )
    add_judge_options(p, required=False)
    p.add_argument("--language", choices=("auto", "en", "zh"), help="prompt language")
    p.add_argument(
        "--json",
        nargs="?",
        const="-",
        metavar="FILE",
        help="write the result as JSON to FILE (stdout without FILE); with --builtin it "
        "is the versioned result file for --compare",
    )
    p.add_argument("--html", metavar="FILE", help="also write a self-contained HTML report")
    p.add_argument(
        "--prices",
        metavar="FILE.toml",
        help='price table: [models."NAME"] input = …, output = … per million tokens',
    )
    p.add_argument("--progress", action="store_true", help="show progress on stderr")


def run(args: argparse.Namespace) -> int:
    """Run the evaluation; print the table (or JSON); write the HTML page if asked."""
    chosen = [bool(args.cases), bool(args.builtin), bool(args.compare)]
    if sum(chosen) != 1:
        raise UsageError("give exactly one of CASES_DIR, --builtin or --compare A.json B.json")
    if args.compare:
        return _compare(args.compare)
    if not args.judge and not args.profile:
        raise UsageError(
            "name the judge to measure: --judge rules|openai|anthropic|… , or --profile P "
            "to measure the judge that profile names"
        )
    if args.sets and not args.builtin:
        raise UsageError("--set only goes with --builtin")
    if args.builtin:
        named = builtin_cases(args.sets or ())
        cases = [case for _, case in named]
        corpus = "builtin"
    else:
        cases = load_cases(Path(args.cases))
        corpus = str(args.cases)
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
        report = evaluate(cases, settings, judge, corpus=corpus, prices=prices, on_result=progress)
    finally:
        judge.close()
    if show:
        print(file=sys.stderr)
    if html_path is not None:
        try:
            html_path.write_text(render_html(report), encoding="utf-8")
        except OSError as exc:
            raise UsageError(f"cannot write {html_path} ({exc.strerror or exc})") from None
    data = report.to_json()
    if args.builtin:
        names = args.sets or [n for n, _ in BUILTIN_SETS]
        data = result_json(report, names, corpus="builtin", version=corpus_version(names))
    if args.json == "-":
        print(json.dumps(data, ensure_ascii=False, indent=2))
    else:
        if args.builtin:
            print(sets_table(data))
            print()
            print(_tokens_line(data["figures"]))
            print()
        print(format_table(report))
        if html_path is not None:
            print(f"\nHTML report written to {html_path}")
        if args.json:
            _write_json(Path(args.json), data)
            print(f"\nresult written to {args.json}")
    if report.results and report.verdicts == 0:
        print(
            "jev eval: no case got a verdict (every audit was incomplete; see the reasons "
            "above): check the judge settings",
            file=sys.stderr,
        )
        return EXIT_INCOMPLETE
    return EXIT_OK


def _tokens_line(fig: dict[str, Any]) -> str:
    """Tokens per audit: reported by the provider, and Jev's estimate of the input."""
    tok = fig["tokens_per_audit"]
    est = fig.get("estimated_input_tokens")
    reported = (
        "not reported (offline judge)"
        if tok["input"] is None
        else f"{tok['input']:,.0f} in / {tok['output'] or 0:,.0f} out (reported)"
    )
    line = f"tokens per audit: {reported}"
    if est:
        line += (
            f"; estimated input {est['median']:,.0f} (median), of which the fixed rules text "
            f"{est['rules']:,} ({est['cacheable_share'] * 100:.0f} % reusable with prompt "
            "caching)"
        )
    return line


def _write_json(path: Path, data: dict[str, Any]) -> None:
    if not path.parent.is_dir():
        raise UsageError(f"cannot write {path}: the folder {path.parent} does not exist")
    try:
        path.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write {path} ({exc.strerror or exc})") from None


def _compare(paths: list[str]) -> int:
    results = [load_result(Path(p)) for p in paths]
    print(compare_table(results, paths))
    return EXIT_OK
