"""The symbolic state of the transition relation: every part of an engine state as Z3 terms.

A state is a flat map from keys to terms, so that copying, merging two branches,
making fresh variables for the next step and reading a model back are one loop
each. What the keys hold (the layout):

- per card: its place (`loc`: a number, see `Layout.code`) and its position in an
  ordered place (`pos`: the discard pile and the hands keep their order; a face-down
  pile is a set, since after a shuffle any of its cards may be drawn next);
- per slot: the card on it, or NONE_ID (`slot`), and per tableau its length (`nslots`),
  at most `Layout.slots` (the bound the report names when it is reached);
- who knows which card (`known`), the declared marks (`mark`), the seats of the round
  (`in_round`), the protected tableaux (`protected`);
- the active player, the phase (a number of the string enumeration), the round, the
  turn counter; the open window (one at most: its kind, reference, players, attempts);
- the waiting abilities, a bounded queue (`Layout.queue` entries: the ability, its card,
  owner, whether it waits for the window, the values a `continue` gave it);
- the rules' variables (per player for `player var`), in the value kinds of translate.py;
- three flags: `err` (a rule failed, as the engine would raise: a card covered, a full
  hand), `over` (a bound of the layout was exceeded), `left` (the round was left by the
  deal of the next one; a path ends there).

Cards are numbered as the engine numbers them (engine/state.py's CardFacts), so a model
reads back into an engine state card for card.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import z3  # type: ignore[import-untyped]

from ..language import syntax as s
from ..language.ruleset import Ruleset
from ..language.walk import exprs_of, walk_expr
from . import terms as T
from .translate import (
    FALSE,
    NONE_ID,
    TRUE,
    BoolV,
    CardV,
    IntV,
    ListV,
    PlayerV,
    SlotV,
    StrV,
    SVal,
    Unsupported,
    Z,
)

Key = tuple[Any, ...]
BOX = 0  # the place code of the cards out of play
INT, BOOL = z3.IntSort(), z3.BoolSort()


@dataclass(frozen=True)
class CardInfo:
    species: str
    value: int
    family: str
    ability: str | None


@dataclass
class Layout:
    """The shape of the symbolic state for one ruleset and player count, and the numbering of places."""

    rules: Ruleset
    players: int
    slots: int  # slots per tableau at most
    queue: int  # waiting abilities at most
    cards: list[CardInfo] = field(default_factory=list)
    strings: dict[str, int] = field(default_factory=dict)  # every string the rules can hold, numbered from 1
    abilities: list[str] = field(default_factory=list)  # abilities and steps, numbered from 1 in the queue
    cells: int = 0  # the values a queued step carries at most

    def __post_init__(self) -> None:
        rules = self.rules
        for sp in rules.species.values():
            self.cards += [CardInfo(sp.name, sp.value, sp.family, sp.ability)] * sp.count
        for text in sorted(_strings(rules)):
            self.strings.setdefault(text, len(self.strings) + 1)
        self.abilities = [m.name for m in rules.moves.values() if m.is_ability]
        self.cells = max((len(m.formals) for m in rules.moves.values() if m.is_ability), default=0)
        self.piles = list(rules.piles)
        self.face_up = [rules.piles[name].face_up for name in self.piles]
        self.capacity = rules.hand.capacity if rules.hand is not None else 1
        self.marks = list(rules.marks)

    # ------------------------------------------------------------ place codes
    @property
    def n(self) -> int:
        return len(self.cards)

    def pile_code(self, index: int) -> int:
        return 1 + index

    def hand_code(self, player: Z | int) -> Z:
        seat = player if isinstance(player, int) else T.value(player)
        if seat is not None:
            return 1 + len(self.piles) + seat
        return T.add(1 + len(self.piles), player)

    @property
    def slot_base(self) -> int:
        return 1 + len(self.piles) + self.players

    def slot_code(self, player: Z | int, number: Z | int) -> Z:
        seat = player if isinstance(player, int) else T.value(player)
        k = number if isinstance(number, int) else T.value(number)
        if seat is not None and k is not None:
            return self.slot_base + seat * self.slots + k - 1
        return T.add(T.add(self.slot_base - 1, player * self.slots if seat is None else seat * self.slots),
                     number)

    @property
    def codes(self) -> int:
        """How many place codes there are (0 .. codes-1)."""
        return self.slot_base + self.players * self.slots

    def counted_codes(self) -> list[int]:
        """The places whose number of cards the state keeps (the box, the piles, the hands): a size read
        from a count is plain arithmetic, where summing over every card's place would make the solver
        count cards one by one (a pigeonhole argument for every draw of a deal)."""
        return list(range(self.slot_base))

    def ordered_codes(self) -> list[int]:
        """The places that keep an order: face-up piles (their top is seen) and hands (the last drawn)."""
        piles = [self.pile_code(i) for i, up in enumerate(self.face_up) if up]
        return piles + [1 + len(self.piles) + p for p in range(self.players)]

    def string(self, text: str) -> int:
        if text not in self.strings:
            self.strings[text] = len(self.strings) + 1  # a string only a probe names (a scenario's value)
        return self.strings[text]

    def text_of(self, code: int) -> str | None:
        return next((t for t, c in self.strings.items() if c == code), None)

    def ability_code(self, name: str) -> int:
        return self.abilities.index(name) + 1

    def over(self, st: Any) -> bool:
        """Whether an engine state lies beyond the layout's bounds (more slots or waiting abilities)."""
        return any(len(row) > self.slots for row in st.tableaux) or len(st.waiting) > self.queue


def _strings(rules: Ruleset) -> set[str]:
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


# ---------------------------------------------------------------- the state


class SymState:
    """One symbolic state: key -> term. Copies share the terms (they are immutable). `dirty` holds the
    keys written since the copy was made, so that merging two branches looks at those only."""

    __slots__ = ("dirty", "layout", "t")

    def __init__(self, layout: Layout, terms: dict[Key, Z]) -> None:
        self.layout = layout
        self.t = terms
        # The keys written since the copy, in the order they were first written (a dict as an ordered
        # set): merges walk them, and a walk in hash order would give Z3 a different formula each run.
        self.dirty: dict[Key, None] = {}

    def copy(self) -> SymState:
        return SymState(self.layout, dict(self.t))

    def __getitem__(self, key: Key) -> Z:
        return self.t[key]

    def __setitem__(self, key: Key, value: Z) -> None:
        self.t[key] = value
        self.dirty[key] = None

    def keys(self) -> Iterator[Key]:
        return iter(self.t)

    # ------------------------------------------------------------ common reads
    def loc(self, card: int) -> Z:
        return self.t[("loc", card)]

    def slot(self, player: int, number: int) -> Z:
        return self.t[("slot", player, number)] if 1 <= number <= self.layout.slots else T.num(NONE_ID)

    def size(self, code: Z | int) -> Z:
        """How many cards the place with this code holds (a box, pile or hand; a slot holds at most one)."""
        fixed = code if isinstance(code, int) else T.value(code)
        if fixed is not None:
            # A slot is no counted place: its card has no position (0).
            return self.t[("size", fixed)] if fixed < self.layout.slot_base else T.num(0)
        out = T.num(0)
        for x in reversed(self.layout.counted_codes()):
            out = T.ite(T.eq(code, x), self.t[("size", x)], out)
        return out

    def var(self, name: str, part: str, player: int | None = None) -> Z:
        return self.t[("var", name, part) if player is None else ("pvar", name, player, part)]


def merge_states(cond: Z, a: SymState, b: SymState, base: SymState | None = None) -> SymState:
    """`if cond then a else b`, key by key. When both are copies of `base`, only the keys either wrote
    are merged (the others are base's)."""
    if T.is_true(cond):
        return a
    if T.is_false(cond):
        return b
    if base is None:
        out = SymState(a.layout, {key: T.ite(cond, x, b.t[key]) for key, x in a.t.items()})
        out.dirty = dict.fromkeys(a.t)
        return out
    out = SymState(a.layout, dict(base.t))
    out.dirty = dict(base.dirty)
    for key in {**a.dirty, **b.dirty}:
        out[key] = T.ite(cond, a.t[key], b.t[key])
    return out


# ---------------------------------------------------------------- variables of the rules

# The parts a variable's value is kept in, by declared type: (part, sort).
VAR_PARTS: dict[str, tuple[tuple[str, Any], ...]] = {
    "int": (("v", INT), ("none", BOOL)),
    "bool": (("v", BOOL), ("none", BOOL)),
    "str": (("v", INT), ("none", BOOL)),
    "player": (("v", INT),),
    "card": (("v", INT),),
    "slot": (("p", INT), ("n", INT)),
}


def var_parts(layout: Layout, vtype: str) -> tuple[tuple[str, Any], ...]:
    if vtype == "players":
        return (("none", BOOL), *((f"m{q}", BOOL) for q in range(layout.players)))
    if vtype not in VAR_PARTS:
        raise Unsupported(s.NOWHERE, f"a variable of type {vtype} (the transition relation keeps no such value)")
    return VAR_PARTS[vtype]


def var_value(layout: Layout, vtype: str, part: Any) -> SVal:
    """The symbolic value of a variable from its parts (`part(name)` gives each term)."""
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
        # A list of players kept as one flag per seat (and none as a flag of its own: no list at all).
        return ListV(tuple((PlayerV(T.num(q)), T.and_(T.not_(part("none")), part(f"m{q}")))
                           for q in range(layout.players)))
    raise Unsupported(s.NOWHERE, f"a variable of type {vtype}")


def value_parts(layout: Layout, vtype: str, value: SVal, pos: s.Pos) -> dict[str, Z]:
    """The parts that keep `value` in a variable of this type (the inverse of `var_value`)."""
    from .translate import NoneV, none_like

    if isinstance(value, NoneV):
        value = none_like(var_value(layout, vtype, lambda part: _zero(layout, vtype, part)))
    if vtype == "int" and isinstance(value, IntV):
        return {"v": value.term, "none": value.none}
    if vtype == "bool" and isinstance(value, BoolV):
        return {"v": value.term, "none": value.none}
    if vtype == "str" and isinstance(value, StrV):
        return {"v": value.term, "none": value.none}
    if vtype in ("player", "card") and isinstance(value, (PlayerV, CardV)):
        return {"v": value.term}
    if vtype == "slot" and isinstance(value, SlotV):
        return {"p": value.player, "n": value.number}
    if vtype == "players" and isinstance(value, ListV):
        return _player_mask(layout, value, pos)
    raise Unsupported(pos, f"a {value.kind()} kept in a variable of type {vtype}")


def _zero(layout: Layout, vtype: str, part: str) -> Z:
    sort = dict(var_parts(layout, vtype))[part]
    return FALSE if sort == BOOL else T.num(0)


def _player_mask(layout: Layout, value: ListV, pos: s.Pos) -> dict[str, Z]:
    """A list of players as one flag per seat: only a list in seating order can be kept so."""
    if value.orders:
        raise Unsupported(pos, "a list of players whose order depends on the state, kept in a variable")
    mask: dict[str, Z] = {"none": FALSE, **{f"m{q}": FALSE for q in range(layout.players)}}
    last = -1
    for item, present in value.items:
        seat = T.simplify(item.term) if isinstance(item, PlayerV) else None
        if seat is None or not z3.is_int_value(seat) or seat.as_long() <= last:
            raise Unsupported(pos, "a list of players not in seating order, kept in a variable")
        last = seat.as_long()
        mask[f"m{last}"] = present
    return mask


# ---------------------------------------------------------------- building states


def state_keys(layout: Layout) -> list[tuple[Key, Any]]:
    """Every key of a state with its sort."""
    rules, n, P = layout.rules, layout.n, layout.players
    keys: list[tuple[Key, Any]] = []
    keys += [(("loc", c), INT) for c in range(n)] + [(("pos", c), INT) for c in range(n)]
    keys += [(("slot", p, k), INT) for p in range(P) for k in range(1, layout.slots + 1)]
    keys += [(("nslots", p), INT) for p in range(P)] + [(("size", x), INT) for x in layout.counted_codes()]
    keys += [(("known", p, c), BOOL) for p in range(P) for c in range(n)]
    keys += [(("mark", m, c), BOOL) for m in layout.marks for c in range(n)]
    keys += [(("in_round", p), BOOL) for p in range(P)] + [(("protected", p), BOOL) for p in range(P)]
    keys += [((name,), INT) for name in ("active", "phase", "round", "turn", "wkind", "wref", "watt")]
    keys += [(("wopen",), BOOL)] + [(("wplayers", p), BOOL) for p in range(P)]
    for i in range(layout.queue):
        keys += [(("q", i, "on"), BOOL), (("q", i, "ab"), INT), (("q", i, "card"), INT), (("q", i, "owner"), INT),
                 (("q", i, "after"), BOOL)]
        keys += [(("q", i, "arg", j, x), INT) for j in range(layout.cells) for x in (0, 1)]
    for v in rules.variables.values():
        for part, sort in var_parts(layout, v.type):
            if v.per_player:
                keys += [(("pvar", v.name, p, part), sort) for p in range(P)]
            else:
                keys += [(("var", v.name, part), sort)]
    keys += [(("err",), BOOL), (("over",), BOOL), (("left",), BOOL)]
    return keys


def fresh_state(layout: Layout, prefix: str) -> SymState:
    """A state of fresh Z3 constants, named `prefix` and the key."""
    terms = {}
    for key, sort in state_keys(layout):
        terms[key] = z3.Const(prefix + "!" + ".".join(str(k) for k in key), sort)
    return SymState(layout, terms)


def equal_states(a: SymState, b: SymState) -> Z:
    return T.and_(*[a.t[k] == b.t[k] for k in a.t])


def well_formed(st: SymState) -> list[Z]:
    """What every state of the encoding satisfies: each card in one valid place, the slots agreeing with
    the cards' places, ordered places numbered 0..size-1, values within their kinds. The induction step
    starts from any state that satisfies these (and the invariants it assumes)."""
    L = st.layout
    n, P, S = L.n, L.players, L.slots
    out: list[Z] = []
    ordered = L.ordered_codes()
    for c in range(n):
        loc = st.loc(c)
        out.append(T.and_(loc >= 0, loc < L.codes))
        for p in range(P):
            for k in range(1, S + 1):
                code = L.slot_code(p, k)
                out.append((st.slot(p, k) == c) == (loc == code))
    for p in range(P):
        out.append(T.and_(st[("nslots", p)] >= 0, st[("nslots", p)] <= S))
        for k in range(1, S + 1):
            sl = st.slot(p, k)
            out.append(T.and_(sl >= NONE_ID, sl < n))
            out.append(T.implies(k > st[("nslots", p)], sl == NONE_ID))
    for code in L.counted_codes():
        out.append(st.size(code) == T.count([T.eq(st.loc(c), code) for c in range(n)]))
    for code in ordered:
        here = [st.loc(c) == code for c in range(n)]
        size = st.size(code)
        for c in range(n):
            out.append(T.implies(here[c], T.and_(st[("pos", c)] >= 0, st[("pos", c)] < size)))
            out += [T.implies(T.and_(here[c], here[d]), st[("pos", c)] != st[("pos", d)]) for d in range(c + 1, n)]
    for p in range(P):
        out.append(st.size(L.hand_code(p)) <= L.capacity)
    out += _scalar_ranges(st)
    out += [T.not_(st[("err",)]), T.not_(st[("over",)]), T.not_(st[("left",)])]
    return out


def _scalar_ranges(st: SymState) -> list[Z]:
    L = st.layout
    P, n = L.players, L.n
    phases = [L.string(x) for x in L.rules.phase_names]
    kinds = [L.string(x) for x in L.rules.window_kinds]
    out = [T.and_(st[("active",)] >= 0, st[("active",)] < P), T.or_(*[st[("phase",)] == c for c in phases] or [TRUE]),
           T.or_(*[st[("in_round", p)] for p in range(P)]), st[("round",)] >= 1, st[("turn",)] >= 0]
    out.append(T.implies(st[("wopen",)], T.and_(st[("wref",)] >= 0, st[("wref",)] < n,
                                                  T.or_(*[st[("wkind",)] == k for k in kinds] or [TRUE]))))
    for i in range(L.queue):
        on = st[("q", i, "on")]
        if i + 1 < L.queue:
            out.append(T.implies(st[("q", i + 1, "on")], on))
        out.append(T.implies(on, T.and_(st[("q", i, "ab")] >= 1, st[("q", i, "ab")] <= len(L.abilities),
                                         st[("q", i, "owner")] >= 0, st[("q", i, "owner")] < P,
                                         st[("q", i, "card")] >= 0, st[("q", i, "card")] < n)))
    for v in L.rules.variables.values():
        for p in range(P) if v.per_player else [None]:
            out += _var_range(st, v, p)
    return out


def _var_range(st: SymState, v: s.VarDecl, p: int | None) -> list[Z]:
    L = st.layout
    if v.type in ("player", "card"):
        term = st.var(v.name, "v", p)
        top = L.players if v.type == "player" else L.n
        return [T.and_(term >= NONE_ID, term < top)]
    if v.type == "str":
        return [T.or_(st.var(v.name, "none", p), *[st.var(v.name, "v", p) == c for c in L.strings.values()])]
    if v.type == "slot":
        pl, num = st.var(v.name, "p", p), st.var(v.name, "n", p)
        return [T.or_(pl == NONE_ID, T.and_(pl >= 0, pl < L.players, num >= 1, num <= L.slots + 1))]
    return []
