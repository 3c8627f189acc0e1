"""Between engine states and symbolic stores: an engine state as constant terms, a model as a state.

`store_of` writes an engine state (engine/state.py) into a store of constants, so that the symbolic
engine runs on it exactly as the engine does (the agreement tests compare the two). `state_of` reads
a Z3 model of a store back into an engine state: a counterexample the report prints as a scenario
table and the engine replays.
"""

from __future__ import annotations

from typing import Any

import z3  # type: ignore[import-untyped]

from ..engine.engine import Engine
from ..engine.state import State, Waiting, Window
from ..language import syntax as s
from . import terms as T
from .store import BOX, Codes, Key, SymStore, parts_for, state_keys
from .translate import FALSE, NONE_ID, TRUE, BoolV, CardV, IntV, ListV, NoneV, PlayerV, SlotV, StrV, SVal, Z


def value_term(codes: Codes, vtype: str, value: Any) -> SVal:
    """An engine value of a declared type as a constant symbolic value."""
    if value is None:
        return NoneV()
    if vtype == "int":
        return IntV(T.num(int(value)))
    if vtype == "bool":
        return BoolV(T.boolean(bool(value)))
    if vtype == "str":
        return StrV(T.num(codes.string(str(value))))
    if vtype == "player":
        return PlayerV(T.num(int(value)))
    if vtype == "card":
        return CardV(T.num(int(value)))
    if vtype == "slot":
        return SlotV(T.num(int(value[0])), T.num(int(value[1])))
    if vtype == "players":
        return ListV(tuple((PlayerV(T.num(q)), T.boolean(q in value)) for q in range(codes.n)))
    raise ValueError(f"a value of type {vtype}")


def store_of(codes: Codes, st: State) -> SymStore:
    """The engine state as a store of constants."""
    t: dict[Key, Z] = {}
    for key, sort in state_keys(codes):
        t[key] = FALSE if sort == z3.BoolSort() else T.num(0)
    clock = 0
    for k in range(codes.N):
        t[("loc", k)] = T.num(BOX)
    for p, row in enumerate(st.tableaux):
        t[("nslots", p)] = T.num(len(row))
        for i, c in enumerate(row):
            if c is not None:
                t[("loc", c)], t[("slot", c)] = codes.tab(p), T.num(i + 1)
    for p, hand in enumerate(st.hands):
        for i, c in enumerate(hand):
            t[("loc", c)], t[("ts", c)] = codes.hand(p), T.num(clock)
            if i < codes.capacity:
                t[("hand", p, i)] = T.num(c)
            clock += 1
    for i, pile in enumerate(st.piles):
        for c in pile:
            t[("loc", c)], t[("ts", c)] = T.num(codes.pile(i)), T.num(clock)
            clock += 1
    t[("clock",)] = T.num(clock)
    t[("size", BOX)] = T.num(len(st.box))
    for p, hand in enumerate(st.hands):
        t[("size", 1 + codes.P + p)] = T.num(len(hand))
    for i, pile in enumerate(st.piles):
        t[("size", codes.pile(i))] = T.num(len(pile))
    for k in range(codes.N):
        for q in range(codes.n):
            t[("known", q, k)] = T.boolean(bool(st.known[k] >> q & 1))
        for i in range(len(codes.marks)):
            t[("mark", i, k)] = T.boolean(bool(st.marks[k] >> i & 1))
    for q in range(codes.n):
        t[("in", q)] = T.boolean(bool(st.in_round >> q & 1))
        t[("protected", q)] = T.boolean(bool(st.protected >> q & 1))
    t[("active",)], t[("phase",)] = T.num(st.active), T.num(codes.string(st.phase))
    t[("round",)], t[("turn",)] = T.num(st.round), T.num(st.turn)
    _windows(codes, st, t)
    _queue(codes, st, t)
    for v in codes.rules.variables.values():
        values = st.pvars[v.name] if v.per_player else [st.vars[v.name]]
        for i, value in enumerate(values):
            for part, term in parts_for(codes, v.type, value_term(codes, v.type, value), v.pos).items():
                t[("pvar", v.name, i, part) if v.per_player else ("var", v.name, part)] = term
    t[("err",)], t[("over",)] = FALSE, T.boolean(len(st.waiting) > codes.queue or len(st.windows) > codes.windows)
    return SymStore(codes, t, [])


def _windows(codes: Codes, st: State, t: dict[Key, Z]) -> None:
    windows = st.windows[-codes.windows:]
    t[("wn",)] = T.num(len(windows))
    for i, w in enumerate(windows):
        t[("w", i, "kind")], t[("w", i, "ref")], t[("w", i, "att")] = (
            T.num(codes.string(w.kind)), T.num(w.ref), T.num(w.attempts))
        for q in range(codes.n):
            t[("w", i, "pl", q)] = T.boolean(bool(w.players >> q & 1))


def _queue(codes: Codes, st: State, t: dict[Key, Z]) -> None:
    from .machine import _cells, f_key  # the cells' layout is the machine's

    entries = st.waiting[:codes.queue]
    t[("qn",)] = T.num(len(entries))
    for i, w in enumerate(entries):
        t[("q", i, "ab")], t[("q", i, "card")], t[("q", i, "owner")] = (
            T.num(codes.ability_code(w.ability)), T.num(w.card), T.num(w.owner))
        t[("q", i, "after")] = T.boolean(w.after_window)
        types = codes.formals.get(w.ability, [])
        values = [value_term(codes, vtype, a) for vtype, a in zip(types, w.args, strict=False)]
        for f, term in _cells(codes, w.ability, tuple(values)).items():
            t[("q", *f_key(i, f))] = term


# ---------------------------------------------------------------- models back to states


class Reader:
    """Reads a model's values of a store's terms."""

    def __init__(self, model: Any) -> None:
        self.model = model

    def num(self, term: Z) -> int:
        v = self.model.eval(term, model_completion=True)
        return int(v.as_long()) if z3.is_int_value(v) else 0

    def flag(self, term: Z) -> bool:
        return bool(z3.is_true(self.model.eval(term, model_completion=True)))


def state_of(eng: Engine, codes: Codes, store: SymStore, model: Any, names: list[str]) -> State:
    """The engine state a model gives the store's terms (slots past the last card of a tableau dropped
    when the model leaves them without a card beyond a sensible bound)."""
    r = Reader(model)
    t = store.t
    st = eng.blank_state(list(names), 0)
    st.box = []
    rows: list[dict[int, int]] = [{} for _ in names]
    hands: list[list[tuple[int, int]]] = [[] for _ in names]
    piles: list[list[tuple[int, int]]] = [[] for _ in codes.piles]
    for k in range(codes.N if ("loc", 0) in t else 0):  # a store with free cards keeps no card's place
        loc, ts = r.num(t[("loc", k)]), r.num(t[("ts", k)])
        if codes.tab0 <= loc <= codes.last_code:
            rows[loc - codes.tab0][r.num(t[("slot", k)])] = k
        elif 1 + codes.P <= loc < codes.tab0:
            hands[loc - 1 - codes.P].append((ts, k))
        elif 1 <= loc <= codes.P:
            piles[loc - 1].append((ts, k))
        else:
            st.box.append(k)
    precise = ("loc", 0) in t
    if not precise:
        st.box = list(range(codes.N))
    for p in range(codes.n if precise else 0):
        width = max([r.num(t[("nslots", p)]), *rows[p]], default=0)
        st.tableaux[p] = [rows[p].get(i) for i in range(1, width + 1)]
        held = [r.num(t[("hand", p, i)]) for i in range(min(r.num(t[("size", 1 + codes.P + p)]), codes.capacity))]
        st.hands[p] = held if sorted(held) == sorted(k for _, k in hands[p]) else [k for _, k in sorted(hands[p])]
    st.piles = [[k for _, k in sorted(pile)] for pile in piles]
    if precise:
        st.known = [sum(1 << q for q in range(codes.n) if r.flag(t[("known", q, k)])) for k in range(codes.N)]
        st.marks = [sum(1 << i for i in range(len(codes.marks)) if r.flag(t[("mark", i, k)])) for k in range(codes.N)]
    st.seat_round([q for q in range(codes.n) if r.flag(t[("in", q)])] or list(range(codes.n)))
    st.protected = sum(1 << q for q in range(codes.n) if r.flag(t[("protected", q)]))
    st.active = r.num(t[("active",)]) % codes.n
    st.phase = codes.text(r.num(t[("phase",)])) or ""
    st.round, st.turn = r.num(t[("round",)]), r.num(t[("turn",)])
    st.windows = [Window(codes.text(r.num(t[("w", i, "kind")])) or "", r.num(t[("w", i, "ref")]),
                         sum(1 << q for q in range(codes.n) if r.flag(t[("w", i, "pl", q)])),
                         r.num(t[("w", i, "att")])) for i in range(min(r.num(t[("wn",)]), codes.windows))]
    st.waiting = [_entry(r, codes, t, i) for i in range(min(r.num(t[("qn",)]), codes.queue))]
    for v in codes.rules.variables.values():
        if v.per_player:
            st.pvars[v.name] = [read_value(r, codes, v, t, q) for q in range(codes.n)]
        else:
            st.vars[v.name] = read_value(r, codes, v, t, None)
    return st


def _entry(r: Reader, codes: Codes, t: dict[Key, Z], i: int) -> Waiting:
    ability = codes.abilities[max(0, min(r.num(t[("q", i, "ab")]), len(codes.abilities)) - 1)]
    args: list[Any] = []
    for j, vtype in enumerate(codes.formals.get(ability, [])):
        a, b, n = (r.num(t[("q", i, "arg", j, x)]) for x in ("a", "b", "n"))
        if vtype == "slot":
            args.append(None if a == NONE_ID else (a, b))
        elif vtype == "bool":
            args.append(None if n else bool(a))
        elif vtype == "int":
            args.append(None if n else a)
        elif vtype == "str":
            args.append(None if n else codes.text(a))
        else:
            args.append(None if a == NONE_ID else a)
    return Waiting(ability, r.num(t[("q", i, "card")]), r.num(t[("q", i, "owner")]), tuple(args),
                   r.flag(t[("q", i, "after")]))


def read_value(r: Reader, codes: Codes, v: s.VarDecl, t: dict[Key, Z], q: int | None) -> Any:
    def part(name: str) -> Z:
        return t[("var", v.name, name) if q is None else ("pvar", v.name, q, name)]

    if v.type in ("int", "str", "bool") and r.flag(part("none")):
        return None
    if v.type == "int":
        return r.num(part("v"))
    if v.type == "bool":
        return r.flag(part("v"))
    if v.type == "str":
        return codes.text(r.num(part("v")))
    if v.type in ("player", "card"):
        x = r.num(part("v"))
        return None if x == NONE_ID else x
    if v.type == "slot":
        p = r.num(part("p"))
        return None if p == NONE_ID else (p, r.num(part("n")))
    if v.type == "players":
        return None if r.flag(part("none")) else [q2 for q2 in range(codes.n) if r.flag(part(f"m{q2}"))]
    return None


__all__ = ["TRUE", "state_of", "store_of", "value_term"]


def move_of(codes: Codes, step: Any, model: Any) -> Any:
    """The move a model gives a relation step (its player and arguments), as the engine's Move."""
    from ..engine.move import Move

    r = Reader(model)
    args: list[tuple[str, Any]] = []
    for name, value in step.args:
        concrete = arg_value(r, value)
        if concrete is not None:
            args.append((name, concrete))
    return Move(r.num(step.player), step.cm.name, tuple(args))


def arg_value(r: Reader, value: SVal) -> Any:
    if isinstance(value, SlotV):
        p = r.num(value.player)
        return None if p == NONE_ID else (p, r.num(value.number))
    if isinstance(value, (PlayerV, CardV)):
        x = r.num(value.term)
        return None if x == NONE_ID else x
    if isinstance(value, BoolV):
        return None if r.flag(value.none) else r.flag(value.term)
    return None
