"""Two engines in lock step: the same state under both versions of the rules, the same move, compared.

A pair of states (one per version, built from the same table or deal, so that card numbers name the same
cards) is compared in three ways: which moves are legal; for a move legal under both, whether the rules
can carry it out, whether it breaks a property (as a replay judges after every move), and what the state
is afterwards. States are compared part by part (tableaux, piles, hands, active player, phase, counters,
the variables both versions declare, windows, waiting abilities, knowledge, marks, protection); where
they differ, the expectations a scenario can state (`claims_of`, as a game log claims them, with the
window and the first waiting ability) say whether a scenario can show it. A difference no expectation
can state (the generator's state, a variable one version alone has) does not split the versions: the
search goes on from the pair, since what follows may show it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ..engine.engine import Engine
from ..engine.move import Move
from ..engine.notation import scenario_move_text
from ..engine.runtime import Event
from ..engine.state import State
from ..language.errors import BaoError, EngineError, ScenarioError
from ..play.explore import TURN, reads_name, state_key
from ..referee.write import claims_of
from ..scenarios import syntax as sc
from ..scenarios.draws import DrawUnavailable, forced
from ..scenarios.expectations import check_expectation
from ..scenarios.parser import parse_claim
from ..scenarios.runner import RULES_FAILED, check_move
from ..scenarios.setup import to_move

OLD, NEW = "old", "new"
PASSES_CLEANLY, PASSES_BY_ERROR = 0, 1  # an expectation the other side fails, or cannot even read
SHOWN = 4  # differing expectations a split shows per side (what each version does)


@dataclass(frozen=True)
class Split:
    """A situation in which the versions part: a move legal under one only, or one move's results."""

    kind: str  # legal | rules | property | result | start | dealt
    move: Move | None  # the move (None: the state itself differs)
    passes: str  # old | new: the side under which the scenario written from it passes
    does: dict[str, tuple[str, ...]]  # per side: what it does, in words
    rules: dict[str, tuple[str, ...]]  # per side: the rules cited there (name and citation)
    cites: tuple[str, ...]  # the citations the written scenario's `cites` line names
    expects: tuple[str, ...] = ()  # expectation lines true on the passing side, false on the other, best first


@dataclass
class After:
    """One side's move: the state after it, or what stopped it."""

    state: State | None
    error: str = ""  # the rules could not carry it out
    broken: str = ""  # a property the move broke, as a replay reports it


@dataclass
class Twin:
    """The two engines of a search: card numbers, piles and seats mean the same under both.

    `moves` names the moves whose legality a change can alter (changes.legality_reached; None: any): any
    other is legal under both versions alike in a state they agree on, so only these are listed under
    both. `reached` names every declaration a change can alter (changes.reached; None: any): the
    properties are judged after a move only when it names one of them, or when the states after it
    differ."""

    old: Engine
    new: Engine
    moves: frozenset[str] | None = None
    reached: frozenset[str] | None = None
    judge: bool = field(init=False)  # whether a property may judge alike states differently
    with_turn: bool = field(init=False)
    _vars: tuple[str, ...] = field(init=False)
    _pvars: tuple[str, ...] = field(init=False)
    _piles: tuple[tuple[int, int], ...] = field(init=False)
    _marks: tuple[tuple[int, int], ...] = field(init=False)
    # The same cards under the same numbers: the decks list the same species, as many of each, in one order.
    # Otherwise states are compared by what a scenario can state of them (species by name).
    numbered_alike: bool = field(init=False)

    def __post_init__(self) -> None:
        a, b = self.old.rules, self.new.rules
        names = self.reached
        properties = {*a.invariants, *a.progress, *b.invariants, *b.progress}
        self.judge = names is None or bool(names & properties)
        self.numbered_alike = self.old.facts.species == self.new.facts.species
        self.with_turn = reads_name(a, TURN) or reads_name(b, TURN)
        both = [n for n in a.variables if n in b.variables]
        self._vars = tuple(n for n in both if not a.variables[n].per_player)
        self._pvars = tuple(n for n in both if a.variables[n].per_player)
        self._piles = tuple((self.old.pile_index[p], self.new.pile_index[p]) for p in a.piles if p in b.piles)
        bits_a, bits_b = self.old.facts.mark_bits, self.new.facts.mark_bits
        self._marks = tuple((bits_a[m], bits_b[m]) for m in bits_a if m in bits_b)

    def engine(self, side: str) -> Engine:
        return self.old if side == OLD else self.new

    def key(self, a: State, b: State) -> tuple[int, int]:
        return state_key(a, self.with_turn, True), state_key(b, self.with_turn, True)

    def same(self, a: State, b: State) -> bool:
        """Whether the two states agree in every part both versions have (the generator's aside)."""
        if not self.numbered_alike:
            return claims(self.old, a) == claims(self.new, b)
        return self._parts(a, OLD) == self._parts(b, NEW)

    def _parts(self, st: State, side: str) -> tuple[Any, ...]:
        first = side == OLD
        piles = tuple(tuple(st.piles[pair[0 if first else 1]]) for pair in self._piles)
        marks = tuple(tuple(m >> pair[0 if first else 1] & 1 for m in st.marks) for pair in self._marks)
        return (st.tableaux, piles, st.hands, st.active, st.phase, st.round, st.turn if self.with_turn else 0,
                [st.vars[n] for n in self._vars], [st.pvars[n] for n in self._pvars],
                [(w.kind, w.ref, w.players, w.attempts) for w in st.windows],
                [(w.ability, w.card, w.owner, w.args, w.after_window) for w in st.waiting],
                st.known, marks, sorted(st.box), st.in_round, st.protected)


def legal(eng: Engine, st: State, names: frozenset[str] | None = None) -> list[Move] | str:
    """Every legal move (of the moves `names` lists, when given), in the engine's order; the error in words
    when the rules fail to tell."""
    try:
        if names is None:
            return list(eng.legal_moves(st))
        halt = eng.halt(st)
        return [m for p in range(len(st.names)) for cm in eng.candidates(st, p, halt) if cm.name in names
                for m in eng.moves_of(st, p, cm)]
    except EngineError as err:
        return f"{RULES_FAILED}: {err}"


def play(eng: Engine, st: State, move: Move, draws: tuple[str, ...] = (), judge: bool = True) -> After:
    """The move made on a copy of `st`; with `judge`, judged as a replay judges it."""
    child = st.copy()
    if draws:
        forced(child).name(list(draws))
    try:
        eng.push_checked(child, move, log=False)
    except (EngineError, DrawUnavailable) as err:
        return After(None, error=f"{RULES_FAILED}: {err}" if isinstance(err, EngineError) else str(err))
    return After(child, broken=judged(eng, st, move, child) if judge else "")


def judged(eng: Engine, before: State, move: Move, after: State) -> str:
    """The first property the move breaks, as a replay reports it ("" when none)."""
    return check_move(eng, before if eng.transition_fns else None, move, after) or ""


def call_text(call: sc.DoMove) -> str:
    """A call of a `simultaneous` block as the scenario wrote it."""
    args = [f"{name}={value}" if name else str(value) for name, value in call.args]
    return " ".join([call.player, call.move, *args])


def play_calls(eng: Engine, st: State, calls: sc.Simultaneous, draws: tuple[str, ...] = ()) -> After:
    """Calls made at the same moment, on a copy of `st`, in the order of this version's `simultaneous`
    declaration; a call illegal when its turn comes is no attempt (as a replay makes them)."""
    child = st.copy()
    if draws:
        forced(child).name(list(draws))
    order = eng.call_order(child)
    if order is None:
        return After(None, error="these rules declare no order of simultaneous calls")
    try:
        moves = [to_move(eng, child, c.player, c.move, c.args, c.pos) for c in calls.calls]
        rank = {p: i for i, p in enumerate(order)}
        for move in sorted(moves, key=lambda m: rank.get(m.player, len(rank))):
            if eng.check(child, move) is None:
                eng.push_checked(child, move, log=False)
    except (EngineError, DrawUnavailable, ScenarioError) as err:
        return After(None, error=str(err))
    return After(child)


def calls_split(twin: Twin, ra: After, rb: After) -> Split | None:
    """How the same simultaneous calls' results part, when a scenario can show it."""
    if ra.state is None or rb.state is None:
        return None  # a version cannot make them: the answers part shows that scenario
    if twin.same(ra.state, rb.state):
        return None
    expects = distinguishing_claims(twin, ra.state, rb.state)
    if not expects:
        return None
    does = differing_claims(twin, ra.state, rb.state)
    passes = expects[0][1]
    cites = tuple(str(x.cite) for x in (twin.old.rules.simultaneous, twin.new.rules.simultaneous) if x is not None)
    rules = {side: tuple(f"simultaneous {x.cite}" for x in (twin.engine(side).rules.simultaneous,) if x is not None)
             for side in (OLD, NEW)}
    return Split("result", None, passes, does, rules, tuple(dict.fromkeys(cites)),
                 tuple(line for line, side in expects if side == passes))


def events_of(eng: Engine, st: State, move: Move) -> list[Event]:
    """The move's events (made on a copy): only for a split, whose rules the report cites."""
    try:
        return eng.push_checked(st.copy(), move, log=True)
    except BaoError:
        return []


def legal_split(twin: Twin, a: State, b: State, move: Move, passes: str) -> Split:
    """A move legal under the side `passes`, refused under the other."""
    mine, other = twin.engine(passes), twin.engine(NEW if passes == OLD else OLD)
    st_mine, st_other = (a, b) if passes == OLD else (b, a)
    decl = mine.rules.moves[move.name]
    refusal = other.check(st_other, move)
    text = scenario_move_text(mine.rules.moves, st_mine, move)
    refused = ("refused: " + refusal.reason,) if refusal is not None else ("refused",)
    rule_other = (f"{refusal.rule} {refusal.cite}",) if refusal is not None and str(refusal.cite) != "?" else ()
    side_other = NEW if passes == OLD else OLD
    cites = (str(decl.cite), *((str(refusal.cite),) if rule_other and refusal is not None else ()))
    return Split("legal", move, passes, {passes: (f"{text}: legal",), side_other: refused},
                 {passes: (f"{decl.name} {decl.cite}",), side_other: rule_other}, tuple(dict.fromkeys(cites)))


def result_split(twin: Twin, a: State, b: State, move: Move, ra: After, rb: After) -> Split | None:
    """How the same move's results part, when a scenario can show it; None when it cannot."""
    if bool(ra.error) != bool(rb.error):
        return _stopped(twin, a, b, move, OLD if rb.error else NEW, "rules", ra.error or rb.error)
    if ra.error:  # both versions fail to carry it out: alike
        return None
    assert ra.state is not None and rb.state is not None
    same = twin.same(ra.state, rb.state)
    if not same and not twin.judge:  # judged only now: alike states under alike properties need no judging
        ra.broken, rb.broken = judged(twin.old, a, move, ra.state), judged(twin.new, b, move, rb.state)
    if bool(ra.broken) != bool(rb.broken):
        return _stopped(twin, a, b, move, OLD if rb.broken else NEW, "property", ra.broken or rb.broken)
    if same:
        return None
    expects = distinguishing_claims(twin, ra.state, rb.state)
    if not expects:
        return None  # a difference no scenario can state (yet)
    return _result(twin, a, b, move, ra.state, rb.state, expects)


def _stopped(twin: Twin, a: State, b: State, move: Move, passes: str, kind: str, why: str) -> Split:
    """The move works under `passes` and fails (the rules, or a property) under the other side."""
    eng = twin.engine(passes)
    decl = eng.rules.moves[move.name]
    failing = NEW if passes == OLD else OLD
    text = scenario_move_text(eng.rules.moves, a if passes == OLD else b, move)
    broken = _property(twin.engine(failing), why) if kind == "property" else ()
    return Split(kind, move, passes, {passes: (f"{text}: carried out, every property kept",), failing: (why,)},
                 {passes: (f"{decl.name} {decl.cite}",), failing: broken[:1]}, (str(decl.cite), *broken[1:]))


def _property(eng: Engine, message: str) -> tuple[str, ...]:
    """The property a replay's message names, as its kind, name and citation, and the citation alone."""
    kind, _, rest = message.partition(" ")
    name = rest.split(" ", 1)[0]
    decl = eng.rules.invariants.get(name) if kind == "invariant" else eng.rules.progress.get(name)
    return () if decl is None else (f"{kind} {name} {decl.cite}", str(decl.cite))


def _result(twin: Twin, a: State, b: State, move: Move, after_a: State, after_b: State,
            expects: list[tuple[str, str]]) -> Split:
    events = {OLD: events_of(twin.old, a, move), NEW: events_of(twin.new, b, move)}
    seen = {side: {_said(e) for e in events[side]} for side in (OLD, NEW)}
    rules: dict[str, tuple[str, ...]] = {}
    cites: list[str] = []
    near = twin.reached or frozenset()
    for side, other in ((OLD, NEW), (NEW, OLD)):
        own = [e for e in events[side] if _said(e) not in seen[other]]
        cites += [str(e.cite) for e in own]
        # Its own events' rules; else those of the changed rules' neighbourhood that acted on both sides.
        cited = own or [e for e in events[side] if e.rule.removeprefix("on ") in near]
        rules[side] = tuple(dict.fromkeys(f"{e.rule} {e.cite}" for e in cited))
    does = differing_claims(twin, after_a, after_b)
    passes = expects[0][1]
    decl = twin.engine(passes).rules.moves[move.name]
    return Split("result", move, passes, does, rules, tuple(dict.fromkeys(cites or [str(decl.cite)])),
                 tuple(line for line, side in expects if side == passes))


def _said(e: Event) -> tuple[str, str, str, str]:
    return e.kind, e.text, e.rule, str(e.cite)


def claims(eng: Engine, st: State) -> dict[tuple[Any, ...], str]:
    """Every expectation a scenario can state of the state, by what it is about: a game log's claims, the
    open window and the first waiting ability."""
    out = claims_of(eng, st)
    w = st.window
    if w is None:
        out[("window",)] = "window closed"
    elif w.attempts <= 0:
        out[("window",)] = "window used"
    elif w.players:  # a window open for nobody is stated by no expectation
        out[("window",)] = "window open for " + ", ".join(n for p, n in enumerate(st.names) if w.players >> p & 1)
    first = st.waiting[0] if st.waiting else None
    out[("pending",)] = "nothing pending" if first is None else \
        f"pending {first.ability} of {eng.facts.species[first.card]} for {st.names[first.owner]}"
    return out


def differing_claims(twin: Twin, a: State, b: State) -> dict[str, tuple[str, ...]]:
    """Per side, the first few expectations that hold there and not on the other side: what it does."""
    said = {OLD: claims(twin.old, a), NEW: claims(twin.new, b)}
    return {side: tuple(text for key, text in said[side].items() if said[other].get(key) != text)[:SHOWN]
            for side, other in ((OLD, NEW), (NEW, OLD))}


def distinguishing_claims(twin: Twin, a: State, b: State) -> list[tuple[str, str]]:
    """Expectation lines, each with the side it holds on, that fail on the other side: the cleanly failing
    first (a line the other version cannot even read comes last)."""
    found: list[tuple[int, str, str]] = []
    ca, cb = claims(twin.old, a), claims(twin.new, b)
    for key in [*ca, *(k for k in cb if k not in ca)]:
        for side, line, other, st in ((OLD, ca.get(key), twin.new, b), (NEW, cb.get(key), twin.old, a)):
            if line is None or line == (cb if side == OLD else ca).get(key):
                continue
            rank = _fails(other, st, line)
            if rank is not None:
                found.append((rank, line, side))
    return [(line, side) for _, line, side in sorted(found, key=lambda f: f[0])]


def _fails(eng: Engine, st: State, line: str) -> int | None:
    """How the expectation fails in `st`: cleanly, by an error (a name these rules lack), or None: it holds."""
    try:
        return PASSES_CLEANLY if check_expectation(eng, st, parse_claim(line, "compare")) is not None else None
    except BaoError:
        return PASSES_BY_ERROR


def start_split(twin: Twin, a: State, b: State) -> Split | None:
    """The two starting states themselves differ in what a scenario can state."""
    if twin.same(a, b):
        return None
    expects = distinguishing_claims(twin, a, b)
    if not expects:
        return None
    does = differing_claims(twin, a, b)
    passes = expects[0][1]
    return Split("start", None, passes, does, {OLD: (), NEW: ()}, (),
                 tuple(line for line, side in expects if side == passes))


def iter_splits(twin: Twin, a: State, b: State) -> Iterator[Split | tuple[Move, State, State]]:
    """Expand a pair by every legal move: a split for each way the versions part (legal moves first), or
    the pair of states after a move that both make alike."""
    la, lb = legal(twin.old, a), legal(twin.new, b, twin.moves)
    if isinstance(la, str) or isinstance(lb, str):
        return  # the rules fail to list the moves: the replay of the move that led here shows it
    set_a = {m for m in la if twin.moves is None or m.name in twin.moves}
    set_b = set(lb)
    if set_a != set_b:
        yield from (legal_split(twin, a, b, m, OLD) for m in la if m in set_a and m not in set_b)
        yield from (legal_split(twin, a, b, m, NEW) for m in lb if m not in set_a)
        return
    for move in la:
        ra, rb = play(twin.old, a, move, judge=twin.judge), play(twin.new, b, move, judge=twin.judge)
        split = result_split(twin, a, b, move, ra, rb)
        if split is not None:
            yield split
        elif ra.state is not None and rb.state is not None and not ra.broken:
            yield move, ra.state, rb.state
