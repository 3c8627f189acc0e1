"""`baobei explore`: an explicit-state breadth-first model checker over the engine's own legal moves.

The cross-check of the Z3 bounded model checker, built on nothing but the engine: every state
it judges is one the engine reached by `legal_moves` and a move, every property is evaluated by
the engine's compiled rules.

- Deals: K seeded deals (`Engine.new_match` with the seeds S to S+K-1), on the small deck of
  language/small_deck.py (one card of every species, and copies until a few cards are left to
  draw), or on the full deck. After the deal the state's generator is seeded afresh with the deal's
  seed, so that the chance left in the round (the order of a recycle) is the one the emitted
  scenario's `seed` line gives.
- Search: breadth first over `Engine.legal_moves`, out-of-turn moves included; the depth is the
  number of moves since the deal, and all deals advance together one depth at a time, so the first
  failure found has the fewest moves over all deals. A round is the unit: a state in which a halt
  of the rules holds (the round or the match is over) is expanded only by the moves the halt allows
  (the next deal), so that those moves are judged too (who starts the next round, who is dealt in);
  the states they reach are judged, never expanded.
- States: each is hashed by a key of everything that can change what happens next: tableaux,
  piles, hands, the active player, the phase, the variables, open windows, waiting abilities,
  marks, the cards out of play, who is seated, the protection mask, the round, the generator's
  state, the turn counter when the rules read it, and knowledge where it can matter. States with
  one key are one state (its moves are followed once). The key is a 64-bit hash: two different
  states merge only by a hash collision, with odds of about (states²) / 2⁶⁴.
- Knowledge: when the rules read who knows a card (`knows`) only in moves of some phases (the
  default rules: the initial peek), knowledge is part of the key in those phases only, so rounds
  that differ only in what the peek or a shown card revealed are followed once. Exact as long as
  the round never enters such a phase again once it has left it. If a move does, a failure found is
  still real (its moves replay it), but when none is found the search starts over with knowledge in
  every key.
- Properties that read knowledge themselves (`knows` in an invariant or progress property): with them,
  knowledge must be part of every key, and a search from a deal grows hundreds of times. `explore`
  therefore leaves them out by default, listed as left out in its report, and judges them with
  `knowledge=True` (`--knowledge`): every property then, knowledge in every key, fewer depths within the
  same number of states. A search from given tables (explore_from) judges every property.
- Properties: the deal and every new state are judged against every state invariant and every
  progress property; every move, also one into a known state, against every transition invariant
  (over the state before the move and the state after it has settled). A legal move the engine
  cannot carry out (an engine error: a rule covering a card, overfilling a hand) fails too.
- Stop: at the end of the depth at which a first failure is found, at the depth asked for, or at
  `max_states` new states. A failure comes with the moves from the deal, in the engine's move text.
- Memory: every state reached is remembered (its key), and the states of a depth and the next are held
  whole, so a search needs up to STATE_BYTES a state. `check_state_budget` refuses a limit of more states
  than the memory available holds (the command calls it before it searches); without a limit, the search
  stops at as many states as it holds (reported as stopped there), rather than being killed when the
  machine runs out of memory.
"""

from __future__ import annotations

import dataclasses
import os
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ..engine.engine import Engine, invariant_message, progress_message
from ..engine.incremental import Idle, IncrementalJudge
from ..engine.move import Move
from ..engine.notation import scenario_move_text
from ..engine.reads import changed_parts
from ..engine.state import State
from ..language import syntax as s
from ..language.errors import BaoError, EngineError
from ..language.ruleset import Ruleset
from ..language.small_deck import describe, small_deck
from ..language.walk import called, exprs_of, free_names
from ..scenarios.runner import RULES_FAILED
from ..scenarios.write import invariant_expectation, table_lines

NAMES = ("alice", "bob", "carol", "dave", "erin", "frank", "gina", "hugo")
# The name of the turn counter among the rules' state names (states differ in it only if it is read).
TURN = "turn"
# The pseudo-property of a legal move the engine cannot carry out.
RULES_RUN = "rules"
# The one builtin that reads knowledge (who has seen which card).
KNOWS = "knows"
Trace = tuple["Trace | None", Move] | None  # the moves from the deal, newest last, shared between states
# Bytes a search needs per state at most: its key among the states seen, the state held whole in a depth's
# list, and its move in the traces. Measured as the growth of the peak resident memory per state between
# two searches (of 10^4 and 4·10^4 states; 2·10^4 and 10^5 for 2 players): 2.4 KB for 2 players on the
# small deck, 3.5 KB for 3, 4.0 KB for 4 players on the full deck; the largest.
STATE_BYTES = 4_000
# The share of the available memory a search may plan to fill: the interpreter, the compiled rules and
# the allocator's slack need the rest.
MEMORY_SHARE = 0.8


@dataclass
class Failure:
    """The first failure of one property: where, why, and the way there."""

    label: str  # "invariant NAME", "progress NAME" or RULES_RUN
    message: str  # as a scenario replay reports it
    cite: str  # the property's citation (for RULES_RUN, the failing move's rule)
    depth: int
    seed: int
    table: list[str]  # the dealt state as a scenario's table
    moves: list[str]  # the engine's text of each move from the deal, the failing one last
    # A replay judges the properties after moves only: a failure of the dealt state itself is shown by
    # an expectation that evaluates the invariant (a progress failure there cannot be shown).
    expectation: str = ""
    unwritable: str = ""  # why the dealt state cannot be written as a table (then `table` is empty)
    start: str = ""  # where the search began when not from a deal ("the table of FILE")


@dataclass
class Report:
    players: int
    deck: str
    seed: int
    deals: int
    depth: int  # asked for
    labels: list[str]  # every property, in declaration order
    per_depth: list[int] = field(default_factory=list)  # new states first reached at each depth
    moves: int = 0  # moves applied
    seconds: float = 0.0
    complete: int = -1  # the deepest depth explored completely
    exhausted: bool = False  # no state was left to expand: every reachable state of the round was judged
    truncated: bool = False  # stopped by max_states in the middle of a depth
    knowledge_merged: bool = False  # knowledge was part of the key only in the phases that read it
    returned: bool = False  # ... and a move entered such a phase again: `holds` would not be exact
    failures: dict[str, Failure] = field(default_factory=dict)
    start: str = ""  # where the search began when not from deals (explore_from)
    left_out: list[str] = field(default_factory=list)  # properties not judged: they read knowledge
    with_knowledge: bool = False  # asked to keep knowledge in every key (explore's `knowledge`)

    @property
    def states(self) -> int:
        return sum(self.per_depth)

    @property
    def states_per_second(self) -> float:
        return self.states / self.seconds if self.seconds else 0.0

    @property
    def moves_per_second(self) -> float:
        return self.moves / self.seconds if self.seconds else 0.0

    def first_failure(self) -> Failure | None:
        """The failure with the fewest moves; among those, the property a replay judges first."""
        found = [self.failures[label] for label in [RULES_RUN, *self.labels] if label in self.failures]
        return min(found, key=lambda f: f.depth) if found else None


def property_labels(rules: Ruleset) -> list[str]:
    """Every property, in the order a scenario replay judges them after a move: state invariants,
    transition invariants, progress (so that the first failure is the one a replay of it names)."""
    invariants = list(rules.invariants.values())
    return ([f"invariant {i.ident}" for i in invariants if not i.two_state]
            + [f"invariant {i.ident}" for i in invariants if i.two_state]
            + [f"progress {p}" for p in rules.progress])


def available_memory() -> int:
    """The bytes of memory a new search may take: what the kernel reports as available (MemAvailable),
    else the machine's physical memory."""
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024  # in kB
    except OSError:
        pass
    return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")


def states_that_fit(memory: int | None = None) -> int:
    """How many states a search may hold in `memory` bytes (default: what the machine has available now)."""
    available = available_memory() if memory is None else memory
    return max(1, int(available * MEMORY_SHARE) // STATE_BYTES)


def check_state_budget(max_states: int | None, memory: int | None = None, option: str = "--max-states") -> int:
    """The state limit a search runs with: `max_states`, refused when its states would not fit in memory
    (a BaoError naming the `option` that asked for it); without one, as many as fit. For a command to call
    before it searches: the search functions refuse nothing (a limit worked out from the memory available
    a moment ago must not be refused now that a little less is), they only fill in a missing limit."""
    available = available_memory() if memory is None else memory
    fits = states_that_fit(available)
    if max_states is None:
        return fits
    if max_states <= fits:
        return max_states
    usable = int(available * MEMORY_SHARE)
    raise BaoError(f"{option} {max_states:,}: a search of that many states needs about "
                   f"{_gigabytes(max_states * STATE_BYTES)} of memory ({STATE_BYTES:,} bytes a state), more "
                   f"than the {_gigabytes(usable)} it may take ({MEMORY_SHARE:.0%} of the "
                   f"{_gigabytes(available)} available): at most {fits:,} states fit")


def _gigabytes(n: float) -> str:
    return f"{n / 2 ** 30:,.1f} GB"


def explore_from(rules: Ruleset, start: State, seed: int, depth: int, max_states: int | None = None,
                 where: str = "the given table") -> Report:
    """Search breadth first from one given state (a scenario's table, with the rules' full deck) instead of
    deals: the way to reach what lies too deep after a deal (the final phase needs two recycles)."""
    if depth < 0 or (max_states is not None and max_states < 1):
        raise BaoError("explore needs a depth of at least 0 and a positive state limit")
    limit = states_that_fit() if max_states is None else max_states  # none: stop where the memory ends
    return search_from(Engine(rules), start, seed, depth, limit, where)


def search_from(eng: Engine, start: State, seed: int, depth: int, max_states: int | None, where: str) -> Report:
    """explore_from with an engine already compiled (verify searches from many tables with one)."""
    rules = eng.rules
    report = Report(len(start.names), describe(rules), seed, 1, depth, property_labels(rules), start=where)
    search = Search(eng, report, max_states, None)
    search.given = start
    return search.run()


def explore(rules: Ruleset, players: int, depth: int, deals: int = 1, seed: int = 1, full_deck: bool = False,
            max_states: int | None = None, knowledge: bool = False) -> Report:
    """Search breadth first from `deals` seeded deals, `depth` moves deep at most (see the module's doc).
    `knowledge`: also judge the properties that read who knows a card (else left out, see the module's doc)."""
    if depth < 0 or deals < 1 or (max_states is not None and max_states < 1):
        raise BaoError("explore needs a depth of at least 0, at least one deal and a positive state limit")
    if not 1 <= players <= len(NAMES):
        raise BaoError(f"{players} players: explore names at most {len(NAMES)}")
    if max_states is None:  # stop where the memory ends rather than be killed there
        max_states = states_that_fit()
    left_out = [] if knowledge else knowing_properties(rules)
    judged = without_properties(rules, frozenset(left_out))
    played = judged if full_deck else small_deck(judged, players)
    eng = Engine(played)

    def fresh() -> Report:
        labels = property_labels(judged)
        return Report(players, describe(played), seed, deals, depth, labels, with_knowledge=knowledge,
                      left_out=[label for label in property_labels(rules) if label not in labels])

    report = Search(eng, fresh(), max_states, knowledge_phases(eng)).run()
    if report.returned and not report.failures:
        # A move entered a phase that reads knowledge again, so merged states may have had other futures:
        # a failure found is real (its moves replay it), but `holds` needs the search without merging.
        report = Search(eng, fresh(), max_states, None).run()
    return report


def knowing_properties(rules: Ruleset) -> list[str]:
    """The invariants and progress properties that read who knows a card, directly or through a definition."""
    readers = _knowledge_readers(rules)

    def reads(e: s.Expr | None) -> bool:
        return e is not None and bool((called(e) | free_names(e)) & readers)

    names = [i.ident for i in rules.invariants.values() if reads(i.when) or reads(i.holds)]
    return names + [p.ident for p in rules.progress.values() if reads(p.when)]


def without_properties(rules: Ruleset, names: frozenset[str]) -> Ruleset:
    """The rules with the named properties left out (the same game: only what is judged differs)."""
    if not names:
        return rules
    return dataclasses.replace(
        rules, invariants={k: v for k, v in rules.invariants.items() if k not in names},
        progress={k: v for k, v in rules.progress.items() if k not in names})


class Search:
    """One breadth-first search, level by level, filling its report."""

    def __init__(self, eng: Engine, report: Report, max_states: int | None,
                 knowing: frozenset[str] | None) -> None:
        self.eng = eng
        self.report = report
        self.max_states = max_states
        self.with_turn = reads_name(eng.rules, TURN)
        self.knowing = knowing  # the phases in which knowledge is part of the key (None: in all)
        self.seen: set[int] = set()
        self.starts: list[State] = []
        self.given: State | None = None  # a state to start from instead of the deals (explore_from)
        # The invariants are judged where a move can have changed their verdict: a new state's state invariants
        # from its parent's verdicts, a move's transition invariants from the verdicts over the other moves of
        # its parent that changed none of what they read (engine/incremental.py).
        self.judge = IncrementalJudge(eng)
        self.broken: dict[int, frozenset[str]] = {}  # by id, the states of the frontier that broke an invariant

    def key(self, st: State) -> int:
        knowing = self.knowing
        return state_key(st, self.with_turn, knowing is None or st.phase in knowing)

    def run(self) -> Report:
        began = time.perf_counter()
        frontier = self._deal()
        level = 0
        while frontier and level < self.report.depth and not self.report.failures and not self.report.truncated:
            level += 1
            frontier = self._level(frontier, level)
        self.report.complete = level - 1 if self.report.truncated else level
        self.report.exhausted = not frontier and not self.report.truncated
        self.report.seconds = time.perf_counter() - began
        self.report.knowledge_merged = self.knowing is not None
        return self.report

    def _deal(self) -> list[tuple[State, int, Trace]]:
        r = self.report
        names = list(NAMES[:r.players])
        frontier: list[tuple[State, int, Trace]] = []
        r.per_depth.append(0)
        if self.given is not None:
            st = self.given.copy()
            self.starts.append(st.copy())
            return [(st, 0, None)] if self._new(st, self.key(st), 0, None, 0) else []
        for deal in range(r.deals):
            if r.truncated:  # the state budget is spent: the deals left would only be dealt and dropped
                break
            st, _ = self.eng.new_match(names, r.seed + deal, log=False)
            st.rng.seed(r.seed + deal)  # the chance left in the round is what a scenario's `seed` line gives
            self.starts.append(st.copy())
            if self._new(st, self.key(st), deal, None, 0):
                frontier.append((st, deal, None))
        return frontier

    def _level(self, frontier: list[tuple[State, int, Trace]], level: int) -> list[tuple[State, int, Trace]]:
        self.report.per_depth.append(0)
        out: list[tuple[State, int, Trace]] = []
        parents, self.broken = self.broken, {}
        for st, deal, trace in frontier:
            judged: set[tuple[int, int]] = set()  # (state reached, mover): a transition is judged once
            idle: Idle = {}  # the transition verdicts over this state's moves that changed nothing they read
            broken = parents.get(id(st), frozenset())
            # A halted state's moves (the next deal) leave the round: what they reach is judged, not expanded.
            leaves = self.eng.halt(st) is not None
            for move in list(self.eng.legal_moves(st)):
                child = self._follow(st, move, deal, trace, level, leaves)
                if child is None:
                    continue
                key = self.key(child)
                if (key, move.player) in judged:
                    continue
                judged.add((key, move.player))
                changed = changed_parts(st, child)
                self._judge_move(st, move, child, (changed, idle), deal, (trace, move), level)
                if self._new(child, key, deal, (trace, move), level, (st, broken, changed)) and not leaves:
                    out.append((child, deal, (trace, move)))
                if self.report.truncated:
                    return out
        return out

    def _follow(self, st: State, move: Move, deal: int, trace: Trace, level: int, leaves: bool = False
                ) -> State | None:
        """The state after a legal move; None when the engine cannot make it (a failure of the rules). `leaves`:
        the move leaves the round (a deal), so the phase it reaches is not one the round enters again."""
        child = st.copy()
        self.report.moves += 1
        try:
            self.eng.push_generated(child, move)
        except EngineError as err:
            self._fail(RULES_RUN, f"{RULES_FAILED}: {err}", deal, (trace, move), level)
            return None
        knowing = self.knowing
        if knowing is not None and not leaves and st.phase not in knowing and child.phase in knowing:
            self.report.returned = True
        return child

    def _judge_move(self, st: State, move: Move, child: State, seen: tuple[set[str], Idle], deal: int,
                    trace: Trace, level: int) -> None:
        """The transition invariants of a move; `seen`: what it changed, and the verdicts kept for its parent."""
        changed, idle = seen
        for inv in self.judge.transitions_after(st, child, move, changed, idle):
            self._fail(f"invariant {inv.ident}", invariant_message(inv), deal, trace, level)

    def _new(self, st: State, key: int, deal: int, trace: Trace, level: int,
             parent: tuple[State, frozenset[str], set[str]] | None = None) -> bool:
        """Judge a state first reached now; whether it is new (to be expanded, unless the move that reached it
        left the round). `parent`: the state it was reached from, the state invariants that one broke, and what
        the move changed (None: a start)."""
        if key in self.seen:
            return False
        self.seen.add(key)
        self.report.per_depth[level] += 1
        if parent is None:
            broken = list(self.eng.broken_invariants(st))
        else:
            before, broken_before, changed = parent
            broken = self.judge.states_after(before, broken_before, st, changed)
        if broken:
            self.broken[id(st)] = frozenset(inv.ident for inv in broken)
        for inv in broken:
            self._fail(f"invariant {inv.ident}", invariant_message(inv), deal, trace, level)
        for decl in self.eng.deadlocks(st):
            self._fail(f"progress {decl.ident}", progress_message(decl), deal, trace, level)
        if self.max_states is not None and self.report.states >= self.max_states:
            self.report.truncated = True
        return True

    def _fail(self, label: str, message: str, deal: int, trace: Trace, level: int) -> None:
        if label in self.report.failures:
            return
        start, seed = self.starts[deal], self.report.seed + deal
        kind, _, name = label.partition(" ")
        expectation = invariant_expectation(self.eng.rules.invariants[name]) \
            if trace is None and kind == "invariant" else ""
        try:
            table, unwritable = table_lines(self.eng, start, seed), ""
        except BaoError as err:  # a deal a table cannot state (an open window, say): reported, not written
            table, unwritable = [], str(err)
        self.report.failures[label] = Failure(label, message, _cite(self.eng.rules, label, trace), level, seed, table,
                                              move_texts(self.eng, start, unwind(trace)), expectation, unwritable,
                                              self.report.start)


def unwind(trace: Trace) -> list[Move]:
    moves: list[Move] = []
    while trace is not None:
        trace, move = trace
        moves.append(move)
    return moves[::-1]


def move_texts(eng: Engine, start: State, moves: list[Move]) -> list[str]:
    """Each move in the engine's text, read in the state it was made in (the last one may fail)."""
    st = start.copy()
    out = []
    for move in moves:
        out.append(scenario_move_text(eng.rules.moves, st, move))
        try:
            eng.push_generated(st, move)
        except EngineError:
            break  # the failing move: nothing follows it
    return out


def state_key(st: State, with_turn: bool, with_knowledge: bool) -> int:
    """The hash of everything in `st` that can change what happens next (see the module's doc)."""
    rest = (tuple(map(tuple, st.tableaux)), tuple(map(tuple, st.piles)), tuple(map(tuple, st.hands)),
            st.active, st.phase, tuple((w.kind, w.ref, w.players, w.attempts) for w in st.windows),
            tuple(st.known) if with_knowledge else (), tuple(st.marks), tuple(st.box), st.in_round,
            st.protected, st.round, st.turn if with_turn else 0, hash(st.rng_state()))
    try:  # most variables hold numbers, strings and none: hashed as they are
        return hash((rest, tuple(st.vars.values()), tuple(map(tuple, st.pvars.values())),
                     tuple((w.ability, w.card, w.owner, w.args, w.after_window) for w in st.waiting)))
    except TypeError:  # a list among them (of players, say): hashed as a tuple
        return hash((rest, _frozen(st.vars.values()), tuple(_frozen(v) for v in st.pvars.values()),
                     tuple((w.ability, w.card, w.owner, _frozen(w.args), w.after_window) for w in st.waiting)))


def _frozen(values: Iterable[object]) -> tuple[object, ...]:
    """Values as a hashable tuple (a list, say of players, becomes a tuple)."""
    return tuple(tuple(v) if isinstance(v, list) else v for v in values)


def reads_name(rules: Ruleset, name: str) -> bool:
    """Whether any expression of the rules reads `name` (a local name spelled alike counts too)."""
    exprs = _outside_moves(rules) + [d.body for d in rules.defines.values()]
    exprs += [e for m in rules.moves.values() for e in _move_exprs(m)]
    return any(name in free_names(e) for e in exprs)


def knowledge_phases(eng: Engine) -> frozenset[str] | None:
    """The phases outside which knowledge cannot change what happens: those of the moves whose guards or
    effects read it. None when anything else reads it (an invariant, a halt, a routine, a hook, a move
    or an ability that no phase guard restricts)."""
    rules = eng.rules
    readers = _knowledge_readers(rules)

    def reads(e: s.Expr) -> bool:
        return bool((called(e) | free_names(e)) & readers)

    if any(reads(e) for e in _outside_moves(rules)):
        return None
    phases: set[str] = set()
    for cm in eng.moves.values():
        if any(reads(e) for e in _move_exprs(cm.decl)):
            if cm.phases is None:
                return None
            phases |= cm.phases
    return frozenset(phases)


def _knowledge_readers(rules: Ruleset) -> set[str]:
    """`knows` and the definitions that read it, directly or not."""
    readers = {KNOWS}
    grown = True
    while grown:
        found = {name for name, d in rules.defines.items() if (called(d.body) | free_names(d.body)) & readers}
        grown = not found <= readers
        readers |= found
    return readers


def _outside_moves(rules: Ruleset) -> list[s.Expr]:
    """The expressions evaluated whatever move is made: properties, halts, protections, the order of
    calls, initial values, and the routines and hooks (any move may run them)."""
    exprs = [v.init for v in rules.variables.values()]
    exprs += [e for i in rules.invariants.values() for e in (i.when, i.holds) if e is not None]
    exprs += [p.when for p in rules.progress.values() if p.when is not None]
    exprs += [h.when for h in rules.halts.values()] + [p.when for p in rules.protects.values()]
    exprs += [rules.simultaneous.order] if rules.simultaneous is not None else []
    for r in [*rules.routines.values(), *rules.hooks.values()]:
        exprs += list(exprs_of(r.body))
    return exprs


def _move_exprs(m: s.MoveDecl) -> list[s.Expr]:
    return [e for e in (m.by, *(r.cond for r in m.requires)) if e is not None] + list(exprs_of(m.body))


# ---------------------------------------------------------------- output


def report_lines(report: Report) -> list[str]:
    """The report, deterministic but for its timing line (states, moves, seconds)."""
    r = report
    lines = [f"explore: {r.players} players, {r.deals} deal(s) from seed {r.seed}, depth {r.depth}; "
             f"deck {r.deck}"]
    lines += [f"  depth {d:>3}: {n:>10,} new states" for d, n in enumerate(r.per_depth)]
    if r.truncated:
        lines.append(f"  stopped at {r.states:,} states, in depth {len(r.per_depth) - 1}")
    lines.append(f"{r.states:,} states, {r.moves:,} moves in {r.seconds:.2f}s ({r.states_per_second:,.0f} states/s, "
                 f"{r.moves_per_second:,.0f} moves/s)")
    if r.returned:
        lines.append("  knowledge was merged outside the phases that read it, and a move entered such a phase "
                     "again: the failures are real, a `holds` may have missed states")
    reach = "every reachable state of the round" if r.exhausted else f"explored to depth {r.complete}"
    if r.left_out:
        lines.append(f"  left out: {', '.join(r.left_out)} (they read who knows a card, which would have to be "
                     "part of every state: judged with --knowledge)")
    for label in [*r.labels, RULES_RUN]:
        f = r.failures.get(label)
        shown = label if label != RULES_RUN else "rules: every legal move can be carried out"
        lines.append(f"  {shown}: " + (f"violated at depth {f.depth} (seed {f.seed})" if f is not None
                                       else f"{reach}: holds" if r.exhausted or r.complete >= 0
                                       else "not judged: the search stopped before it finished a depth"))
    first = r.first_failure()
    if first is not None:
        origin = f"moves from {r.start}" if r.start else f"moves from the deal of seed {first.seed}"
        lines += [f"first failure: {first.message}", f"  {origin}:", *[f"    {m}" for m in first.moves]]
    return lines


def report_json(report: Report) -> dict[str, Any]:
    """The report for machines (docs/explore.schema.json): the states per depth and each property's verdict."""
    r = report
    verdicts = []
    for label in [*r.labels, RULES_RUN]:
        f = r.failures.get(label)
        verdicts.append({"property": label, "status": "violated" if f is not None else "holds",
                         "depth": f.depth if f is not None else None, "seed": f.seed if f is not None else None,
                         "message": f.message if f is not None else None,
                         "moves": list(f.moves) if f is not None else []})
    return {"players": r.players, "deck": r.deck, "seed": r.seed, "deals": r.deals, "depth": r.depth,
            "start": r.start or None, "states": r.states, "moves": r.moves, "seconds": round(r.seconds, 3),
            "per_depth": list(r.per_depth), "complete_depth": r.complete, "exhausted": r.exhausted,
            "truncated": r.truncated, "properties": verdicts, "left_out": list(r.left_out)}


def failure_scenario(failure: Failure, deck: str) -> str:
    """A scenario that replays the failure: the dealt table, then the moves; replayed with the rules it
    was found with (their full deck: further copies of a species stay out of play), its last move fails."""
    f = failure
    if not f.table:
        raise BaoError(f"the failure of {f.label} cannot be written as a scenario: {f.unwritable}")
    if f.start:  # a search from a given table, with the rules' own deck
        when = f"{f.depth} moves from {f.start}" if f.depth else f"in {f.start}"
        lines = [f"# Written by `baobei explore`: {f.message}", f"# Found {when}.",
                 "# The table is that one; replayed with the rules that produced it, the last step fails.",
                 f'scenario "Explore: {f.label} fails {when}"']
    else:
        when = f"{f.depth} moves after the deal" if f.depth else "in the deal"
        lines = [f"# Written by `baobei explore`: {f.message}",
                 f"# Found {when} of seed {f.seed}, deck {deck}.",
                 "# The table is that deal; replayed with the rules that produced it, the last step fails.",
                 f'scenario "Explore: {f.label} fails {when} of seed {f.seed}"']
    lines += [f"cites {f.cite}"] if f.cite else []
    lines += ["tags explore, counterexample", "", *f.table, "", "play", *[f"  {m}" for m in f.moves]]
    if f.expectation:
        lines.append(f"  {f.expectation}")
    elif not f.moves:
        lines.append("  # Nobody has a legal move in the dealt state: a replay, which judges the properties "
                     "after moves, cannot show it.")
    return "\n".join(lines) + "\n"


def _cite(rules: Ruleset, label: str, trace: Trace) -> str:
    """The property's citation; for a move the engine cannot carry out, that move's rule (the scenario
    written from the failure must cite a paragraph, and the failing rule is the one it answers from)."""
    if label == RULES_RUN:
        return str(rules.moves[trace[1].name].cite) if trace is not None else ""
    kind, _, name = label.partition(" ")
    decl = rules.invariants.get(name) if kind == "invariant" else rules.progress.get(name)
    return str(decl.cite) if decl is not None else ""
