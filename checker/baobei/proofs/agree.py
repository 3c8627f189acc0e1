"""Engine and prover check each other: every move the engine makes is a step the relation allows.

The engine plays seeded random moves. Before each, its state is written into a store of constants
(concrete.py); the symbolic engine (machine.py) makes the same move with the same arguments; Z3 must
find the engine's state after the move among the states the relation allows, with each draw giving the
card the engine's draw gave. The relation may allow more (a waiting ability's "has a legal choice" is a
witness: see machine.SymEngine.has_choice), never less: a move whose result the relation does not
allow is a disagreement, named with the move and the parts of the state that cannot match.
"""

from __future__ import annotations

import itertools
import random
from typing import Any

import z3  # type: ignore[import-untyped]

from ..engine.engine import Engine
from ..engine.move import Move
from ..engine.state import Chance, State
from ..language.ruleset import Ruleset
from . import terms as T
from .arguments import concrete_args, fresh_maker
from .concrete import store_of, value_term
from .machine import SymEngine, explore, join
from .store import BOX, Codes, SymStore, parts_for
from .translate import FALSE, TRUE, Z

NAMES = ("ann", "ben", "cat", "dan", "eve", "fay")


class Recorder(Chance):
    """The engine's own random outcomes, with the cards its draws gave, in order."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.drawn: list[int] = []

    def before_draw(self, st: State, pile: list[int]) -> None:
        self.drawn.append(pile[-1])


def same_state(store: SymStore, st: State) -> dict[str, Z]:
    """The conditions under which the store is the engine state `st`, by part (a name for each)."""
    codes = store.codes
    t = store.t
    out: dict[str, list[Z]] = {}

    def need(part: str, cond: Z) -> None:
        out.setdefault(part, []).append(cond)

    where: dict[int, Z] = {k: T.num(BOX) for k in range(codes.N)}
    for p, row in enumerate(st.tableaux):
        need("tableaux", T.eq(t[("nslots", p)], len(row)))
        for i, c in enumerate(row):
            if c is not None:
                where[c] = codes.tab(p)
                need("tableaux", T.eq(t[("slot", c)], i + 1))
    ordered: list[list[int]] = []
    for p, hand in enumerate(st.hands):
        for i, c in enumerate(hand):
            where[c] = codes.hand(p)
            need("hands", T.eq(t[("hand", p, i)], c))
    for i, pile in enumerate(st.piles):
        for c in pile:
            where[c] = T.num(codes.pile(i))
        if i in codes.face_up:
            ordered.append(pile)
    for k in range(codes.N):
        need("places", T.eq(t[("loc", k)], where[k]))
        for q in range(codes.n):
            need("known", T.eq(t[("known", q, k)], T.boolean(bool(st.known[k] >> q & 1))))
        for i in range(len(codes.marks)):
            need("marks", T.eq(t[("mark", i, k)], T.boolean(bool(st.marks[k] >> i & 1))))
    for cards in ordered:
        for a, b in itertools.pairwise(cards):
            need("order", T.lt(t[("ts", a)], t[("ts", b)]))
    for q in range(codes.n):
        need("seats", T.eq(t[("in", q)], T.boolean(bool(st.in_round >> q & 1))))
        need("protected", T.eq(t[("protected", q)], T.boolean(bool(st.protected >> q & 1))))
    for name in ("active", "round", "turn"):
        need(name, T.eq(t[(name,)], getattr(st, name)))
    need("phase", T.eq(t[("phase",)], codes.string(st.phase)))
    _windows(store, st, need)
    _queue(store, st, need)
    _variables(store, st, need)
    need("error", T.not_(t[("err",)]))
    need("bounds", T.not_(t[("over",)]))
    return {part: T.and_(TRUE, *conds) for part, conds in out.items()}


def _windows(store: SymStore, st: State, need: Any) -> None:
    codes, t = store.codes, store.t
    windows = st.windows[-codes.windows:]
    need("windows", T.eq(t[("wn",)], len(windows)))
    for i, w in enumerate(windows):
        need("windows", T.and_(T.eq(t[("w", i, "kind")], codes.string(w.kind)), T.eq(t[("w", i, "ref")], w.ref),
                               T.eq(t[("w", i, "att")], w.attempts),
                               *[T.eq(t[("w", i, "pl", q)], T.boolean(bool(w.players >> q & 1)))
                                 for q in range(codes.n)]))


def _queue(store: SymStore, st: State, need: Any) -> None:
    from .machine import _cells, f_key

    codes, t = store.codes, store.t
    need("waiting", T.eq(t[("qn",)], len(st.waiting)))
    for i, w in enumerate(st.waiting[:codes.queue]):
        need("waiting", T.and_(T.eq(t[("q", i, "ab")], codes.ability_code(w.ability)),
                               T.eq(t[("q", i, "card")], w.card), T.eq(t[("q", i, "owner")], w.owner),
                               T.eq(t[("q", i, "after")], T.boolean(w.after_window))))
        types = codes.formals.get(w.ability, [])
        values = tuple(value_term(codes, vtype, a) for vtype, a in zip(types, w.args, strict=False))
        for f, term in _cells(codes, w.ability, values).items():
            need("waiting", T.eq(t[("q", *f_key(i, f))], term))


def _variables(store: SymStore, st: State, need: Any) -> None:
    codes, t = store.codes, store.t
    for v in codes.rules.variables.values():
        values = st.pvars[v.name] if v.per_player else [st.vars[v.name]]
        for i, value in enumerate(values):
            parts = parts_for(codes, v.type, value_term(codes, v.type, value), v.pos)
            if v.type in ("int", "str", "bool") and value is None:
                parts = {"none": TRUE}  # a none value's other part is no part of it
            for part, term in parts.items():
                key = ("pvar", v.name, i, part) if v.per_player else ("var", v.name, part)
                need(f"variable {v.name}", T.eq(t[key], term))


def draws_as(store: SymStore, drawn: list[int]) -> list[Z]:
    """The draws of the move give the engine's cards: the i-th draw of a path gives drawn[i]."""
    out = []
    for kind, x, cond, at in store.choices:
        if kind == "draw":
            out.append(T.implies(cond, T.and_(T.lt(at, len(drawn)), *[T.implies(T.eq(at, i), T.eq(x, c))
                                                                     for i, c in enumerate(drawn)])))
    out.append(T.eq(store.t[("draws",)], len(drawn)))
    return out


def step_agrees(eng: Engine, sym: SymEngine, before: State, move: Move, after: State, drawn: list[int]) -> str | None:
    """None when the relation allows the engine's move from `before` to `after`; else what cannot match."""
    codes: Codes = sym.codes
    store: Any = store_of(codes, before)  # the engine's code runs on it as on a state
    store.fresh = fresh_maker("agree")
    cm = sym.moves[move.name]
    paths = explore(store, None, lambda: sym.perform(store, cm, move.player, concrete_args(cm, move.args), None))
    join(store, None, paths)
    solver = z3.Solver()
    solver.add(*store.side, *draws_as(store, drawn))
    parts = same_state(store, after)
    if T.check(solver, *parts.values()) == z3.sat:
        return None
    wrong = [part for part, cond in parts.items() if T.check(solver, cond) != z3.sat]
    return (f"{eng.describe(before, move)}: the relation cannot give the engine's "
            + (", ".join(wrong) if wrong else "state as a whole"))


def agreement(rules: Ruleset, players: int, moves: int, seed: int) -> list[str]:
    """Seeded random play of `moves` moves (new matches as they end); the disagreements found."""
    eng = Engine(rules)
    sym = SymEngine(rules, players)
    rng = random.Random(seed)
    st, _ = eng.new_match(list(NAMES[:players]), seed)
    out: list[str] = []
    for n in range(moves):
        move = eng.random_move_by_kind(st, rng) if n % 3 else eng.random_move(st, rng)
        if move is None:
            st, _ = eng.new_match(list(NAMES[:players]), seed + n)
            continue
        before = st.copy()
        recorder = Recorder(seed * 1000 + n)
        st.use_chance(recorder)
        eng.push(st, move, log=False)
        found = step_agrees(eng, sym, before, move, st, recorder.drawn)
        if found is not None:
            out.append(found)
    return out


__all__ = ["FALSE", "agreement", "same_state", "step_agrees"]
