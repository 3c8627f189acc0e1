"""The distribution model: every way the deck's cards can lie in the places, for n players.

For each player and species a count of cards in the tableau, the same for every
pile and the box (cards out of play), and one card (or none) per hand; per
species the counts add up to the deck's count. State variables of the rules and
the engine's names (active, phase, the window) are free symbols of their
declared type. An invariant is proved for n players when no assignment of these
symbols breaks it; otherwise Z3's model is a concrete counterexample.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import z3  # type: ignore[import-untyped]

from . import syntax as s
from .builtins import GLOBALS
from .model import Ruleset, Species
from .state import PILES
from .z3_expr import (
    NONE_ID,
    BagV,
    BoolV,
    CardV,
    IntV,
    ListV,
    NoneV,
    PileV,
    PlayerV,
    StrV,
    SVal,
    Translator,
    Unsupported,
    Z,
    ival,
    merge,
    none_like,
)

BOX = "box"  # cards out of play: a place of the model, not a name of the language
PLACES = (*PILES, BOX)


def concrete(term: Z) -> int | None:
    t = z3.simplify(term)
    return int(t.as_long()) if z3.is_int_value(t) else None


class DistributionModel:
    """Backend of the translator (see z3_expr.Backend) over one symbolic distribution."""

    def __init__(self, rules: Ruleset, players: int) -> None:
        self.rules = rules
        self.n = players
        self.species: list[Species] = list(rules.species.values())
        idx = range(len(self.species))
        self.tableau = [[z3.Int(f"tableau{p}_{sp.name}") for sp in self.species] for p in range(players)]
        self.piles = {name: [z3.Int(f"{name}_{sp.name}") for sp in self.species] for name in PLACES}
        self.hands = [z3.Int(f"hand{p}") for p in range(players)]
        self.constraints: list[Z] = []
        for counts in [*self.tableau, *self.piles.values()]:
            self.constraints += [c >= 0 for c in counts]
        self.constraints += [z3.And(h >= NONE_ID, h < len(self.species)) for h in self.hands]
        for i in idx:
            in_hands = [z3.If(h == i, 1, 0) for h in self.hands]
            placed = [t[i] for t in self.tableau] + [pile[i] for pile in self.piles.values()] + in_hands
            self.constraints.append(z3.Sum(*placed) == self.species[i].count)
        self.tops: dict[str, Z] = {}
        self.engine_names: dict[str, SVal] = {}
        self.scalars: dict[str, SVal] = {}
        self.per_player: dict[str, list[SVal]] = {}
        self.card_reads: set[str] = set()  # which card places the expressions read

    # ------------------------------------------------------------ fresh symbols
    def fresh(self, vtype: str, label: str, pos: s.Pos) -> SVal:
        if vtype == "int":
            return IntV(z3.Int(label))
        if vtype == "bool":
            return BoolV(z3.Bool(label))
        if vtype == "player":
            t = z3.Int(label)
            self.constraints.append(z3.And(t >= NONE_ID, t < self.n))
            return PlayerV(t)
        if vtype == "card":
            t = z3.Int(label)
            self.constraints.append(z3.And(t >= NONE_ID, t < len(self.species)))
            return CardV(t)
        if vtype == "str":
            return StrV(z3.String(label), z3.Bool(label + "_none"))
        raise Unsupported(pos, f"no symbolic model for values of type {vtype!r}")

    def reads(self) -> list[str]:
        """What of the state the translated expressions read (for the docs)."""
        out = sorted(self.card_reads)
        out += [f"{name} (engine)" for name in self.engine_names]
        out += list(self.scalars) + [f"{name}[p]" for name in self.per_player]
        return out

    # ------------------------------------------------------------ backend
    def global_name(self, name: str, pos: s.Pos) -> SVal | None:
        n = self.n
        if name == "players":
            return ListV(tuple((PlayerV(z3.IntVal(p)), z3.BoolVal(True)) for p in range(n)))
        if name == "player_count":
            return ival(n)
        if name == "deck":
            return BagV(tuple(z3.IntVal(sp.count) for sp in self.species))
        if name in PILES:
            return PileV(name)
        if name in self.engine_names:
            return self.engine_names[name]
        made = self._engine_name(name, pos)
        if made is not None:
            self.engine_names[name] = made
        elif name in GLOBALS:
            raise Unsupported(pos, f"the distribution model has no value for {name!r}")
        return made

    def _engine_name(self, name: str, pos: s.Pos) -> SVal | None:
        if name == "active":
            t = z3.Int("active")
            self.constraints.append(z3.And(t >= 0, t < self.n))
            return PlayerV(t)
        if name in ("round", "turn"):
            t = z3.Int(name)
            self.constraints.append(t >= (1 if name == "round" else 0))
            return IntV(t)
        simple = {"phase": "str", "window_ref": "card", "window_kind": "str", "window_used": "bool"}
        if name in simple:
            return self.fresh(simple[name], name, pos)
        if name == "window_players":
            return ListV(tuple((PlayerV(z3.IntVal(p)), z3.Bool(f"window_for{p}")) for p in range(self.n)))
        return None

    def variable(self, decl: s.VarDecl, index: SVal | None, pos: s.Pos) -> SVal:
        if index is None:
            if decl.name not in self.scalars:
                self.scalars[decl.name] = self.fresh(decl.type, decl.name, pos)
            return self.scalars[decl.name]
        if decl.name not in self.per_player:
            self.per_player[decl.name] = [self.fresh(decl.type, f"{decl.name}[{p}]", pos) for p in range(self.n)]
        values = self.per_player[decl.name]
        if not isinstance(index, PlayerV):
            raise Unsupported(pos, f"{decl.name}[...] needs a player")
        return self.by_player(index, values, pos)

    def by_player(self, who: PlayerV, values: list[SVal], pos: s.Pos) -> SVal:
        """values[who]; the engine gives none for a none player."""
        seat = concrete(who.term)
        if seat is not None:
            return values[seat] if 0 <= seat < self.n else none_like(values[0])
        result: SVal = NoneV()
        for p in reversed(range(self.n)):
            result = merge(who.term == p, values[p], result, pos)
        return result

    def card_items(self, bag: BagV) -> list[tuple[SVal, Z, Z]]:
        return [(CardV(z3.IntVal(i)), c > 0, c) for i, c in enumerate(bag.counts)]

    def call(self, func: str, args: list[SVal], pos: s.Pos) -> SVal:
        handler = _CALLS.get(func)
        if handler is None:
            raise Unsupported(pos, f"the distribution model has no primitive {func!r}")
        result: SVal = handler(self, args, pos)
        return result

    # ------------------------------------------------------------ primitives
    def card_fact(self, card: SVal, pick: Any, none: Any, pos: s.Pos) -> Z:
        if not isinstance(card, CardV):
            raise Unsupported(pos, "a card is expected")
        known = concrete(card.term)
        if known is not None:
            return pick(self.species[known]) if 0 <= known < len(self.species) else none
        result = none
        for i, sp in enumerate(self.species):
            result = z3.If(card.term == i, pick(sp), result)
        return result

    def bag_of(self, who: SVal, pos: s.Pos) -> BagV:
        if not isinstance(who, PlayerV):
            raise Unsupported(pos, "cards(...) needs a player")
        self.card_reads.add("the cards of the tableaux")
        bags: list[SVal] = [BagV(tuple(row)) for row in self.tableau]
        got = self.by_player(who, bags, pos)
        assert isinstance(got, BagV)
        return got

    def size(self, x: SVal, pos: s.Pos) -> Z:
        if isinstance(x, BagV):
            return z3.Sum(0, *x.counts)
        if isinstance(x, ListV):
            return z3.Sum(0, *(z3.If(m, 1, 0) for _, m in x.items))
        if isinstance(x, PileV):
            self.card_reads.add(f"the size of the {x.name}")
            return z3.Sum(*self.piles[x.name])
        raise Unsupported(pos, f"size of a {x.kind()}")

    def top(self, pile: SVal, pos: s.Pos) -> SVal:
        if not isinstance(pile, PileV):
            return CardV(z3.IntVal(NONE_ID))
        self.card_reads.add(f"the top of the {pile.name}")
        if pile.name not in self.tops:
            t = z3.Int(f"top_{pile.name}")
            counts = self.piles[pile.name]
            self.constraints.append((t == NONE_ID) == (z3.Sum(*counts) == 0))
            self.constraints.append(z3.And(t >= NONE_ID, t < len(self.species)))
            self.constraints += [z3.Implies(t == i, c >= 1) for i, c in enumerate(counts)]
            self.tops[pile.name] = t
        return CardV(self.tops[pile.name])

    def seats(self, who: SVal, skip: int, pos: s.Pos) -> ListV:
        """Seats from `who` (skip=0) or after it (skip=1), clockwise; empty for none."""
        if not isinstance(who, PlayerV):
            raise Unsupported(pos, "a player is expected")
        seat = concrete(who.term)
        if seat is not None:
            return self.seats_of(seat, skip)
        # A symbolic seat: the items are every player, present unless skipped; the order
        # is one of n rotations (no modular arithmetic for Z3).
        items = tuple((PlayerV(z3.IntVal(q)), z3.And(who.term != NONE_ID, z3.BoolVal(skip == 0) if skip == 0
                                                       else who.term != q)) for q in range(self.n))
        orders = tuple((who.term == p, self.seats_of(p, skip)) for p in range(self.n))
        return ListV(items, orders)

    def seats_of(self, seat: int, skip: int) -> ListV:
        if not 0 <= seat < self.n:
            return ListV(())
        return ListV(tuple((PlayerV(z3.IntVal((seat + i) % self.n)), z3.BoolVal(True))
                           for i in range(skip, self.n)))


def _int(v: SVal, pos: s.Pos) -> IntV:
    return Translator.integer(v, pos)


def _minmax(args: list[SVal], pos: s.Pos, smaller: bool) -> SVal:
    a, b = _int(args[0], pos), _int(args[1], pos)
    pick = (a.term < b.term) if smaller else (a.term > b.term)
    return IntV(z3.If(pick, a.term, b.term), z3.Or(a.none, b.none))


def _held(m: DistributionModel, args: list[SVal], pos: s.Pos) -> SVal:
    who = args[0]
    if not isinstance(who, PlayerV):
        raise Unsupported(pos, "held(...) needs a player")
    m.card_reads.add("the cards held")
    return m.by_player(who, [CardV(h) for h in m.hands], pos)


_CALLS: dict[str, Any] = {
    "value": lambda m, a, pos: IntV(m.card_fact(a[0], lambda sp: z3.IntVal(sp.value), z3.IntVal(0), pos)),
    "family": lambda m, a, pos: StrV(m.card_fact(a[0], lambda sp: z3.StringVal(sp.family), z3.StringVal(""), pos),
                                     a[0].term == NONE_ID),
    "species": lambda m, a, pos: StrV(m.card_fact(a[0], lambda sp: z3.StringVal(sp.name), z3.StringVal(""), pos),
                                      a[0].term == NONE_ID),
    "has_ability": lambda m, a, pos: BoolV(m.card_fact(a[0], lambda sp: z3.BoolVal(sp.ability is not None),
                                                       z3.BoolVal(False), pos)),
    "cards": lambda m, a, pos: m.bag_of(a[0], pos),
    "size": lambda m, a, pos: IntV(m.size(a[0], pos)),
    "top": lambda m, a, pos: m.top(a[0], pos),
    "held": _held,
    "others": lambda m, a, pos: m.seats(a[0], 1, pos),
    "seats_after": lambda m, a, pos: m.seats(a[0], 1, pos),
    "seats_from": lambda m, a, pos: m.seats(a[0], 0, pos),
    "max": lambda m, a, pos: _minmax(a, pos, smaller=False),
    "min": lambda m, a, pos: _minmax(a, pos, smaller=True),
    "abs": lambda m, a, pos: IntV(z3.If(_int(a[0], pos).term < 0, -_int(a[0], pos).term, _int(a[0], pos).term),
                                  _int(a[0], pos).none),
}


# ---------------------------------------------------------------- proofs


@dataclass
class StateCex:
    """A concrete state that breaks an invariant, read from Z3's model."""

    players: int
    tableaux: list[list[str]]  # species by slot
    hands: list[str | None]
    piles: dict[str, list[str]]  # bottom first; the last is the top
    engine: dict[str, Any]  # active, phase ... as far as the invariant reads them
    scalars: dict[str, Any]  # state variables the invariant reads
    per_player: dict[str, list[Any]]
    columns: dict[str, list[Any]]  # definitions of one player, per player
    defines: dict[str, Any]  # definitions without arguments
    broken: list[str] = field(default_factory=list)  # obligations that fail (a missing table row)


@dataclass
class Outcome:
    status: str  # proved | violated | unknown
    seconds: float
    detail: str = ""
    cex: StateCex | None = None
    reads: list[str] = field(default_factory=list)


def referenced_defines(rules: Ruleset, inv: s.InvariantDecl) -> list[str]:
    """Definitions an invariant reads, directly or through other definitions, in declaration order."""
    seen: set[str] = set()
    stack: list[object] = [inv.holds, *([inv.when] if inv.when is not None else [])]
    while stack:
        node = stack.pop()
        if isinstance(node, (s.Name, s.Call)):
            name = node.name if isinstance(node, s.Name) else node.func
            if name in rules.defines and name not in seen:
                seen.add(name)
                stack.append(rules.defines[name].body)
        if isinstance(node, s.Expr):
            for value in vars(node).values():
                stack.extend(value if isinstance(value, tuple) else [value])
    return [d for d in rules.defines if d in seen]


def claim(tr: Translator, inv: s.InvariantDecl) -> Z:
    """`when` implies `holds`, and every table the engine would look up has its row."""
    start = len(tr.obligations)
    when = tr.boolean(inv.when, {}) if inv.when is not None else z3.BoolVal(True)
    when_needs = [o.holds for o in tr.obligations[start:]]
    middle = len(tr.obligations)
    holds = tr.boolean(inv.holds, {})
    holds_needs = [o.holds for o in tr.obligations[middle:]]
    return z3.And(*when_needs, z3.Implies(when, z3.And(*holds_needs, holds)))


def prove_state(rules: Ruleset, inv: s.InvariantDecl, players: int, timeout_ms: int = 10_000) -> Outcome:
    start = time.perf_counter()
    model = DistributionModel(rules, players)
    tr = Translator(rules, model, players)
    try:
        goal = claim(tr, inv)
    except Unsupported as err:
        return Outcome("unknown", time.perf_counter() - start, f"not translatable: {err}")
    solver = z3.Solver()
    solver.set("timeout", timeout_ms)
    solver.add(*model.constraints)
    solver.add(z3.Not(goal))
    result = solver.check()
    reads = model.reads()
    if result == z3.unsat:
        return Outcome("proved", time.perf_counter() - start, reads=reads)
    if result == z3.unknown:
        return Outcome("unknown", time.perf_counter() - start, f"Z3: {solver.reason_unknown()}", reads=reads)
    # Solve once more with the definitions shown in the table, so that whatever they read
    # (a variable the invariant itself does not read) belongs to the same model.
    display = _display_terms(rules, inv, tr, model)
    solver.add(*model.constraints)
    if solver.check() != z3.sat:
        return Outcome("unknown", time.perf_counter() - start, "Z3 lost the counterexample", reads=reads)
    cex = read_cex(small_model(solver, model), model, tr, display)
    return Outcome("violated", time.perf_counter() - start, "", cex, reads)


def small_model(solver: Any, model: DistributionModel) -> Any:
    """A counterexample with few cards on the table, none in hand and, when the invariant allows,
    every other card in the box: easier to read and to replay. Keeps Z3's first model otherwise."""
    piles_empty = [c == 0 for name in PILES for c in model.piles[name]]
    for bound in (1, 2, 3, 5, 8):
        for extra in (piles_empty, []):
            solver.push()
            solver.add(*(z3.Sum(*row) <= bound for row in model.tableau), *extra)
            solver.add(*(h == NONE_ID for h in model.hands))
            chosen = solver.model() if solver.check() == z3.sat else None
            solver.pop()
            if chosen is not None:
                return chosen
    solver.check()
    return solver.model()


Display = tuple[dict[str, list[SVal]], dict[str, SVal]]


def _display_terms(rules: Ruleset, inv: s.InvariantDecl, tr: Translator, model: DistributionModel) -> Display:
    """Per-player definitions and the invariant's own definitions, translated before solving
    so that the symbols they read are part of the solved state."""
    keep = len(tr.obligations)
    columns: dict[str, list[SVal]] = {}
    for d in rules.defines.values():
        if d.formals is not None and len(d.formals) == 1 and d.formals[0].type == "player":
            try:
                columns[d.name] = [tr.define(d.name, [PlayerV(z3.IntVal(p))], d.pos) for p in range(model.n)]
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

    if isinstance(v, BoolV):
        return z3.is_true(ev(v.term))
    if isinstance(v, (IntV, StrV)):
        if z3.is_true(ev(v.none)):
            return None
        return ev(v.term).as_long() if isinstance(v, IntV) else ev(v.term).as_string()
    if isinstance(v, (PlayerV, CardV)):
        k = ev(v.term).as_long()
        if k == NONE_ID:
            return None
        return species[k].name if isinstance(v, CardV) else k
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

    columns, consts = display
    broken = [o.broken for o in tr.obligations if not z3.is_true(m.eval(o.holds, model_completion=True))]
    return StateCex(
        players=model.n,
        tableaux=[spread(row) for row in model.tableau],
        hands=[py_value(m, CardV(h), sp) for h in model.hands],
        piles={name: spread(model.piles[name], model.tops.get(name)) for name in PLACES},
        engine={k: py_value(m, v, sp) for k, v in model.engine_names.items()},
        scalars={k: py_value(m, v, sp) for k, v in model.scalars.items()},
        per_player={k: [py_value(m, x, sp) for x in vs] for k, vs in model.per_player.items()},
        columns={k: [py_value(m, x, sp) for x in vs] for k, vs in columns.items()},
        defines={k: py_value(m, v, sp) for k, v in consts.items()},
        broken=sorted(set(broken)),
    )
