"""Symbolic execution of the rules' statements: engine/effects.py, in terms.

An `Exec` runs a rule body on a symbolic state the way the engine's compiled closures
run it on a concrete one. A condition that is not a constant runs both branches on
copies and merges them (`If` per key where they differ); what the engine leaves out
(a `none` card, an impossible draw, a change a protection blocks) is left out under the
condition that makes it so; what makes the engine raise (covering a card, overfilling a
hand, starting the turn of nobody) sets the state's `err` flag. Random outcomes are fresh
constants: a draw may give any card of the draw pile (its order is unknown after a
shuffle), a `pick` any item; each is a `Choice`, with the condition under which it was
made, so that a model reads back which card each draw gave.

Expressions go to translate.py's Translator over a StateModel of the current state; a
statement kind the executor does not know is an `Unsupported` naming it, never skipped.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, assert_never

import z3  # type: ignore[import-untyped]

from ..language import syntax as s
from ..language.ruleset import ALL_CARDS, DRAW_PILE
from . import terms as T
from .symmodel import StateModel, chain, const
from .symstate import BOX, Layout, SymState, merge_states, value_parts, var_parts
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
    Translator,
    Unsupported,
    Z,
    is_none,
    truth,
)


@dataclass
class Choice:
    """A random outcome the rules met: a draw (the card), a pick (the item) or a shuffle (into a pile)."""

    kind: str
    happens: Z
    term: Z | None = None  # the card drawn or the item picked (a player, a card: its number)
    pile: int = -1  # the pile shuffled into


@dataclass
class Trail:
    """What one symbolic execution records beyond the state: its random outcomes and their domains."""

    prefix: str
    choices: list[Choice] = field(default_factory=list)
    side: list[Z] = field(default_factory=list)  # constraints on the fresh constants, each under its condition
    count: int = 0

    def absorb(self, other: Trail, cond: Z) -> None:
        """Take over another run's outcomes and constraints, made only where `cond` holds."""
        self.choices += [Choice(c.kind, T.and_(cond, c.happens), c.term, c.pile) for c in other.choices]
        self.side += [T.implies(cond, x) for x in other.side]

    def fresh(self, what: str) -> Z:
        self.count += 1
        return z3.Int(f"{self.prefix}!{what}{self.count}")


def simple(cond: Z) -> Z:
    """The condition as built: terms.py folds what constants decide, so that a constant condition steers
    the execution down one branch (z3.simplify would walk the whole term each time)."""
    return cond


class Exec:
    """One run of rule statements on a symbolic state (see the module docstring)."""

    def __init__(self, rules: Any, st: SymState, env: dict[str, SVal], trail: Trail, pc: Z = TRUE,
                 marking: tuple[str, ...] = ()) -> None:
        self.rules = rules
        self.L: Layout = st.layout
        self.st = st
        self.env = env
        self.trail = trail
        self.pc = pc
        self.marking = marking  # the marks every card this rule moves gets (an ability's moves)
        self.changed: list[Z] = [FALSE] * self.L.players  # whose tableau this rule changed
        self.blocked: Z = FALSE  # a protection made a change impossible (the engine's trial runs ask)
        self._tr: Translator | None = None

    # ------------------------------------------------------------ values
    def tr(self) -> Translator:
        if self._tr is None:
            self._tr = Translator(self.rules, StateModel(self.st))
        return self._tr

    def eval(self, node: s.Expr) -> SVal:
        tr = self.tr()
        value = tr.expr(node, self.env)
        self._oblige(tr)
        return value

    def cond(self, node: s.Expr) -> Z:
        return truth(self.eval(node), node.pos)

    def _oblige(self, tr: Translator) -> None:
        """What the engine needs to evaluate an expression at all (a table row, a divisor): else it fails."""
        if tr.obligations:
            self.fail(T.not_(T.and_(*[o.holds for o in tr.obligations])))
            tr.obligations.clear()

    def put(self, key: tuple[Any, ...], term: Z) -> None:
        self.st[key] = term
        self._tr = None  # the state changed: what was translated before no longer holds

    def fail(self, cond: Z) -> None:
        """The engine would raise here when `cond` holds: the rules failed."""
        c = simple(cond)
        if not T.is_false(c):
            self.put(("err",), T.or_(self.st[("err",)], c))

    def exceed(self, cond: Z) -> None:
        """A bound of the layout is exceeded when `cond` holds: the encoding is no longer exact there."""
        c = simple(cond)
        if not T.is_false(c):
            self.put(("over",), T.or_(self.st[("over",)], c))

    # ------------------------------------------------------------ branches
    def child(self, cond: Z) -> Exec:
        ex = Exec(self.rules, self.st.copy(), dict(self.env), self.trail, T.and_(self.pc, cond), self.marking)
        ex.changed = list(self.changed)
        ex.blocked = self.blocked
        return ex

    def branch(self, cond: Z, then: Callable[[Exec], None], other: Callable[[Exec], None] | None = None) -> None:
        """Run `then` where cond holds and `other` where it does not; the state is their merge after."""
        c = simple(cond)
        if T.is_true(c):
            then(self)
            return
        if T.is_false(c):
            if other is not None:
                other(self)
            return
        a, b = self.child(c), self.child(T.not_(c))
        then(a)
        if other is not None:
            other(b)
        self.st = merge_states(c, a.st, b.st, self.st)
        self.changed = [_ite(c, x, y) for x, y in zip(a.changed, b.changed, strict=True)]
        self.blocked = _ite(c, a.blocked, b.blocked)
        self._tr = None

    def when(self, cond: Z, then: Callable[[Exec], None]) -> None:
        self.branch(cond, then)

    # ------------------------------------------------------------ blocks and statements
    def block(self, stmts: tuple[s.Stmt, ...]) -> None:
        saved = dict(self.env)  # names a block binds end with it (lexical scope)
        for stmt in stmts:
            self.stmt(stmt)
        self.env = saved

    def stmt(self, node: s.Stmt) -> None:
        match node:
            case s.Let():
                self.env[node.name] = self.eval(node.value)
            case s.SetVar():
                self.set_var(node)
            case s.Draw():
                self.draw(self.eval(node.into), node.bind)
            case s.MoveCard():
                self.move(self.eval(node.card), self.eval(node.to), node.pos)
            case s.Swap():
                self.swap(self.eval(node.first), self.eval(node.second), node.pos)
            case s.Peek():
                self.peek(self.eval(node.player), self.eval(node.card))
            case s.Show():
                self.reveal(self.eval(node.card), TRUE)
            case s.Forget():
                self.reveal(self.eval(node.card), FALSE)
            case s.Mark():
                self.mark(node.mark, self.eval(node.card))
            case s.OpenWindow():
                self.open_window(node.kind, self.eval(node.card), self.eval(node.players), node.pos)
            case s.UseWindow():
                self.put(("watt",), T.ite(self.st[("wopen",)], T.add(self.st[("watt",)], -1), self.st[("watt",)]))
            case s.CloseWindow():
                self.put(("wopen",), FALSE)
            case s.Trigger():
                self.trigger(self.eval(node.card), self.eval(node.player), node.after_window, node.pos)
            case s.Continue():
                self.continue_step(node)
            case s.Shuffle():
                self.shuffle(node)
            case s.StartTurn():
                self.start_turn(self.eval(node.player), node.pos)
            case s.StartRound():
                self.start_round(self.eval(node.players) if node.players is not None else None, node.pos)
            case s.Pick():
                self.env[node.name] = self.pick(self.eval(node.domain), node.pos)
            case s.Run():
                self.run_routine(node)
            case s.ForEach():
                self.for_each(node)
            case s.Repeat():
                self.repeat(node)
            case s.IfStmt():
                cond = self.cond(node.cond)
                self.branch(cond, lambda ex: ex.block(node.then), lambda ex: ex.block(node.other))
            case s.Say():
                pass  # words for the players: nothing changes
            case _:
                assert_never(node)

    # ------------------------------------------------------------ variables
    def set_var(self, node: s.SetVar) -> None:
        value = self.eval(node.value)
        if node.name == "phase" and node.index is None:
            if not isinstance(value, StrV):
                raise Unsupported(node.pos, "the phase set to a non-string")
            self.put(("phase",), value.term)
            return
        var = self.rules.variables[node.name]
        parts = value_parts(self.L, var.type, value, node.pos)
        if node.index is None:
            for part, term in parts.items():
                self.put(("var", var.name, part), term)
            return
        index = self.eval(node.index)
        if not isinstance(index, PlayerV):
            raise Unsupported(node.pos, f"{node.name}[...] of a non-player")
        for q in range(self.L.players):
            hit = T.eq(index.term, q)
            if T.is_false(hit):
                continue
            for part, term in parts.items():
                key = ("pvar", var.name, q, part)
                self.put(key, _ite(hit, term, self.st[key]))

    # ------------------------------------------------------------ card places
    def loc_of(self, card: Z) -> Z:
        return chain(card, [(c, self.st.loc(c)) for c in range(self.L.n)], T.num(BOX))

    def cases(self, card: Z) -> list[tuple[int, Z]]:
        """(card number, the condition that `card` is it) for every card it may be."""
        k = const(card)
        if k is not None:
            return [(k, TRUE)] if 0 <= k < self.L.n else []
        return [(c, T.eq(card, c)) for c in range(self.L.n)]

    def dest(self, where: SVal, pos: s.Pos) -> tuple[Z, Z, Z | None]:
        """(place code, free: the engine's check that nothing is covered, slot owner or None)."""
        L = self.L
        model = StateModel(self.st)
        if isinstance(where, SlotV):
            p, k = where.player, where.number
            n = _chain_players(L, p, lambda q: self.st[("nslots", q)])
            here = model.slot_term(p, k)
            free = T.and_(T.ge(p, 0), T.lt(p, L.players),
                         T.or_(T.eq(k, T.add(n, 1)), T.and_(T.ge(k, 1), T.le(k, n), T.eq(here, NONE_ID))))
            return L.slot_code(p, k), free, p
        if isinstance(where, PlaceV) and where.player is not None:
            code = L.hand_code(where.player)
            return code, T.lt(self.st.size(code), L.capacity), None
        if isinstance(where, PlaceV):
            return T.num(L.pile_code(L.piles.index(where.pile))), TRUE, None
        # No place at all (a number, say): the engine refuses it as it refuses a covered card.
        return T.num(BOX), FALSE, None

    def owner_of(self, code: Z, q: int) -> Z:
        lo = self.L.slot_base + q * self.L.slots
        return T.and_(T.ge(code, lo), T.lt(code, lo + self.L.slots))

    def blocked_at(self, code: Z) -> Z:
        """A change of this place touches a tableau protected against the rule's actor."""
        actor = self.env.get("actor")
        if not isinstance(actor, PlayerV):
            return FALSE  # the engine's own setup is never blocked
        return T.or_(FALSE, *[T.and_(self.owner_of(code, q), self.st[("protected", q)], T.ne(actor.term, q))
                              for q in range(self.L.players)])

    def touched(self, code: Z) -> None:
        self.changed = [T.or_(ch, self.owner_of(code, q)) for q, ch in enumerate(self.changed)]

    def move(self, card: SVal, where: SVal, pos: s.Pos) -> None:
        if isinstance(card, NoneV) or isinstance(where, NoneV):
            return
        if not isinstance(card, CardV):
            raise Unsupported(pos, f"move of a {card.kind()}")
        c = card.term
        self.when(T.and_(T.ne(c, NONE_ID), T.not_(is_none(where))), lambda ex: ex._move(c, where, pos))

    def _move(self, c: Z, where: SVal, pos: s.Pos) -> None:
        code, free, _ = self.dest(where, pos)
        self.fail(T.not_(free))
        src = self.loc_of(c)
        blocked = T.or_(self.blocked_at(src), self.blocked_at(code))
        self.blocked = T.or_(self.blocked, T.and_(free, blocked))
        self.when(T.and_(free, T.not_(blocked)), lambda ex: ex.relocate(c, src, code, where))

    def relocate(self, c: Z, src: Z, code: Z, where: SVal) -> None:
        """Take card c out of `src` and put it into `code` (engine: take_out, put, touched, marking)."""
        L = self.L
        ordered = L.ordered_codes()
        cases = self.cases(c)
        old_pos = chain(c, [(i, self.st[("pos", i)]) for i in range(L.n)], T.num(0))
        src_ordered = T.or_(FALSE, *[T.eq(src, o) for o in ordered])
        # The cards above it in an ordered place move down one.
        for j in range(L.n):
            key = ("pos", j)
            above = T.and_(src_ordered, T.eq(self.st.loc(j), src), T.gt(self.st[key], old_pos))
            self.put(key, _ite(above, T.add(self.st[key], -1), self.st[key]))
        self._clear_slot(src)
        size = T.add(self.st.size(code), T.ite(T.eq(src, code), T.num(-1), T.num(0)))
        for x in L.counted_codes():
            key = ("size", x)
            delta = T.add(T.ite(T.eq(code, x), T.num(1), T.num(0)), T.ite(T.eq(src, x), T.num(-1), T.num(0)))
            self.put(key, T.add(self.st[key], delta))
        for i, is_c in cases:
            self.put(("loc", i), _ite(is_c, code, self.st.loc(i)))
            self.put(("pos", i), _ite(is_c, size, self.st[("pos", i)]))
        if isinstance(where, SlotV):
            self._fill_slot(where.player, where.number, c)
        elif isinstance(where, PlaceV) and where.player is None and L.face_up[L.piles.index(where.pile)]:
            for i, is_c in cases:
                for q in range(L.players):
                    self.put(("known", q, i), T.or_(self.st[("known", q, i)], is_c))  # a face-up pile shows it
        self.touched(src)
        self.touched(code)
        self._mark_moved(cases)

    def _clear_slot(self, src: Z) -> None:
        """The slot the card leaves (if it leaves one) is free: decided by the card's place, so that a card
        drawn from a pile frees no slot without asking whether it equals the cards on the slots."""
        for p in range(self.L.players):
            for k in range(1, self.L.slots + 1):
                key = ("slot", p, k)
                self.put(key, _ite(T.eq(src, self.L.slot_code(p, k)), T.num(NONE_ID), self.st[key]))

    def _fill_slot(self, player: Z, number: Z, c: Z) -> None:
        """Card c onto slot (player, number); a number one past the tableau makes a new slot."""
        L = self.L
        self.exceed(T.gt(number, L.slots))
        for p in range(L.players):
            on_p = T.eq(player, p)
            if T.is_false(on_p):
                continue
            n = self.st[("nslots", p)]
            self.put(("nslots", p), _ite(T.and_(on_p, T.eq(number, T.add(n, 1))), T.add(n, 1), n))
            for k in range(1, L.slots + 1):
                key = ("slot", p, k)
                self.put(key, _ite(T.and_(on_p, T.eq(number, k)), c, self.st[key]))

    def _mark_moved(self, cases: list[tuple[int, Z]]) -> None:
        for mark in self.marking:
            for i, is_c in cases:
                key = ("mark", mark, i)
                self.put(key, T.or_(self.st[key], is_c))

    def swap(self, first: SVal, second: SVal, pos: s.Pos) -> None:
        if isinstance(first, NoneV) or isinstance(second, NoneV):
            return
        if not isinstance(first, CardV) or not isinstance(second, CardV):
            raise Unsupported(pos, "swap of non-cards")
        a, b = first.term, second.term
        self.when(T.and_(T.ne(a, NONE_ID), T.ne(b, NONE_ID), T.ne(a, b)), lambda ex: ex._swap(a, b))

    def _swap(self, a: Z, b: Z) -> None:
        la, lb = self.loc_of(a), self.loc_of(b)
        on_slots = T.and_(*[T.or_(*[self.owner_of(x, q) for q in range(self.L.players)]) for x in (la, lb)])
        self.fail(T.not_(on_slots))  # the engine swaps only cards on slots
        blocked = T.or_(self.blocked_at(la), self.blocked_at(lb))
        self.blocked = T.or_(self.blocked, T.and_(on_slots, blocked))
        self.when(T.and_(on_slots, T.not_(blocked)), lambda ex: ex._exchange(a, b, la, lb))

    def _exchange(self, a: Z, b: Z, la: Z, lb: Z) -> None:
        for p in range(self.L.players):
            for k in range(1, self.L.slots + 1):
                key, code = ("slot", p, k), self.L.slot_code(p, k)
                x = self.st[key]
                self.put(key, T.ite(T.eq(la, code), b, T.ite(T.eq(lb, code), a, x)))
        for i in range(self.L.n):
            self.put(("loc", i), T.ite(T.eq(a, i), lb, T.ite(T.eq(b, i), la, self.st.loc(i))))
        self.touched(la)
        self.touched(lb)
        self._mark_moved(self.cases(a) + self.cases(b))

    def draw(self, into: SVal, bind: str | None) -> None:
        """A draw from the draw pile; an empty pile runs the draw_empty hook first (recycling)."""
        L = self.L
        pile = T.num(L.pile_code(L.piles.index(DRAW_PILE)))
        actor = self.env.get("actor")
        drawer = actor if isinstance(actor, PlayerV) else PlayerV(self.st[("active",)])
        self.when(self._empty(pile), lambda ex: ex.run_hook("draw_empty", (drawer,)))
        code_free: tuple[Z, Z, Z | None] | None = None
        if not isinstance(into, NoneV):
            code_free = self.dest(into, s.NOWHERE)
        blocked = self.blocked_at(code_free[0]) if code_free is not None else FALSE
        self.blocked = T.or_(self.blocked, blocked)
        happens = simple(T.and_(T.not_(self._empty(pile)), T.not_(is_none(into)), T.not_(blocked)))
        card = T.num(NONE_ID)
        if not T.is_false(happens) and code_free is not None:
            # A card of the deck, whatever happens; the one drawn lies in the draw pile.
            card = T.non_negative(self.trail.fresh("draw"))
            self.trail.side.append(T.and_(T.ge(card, 0), T.lt(card, L.n)))
            self.trail.side.append(T.implies(T.and_(self.pc, happens), T.eq(self.loc_of(card), pile)))
            self.trail.choices.append(Choice("draw", T.and_(self.pc, happens), card))
            code, free, _ = code_free
            self.when(happens, lambda ex: ex._drawn(card, pile, code, free, into))
        if bind:
            self.env[bind] = CardV(_ite(happens, card, T.num(NONE_ID)))

    def _drawn(self, card: Z, pile: Z, code: Z, free: Z, into: SVal) -> None:
        self.fail(T.not_(free))
        self.when(free, lambda ex: ex.relocate(card, pile, code, into))

    def _empty(self, code: Z) -> Z:
        return T.eq(self.st.size(code), 0)

    # ------------------------------------------------------------ knowledge and marks
    def peek(self, player: SVal, card: SVal) -> None:
        if not isinstance(player, PlayerV) or not isinstance(card, CardV):
            return
        for q in range(self.L.players):
            for i, is_c in self.cases(card.term):
                hit = T.and_(T.eq(player.term, q), is_c)
                if not T.is_false(hit):
                    self.put(("known", q, i), T.or_(self.st[("known", q, i)], hit))

    def reveal(self, card: SVal, known: Z) -> None:
        """show (everyone knows it) or forget (nobody does)."""
        if not isinstance(card, CardV):
            return
        for i, is_c in self.cases(card.term):
            for q in range(self.L.players):
                key = ("known", q, i)
                self.put(key, _ite(is_c, known, self.st[key]))

    def mark(self, name: str, card: SVal) -> None:
        if isinstance(card, CardV):
            for i, is_c in self.cases(card.term):
                key = ("mark", name, i)
                self.put(key, T.or_(self.st[key], is_c))

    # ------------------------------------------------------------ windows and waiting abilities
    def open_window(self, kind: str, card: SVal, players: SVal, pos: s.Pos) -> None:
        if not isinstance(card, CardV):
            return
        window = self.rules.window
        attempts = window.attempts if window is not None else 1
        if window is not None and window.open_max != 1:
            raise Unsupported(pos, "more than one open window (the transition relation keeps one)")
        mask = _seat_mask(self.L, players, pos)
        opened = T.ne(card.term, NONE_ID)

        def open_it(ex: Exec) -> None:
            ex.put(("wopen",), TRUE)
            ex.put(("wkind",), T.num(self.L.string(kind)))
            ex.put(("wref",), card.term)
            ex.put(("watt",), T.num(attempts))
            for q in range(self.L.players):
                ex.put(("wplayers", q), mask[q])

        self.when(opened, open_it)

    def queue_entry(self, i: int) -> dict[str, Any]:
        L = self.L
        entry: dict[str, Any] = {f: self.st[("q", i, f)] for f in ("on", "ab", "card", "owner", "after")}
        entry["args"] = [(self.st[("q", i, "arg", j, 0)], self.st[("q", i, "arg", j, 1)]) for j in range(L.cells)]
        return entry

    def write_entry(self, i: int, entry: dict[str, Any], cond: Z) -> None:
        for f in ("on", "ab", "card", "owner", "after"):
            key: tuple[Any, ...] = ("q", i, f)
            self.put(key, _ite(cond, entry[f], self.st[key]))
        for j, (x, y) in enumerate(entry["args"]):
            for part, term in ((0, x), (1, y)):
                key = ("q", i, "arg", j, part)
                self.put(key, _ite(cond, term, self.st[key]))

    def insert(self, index: Z, entry: dict[str, Any]) -> None:
        """Insert a queue entry at `index`; the later ones move back (the last one past the bound is lost:
        the `over` flag says so)."""
        L = self.L
        old = [self.queue_entry(i) for i in range(L.queue)]
        self.exceed(old[-1]["on"])
        for i in range(L.queue):
            here = T.eq(index, i)
            after = T.lt(index, i)
            if i > 0:
                self.write_entry(i, old[i - 1], after)
            self.write_entry(i, entry, here)

    def trigger(self, card: SVal, player: SVal, after_window: bool, pos: s.Pos) -> None:
        if not isinstance(card, CardV) or not isinstance(player, PlayerV):
            return
        L = self.L
        ability = chain(card.term, [(c, T.num(L.ability_code(info.ability) if info.ability else 0))
                                    for c, info in enumerate(L.cards)], T.num(0))
        on = [self.st[("q", i, "on")] for i in range(L.queue)]
        index: Z = T.count([x for x in on])
        for i in reversed(range(L.queue)):
            index = T.ite(T.and_(on[i], self.st[("q", i, "after")]), i, index)
        entry = {"on": TRUE, "ab": ability, "card": card.term, "owner": player.term,
                 "after": T.boolean(after_window), "args": [(T.num(0), T.num(0))] * L.cells}
        happens = T.and_(T.ne(card.term, NONE_ID), T.ne(player.term, NONE_ID), T.ne(ability, 0))
        self.when(happens, lambda ex: ex.insert(index, entry))

    def continue_step(self, node: s.Continue) -> None:
        L = self.L
        player = self.eval(node.player)
        if not isinstance(player, PlayerV):
            return
        source = self.env.get("source")
        if not isinstance(source, CardV):
            raise Unsupported(node.pos, "`continue` outside an ability")
        cells = [encode_cell(self.eval(a), a.pos) for a in node.args]
        cells += [(T.num(0), T.num(0))] * (L.cells - len(cells))
        entry = {"on": TRUE, "ab": T.num(L.ability_code(node.step)), "card": source.term,
                 "owner": player.term, "after": FALSE, "args": cells}
        self.when(T.ne(player.term, NONE_ID), lambda ex: ex.insert(T.num(0), entry))

    def pop(self) -> None:
        """The first waiting ability leaves the queue."""
        L = self.L
        entries = [self.queue_entry(i) for i in range(L.queue)]
        for i in range(L.queue):
            nxt = entries[i + 1] if i + 1 < L.queue else {**entries[i], "on": FALSE}
            self.write_entry(i, nxt, TRUE)

    # ------------------------------------------------------------ shuffles, turns, rounds, picks
    def shuffle(self, node: s.Shuffle) -> None:
        L = self.L
        into = L.piles.index(node.into)
        if L.face_up[into]:
            raise Unsupported(node.pos, f"a shuffle into the face-up {node.into} (its order would be random)")
        target = T.num(L.pile_code(into))
        gathered = [FALSE] * L.n
        model = StateModel(self.st)
        for source in node.sources:
            for c in range(L.n):
                gathered[c] = T.or_(gathered[c], self._gathered(source, c, model, node.pos))
        if any(src.pile == ALL_CARDS for src in node.sources):
            for p in range(L.players):
                self.put(("nslots", p), T.num(0))
                for k in range(1, L.slots + 1):
                    self.put(("slot", p, k), T.num(NONE_ID))
        for c in range(L.n):
            g = simple(gathered[c])
            self.put(("loc", c), _ite(g, target, self.st.loc(c)))
            for q in range(L.players):
                self.put(("known", q, c), _ite(g, FALSE, self.st[("known", q, c)]))
        for x in L.counted_codes():
            self.put(("size", x), T.count([T.eq(self.st.loc(c), x) for c in range(L.n)]))
        self.trail.choices.append(Choice("shuffle", self.pc, pile=into))

    def _gathered(self, source: s.ShuffleSource, c: int, model: StateModel, pos: s.Pos) -> Z:
        if source.pile == ALL_CARDS:
            return TRUE
        index = self.L.piles.index(source.pile)
        here = T.eq(self.st.loc(c), self.L.pile_code(index))
        if not source.except_top:
            return here
        if not self.L.face_up[index]:
            raise Unsupported(pos, f"the top of the face-down {source.pile}")
        size = self.st.size(self.L.pile_code(index))
        return T.and_(here, T.lt(self.st[("pos", c)], T.add(size, -1)))

    def start_turn(self, player: SVal, pos: s.Pos) -> None:
        if not isinstance(player, PlayerV):
            self.fail(TRUE)
            return
        self.fail(T.eq(player.term, NONE_ID))  # the engine: no player to start the turn
        self.put(("active",), player.term)
        self.put(("turn",), T.add(self.st[("turn",)], 1))
        for name, decl in self.rules.marks.items():
            if decl.until_turn:
                for c in range(self.L.n):
                    self.put(("mark", name, c), FALSE)

    def start_round(self, players: SVal | None, pos: s.Pos) -> None:
        """engine.start_round: the seats, the round's variables afresh, no window, nothing waiting, no
        mark; the round_start hook deals; then the protections are evaluated."""
        L, rules = self.L, self.rules
        mask = [TRUE] * L.players if players is None else _seat_mask(L, players, pos)
        for q in range(L.players):
            self.put(("in_round", q), mask[q])
        self.fail(T.not_(T.or_(*mask)))
        count = T.count([m for m in mask])
        for table in rules.tables.values():
            self.fail(T.not_(T.or_(FALSE, *[T.and_(T.ge(count, r.low), T.le(count, r.high)) for r in table.rows])))
        self.put(("round",), T.add(self.st[("round",)], 1))
        self.reset_round_vars()
        self.put(("wopen",), FALSE)
        for i in range(L.queue):
            self.put(("q", i, "on"), FALSE)
        for key in [k for k in self.st.t if k[0] == "mark"]:
            self.put(key, FALSE)
        # The engine deals in a context of its own: no mover, and no change of a tableau to report.
        saved, changed = self.env, self.changed
        self.env = {"actor": NoneV()}
        self.run_hook("round_start", ())
        self.env, self.changed = saved, changed
        refresh_protection(self)

    def reset_round_vars(self) -> None:
        inits = {}
        for v in self.rules.variables.values():
            if not v.whole_match:
                inits[v.name] = value_parts(self.L, v.type, self.eval(v.init), v.pos)
        for v in self.rules.variables.values():
            if v.whole_match:
                continue
            for p in range(self.L.players) if v.per_player else [None]:
                for part, term in inits[v.name].items():
                    self.put(("var", v.name, part) if p is None else ("pvar", v.name, p, part), term)

    def pick(self, domain: SVal, pos: s.Pos) -> SVal:
        if not isinstance(domain, ListV) or domain.orders:
            raise Unsupported(pos, "a pick from a list whose items or order the relation cannot follow")
        items = domain.items
        if not items:
            return NoneV()
        kinds = {type(x) for x, _ in items}
        if len(kinds) != 1 or not issubclass(kinds.pop(), (PlayerV, CardV)):
            raise Unsupported(pos, "a pick of something other than a player or a card")
        term = self.trail.fresh("pick")
        some = T.or_(*[m for _, m in items])
        picked = T.or_(*[T.and_(m, T.eq(term, x.term)) for x, m in items])  # type: ignore[attr-defined]
        self.trail.side.append(T.implies(self.pc, T.ite(some, picked, T.eq(term, NONE_ID))))
        self.trail.choices.append(Choice("pick", self.pc, term))
        return type(items[0][0])(term)  # type: ignore[call-arg]

    # ------------------------------------------------------------ routines, hooks, loops
    def run_routine(self, node: s.Run) -> None:
        routine = self.rules.routines[node.routine]
        args = [self.eval(a) for a in node.args]
        # As the engine's `run`: a routine sees the actor and its formals, not the caller's other names.
        env: dict[str, SVal] = {"actor": self.env.get("actor", NoneV())}
        env.update({f.name: a for f, a in zip(routine.formals, args, strict=True)})
        saved, self.env = self.env, env
        self.block(routine.body)
        self.env = saved

    def run_hook(self, name: str, args: tuple[SVal, ...]) -> None:
        hook = self.rules.hooks.get(name)
        if hook is None:
            return
        env: dict[str, SVal] = {"actor": self.env.get("actor", NoneV())}
        env.update({f.name: a for f, a in zip(hook.formals, args, strict=True)})
        saved, self.env = self.env, env
        self.block(hook.body)
        self.env = saved

    def for_each(self, node: s.ForEach) -> None:
        domain = self.eval(node.domain)
        if isinstance(domain, NoneV):
            return
        if not isinstance(domain, ListV):
            raise Unsupported(node.pos, f"for over a {domain.kind()} (the relation iterates lists)")
        variants = domain.orders or ((TRUE, domain),)
        for cond, ordered in variants:
            self.when(cond, lambda ex, lst=ordered: ex._loop(node, lst))  # type: ignore[misc]

    def _loop(self, node: s.ForEach, domain: ListV) -> None:
        saved = self.env.get(node.var)
        for item, present in domain.items:
            def body(ex: Exec, x: SVal = item) -> None:
                ex.env[node.var] = x
                ex.block(node.body)
            self.when(present, body)
        if saved is not None:
            self.env[node.var] = saved
        else:
            self.env.pop(node.var, None)

    def repeat(self, node: s.Repeat) -> None:
        count = self.eval(node.count)
        if not isinstance(count, IntV):
            raise Unsupported(node.pos, "repeat of a non-number")
        n = const(count.term)
        if n is not None and not T.is_true(simple(count.none)):
            for _ in range(max(n, 0)):
                self.block(node.body)
            return
        bound = T.largest(count.term)
        if bound is None:
            raise Unsupported(node.pos, "a repeat count that is no constant and has no largest value")
        for i in range(bound):
            self.when(T.and_(T.not_(count.none), T.gt(count.term, i)), lambda ex: ex.block(node.body))


def refresh_protection(ex: Exec) -> None:
    """engine.refresh_protection: the protections evaluated once an action is complete."""
    rules = ex.rules
    if not rules.protects:
        return
    for q in range(ex.L.players):
        held = FALSE
        for decl in rules.protects.values():
            tr = Translator(rules, StateModel(ex.st))
            held = T.or_(held, truth(tr.expr(decl.when, {decl.owner: PlayerV(T.num(q))}), decl.pos))
        ex.put(("protected", q), held)


def encode_cell(value: SVal, pos: s.Pos) -> tuple[Z, Z]:
    """A value a `continue` gives its step, as the two numbers a queue entry keeps."""
    zero = T.num(0)
    if isinstance(value, (PlayerV, CardV)):
        return value.term, zero
    if isinstance(value, SlotV):
        return value.player, value.number
    if isinstance(value, IntV):
        return value.term, zero
    if isinstance(value, BoolV):
        return T.ite(value.term, 1, 0), zero
    if isinstance(value, NoneV):
        return T.num(NONE_ID), zero
    raise Unsupported(pos, f"a {value.kind()} given to a step")


def decode_cell(vtype: str, cell: tuple[Z, Z], pos: s.Pos) -> SVal:
    x, y = cell
    if vtype == "player":
        return PlayerV(x)
    if vtype == "card":
        return CardV(x)
    if vtype == "slot":
        return SlotV(x, y)
    if vtype == "int":
        return IntV(x)
    if vtype == "bool":
        return BoolV(T.eq(x, 1))
    raise Unsupported(pos, f"a step value of type {vtype}")


def _seat_mask(L: Layout, players: SVal, pos: s.Pos) -> list[Z]:
    if isinstance(players, NoneV):
        return [FALSE] * L.players
    if not isinstance(players, ListV):
        raise Unsupported(pos, f"a {players.kind()} where players belong")
    mask = [FALSE] * L.players
    for item, present in players.items:
        if not isinstance(item, PlayerV):
            raise Unsupported(pos, "a list of non-players where players belong")
        for q in range(L.players):
            hit = T.and_(present, T.eq(item.term, q))
            if not T.is_false(hit):
                mask[q] = T.or_(mask[q], hit)
    return mask


def _chain_players(L: Layout, player: Z, of: Callable[[int], Z]) -> Z:
    return chain(player, [(q, of(q)) for q in range(L.players)], T.num(0))


def _ite(cond: Z, a: Z, b: Z) -> Z:
    return T.ite(cond, a, b)


__all__ = ["Choice", "Exec", "Trail", "decode_cell", "encode_cell", "refresh_protection", "var_parts"]
