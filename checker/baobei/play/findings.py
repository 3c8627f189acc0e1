"""Findings of a simulation as scenarios: the deal, then the fewest moves that still fail the same way.

A finding's moves (from the deal of its match) are minimized by delta debugging (Zeller's ddmin): a
candidate, a subsequence of the moves, is kept when replaying it from the same deal fails with the same
property (or, for an engine error, the same error up to the cards and places it names). A replay plays
each move only if it is legal then and judges the rules' properties after each one, as `baobei check`
does; the scenario written from the result is replayed by the scenario runner itself before it is kept.
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


def failure_of(eng: Engine, finding: Finding, moves: Sequence[Move]) -> tuple[str, int] | None:
    """The failure replaying `moves` from the finding's deal ends in, and after how many moves (None: no
    failure, or a move that is illegal when its turn comes, which is no failure of the rules)."""
    st, _ = eng.new_match(names_of(finding), finding.seed, log=False)
    for i, move in enumerate(moves, 1):
        if eng.check(st, move) is not None:
            return None
        before = st.copy()
        try:
            eng.push_checked(st, move, log=False)
        except EngineError as err:
            return f"{RULES_FAILED}: {err}", i
        broken = check_move(eng, before, move, st)
        if broken is not None:
            return broken, i
    return None


def same_failure(finding: Finding, message: str) -> bool:
    if finding.label == RULES_RUN:
        return _DETAILS.sub("_", message) == _DETAILS.sub("_", finding.message)
    return message == finding.message


def ddmin(items: Sequence[Move], fails: Callable[[Sequence[Move]], bool], budget: int = MAX_REPLAYS
          ) -> tuple[tuple[Move, ...], int]:
    """A subsequence of `items` on which `fails` still holds, 1-minimal unless the budget ran out first;
    and how many times `fails` was asked."""
    current, n, asked = tuple(items), 2, 0
    while len(current) >= 2 and asked < budget:
        size = -(-len(current) // n)
        parts = [current[i:i + size] for i in range(0, len(current), size)]
        reduced = False
        for i in range(len(parts)):
            rest = tuple(m for j, part in enumerate(parts) if j != i for m in part)
            for candidate in ((parts[i], rest) if n > 2 else (rest,)):
                if asked >= budget:
                    break
                asked += 1
                if fails(candidate):
                    current, n, reduced = candidate, (2 if candidate is parts[i] else max(n - 1, 2)), True
                    break
            if reduced:
                break
        if not reduced:
            if n >= len(current):
                break
            n = min(len(current), 2 * n)
    return current, asked


def minimize(eng: Engine, finding: Finding, budget: int = MAX_REPLAYS) -> Minimized:
    """The finding's moves minimized, and the scenario that replays them (checked by the scenario runner)."""
    def fails(moves: Sequence[Move]) -> bool:
        failure = failure_of(eng, finding, moves)
        return failure is not None and same_failure(finding, failure[0])

    moves, replays = tuple(finding.moves), 0
    if fails(moves):
        moves, replays = ddmin(moves, fails, budget)
        failure = failure_of(eng, finding, moves)
        moves = moves[:failure[1]] if failure is not None else moves  # nothing after the failing move
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
