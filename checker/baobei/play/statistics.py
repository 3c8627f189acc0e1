"""The rules' `statistic` declarations, compiled: what a simulation counts after each move.

A statistic names what it counts in rules-language expressions over the move and the states before
(`old(...)`) and after it (rules/10_statistics.bao); this module knows no move or variable of the game.
A value is recorded as JSON can hold it: a number, a word, true or false; a card by its species, a slot
as `p2.3`, and a player by seat, counted from the player whose turn began the match (seat 1), so that
"who wins" reads as "which seat wins".
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from ..engine.engine import Engine
from ..engine.move import Move
from ..engine.runtime import Fn
from ..engine.state import State
from ..language import syntax as s
from ..language.builtins import ENGINE_NAMES
from ..language.errors import BaoError, EngineError
from ..language.kinds import KindOf, Kinds, shared_kinds

Value = int | str | bool | None
Key = tuple[Value, ...]
# One count: the values of the dimensions and the outcome.
Tally = Counter[tuple[Key, Value]]


@dataclass(frozen=True)
class Compiled:
    decl: s.StatisticDecl
    on: frozenset[str]
    when: Fn | None
    by: tuple[tuple[Fn, str], ...]  # each dimension's expression and kind
    outcome: tuple[Fn, str] | None


class Statistics:
    """Every statistic of the rules, compiled for one engine."""

    def __init__(self, eng: Engine) -> None:
        self.eng = eng
        self.compiled = [self._compile(d) for d in eng.rules.statistics.values()]

    def _compile(self, decl: s.StatisticDecl) -> Compiled:
        names = _names(self.eng, decl)
        kinds = KindOf(self.eng.rules)

        def part(expr: s.Expr) -> tuple[Fn, str]:
            try:
                return self.eng.compile_expr(expr, names, two_state=True), kinds.visit(expr, names) or ""
            except BaoError as err:
                raise BaoError(f"statistic {decl.ident} ({decl.pos}): {err}") from None

        when = part(decl.when)[0] if decl.when is not None else None
        outcome = part(decl.outcome) if decl.outcome is not None else None
        return Compiled(decl, frozenset(decl.on), when, tuple(part(d.expr) for d in decl.by), outcome)

    def kinds(self) -> list[tuple[s.StatisticDecl, tuple[str, ...], str | None]]:
        """Each statistic with the kinds of its dimensions and of its outcome (None: it has none)."""
        return [(c.decl, tuple(kind for _, kind in c.by), c.outcome[1] if c.outcome is not None else None)
                for c in self.compiled]

    def record(self, tallies: dict[str, Tally], before: State, move: Move, after: State, starter: int) -> None:
        """Count `move` (from `before` to `after`) in every statistic that counts it."""
        env: dict[str, Any] | None = None
        for c in self.compiled:
            if c.on and move.name not in c.on:
                continue
            if env is None:
                cm = self.eng.moves[move.name]
                env = {**self.eng.env_for(before, cm, move.player, move.args)}
            try:
                if c.when is not None and not self.eng.evaluate_move(before, after, c.when, env):
                    continue
                key = tuple(self._value(after, fn, kind, before, env, starter) for fn, kind in c.by)
                outcome = self._value(after, *c.outcome, before, env, starter) if c.outcome is not None else None
            except EngineError as err:
                raise BaoError(f"statistic {c.decl.ident} ({c.decl.pos}): {err}") from None
            tallies.setdefault(c.decl.ident, Counter())[(key, outcome)] += 1

    def _value(self, after: State, fn: Fn, kind: str, before: State, env: dict[str, Any], starter: int) -> Value:
        return recorded(self.eng.evaluate_move(before, after, fn, env), kind, after, starter)


def recorded(value: Any, kind: str, st: State, starter: int) -> Value:
    """A value as a figure holds it (see the module's doc)."""
    if value is None or isinstance(value, bool):
        return value
    if kind == "player" and isinstance(value, int):
        return f"seat {(value - starter) % len(st.names) + 1}"
    if kind == "card" and isinstance(value, int):
        return str(st.facts.species[value])
    if kind == "slot" and isinstance(value, tuple):
        return f"{st.names[value[0]]}.{value[1]}"
    if isinstance(value, int | str):
        return value
    return str(value)


def _names(eng: Engine, decl: s.StatisticDecl) -> Kinds:
    """The names a statistic's expressions see: the mover, the ability's card, the shared arguments."""
    return {**ENGINE_NAMES, **shared_kinds([eng.rules.moves[name] for name in decl.on])}
