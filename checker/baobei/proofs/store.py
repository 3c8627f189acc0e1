"""The prover's symbolic store: every part of an engine state as Z3 terms, for the real deck.

Each card of the deck (numbered as engine/state.py numbers them) has a place (`loc`: the box, a
pile, a hand or a tableau), a slot number when it lies in a tableau (`slot`, unbounded: penalty cards
add slots without limit) and a time stamp (`ts`) that orders the cards of a face-up pile or a hand
(the greatest is the top). A card can only ever be in one place: the store has no way to duplicate or
lose one. A tableau's number of slots (`nslots`) is kept apart, since slots stay when their cards go.

Besides the cards: who knows which card, the declared marks, the seats of the round, the protected
tableaux, the active player, the phase (strings are numbered), the round and turn counters, the open
windows (as many as the rules allow open), the queue of waiting abilities (bounded: a state that
would need more sets `over`, which a proof must rule out), the rules' variables, and `err` (the rules
asked for something impossible, as the engine would raise).

The store answers the builtins' `Symbolic` protocol, so the expression translator (translate.py) reads
it, and it offers the place operations the primitive statements need (`take_out`, `put`, `learn`
...). Its decisions go to the oracle of the path being run (machine.py).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import z3  # type: ignore[import-untyped]

from ..engine.state import CardFacts
from ..language import syntax as s
from ..language.ruleset import ALL_CARDS, Ruleset
from ..language.walk import exprs_of, walk_expr
from . import terms as T
from .alive import term_id
from .translate import (
    FALSE,
    NONE_ID,
    PURE,
    TRUE,
    BoolV,
    CardV,
    IntV,
    ListV,
    NoneV,
    OpaqueV,
    PlaceV,
    PlayerV,
    SlotSetV,
    SlotV,
    StrV,
    SVal,
    SymbolicModel,
    Unsupported,
    Z,
    is_none,
    merge,
)

Key = tuple[Any, ...]
_VERSIONS = itertools.count(1)
INT, BOOL = z3.IntSort(), z3.BoolSort()
BOX = 0
LIMBO = -1  # a card taken out and not yet put anywhere (within one statement)
QUEUE = 3  # waiting abilities the store keeps (a proof shows no reachable state needs more)


@dataclass(frozen=True)
class Range:
    """The cards of one species: numbers first .. last, and the species' facts."""

    first: int
    last: int
    species: str
    value: int
    family: str
    ability: str | None


class Codes:
    """The numbering of one ruleset and player count: places, strings, abilities, card facts."""

    def __init__(self, rules: Ruleset, players: int, queue: int = QUEUE) -> None:
        self.rules = rules
        self.n = players
        facts = CardFacts(rules)
        self.N = len(facts)
        self.labels = [facts.label(c) for c in range(self.N)]
        self.ranges: list[Range] = []
        start = 0
        for sp in rules.species.values():
            self.ranges.append(Range(start, start + sp.count - 1, sp.name, sp.value, sp.family, sp.ability))
            start += sp.count
        self.piles = list(rules.piles)
        self.P = len(self.piles)
        self.face_up = frozenset(i for i, name in enumerate(self.piles) if rules.piles[name].face_up)
        self.capacity = rules.hand.capacity if rules.hand is not None else 1
        window = rules.window
        self.windows = window.open_max if window is not None else 1
        self.attempts = window.attempts if window is not None else 1
        self.queue = queue
        self.abilities = [m.name for m in rules.moves.values() if m.is_ability]
        self.formals = {m.name: [f.type for f in m.formals] for m in rules.moves.values() if m.is_ability}
        self.cells = max((len(f) for f in self.formals.values()), default=0)
        self.marks = list(rules.marks)
        self.until_turn = [i for i, name in enumerate(self.marks) if rules.marks[name].until_turn]
        self.strings: dict[str, int] = {}
        for text in sorted(strings_of(rules)):
            self.strings[text] = len(self.strings) + 1

    # ------------------------------------------------------------ place codes
    def pile(self, index: int) -> int:
        return 1 + index

    def hand(self, player: Z | int) -> Z:
        return T.add(1 + self.P, player)

    def tab(self, player: Z | int) -> Z:
        return T.add(1 + self.P + self.n, player)

    @property
    def tab0(self) -> int:
        return 1 + self.P + self.n

    @property
    def last_code(self) -> int:
        return self.tab0 + self.n - 1

    def string(self, text: str) -> int:
        if text not in self.strings:
            self.strings[text] = len(self.strings) + 1  # a string only a probe names (a scenario's value)
        return self.strings[text]

    def text(self, code: int) -> str | None:
        return next((t for t, c in self.strings.items() if c == code), None)

    def ability_code(self, name: str) -> int:
        return self.abilities.index(name) + 1

    def pile_index(self, name: str) -> int:
        return self.piles.index(name)


def strings_of(rules: Ruleset) -> set[str]:
    """Every string constant the rules can compare or store: literals, phases, kinds, marks, card facts."""
    out = set(rules.phase_names) | set(rules.window_kinds) | set(rules.marks)
    for sp in rules.species.values():
        out |= {sp.name, sp.family}
    bodies: list[s.Expr] = []
    for m in rules.moves.values():
        bodies += [r.cond for r in m.requires] + ([m.by] if m.by is not None else []) + list(exprs_of(m.body))
    for r in [*rules.routines.values(), *rules.hooks.values()]:
        bodies += list(exprs_of(r.body))
    bodies += [d.body for d in rules.defines.values()] + [v.init for v in rules.variables.values()]
    for inv in rules.invariants.values():
        bodies += [inv.holds] + ([inv.when] if inv.when is not None else [])
    bodies += [p.when for p in rules.progress.values() if p.when is not None]
    bodies += [h.when for h in rules.halts.values()] + [p.when for p in rules.protects.values()]
    for body in bodies:
        out |= {n.value for n in walk_expr(body) if isinstance(n, s.Lit) and isinstance(n.value, str)}
    return out


# ---------------------------------------------------------------- the variables' parts

# The parts a value of a declared type is kept in: (part, sort).
PARTS: dict[str, tuple[tuple[str, Any], ...]] = {
    "int": (("v", INT), ("none", BOOL)),
    "bool": (("v", BOOL), ("none", BOOL)),
    "str": (("v", INT), ("none", BOOL)),
    "player": (("v", INT),),
    "card": (("v", INT),),
    "slot": (("p", INT), ("n", INT)),
}


def parts_of(codes: Codes, vtype: str) -> tuple[tuple[str, Any], ...]:
    if vtype == "players":
        return (("none", BOOL), *((f"m{q}", BOOL) for q in range(codes.n)))
    if vtype not in PARTS:
        raise Unsupported(s.NOWHERE, f"a value of type {vtype} (the symbolic store keeps no such value)")
    return PARTS[vtype]


def value_of(codes: Codes, vtype: str, part: Callable[[str], Z]) -> SVal:
    """A value from its parts (`part(name)` gives each term)."""
    if vtype == "int":
        return IntV(part("v"), part("none"))
    if vtype == "bool":
        return BoolV(part("v"), part("none"))
    if vtype == "str":
        return StrV(part("v"), part("none"))
    if vtype == "player":
        return PlayerV(part("v"))
    if vtype == "card":
        return CardV(part("v"))
    if vtype == "slot":
        return SlotV(part("p"), part("n"))
    if vtype == "players":
        return ListV(tuple((PlayerV(T.num(q)), T.and_(T.not_(part("none")), part(f"m{q}"))) for q in range(codes.n)))
    raise Unsupported(s.NOWHERE, f"a value of type {vtype}")


def parts_for(codes: Codes, vtype: str, value: SVal, pos: s.Pos) -> dict[str, Z]:
    """The parts that keep `value` as a value of this type (the inverse of `value_of`)."""
    if isinstance(value, NoneV):
        return none_parts(codes, vtype)
    if vtype in ("int", "bool", "str") and isinstance(value, (IntV, BoolV, StrV)):
        return {"v": value.term, "none": value.none}
    if vtype in ("player", "card") and isinstance(value, (PlayerV, CardV)):
        return {"v": value.term}
    if vtype == "slot" and isinstance(value, SlotV):
        return {"p": value.player, "n": value.number}
    if vtype == "players" and isinstance(value, ListV):
        return _player_mask(codes, value, pos)
    raise Unsupported(pos, f"a {value.kind()} kept as a value of type {vtype}")


def none_parts(codes: Codes, vtype: str) -> dict[str, Z]:
    if vtype in ("int", "str"):
        return {"v": T.num(0), "none": TRUE}
    if vtype == "bool":
        return {"v": FALSE, "none": TRUE}
    if vtype in ("player", "card"):
        return {"v": T.num(NONE_ID)}
    if vtype == "slot":
        return {"p": T.num(NONE_ID), "n": T.num(0)}
    return {"none": TRUE, **{f"m{q}": FALSE for q in range(codes.n)}}


def _player_mask(codes: Codes, value: ListV, pos: s.Pos) -> dict[str, Z]:
    """A list of players as one flag per seat: only a list in seating order can be kept so."""
    if value.orders:
        raise Unsupported(pos, "a list of players whose order depends on the state, kept as a value")
    mask: dict[str, Z] = {"none": FALSE, **{f"m{q}": FALSE for q in range(codes.n)}}
    last = -1
    for item, present in value.items:
        seat = T.value(item.term) if isinstance(item, PlayerV) else None
        if seat is None or seat <= last or seat >= codes.n:
            raise Unsupported(pos, "a list of players not in seating order, kept as a value")
        last = seat
        mask[f"m{seat}"] = present
    return mask


# ---------------------------------------------------------------- places a statement names


@dataclass(frozen=True)
class Where:
    """A place a card was in (what `locate` and `take_out` give): its code and slot number."""

    code: Z
    slot: Z


class SymStore(SymbolicModel):
    """One symbolic state: key -> term. Copies share the codes and the side constraints; `dirty` holds
    the keys written since the copy, so that merging branches looks at those only."""

    what = "symbolic store"

    def __init__(self, codes: Codes, terms: dict[Key, Z], side: list[Z]) -> None:
        self.codes = codes
        self.t = terms
        self.side = side  # definitions of fresh constants (a drawn card), true in every state
        self.dirty: dict[Key, None] = {}
        self.oracle: Any = None  # the decisions of the path being run (machine.Oracle)
        # The content's version: every write makes a new one, and a path that starts again from a state
        # takes that state's version back, so what was worked out for one version (a translated
        # definition, a pile's top) is shared by every path that reads the same content.
        self.version = next(_VERSIONS)
        self.memo: dict[Any, Any] = {}  # (version, what) -> value, for the current content only
        # Answers that stay until the cards change (FreeCards): never cleared with `memo`, so that a guard
        # and the body after it read the same fresh value for the same question.
        self.stable: dict[Any, Any] = {}
        self.fresh: Callable[[str, Any], Z] = _no_fresh
        # Random outcomes met on this path, in order (draws, picks): each with the condition it was met under
        # and its index among the move's draws (a term: paths that drew more or fewer cards merge).
        self.choices: list[tuple[str, Z, Z, Z]] = []

    def copy(self) -> SymStore:
        out = type(self)(self.codes, dict(self.t), self.side)
        out.version = self.version
        out.memo = self.memo
        out.stable = self.stable
        out.fresh = self.fresh
        out.choices = list(self.choices)
        return out

    def __getitem__(self, key: Key) -> Z:
        return self.t[key]

    def __setitem__(self, key: Key, value: Z) -> None:
        self.t[key] = value
        self.dirty[key] = None
        self.version = next(_VERSIONS)

    def remember(self, what: Any, make: Callable[[], Any]) -> Any:
        """`make()`, worked out once for this content (see `version`): a cache, cleared when it grows."""
        key = (self.version, what)
        if key not in self.memo:
            if len(self.memo) > 4_000:
                self.memo.clear()
            self.memo[key] = make()
        return self.memo[key]

    def answer_once(self, what: Any, make: Callable[[], Any]) -> Any:
        """`make()` for a question whose answer is a fresh value: the same for this content, however much is
        worked out in between (never cleared, and shared by copies). A cache would make a second value for
        the same question once cleared: the legality of a move and the move itself, run on two copies of a
        state, would then see two different answers, and a claim fall to a state no game has."""
        key = ("once", self.version, what)
        if key not in self.stable:
            self.stable[key] = make()
        return self.stable[key]

    def decide(self, cond: Z) -> bool:
        """A decision of the path being run: constant conditions decide themselves."""
        if T.is_true(cond):
            return True
        if T.is_false(cond):
            return False
        if self.oracle is None:
            raise Unsupported(s.NOWHERE, "a decision outside a symbolic run")
        return bool(self.oracle.decide(cond))

    # ------------------------------------------------------------ card facts
    def fact_term(self, card: Z, fact: str) -> Z:
        """A fact of the card with this number (as a term): species by species, by number ranges."""
        pick: Callable[[Range], Any] = {
            "value": lambda r: T.num(r.value), "family": lambda r: T.num(self.codes.string(r.family)),
            "species": lambda r: T.num(self.codes.string(r.species)),
            "has_ability": lambda r: T.boolean(r.ability is not None),
            "ability": lambda r: T.num(self.codes.ability_code(r.ability) if r.ability else 0)}[fact]
        ranges = self.codes.ranges
        fixed = T.value(card)
        if fixed is not None:
            return pick(next(r for r in ranges if r.first <= fixed <= r.last)) if 0 <= fixed < self.codes.N \
                else pick(ranges[0])
        out = pick(ranges[-1])
        for r in reversed(ranges[:-1]):
            out = T.ite(T.le(card, r.last), pick(r), out)
        return out

    def by_card(self, card: Z, key: Callable[[int], Key], absent: Z) -> Z:
        """The term kept under `key(k)` for the card k the term `card` names (`absent` for none)."""
        fixed = T.value(card)
        if fixed is not None:
            return self.t[key(fixed)] if 0 <= fixed < self.codes.N else absent
        out = absent
        for k in reversed(range(self.codes.N)):
            out = T.ite(T.eq(card, k), self.t[key(k)], out)
        return out

    def at(self, player: Z, number: Z, k: int) -> Z:
        """Card k lies on slot `number` of `player`'s tableau."""
        return T.and_(T.eq(self.t[("loc", k)], self.codes.tab(player)), T.eq(self.t[("slot", k)], number))

    def in_place(self, code: Z | int, k: int) -> Z:
        return T.eq(self.t[("loc", k)], code)

    def count_in(self, code: Z | int) -> Z:
        """How many cards a place holds: the kept count of the box, a pile or a hand, else counted card by card
        (a size read from a count is plain arithmetic, where counting every card's place would make the
        solver count cards one by one)."""
        fixed = code if isinstance(code, int) else T.value(code)
        if fixed is not None and 0 <= fixed < self.codes.tab0:
            return self.t[("size", fixed)]
        return T.count([self.in_place(code, k) for k in range(self.codes.N)])

    def hand_count(self, p: Z) -> Z:
        out: Z = T.num(0)
        for q in reversed(range(self.codes.n)):
            out = T.ite(T.eq(p, q), self.t[("size", 1 + self.codes.P + q)], out)
        return out

    def top_of(self, code: Z | int) -> Z:
        """The card of an ordered place with the greatest time stamp (ties: the greater number), or none."""
        return self.remember(("top", code if isinstance(code, int) else term_id(code)), lambda: self._top_of(code))

    def _top_of(self, code: Z | int) -> Z:
        N = self.codes.N
        here = [self.in_place(code, k) for k in range(N)]
        ts = [self.t[("ts", k)] for k in range(N)]
        out: Z = T.num(NONE_ID)
        for k in range(N):
            above = [T.and_(here[j], T.gt(ts[j], ts[k]) if j < k else T.ge(ts[j], ts[k])) for j in range(N) if j != k]
            out = T.ite(T.and_(here[k], T.not_(T.or_(*above))), k, out)
        return out

    # ------------------------------------------------------------ the Symbolic protocol
    def string(self, text: str) -> Z:
        return T.num(self.codes.string(text))

    def card_fact(self, card: SVal, fact: str, pos: s.Pos) -> SVal:
        term = _card(card, pos)
        value = self.fact_term(term, fact)
        if fact == "value":
            return IntV(value)
        if fact == "has_ability":
            return BoolV(value)
        return StrV(value)

    def card_at(self, slot: SVal, pos: s.Pos) -> SVal:
        sl = _slot(slot, pos)
        if sl.card is not None:
            return CardV(T.num(sl.card))  # the slot of this card, listed where the card lies there
        out: Z = T.num(NONE_ID)
        for k in reversed(range(self.codes.N)):
            out = T.ite(self.at(sl.player, sl.number, k), k, out)
        return CardV(out)

    def owner(self, slot: SVal, pos: s.Pos) -> SVal:
        return PlayerV(_slot(slot, pos).player)

    def slot_no(self, slot: SVal, pos: s.Pos) -> SVal:
        return IntV(_slot(slot, pos).number)

    def occupied(self, slot: SVal, pos: s.Pos) -> SVal:
        sl = _slot(slot, pos)
        if sl.card is not None:
            return BoolV(TRUE)
        return BoolV(T.or_(*[self.at(sl.player, sl.number, k) for k in range(self.codes.N)]))

    def make_slot(self, player: SVal, number: SVal, pos: s.Pos) -> SVal:
        if not isinstance(player, PlayerV) or not isinstance(number, IntV):
            raise Unsupported(pos, "slot(...) of a player and a number")
        return SlotV(T.ite(number.none, NONE_ID, player.term), number.term)

    def cards(self, player: SVal, pos: s.Pos) -> SVal:
        p = _player(player, pos)
        return ListV(tuple((CardV(T.num(k)), self.in_place(self.codes.tab(p), k)) for k in range(self.codes.N)),
                     unordered=True)

    def slots(self, player: SVal, free: bool, pos: s.Pos) -> SVal:
        p = _player(player, pos)
        if free:
            return self.free_slots(p)
        return ListV(tuple((SlotV(p, self.t[("slot", k)], k), self.in_place(self.codes.tab(p), k))
                           for k in range(self.codes.N)), unordered=True)

    def nslots(self, p: Z) -> Z:
        fixed = T.value(p)
        if fixed is not None:
            return self.t[("nslots", fixed)] if 0 <= fixed < self.codes.n else T.num(0)
        out: Z = T.num(0)
        for q in reversed(range(self.codes.n)):
            out = T.ite(T.eq(p, q), self.t[("nslots", q)], out)
        return out

    def free_slots(self, p: Z) -> SlotSetV:
        n = self.nslots(p)
        count = n - self.count_in(self.codes.tab(p))

        def member(item: SVal) -> Z:
            if isinstance(item, NoneV):
                return FALSE
            if not isinstance(item, SlotV):
                raise Unsupported(s.NOWHERE, f"'in' free slots with a {item.kind()}")
            return T.and_(T.eq(item.player, p), T.ge(item.number, 1), T.le(item.number, n),
                          T.not_(T.or_(*[self.at(p, item.number, k) for k in range(self.codes.N)])))

        return SlotSetV(p, count, member)

    def lowest_free(self, p: Z) -> Z:
        """The lowest free slot number of the tableau, or one after its last slot. The least number no
        card lies on is 1 or one more than a card's slot number: the candidates are these."""
        N, tab = self.codes.N, self.codes.tab(p)
        mine = [self.in_place(tab, k) for k in range(N)]
        candidates = [T.num(1)] + [T.add(self.t[("slot", k)], 1) for k in range(N)]
        present = [TRUE, *mine]
        best: Z = T.num(0)
        found: Z = FALSE
        for c, ok in zip(candidates, present, strict=True):
            free = T.and_(ok, T.not_(T.or_(*[T.and_(mine[k], T.eq(self.t[("slot", k)], c)) for k in range(N)])))
            better = T.and_(free, T.or_(T.not_(found), T.lt(c, best)))
            best = T.ite(better, c, best)
            found = T.or_(found, free)
        n = self.nslots(p)
        return T.ite(T.le(best, n), best, T.add(n, 1))

    def added_slot(self, player: SVal, preferred: SVal, pos: s.Pos) -> SVal:
        if isinstance(player, NoneV):
            return NoneV()
        p = _player(player, pos)
        chosen = T.and_(T.not_(is_none(preferred)), self.free_slots(p).member(preferred)) \
            if not isinstance(preferred, NoneV) else FALSE
        lowest = self.lowest_free(p)
        if T.is_false(chosen):
            return SlotV(p, lowest)
        assert isinstance(preferred, SlotV)
        return SlotV(p, T.ite(chosen, preferred.number, lowest))

    def size(self, value: SVal, pos: s.Pos) -> SVal:
        if isinstance(value, NoneV):
            return IntV(T.num(0))
        if isinstance(value, ListV):
            return IntV(T.count([m for _, m in value.items]))
        if isinstance(value, SlotSetV):
            return IntV(value.count)
        if isinstance(value, PlaceV):
            return IntV(self.place_count(value))
        raise Unsupported(pos, f"size of a {value.kind()}")

    def place_count(self, place: PlaceV) -> Z:
        if place.player is not None:
            return self.hand_count(place.player)
        return self.count_in(self.codes.pile(self.codes.pile_index(place.pile)))

    def place_code(self, place: PlaceV) -> Z:
        if place.player is not None:
            return self.codes.hand(place.player)
        return T.num(self.codes.pile(self.codes.pile_index(place.pile)))

    def top(self, place: SVal, pos: s.Pos) -> SVal:
        if isinstance(place, NoneV):
            return NoneV()
        if not isinstance(place, PlaceV):
            raise Unsupported(pos, f"top of a {place.kind()}")
        if place.player is not None:
            items = self.hand_items(place.player)
            last: Z = T.num(NONE_ID)
            for i, (card, _) in enumerate(items):
                last = T.ite(T.eq(self.hand_count(place.player), i + 1), card, last)
            return CardV(last)
        if place.player is None and self.codes.pile_index(place.pile) not in self.codes.face_up:
            raise Unsupported(pos, f"the top of the face-down {place.pile} (any of its cards may be drawn next)")
        code = self.place_code(place)
        absent = T.eq(place.player, NONE_ID) if place.player is not None else FALSE
        return CardV(T.ite(absent, NONE_ID, self.top_of(code)))

    def hand(self, player: SVal, pos: s.Pos) -> SVal:
        return PlaceV(player=_player(player, pos))

    def held(self, player: SVal, pos: s.Pos) -> SVal:
        return ListV(tuple((CardV(card), here) for card, here in self.hand_items(_player(player, pos))))

    def hand_items(self, p: Z) -> list[tuple[Z, Z]]:
        """A hand's cards in the order drawn, each with the condition that the hand holds that many: a hand
        is kept as `capacity` entries and a count (the cards' places say the same)."""
        fixed = T.value(p)
        count = self.hand_count(p)
        out = []
        for i in range(self.codes.capacity):
            if fixed is not None and 0 <= fixed < self.codes.n:
                card = self.t[("hand", fixed, i)]
            else:
                card = T.num(NONE_ID)
                for q in reversed(range(self.codes.n)):
                    card = T.ite(T.eq(p, q), self.t[("hand", q, i)], card)
            out.append((card, T.gt(count, i)))
        return out

    def seats(self, player: SVal, include_self: bool, pos: s.Pos) -> SVal:
        p = _player(player, pos)
        fixed = T.value(p)
        if fixed is not None:
            return self.seats_of(fixed % self.codes.n if fixed >= 0 else fixed, include_self)
        orders = tuple((T.eq(p, q), self.seats_of(q, include_self)) for q in range(self.codes.n))
        items = tuple((PlayerV(T.num(q)), T.and_(self.t[("in", q)], TRUE if include_self else T.ne(p, q)))
                      for q in range(self.codes.n))
        return ListV(items, orders)

    def seats_of(self, seat: int, include_self: bool) -> ListV:
        n = self.codes.n
        if seat < 0:
            return ListV(())
        order = [(seat + i) % n for i in range(n)][0 if include_self else 1:]
        return ListV(tuple((PlayerV(T.num(q)), self.t[("in", q)]) for q in order))

    def knows(self, player: SVal, card: SVal, pos: s.Pos) -> SVal:
        p, c = _player(player, pos), _card(card, pos)
        out: Z = FALSE
        for q in reversed(range(self.codes.n)):
            out = T.ite(T.eq(p, q), self.by_card(c, _keyed("known", q), FALSE), out)
        return BoolV(out)

    def marked(self, card: SVal, mark: SVal, pos: s.Pos) -> SVal:
        c = _card(card, pos)
        if not isinstance(mark, StrV):
            raise Unsupported(pos, "marked(...) with a mark that is no string")
        out: Z = FALSE
        for i, name in enumerate(self.codes.marks):
            out = T.ite(T.eq(mark.term, self.codes.string(name)), self.by_card(c, _keyed("mark", i), FALSE), out)
        return BoolV(out)

    def protected(self, player: SVal, pos: s.Pos) -> SVal:
        return BoolV(self.protected_term(_player(player, pos)))

    def protected_term(self, p: Z) -> Z:
        out: Z = FALSE
        for q in reversed(range(self.codes.n)):
            out = T.ite(T.eq(p, q), self.t[("protected", q)], out)
        return out

    def places(self, card: SVal, pos: s.Pos) -> SVal:
        # Every card has exactly one place in this store: `loc` is a function of the card.
        return IntV(T.num(1))

    def players(self, pos: s.Pos) -> SVal:
        return ListV(tuple((PlayerV(T.num(q)), self.t[("in", q)]) for q in range(self.codes.n)))

    def deck(self, pos: s.Pos) -> SVal:
        return ListV(tuple((CardV(T.num(k)), TRUE) for k in range(self.codes.N)))

    def player_count(self, pos: s.Pos) -> SVal:
        return IntV(T.count([self.t[("in", q)] for q in range(self.codes.n)]))

    def seat_count(self, pos: s.Pos) -> SVal:
        return IntV(T.num(self.codes.n))

    def state(self, name: str, kind: str, pos: s.Pos) -> SVal:
        t = self.t
        if name == "active":
            return PlayerV(t[("active",)])
        if name == "phase":
            return StrV(t[("phase",)])
        if name in ("round", "turn"):
            return IntV(t[(name,)])
        if name == "waiting":
            return IntV(t[("qn",)])
        return self.window_state(name, pos)

    def window_state(self, name: str, pos: s.Pos) -> SVal:
        """The newest open window's parts (none, false or nobody while no window is open)."""
        t, W = self.t, self.codes.windows
        wn = t[("wn",)]
        top = [T.eq(wn, i + 1) for i in range(W)]

        def newest(part: Callable[[int], Z], default: Z) -> Z:
            out = default
            for i in reversed(range(W)):
                out = T.ite(top[i], part(i), out)
            return out

        if name == "window_ref":
            return CardV(newest(lambda i: t[("w", i, "ref")], T.num(NONE_ID)))
        if name == "window_kind":
            return StrV(newest(lambda i: t[("w", i, "kind")], T.num(0)), T.eq(wn, 0))
        if name == "window_used":
            return BoolV(newest(lambda i: T.le(t[("w", i, "att")], 0), FALSE))
        if name == "window_players":
            return ListV(tuple((PlayerV(T.num(q)), newest(_window_player(t, q), FALSE)) for q in range(self.codes.n)))
        raise Unsupported(pos, f"the symbolic store has no value for {name!r}")

    def pending(self, player: SVal, pos: s.Pos) -> SVal:
        """The abilities and steps waiting for the player, in the order they wait (as strings)."""
        p = _player(player, pos)
        t = self.t
        items = []
        for i in range(self.codes.queue):
            name = T.num(0)
            for a in reversed(self.codes.abilities):
                name = T.ite(T.eq(t[("q", i, "ab")], self.codes.ability_code(a)), self.codes.string(a), name)
            items.append((StrV(name), T.and_(T.lt(i, t[("qn",)]), T.eq(t[("q", i, "owner")], p))))
        return ListV(tuple(items))

    def variable(self, decl: s.VarDecl, index: SVal | None, pos: s.Pos) -> SVal:
        codes = self.codes
        if index is None:
            return value_of(codes, decl.type, lambda part: self.t[("var", decl.name, part)])
        p = _player(index, pos)
        fixed = T.value(p)
        if fixed is not None:
            if not 0 <= fixed < codes.n:
                return NoneV()
            return value_of(codes, decl.type, lambda part: self.t[("pvar", decl.name, fixed, part)])

        def part(name: str) -> Z:
            out = none_parts(codes, decl.type)[name]
            for q in reversed(range(codes.n)):
                out = T.ite(T.eq(p, q), self.t[("pvar", decl.name, q, name)], out)
            return out

        return value_of(codes, decl.type, part)

    # ------------------------------------------------------------ the keys
    def keys(self) -> Iterator[Key]:
        return iter(self.t)


def _keyed(kind: str, index: int) -> Callable[[int], Key]:
    """The key of a per-card fact of one player or mark (`known`, `mark`), as a function of the card."""
    return lambda k: (kind, index, k)


def _window_player(t: dict[Key, Z], q: int) -> Callable[[int], Z]:
    return lambda i: t[("w", i, "pl", q)]


def _no_fresh(name: str, sort: Any) -> Z:
    raise Unsupported(s.NOWHERE, "a random outcome outside a relation (no fresh constants)")


def _card(v: SVal, pos: s.Pos) -> Z:
    if isinstance(v, CardV):
        return v.term
    if isinstance(v, NoneV):
        return T.num(NONE_ID)
    raise Unsupported(pos, f"a {v.kind()} where a card belongs")


def _player(v: SVal, pos: s.Pos) -> Z:
    if isinstance(v, PlayerV):
        return v.term
    if isinstance(v, NoneV):
        return T.num(NONE_ID)
    raise Unsupported(pos, f"a {v.kind()} where a player belongs")


def _slot(v: SVal, pos: s.Pos) -> SlotV:
    if isinstance(v, SlotV):
        return v
    raise Unsupported(pos, f"a {v.kind()} where a slot belongs")


# ---------------------------------------------------------------- whole states


def state_keys(codes: Codes) -> list[tuple[Key, Any]]:
    """Every key of a state with its sort."""
    N, n, rules = codes.N, codes.n, codes.rules
    keys: list[tuple[Key, Any]] = []
    for k in range(N):
        keys += [(("loc", k), INT), (("slot", k), INT), (("ts", k), INT)]
    # `draws` counts the draws of a move (the index of each in the move's trace); it is no part of the game.
    keys += [(("clock",), INT), (("draws",), INT)] + [(("nslots", p), INT) for p in range(n)]
    keys += [(("size", x), INT) for x in range(codes.tab0)]
    keys += [(("hand", p, i), INT) for p in range(n) for i in range(codes.capacity)]
    keys += [(("known", p, k), BOOL) for p in range(n) for k in range(N)]
    keys += [(("mark", i, k), BOOL) for i in range(len(codes.marks)) for k in range(N)]
    keys += [(("in", p), BOOL) for p in range(n)] + [(("protected", p), BOOL) for p in range(n)]
    keys += [((name,), INT) for name in ("active", "phase", "round", "turn", "wn", "qn")]
    for i in range(codes.windows):
        keys += [(("w", i, part), INT) for part in ("kind", "ref", "att")]
        keys += [(("w", i, "pl", p), BOOL) for p in range(n)]
    for i in range(codes.queue):
        keys += [(("q", i, part), INT) for part in ("ab", "card", "owner")] + [(("q", i, "after"), BOOL)]
        keys += [(("q", i, "arg", j, x), INT) for j in range(codes.cells) for x in ("a", "b", "n")]
    for v in rules.variables.values():
        for part, sort in parts_of(codes, v.type):
            if v.per_player:
                keys += [(("pvar", v.name, p, part), sort) for p in range(n)]
            else:
                keys += [(("var", v.name, part), sort)]
    keys += [(("err",), BOOL), (("over",), BOOL)]
    return keys


def fresh_store(codes: Codes, prefix: str, side: list[Z] | None = None) -> SymStore:
    """A state of fresh Z3 constants, named by `prefix` and the key."""
    terms = {key: z3.Const(prefix + "!" + ".".join(str(x) for x in key), sort) for key, sort in state_keys(codes)}
    return SymStore(codes, terms, side if side is not None else [])


FREE_MARK = "free:"  # the name of every fresh answer of store.FreeCards
# The name of a fresh answer about a tableau's list that its cards alone decide (LIST_QUESTIONS): a round
# value, say. A claim reading only these is tried by induction (see `reads_cards`).
LIST_MARK = "list:"
# The parts of the cards that change apart, each with its epoch (a state key of the free store): where the
# cards lie, who knows them, their marks. A question about one part keeps its answer while that part is not
# written (FreeCards.written).
LAYOUT, KNOWLEDGE, MARKS = "layout", "knowledge", "marks"
EPOCHS: dict[str, Key] = {LAYOUT: ("epoch",), KNOWLEDGE: ("epoch", "known"), MARKS: ("epoch", "marks")}
QUESTION_PART = {"knows": KNOWLEDGE, "marked": MARKS}  # the other stable questions are about the layout
# The questions of store.FreeCards whose answers only the cards decide (their keys name everything else
# they depend on): answered once per state of the part they ask about (see FreeCards.answer).
STABLE_QUESTIONS = frozenset({"card_at", "free_count", "free_slot", "added", "size", "top", "knows", "marked",
                              "free", "pile empty", "where", "where slot"})
# The lists of a tableau the store does not keep, and the questions about one of them that its cards alone
# decide: its size, whether a card is in it, and a quantifier over it that reads nothing but its item and
# the deck's facts (translate.PURE). Their answers too stay the same while the layout does.
TABLEAU_LISTS = frozenset({"cards", "slots"})
LIST_QUESTIONS = frozenset({"size", "in", PURE})
CARD_KEYS = frozenset({"loc", "slot", "ts", "known", "mark", "size", "nslots", "clock", "hand", "draws"})


def _list_question(what: tuple[Any, ...]) -> bool:
    """A question about a tableau's list that its cards alone decide (LIST_QUESTIONS)."""
    return len(what) > 2 and what[0] in TABLEAU_LISTS and what[2] in LIST_QUESTIONS


def reads_cards(term: Z) -> bool:
    """Whether a term over a fresh store reads a part of the cards' layout (a `pre!loc.3`, say). An answer
    about a tableau's list (LIST_MARK: a round value, a number of cards) does not count: store.FreeCards keeps
    it while nothing moves, and through every path of a move that moves nothing, so induction can use it."""
    seen: set[int] = set()
    stack = [term]
    while stack:
        x = stack.pop()
        ident = x.get_id()
        if ident in seen:
            continue
        seen.add(ident)
        if z3.is_const(x) and x.decl().kind() == z3.Z3_OP_UNINTERPRETED:
            name = x.decl().name()
            key = name.split("!", 1)[-1].split(".", 1)[0]
            if key in CARD_KEYS or key.startswith(FREE_MARK):
                return True
        stack.extend(x.children())
    return False


def well_formed(st: SymStore) -> list[Z]:
    """What every state of the encoding satisfies, as the engine's lists make it so: each card in a place
    that exists, no two cards on one slot, every slot number within its tableau, hands within their
    capacity, time stamps before the clock, values within their kinds (no rule failing, `err`, and no bound
    exceeded, `over`, are claims of their own: see induction.py)."""
    codes = st.codes
    N, n = codes.N, codes.n
    t = st.t
    out: list[Z] = []
    for k in range(N):
        loc = t[("loc", k)]
        out.append(T.and_(T.ge(loc, BOX), T.le(loc, codes.last_code)))
        out.append(T.lt(t[("ts", k)], t[("clock",)]))
    for p in range(n):
        tab, nsl = codes.tab(p), t[("nslots", p)]
        mine = [st.in_place(tab, k) for k in range(N)]
        out.append(T.ge(nsl, 0))
        for k in range(N):
            out.append(T.implies(mine[k], T.and_(T.ge(t[("slot", k)], 1), T.le(t[("slot", k)], nsl))))
            for j in range(k + 1, N):
                out.append(T.implies(T.and_(mine[k], mine[j]), T.ne(t[("slot", k)], t[("slot", j)])))
        held = st.count_in(1 + codes.P + p)
        out.append(T.le(held, codes.capacity))
        entries = [t[("hand", p, i)] for i in range(codes.capacity)]
        for i, card in enumerate(entries):
            here = st.by_card(card, lambda k: ("loc", k), T.num(-2))
            out.append(T.implies(T.gt(held, i), T.and_(T.ge(card, 0), T.lt(card, N), T.eq(here, codes.hand(p)))))
            out += [T.implies(T.gt(held, j), T.ne(card, entries[j])) for j in range(i + 1, codes.capacity)]
    for x in range(codes.tab0):
        out.append(T.eq(t[("size", x)], T.count([st.in_place(x, k) for k in range(N)])))
    out += scalar_ranges(st)
    return out


def scalar_ranges(st: SymStore) -> list[Z]:
    codes = st.codes
    t, n, N = st.t, codes.n, codes.N
    phases = [codes.string(x) for x in codes.rules.phase_names]
    kinds = [codes.string(x) for x in codes.rules.window_kinds]
    out = [T.and_(T.ge(t[("active",)], 0), T.lt(t[("active",)], n)),
           T.or_(*[T.eq(t[("phase",)], c) for c in phases]) if phases else TRUE,
           T.or_(*[t[("in", p)] for p in range(n)]), T.ge(t[("round",)], 1), T.ge(t[("turn",)], 0),
           T.and_(T.ge(t[("wn",)], 0), T.le(t[("wn",)], codes.windows)),
           T.and_(T.ge(t[("qn",)], 0), T.le(t[("qn",)], codes.queue))]
    for i in range(codes.windows):
        out.append(T.implies(T.lt(i, t[("wn",)]), T.and_(
            T.ge(t[("w", i, "ref")], 0), T.lt(t[("w", i, "ref")], N), T.le(t[("w", i, "att")], codes.attempts),
            T.or_(*[T.eq(t[("w", i, "kind")], c) for c in kinds]) if kinds else TRUE)))
    for i in range(codes.queue):
        out.append(T.implies(T.lt(i, t[("qn",)]), T.and_(
            T.ge(t[("q", i, "ab")], 1), T.le(t[("q", i, "ab")], len(codes.abilities)),
            T.ge(t[("q", i, "owner")], 0), T.lt(t[("q", i, "owner")], n),
            T.ge(t[("q", i, "card")], 0), T.lt(t[("q", i, "card")], N))))
    for v in codes.rules.variables.values():
        for p in range(n) if v.per_player else [None]:
            out += var_range(st, v, p)
    return out


def var_range(st: SymStore, v: s.VarDecl, p: int | None) -> list[Z]:
    codes = st.codes

    def part(name: str) -> Z:
        return st.t[("var", v.name, name) if p is None else ("pvar", v.name, p, name)]

    if v.type in ("player", "card"):
        top = codes.n if v.type == "player" else codes.N
        return [T.and_(T.ge(part("v"), NONE_ID), T.lt(part("v"), top))]
    if v.type == "str":
        return [T.or_(part("none"), *[T.eq(part("v"), c) for c in codes.strings.values()])]
    if v.type == "slot":
        return [T.or_(T.eq(part("p"), NONE_ID), T.and_(T.ge(part("p"), 0), T.lt(part("p"), codes.n),
                                                      T.ge(part("n"), 1)))]
    return []


def all_cards_source(source: s.ShuffleSource) -> bool:
    return source.pile == ALL_CARDS


# ---------------------------------------------------------------- the cards as free values


class FreeCards(SymStore):
    """The store with the cards' layout left out: the cone-of-influence abstraction of the proofs.

    Only what the rules keep about the game (the phase, the players, the windows, the waiting abilities,
    the variables) is kept. Whatever reads the cards (the card on a slot, a pile's top or size, who knows
    a card) answers a fresh value: the same value for the same question until something is written, then
    a new one (for a question about a tableau's list, only on the paths of a move that wrote it:
    `stable_answer`). Statements that move, show or mark
    cards write nothing but that something was written. A tableau of a player the state names (the BAO
    caller) is the tableau of the seat that player is (`tableau_list`), and a sum or count over a tableau's
    cards that reads nothing but their facts (a round value) is a question about the cards alone.
    Every state of the game is among the states this store allows, so a claim proved with it holds; a
    claim about the cards usually cannot be proved with it (its CTI says so), and the precise store does.
    """

    what = "store with free cards"

    def answer(self, what: tuple[Any, ...], kind: str, layout: Z | None = None) -> SVal:
        """A fresh value for a question about the cards, the same for the same question in this content.
        A question about the cards alone (STABLE_QUESTIONS: a slot's card, a pile's size, who knows a card)
        keeps its answer until the cards change (`written`), whatever else changes: that is what lets a
        claim see that closing a window or passing the turn leaves the cards, and what they allow, alone.
        `layout` is the layout's epoch when the value asked about was made (a tableau's list, its free
        slots): a list kept in a variable is the tableau as it was then, so a question about it after a
        card moved is not the question about the tableau now."""
        topic = what[1] if what and what[0] == "ask" and len(what) > 1 else what[0] if what else None
        if _list_question(what):
            return self.stable_answer(self.t[EPOCHS[LAYOUT]] if layout is None else layout, what, kind)
        if topic in STABLE_QUESTIONS:
            part = QUESTION_PART.get(topic, LAYOUT)
            epoch = layout if layout is not None and part == LAYOUT else self.t[EPOCHS[part]]
            key = ("stable", self.pinned(epoch), what)
            if key not in self.stable:
                self.stable[key] = self._fresh_value(kind, what)
            kept: SVal = self.stable[key]
            return kept
        value: SVal = self.answer_once(("free", *what), lambda: self._fresh_value(kind, what))
        return value

    def stable_answer(self, epoch: Z, what: tuple[Any, ...], kind: str) -> SVal:
        """The answer while the part is at this epoch. A move that writes the part on some of its paths only
        leaves the epoch `If(path, new, old)`: the answer is then the new epoch's on that path and the old
        one's elsewhere, so that a path which wrote nothing keeps every answer (the other paths of an
        `end_turn` run the abilities that settle, say, and they move cards)."""
        key = ("stable", self.pinned(epoch), what)
        if key not in self.stable:
            if z3.is_app_of(epoch, z3.Z3_OP_ITE):
                cond, new, old = epoch.children()
                self.stable[key] = merge(cond, self.stable_answer(new, what, kind),
                                         self.stable_answer(old, what, kind), s.NOWHERE)
            else:
                self.stable[key] = self._fresh_value(kind, what)
        stable: SVal = self.stable[key]
        return stable

    def pinned(self, epoch: Z) -> int:
        """The epoch's id, the term kept alive with the answers keyed by it: Z3 gives a freed term's id to a
        new one, which would then inherit the answers (an epoch written in a legality trial, whose copy of the
        store is dropped, say)."""
        ident: int = epoch.get_id()
        self.stable.setdefault(("epoch", ident), epoch)
        return ident

    def _fresh_value(self, kind: str, what: tuple[Any, ...]) -> SVal:
        codes = self.codes
        # reads_cards tells these from the kept values, and the answers about a tableau's list from the others
        mark = LIST_MARK if _list_question(what) else FREE_MARK
        label = f"{mark}{what[0] if what else kind}"
        if kind == "bool":
            return BoolV(self.fresh(label, BOOL))
        if kind == "int":
            return IntV(self.fresh(label, INT))
        if kind == "card":
            x = self.fresh(label, INT)
            self.side.append(T.and_(T.ge(x, NONE_ID), T.lt(x, codes.N)))
            return CardV(x)
        if kind == "player":
            x = self.fresh(label, INT)
            self.side.append(T.and_(T.ge(x, NONE_ID), T.lt(x, codes.n)))
            return PlayerV(x)
        if kind == "str":
            return StrV(self.fresh(label, INT))
        if kind == "slot":
            p, n = self.fresh(label + ".p", INT), self.fresh(label + ".n", INT)
            self.side.append(T.and_(T.ge(p, NONE_ID), T.lt(p, codes.n), T.ge(n, 1)))
            return SlotV(p, n)
        raise Unsupported(s.NOWHERE, f"a free value of kind {kind}")

    def opaque(self, what: tuple[Any, ...], item: str) -> OpaqueV:
        return OpaqueV(what, item, lambda key, kind: self.answer(key, kind))

    def written(self, *parts: str) -> None:
        """Some part of the cards changed (all of them when none is named): every later question about that
        part gets a fresh answer. Who knows a card, and its marks, go with the card, not with its place: a
        move leaves them, and learning a card leaves every place as it was."""
        for part in parts or tuple(EPOCHS):
            self[EPOCHS[part]] = self.fresh(EPOCHS[part][-1], INT)

    # ------------------------------------------------------------ the Symbolic protocol, cards free
    def card_at(self, slot: SVal, pos: s.Pos) -> SVal:
        sl = _slot(slot, pos)
        return self.answer(("card_at", term_id(sl.player), term_id(sl.number)), "card")

    def occupied(self, slot: SVal, pos: s.Pos) -> SVal:
        card = self.card_at(slot, pos)
        assert isinstance(card, CardV)
        return BoolV(T.ne(card.term, NONE_ID))

    def cards(self, player: SVal, pos: s.Pos) -> SVal:
        return self.tableau_list("cards", _player(player, pos), "card", pos)

    def tableau_list(self, topic: str, p: Z, item: str, pos: s.Pos) -> OpaqueV:
        """A list of player p's tableau. Its answers are a seat's own: for a player the state decides (the BAO
        caller, say), each answer is the answer about the seat that player is, so that a claim about the
        caller's cards and the routine that scored them by seat ask the same question."""
        made = self.t[EPOCHS[LAYOUT]]  # the list is the tableau as it is now, however late it is asked
        if T.value(p) is not None:
            return OpaqueV((topic, term_id(p)), item, lambda key, kind: self.answer(key, kind, made), made)
        seats = [T.num(q) for q in range(self.codes.n)]

        def answer(key: tuple[Any, ...], kind: str) -> SVal:
            out = self.answer(key, kind, made)  # a value that is no seat (none): a question of its own
            if key[:2] != (topic, term_id(p)):
                return out  # a question about a list made of this one (`if c then cards(x) else ...`): its own
            for q in reversed(seats):
                out = merge(T.eq(p, q), self.answer((topic, term_id(q), *key[2:]), kind, made), out, pos)
            return out

        return OpaqueV((topic, term_id(p)), item, answer, made)

    def slots(self, player: SVal, free: bool, pos: s.Pos) -> SVal:
        p = _player(player, pos)
        if not free:
            return self.tableau_list("slots", p, "slot", pos)
        count = self.answer(("free_count", term_id(p)), "int")
        assert isinstance(count, IntV)
        made = self.t[EPOCHS[LAYOUT]]  # asked later, membership is still of the free slots of now
        return SlotSetV(p, count.term, lambda item: self.free_slot(p, item, made))

    def free_slot(self, p: Z, item: SVal, layout: Z) -> Z:
        """Whether the slot is among p's free slots (as they were at that layout): a free answer. It may count
        a slot of another player, or none, as free, which only adds behaviours (sound for what is proved).
        Saying "only p's own numbered slots" here, as the precise store does, made every move's relation
        differ and certification more than twice as slow, and no claim of the rules needed it."""
        return truth_of(self.answer(("free_slot", term_id(p), _key(item)), "bool", layout))

    def added_slot(self, player: SVal, preferred: SVal, pos: s.Pos) -> SVal:
        if isinstance(player, NoneV):
            return NoneV()
        p = _player(player, pos)
        n = self.answer(("added", term_id(p), _key(preferred)), "int")
        assert isinstance(n, IntV)
        self.side.append(T.ge(n.term, 1))
        return SlotV(p, n.term)

    def size(self, value: SVal, pos: s.Pos) -> SVal:
        if isinstance(value, (ListV, NoneV, SlotSetV)):
            return super().size(value, pos)
        if isinstance(value, OpaqueV):
            n = value.answer(("size",), "int")
        elif isinstance(value, PlaceV):
            n = self.answer(("size", _key(value)), "int")
        else:
            raise Unsupported(pos, f"size of a {value.kind()}")
        assert isinstance(n, IntV)
        self.side.append(T.ge(n.term, 0))
        return n

    def top(self, place: SVal, pos: s.Pos) -> SVal:
        if isinstance(place, NoneV):
            return NoneV()
        return self.answer(("top", _key(place)), "card")

    def held(self, player: SVal, pos: s.Pos) -> SVal:
        return self.opaque(("held", term_id(_player(player, pos))), "card")

    def knows(self, player: SVal, card: SVal, pos: s.Pos) -> SVal:
        return self.answer(("knows", term_id(_player(player, pos)), term_id(_card(card, pos))), "bool")

    def marked(self, card: SVal, mark: SVal, pos: s.Pos) -> SVal:
        return self.answer(("marked", term_id(_card(card, pos)), _key(mark)), "bool")


def truth_of(v: SVal) -> Z:
    return v.term if isinstance(v, BoolV) else FALSE


def _key(v: SVal) -> tuple[Any, ...]:
    out: list[Any] = [type(v).__name__, getattr(v, "pile", None)]
    for f in ("term", "none", "player", "number"):
        x = getattr(v, f, None)
        if x is not None and hasattr(x, "get_id"):
            out.append(term_id(x))
    return tuple(out)


SCALAR_PREFIXES = frozenset({"active", "phase", "round", "turn", "wn", "qn", "w", "q", "var", "pvar", "in",
                             "protected", "err", "over", "draws", "epoch"})


def free_state_keys(codes: Codes) -> list[tuple[Key, Any]]:
    """The keys a store with free cards keeps: those of the game, not of the cards' layout."""
    keys = [(key, sort) for key, sort in state_keys(codes) if key[0] in SCALAR_PREFIXES]
    return [*keys, *((epoch, INT) for epoch in EPOCHS.values())]


def fresh_free_store(codes: Codes, prefix: str, side: list[Z] | None = None) -> FreeCards:
    terms = {key: z3.Const(prefix + "!" + ".".join(str(x) for x in key), sort) for key, sort in free_state_keys(codes)}
    return FreeCards(codes, terms, side if side is not None else [])
