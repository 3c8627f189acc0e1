"""Findings of a simulation as scenarios: the deal, then the fewest moves that still fail the same way.

A finding's moves (from the deal of its match) are minimized by delta debugging (Zeller's ddmin): a
candidate, a subsequence of the moves, is kept when replaying it from the same deal fails with the same
property (or, for an engine error, the same error up to the cards and places it names). A replay judges
the rules' properties after each move, as `baobei check` does, and leaves out a move that is illegal when
its turn comes (a move whose reason was removed before it); what it kept is the next candidate, so every
move of the result is legal where it stands. The scenario written from the result is replayed by the
scenario runner itself before it is kept.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..engine.engine import Engine
from ..engine.move import Move
from ..language.errors import BaoError, EngineError
from ..scenarios.parser import parse_scenario_text
from ..scenarios.runner import RULES_FAILED, check_move, run_scenario
from ..scenarios.write import invariant_expectation
from .dealer import RULES_RUN, Finding
from .explore import move_texts

# The most replays one minimization may make: each replays up to the whole match.
MAX_REPLAYS = 400
# What an engine error's message names that a shorter path may name differently: cards, slots, numbers.
_DETAILS = re.compile(r"[A-Za-z_]+#[0-9]+|\b[A-Za-z_][A-Za-z0-9_]*\.[0-9]+\b|[0-9]+")


@dataclass(frozen=True)
class Minimized:
    finding: Finding
    moves: tuple[Move, ...]
    replays: int
    scenario: str  # the scenario's text ("" when none replays the failure)


def names_of(finding: Finding) -> list[str]:
    return [f"p{i + 1}" for i in range(finding.players)]


def failure_of(eng: Engine, finding: Finding, moves: Sequence[Move]) -> tuple[str, tuple[Move, ...]] | None:
    """Replay `moves` from the finding's deal, leaving out each one that is illegal when its turn comes: the
    failure the replay ends in and the moves it played up to it (all legal), or None when it does not fail."""
    st, _ = eng.new_match(names_of(finding), finding.seed, log=False)
    played: list[Move] = []
    for move in moves:
        if eng.check(st, move) is not None:
            continue
        before = st.copy()
        played.append(move)
        try:
            eng.push_checked(st, move, log=False)
        except EngineError as err:
            return f"{RULES_FAILED}: {err}", tuple(played)
        broken = check_move(eng, before, move, st)
        if broken is not None:
            return broken, tuple(played)
    return None


def same_failure(finding: Finding, message: str) -> bool:
    if finding.label == RULES_RUN:
        return _DETAILS.sub("_", message) == _DETAILS.sub("_", finding.message)
    return message == finding.message


Reduce = Callable[[tuple[Move, ...]], "tuple[Move, ...] | None"]


def ddmin(items: Sequence[Move], reduce: Reduce, budget: int = MAX_REPLAYS) -> tuple[tuple[Move, ...], int]:
    """Delta debugging: a subsequence of `items` that still fails, 1-minimal unless the budget ran out first;
    and how many candidates were tried. `reduce(candidate)` is None when the candidate does not fail the
    same way, else the moves to go on with (the candidate itself, or the part of it a replay played)."""
    current, n, asked = tuple(items), 2, 0
    while len(current) >= 2 and asked < budget:
        size = -(-len(current) // n)
        parts = [current[i:i + size] for i in range(0, len(current), size)]
        found: tuple[tuple[Move, ...], int] | None = None
        for i in range(len(parts)):
            rest = tuple(m for j, part in enumerate(parts) if j != i for m in part)
            for candidate, next_n in ((parts[i], 2), (rest, max(n - 1, 2))) if n > 2 else ((rest, 2),):
                if asked >= budget or found is not None:
                    break
                asked += 1
                kept = reduce(candidate)
                if kept is not None and len(kept) < len(current):
                    found = (kept, next_n)
            if found is not None:
                break
        if found is not None:
            current, n = found
        elif n >= len(current):
            break
        else:
            n = min(len(current), 2 * n)
    return current, asked


def minimize(eng: Engine, finding: Finding, budget: int = MAX_REPLAYS) -> Minimized:
    """The finding's moves minimized, and the scenario that replays them (checked by the scenario runner)."""
    def reduce(moves: tuple[Move, ...]) -> tuple[Move, ...] | None:
        failure = failure_of(eng, finding, moves)
        return failure[1] if failure is not None and same_failure(finding, failure[0]) else None

    moves, replays = tuple(finding.moves), 0
    start = reduce(moves)
    if start is not None:
        moves, replays = ddmin(start, reduce, budget)
    for candidate in (moves, tuple(finding.moves)):
        text = scenario_text(eng, finding, candidate, len(finding.moves))
        if _replays(eng, finding, text):
            return Minimized(finding, candidate, replays, text)
    return Minimized(finding, moves, replays, "")


def _replays(eng: Engine, finding: Finding, text: str) -> bool:
    """Whether the scenario runner, replaying the text, fails the finding's way (a failure of the dealt
    state itself shows as the expectation that evaluates the invariant)."""
    try:
        result = run_scenario(parse_scenario_text(text, "<finding>"), eng)
    except BaoError:
        return False
    if result.failure is None:
        return False
    return not finding.moves or same_failure(finding, result.failure.message)


def scenario_text(eng: Engine, finding: Finding, moves: Sequence[Move], found_after: int) -> str:
    """A scenario that replays the finding: its match's deal (`deal seed`), then the moves."""
    start, _ = eng.new_match(names_of(finding), finding.seed)
    f = finding
    lines = [f"# Written by `baobei simulate`: {f.message}",
             f"# Found in match {f.match} (deal seed {f.seed}), round {f.round}, after {found_after} moves; "
             f"delta debugging kept {len(moves)} of them.",
             "# Replayed with the rules that produced it, the last step fails.",
             f'scenario "Simulate: {f.label} fails in match {f.match}"']
    lines += [f"cites {f.cite}"] if f.cite else []
    lines += ["tags simulate, counterexample", "", f"deal seed {f.seed} players {' '.join(names_of(f))}", "",
              "play", *[f"  {m}" for m in move_texts(eng, start, list(moves))]]
    kind, _, name = f.label.partition(" ")
    if not moves and kind == "invariant":
        lines.append(f"  {invariant_expectation(eng.rules.invariants[name])}")
    return "\n".join(lines) + "\n"


def file_name(finding: Finding) -> str:
    """A file name for the finding's scenario: its property, made of letters, digits and underscores."""
    return re.sub(r"[^A-Za-z0-9]+", "_", finding.label).strip("_") + ".scenario"
