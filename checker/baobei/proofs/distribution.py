"""The distribution model: every way the deck's cards can lie in the places, for n players.

For each player and species a count of cards in the tableau, the same for every
pile the rules declare and for the box (cards out of play), and per player the
cards held in hand, in the order drawn (as many as the rules' hand holds); per
species the counts add up to the deck's count. State variables of the rules and
the engine's state names (active, phase, the window ...) are free symbols of
their declared kind. An invariant is proved for n players when no assignment of
these symbols breaks it; otherwise Z3's model is a concrete counterexample.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import z3  # type: ignore[import-untyped]

from ..language import syntax as s
from ..language.builtins import STATE_NAMES, Symbolic
from ..language.kinds import declared_kind
from ..language.ruleset import Ruleset, Species
from ..language.walk import called, free_names
from . import terms as T
from .translate import (
    NONE_ID,
    TRUE,
    BagV,
    BoolV,
    CardV,
    IntV,
    ListV,
    NoneV,
    PlaceV,
    PlayerV,
    StrV,
    SVal,
    SymbolicModel,
    Translator,
    Unsupported,
    Z,
    ival,
    lift,
    merge,
    none_like,
    species_fact,
)


def concrete(term: Z) -> int | None:
    t = T.simplify(term)
    return int(t.as_long()) if z3.is_int_value(t) else None


class DistributionModel(SymbolicModel):
    """The symbolic state of one distribution of the cards (see the module's docstring)."""

    what = "distribution model"

    def __init__(self, rules: Ruleset, players: int) -> None:
        self.rules = rules
        self.n = players
        self.species: list[Species] = list(rules.species.values())
        self.tableau = [self._counts(f"tableau{p}") for p in range(players)]
        self.piles = {name: self._counts(name) for name in rules.piles}
        self.box = self._counts("box")
        capacity = rules.hand.capacity if rules.hand is not None else 1
        self.hands = [[z3.Int(f"hand{p}_{j}") for j in range(capacity)] for p in range(players)]
        self.constraints: list[Z] = self._places_hold_the_deck()
        # Who takes part in this round: any seats, at least one (a decision round is played by a few). A claim
        # proved with every seat taking part would not be proved for a round among a few.
        self.in_round = [z3.Bool(f"in_round{p}") for p in range(players)]
        self.constraints.append(z3.Or(*self.in_round))
        # A seat out of the round holds no cards (the deal of a round among a few gives them none; a scenario
        # table cannot give them any either).
        for p in range(players):
            self.constraints.append(z3.Implies(z3.Not(self.in_round[p]), z3.And(
                *(c == 0 for c in self.tableau[p]), *(h == NONE_ID for h in self.hands[p]))))
        self.tops: dict[str, Z] = {}
        self.engine_names: dict[str, SVal] = {}
        self.scalars: dict[str, SVal] = {}
        self.per_player: dict[str, list[SVal]] = {}
        self.card_reads: set[str] = set()  # which card places the expressions read

    def _places_hold_the_deck(self) -> list[Z]:
        """Counts are not negative, hands hold cards in the order drawn, and each species' cards add up."""
        out: list[Z] = []
        for counts in [*self.tableau, *self.piles.values(), self.box]:
            out += [c >= 0 for c in counts]
        for hand in self.hands:
            out += [z3.And(h >= NONE_ID, h < len(self.species)) for h in hand]
            # A free place in the hand has no card after it: `top(hand(p))` is the last card drawn.
            out += [z3.Implies(a == NONE_ID, b == NONE_ID) for a, b in itertools.pairwise(hand)]
        for i, sp in enumerate(self.species):
            in_hands = [z3.If(h == i, 1, 0) for hand in self.hands for h in hand]
            placed = [t[i] for t in self.tableau] + [pile[i] for pile in self.piles.values()] + [self.box[i]]
            out.append(z3.Sum(*placed, *in_hands) == sp.count)
        return out

    def _counts(self, label: str) -> list[Z]:
        return [z3.Int(f"{label}_{sp.name}") for sp in self.species]

    # ------------------------------------------------------------ fresh symbols
    def fresh(self, kind: str, label: str, pos: s.Pos) -> SVal:
        """A free value of a kind of the builtin registry (int, bool, str, player, card, list player)."""
        if kind == "int":
            return IntV(z3.Int(label))
        if kind == "bool":
            return BoolV(z3.Bool(label))
        if kind == "str":
            return StrV(z3.String(label), z3.Bool(label + "_none"))
        if kind in ("player", "card"):
            t = z3.Int(label)
            self.constraints.append(z3.And(t >= NONE_ID, t < (self.n if kind == "player" else len(self.species))))
            return PlayerV(t) if kind == "player" else CardV(t)
        if kind == "list player":
            return ListV(tuple((PlayerV(z3.IntVal(p)), z3.Bool(f"{label}_has{p}")) for p in range(self.n)))
        raise Unsupported(pos, f"no symbolic model for values of kind {kind!r}")

    def reads(self) -> list[str]:
        """What of the state the translated expressions read (for the docs)."""
        out = sorted(self.card_reads)
        out += [f"{name} (engine)" for name in self.engine_names]
        out += list(self.scalars) + [f"{name}[p]" for name in self.per_player]
        return out

    # ------------------------------------------------------------ names
    def players(self, pos: s.Pos) -> SVal:
        return self.seats_of(0, 0)

    def player_count(self, pos: s.Pos) -> SVal:
        # The players of this round: the seats taking part (a decision round leaves some out), not the match's.
        return IntV(z3.Sum(*(z3.If(flag, 1, 0) for flag in self.in_round)))

    def seat_count(self, pos: s.Pos) -> SVal:
        return ival(self.n)

    def deck(self, pos: s.Pos) -> SVal:
        return BagV(tuple(z3.IntVal(sp.count) for sp in self.species))

    def state(self, name: str, kind: str, pos: s.Pos) -> SVal:
        if name not in self.engine_names:
            value = self.fresh(kind, name, pos)
            self._enumerated(name, value)
            self.engine_names[name] = value
        return self.engine_names[name]

    def _enumerated(self, name: str, value: SVal) -> None:
        """A string state name whose values the rules declare (the phases, say) takes one of them."""
        allowed = self.rules.enum_values(STATE_NAMES[name].enum)
        if allowed and isinstance(value, StrV):
            self.constraints.append(z3.Or(value.none, *(value.term == z3.StringVal(a) for a in allowed)))

    def variable(self, decl: s.VarDecl, index: SVal | None, pos: s.Pos) -> SVal:
        kind = declared_kind(decl.type)
        if index is None:
            if decl.name not in self.scalars:
                self.scalars[decl.name] = self.fresh(kind, decl.name, pos)
            return self.scalars[decl.name]
        if decl.name not in self.per_player:
            self.per_player[decl.name] = [self.fresh(kind, f"{decl.name}[{p}]", pos) for p in range(self.n)]
        if not isinstance(index, PlayerV):
            raise Unsupported(pos, f"{decl.name}[...] needs a player")
        return self.by_player(index, self.per_player[decl.name], pos)

    def by_player(self, who: PlayerV, values: list[SVal], pos: s.Pos) -> SVal:
        """values[who]; the engine gives none for a none player."""
        seat = concrete(who.term)
        if seat is not None:
            return values[seat] if 0 <= seat < self.n else none_like(values[0])
        result: SVal = NoneV()
        for p in reversed(range(self.n)):
            result = merge(who.term == p, values[p], result, pos)
        return result

    def card_items(self, bag: BagV, pos: s.Pos) -> list[tuple[SVal, Z, Z]]:
        return [(CardV(z3.IntVal(i)), c > 0, c) for i, c in enumerate(bag.counts)]

    # ------------------------------------------------------------ cards
    def card_fact(self, card: SVal, fact: str, pos: s.Pos) -> SVal:
        if not isinstance(card, CardV):
            raise Unsupported(pos, "a card is expected")
        known = concrete(card.term)
        if known is not None:
            return lift(species_fact(self.species[known], fact)) if 0 <= known < len(self.species) else NoneV()
        values = [lift(species_fact(sp, fact)) for sp in self.species]
        result: SVal = NoneV()
        for i in reversed(range(len(values))):
            result = merge(card.term == i, values[i], result, pos)
        return result

    def cards(self, player: SVal, pos: s.Pos) -> SVal:
        if not isinstance(player, PlayerV):
            raise Unsupported(pos, "cards(...) needs a player")
        self.card_reads.add("the cards of the tableaux")
        return self.by_player(player, [BagV(tuple(row)) for row in self.tableau], pos)

    def size(self, value: SVal, pos: s.Pos) -> SVal:
        if isinstance(value, BagV):
            return IntV(z3.Sum(0, *value.counts))
        if isinstance(value, ListV):
            return IntV(z3.Sum(0, *(z3.If(m, 1, 0) for _, m in value.items)))
        if isinstance(value, PlaceV) and value.player is None:
            self.card_reads.add(f"the size of the {value.pile}")
            return IntV(z3.Sum(0, *self.piles[value.pile]))
        if isinstance(value, PlaceV):
            self.card_reads.add("the cards held")
            sizes: list[SVal] = [IntV(z3.Sum(0, *(z3.If(h != NONE_ID, 1, 0) for h in hand))) for hand in self.hands]
            return self.by_player(PlayerV(value.player), sizes, pos)
        if isinstance(value, NoneV):
            return ival(0)
        raise Unsupported(pos, f"size of a {value.kind()}")

    def top(self, place: SVal, pos: s.Pos) -> SVal:
        if not isinstance(place, PlaceV):
            return CardV(z3.IntVal(NONE_ID))
        if place.player is not None:
            self.card_reads.add("the cards held")
            return self.by_player(PlayerV(place.player), [self._last_drawn(hand) for hand in self.hands], pos)
        self.card_reads.add(f"the top of the {place.pile}")
        if place.pile not in self.tops:
            self.tops[place.pile] = self._top_of(place.pile)
        return CardV(self.tops[place.pile])

    def _top_of(self, pile: str) -> Z:
        """The top card of a pile: a species the pile holds, none exactly when it is empty."""
        t = z3.Int(f"top_{pile}")
        counts = self.piles[pile]
        self.constraints.append((t == NONE_ID) == (z3.Sum(0, *counts) == 0))
        self.constraints.append(z3.And(t >= NONE_ID, t < len(self.species)))
        self.constraints += [z3.Implies(t == i, c >= 1) for i, c in enumerate(counts)]
        return t

    @staticmethod
    def _last_drawn(hand: list[Z]) -> CardV:
        last: Z = z3.IntVal(NONE_ID)
        for h in hand:
            last = z3.If(h != NONE_ID, h, last)
        return CardV(last)

    def hand(self, player: SVal, pos: s.Pos) -> SVal:
        if not isinstance(player, PlayerV):
            raise Unsupported(pos, "hand(...) needs a player")
        return PlaceV(player=player.term)

    def held(self, player: SVal, pos: s.Pos) -> SVal:
        if not isinstance(player, PlayerV):
            raise Unsupported(pos, "held(...) needs a player")
        self.card_reads.add("the cards held")
        lists: list[SVal] = [ListV(tuple((CardV(h), h != NONE_ID) for h in hand)) for hand in self.hands]
        return self.by_player(player, lists, pos)

    # ------------------------------------------------------------ seats
    def seats(self, player: SVal, include_self: bool, pos: s.Pos) -> SVal:
        """Seats from `player` or after it, clockwise."""
        if not isinstance(player, PlayerV):
            raise Unsupported(pos, "a player is expected")
        skip = 0 if include_self else 1
        seat = concrete(player.term)
        if seat is not None:
            return self.seats_of(seat, skip)
        # A symbolic seat: the items are every player, present unless skipped; the order
        # is one of n rotations (no modular arithmetic for Z3).
        who = player.term
        items = tuple((PlayerV(z3.IntVal(q)), z3.And(who != NONE_ID, TRUE if include_self else who != q,
                                                     self.in_round[q])) for q in range(self.n))
        orders = tuple((who == p, self.seats_of(p, skip)) for p in range(self.n))
        return ListV(items, orders)

    def seats_of(self, seat: int, skip: int) -> ListV:
        if not 0 <= seat < self.n:
            return ListV(())
        return ListV(tuple((PlayerV(z3.IntVal((seat + i) % self.n)), self.in_round[(seat + i) % self.n])
                           for i in range(skip, self.n)))


if TYPE_CHECKING:
    def _implements_symbolic(model: DistributionModel) -> Symbolic:
        return model


# ---------------------------------------------------------------- proofs


@dataclass
class StateCex:
    """A concrete state that breaks an invariant, read from Z3's model."""

    players: int
    tableaux: list[list[str]]  # species by slot
    hands: list[list[str]]  # species held, in the order drawn
    piles: dict[str, list[str]]  # per declared pile, bottom first; the last is the top
    box: list[str]  # out of play
    engine: dict[str, Any]  # active, phase ... as far as the invariant reads them
    scalars: dict[str, Any]  # state variables the invariant reads
    per_player: dict[str, list[Any]]
    columns: dict[str, list[Any]]  # definitions of one player, per player
    defines: dict[str, Any]  # definitions without arguments
    broken: list[str] = field(default_factory=list)  # obligations that fail (a missing table row)
    among: list[int] = field(default_factory=list)  # the seats taking part in the round (empty: every one)


@dataclass
class Outcome:
    status: str  # proved | explored | violated | unknown
    seconds: float
    detail: str = ""
    cex: StateCex | None = None
    reads: list[str] = field(default_factory=list)
    trace: object = None  # a violation the engine's search reached (play/explore.py's Failure)
    cti: list[str] = field(default_factory=list)  # induction's counterexample, as scenario lines


def referenced_defines(rules: Ruleset, inv: s.InvariantDecl) -> list[str]:
    """Definitions an invariant reads, directly or through other definitions, in declaration order."""
    seen: set[str] = set()
    stack: list[s.Expr] = [inv.holds, *([inv.when] if inv.when is not None else [])]
    while stack:
        node = stack.pop()
        for name in free_names(node) | called(node):
            if name in rules.defines and name not in seen:
                seen.add(name)
                stack.append(rules.defines[name].body)
    return [d for d in rules.defines if d in seen]


def claim(tr: Translator, inv: s.InvariantDecl) -> Z:
    """`when` implies `holds`, and everything the engine needs to evaluate them (a table's row, a
    divisor other than zero) is there."""
    start = len(tr.obligations)
    when = tr.boolean(inv.when) if inv.when is not None else TRUE
    when_needs = [o.holds for o in tr.obligations[start:]]
    middle = len(tr.obligations)
    holds = tr.boolean(inv.holds)
    holds_needs = [o.holds for o in tr.obligations[middle:]]
    return z3.And(*when_needs, z3.Implies(when, z3.And(*holds_needs, holds)))


def prove_state(rules: Ruleset, inv: s.InvariantDecl, players: int, timeout_ms: int = 10_000) -> Outcome:
    start = time.perf_counter()
    model = DistributionModel(rules, players)
    tr = Translator(rules, model)
    try:
        goal = claim(tr, inv)
    except Unsupported as err:
        return Outcome("unknown", time.perf_counter() - start, f"not translatable: {err}")
    solver = z3.Solver()
    solver.set("timeout", timeout_ms)
    solver.add(*model.constraints)
    solver.add(z3.Not(goal))
    result = T.check(solver)
    reads = model.reads()
    if result == z3.unsat:
        return Outcome("proved", time.perf_counter() - start, reads=reads)
    if result == z3.unknown:
        return Outcome("unknown", time.perf_counter() - start, f"Z3: {solver.reason_unknown()}", reads=reads)
    # Solve once more with the definitions shown in the table, so that whatever they read
    # (a variable the invariant itself does not read) belongs to the same model.
    display = _display_terms(rules, inv, tr, model.n)
    solver.add(*model.constraints)
    if T.check(solver) != z3.sat:
        return Outcome("unknown", time.perf_counter() - start, "Z3 lost the counterexample", reads=reads)
    cex = read_cex(small_model(solver, model), model, tr, display)
    return Outcome("violated", time.perf_counter() - start, "", cex, reads)


def small_model(solver: Any, model: DistributionModel) -> Any:
    """A counterexample with few cards on the table, none in hand and, when the invariant allows,
    every other card in the box: easier to read and to replay. Keeps Z3's first model otherwise."""
    piles_empty = [c == 0 for counts in model.piles.values() for c in counts]
    hands_empty = [h == NONE_ID for hand in model.hands for h in hand]
    everyone = list(model.in_round)  # every seat plays, unless the invariant needs a round among a few
    for bound in (1, 2, 3, 5, 8):
        for extra in ([*piles_empty, *hands_empty, *everyone], [*hands_empty, *everyone], [*piles_empty, *everyone],
                      everyone, [*piles_empty, *hands_empty], hands_empty, piles_empty, []):
            solver.push()
            solver.add(*(z3.Sum(*row) <= bound for row in model.tableau), *extra)
            chosen = solver.model() if T.check(solver) == z3.sat else None
            solver.pop()
            if chosen is not None:
                return chosen
    T.check(solver)
    return solver.model()


Display = tuple[dict[str, list[SVal]], dict[str, SVal]]


def _display_terms(rules: Ruleset, inv: s.InvariantDecl, tr: Translator, n: int) -> Display:
    """Per-player definitions and the invariant's own definitions, translated before solving
    so that the symbols they read are part of the solved state."""
    keep = len(tr.obligations)
    columns: dict[str, list[SVal]] = {}
    for d in rules.defines.values():
        if d.formals is not None and len(d.formals) == 1 and d.formals[0].type == "player":
            try:
                columns[d.name] = [tr.define(d.name, [PlayerV(z3.IntVal(p))], d.pos) for p in range(n)]
            except Unsupported:
                continue
    consts: dict[str, SVal] = {}
    for name in referenced_defines(rules, inv):
        if not rules.defines[name].formals:
            try:
                consts[name] = tr.define(name, (), rules.defines[name].pos)
            except Unsupported:
                continue
    del tr.obligations[keep:]
    return columns, consts


def py_value(m: Any, v: SVal, species: list[Species]) -> Any:
    """A symbolic value as the engine's Python value (players as seats, cards as species names)."""
    def ev(term: Z) -> Any:
        return m.eval(term, model_completion=True)

    if isinstance(v, (IntV, StrV, BoolV)):
        if z3.is_true(ev(v.none)):
            return None
        if isinstance(v, BoolV):
            return z3.is_true(ev(v.term))
        return ev(v.term).as_long() if isinstance(v, IntV) else ev(v.term).as_string()
    if isinstance(v, (PlayerV, CardV)):
        k = ev(v.term).as_long()
        if k == NONE_ID:
            return None
        return species[k].name if isinstance(v, CardV) else k
    if isinstance(v, ListV):
        return [py_value(m, x, species) for x, present in v.items if z3.is_true(ev(present))]
    return None


def read_cex(m: Any, model: DistributionModel, tr: Translator, display: Display) -> StateCex:
    sp = model.species

    def count(term: Z) -> int:
        return int(m.eval(term, model_completion=True).as_long())

    def spread(counts: list[Z], top: Z | None = None) -> list[str]:
        cards = [name for i, x in enumerate(sp) for name in [x.name] * count(counts[i])]
        if top is not None:
            t = count(top)
            if t != NONE_ID and sp[t].name in cards:
                cards.remove(sp[t].name)
                cards.append(sp[t].name)
        return cards

    def value(v: SVal) -> Any:
        return py_value(m, v, sp)

    columns, consts = display
    broken = [o.broken for o in tr.obligations if not z3.is_true(m.eval(o.holds, model_completion=True))]
    among = [p for p, flag in enumerate(model.in_round) if z3.is_true(m.eval(flag, model_completion=True))]
    return StateCex(
        among=among if len(among) < model.n else [],
        players=model.n,
        tableaux=[spread(row) for row in model.tableau],
        hands=[[sp[k].name for h in hand if (k := count(h)) != NONE_ID] for hand in model.hands],
        piles={name: spread(counts, model.tops.get(name)) for name, counts in model.piles.items()},
        box=spread(model.box),
        engine={k: value(v) for k, v in model.engine_names.items()},
        scalars={k: value(v) for k, v in model.scalars.items()},
        per_player={k: [value(x) for x in vs] for k, vs in model.per_player.items()},
        columns={k: [value(x) for x in vs] for k, vs in columns.items()},
        defines={k: value(v) for k, v in consts.items()},
        broken=sorted(set(broken)),
    )

