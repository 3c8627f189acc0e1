"""The shortest situation that tells two versions of the rules apart: a search with both engines in lock step.

In the order of cost, and keeping the situation with the fewest moves:

1. Whole deals of the rules' decks for every player count: a deal that differs is found before any move.
2. Every scenario's own moves, followed in lock step from its table, and again from the tables at the
   changed boundaries (perturb.py); at every step the legal moves are compared, then the results of the
   scenario's move. This reaches the states the scenarios were written to reach, however deep.
3. Breadth first from seeded deals (small deck, `depth` moves) and from every scenario table
   (`table_depth` moves), all starts advancing together one depth at a time, over every legal move, pairs
   of states reached before followed once, at most `max_states` pairs.

4. Z3's bounded model checking over the two transition relations side by side (proofs/pair.py), up to
   `bmc_depth` moves, or fewer than the situation found so far: where the searches above see the deals and
   tables they are given, Z3 sees every deal of the small deck at once, so it finds a parting move that
   only some deals allow (the legal moves only; results are the engines'). Each path Z3 gives is followed
   by both engines like a scenario's moves and kept only where they part.

Each split found is written as a scenario and replayed under both versions (situation.py); the first that
passes under one and fails under the other, with the fewest moves, is the answer.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..engine.engine import Engine
from ..engine.move import Move
from ..engine.state import State
from ..language.errors import BaoError
from ..scenarios import syntax as sc
from ..scenarios.setup import to_move
from ..scenarios.write import table_lines
from .changes import RuleChanges, legality_reached, reached
from .lockstep import (
    NEW,
    OLD,
    Split,
    Twin,
    call_text,
    calls_split,
    iter_splits,
    legal,
    legal_split,
    play,
    play_calls,
    result_split,
    start_split,
)
from .perturb import about_changes, perturbed_tables
from .situation import Situation, Step, path_lines, scenario_text, verify
from .starts import DEAL, DealCheck, Start, common_small_decks, deal_checks, deal_starts, scenario_start

if TYPE_CHECKING:  # imported when Z3 is asked for (it loads z3): the other searches start without it
    from ..proofs.pair import PairPath, PairReport

# The steps from the start, newest last: a move or simultaneous calls, with the draws named before it.
Trace = tuple["Trace | None", Move | sc.Simultaneous, tuple[str, ...]] | None
EXPECTS_TRIED = 3  # expectation lines tried per split before the next split
CHANGED_CITES = 3  # citations of changed declarations a written scenario adds to those of its parting step
SPLIT_CITES = 3  # ... and of the rules that acted differently there (the first ones: the move's own first)


@dataclass(frozen=True)
class SearchOptions:
    players: int
    seed: int
    deals: int
    depth: int  # moves after a deal
    table_depth: int  # moves after a scenario's table
    max_states: int
    bmc_depth: int = 0  # moves Z3's search over the two relations unrolls (0: none)
    bmc_seconds: float = 60.0


@dataclass
class SearchReport:
    situation: Situation | None = None
    starts: dict[str, int] = field(default_factory=dict)  # deals, scenario tables, boundary tables
    pairs: int = 0  # pairs of states compared
    levels: dict[str, int] = field(default_factory=dict)  # per breadth-first search: the depth it completed
    truncated: bool = False  # a breadth-first search stopped at max_states
    splits: int = 0  # situations found that parted the versions
    unwritten: int = 0  # ... of which no scenario replayed as found (the first that did is the answer)
    seconds: float = 0.0
    bmc: PairReport | None = None  # Z3 over the two relations (None: not run)


@dataclass
class Budget:
    """Pairs of states a breadth-first search may still add."""

    left: int

    @property
    def spent(self) -> bool:
        return self.left <= 0

    def take(self) -> bool:
        """Count one pair; whether the budget is spent now."""
        self.left -= 1
        return self.spent


@dataclass
class Node:
    start: Start
    old: State
    new: State
    trace: Trace
    depth: int


@dataclass(frozen=True)
class Candidate:
    depth: int  # moves from the start before the parting step
    start: Start
    trace: Trace  # those moves (and, for simultaneous calls that part the versions, the calls)
    split: Split
    draws: tuple[str, ...] = ()  # draws the scenario named before the parting move


class Search:
    def __init__(self, old: Engine, new: Engine, labels: dict[str, str], changes: RuleChanges,
                 options: SearchOptions) -> None:
        self.reached = reached(old.rules, new.rules, changes)
        self.legality = legality_reached(old.rules, new.rules, changes)
        self.full = Twin(old, new, self.legality, self.reached)
        self.labels = labels
        self.changes = changes
        self.options = options
        self.report = SearchReport()
        self.seen: set[tuple[int, int]] = set()
        # The changed rules' own places, cited by every scenario written (a few: the first changes); a
        # scenario cites the rulebook, so one that finds nothing else to cite names the player count's rule.
        self.changed_cites = tuple(dict.fromkeys(c.cite for c in changes.changes if c.cite))[:CHANGED_CITES] \
            or (str(old.rules.players_cite),)

    # ------------------------------------------------------------ the run
    def run(self, scenarios: list[sc.Scenario]) -> SearchReport:
        began = time.perf_counter()
        self.report.situation = self._deals() or self._search(scenarios)
        self.report.seconds = time.perf_counter() - began
        return self.report

    def _search(self, scenarios: list[sc.Scenario]) -> Situation | None:
        tables = self._scenario_starts(scenarios)
        boundary = self._boundary_starts(scenarios)
        deals = self._deal_starts()
        self.report.starts = {"scenario tables": len(tables), "boundary tables": len(boundary),
                              "deals": len(deals)}
        best = self._first_written(self._at_starts([*tables, *boundary, *deals]))
        followed = [c for s in [*tables, *boundary] for c in self._follow(s)]
        best = self._shorter(best, self._first_written(sorted(followed, key=lambda c: c.depth)))
        searches = (("scenario tables", [*tables, *boundary], self.options.table_depth),
                    ("deals", deals, self.options.depth))
        for name, starts, depth in searches:
            limit = min(depth, best.depth) if best is not None else depth  # only a shorter one is wanted
            if starts and limit > 0:
                best = self._shorter(best, self._breadth_first(name, starts, limit))
        return self._shorter(best, self._bmc(best))

    # ------------------------------------------------------------ 4. Z3 over the two relations
    def _bmc(self, best: Situation | None) -> Situation | None:
        """Z3's paths to a parting move over every deal, fewer moves than `best` (see the module's doc)."""
        o = self.options
        limit = o.bmc_depth if best is None else min(o.bmc_depth, best.depth - 1)
        if o.bmc_depth <= 0 or limit < 0:
            return None
        from ..proofs.pair import PairReport, parting_paths

        self.report.bmc = report = PairReport()
        decks = common_small_decks(self.full.old.rules, self.full.new.rules, o.players)
        if decks is None:
            report.reason = "the two versions have different species: no common small deck"
            return None
        try:
            twin = Twin(Engine(decks[0]), Engine(decks[1]), self.legality, self.reached)
        except BaoError as err:
            report.reason = str(err)
            return None
        written: list[Situation] = []

        def confirmed(path: PairPath) -> bool:
            found = self._follow_path(twin, path)
            written.extend([found] if found is not None else [])
            return found is not None

        next(parting_paths(decks[0], decks[1], o.players, limit, o.bmc_seconds, confirmed, report), None)
        return written[0] if written else None

    def _follow_path(self, twin: Twin, path: PairPath) -> Situation | None:
        """Z3's path followed by both engines from its deal; the first split they find, written."""
        label = f"a deal Z3 chose ({self.options.players} players, small deck)"
        try:
            setup = tuple(table_lines(twin.old, path.old_start))
        except BaoError:
            return None
        start = Start(label, setup, twin, path.old_start.copy(), path.new_start.copy(), kind=DEAL)
        node = Node(start, start.old, start.new, None, 0)
        for move, cards in path.steps:
            draws = tuple(twin.old.facts.species[c] for c in cards)
            found, child = self._step_move(node, move, draws)
            if found or child is None:
                return self._first_written(found)
            node = child
        found, _ = self._step_move(node, path.parting, ())
        return self._first_written(found)

    @staticmethod
    def _shorter(a: Situation | None, b: Situation | None) -> Situation | None:
        if a is None or (b is not None and b.depth < a.depth):
            return b
        return a

    # ------------------------------------------------------------ starts
    def _scenario_starts(self, scenarios: list[sc.Scenario]) -> list[Start]:
        return [s for s in (scenario_start(self.full, scenario) for scenario in scenarios) if s is not None]

    def _boundary_starts(self, scenarios: list[sc.Scenario]) -> list[Start]:
        out = []
        for scenario in scenarios:
            if not isinstance(scenario.setup, sc.Table) or not about_changes(scenario, self.changes):
                continue
            for table, words in perturbed_tables(scenario.setup, self.changes, self.full.new.rules):
                start = scenario_start(self.full, scenario, table, words)
                if start is not None:
                    out.append(start)
        return out

    def _deal_starts(self) -> list[Start]:
        o = self.options
        decks = common_small_decks(self.full.old.rules, self.full.new.rules, o.players)
        if decks is None or o.depth == 0:
            return []
        try:
            twin = Twin(Engine(decks[0]), Engine(decks[1]), self.legality, self.reached)
        except BaoError:
            return []
        return list(deal_starts(twin, o.players, o.seed, o.deals))

    # ------------------------------------------------------------ 1. whole deals
    def _deals(self) -> Situation | None:
        o = self.options
        for check in deal_checks(self.full.old, self.full.new, o.seed, o.deals):
            split = self._deal_split(check)
            if split is None:
                continue
            self.report.splits += 1
            setup = (f"deal seed {check.seed} players {' '.join(check.names)}",)
            where = f"the deal of seed {check.seed} for {len(check.names)} players"
            found = self._write(where, setup, [], split, 0)
            if found is not None:
                return found
        return None

    def _deal_split(self, check: DealCheck) -> Split | None:
        if check.old is not None and check.new is not None:
            split = start_split(self.full, check.old, check.new)
            return None if split is None else Split("dealt", None, split.passes, split.does, split.rules, (),
                                                    split.expects)
        passes = OLD if check.old is not None else NEW
        dealt = check.old if check.old is not None else check.new
        assert dealt is not None
        line = f"active {dealt.names[dealt.active]}"
        return Split("dealt", None, passes, {passes: ("deals the round",), NEW if passes == OLD else OLD:
                                            (f"refused: {check.refusal}",)}, {OLD: (), NEW: ()}, (), (line,))

    # ------------------------------------------------------------ 2. the scenarios' own moves
    def _at_starts(self, starts: list[Start]) -> list[Candidate]:
        out = []
        for start in starts:
            split = start_split(start.twin, start.old, start.new)
            if split is not None:
                out.append(Candidate(0, start, None, split))
        return out

    def _follow(self, start: Start) -> Iterator[Candidate]:
        """Along the scenario's moves: the legal moves compared at every step, then the move's results."""
        node = Node(start, start.old, start.new, None, 0)
        draws: tuple[str, ...] = ()
        for step in start.path:
            if isinstance(step, sc.Draws):
                draws += step.cards
                continue
            found, child = self._calls(node, step, draws) if isinstance(step, sc.Simultaneous) \
                else self._step(node, step, draws)
            yield from found
            if child is None:
                return
            node, draws = child, ()

    def _step(self, node: Node, step: sc.DoMove, draws: tuple[str, ...]) -> tuple[list[Candidate], Node | None]:
        try:
            move: Move | None = to_move(node.start.twin.old, node.old, step.player, step.move, step.args, step.pos)
        except BaoError:
            move = None  # the legal moves are still compared; the path ends there
        return self._step_move(node, move, draws)

    def _step_move(self, node: Node, move: Move | None, draws: tuple[str, ...],
                   ) -> tuple[list[Candidate], Node | None]:
        """At a node: the legal moves compared, then `move` made in both versions and its results compared;
        the candidates found and the node after the move (None where the path ends)."""
        twin, a, b = node.start.twin, node.old, node.new
        la, lb = legal(twin.old, a, twin.moves), legal(twin.new, b, twin.moves)
        if isinstance(la, str) or isinstance(lb, str):
            return [], None
        self.report.pairs += 1
        set_a, set_b = set(la), set(lb)
        found = [self._candidate(node, legal_split(twin, a, b, m, OLD)) for m in la if m not in set_b]
        found += [self._candidate(node, legal_split(twin, a, b, m, NEW)) for m in lb if m not in set_a]
        if move is None:
            return found, None
        refused = {OLD: twin.old.check(a, move) is not None, NEW: twin.new.check(b, move) is not None}
        if refused[OLD] != refused[NEW] and move not in set_a | set_b:  # a move the listed ones left out
            found.append(self._candidate(node, legal_split(twin, a, b, move, NEW if refused[OLD] else OLD)))
        if refused[OLD] or refused[NEW]:
            return found, None  # the scenario's path ends here (or a table moved off it)
        ra, rb = play(twin.old, a, move, draws, twin.judge), play(twin.new, b, move, draws, twin.judge)
        split = result_split(twin, a, b, move, ra, rb)
        if split is not None or ra.state is None or rb.state is None or ra.broken:
            return found + ([self._candidate(node, split, draws)] if split is not None else []), None
        return found, Node(node.start, ra.state, rb.state, (node.trace, move, draws), node.depth + 1)

    def _calls(self, node: Node, step: sc.Simultaneous, draws: tuple[str, ...]) -> tuple[list[Candidate], Node | None]:
        """Simultaneous calls, each version making them in the order it declares."""
        twin = node.start.twin
        ra, rb = play_calls(twin.old, node.old, step, draws), play_calls(twin.new, node.new, step, draws)
        self.report.pairs += 1
        split = calls_split(twin, ra, rb)
        if split is not None:
            return [Candidate(node.depth, node.start, (node.trace, step, draws), split)], None
        if ra.state is None or rb.state is None:
            return [], None
        return [], Node(node.start, ra.state, rb.state, (node.trace, step, draws), node.depth + 1)

    @staticmethod
    def _candidate(node: Node, split: Split, draws: tuple[str, ...] = ()) -> Candidate:
        """A split at a node: its move is the next one; the draws a scenario named go with that move."""
        return Candidate(node.depth, node.start, node.trace, split, draws)

    # ------------------------------------------------------------ 3. breadth first
    def _breadth_first(self, name: str, starts: list[Start], limit: int) -> Situation | None:
        """Level by level from every start together, at most `max_states` pairs (each call its own budget)."""
        frontier = [Node(s, s.old, s.new, None, 0) for s in starts]
        for node in frontier:
            self.seen.add(node.start.twin.key(node.old, node.new))
        budget = Budget(self.options.max_states)
        level = 0
        self.report.levels[name] = 0
        while frontier and level < limit and not budget.spent:
            level += 1
            found, frontier = self._level(frontier, level, budget)
            best = self._first_written(found)
            if best is not None:
                return best
            self.report.levels[name] = level if not budget.spent else level - 1
        self.report.truncated |= budget.spent
        return None

    def _level(self, frontier: list[Node], level: int, budget: Budget) -> tuple[list[Candidate], list[Node]]:
        found: list[Candidate] = []
        out: list[Node] = []
        for node in frontier:
            for item in iter_splits(node.start.twin, node.old, node.new):
                if isinstance(item, Split):
                    found.append(Candidate(node.depth, node.start, node.trace, item))
                    continue
                move, a, b = item
                key = node.start.twin.key(a, b)
                if key in self.seen:
                    continue
                self.seen.add(key)
                self.report.pairs += 1
                out.append(Node(node.start, a, b, (node.trace, move, ()), level))
                if budget.take():
                    return found, out
        return found, out

    # ------------------------------------------------------------ writing
    def _first_written(self, candidates: list[Candidate]) -> Situation | None:
        for candidate in candidates:
            self.report.splits += 1
            found = self._write(candidate.start.label, candidate.start.setup, unwind(candidate.trace),
                                candidate.split, candidate.depth, candidate.start, candidate.draws)
            if found is not None:
                return found
        return None

    def _write(self, where: str, setup: tuple[str, ...], steps: list[Step], split: Split, depth: int,
               start: Start | None = None, draws: tuple[str, ...] = ()) -> Situation | None:
        side = split.passes
        try:
            play_lines = [] if start is None else path_lines(start.twin.engine(side), start, side, steps,
                                                             split.move)
        except BaoError:
            self.report.unwritten += 1
            return None
        if draws and split.move is not None:
            play_lines.insert(len(play_lines) - 1, "draws " + ", ".join(draws))
        cites = tuple(dict.fromkeys([*split.cites[:SPLIT_CITES], *self.changed_cites]))
        for expect in (split.expects[:EXPECTS_TRIED] or ("",)):
            text = scenario_text(self.labels, where, setup, play_lines, split, expect, cites, depth)
            outcomes = verify(text, self.full.old, self.full.new, side)
            if outcomes is not None:
                move = play_lines[-1] if split.move is not None else _calls_text(steps)
                return Situation(depth, where, split.kind, move, side, split.does, split.rules, text, outcomes)
        self.report.unwritten += 1
        return None


def _calls_text(steps: list[Step]) -> str:
    """The simultaneous calls that part the versions, when they are the last step ("" otherwise)."""
    last = steps[-1][0] if steps else None
    if not isinstance(last, sc.Simultaneous):
        return ""
    return "simultaneous: " + "; ".join(call_text(c) for c in last.calls)


def unwind(trace: Trace) -> list[Step]:
    steps: list[Step] = []
    while trace is not None:
        trace, move, draws = trace
        steps.append((move, draws))
    return steps[::-1]


def distinguish(old: Engine, new: Engine, labels: dict[str, str], changes: RuleChanges, scenarios: list[sc.Scenario],
                options: SearchOptions) -> SearchReport:
    """The shortest situation found that tells OLD and NEW apart (see the module's doc), and how far it looked."""
    return Search(old, new, labels, changes, options).run(scenarios)

