"""Run the transcript evidence step on every turn of real session files (issue 21).

Run with ``python bench/evidence_real_files.py [FOLDER]`` (default ``../shared/real``).
For each file it reads every turn (:func:`jev.hosts.transcript.read_turns`), and for
each turn with material — audited or not, Todo use or not — runs the evidence step
(:func:`jev.evidence.finding.check_runs`) on the turn's runs. It prints per file: turns,
turns with runs, runs, success claims found and turns flagged, then every flag with
its claim, command and quoted line, so a reader can judge each one. Exit 0.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from jev.base.errors import JevError
from jev.evidence.claims import find_claims
from jev.evidence.finding import check_runs
from jev.hosts.transcript import read_turns
from jev.pipeline.material import number


def main() -> int:
    folder = Path(sys.argv[1] if len(sys.argv) > 1 else "../shared/real")
    files = sorted(p for p in folder.rglob("*.jsonl"))
    totals = [0, 0, 0, 0, 0]
    flags: list[str] = []
    started = time.perf_counter()
    for path in files:
        try:
            turns = read_turns(path)
        except JevError as exc:
            print(f"{path.name}: not read ({exc})")
            continue
        row = [len(turns), 0, 0, 0, 0]
        for turn in turns:
            row[1] += bool(turn.runs)
            row[2] += len(turn.runs)
            if turn.material is None:
                continue
            numbering = number(turn.material)
            row[3] += len(find_claims(numbering))
            finding = check_runs(numbering, turn.runs)
            if finding is not None:
                row[4] += 1
                note = finding.note
                flags.append(
                    f"{path.name} turn {turn.number} ({turn.status}): {finding.focus.id} "
                    f"{finding.focus.text[:160]!r}\n    last run {note.command[:160]!r} "
                    f"exit {note.exit_code}: {note.quote!r}"
                )
        totals = [a + b for a, b in zip(totals, row, strict=True)]
        print(
            f"{path.relative_to(folder)}: {row[0]} turns, {row[1]} with runs, {row[2]} runs, "
            f"{row[3]} claims, {row[4]} flagged"
        )
    seconds = time.perf_counter() - started
    print(
        f"all: {len(files)} files, {totals[0]} turns, {totals[1]} with runs, {totals[2]} runs, "
        f"{totals[3]} claims, {totals[4]} flagged ({seconds:.1f} s)"
    )
    for flag in flags:
        print("FLAG " + flag)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
