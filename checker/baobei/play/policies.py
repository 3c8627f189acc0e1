"""How simulated players choose a move: from their view only (play/view.py), never from the state.

- `random`: uniformly over the player's legal moves (`Engine.random_move`, on the view);
- `kinds`: a kind of move first, then its arguments (`Engine.random_move_by_kind`, on the view);
- every `policy` the rules declare (rules/10_statistics.bao has some): its `prefer` rules in order, the
  first that some legal move of its move satisfies choosing among those moves (the ones with the
  highest `best` value), else a move of a kind no `avoid` rule excludes.

A policy may wait (answer None) unless its view is `forced`: a rules policy waits when every kind of move
it could make is avoided (an out-of-turn call it has no reason for). The rules' expressions are compiled
for the view engine and evaluated on the view, so a policy can read nothing its player does not know.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from ..engine.engine import Engine
from ..engine.enumeration import Enumerator, enumerator
from ..engine.legality import CompiledMove, gathered, never_none
from ..engine.move import Move
from ..engine.runtime import Ctx, Fn
from ..engine.sampling import Level
from ..language import syntax as s
from ..language.builtins import ENGINE_NAMES
from ..language.errors import BaoError, EngineError
from ..language.kinds import move_kinds
from ..language.walk import free_names
from .view import PlayerView

# The policies every rules set has; the rules may declare more under other names.
BUILT_IN = ("random", "kinds")


class Policy(Protocol):
    def choose(self, view: PlayerView, rng: random.Random) -> Move | None:
        """A legal move of the view's player, or None to wait (never when the view is forced)."""


class RandomPolicy:
    def choose(self, view: PlayerView, rng: random.Random) -> Move | None:
        return view.engine.random_move(view.state, rng, player=view.seat)


class KindsPolicy:
    def choose(self, view: PlayerView, rng: random.Random) -> Move | None:
        return view.engine.random_move_by_kind(view.state, rng, player=view.seat)


@dataclass(frozen=True)
class Preference:
    """A compiled `prefer` rule: its move, the conditions decided before any argument (`pre`) and once
    argument i is chosen (`levels[i]`), and the value to maximise."""

    move: str
    pre: tuple[Fn, ...]
    levels: tuple[tuple[Fn, ...], ...]
    best: Fn | None
    # The argument choices the conditions accept, listed by generated code (engine/enumeration.py: the
    # conditions in nested loops over the domains, in `_satisfying`'s order); None: `_satisfying` walks them.
    listing: Enumerator | None = None


@dataclass(frozen=True)
class Avoidance:
    moves: frozenset[str]
    when: Fn | None


class RulesPolicy:
    """A `policy` of the rules, compiled for the view engine."""

    def __init__(self, engine: Engine, decl: s.PolicyDecl) -> None:
        self.engine = engine
        self.decl = decl
        self.prefer = [self._preference(r) for r in decl.rules if r.prefer]
        self.avoid = [Avoidance(frozenset(r.moves), self._compile(r.when, {"actor": "player"}, r))
                      for r in decl.rules if not r.prefer]

    def _compile(self, expr: s.Expr | None, names: dict[str, str], rule: s.PolicyRule) -> Fn | None:
        if expr is None:
            return None
        try:
            return self.engine.compile_expr(expr, names)
        except BaoError as err:
            raise BaoError(f"policy {self.decl.ident} ({rule.pos}): {err}") from None

    def _preference(self, rule: s.PolicyRule) -> Preference:
        move = self.engine.rules.moves[rule.moves[0]]
        params = [p.name for p in move.params]
        names = {**ENGINE_NAMES, **move_kinds(move)}
        pre: list[Fn] = []
        levels: list[list[Fn]] = [[] for _ in params]
        drawn: list[Level] = [[] for _ in params]  # the same levels, as the enumerator takes them
        for part in _conjuncts(rule.when):
            fn = self._compile(part, names, rule)
            assert fn is not None
            read = [i for i, name in enumerate(params) if name in free_names(part)]
            (levels[max(read)] if read else pre).append(fn)
            if read:
                drawn[max(read)].append(part)
        cm = self.engine.moves[move.name]
        # Arguments that repeat a name leave fewer names than arguments: their choices are walked instead.
        paired = len(cm.no_args) == len(params)
        listing = enumerator(self.engine.unit, move.name, cm.names, tuple(params), drawn, never_none(move)) \
            if paired else None
        return Preference(move.name, tuple(pre), tuple(map(tuple, levels)), self._compile(rule.best, names, rule),
                          listing)

    def choose(self, view: PlayerView, rng: random.Random) -> Move | None:
        eng, st, seat = view.engine, view.state, view.seat
        kinds = {cm.name: cm for cm in eng.candidates(st, seat)}
        try:
            for rule in self.prefer:
                cm = kinds.get(rule.move)
                moves = self._preferred(view, cm, rule) if cm is not None else []
                if moves:
                    return rng.choice(moves)
            return self._fallback(view, list(kinds.values()), rng)
        except EngineError as err:
            raise BaoError(f"policy {self.decl.ident}: {err}") from None

    def _preferred(self, view: PlayerView, cm: CompiledMove, rule: Preference) -> list[Move]:
        """The legal moves of the rule's move that satisfy it; with `best`, those of the highest value."""
        eng, st = view.engine, view.state
        env = eng.env_for(st, cm, view.seat, ())
        ctx = Ctx(st, env, None)  # one context for all: evaluating an expression binds no name in it
        if not all(fn(ctx) for fn in rule.pre):
            return []
        found = eng.legal_among(st, self._satisfying(view, cm, rule, env))
        if rule.best is None or not found:
            return found
        score = {m: eng.evaluate(st, rule.best, {**env, **dict(m.args)}) for m in found}
        top = max((v for v in score.values() if v is not None), default=None)
        return [m for m in found if score[m] == top]

    def _satisfying(self, view: PlayerView, cm: CompiledMove, rule: Preference,
                    env: dict[str, Any]) -> Iterator[Move]:
        """The argument choices the rule's conditions accept, each condition checked as soon as the arguments
        it reads are chosen (legality is checked after)."""
        eng, st, seat = view.engine, view.state, view.seat
        params = cm.decl.params
        domains = [([None] if p.optional else []) + eng.domain(st, p.kind, seat) for p in params]
        if rule.listing is not None:
            yield from rule.listing(st, (*(env.get(name) for name in cm.names), *domains), seat)
            return
        chosen = dict(env)
        ctx = Ctx(st, chosen, None)  # one context for every choice: evaluating binds no name in it
        names = [p.name for p in params]
        if not names:
            yield Move(seat, cm.name, ())
            return

        def extend(i: int) -> Iterator[Move]:
            name, level, last = names[i], rule.levels[i], i + 1 == len(names)
            for value in domains[i]:
                chosen[name] = value
                if level and not all(fn(ctx) for fn in level):
                    continue
                if last:  # the move itself, without a call for it
                    yield Move(seat, cm.name, tuple((n, chosen[n]) for n in names))
                else:
                    yield from extend(i + 1)

        yield from extend(0)

    def _fallback(self, view: PlayerView, kinds: list[CompiledMove], rng: random.Random) -> Move | None:
        """A kind of move no `avoid` rule excludes (any kind when forced), then one of its moves."""
        eng, st, seat = view.engine, view.state, view.seat
        legal = [cm for cm in kinds if eng.first_legal(st, seat, cm) is not None]
        allowed = [cm for cm in legal if not self._avoided(view, cm.name)]
        if not allowed and not view.forced:
            return None
        pool = allowed or legal
        if not pool:
            return None
        cm = rng.choice(pool)
        return rng.choice(gathered(eng.listed(st, seat, cm)))  # moves_of's moves, in its order, listed faster

    def _avoided(self, view: PlayerView, name: str) -> bool:
        env = {"actor": view.seat}
        return any(name in a.moves and (a.when is None or view.engine.evaluate(view.state, a.when, env))
                   for a in self.avoid)


def _conjuncts(expr: s.Expr | None) -> list[s.Expr]:
    """`a and b and c` as [a, b, c] (each can be decided as soon as the arguments it reads are chosen)."""
    if expr is None:
        return []
    if isinstance(expr, s.Binary) and expr.op == "and":
        return _conjuncts(expr.left) + _conjuncts(expr.right)
    return [expr]


def policy_names(engine: Engine) -> list[str]:
    return [*BUILT_IN, *engine.rules.policies]


def make_policy(name: str, view_engine: Engine) -> Policy:
    """The named policy for players viewing through `view_engine`; an unknown name is a BaoError naming the
    policies there are."""
    if name in view_engine.rules.policies and name in BUILT_IN:
        raise BaoError(f"the rules declare a policy {name!r}, the name of a built-in policy; rename it")
    if name == "random":
        return RandomPolicy()
    if name == "kinds":
        return KindsPolicy()
    decl = view_engine.rules.policies.get(name)
    if decl is None:
        raise BaoError(f"--policy {name}: no such policy; there are: {', '.join(policy_names(view_engine))}")
    return RulesPolicy(view_engine, decl)
