"""Live replay: re-ask a judge for stored materials and measure agreement (design.md §11).

:func:`live_replay` sends each stored record's material through
:func:`jev.pipeline.audit.run_audit` (current rendering, technical retries honouring
``Retry-After``) on a bounded pool of worker threads, appends one JSON line per
answered record to an output file (resumable: answered records are skipped), and
builds an :class:`Agreement` report (per-class counts, confusion matrix, Cohen's κ,
focus agreement) against the stored verdicts. Sources are read with
:mod:`jev.measure.replay`'s readers.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, as_completed, wait
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from jev.base import safejson
from jev.base.domain import AuditOutcome, Material, Settings
from jev.base.errors import UsageError
from jev.base.record import Record
from jev.measure.metrics import INCOMPLETE, Confusion, format_confusion
from jev.measure.replay import AUDITED_STATUSES, RecordReplay
from jev.measure.replay_source import Entry
from jev.pipeline.audit import run_audit

if TYPE_CHECKING:
    from jev.judges import Judge

__all__ = ["Agreement", "LiveSummary", "agreement_from_file", "live_replay"]


def _stored_view(record: Record) -> dict[str, Any]:
    focus = record.focus or {}
    return {
        "status": record.status,
        "assessment": record.assessment,
        "focus_id": focus.get("id"),
        "error_kind": record.error_kind,
        "judge": record.judge,
    }


def _live_view(outcome: AuditOutcome) -> dict[str, Any]:
    verdict = outcome.verdict
    return {
        "status": outcome.status,
        "assessment": None if verdict is None else verdict.assessment,
        "focus_id": None if verdict is None else verdict.focus.id,
        "quote": None if verdict is None else verdict.focus.text,
        "confidence": None if verdict is None else verdict.confidence,
        "error_kind": outcome.error_kind,
        "reason": outcome.reason,
        "raw_replies": list(outcome.raw_replies),
        "attempts": outcome.attempts,
        "latency_ms": outcome.latency_ms,
        "usage": None if outcome.usage is None else outcome.usage.to_json(),
        "judge": None if outcome.judge is None else outcome.judge.to_json(),
        "input_chars": outcome.input_chars,
        "template_hash": outcome.template_hash,
        "language": outcome.language,
    }


def _label_of(view: dict[str, Any]) -> str:
    assessment = view.get("assessment")
    return str(assessment) if assessment else INCOMPLETE


@dataclass(slots=True)
class Agreement:
    """Stored verdicts (rows) against live verdicts (columns) of a live replay.

    Attributes:
        confusion: the confusion matrix (:class:`jev.measure.evaluate.Confusion`;
            ``incomplete`` where a side has no verdict), with accuracy (= raw
            agreement) and Cohen's κ.
        both_verdicts: pairs where both sides have a verdict.
        focus_same: of those, pairs whose focus ids are equal.
    """

    confusion: Confusion
    both_verdicts: int = 0
    focus_same: int = 0

    def add(self, stored: dict[str, Any], live: dict[str, Any]) -> None:
        self.confusion.add(_label_of(stored), _label_of(live))
        if stored.get("assessment") and live.get("assessment"):
            self.both_verdicts += 1
            if stored.get("focus_id") == live.get("focus_id"):
                self.focus_same += 1

    def focus_agreement(self) -> float | None:
        """Share of both-verdict pairs with the same focus id (``None`` if none)."""
        return None if self.both_verdicts == 0 else self.focus_same / self.both_verdicts

    def to_json(self) -> dict[str, Any]:
        return {
            "pairs": self.confusion.total,
            "agreement": self.confusion.accuracy(),
            "kappa": self.confusion.kappa(),
            "both_verdicts": self.both_verdicts,
            "focus_same": self.focus_same,
            "focus_agreement": self.focus_agreement(),
            "confusion": self.confusion.to_json(),
        }

    def describe(self) -> str:
        """Per-class counts, the confusion matrix, agreement, κ and focus agreement."""
        c = self.confusion

        def pct(v: float | None) -> str:
            return "n/a" if v is None else f"{v * 100:.1f}%"

        kappa = c.kappa()
        lines = [
            f"{'class':<15}{'stored':>8}{'live':>8}{'both':>8}",
            *(
                f"{lab:<15}{c.row_total(lab):>8}{c.column_total(lab):>8}{c.count(lab, lab):>8}"
                for lab in c.labels
                if c.row_total(lab) or c.column_total(lab)
            ),
            "",
            "confusion matrix (rows: stored, columns: live)",
            *format_confusion(c),
            "",
            f"agreement {pct(c.accuracy())} of {c.total} · Cohen's κ "
            f"{'n/a' if kappa is None else f'{kappa:.3f}'} · focus agreement "
            f"{pct(self.focus_agreement())} ({self.focus_same}/{self.both_verdicts})",
        ]
        return "\n".join(lines)


def _new_agreement() -> Agreement:
    return Agreement(Confusion())


def _read_out(path: Path) -> Iterator[dict[str, Any]]:
    with path.open("rb") as handle:
        for raw in handle:
            if not raw.strip():
                continue
            try:
                data = safejson.loads(raw)
            except ValueError:
                continue  # a line cut by a kill: ignored (and truncated on --resume)
            if isinstance(data, dict) and isinstance(data.get("key"), str):
                yield data


def agreement_from_file(path: Path) -> Agreement:
    """The :class:`Agreement` of every answered line of a live-replay output file."""
    agreement = _new_agreement()
    for data in _read_out(path):
        agreement.add(data.get("stored") or {}, data.get("live") or {})
    return agreement


def _prepare_out(path: Path, resume: bool) -> set[str]:
    """Keys already answered in ``path`` (resume), after cutting a partial last line."""
    if not path.exists() or path.stat().st_size == 0:
        return set()
    if not resume:
        raise UsageError(
            f"{path} already exists; pass --resume to continue it, or remove it to start over"
        )
    keys = {d["key"] for d in _read_out(path)}
    with path.open("rb+") as handle:
        data_end = handle.seek(0, os.SEEK_END)
        if data_end:
            handle.seek(data_end - 1)
            if handle.read(1) != b"\n":
                # Cut the line a kill left unfinished; complete lines stay as they are.
                chunk = 65536
                pos = data_end
                cut = 0
                while pos > 0:
                    start = max(0, pos - chunk)
                    handle.seek(start)
                    block = handle.read(pos - start)
                    idx = block.rfind(b"\n")
                    if idx >= 0:
                        cut = start + idx + 1
                        break
                    pos = start
                handle.truncate(cut)
    return keys


@dataclass(slots=True)
class LiveSummary:
    """What a live replay did.

    Attributes:
        read: entries read from the source.
        asked: records re-audited in this run.
        resumed: records skipped because the output already answered them.
        not_audited: skipped, cancelled or material-less records (nothing to re-ask).
        unreadable: entries that were not records.
        agreement: the agreement over the whole output file (this run and earlier ones).
    """

    read: int = 0
    asked: int = 0
    resumed: int = 0
    not_audited: int = 0
    unreadable: int = 0
    agreement: Agreement = field(default_factory=_new_agreement)

    def to_json(self) -> dict[str, Any]:
        return {
            "read": self.read,
            "asked": self.asked,
            "resumed": self.resumed,
            "not_audited": self.not_audited,
            "unreadable": self.unreadable,
            "agreement": self.agreement.to_json(),
        }

    def describe(self) -> str:
        return (
            f"jev replay --live: {self.read} records read · {self.asked} asked · "
            f"{self.resumed} already answered · {self.not_audited} not audits · "
            f"{self.unreadable} unreadable\n" + self.agreement.describe()
        )


def live_replay(
    entries: Iterable[Entry],
    settings: Settings,
    judge: Judge,
    out: Path,
    *,
    concurrency: int = 4,
    resume: bool = False,
    budget_from_record: bool = True,
    on_answer: Callable[[int], None] | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> LiveSummary:
    """Re-ask ``judge`` for every audited record's material; append answers to ``out``.

    Each record goes through :func:`jev.pipeline.audit.run_audit` on one of ``concurrency``
    worker threads, which share the judge (one HTTP client, reused by every call).

    Args:
        entries: the stored records (streamed; at most ``2 * concurrency`` are held
            waiting).
        settings: the profile in force (judge retries, language fallback, budget).
        judge: the judge to ask (shared by the workers; not closed here).
        out: the output JSONL file: one line per answered record, ``{"key", "where",
            "record_id", "session", "turn", "round", "stored": {…}, "live": {…}}``,
            written and flushed as each answer arrives.
        concurrency: judge calls in flight at most (1 … 256).
        resume: continue an existing ``out`` (skip the keys it holds); without it an
            existing non-empty ``out`` is refused.
        budget_from_record: use each record's stored ``budget_chars`` (like for like)
            instead of ``settings.evidence_chars``.
        on_answer: called with the number of records handled so far (progress).
        sleep: called with the seconds to wait before a technical retry
            (``Retry-After`` or the default backoff; see :mod:`jev.pipeline.ask`).

    Returns:
        A :class:`LiveSummary` whose agreement covers the whole output file.

    Raises:
        UsageError: bad ``concurrency``; ``out`` exists without ``resume``; ``out``
            cannot be written.
    """
    if not 1 <= concurrency <= 256:
        raise UsageError(f"--concurrency must be 1 … 256, got {concurrency}")
    done_keys = _prepare_out(out, resume)
    summary = LiveSummary()
    try:
        handle: IO[str] = out.open("a", encoding="utf-8", newline="\n")
    except OSError as exc:
        raise UsageError(f"cannot write {out} ({exc.strerror or exc})") from None
    lock = threading.Lock()
    handled = [0]

    def tick() -> None:
        with lock:  # also serialises the progress display between workers
            handled[0] += 1
            if on_answer is not None:
                on_answer(handled[0])

    def work(entry: Entry, key: str) -> None:
        record = entry.record
        assert record is not None and record.material is not None
        material = Material.from_json(record.material)
        run_settings = settings
        if budget_from_record and record.budget_chars is not None:
            run_settings = replace(settings, evidence_chars=int(record.budget_chars))
        outcome = run_audit(
            material, run_settings, judge, language=record.language or None, sleep=sleep
        )
        line = {
            "key": key,
            "where": RecordReplay(entry).where(),
            "record_id": record.id,
            "session": record.session,
            "turn": record.turn,
            "round": record.round,
            "stored": _stored_view(record),
            "live": _live_view(outcome),
        }
        text = json.dumps(line, ensure_ascii=False) + "\n"
        with lock:
            handle.write(text)
            handle.flush()
            summary.asked += 1
        tick()

    pool = ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="jev-replay")
    pending: set[Future[None]] = set()
    try:
        for entry in entries:
            summary.read += 1
            record = entry.record
            if record is None:
                summary.unreadable += 1
                tick()
                continue
            if record.status not in AUDITED_STATUSES or record.material is None:
                summary.not_audited += 1
                tick()
                continue
            key = record.digest()
            if key in done_keys:
                summary.resumed += 1
                tick()
                continue
            done_keys.add(key)  # a duplicate record in the source is asked once
            while len(pending) >= 2 * concurrency:
                finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in finished:
                    future.result()
            pending.add(pool.submit(work, entry, key))
        for future in as_completed(pending):
            future.result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        handle.close()
    summary.agreement = agreement_from_file(out)
    return summary
