"""The situation that tells two versions of the rules apart, written as a scenario and replayed under both.

The scenario is the start's setup (a table, or a seeded deal), the moves that lead to the situation in
the engine's own text (and the draws a scenario named on the way), then what parts the versions: the
move legal under one version only, or the move followed by an expectation that holds under one version
only. It is replayed under both versions (their full decks: a table of the small deck leaves the further
copies out of play); only a scenario that passes under one and fails under the other is kept.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..engine.engine import Engine
from ..engine.move import Move
from ..engine.notation import scenario_move_text
from ..language.errors import BaoError
from ..scenarios import syntax as sc
from ..scenarios.draws import forced
from ..scenarios.parser import parse_scenario_text
from .answers import PASSED, Outcome, replay
from .lockstep import NEW, OLD, Split, call_text, play_calls
from .starts import Start

SCENARIO_NAME = "compare_situation.scenario"
CALLS_END = "end"  # the line that closes a scenario's simultaneous calls
Step = tuple[Move | sc.Simultaneous, tuple[str, ...]]  # a move or calls, with the draws named before them


@dataclass(frozen=True)
class Situation:
    depth: int  # moves from the start before the parting step
    start: str
    kind: str  # legal | rules | property | result | start | deal
    move: str  # the parting move's text ("" when the state itself differs)
    passes: str  # old | new
    does: dict[str, tuple[str, ...]]
    rules: dict[str, tuple[str, ...]]
    scenario: str
    outcomes: dict[str, Outcome]


def path_lines(eng: Engine, start: Start, side: str, steps: list[Step], last: Move | None) -> list[str]:
    """The steps in the engine's text, each read in the state it is made in (on `side`'s engine)."""
    st = (start.old if side == OLD else start.new).copy()
    lines: list[str] = []
    for move, draws in steps:
        if draws:
            lines.append("draws " + ", ".join(draws))
            forced(st).name(list(draws))
        if isinstance(move, sc.Simultaneous):
            lines += ["simultaneous", *(f"  {call_text(c)}" for c in move.calls), CALLS_END]
            after = play_calls(eng, st, move).state
            if after is None:
                raise BaoError("the simultaneous calls cannot be made again")
            st = after
            continue
        lines.append(scenario_move_text(eng.rules.moves, st, move))
        eng.push_checked(st, move, log=False)
    if last is not None:
        lines.append(scenario_move_text(eng.rules.moves, st, last))
    return lines


def scenario_text(labels: dict[str, str], start: str, setup: tuple[str, ...], play: list[str], split: Split,
                  expect: str, cites: tuple[str, ...], depth: int) -> str:
    """The scenario of a split found `depth` moves (before the parting one) from `start`."""
    other = NEW if split.passes == OLD else OLD
    where = f"{depth} moves from {start}" if depth else f"in {start}"
    title = _title(split, play, expect)
    lines = ["# Written by `baobei compare`: a situation in which two versions of the rules part.",
             f"# OLD: {labels[OLD]}", f"# NEW: {labels[NEW]}", f"# Found {where}.",
             f"# It passes under {split.passes.upper()} and fails under {other.upper()}.",
             f'scenario "{title}"', f"cites {', '.join(cites)}", "tags compare", "", *setup, "", "play",
             *[f"  {line}" for line in play]]
    if expect:
        lines.append(f"  expect {expect}")
    return "\n".join(lines) + "\n"


def _title(split: Split, play: list[str], expect: str) -> str:
    side = split.passes.upper()
    if split.kind == "legal":
        text = f"{play[-1]} is legal under {side} only"
    elif split.kind in ("rules", "property"):
        text = f"{play[-1]} works under {side} only"
    elif play and play[-1] == CALLS_END:
        text = f"after the simultaneous calls, {expect} under {side} only"
    elif play:
        text = f"after {play[-1]}, {expect} under {side} only"
    else:
        text = f"{expect} under {side} only"
    return "Compare: " + text.replace('"', "'")


def verify(text: str, old: Engine, new: Engine, passes: str) -> dict[str, Outcome] | None:
    """Both replays when the scenario passes under `passes` and not under the other side; else None."""
    try:
        scenario = parse_scenario_text(text, SCENARIO_NAME)
    except BaoError:
        return None
    outcomes = {OLD: replay(scenario, old), NEW: replay(scenario, new)}
    other = NEW if passes == OLD else OLD
    if outcomes[passes].status == PASSED and outcomes[other].status != PASSED:
        return outcomes
    return None
