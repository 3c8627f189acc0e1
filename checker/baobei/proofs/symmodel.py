"""The builtins over a symbolic state of the transition relation (symstate.py).

This is the `Symbolic` protocol of the builtin registry for one state: each method
gives the value the engine's `Table` method would give, as terms. A term that is a
constant (a concrete player, slot or card) reads the state directly; a symbolic one
becomes a chain of `If`s over the finite possibilities.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..language import syntax as s
from . import terms as T
from .symstate import Layout, SymState, var_value
from .translate import (
    FALSE,
    NONE_ID,
    TRUE,
    BoolV,
    CardV,
    IntV,
    ListV,
    NoneV,
    PlaceV,
    PlayerV,
    SlotV,
    StrV,
    SVal,
    SymbolicModel,
    Unsupported,
    Z,
    merge,
)


def const(term: Z) -> int | None:
    """The term's value when it is a constant (the constructors of terms.py fold constants), else None."""
    return T.value(term)


def chain(key: Z, cases: Sequence[tuple[int, Z]], default: Z) -> Z:
    """`cases[key]`: the term of the case whose number equals `key`, else `default`."""
    k = const(key)
    if k is not None:
        return next((t for i, t in cases if i == k), default)
    out = default
    for i, term in reversed(cases):
        out = T.ite(T.eq(key, i), term, out)
    return out


class StateModel(SymbolicModel):
    """The builtins read from one symbolic state."""

    what = "transition model"

    def __init__(self, st: SymState) -> None:
        self.st = st
        self.L: Layout = st.layout

    def string(self, text: str) -> Z:
        return T.num(self.L.string(text))

    # ------------------------------------------------------------ cards
    def card_fact(self, card: SVal, fact: str, pos: s.Pos) -> SVal:
        if not isinstance(card, CardV):
            raise Unsupported(pos, f"{fact} of a {card.kind()}")
        cards = list(enumerate(self.L.cards))
        if fact == "value":
            return IntV(chain(card.term, [(i, T.num(c.value)) for i, c in cards], T.num(0)), T.eq(card.term, NONE_ID))
        if fact == "has_ability":
            return BoolV(chain(card.term, [(i, T.boolean(c.ability is not None)) for i, c in cards], FALSE))
        if fact not in ("family", "species"):
            raise Unsupported(pos, f"the card fact {fact!r}")
        texts = [(i, T.num(self.L.string(c.family if fact == "family" else c.species))) for i, c in cards]
        return StrV(chain(card.term, texts, T.num(0)), T.eq(card.term, NONE_ID))

    def card_at(self, slot: SVal, pos: s.Pos) -> SVal:
        sl = _slot(slot, pos)
        return CardV(self.slot_term(sl.player, sl.number))

    def slot_term(self, player: Z, number: Z) -> Z:
        """The card on a slot (NONE_ID when free, none or beyond the tableau)."""
        L = self.L
        p, k = const(player), const(number)
        if p is not None and k is not None:
            return self.st.slot(p, k) if 0 <= p < L.players else T.num(NONE_ID)
        rows = range(L.players) if p is None else [p] if 0 <= p < L.players else []
        out: Z = T.num(NONE_ID)
        for q in reversed(list(rows)):
            row = chain(number, [(j, self.st.slot(q, j)) for j in range(1, L.slots + 1)], T.num(NONE_ID))
            out = row if p is not None else T.ite(T.eq(player, q), row, out)
        return out

    def owner(self, slot: SVal, pos: s.Pos) -> SVal:
        return PlayerV(_slot(slot, pos).player)

    def slot_no(self, slot: SVal, pos: s.Pos) -> SVal:
        sl = _slot(slot, pos)
        return IntV(sl.number, T.eq(sl.player, NONE_ID))

    def occupied(self, slot: SVal, pos: s.Pos) -> SVal:
        return BoolV(T.ne(self.slot_term(_slot(slot, pos).player, _slot(slot, pos).number), NONE_ID))

    def make_slot(self, player: SVal, number: SVal, pos: s.Pos) -> SVal:
        if not isinstance(player, PlayerV) or not isinstance(number, IntV):
            raise Unsupported(pos, "slot(...) of a player and a number")
        return SlotV(T.ite(number.none, T.num(NONE_ID), player.term), number.term)

    def cards(self, player: SVal, pos: s.Pos) -> SVal:
        return self._per_player(player, pos, lambda p: ListV(tuple(
            (CardV(self.st.slot(p, k)), T.ne(self.st.slot(p, k), NONE_ID)) for k in range(1, self.L.slots + 1))))

    def slots(self, player: SVal, free: bool, pos: s.Pos) -> SVal:
        def of(p: int) -> ListV:
            n = self.st[("nslots", p)]
            items = []
            for k in range(1, self.L.slots + 1):
                card = self.st.slot(p, k)
                here = T.and_(T.le(k, n), T.eq(card, NONE_ID)) if free else T.ne(card, NONE_ID)
                items.append((SlotV(T.num(p), T.num(k)), here))
            return ListV(tuple(items))

        return self._per_player(player, pos, of)

    def added_slot(self, player: SVal, preferred: SVal, pos: s.Pos) -> SVal:
        """free_slot(p, pref): the named free slot, else the lowest free one, else a new one after the last."""
        if isinstance(player, NoneV):
            return NoneV()
        if not isinstance(player, PlayerV):
            raise Unsupported(pos, "free_slot of a non-player")

        def of(p: int) -> SlotV:
            n = self.st[("nslots", p)]
            number: Z = T.add(n, 1)
            for k in reversed(range(1, self.L.slots + 1)):
                number = T.ite(T.and_(T.le(k, n), T.eq(self.st.slot(p, k), NONE_ID)), T.num(k), number)
            if isinstance(preferred, SlotV):
                ok = T.and_(T.eq(preferred.player, p), T.ge(preferred.number, 1), T.le(preferred.number, n),
                            T.eq(self.slot_term(preferred.player, preferred.number), NONE_ID))
                number = T.ite(ok, preferred.number, number)
            return SlotV(T.num(p), number)

        p = const(player.term)
        if p is not None:
            return of(p) if 0 <= p < self.L.players else NoneV()
        out: SVal = SlotV(T.num(NONE_ID), T.num(0))
        for q in reversed(range(self.L.players)):
            out = merge(T.eq(player.term, q), of(q), out, pos)
        return out

    # ------------------------------------------------------------ piles and hands
    def place_code(self, place: SVal, pos: s.Pos) -> Z:
        if isinstance(place, PlaceV) and place.player is not None:
            return self.L.hand_code(place.player)
        if isinstance(place, PlaceV):
            return T.num(self.L.pile_code(self.L.piles.index(place.pile)))
        raise Unsupported(pos, f"a {place.kind()} is no pile or hand")

    def in_place(self, code: Z) -> list[Z]:
        return [T.eq(self.st.loc(c), code) for c in range(self.L.n)]

    def size(self, value: SVal, pos: s.Pos) -> SVal:
        if isinstance(value, NoneV):
            return IntV(T.num(0))
        if isinstance(value, ListV):
            return IntV(T.count([m for _, m in value.items]))
        return IntV(self.st.size(self.place_code(value, pos)))

    def ordered(self, place: SVal, pos: s.Pos) -> None:
        if isinstance(place, PlaceV) and place.player is None and not self.L.face_up[self.L.piles.index(place.pile)]:
            raise Unsupported(pos, f"the order of the face-down {place.pile} (any of its cards may come next)")

    def top(self, place: SVal, pos: s.Pos) -> SVal:
        if isinstance(place, NoneV):
            return NoneV()
        self.ordered(place, pos)
        code = self.place_code(place, pos)
        size = self.size(place, pos)
        assert isinstance(size, IntV)
        return CardV(self.card_at_position(code, T.add(size.term, -1)))

    def card_at_position(self, code: Z, position: Z) -> Z:
        out: Z = T.num(NONE_ID)
        for c in reversed(range(self.L.n)):
            out = T.ite(T.and_(T.eq(self.st.loc(c), code), T.eq(self.st[("pos", c)], position)), T.num(c), out)
        return out

    def hand(self, player: SVal, pos: s.Pos) -> SVal:
        if not isinstance(player, PlayerV):
            raise Unsupported(pos, "the hand of a non-player")
        return PlaceV(player=player.term)

    def held(self, player: SVal, pos: s.Pos) -> SVal:
        if not isinstance(player, PlayerV):
            raise Unsupported(pos, "the hand of a non-player")
        code = self.L.hand_code(player.term)
        size = self.st.size(code)
        return ListV(tuple((CardV(self.card_at_position(code, T.num(j))), T.lt(j, size))
                           for j in range(self.L.capacity)))

    # ------------------------------------------------------------ seats
    def seats(self, player: SVal, include_self: bool, pos: s.Pos) -> SVal:
        if not isinstance(player, PlayerV):
            raise Unsupported(pos, "seats of a non-player")
        p = const(player.term)
        if p is not None:
            return self.seats_of(p, include_self)
        canonical = [self.seats_of(q, include_self) for q in range(self.L.players)]
        present = [T.or_(*[T.and_(T.eq(player.term, q), _presence(canonical[q], x)) for q in range(self.L.players)])
                   for x in range(self.L.players)]
        items = tuple((PlayerV(T.num(x)), present[x]) for x in range(self.L.players))
        return ListV(items, tuple((T.eq(player.term, q), canonical[q]) for q in range(self.L.players)))

    def seats_of(self, p: int, include_self: bool) -> ListV:
        """engine: the seats of the round from p in seating order; without p, that list less its first."""
        P = self.L.players
        if not 0 <= p < P:
            return ListV(())
        order = [(p + i) % P for i in range(P)]
        seated = [self.st[("in_round", q)] for q in order]
        if include_self:
            return ListV(tuple((PlayerV(T.num(q)), m) for q, m in zip(order, seated, strict=True)))
        items = []
        earlier: Z = FALSE
        for q, m in zip(order, seated, strict=True):
            items.append((PlayerV(T.num(q)), T.and_(m, earlier)))
            earlier = T.or_(earlier, m)
        return ListV(tuple(items))

    def players(self, pos: s.Pos) -> SVal:
        return ListV(tuple((PlayerV(T.num(q)), self.st[("in_round", q)]) for q in range(self.L.players)))

    def player_count(self, pos: s.Pos) -> SVal:
        return IntV(T.count([self.st[("in_round", q)] for q in range(self.L.players)]))

    def seat_count(self, pos: s.Pos) -> SVal:
        return IntV(T.num(self.L.players))

    def deck(self, pos: s.Pos) -> SVal:
        return ListV(tuple((CardV(T.num(c)), TRUE) for c in range(self.L.n)))

    # ------------------------------------------------------------ knowledge, marks, protection
    def knows(self, player: SVal, card: SVal, pos: s.Pos) -> SVal:
        if not isinstance(player, PlayerV) or not isinstance(card, CardV):
            raise Unsupported(pos, "knows(player, card)")
        return BoolV(self.known(player.term, card.term))

    def known(self, player: Z, card: Z) -> Z:
        rows = [(q, chain(card, [(c, self.st[("known", q, c)]) for c in range(self.L.n)], FALSE))
                for q in range(self.L.players)]
        return chain(player, rows, FALSE)

    def marked(self, card: SVal, mark: SVal, pos: s.Pos) -> SVal:
        if not isinstance(card, CardV) or not isinstance(mark, StrV):
            raise Unsupported(pos, "marked(card, mark)")
        code = const(mark.term)
        name = self.L.text_of(code) if code is not None else None
        if name not in self.L.marks:
            raise Unsupported(pos, "a mark that is not a declared name")
        return BoolV(chain(card.term, [(c, self.st[("mark", name, c)]) for c in range(self.L.n)], FALSE))

    def protected(self, player: SVal, pos: s.Pos) -> SVal:
        if not isinstance(player, PlayerV):
            raise Unsupported(pos, "protected(player)")
        return BoolV(chain(player.term, [(q, self.st[("protected", q)]) for q in range(self.L.players)], FALSE))

    def places(self, card: SVal, pos: s.Pos) -> SVal:
        # Every card has exactly one place in this encoding: a move that would cover a card or overfill a
        # hand is a rules failure (the `err` flag), as the engine raises, never a second place.
        return IntV(T.num(1))

    # ------------------------------------------------------------ variables and state names
    def variable(self, decl: s.VarDecl, index: SVal | None, pos: s.Pos) -> SVal:
        if not decl.per_player:
            return var_value(self.L, decl.type, lambda part: self.st.var(decl.name, part))
        if not isinstance(index, PlayerV):
            raise Unsupported(pos, f"{decl.name}[...] of a non-player")
        p = const(index.term)
        values = [var_value(self.L, decl.type, lambda part, q=q: self.st.var(decl.name, part, q))
                  for q in range(self.L.players)]
        if p is not None:
            return values[p] if 0 <= p < self.L.players else NoneV()
        out: SVal = NoneV()
        for q in reversed(range(self.L.players)):
            out = merge(T.eq(index.term, q), values[q], out, pos)
        return out

    def state(self, name: str, kind: str, pos: s.Pos) -> SVal:
        st = self.st
        wopen = st[("wopen",)]
        if name == "active":
            return PlayerV(st[("active",)])
        if name == "phase":
            return StrV(st[("phase",)], FALSE)
        if name in ("round", "turn"):
            return IntV(st[(name,)])
        if name == "waiting":
            count: Z = T.num(0)
            for i in range(self.L.queue):
                count = T.add(count, T.ite(st[("q", i, "on")], T.num(1), T.num(0)))
            return IntV(count)
        if name == "window_ref":
            return CardV(T.ite(wopen, st[("wref",)], T.num(NONE_ID)))
        if name == "window_kind":
            return StrV(st[("wkind",)], T.not_(wopen))
        if name == "window_used":
            return BoolV(T.and_(wopen, T.le(st[("watt",)], 0)))
        if name == "window_players":
            return ListV(tuple((PlayerV(T.num(q)), T.and_(wopen, st[("wplayers", q)]))
                               for q in range(self.L.players)))
        raise Unsupported(pos, f"the transition model has no value for {name!r}")

    # ------------------------------------------------------------ helpers
    def _per_player(self, player: SVal, pos: s.Pos, of: Callable[[int], SVal]) -> SVal:
        if isinstance(player, NoneV):
            return ListV(())
        if not isinstance(player, PlayerV):
            raise Unsupported(pos, "a tableau of a non-player")
        p = const(player.term)
        if p is not None:
            return of(p) if 0 <= p < self.L.players else ListV(())
        lists = [of(q) for q in range(self.L.players)]
        out: SVal = lists[-1]
        for q in reversed(range(self.L.players - 1)):
            out = merge(T.eq(player.term, q), lists[q], out, pos)
        return out


def _presence(lst: ListV, seat: int) -> Z:
    for x, m in lst.items:
        if isinstance(x, PlayerV) and const(x.term) == seat:
            return m
    return FALSE


def _slot(value: SVal, pos: s.Pos) -> SlotV:
    if isinstance(value, SlotV):
        return value
    raise Unsupported(pos, f"a {value.kind()} where a slot belongs")
