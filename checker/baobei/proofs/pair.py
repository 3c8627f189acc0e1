"""Bounded model checking over two versions of the rules side by side: where their legal moves first part.

`baobei compare` looks for the shortest situation that tells two versions apart with both engines in lock step
(compare/distinguish.py), from seeded deals and from the scenarios' tables. Those searches see the deals they
are given. Here Z3 sees every deal of the small deck at once: the two transition relations (relation.py, one
per version, each with constants of its own) start from one deal (every part of the state the two versions
share is equal), make the same move at every step and stay in equal states, and at each depth Z3 is asked for
a move with the same player and arguments that one version allows and the other refuses.

A model is a path of moves from a concrete deal. The relation allows more than the engine in one place (an
ability whose legal choices are too many to expand is assumed to have one, relation.py), so a path is only a
candidate: compare/distinguish.py follows it with both engines and keeps it only where they part as Z3 said;
a path the engines do not confirm is excluded and Z3 asked again, a few times per depth.

Results that differ (the same move, other states after it) are left to the engines' search: equal states after
every step keep the two versions on one path, which also makes their random draws the same.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import z3  # type: ignore[import-untyped]

from ..engine.engine import Engine
from ..engine.move import Move
from ..engine.state import State
from ..language.ruleset import Ruleset
from . import terms as T
from .relation import Disjunct, Relation, Step
from .symexec import Trail
from .symstate import SymState
from .trace import Reader
from .translate import Unsupported, Z

TRIES_PER_DEPTH = 3  # paths the engines did not confirm, per depth, before the next depth


@dataclass(frozen=True)
class PairPath:
    """A candidate: the deal (as each version's engine reads it), the moves before the parting one with the
    cards their draws give, and the parting move, legal under `legal_in` ("old" or "new") only."""

    old_start: State
    new_start: State
    steps: tuple[tuple[Move, tuple[int, ...]], ...]
    parting: Move
    legal_in: str
    depth: int


@dataclass
class PairReport:
    depth: int = -1  # the deepest depth at which Z3 found no parting move (after the confirmed ones)
    candidates: int = 0
    found: int = -1  # the depth of the parting move the engines confirmed (-1: none)
    seconds: float = 0.0
    reason: str = ""  # why no search was made (the relations cannot follow these rules, or they differ in shape)


@dataclass(frozen=True)
class _Match:
    old: Disjunct
    new: Disjunct
    same_args: Z


class PairSearch:
    """The two unrollings in one solver; `paths` yields candidates, `exclude` rules out one the engines refuted."""

    def __init__(self, old_rules: Ruleset, new_rules: Ruleset, players: int) -> None:
        self.rels = (Relation(old_rules, players, name="o."), Relation(new_rules, players, name="n."))
        self.engines = (Engine(old_rules), Engine(new_rules))
        self.solver = z3.Solver()
        constraints: list[Z] = []
        starts = [rel.initial(f"{rel.name}init", constraints, Trail(f"{rel.name}init")) for rel in self.rels]
        self.solver.add(*constraints, *self.rels[0].take_side(), *self.rels[1].take_side())
        self.solver.add(equal_states(*starts))  # one deal for both
        self.states: list[tuple[SymState, SymState]] = [(starts[0], starts[1])]
        self.steps: list[tuple[Step, Step]] = []

    def extend(self) -> list[_Match]:
        """One more step of each relation (not yet tied together); the moves both have, paired."""
        k = len(self.steps)
        pre_old, pre_new = self.states[k]
        old, new = self.rels[0].step(pre_old, k), self.rels[1].step(pre_new, k)
        self.solver.add(*old.constraints, *new.constraints)
        self.steps.append((old, new))
        self.states.append((old.post, new.post))
        return matches(old, new)

    def tie(self, pairs: list[_Match]) -> None:
        """The last step makes the same move in both versions and leaves equal states."""
        old, new = self.steps[-1]
        same = T.or_(T.and_(T.eq(old.sel, 0), T.eq(new.sel, 0)),
                     *[T.and_(T.eq(old.sel, m.old.index), T.eq(new.sel, m.new.index), m.same_args) for m in pairs])
        self.solver.add(same, equal_states(old.post, new.post))

    def parting(self, pairs: list[_Match]) -> Z:
        """At the last step: a move, alike in both, that one version allows and the other refuses (chosen by
        that version's selector, so that the model names it)."""
        old, new = self.steps[-1]
        return T.or_(*[T.or_(T.and_(T.eq(old.sel, m.old.index), m.same_args, T.not_(m.new.legal)),
                             T.and_(T.eq(new.sel, m.new.index), m.same_args, T.not_(m.old.legal)))
                       for m in pairs])

    def read(self, model: object, pairs: list[_Match]) -> PairPath:
        """The model's deal and path, in the engines' terms; the parting move from the version that allows it."""
        readers = [Reader(eng, rel.layout, model) for eng, rel in zip(self.engines, self.rels, strict=True)]
        old_start, new_start = readers[0].state(self.states[0][0]), readers[1].state(self.states[0][1])
        steps: list[tuple[Move, tuple[int, ...]]] = []
        for old, _ in self.steps[:-1]:
            move = readers[0].move(old)
            if move is not None:
                steps.append((move, tuple(readers[0].draws(old))))
        old, new = self.steps[-1]
        old_allows = any(readers[0].num(old.sel) == m.old.index and readers[0].flag(m.same_args)
                         and not readers[0].flag(m.new.legal) for m in pairs)
        move = readers[0].move(old) if old_allows else readers[1].move(new)
        assert move is not None  # the parting formula chose a move on the side that allows it
        return PairPath(old_start, new_start, tuple(steps), move, "old" if old_allows else "new",
                        len(self.steps) - 1)

    def exclude(self) -> Z:
        """Rules out the last model's choices of moves (the engines did not part there): every selector as
        it chose."""
        model = self.solver.model()
        chosen = [T.eq(s.sel, model.eval(s.sel, model_completion=True)) for pair in self.steps for s in pair]
        return T.not_(T.and_(*chosen))


def matches(old: Step, new: Step) -> list[_Match]:
    """The disjuncts of the two steps that are one move: same name, same player, same arguments (by name and
    kind); `same_args` says their values are equal."""
    by_key = {(d.move.name, d.actor): d for d in new.disjuncts}
    out = []
    for d in old.disjuncts:
        other = by_key.get((d.move.name, d.actor))
        if other is None or [(a.param.name, a.param.kind) for a in d.args] != \
                [(a.param.name, a.param.kind) for a in other.args]:
            continue
        same = T.and_(*[T.eq(x, y) for a, b in zip(d.args, other.args, strict=True)
                        for x, y in zip(a.consts, b.consts, strict=True)])
        out.append(_Match(d, other, same))
    return out


def equal_states(a: SymState, b: SymState) -> Z:
    """Every part the two states share is equal (a part one version has alone is free)."""
    return T.and_(*[T.eq(a.t[k], b.t[k]) for k in a.t if k in b.t and a.t[k].sort() == b.t[k].sort()])


def parting_paths(old_rules: Ruleset, new_rules: Ruleset, players: int, depth: int, seconds: float,
                  confirmed: Callable[[PairPath], bool], report: PairReport) -> Iterator[PairPath]:
    """Depth by depth up to `depth` moves (or `seconds`): the candidates the engines confirm (`confirmed`),
    the shallowest first. Stops at the first depth that has one."""
    began = time.perf_counter()
    try:
        search = PairSearch(old_rules, new_rules, players)
    except Unsupported as err:
        report.reason = f"the transition relation cannot follow these rules: {err.what}"
        return
    for k in range(depth + 1):
        pairs = search.extend()
        goal = search.parting(pairs)
        found = False
        for _ in range(TRIES_PER_DEPTH):
            left = seconds - (time.perf_counter() - began)
            if left <= 0:
                report.seconds = time.perf_counter() - began
                return
            search.solver.set("timeout", int(left * 1000))
            answer = T.check(search.solver, goal)
            if answer == z3.unknown:  # out of time: this depth was not judged
                report.seconds = time.perf_counter() - began
                return
            if answer != z3.sat:
                break
            path = search.read(search.solver.model(), pairs)
            report.candidates += 1
            if confirmed(path):
                found = True
                report.found = k
                report.seconds = time.perf_counter() - began
                yield path
                break
            search.solver.add(search.exclude())
        if found:
            break
        report.depth = k
        search.tie(pairs)
    report.seconds = time.perf_counter() - began
