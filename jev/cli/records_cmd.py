"""``jev records list|show|export|import``: look at and move audit records (design.md §11).

* ``list [--session S] [--limit N] [--json]``: one line per record, newest first.
* ``show ID|TURN``: the report card of a turn (verdict chain, every round with its
  verdict, focus id and full quote, action, supplement round k/N, end reason, raw
  replies). ``ID`` is a record id (shows that record's turn); otherwise ``TURN`` is a
  turn key or a unique prefix of one.
* ``export --out FILE.jsonl [--session S]``: JSON lines, ``schemas/record.schema.json``;
  ``--out -`` writes to standard output.
* ``import FILE.jsonl``: all-or-nothing; records already present are skipped.

Unknown ids/turns and bad import files exit 2 (usage); a broken database exits 1 with
a one-line message naming the file (no traceback).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jev.base.errors import UsageError
from jev.base.terminal import visible
from jev.store import Store, TurnKey

if TYPE_CHECKING:
    from jev.base.record import Record

__all__ = ["LIST_HEADER", "format_list_line", "format_report_card", "register", "run"]

_ARROW = " → "


def register(subparsers: Any) -> None:
    """Add ``records`` and its four actions to the ``jev`` parser."""
    parser = subparsers.add_parser(
        "records",
        help="list, show, export or import audit records",
        description="Look at and move Jev's audit records (one per audit attempt).",
    )
    actions = parser.add_subparsers(dest="records_action", metavar="ACTION")
    actions.required = True

    p_list = actions.add_parser("list", help="one line per record, newest first")
    p_list.add_argument("--session", help="only records of this session id")
    p_list.add_argument("--limit", type=_positive_int, default=50, help="at most N records (50)")
    p_list.add_argument("--json", action="store_true", help="print a JSON array of records")

    p_show = actions.add_parser("show", help="the report card of one turn")
    p_show.add_argument("target", metavar="ID|TURN", help="a record id, or a turn key / prefix")
    p_show.add_argument("--session", metavar="S", help="with a turn key: the session it belongs to")

    p_export = actions.add_parser("export", help="write records as JSON lines")
    p_export.add_argument("--out", required=True, metavar="FILE.jsonl", help="'-' = stdout")
    p_export.add_argument("--session", help="only records of this session id")

    p_import = actions.add_parser("import", help="read records from a JSONL export")
    p_import.add_argument("file", metavar="FILE.jsonl")


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a number >= 1, got {value}")
    return value


def run(args: argparse.Namespace) -> int:
    """Run one ``records`` action; return the exit code (0, or raise for 1/2)."""
    with Store() as store:
        action = args.records_action
        if action == "list":
            return _list(store, args)
        if action == "show":
            return _show(store, args.target, args.session)
        if action == "export":
            return _export(store, args)
        return _import(store, args.file)


def _list(store: Any, args: argparse.Namespace) -> int:
    records = store.list_records(session=args.session, limit=args.limit)
    if args.json:
        json.dump([r.to_json() for r in records], sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
        return 0
    if not records:
        print("no records" + (f" for session {args.session}" if args.session else ""))
        return 0
    rows = [LIST_HEADER, *(_list_cells(record) for record in records)]
    widths = [max(len(row[i]) for row in rows) for i in range(len(LIST_HEADER) - 1)]
    for row in rows:  # a header row, then aligned columns (the last one unpadded)
        line = "  ".join([*(c.ljust(w) for c, w in zip(row, widths, strict=False)), row[-1]])
        print(visible(line))
    return 0


#: Column names of ``jev records list`` (issue 23 item 4).
LIST_HEADER = ("id", "time (UTC)", "host/session/turn", "round", "status", "verdict", "focus",
               "action")  # fmt: skip


def _list_cells(record: Record) -> tuple[str, ...]:
    focus = (record.focus or {}).get("id") or "-"
    return (
        f"#{record.id}",
        record.created_at,
        f"{record.host}/{record.session}/{_short(record.turn)}",
        f"r{record.round}",
        record.status,
        record.assessment or "-",
        str(focus),
        _action_text(record.action),
    )


def format_list_line(record: Record) -> str:
    """One line: id, time, host/session/turn, round, status, assessment, focus, action
    (the columns of :data:`LIST_HEADER`, unaligned)."""
    return "  ".join(_list_cells(record))


def _short(text: str, width: int = 12) -> str:
    return text if len(text) <= width else text[:width] + "…"


def _action_text(action: dict[str, Any] | None) -> str:
    if not action:
        return "-"
    kind = str(action.get("kind", "?"))
    if kind == "supplement":
        return f"supplement {action.get('round')}/{action.get('max_supplements')}"
    return kind


def _end_reason(last: Record) -> str:
    action = last.action or {}
    kind = action.get("kind")
    used, maximum = last.supplements_used, last.max_supplements
    if last.status == "stale":
        return "stale verdict: the turn moved on before it was acted upon; nothing was sent"
    if last.status == "cancelled" or kind == "cancelled":
        return "cancelled"
    if kind == "finish":
        return "complete"
    if kind == "hand-to-user" and last.assessment not in (None, "needs-user"):
        return f"{last.assessment}: shown to the user; no supplement sent"
    if kind == "hand-to-user":
        return "needs user: handed over to the user"
    if kind == "exhausted":
        return f"supplement budget used up ({used}/{maximum})"
    if kind == "supplement":
        k, n = action.get("round"), action.get("max_supplements")
        return f"supplement {k}/{n} sent; awaiting the agent"
    if kind == "incomplete" or last.status == "incomplete":
        return f"audit incomplete: {last.reason or last.error_kind or 'unknown reason'}"
    if kind == "skip" or last.status == "skipped":
        return f"skipped: {last.reason or 'no audit was due'}"
    return str(kind or last.status)


def format_report_card(records: list[Record]) -> str:
    """The report card of one turn from its records (in order), as display text.

    Quotes, supplements and raw replies are shown in full (records keep the exact
    text; nothing is shortened here).
    """
    if not records:
        return ""
    first, last = records[0], records[-1]
    chain = [r.assessment for r in records if r.status == "verdict" and r.assessment]
    language = next((r.language for r in reversed(records) if r.language), "")
    judge = next((r.judge for r in reversed(records) if r.status == "verdict" and r.judge), None)
    judge = judge or last.judge or {}
    judge_text = " ".join(
        x for x in (str(judge.get("provider", "")), str(judge.get("model", ""))) if x
    )
    if judge.get("heuristic"):
        judge_text += " (heuristic)"
    number = f" (turn #{first.turn_number})" if first.turn_number is not None else ""
    lines = [
        f"turn {first.turn}{number}",
        f"  host {first.host} · session {first.session} · profile {last.profile}",
        f"  judge {judge_text or '-'} · language {language or '-'}",
        f"verdict chain: {_ARROW.join(chain) if chain else '(no normal audit)'}",
        f"supplements: {last.supplements_used}/{last.max_supplements}",
        f"end: {_end_reason(last)}",
    ]
    for record in records:
        lines.append("")
        head = f"round {record.round} · #{record.id} · {record.created_at} · {record.status}"
        if record.assessment:
            head += f" · {record.assessment}"
        lines.append(head)
        if record.focus:
            focus = record.focus
            where = str(focus.get("id"))
            if focus.get("kind") not in ("none", "all"):
                where += f" ({focus.get('kind')} {focus.get('index')}"
                where += f", {focus.get('status')})" if focus.get("status") else ")"
            lines.append(f"  focus: {where}")
            if focus.get("quote"):
                lines.append("  quote:")
                lines.extend(_indent(str(focus["quote"]), "    > "))
        if record.confidence is not None:
            lines.append(f"  confidence (diagnostic): {record.confidence:g}")
        if record.reason and record.status != "verdict":
            lines.append(f"  reason: {record.reason}")
        if record.error_kind:
            lines.append(f"  error: {record.error_kind}")
        lines.append(f"  action: {_action_text(record.action)}")
        if record.input_chars is not None:
            lines.append(
                f"  input: {record.input_chars:,} of {record.budget_chars or 0:,} characters"
            )
        calls = f"  judge calls: {record.attempts} · latency {record.latency_ms:.0f} ms"
        if record.judge and record.judge.get("reply_mode"):
            calls += f" · reply mode {record.judge['reply_mode']}"
        lines.append(calls)
        if record.usage:
            tokens_in = record.usage.get("input_tokens")
            tokens_out = record.usage.get("output_tokens")
            lines.append(f"  tokens: in {tokens_in} · out {tokens_out}")
        elif record.input_chars:
            lines.append(
                f"  tokens: not reported by the judge; about {record.input_chars // 4:,} "
                "input tokens estimated from the characters"
            )
        if record.supplement_text:
            lines.append("  supplement sent:")
            lines.extend(_indent(record.supplement_text, "    | "))
        for index, raw in enumerate(record.raw_replies, start=1):
            lines.append(f"  raw reply {index}:")
            lines.extend(_indent(raw or "(empty)", "    "))
    return "\n".join(lines)


def _indent(text: str, prefix: str) -> list[str]:
    return [prefix + line for line in text.splitlines() or [""]]


def _show(store: Any, target: str, session: str | None = None) -> int:
    key: TurnKey | None = None
    if target.isdigit():
        record = store.get_record(int(target))
        if record is not None:
            key = TurnKey(record.host, record.session, record.turn)
    if key is None:
        matches = store.turns_matching(target)
        if session is not None:
            matches = [m for m in matches if m.session == session]
        if not matches:
            raise UsageError(
                f"no record with id or turn {target!r}; "
                "run `jev records list` to see ids and turns."
            )
        if len(matches) > 1:
            shown = ", ".join(str(m) for m in matches[:5]) + (", …" if len(matches) > 5 else "")
            raise UsageError(
                f"{target!r} matches {len(matches)} turns ({shown}); "
                "add --session S, give more of the turn key, or give a record id."
            )
        key = matches[0]
    print(visible(format_report_card(store.records_for_turn(key))))
    return 0


def _export(store: Any, args: argparse.Namespace) -> int:
    if args.out == "-":
        store.export_jsonl(sys.stdout, session=args.session)
        return 0
    try:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"--out {args.out}: cannot create its folder ({exc.strerror})") from None
    count = store.export_jsonl(args.out, session=args.session)
    print(f"exported {count} record{'s' if count != 1 else ''} to {args.out}")
    return 0


def _import(store: Any, path: str) -> int:
    report = store.import_report(path)
    extra = f" ({report.duplicates} already present)" if report.duplicates else ""
    print(
        f"imported {report.inserted} record{'s' if report.inserted != 1 else ''} from {path}{extra}"
    )
    return 0
