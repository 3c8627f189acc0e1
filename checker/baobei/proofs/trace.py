"""A bounded model checker's trace: read from a Z3 model, replayed by the engine, written as a scenario.

The model gives the state at every depth and, per step, the move (the selector's disjunct and its
arguments) and the cards each draw gave. `read_trace` turns them into engine values; `replay`
plays the moves with the engine from the first state, the draws named (scenarios/draws.py), and
compares the engine's state after every move with the model's: a difference is a disagreement
between the prover and the engine, reported with the first part of the state that differs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import z3  # type: ignore[import-untyped]

from ..engine.engine import Engine
from ..engine.move import Move
from ..engine.notation import scenario_move_text
from ..engine.state import State, Waiting, Window
from ..language.errors import BaoError, EngineError
from ..scenarios.draws import DrawUnavailable, forced
from ..scenarios.write import cites_line, table_lines
from .relation import SLOT_KINDS, Step
from .symstate import BOX, Layout, SymState
from .translate import NONE_ID

NAMES = ("alice", "bob", "carol", "dave", "erin", "frank", "gina", "hugo")


@dataclass
class TraceStep:
    move: Move
    draws: list[int]
    depth: int  # the depth of the state after the move


@dataclass
class Trace:
    start: State
    steps: list[TraceStep]
    states: list[State | None]  # the model's state at each depth (None where it left the round or failed)


@dataclass
class Replayed:
    """What the engine made of a trace: the states it reached, and where it disagreed, if anywhere."""

    states: list[State] = field(default_factory=list)
    disagreement: str = ""
    failure: str = ""  # the engine failed while applying the last move (a rules failure)
    texts: list[str] = field(default_factory=list)  # each move in the engine's words, read where it was made


class Reader:
    """Values of one Z3 model, as the engine writes them."""

    def __init__(self, eng: Engine, layout: Layout, model: Any) -> None:
        self.eng = eng
        self.L = layout
        self.model = model

    def num(self, term: Any) -> int:
        return int(self.model.eval(term, model_completion=True).as_long())

    def flag(self, term: Any) -> bool:
        return bool(z3.is_true(self.model.eval(term, model_completion=True)))

    def state(self, st: SymState) -> State:
        L, eng = self.L, self.eng
        names = list(NAMES[:L.players])
        out = eng.blank_state(names, 0)
        loc = [self.num(st.loc(c)) for c in range(L.n)]
        pos = [self.num(st[("pos", c)]) for c in range(L.n)]
        for p in range(L.players):
            n = self.num(st[("nslots", p)])
            row = [self.num(st.slot(p, k)) for k in range(1, n + 1)]
            out.tableaux[p] = [None if c == NONE_ID else c for c in row]
        for i in range(len(L.piles)):
            code = L.pile_code(i)
            here = [c for c in range(L.n) if loc[c] == code]
            out.piles[i] = sorted(here, key=lambda c: pos[c]) if L.face_up[i] else here
        for p in range(L.players):
            code = L.hand_code(p)
            out.hands[p] = sorted((c for c in range(L.n) if loc[c] == code), key=lambda c: pos[c])
        out.box = [c for c in range(L.n) if loc[c] == BOX]
        out.active = self.num(st[("active",)])
        out.phase = L.text_of(self.num(st[("phase",)])) or ""
        out.round, out.turn = self.num(st[("round",)]), self.num(st[("turn",)])
        self._variables(st, out)
        self._windows(st, out)
        out.known = [sum(1 << q for q in range(L.players) if self.flag(st[("known", q, c)])) for c in range(L.n)]
        bits = eng.facts.mark_bits
        out.marks = [sum(1 << bits[m] for m in L.marks if self.flag(st[("mark", m, c)])) for c in range(L.n)]
        out.seat_round([q for q in range(L.players) if self.flag(st[("in_round", q)])])
        out.protected = sum(1 << q for q in range(L.players) if self.flag(st[("protected", q)]))
        return out

    def _variables(self, st: SymState, out: State) -> None:
        for v in self.L.rules.variables.values():
            if v.per_player:
                out.pvars[v.name] = [self.var(st, v.name, v.type, p) for p in range(self.L.players)]
            else:
                out.vars[v.name] = self.var(st, v.name, v.type, None)

    def var(self, st: SymState, name: str, vtype: str, p: int | None) -> Any:
        def part(x: str) -> Any:
            return st.var(name, x, p)

        if vtype in ("int", "bool", "str") and self.flag(part("none")):
            return None
        if vtype == "int":
            return self.num(part("v"))
        if vtype == "bool":
            return self.flag(part("v"))
        if vtype == "str":
            return self.L.text_of(self.num(part("v")))
        if vtype in ("player", "card"):
            value = self.num(part("v"))
            return None if value == NONE_ID else value
        if vtype == "slot":
            seat = self.num(part("p"))
            return None if seat == NONE_ID else (seat, self.num(part("n")))
        if self.flag(part("none")):
            return None
        return [q for q in range(self.L.players) if self.flag(part(f"m{q}"))]

    def _windows(self, st: SymState, out: State) -> None:
        L = self.L
        if self.flag(st[("wopen",)]):
            mask = sum(1 << q for q in range(L.players) if self.flag(st[("wplayers", q)]))
            kind = L.text_of(self.num(st[("wkind",)])) or ""
            out.windows = [Window(kind, self.num(st[("wref",)]), mask, self.num(st[("watt",)]))]
        out.waiting = []
        for i in range(L.queue):
            if not self.flag(st[("q", i, "on")]):
                break
            ability = L.abilities[self.num(st[("q", i, "ab")]) - 1]
            decl = L.rules.moves[ability]
            args = tuple(self._cell(f.type, (st[("q", i, "arg", j, 0)], st[("q", i, "arg", j, 1)]))
                         for j, f in enumerate(decl.formals))
            out.waiting.append(Waiting(ability, self.num(st[("q", i, "card")]), self.num(st[("q", i, "owner")]),
                                       args, self.flag(st[("q", i, "after")])))

    def _cell(self, vtype: str, cell: tuple[Any, Any]) -> Any:
        x = self.num(cell[0])
        if vtype == "slot":
            return None if x == NONE_ID else (x, self.num(cell[1]))
        if vtype == "bool":
            return x == 1
        return None if x == NONE_ID and vtype in ("player", "card") else x

    def move(self, step: Step) -> Move | None:
        sel = self.num(step.sel)
        if sel == 0:
            return None
        d = step.disjuncts[sel - 1]
        args = []
        for a in d.args:
            if a.param.kind in SLOT_KINDS:
                seat = self.num(a.consts[0])
                value: Any = None if seat == NONE_ID else (seat, self.num(a.consts[1]))
            elif a.param.kind == "bool":
                value = self.flag(a.consts[0])
            else:
                number = self.num(a.consts[0])
                value = None if number == NONE_ID else number
            args.append((a.param.name, value))
        return Move(d.actor, d.move.name, tuple(args))

    def draws(self, step: Step) -> list[int]:
        return [self.num(c.term) for c in step.trail.choices
                if c.kind == "draw" and c.term is not None and self.flag(c.happens)]

    def usable(self, st: SymState) -> bool:
        """Whether the model's state is one of the round (not failed, over a bound, or after the next deal)."""
        return not any(self.flag(st[(k,)]) for k in ("err", "over", "left"))


def constant_state(layout: Layout, st: State) -> SymState:
    """An engine state as a symbolic state of constants (the inverse of `Reader.state`)."""
    from . import terms as T
    from .symstate import state_keys

    L = layout
    terms: dict[Any, Any] = {}
    place: dict[int, tuple[int, int]] = {c: (BOX, 0) for c in range(L.n)}
    for p, row in enumerate(st.tableaux):
        for k, c in enumerate(row, 1):
            if c is not None:
                place[c] = (int(L.slot_code(p, k)), 0)
    for i, cards in enumerate(st.piles):
        for j, c in enumerate(cards):
            place[c] = (L.pile_code(i), j)
    for p, cards in enumerate(st.hands):
        for j, c in enumerate(cards):
            place[c] = (int(L.hand_code(p)), j)
    for c in range(L.n):
        terms[("loc", c)], terms[("pos", c)] = T.num(place[c][0]), T.num(place[c][1])
    for x in L.counted_codes():
        terms[("size", x)] = T.num(sum(1 for c in range(L.n) if place[c][0] == x))
    for p in range(L.players):
        row = st.tableaux[p]
        terms[("nslots", p)] = T.num(len(row))
        for k in range(1, L.slots + 1):
            c = row[k - 1] if k <= len(row) else None
            terms[("slot", p, k)] = T.num(NONE_ID if c is None else c)
        terms[("in_round", p)] = T.boolean(bool(st.in_round >> p & 1))
        terms[("protected", p)] = T.boolean(bool(st.protected >> p & 1))
        for c in range(L.n):
            terms[("known", p, c)] = T.boolean(bool(st.known[c] >> p & 1))
    bits = st.facts.mark_bits
    for m in L.marks:
        for c in range(L.n):
            terms[("mark", m, c)] = T.boolean(bool(st.marks[c] >> bits[m] & 1))
    terms[("active",)], terms[("round",)], terms[("turn",)] = T.num(st.active), T.num(st.round), T.num(st.turn)
    terms[("phase",)] = T.num(L.string(st.phase))
    _constant_window(L, st, terms)
    _constant_queue(L, st, terms)
    _constant_vars(L, st, terms)
    for flag in ("err", "over", "left"):
        terms[(flag,)] = T.FALSE
    assert set(terms) == {k for k, _ in state_keys(L)}, "every key of the layout has a value"
    return SymState(L, terms)


def _constant_window(L: Layout, st: State, terms: dict[Any, Any]) -> None:
    from . import terms as T

    w = st.windows[-1] if st.windows else None
    terms[("wopen",)] = T.boolean(w is not None)
    terms[("wkind",)] = T.num(L.string(w.kind) if w is not None else 0)
    terms[("wref",)] = T.num(w.ref if w is not None else NONE_ID)
    terms[("watt",)] = T.num(w.attempts if w is not None else 0)
    for q in range(L.players):
        terms[("wplayers", q)] = T.boolean(w is not None and bool(w.players >> q & 1))


def _constant_queue(L: Layout, st: State, terms: dict[Any, Any]) -> None:
    from . import terms as T

    for i in range(L.queue):
        w = st.waiting[i] if i < len(st.waiting) else None
        terms[("q", i, "on")] = T.boolean(w is not None)
        terms[("q", i, "ab")] = T.num(L.ability_code(w.ability) if w is not None else 0)
        terms[("q", i, "card")] = T.num(w.card if w is not None else 0)
        terms[("q", i, "owner")] = T.num(w.owner if w is not None else 0)
        terms[("q", i, "after")] = T.boolean(w is not None and w.after_window)
        for j in range(L.cells):
            value = w.args[j] if w is not None and j < len(w.args) else None
            x, y = (value if isinstance(value, tuple) else (NONE_ID if value is None else int(value), 0))
            terms[("q", i, "arg", j, 0)], terms[("q", i, "arg", j, 1)] = T.num(x), T.num(y)


def _constant_vars(L: Layout, st: State, terms: dict[Any, Any]) -> None:
    for v in L.rules.variables.values():
        for p in range(L.players) if v.per_player else [None]:
            value = st.pvars[v.name][p] if p is not None else st.vars[v.name]
            for part, term in _constant_parts(L, v.type, value).items():
                terms[("var", v.name, part) if p is None else ("pvar", v.name, p, part)] = term


def _constant_parts(L: Layout, vtype: str, value: Any) -> dict[str, Any]:
    from . import terms as T

    none = value is None
    if vtype == "int":
        return {"v": T.num(0 if none else value), "none": T.boolean(none)}
    if vtype == "bool":
        return {"v": T.boolean(bool(value)), "none": T.boolean(none)}
    if vtype == "str":
        return {"v": T.num(0 if none else L.string(value)), "none": T.boolean(none)}
    if vtype in ("player", "card"):
        return {"v": T.num(NONE_ID if none else value)}
    if vtype == "slot":
        return {"p": T.num(NONE_ID if none else value[0]), "n": T.num(0 if none else value[1])}
    return {"none": T.boolean(none), **{f"m{q}": T.boolean(not none and q in value) for q in range(L.players)}}


def read_trace(eng: Engine, layout: Layout, model: Any, states: list[SymState], steps: list[Step]) -> Trace:
    r = Reader(eng, layout, model)
    out = Trace(r.state(states[0]), [], [r.state(s) if r.usable(s) else None for s in states])
    for i, step in enumerate(steps):
        move = r.move(step)
        if move is not None:
            out.steps.append(TraceStep(move, r.draws(step), i + 1))
    return out


def replay(eng: Engine, trace: Trace) -> Replayed:
    """Play the trace with the engine; compare with the model's state after every move."""
    st = trace.start.copy()
    chance = forced(st)
    out = Replayed([st.copy()])
    for n, step in enumerate(trace.steps):
        text = eng.describe(st, step.move)
        out.texts.append(text)
        chance.wanted.clear()
        chance.name(list(step.draws))
        rejection = eng.check(st, step.move)
        if rejection is not None:
            out.disagreement = f"move {n + 1}, {text}: the engine refuses it ({rejection.cite}: {rejection.reason})"
            return out
        try:
            eng.push(st, step.move, log=False)
        except EngineError as err:
            out.failure = f"move {n + 1}, {text}: {err}"
            out.states.append(st.copy())
            return out
        except DrawUnavailable as err:
            out.disagreement = f"move {n + 1}, {text}: {err}"
            return out
        out.states.append(st.copy())
        expected = trace.states[step.depth]
        if expected is not None:
            diff = difference(eng, st, expected)
            if diff:
                out.disagreement = f"after move {n + 1}, {text}: {diff}"
                return out
    return out


def difference(eng: Engine, a: State, b: State) -> str:
    """The first part in which two states differ, in words ("" when they agree). Face-down piles are
    compared as sets: their order is the engine's shuffle, which the prover leaves open."""
    face_down = [i for i, name in enumerate(eng.pile_names) if not eng.rules.piles[name].face_up]
    ja, jb = a.to_json(), b.to_json()
    for j in (ja, jb):
        j.pop("rng")
        j["box"] = sorted(j["box"])
        j["piles"] = [sorted(p) if i in face_down else p for i, p in enumerate(j["piles"])]
    for key in ja:
        x, y = ja[key], jb.get(key)
        if isinstance(x, dict) and isinstance(y, dict):
            for name in x:
                if x[name] != y.get(name):
                    return f"{key} {name}: the engine has {x[name]}, the prover {y.get(name)}"
        if x != y:
            return f"{key}: the engine has {x}, the prover {y}"
    return ""


def trace_scenario(eng: Engine, trace: Trace, title: str, comment: list[str], cite: str,
                   expectation: str = "") -> str:
    """The trace as a scenario: the first state as a table, then the moves, each after the draws it makes."""
    try:
        table = table_lines(eng, trace.start)
    except BaoError as err:
        raise BaoError(f"the trace cannot be written as a scenario: {err}") from None
    lines = [f"# {c}" for c in comment] + [f'scenario "{title}"']
    lines.append(cites_line(eng, cite, [step.move.name for step in trace.steps]))
    lines += ["tags bmc, counterexample", "", *table, "", "play"]
    st = trace.start.copy()
    chance = forced(st)
    for step in trace.steps:
        if step.draws:
            lines.append("  draws " + ", ".join(eng.facts.species[c] for c in step.draws))
        lines.append(f"  {scenario_move_text(eng.rules.moves, st, step.move)}")
        chance.wanted.clear()
        chance.name(list(step.draws))
        try:
            eng.push(st, step.move, log=False)
        except (EngineError, DrawUnavailable):
            break
    if expectation:
        lines.append(f"  {expectation}")
    return "\n".join(lines) + "\n"
