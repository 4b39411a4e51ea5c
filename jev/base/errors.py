"""Jev's one exception tree.

Every failure Jev reports to a user is one of these. Each message says what happened
and what to do next; none ever contains an API key (design.md §11).

::

    JevError                      base; ``kind`` is a stable short string for records
    ├── UsageError                bad command-line or API arguments         (CLI exit 2)
    ├── SettingsError             invalid setting value or unreadable profile file
    ├── MaterialMissing           the turn's material cannot be obtained whole (design.md §3)
    ├── OverBudget                rendered judge input > evidence_chars (design.md §7)
    ├── JudgeError                no valid verdict came back (design.md §6: "response error")
    │   ├── TransportError        timeout, connection failure, HTTP 4xx/5xx
    │   │   └── ContextLengthError  the provider refused the input as too long
    │   └── ResponseError         a reply came back but is unusable
    │       (kinds: reply-missing, reply-malformed, reply-schema,
    │        unknown-assessment, unknown-focus, focus-mismatch)
    └── StoreError                the records/state database cannot be used

Foreign exceptions (httpx, sqlite3, json, OSError) are translated into this tree at
exactly one place per boundary (``jev.judges._http``, ``jev.store``, the readers).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

__all__ = [
    "RETRY_AFTER_CAP_S",
    "ContextLengthError",
    "JevError",
    "JudgeError",
    "MaterialMissing",
    "OverBudget",
    "ResponseError",
    "SettingsError",
    "StoreDamaged",
    "StoreError",
    "TransportError",
    "UsageError",
]


class JevError(Exception):
    """Base of every error Jev raises on purpose.

    Attributes:
        kind: stable short identifier written to records (``error_kind``).
    """

    kind: str = "internal"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class UsageError(JevError):
    """The caller's arguments are wrong (unknown option, bad path, bad value).

    The CLI maps it to exit code 2.
    """

    kind = "usage"


class SettingsError(JevError):
    """A setting value is refused, or a profile file cannot be read (design.md §10).

    The message names the key (and, for files, the path and line) and the accepted
    range. Nothing on disk is changed when this is raised.
    """

    kind = "settings"


class MaterialMissing(JevError):
    """The complete material of the turn cannot be obtained (design.md §3).

    Examples: the original request was compacted away, the transcript is empty or
    unreadable, the requested turn does not exist. The audit does not run; a summary
    never stands in for the missing text.
    """

    kind = "material-missing"


class OverBudget(JevError):
    """The rendered judge input exceeds ``evidence_chars`` (design.md §7).

    No judge call is made and nothing is truncated.

    Attributes:
        input_chars: size of the whole rendered judge input, in characters.
        budget_chars: the ``evidence_chars`` setting in force, in characters.
    """

    kind = "over-budget"

    def __init__(self, input_chars: int, budget_chars: int) -> None:
        self.input_chars = input_chars
        self.budget_chars = budget_chars
        super().__init__(
            f"the audit material exceeds the budget ({input_chars:,} characters > "
            f"evidence_chars {budget_chars:,}); nothing was sent to the judge and nothing "
            "was cut. To audit it, raise evidence_chars (`jev settings set evidence_chars "
            "N`, at most 1,000,000) and audit again"
        )


#: Longest wait (seconds) honoured before a technical retry: a provider's larger
#: ``Retry-After`` is capped to it (design.md §6). The one definition; judges and the
#: retry loop use it, and hook timeouts are computed from it.
RETRY_AFTER_CAP_S = 60.0


class JudgeError(JevError):
    """The judge produced no valid verdict (design.md §6). Retryable as a technical retry."""

    kind = "judge"
    retryable: bool = True


class TransportError(JudgeError):
    """The judge could not be reached or answered with an HTTP error (design.md §6).

    Attributes:
        status: HTTP status code, or ``None`` for timeouts and connection failures.
        retry_after_s: seconds the provider asked us to wait (``Retry-After``, at most
            :data:`RETRY_AFTER_CAP_S`), if any.
        retryable: whether a technical retry can help (False for 400/401/403/404).
    """

    kind = "transport"

    def __init__(
        self,
        message: str,
        *,
        kind: str = "transport",
        status: int | None = None,
        retry_after_s: float | None = None,
        retryable: bool = True,
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.status = status
        self.retry_after_s = retry_after_s
        self.retryable = retryable


class ContextLengthError(TransportError):
    """The provider said the input is longer than the model's context (design.md §7)."""

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message, kind="context-length", status=status, retryable=False)


class ResponseError(JudgeError):
    """The judge replied, but the reply is not a usable verdict (design.md §6).

    Attributes:
        kind: one of ``reply-missing``, ``reply-malformed``, ``reply-schema``,
            ``unknown-assessment``, ``unknown-focus``, ``focus-mismatch``.
        raw: the raw reply text (may be empty).
    """

    KINDS = (
        "reply-missing",
        "reply-malformed",
        "reply-schema",
        "unknown-assessment",
        "unknown-focus",
        "focus-mismatch",
    )

    def __init__(self, kind: str, message: str, raw: str = "") -> None:
        if kind not in self.KINDS:
            raise ValueError(f"unknown response error kind {kind!r}")
        super().__init__(message)
        self.kind = kind
        self.raw = raw


class StoreError(JevError):
    """The records/state database under JEV_HOME cannot be opened or written."""

    kind = "store"


class StoreDamaged(StoreError):
    """The SQLite store file is not a database or is corrupt (design.md §11).

    Attributes:
        path: the database file.
        identity: ``(st_dev, st_ino)`` of the file that failed, or ``None`` when it
            could not be read; a quarantine moves the file only while it is still
            that one (another process may already have replaced it).
    """

    def __init__(self, message: str, path: Path, identity: tuple[int, int] | None = None) -> None:
        super().__init__(message)
        self.path = path
        self.identity = identity
