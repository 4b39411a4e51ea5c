"""Value types shared by every part of Jev (design.md §1, §3–§6).

Pure data, stdlib only: importing this module is cheap and safe on the hook's fast
path. Nothing here does I/O. On-disk and wire forms (records, turn files) are built
from these with ``to_json``/``from_json`` helpers, never the other way round.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = [
    "ASSESSMENTS",
    "PROBLEM_ASSESSMENTS",
    "TODO_STATUSES",
    "Assessment",
    "AuditOutcome",
    "EvidenceNote",
    "EvidenceSettings",
    "InputNote",
    "JudgeAnswer",
    "JudgeInfo",
    "JudgeInput",
    "JudgeSettings",
    "Material",
    "Numbering",
    "Position",
    "PositionKind",
    "Settings",
    "TodoItem",
    "Usage",
    "Verdict",
    "merge_notes",
    "notes_sentence",
]

Assessment = Literal["complete", "omission", "contradiction", "needs-user", "unknown"]
#: The five verdicts, in design.md §5 order.
ASSESSMENTS: tuple[str, ...] = ("complete", "omission", "contradiction", "needs-user", "unknown")
#: Verdicts that spend the shared supplement budget (design.md §8).
PROBLEM_ASSESSMENTS: frozenset[str] = frozenset({"omission", "contradiction", "unknown"})
#: Todo statuses Jev understands (design.md §1). Host-specific extras are mapped by readers.
TODO_STATUSES: tuple[str, ...] = ("pending", "in_progress", "completed")

PositionKind = Literal["request", "todo", "answer", "none", "all"]

_SURROGATE_RE = re.compile("[\ud800-\udfff]")


@dataclass(frozen=True, slots=True)
class TodoItem:
    """One Todo item: ``content`` text and ``status`` (one of :data:`TODO_STATUSES`)."""

    content: str
    status: str


@dataclass(frozen=True, slots=True)
class Material:
    """Exactly the three things of a turn that Jev audits (design.md §3).

    Attributes:
        request: the turn's original user message followed by the user's adjustments
            sent during the turn, in order (never Jev's own supplements). A list or a
            single string is accepted and stored as a tuple.
        todos: the complete latest Todo list (may be empty): :class:`TodoItem` s or
            dicts of the turn-file shape ``{"content", "status"}``, stored as
            :class:`TodoItem` s; an unknown status is refused (``ValueError``).
        final_answer: the latest final answer before the audit (may be empty).
        todo_used: whether the Todo tool was used at least once in this turn (design.md §2).
    """

    request: tuple[str, ...]
    todos: tuple[TodoItem, ...] = ()
    final_answer: str = ""
    todo_used: bool = True

    def __post_init__(self) -> None:
        """Accept the turn-file shapes too: a list (or one string) for ``request``,
        ``{"content", "status"}`` dicts for Todo items; refuse an unknown status.

        Raises:
            ValueError: a Todo item that is neither a :class:`TodoItem` nor a dict with
                string ``content`` and ``status``, or a status outside
                :data:`TODO_STATUSES` (e.g. ``"done"``).
        """
        request = self.request
        if isinstance(request, str):
            request = (request,)
        elif not isinstance(request, tuple):
            request = tuple(request)
        object.__setattr__(self, "request", request)
        todos = self.todos
        if not isinstance(todos, tuple) or not all(type(t) is TodoItem for t in todos):
            todos = tuple(_todo_item(t, n) for n, t in enumerate(todos, start=1))
        for n, item in enumerate(todos, start=1):
            if item.status not in TODO_STATUSES:
                raise _bad_todo(n, f"status {item.status!r} is not one of {TODO_STATUSES}")
        object.__setattr__(self, "todos", todos)

    def to_json(self) -> dict[str, Any]:
        """Return the generic turn-file shape (``schemas/turn.schema.json``)."""
        return {
            "request": list(self.request),
            "todos": [{"content": t.content, "status": t.status} for t in self.todos],
            "final_answer": self.final_answer,
            "todo_used": self.todo_used,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Material:
        """Build from the generic turn-file shape. Validation is the caller's job
        (``jev.hosts.turnfile`` validates against the schema first)."""
        todos: Sequence[Mapping[str, Any]] = data.get("todos") or ()
        return cls(
            request=tuple(str(r) for r in data.get("request") or ()),
            todos=tuple(TodoItem(str(t["content"]), str(t["status"])) for t in todos),
            final_answer=str(data.get("final_answer") or ""),
            todo_used=bool(data.get("todo_used", True)),
        )

    def scrubbed(self) -> tuple[Material, int]:
        """``(material, count)``: this material with every lone UTF-16 surrogate
        (``"\\ud83d"``, no text) replaced by U+FFFD, and how many were. Readers of
        outside input do this while parsing (design.md §11); this catches the rest
        (an API caller's strings), so :meth:`digest` and the store never meet one."""
        count = 0

        def fix(text: str) -> str:
            nonlocal count
            fixed, n = _SURROGATE_RE.subn("\ufffd", text)
            count += n
            return fixed

        request = tuple(fix(r) for r in self.request)
        todos = tuple(TodoItem(fix(t.content), fix(t.status)) for t in self.todos)
        answer = fix(self.final_answer)
        if not count:
            return self, 0
        return Material(request, todos, answer, self.todo_used), count

    def digest(self) -> str:
        """SHA-256 hex digest of the material's canonical JSON (design.md §14 timeliness)."""
        blob = json.dumps(self.to_json(), ensure_ascii=False, sort_keys=True)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class InputNote:
    """Something Jev changed in its input to read it, kept and said (design.md §11).

    Today one kind: ``lone-surrogates`` — lone UTF-16 surrogate escapes (``"\\ud83d"``,
    which JavaScript writes for a split emoji) are valid JSON but no text; each is
    replaced by U+FFFD (the replacement character) in material, digest, record and
    output alike, the audit goes on, and this note says so.

    Attributes:
        kind: ``"lone-surrogates"``.
        count: how many were replaced (>= 1).
        where: what they were in, as words: ``"the transcript"``, ``"the turn file"``,
            ``"the rollout"``, ``"hook input field session_id"``.
    """

    kind: str
    count: int
    where: str

    @property
    def text(self) -> str:
        """The note as one line: ``"2 lone surrogates replaced with U+FFFD in the
        transcript"``."""
        plural = "" if self.count == 1 else "s"
        return f"{self.count} lone surrogate{plural} replaced with U+FFFD in {self.where}"

    def to_json(self) -> dict[str, Any]:
        """``{"kind", "count", "where"}`` (the record's ``input_notes`` items)."""
        return {"kind": self.kind, "count": self.count, "where": self.where}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> InputNote:
        """The inverse of :meth:`to_json` (validated by the caller)."""
        return cls(str(data["kind"]), int(data["count"]), str(data["where"]))


def notes_sentence(notes: Sequence[InputNote]) -> str:
    """The notes as one sentence (``""`` for none): ``"1 lone surrogate replaced with
    U+FFFD in hook input field session_id; the audit went on."``"""
    if not notes:
        return ""
    return "; ".join(n.text for n in notes) + "; the audit went on."


def merge_notes(*groups: Sequence[InputNote]) -> tuple[InputNote, ...]:
    """All notes of ``groups`` with one note per ``(kind, where)``, counts added."""
    merged: dict[tuple[str, str], int] = {}
    for group in groups:
        for note in group:
            key = (note.kind, note.where)
            merged[key] = merged.get(key, 0) + note.count
    return tuple(InputNote(kind, count, where) for (kind, where), count in merged.items() if count)


def _bad_todo(n: int, why: str) -> Exception:
    # ValueError, not a JevError: the domain layer imports nothing of Jev's.
    return ValueError(
        f"Todo item {n}: {why}; give TodoItem(content, status) or "
        '{"content": str, "status": "pending"|"in_progress"|"completed"}.'
    )


def _todo_item(item: object, n: int) -> TodoItem:
    """One Todo item from a :class:`TodoItem` or a turn-file dict (issue 10 item 7)."""
    if isinstance(item, TodoItem):
        return item
    if isinstance(item, Mapping):
        content, status = item.get("content"), item.get("status")
        if isinstance(content, str) and isinstance(status, str):
            return TodoItem(content, status)
        raise _bad_todo(n, "a dict needs string 'content' and 'status'")
    raise _bad_todo(n, f"{type(item).__name__} is not a Todo item")


@dataclass(frozen=True, slots=True)
class Position:
    """One numbered piece of the material the judge can point at (design.md §4).

    Attributes:
        id: ``R1``…, ``T1``…, ``A1``…, ``none`` or ``all``.
        kind: ``request`` | ``todo`` | ``answer`` | ``none`` | ``all``.
        index: 1-based number within its kind (0 for ``none``/``all``).
        text: the exact original text of the piece (the quote). For a Todo item it is
            the item's ``content``; for ``none``/``all`` it is empty.
        message: for request positions, the 1-based index of the user message the
            segment comes from; otherwise ``None``.
        status: for Todo positions, the item's status; otherwise ``None``.
    """

    id: str
    kind: PositionKind
    index: int
    text: str
    message: int | None = None
    status: str | None = None


@dataclass(frozen=True, slots=True)
class Numbering:
    """The material with every position numbered (design.md §4).

    ``positions`` lists request, then Todo, then answer positions, then ``none`` and
    ``all``. Use :meth:`get` to map a judge's focus id back to its position.
    """

    material: Material
    positions: tuple[Position, ...]
    _by_id: dict[str, Position] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._by_id.update({p.id: p for p in self.positions})

    def get(self, position_id: str) -> Position | None:
        """Return the position with this id, or ``None`` if Jev never generated it."""
        return self._by_id.get(position_id)

    def of_kind(self, kind: PositionKind) -> tuple[Position, ...]:
        """All positions of one kind, in order."""
        return tuple(p for p in self.positions if p.kind == kind)


@dataclass(frozen=True, slots=True)
class Verdict:
    """A normal audit's result (design.md §5): the assessment and the focus position.

    ``confidence`` is a diagnostic only and is never shown as the task's chance of
    being correct.
    """

    assessment: str
    focus: Position
    confidence: float | None = None


@dataclass(frozen=True, slots=True)
class Usage:
    """Token usage reported by a provider (``None`` where not reported)."""

    input_tokens: int | None = None
    output_tokens: int | None = None

    def to_json(self) -> dict[str, int | None]:
        """``{"input_tokens": int | None, "output_tokens": int | None}`` (tokens)."""
        return {"input_tokens": self.input_tokens, "output_tokens": self.output_tokens}


@dataclass(frozen=True, slots=True)
class JudgeInput:
    """The whole rendered judge input (design.md §5, §7).

    Attributes:
        system: the fixed rules text (stable across audits: cacheable prefix).
        user: the reference list and the material as an inert data block.
        language: ``en`` or ``zh``, the template language used.
        template_hash: SHA-256 hex of the template sources used (for records/replay).
    """

    system: str
    user: str
    language: str
    template_hash: str

    @property
    def chars(self) -> int:
        """Size counted against ``evidence_chars``: characters of system + user."""
        return len(self.system) + len(self.user)


@dataclass(frozen=True, slots=True)
class JudgeAnswer:
    """What a judge sent back for one call, before parsing (design.md §6).

    Attributes:
        text: the raw reply text (the model's message content), possibly empty.
        usage: token usage when the provider reports it.
        model: the model name the provider reports (or the configured one).
        latency_ms: wall time of the call in milliseconds.
        reply_mode: how the reply was constrained (``json_schema``, ``json_object``,
            ``tool``, ``text``; "" when the judge has no such notion, e.g. rules).
    """

    text: str
    usage: Usage | None = None
    model: str = ""
    latency_ms: float = 0.0
    reply_mode: str = ""


@dataclass(frozen=True, slots=True)
class JudgeInfo:
    """Which judge produced an outcome: provider name, model, heuristic flag."""

    provider: str
    model: str = ""
    heuristic: bool = False

    def to_json(self) -> dict[str, Any]:
        """``{"provider": str, "model": str, "heuristic": bool}``."""
        return {"provider": self.provider, "model": self.model, "heuristic": self.heuristic}


@dataclass(frozen=True, slots=True)
class EvidenceNote:
    """Why the evidence step decided a verdict without a judge call (issue 21).

    Attributes:
        kind: ``run`` (a claim of the report contradicts the turn's last matching run:
            ``contradiction``) or ``check`` (a check the user configured failed after
            a ``complete`` verdict: ``omission``).
        rule: which rule decided (``test-claim-vs-last-run``, ``check-failed``, …).
        command: the run's or the check's command text.
        exit_code: its exit status, ``None`` when unknown (or killed at the deadline).
        quote: the quoted output: the runner's summary line, or the failing tail of a
            check (bounded: a few hundred characters, never the whole output).
    """

    kind: str
    rule: str
    command: str
    exit_code: int | None
    quote: str

    def to_json(self) -> dict[str, Any]:
        """``{"kind", "rule", "command", "exit_code", "quote"}`` (the record's ``evidence``)."""
        return {
            "kind": self.kind,
            "rule": self.rule,
            "command": self.command,
            "exit_code": self.exit_code,
            "quote": self.quote,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> EvidenceNote:
        """The inverse of :meth:`to_json` (validated by the caller)."""
        code = data.get("exit_code")
        return cls(
            str(data["kind"]),
            str(data["rule"]),
            str(data["command"]),
            code if isinstance(code, int) and not isinstance(code, bool) else None,
            str(data["quote"]),
        )


@dataclass(frozen=True, slots=True)
class AuditOutcome:
    """The result of one audit attempt (design.md §6, §7), before the loop decides.

    Attributes:
        status: ``verdict`` (a normal audit), ``skipped`` (no audit was due, design.md §2)
            or ``incomplete`` (over budget, material missing, judge failure).
        verdict: the verdict when ``status == "verdict"``.
        reason: why it was skipped or incomplete (human text; empty for verdicts).
        error_kind: :attr:`jev.base.errors.JevError.kind` of the failure, if any.
        judge: which judge was asked (or would have been).
        input_chars: characters of the rendered judge input (``None`` if not rendered).
        budget_chars: ``evidence_chars`` in force.
        raw_replies: raw reply text of every judge call made, in order.
        usage: summed token usage over the calls, when reported.
        latency_ms: summed judge latency in milliseconds.
        attempts: judge calls made (1 + technical retries used).
        material_hash: :meth:`Material.digest` of the material judged.
        template_hash: :attr:`JudgeInput.template_hash` of the prompt used.
        language: prompt language used (``en``/``zh``).
        reply_mode: how the last reply was constrained (``json_schema``,
            ``json_object``, ``tool``, ``text``; "" for judges without modes).
        evidence: set when the evidence step decided the verdict (issue 21): what it
            saw, quoted in the supplement and kept in the record.
    """

    status: Literal["verdict", "skipped", "incomplete"]
    verdict: Verdict | None = None
    reason: str = ""
    error_kind: str | None = None
    judge: JudgeInfo | None = None
    input_chars: int | None = None
    budget_chars: int | None = None
    raw_replies: tuple[str, ...] = ()
    usage: Usage | None = None
    latency_ms: float = 0.0
    attempts: int = 0
    material_hash: str = ""
    template_hash: str = ""
    language: str = ""
    reply_mode: str = ""
    evidence: EvidenceNote | None = None


@dataclass(frozen=True, slots=True)
class JudgeSettings:
    """The ``[judge]`` table of a profile (design.md §10). Validated by ``jev.settings.profiles``.

    Attributes:
        provider: registered judge name (``rules``, ``openai``, ``anthropic``, …).
        model: model name ("" = provider default / not applicable).
        base_url: http(s) URL ("" = the provider's public default).
        api_key_env: name of the environment variable holding the key ("" = the
            provider's usual variable). The key itself is never stored.
        timeout_s: seconds per judge call (> 0).
        temperature: 0 … 2.
        technical_retries: 0 … 10 extra calls after a response error (design.md §6).
    """

    provider: str = "rules"
    model: str = ""
    base_url: str = ""
    api_key_env: str = ""
    timeout_s: float = 60.0
    temperature: float = 0.0
    technical_retries: int = 1

    def to_json(self) -> dict[str, Any]:
        """The ``[judge]`` table as a dict with the TOML's keys (design.md §10)."""
        return {
            "provider": self.provider,
            "model": self.model,
            "base_url": self.base_url,
            "api_key_env": self.api_key_env,
            "timeout_s": self.timeout_s,
            "temperature": self.temperature,
            "technical_retries": self.technical_retries,
        }


@dataclass(frozen=True, slots=True)
class EvidenceSettings:
    """The ``[evidence]`` table of a profile (issue 21). Validated by ``jev.settings.profiles``.

    Attributes:
        transcript: compare the report's claims with the turn's own runs.
        checks: commands the user configured, run when an audit would end ``complete``.
        check_timeout_s: seconds each check may run before its process group is killed.
    """

    transcript: bool = True
    checks: tuple[str, ...] = ()
    check_timeout_s: float = 120.0

    def to_json(self) -> dict[str, Any]:
        """The ``[evidence]`` table as a dict with the TOML's keys."""
        return {
            "transcript": self.transcript,
            "checks": list(self.checks),
            "check_timeout_s": self.check_timeout_s,
        }


@dataclass(frozen=True, slots=True)
class Settings:
    """One effective profile (design.md §10): shipped defaults overlaid by the user's file.

    Attributes:
        profile: the profile's name (``default``, ``web``, …).
        enabled: the feature switch; only ``jev enable`` / ``set enabled`` changes it.
        max_supplements: 1 … 2**53-1 automatic supplement rounds per turn.
        evidence_chars: 1 … 1,000,000 characters of rendered judge input (design.md §7).
        language: ``auto`` | ``en`` | ``zh``.
        judge: the judge table.
        records_days: 1 … 3650 days of record retention.
        evidence: the evidence table (issue 21).
    """

    profile: str = "default"
    enabled: bool = False
    max_supplements: int = 3
    evidence_chars: int = 24_000
    language: str = "auto"
    judge: JudgeSettings = field(default_factory=JudgeSettings)
    records_days: int = 30
    evidence: EvidenceSettings = field(default_factory=EvidenceSettings)

    def to_json(self) -> dict[str, Any]:
        """The profile as one object with the TOML's keys, ``judge`` nested."""
        return {
            "enabled": self.enabled,
            "max_supplements": self.max_supplements,
            "evidence_chars": self.evidence_chars,
            "language": self.language,
            "records_days": self.records_days,
            "judge": self.judge.to_json(),
            "evidence": self.evidence.to_json(),
        }
