"""Turns of a Claude Code session transcript (JSONL) — design.md §2, §3; hosts.md (Claude Code).

Stdlib only. This module reads the files (forwards, or backwards to the current turn's
opening); the rules below are applied by the state machine in
:mod:`jev.hosts.ccformat.machine`, the Todo state is :mod:`jev.hosts.ccformat.todos`.

Rules (each decided on the real transcripts in ``tests/fixtures/real/``):

* **Root turns only.** Records with ``isSidechain: true`` are ignored completely
  (hosts.md (Claude Code): 1.x files interleave subagent records inline).
* **What opens a turn** (hosts.md (Claude Code) table and its "practical rule"):

  - a real typed prompt: a ``user`` record, not ``isMeta``, not
    ``isCompactSummary``, without ``tool_result`` blocks, whose text does not start
    with one of :data:`NOT_A_PROMPT` (``opening="prompt"``);
  - a prompt-expanding slash command: a ``<command-name>`` record followed by an
    ``isMeta`` user record with the expanded prompt (``/init``, custom and plugin
    commands, skills such as ``/goal``). The turn's key is the command record's
    uuid; its request is the expanded text, preceded by ``/name args`` only when
    the args do not already appear in the expansion (``opening="slash-command"``);
  - a ``<task-notification>`` prompt (a background task finished, a cron woke the
    session) only when no turn precedes it in the file: it looks like a prompt but
    no user typed it (hosts.md (Claude Code), §1.12), so that turn's request is empty: if
    Todos were used it is ``missing`` ("opened by a background-task notification"),
    else skipped. After a turn, a notification **continues** that turn (the stop
    deferred for the background work is audited when the turn really ends, with the
    user's request; issue 8 item 6).

* **Not turns:** local slash commands (``/clear``, ``/model``, ``/mcp``,
  ``/effort``: a ``<command-name>`` record answered by ``<local-command-stdout>`` and
  no expansion) and ``!cmd`` bash input (``<bash-input>``) run without the agent,
  so they neither open a turn nor belong to one: the turn numbering skips them
  (the 1.0.31 ``example2`` file has 21 turns with ``/clear`` in the middle).
  Stop-hook feedback (``isMeta`` ``"Stop hook feedback:\\n…"``, hosts.md (Claude Code)) and
  Codex-style ``<hook_prompt …>`` texts are never a request: the turn goes on with
  the same key. Compaction summaries never stand in for a request (design.md §3).
* **Mid-turn adjustments** (design.md §3 "the user's adjustments sent during the
  turn"): queued messages delivered to the agent while it works. Per CCLOG
  ``dev-docs/messages.md`` ("User Steering"), a delivery is an ``attachment`` of
  type ``queued_command`` (≳2.1.101, text in ``prompt``) and/or a
  ``queue-operation`` ``remove`` (content ``null`` before ~2.1.205: the text is
  then the oldest ``enqueue``d content). Both are written for one delivery, so they
  are paired by text. ``dequeue`` means the message runs after the turn as the next
  prompt (it then appears as its own record), so it is not an adjustment.
* **User words inside tool results** (design.md §3, issue 10): a rejected tool use or
  plan with feedback (``is_error`` tool_result "The user doesn't want to proceed with
  this tool use … the user said:\n<words>", real 2.1.96 ``ExitPlanMode``) and the
  answers to ``AskUserQuestion`` (``toolUseResult.answers``, real 2.1.39/2.1.179/
  2.1.217) are adjustments: exactly the user's words become a later request
  message. The tool's own text around them, a rejection without feedback and an
  AFK-timeout "answer" (2.1.232, no ``answers``) add nothing.
* **End of a turn** (``Turn.ended``): a turn followed by another opening record has
  ended; the last turn has ended when a ``stop_hook_summary``/``turn_duration``
  record, a slash command or an interrupt follows its last agent record, or when its
  last assistant message has ``stop_reason: "end_turn"``, or (versions that record no
  stop reason, 1.0.x/2.1.38) a null stop reason with text and no ``tool_use``. A
  pending tool result or a ``tool_use`` stop means the agent is still working.
* **Subagent transcripts** (``subagents/agent-*.jsonl``, or every record a
  sidechain, hosts.md (Claude Code)) are one skipped turn: "subagent transcript".
* **Interrupts:** a turn whose last main-thread event is a ``[Request interrupted
  by user…]`` record ``ended_by_interrupt``: skipped (no Stop hook runs then,
  hosts.md (Claude Code)). If the agent goes on after the interrupt in the same turn, the
  turn did not end by it.
* **Todo use:** ``TodoWrite`` (old ``id/priority`` and new ``activeForm`` item
  shapes; the latest call's ``input.todos`` is the list, hosts.md (Claude Code)) and
  ``TaskCreate``/``TaskUpdate``. The task list is per session: it is rebuilt from
  every call in the file (TaskCreate subject -> ``pending`` item whose id comes
  from the paired tool_result ``toolUseResult.task.id`` or the text
  ``Task #N created successfully``; TaskUpdate ``taskId``/``task_id``/``id``,
  ``status``, ``subject``; ``deleted`` drops the item). A ``TaskCreate`` whose id
  already exists ("Task #1 created" while #1 exists) means the host started a fresh
  list (``--resume``/``--continue``): the old tasks are dropped. ``todo_used`` counts only
  calls in this turn; a turn without Todo use carries an empty list.
* **Final answer:** the text blocks of the turn's last assistant message that has
  text (records grouped by ``message.id``: each record carries one block, hosts.md
  §2.3), stripped and joined by blank lines. API-error and ``<synthetic>``
  messages are the host's, not the agent's, and are not answers.
* **Missing opening:** agent work before the first opening record (the file begins
  mid-turn, e.g. after compaction) forms a turn with status ``missing``.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from jev.hosts.ccformat.machine import (
    REASON_SUBAGENT,
    Machine,
    TurnAcc,
    scan,
    scan_accs,
    subagent_turn,
    to_turn,
)
from jev.hosts.ccformat.records import (
    NOT_A_PROMPT,
    classify_user,
    question_answers,
    rejection_feedback,
)
from jev.hosts.ccformat.todos import TodoState
from jev.hosts.turns import LineStats, Turn, iter_records, iter_records_backward, no_turn_error

__all__ = [
    "NOT_A_PROMPT",
    "REASON_SUBAGENT",
    "TodoState",
    "is_subagent_path",
    "question_answers",
    "read_current_turn",
    "read_turns",
    "rejection_feedback",
    "scan",
]


def is_subagent_path(path: Path) -> bool:
    """``…/subagents/agent-*.jsonl``: a subagent's own transcript (hosts.md (Claude Code), §2.6)."""
    return path.parent.name == "subagents" and path.name.startswith("agent-")


def read_turns(path: Path, stats: LineStats | None = None) -> list[Turn]:
    """Read every root turn of a Claude Code transcript, in order (design.md §2, §3).

    Bad lines (half-written, non-UTF-8, not JSON, not objects) are skipped. A
    subagent's transcript (``subagents/agent-*.jsonl``) is one skipped turn.
    ``stats`` (optional) receives the counts of the lines read (lone surrogates
    replaced, bad lines skipped).

    Raises:
        UsageError: the file is missing or unreadable.
    """
    path = Path(path)
    if is_subagent_path(path):
        return [subagent_turn(path.stem)]
    return scan(iter_records(path, stats if stats is not None else LineStats()))


def _is_candidate(rec: dict[str, Any]) -> bool:
    if rec.get("type") != "user" or rec.get("isSidechain") is True:
        return False
    kind, _ = classify_user(rec)
    return kind in ("prompt", "command")


def read_current_turn(path: Path, stats: LineStats | None = None) -> Turn:
    """Read the last root turn, backwards from the end of the file (the Stop hook path).

    Records are read from the end only as far back as the current turn's opening
    record, so a Stop on a huge transcript costs about what its last turn costs.
    Exception (documented): when the turn used ``TaskCreate``/``TaskUpdate`` the
    task list may hold tasks of earlier turns (hosts.md (Claude Code): the list is per
    session), so the whole file is read forwards. The result equals
    ``read_turns(path)[-1]`` with ``number=0``. ``stats`` (optional) receives the
    counts of the lines read.

    Raises:
        UsageError: the file is missing or unreadable.
        MaterialMissing: the transcript holds no turn yet.
    """
    path = Path(path)
    if is_subagent_path(path):
        return replace(subagent_turn(path.stem), number=0)
    if stats is None:
        stats = LineStats()
    collected: list[tuple[int, dict[str, Any]]] = []  # newest first
    accs: list[TurnAcc] | None = None
    for offset, rec in iter_records_backward(path, stats):
        collected.append((offset, rec))
        if _is_candidate(rec):
            trial = scan_accs(reversed(collected))
            if trial and trial[0].offset == offset:
                accs = trial
                break
    if accs is None:
        machine = Machine()
        for offset, rec in reversed(collected):
            machine.feed(offset, rec)
        accs = machine.finish()
        subagent = machine.subagent_turn()
        if subagent is not None:
            return replace(subagent, number=0)
    if not accs:
        raise no_turn_error(path)
    last = accs[-1]
    if last.task_calls:
        whole = LineStats()
        turns = read_turns(path, whole)
        stats.surrogates = whole.surrogates  # what the turn was read from: the whole file
        if not turns:
            raise no_turn_error(path)
        return _renumber(turns[-1])
    return to_turn(last, 0)


def _renumber(turn: Turn) -> Turn:
    return replace(turn, number=0)
