"""``jev report``: what the audits did over a period, from any store (design.md §11).

Streams records (oldest first) through :class:`Report` once; memory stays flat in the
number of records: counters per group, a fixed log-spaced latency histogram per group
(p50/p95 within 5 %), and a set of the turns whose last action was a supplement still
waiting for their next verdict (to count catches).

Definitions (per group and in total):

* ``audits``: records of an audit attempt (status ``verdict``, ``incomplete`` or
  ``stale``; not ``skipped`` or ``cancelled``);
* ``verdicts``: the assessment mix of ``verdict`` records;
* ``blocks``: supplements sent back into a turn (action ``supplement`` with steering);
* ``catches``: a supplement followed, in the same turn, by a ``complete`` verdict;
* ``needs_user``: ``needs-user`` verdicts handed to the user (action ``hand-to-user``);
* ``handed_over``: other verdicts handed to the user instead of sent back (action
  ``hand-to-user`` with ``omission``/``contradiction``/``unknown``: ``jev audit``, or a
  stop the host could not steer), counted apart from ``needs_user`` (issue 23 item 4);
* ``exhausted``: turns whose supplement budget ran out (action ``exhausted``);
* ``incomplete``: incomplete audits by error kind (or reason);
* ``latency_ms``: p50/p95 of the judge latency of audits that called a judge;
* ``tokens``: input/output tokens reported by the providers;
* ``cost_usd``: with prices, input and output tokens times the model's price per
  million tokens; ``unpriced`` counts audits with tokens but no price.

Groups (``--by``): ``day`` (UTC date), ``host``, ``profile``, ``project``. Records do not
carry a project path; Jev chooses a profile per project, so ``project`` groups by
profile too and says so.
"""

from __future__ import annotations

import json
import math
import tomllib
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jev.base.errors import UsageError
from jev.base.record import Record

__all__ = ["GROUPS", "LatencyHistogram", "Prices", "Report", "load_prices"]

#: ``--by`` choices.
GROUPS: tuple[str, ...] = ("day", "host", "profile", "project")
_AUDIT_STATUSES = frozenset({"verdict", "incomplete", "stale"})
_RATIO = 1.05
_MAX_OPEN_TURNS = 100_000


class LatencyHistogram:
    """Log-spaced buckets (5 % wide) of latencies in milliseconds; fixed memory."""

    def __init__(self) -> None:
        self.counts: Counter[int] = Counter()
        self.total = 0

    def add(self, ms: float) -> None:
        """Count one latency (ms; values below 1 ms count as 1 ms)."""
        self.counts[int(math.log(max(ms, 1.0), _RATIO))] += 1
        self.total += 1

    def percentile(self, q: float) -> float | None:
        """The ``q`` quantile (0 … 1) in ms, the upper edge of its bucket (within 5 %),
        or ``None`` when empty."""
        if not self.total:
            return None
        rank = max(1, math.ceil(q * self.total))
        seen = 0
        for bucket in sorted(self.counts):
            seen += self.counts[bucket]
            if seen >= rank:
                return round(_RATIO ** (bucket + 1), 1)
        return None  # pragma: no cover - rank <= total


@dataclass
class Prices:
    """USD per million tokens by ``provider/model`` or ``model``.

    Attributes:
        table: key -> ``(input_per_million, output_per_million)``.
        currency: the prices' currency (``USD`` unless the file says otherwise).
    """

    table: dict[str, tuple[float, float]] = field(default_factory=dict)
    currency: str = "USD"

    def cost(self, judge: Mapping[str, Any] | None, usage: Mapping[str, Any]) -> float | None:
        """USD for one audit's tokens, or ``None`` when its model has no price."""
        judge = judge or {}
        provider, model = str(judge.get("provider", "")), str(judge.get("model", ""))
        price = self.table.get(f"{provider}/{model}") or self.table.get(model)
        if price is None:
            return None
        tokens_in = float(usage.get("input_tokens") or 0)
        tokens_out = float(usage.get("output_tokens") or 0)
        return (tokens_in * price[0] + tokens_out * price[1]) / 1_000_000


def load_prices(path: Path) -> Prices:
    """Read a prices file (TOML, or JSON with a ``.json`` name): the one format of
    ``jev report --prices`` and ``jev eval --prices`` (issue 23 item 4)::

        currency = "USD"                  # optional, default USD
        ["openai/deepseek-chat"]          # provider/model, or just "deepseek-chat"
        input_per_million = 0.27
        output_per_million = 1.10

    The older ``jev eval`` form is read too: ``[models."gpt-4o-mini"]`` with ``input``
    and ``output`` (per million tokens).

    Raises:
        UsageError: unreadable file, bad syntax, or an entry without two
            non-negative numbers.
    """
    try:
        text = path.read_text("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read the prices file {path} ({exc}); check the path.") from None
    try:
        data = json.loads(text) if path.suffix == ".json" else tomllib.loads(text)
    except (json.JSONDecodeError, tomllib.TOMLDecodeError) as exc:
        raise UsageError(f"the prices file {path} is not valid ({exc}).") from None
    if not isinstance(data, dict):
        raise UsageError(f'{path}: expected a table of models, e.g. ["deepseek-chat"].')
    currency = data.get("currency", "USD")
    if not isinstance(currency, str) or not currency.strip():
        raise UsageError(f'{path}: currency must be a name such as "USD".')
    entries: list[tuple[str, Any, tuple[str, str]]] = []
    for key, entry in data.items():
        if key == "currency":
            continue
        if (
            key == "models"
            and isinstance(entry, dict)
            and all(isinstance(v, dict) and "input_per_million" not in v for v in entry.values())
        ):
            entries += [(f"models.{n}", v, ("input", "output")) for n, v in entry.items()]
            continue
        entries.append((str(key), entry, ("input_per_million", "output_per_million")))
    table: dict[str, tuple[float, float]] = {}
    for key, entry, (cin, cout) in entries:
        try:
            values = (entry[cin], entry[cout])
            if any(isinstance(v, bool) or not isinstance(v, int | float) for v in values):
                raise TypeError
            pair = (float(values[0]), float(values[1]))
        except (TypeError, KeyError, ValueError):
            pair = (-1.0, -1.0)
        if min(pair) < 0 or not all(math.isfinite(v) for v in pair):
            raise UsageError(
                f"{path}: [{key}] needs numeric {cin} and {cout} prices: non-negative "
                f"numbers of {currency} per million tokens."
            )
        table[key.removeprefix("models.") if cin == "input" else key] = pair
    return Prices(table, currency.strip())


@dataclass
class _Group:
    audits: int = 0
    verdicts: Counter[str] = field(default_factory=Counter)
    blocks: int = 0
    catches: int = 0
    needs_user: int = 0
    handed_over: int = 0
    exhausted: int = 0
    incomplete: Counter[str] = field(default_factory=Counter)
    latency: LatencyHistogram = field(default_factory=LatencyHistogram)
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float = 0.0
    unpriced: int = 0

    def to_json(self, priced: bool) -> dict[str, Any]:
        out: dict[str, Any] = {
            "audits": self.audits,
            "verdicts": dict(sorted(self.verdicts.items())),
            "blocks": self.blocks,
            "catches": self.catches,
            "needs_user": self.needs_user,
            "handed_over": self.handed_over,
            "exhausted": self.exhausted,
            "incomplete": dict(sorted(self.incomplete.items())),
            "latency_ms": {
                "p50": self.latency.percentile(0.5),
                "p95": self.latency.percentile(0.95),
                "n": self.latency.total,
            },
            "tokens": {"input": self.tokens_in, "output": self.tokens_out},
        }
        if priced:
            out["cost_usd"] = round(self.cost, 6)
            out["unpriced"] = self.unpriced
        return out


class Report:
    """Aggregates records into per-group and total figures.

    Args:
        by: one of :data:`GROUPS`, or ``None`` for totals only.
        prices: per-model prices for ``cost_usd``, or ``None``.

    Raises:
        UsageError: an unknown ``by``.
    """

    def __init__(self, by: str | None = None, prices: Prices | None = None) -> None:
        if by is not None and by not in GROUPS:
            raise UsageError(f"--by must be one of {', '.join(GROUPS)}, got {by!r}")
        self.by = by
        self.prices = prices
        self.records = 0
        self.total = _Group()
        self.groups: dict[str, _Group] = {}
        self._open: dict[tuple[str, str, str], str | None] = {}
        self.first: str | None = None
        self.last: str | None = None

    def add_all(self, records: Iterable[Record]) -> Report:
        """:meth:`add` every record (oldest first); return self."""
        for record in records:
            self.add(record)
        return self

    def _group_key(self, record: Record) -> str:
        if self.by == "day":
            return record.created_at[:10]
        if self.by == "host":
            return record.host
        return record.profile

    def add(self, record: Record) -> None:
        """Count one record; records must come oldest first (catches follow turns)."""
        self.records += 1
        self.first = self.first or record.created_at
        self.last = record.created_at
        targets = [self.total]
        if self.by is not None:
            key = self._group_key(record)
            targets.append(self.groups.setdefault(key, _Group()))
        turn = (record.host, record.session, record.turn)
        kind = (record.action or {}).get("kind")
        caught = False
        if record.status == "verdict" and turn in self._open:
            caught = record.assessment == "complete"
            self._open.pop(turn, None)
        if kind == "supplement" and record.steer:
            if len(self._open) >= _MAX_OPEN_TURNS:  # turns that never came back
                self._open.pop(next(iter(self._open)))
            self._open[turn] = None
        elif kind in ("hand-to-user", "exhausted", "finish", "cancelled"):
            self._open.pop(turn, None)
        for group in targets:
            self._count(group, record, kind, caught)

    def _count(self, group: _Group, record: Record, kind: Any, caught: bool) -> None:
        if record.status not in _AUDIT_STATUSES:
            return
        group.audits += 1
        if record.status == "verdict" and record.assessment:
            group.verdicts[record.assessment] += 1
        if record.status == "incomplete":
            group.incomplete[record.error_kind or record.reason or "unknown"] += 1
        if kind == "supplement" and record.steer:
            group.blocks += 1
        elif kind == "hand-to-user" and record.assessment == "needs-user":
            group.needs_user += 1
        elif kind == "hand-to-user":
            group.handed_over += 1
        elif kind == "exhausted":
            group.exhausted += 1
        group.catches += caught
        if record.attempts > 0 and record.latency_ms > 0:
            group.latency.add(record.latency_ms)
        usage = record.usage or {}
        tokens_in = int(usage.get("input_tokens") or 0)
        tokens_out = int(usage.get("output_tokens") or 0)
        group.tokens_in += tokens_in
        group.tokens_out += tokens_out
        if self.prices is not None and (tokens_in or tokens_out):
            cost = self.prices.cost(record.judge, usage)
            if cost is None:
                group.unpriced += 1
            else:
                group.cost += cost

    def to_json(self) -> dict[str, Any]:
        """``{"records", "from", "to", "by", "total", "groups": {key: figures}}``."""
        priced = self.prices is not None
        return {
            "records": self.records,
            "from": self.first,
            "to": self.last,
            "by": self.by,
            "total": self.total.to_json(priced),
            "groups": {k: g.to_json(priced) for k, g in sorted(self.groups.items())},
        }

    def format(self) -> str:
        """A plain-text table: one line per group, then the total, then details."""
        data = self.to_json()
        priced = self.prices is not None
        head = ["group", "audits", "blocks", "catches", "needs-user", "handed over",
                "exhausted", "incomplete", "p50 ms", "p95 ms", "tokens in/out"]  # fmt: skip
        if priced:
            head.append(f"cost {self.prices.currency}" if self.prices else "cost USD")
        rows = [head]
        label = "project (profile)" if self.by == "project" else (self.by or "")
        items = [*data["groups"].items(), ("total", data["total"])]
        for key, g in items:
            row = [
                key,
                str(g["audits"]),
                str(g["blocks"]),
                str(g["catches"]),
                str(g["needs_user"]),
                str(g["handed_over"]),
                str(g["exhausted"]),
                str(sum(g["incomplete"].values())),
                _num(g["latency_ms"]["p50"]),
                _num(g["latency_ms"]["p95"]),
                f"{g['tokens']['input']}/{g['tokens']['output']}",
            ]
            if priced:
                row.append(f"{g['cost_usd']:.4f}")
            rows.append(row)
        widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
        lines = [
            f"{self.records} records"
            + (f" from {data['from']} to {data['to']}" if data["from"] else "")
            + (f" · by {label}" if label else "")
        ]
        lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
                  for r in rows]  # fmt: skip
        total = data["total"]
        mix = ", ".join(f"{k} {v}" for k, v in total["verdicts"].items()) or "none"
        lines.append(f"verdicts: {mix}")
        if total["incomplete"]:
            why = ", ".join(f"{k} {v}" for k, v in total["incomplete"].items())
            lines.append(f"incomplete by reason: {why}")
        if priced and total["unpriced"]:
            lines.append(f"{total['unpriced']} audits had tokens but no price in the prices file")
        return "\n".join(lines)


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:g}"
