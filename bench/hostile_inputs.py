"""The adversarial suite's figure: its bad inputs by area, and how many end cleanly.

The table of docs/adversarial.md (README's *Bounds* section gives its total) is this
script's output, pasted. Nothing in it is counted by hand:

* the bad inputs are the test cases pytest collects under ``tests/adversarial``, each
  assigned to an area by its test function (:data:`AREA_OF`); a hypothesis fuzzer
  counts as the number of examples its settings let it try (``max_examples``);
* the few cases that feed *good* input on purpose (a control beside a bad input)
  are listed in :data:`CONTROLS` and not counted;
* a test function in neither list stops the script: every new adversarial test is
  classified before the figure can be printed;
* "end cleanly" is the number of those cases whose test passed in this run (a failed
  or skipped case is not clean; a failed fuzzer counts none of its examples).

``tests/test_readme_hostile_figure.py`` runs ``--collect-only`` and checks that table
and README's total against it, so the figure cannot drift from the suite.

Usage:
    python bench/hostile_inputs.py                # run the suite, print the table
    python bench/hostile_inputs.py --collect-only # count only (end cleanly: "-")
    python bench/hostile_inputs.py --json         # the counts as JSON
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
SUITE = "tests/adversarial"

#: Test function -> area key. Every test function of the suite is here or in CONTROLS.
AREA_OF: dict[str, str] = {
    # a hostile judge server (tests/hostile.py) over real HTTP
    "test_oversized_body_is_reply_too_large_in_process": "server",
    "test_oversized_body_keeps_jev_audit_under_200_mb": "server",
    "test_one_byte_a_second_ends_within_timeout": "server",
    "test_drip_ends_the_jev_audit_within_timeout_plus_2s": "server",
    "test_threads_sharing_one_poster_each_end_at_their_deadline": "server",
    "test_malformed_body_is_bad_body": "server",
    "test_redirect_to_another_host_is_not_followed": "server",
    "test_echoed_key_reaches_no_output_record_or_file": "server",
    # the judge's host name: a resolver that hangs, a name that does not resolve
    "test_hanging_resolver_ends_at_the_deadline_in_process": "dns",
    "test_hanging_resolver_ends_jev_audit_within_timeout_plus_2s": "dns",
    "test_name_that_does_not_resolve_is_a_connection_error": "dns",
    # the key echoed in transformed forms
    "test_redaction_catches_every_transformed_form": "keys",
    "test_session_index_never_holds_a_key": "keys",
    # hook stdin
    "test_every_hook_exits_0_on_hostile_stdin": "stdin",
    "test_stdout_closed_or_full_still_exits_0": "stdin",
    "test_hook_stdin_fuzz_always_exits_0": "stdin-fuzz",
    # transcripts
    "test_stop_hook_exits_0_on_hostile_transcript": "transcripts",
    "test_jev_audit_ends_cleanly_on_hostile_transcript": "transcripts",
    "test_special_file_as_transcript_is_refused_without_reading": "transcripts",
    "test_nul_filled_tail_costs_bounded_memory": "transcripts",
    "test_transcript_fuzz_ends_cleanly": "transcript-fuzz",
    # hand-broken files and settings
    "test_broken_profile_toml_names_path_and_line": "files",
    "test_records_import_names_the_broken_line": "files",
    "test_installer_target_not_utf8_names_the_byte": "files",
    "test_broken_session_index_is_quarantined_once_and_rebuilt": "files",
    "test_base_url_with_query_credential_is_refused_and_not_echoed": "files",
    "test_settings_refuse_timeout_over_600_at_save": "files",
    # judge reply and material
    "test_deep_reply_is_reply_malformed": "reply",
    "test_line_separators_are_escaped_in_the_data_block": "reply",
    # lone surrogates, per input kind
    "test_lone_surrogate_in_turn_file_is_audited_not_an_internal_error": "surrogates",
    "test_lone_surrogate_in_material_is_consistent_in_the_record": "surrogates",
    "test_turn_file_surrogate_is_noted_in_output_record_and_json": "surrogates",
    "test_claude_transcript_surrogate_audit_and_hook_agree": "surrogates",
    "test_codex_rollout_surrogate_audit_and_hook_agree": "surrogates",
    "test_codex_plan_arguments_surrogate_is_caught_after_the_reader": "surrogates",
    "test_hook_stdin_surrogates_are_noted_per_field": "surrogates",
    "test_api_material_with_surrogates_is_replaced_and_noted": "surrogates",
    "test_newer_host_transcript_surrogate_is_caught_after_the_reader": "surrogates",
    "test_newer_host_hook_notes_the_transcript_surrogates": "surrogates",
    # outside parts of a stop under one deadline (issue 23 item 1)
    "test_hostile_collector_costs_at_most_the_flush_bound_after_the_block": "outside",
    "test_postgres_frozen_while_the_judge_answers_the_hook_exits_in_time": "outside",
    "test_judge_slower_than_the_hook_timeout_is_answered_by_the_watchdog": "outside",
    "test_sixteen_identical_stops_spend_one_supplement": "outside",
    "test_a_counted_block_is_delivered_when_the_session_index_fails_after_it": "outside",
    # text in any encoding (issue 23 item 3)
    "test_jev_audit_exits_with_the_verdict_code_in_any_stdout_encoding": "encodings",
    "test_deeply_nested_turn_file_on_stdin_is_a_clear_usage_error": "encodings",
    "test_line_and_paragraph_separators_are_escaped_in_terminal_output": "encodings",
    "test_gbk_hook_stdin_is_refused_with_a_notice_never_judged": "encodings",
    "test_gbk_hook_stdin_is_decoded_when_its_encoding_is_named": "encodings",
    "test_hook_stdin_with_a_bom_is_decoded": "encodings",
    "test_non_utf8_stdin_of_a_disabled_profile_says_nothing": "encodings",
    "test_locked_sqlite_store_still_gives_the_verdict_with_a_notice": "encodings",
}

#: Test functions that feed good input on purpose (not bad inputs, not counted).
CONTROLS: frozenset[str] = frozenset(
    {
        "test_base_url_with_harmless_query_is_kept",
        "test_turn_file_without_surrogates_has_no_note",
        "test_host_name_that_resolves_still_connects",
    }
)


def _labels() -> dict[str, str]:
    """Area key -> the README label; the class counts in it are read from the suite."""
    sys.path.insert(0, str(REPO))
    from tests.adversarial.test_fuzz import DAMAGE_CLASSES
    from tests.adversarial.test_hook_inputs import HOOKS, STDIN_CLASSES, TRANSCRIPT_CLASSES

    return {
        "server": (
            "hostile judge server (endless body, gzip bomb, drips, huge line, deep, "
            "duplicate keys, HTML, redirect, echoed key)"
        ),
        "dns": "judge host name (resolver that hangs, name that does not resolve)",
        "keys": "key echoed in transformed forms (redaction, session index)",
        "stdin": (
            f"hook stdin: {len(STDIN_CLASSES)} classes × {len(HOOKS)} hook commands × "
            "enabled/disabled, stdout closed/full"
        ),
        "stdin-fuzz": (
            f"hook stdin fuzzer (hypothesis, {len(DAMAGE_CLASSES)} damage classes incl. none)"
        ),
        "transcripts": (
            f"transcripts: {len(TRANSCRIPT_CLASSES)} classes × hook/`jev audit`, "
            "FIFO/device/folder, NUL tail"
        ),
        "transcript-fuzz": "transcript fuzzer (hypothesis; each runs `jev audit` and the hook)",
        "files": (
            "hand-broken files and settings (TOML, records import, installer target, "
            "`sessions.json`, base URL, timeout)"
        ),
        "reply": "judge reply and material (deep reply, line separators)",
        "surrogates": (
            "lone surrogates (turn file, transcripts of every host, rollout, plan arguments, "
            "hook fields, API)"
        ),
        "outside": (
            "outside parts of a stop (OTLP collector: drip, no headers, endless body, gzip "
            "bomb; PostgreSQL frozen mid-judge call; judge past the hook timeout; 16 "
            "invocations of one stop; store failing after the count)"
        ),
        "encodings": (
            "text in any encoding (`jev audit` on cp1252/ASCII/C stdout, deep turn file on "
            "stdin, U+2028/U+2029, GBK and BOM hook stdin, locked SQLite store)"
        ),
    }


class _Collector:
    """pytest plugin: the collected items and each one's outcome."""

    def __init__(self) -> None:
        self.items: list[Any] = []
        self.outcome: dict[str, str] = {}

    def pytest_collection_modifyitems(self, items: list[Any]) -> None:
        self.items = list(items)

    def pytest_runtest_logreport(self, report: Any) -> None:
        if report.when == "call" or report.outcome != "passed":
            if self.outcome.get(report.nodeid) in ("failed", "skipped"):
                return
            self.outcome[report.nodeid] = report.outcome


def _weight(item: Any) -> int:
    """Bad inputs one test case stands for: a fuzzer's ``max_examples``, else 1."""
    settings = getattr(getattr(item, "obj", None), "_hypothesis_internal_use_settings", None)
    return int(settings.max_examples) if settings is not None else 1


def count(run: bool, suite: str = SUITE) -> dict[str, Any]:
    """Collect (and with ``run``, run) the suite; the counts per area.

    Args:
        run: run the tests too (else collect only; ``clean`` is ``None``).
        suite: the folder of the adversarial tests (tests pass another one).

    Returns:
        ``{"areas": [{"key", "label", "bad", "clean"}], "total": {"bad", "clean"}}``;
        ``clean`` is ``None`` without ``run``.

    Raises:
        SystemExit: pytest could not collect, or a test function is unclassified.
    """
    import pytest

    collector = _Collector()
    args = [suite, "-p", "no:cacheprovider", "-q"]
    if not run:
        args.append("--collect-only")
    os.chdir(REPO)
    with contextlib.redirect_stdout(io.StringIO()) as out:
        code = pytest.main(args, plugins=[collector])
    if code not in (0, 1) or not collector.items:
        sys.stderr.write(out.getvalue()[-4000:])
        raise SystemExit(f"pytest could not collect {suite} (exit {code})")
    names = {item.originalname or item.name for item in collector.items}
    unknown = sorted(names - set(AREA_OF) - CONTROLS)
    if unknown:
        raise SystemExit(
            "classify these adversarial tests in bench/hostile_inputs.py (AREA_OF or "
            "CONTROLS): " + ", ".join(unknown)
        )
    labels = _labels()
    bad = dict.fromkeys(labels, 0)
    clean = dict.fromkeys(labels, 0)
    for item in collector.items:
        name = item.originalname or item.name
        if name in CONTROLS:
            continue
        area = AREA_OF[name]
        bad[area] += _weight(item)
        if collector.outcome.get(item.nodeid) == "passed":
            clean[area] += _weight(item)
    if run:
        for item in collector.items:
            outcome = collector.outcome.get(item.nodeid, "not run")
            if (item.originalname or item.name) not in CONTROLS and outcome != "passed":
                print(f"not clean ({outcome}): {item.nodeid}", file=sys.stderr)
    areas = [
        {"key": k, "label": labels[k], "bad": bad[k], "clean": clean[k] if run else None}
        for k in labels
    ]
    total_clean = sum(clean.values()) if run else None
    return {"areas": areas, "total": {"bad": sum(bad.values()), "clean": total_clean}}


def table(counts: dict[str, Any]) -> str:
    """The README table (markdown) of :func:`count`'s result."""

    def cell(value: int | None) -> str:
        return "-" if value is None else str(value)

    lines = ["| area | bad inputs | end cleanly |", "|---|---:|---:|"]
    lines += [f"| {a['label']} | {a['bad']} | {cell(a['clean'])} |" for a in counts["areas"]]
    total = counts["total"]
    clean = cell(total["clean"])
    lines.append(f"| **total** | **{total['bad']}** | **{clean}** |")
    return "\n".join(lines)


def main(argv: list[str] | None = None, emit: Callable[[str], Any] = print) -> int:
    """Print the table (or JSON); exit 1 when some bad input did not end cleanly."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--collect-only", action="store_true", help="count, do not run")
    parser.add_argument("--json", action="store_true", help="print the counts as JSON")
    parser.add_argument("--suite", default=SUITE, help=f"test folder (default: {SUITE})")
    args = parser.parse_args(argv)
    counts = count(run=not args.collect_only, suite=args.suite)
    emit(json.dumps(counts, ensure_ascii=False) if args.json else table(counts))
    total = counts["total"]
    return 0 if total["clean"] in (None, total["bad"]) else 1


if __name__ == "__main__":
    sys.exit(main())
