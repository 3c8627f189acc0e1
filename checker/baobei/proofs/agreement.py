"""Engine and prover check each other: every move of the engine's play is a step of the relation.

From a state the engine reached by seeded random play, the relation's step (relation.py) is built
on that state's constants, the engine's move is selected with its arguments and the cards its draws
gave, and Z3 must find the step possible with the engine's state after it. Where the model lets a
waiting ability go without a legal choice (an open-ended witness), the engine's choice is added, as
the bounded model checker does. A move the relation does not admit, or a different state after it,
is a disagreement, named with the move and the first part of the state that differs.

The other direction, prover to engine, is the replay of every BMC trace (trace.replay).
"""

from __future__ import annotations

import random
from typing import Any

import z3  # type: ignore[import-untyped]

from ..engine.engine import Engine
from ..engine.move import Move
from ..engine.state import State
from ..language.ruleset import Ruleset
from ..scenarios.draws import forced
from . import terms as T
from .bmc import engine_choice
from .relation import SLOT_KINDS, Disjunct, Relation, Step
from .trace import NAMES, Reader, constant_state, difference


def agreement(rules: Ruleset, players: int, moves: int, seed: int, settle: int = 2) -> list[str]:
    """Seeded random play of `moves` moves (new matches as they end); the disagreements found."""
    eng = Engine(rules)
    rel = Relation(rules, players, settle=settle)
    rng = random.Random(seed)
    st, _ = eng.new_match(list(NAMES[:players]), seed)
    out: list[str] = []
    for n in range(moves):
        move = eng.random_move_by_kind(st, rng) if n % 3 else eng.random_move(st, rng)
        if move is None:
            st, _ = eng.new_match(list(NAMES[:players]), seed + n + 1)
            continue
        after, drawn = engine_step(eng, st, move)
        if after is not None:
            problem = check_step(eng, rel, st, move, after, drawn, n)
            if problem:
                out.append(problem)
            st = after
    return out


def engine_step(eng: Engine, st: State, move: Move) -> tuple[State | None, list[int]]:
    """The engine's state after the move, and the cards its draws gave (None: the rules failed)."""
    after = st.copy()
    chance = forced(after)
    drawn: list[int] = []
    plain = chance.before_draw

    def note(state: State, pile: list[int]) -> None:
        plain(state, pile)
        drawn.append(pile[-1])

    chance.before_draw = note  # type: ignore[method-assign, assignment]
    eng.push(after, move, log=False)
    return after, drawn


def check_step(eng: Engine, rel: Relation, st: State, move: Move, after: State, drawn: list[int], n: int) -> str:
    """"" when the relation admits the engine's move from `st` with the engine's state `after`."""
    if rel.layout.over(after):
        return ""  # beyond the bounds of the encoding: its `over` flag says so, no comparison
    # The move made is known: the step of that move alone (the others' disjuncts are never selected).
    step = rel.step(constant_state(rel.layout, st), n, only=(move.name, move.player))
    d = next(d for d in step.disjuncts if d.move.name == move.name and d.actor == move.player)
    solver = z3.Solver()
    solver.add(*step.constraints, T.eq(step.sel, d.index), *_arguments(d, move), *_draws(step, d, drawn))
    text = eng.describe(st, move)
    for _ in range(20):
        if T.check(solver) != z3.sat:
            return f"move {n}, {text}: the relation does not admit it"
        model = solver.model()
        if not _refine(eng, rel, model, solver):
            diff = difference(eng, after, Reader(eng, rel.layout, model).state(step.post))
            return f"move {n}, {text}: {diff}" if diff else ""
    return f"move {n}, {text}: no agreement after 20 refinements"


def _arguments(d: Disjunct, move: Move) -> list[Any]:
    out = []
    for a in d.args:
        value = move.arg(a.param.name)
        if a.param.kind in SLOT_KINDS:
            seat, number = value if value is not None else (-1, 0)
            out += [T.eq(a.consts[0], seat), T.eq(a.consts[1], number)]
        elif a.param.kind == "bool":
            out.append(a.consts[0] == bool(value))
        else:
            out.append(T.eq(a.consts[0], -1 if value is None else int(value)))
    return out


def _draws(step: Step, d: Disjunct, drawn: list[int]) -> list[Any]:
    """The i-th draw the move can make gave the engine's i-th card (the move's draws come before those
    of settling, each in the order the rules make them)."""
    choices = [c for c in d.trail.choices + step.settle_choices if c.kind == "draw" and not T.is_false(c.happens)]
    return [T.implies(c.happens, T.eq(c.term, card)) for c, card in zip(choices, drawn, strict=False)]


def _refine(eng: Engine, rel: Relation, model: Any, solver: Any) -> bool:
    reader = Reader(eng, rel.layout, model)
    added = False
    for w in rel.witnesses:
        if reader.flag(w.flag):
            continue
        choice = engine_choice(eng, reader.state(w.state), w)
        if choice is not None:
            solver.add(rel.instance(w, dict(choice.args)))
            added = True
    return added
