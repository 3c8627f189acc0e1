"""Judging the invariants after a move, re-judging only those the move can have affected.

An invariant's verdict is a function of the parts of the state it reads (engine/reads.py). A state
invariant none of whose parts a move changed has the verdict it had in the state before the move, so it is
not judged again. A transition invariant reads the state before and after the move, and the move's names
(`actor`, `by_ability`, `source`): when the move changed none of its parts, the two states agree on all it reads, so
its verdict is a function of those parts in the state before and of the move's names alone: it is judged
once for each value of the names and kept (`Idle`) as long as those parts keep their values. An invariant
whose reads are not known reads `EVERYTHING`, which every move changes.

Two uses: along one line of play (`IncrementalJudge.start`, then `after` every move: a match of the dealer),
and from a state to each of its successors (`states_after`, `transitions_after`, with the verdicts of the
state and an `Idle` kept per state: the breadth-first search of explore.py). Either way the verdicts are
the full judge's (Engine.broken_invariants, broken_transitions), in the same order:
tests/test_incremental_invariants.py compares the two.
"""

from __future__ import annotations

from ..language import syntax as s
from .engine import Engine
from .move import Move
from .reads import EVERYTHING, Parts, Reads, changed_parts
from .runtime import Ctx, Fn
from .state import State

Judged = tuple[str, Fn | None, Fn, Parts]  # an invariant: its name, `when`, `holds`, the parts it reads
# Per transition invariant, its verdicts over moves that changed none of its parts, by the move's names.
Idle = dict[str, dict[tuple[object, ...], bool]]


class IncrementalJudge:
    """The invariants of one ruleset, judged where a move can have changed their verdict."""

    def __init__(self, eng: Engine) -> None:
        self.eng = eng
        reads = Reads(eng.rules)
        invariants = eng.rules.invariants
        self.states: list[Judged] = [(ident, when, holds, reads.of_invariant(invariants[ident]))
                                     for ident, (when, holds) in eng.invariant_fns.items()]
        self.transitions: list[Judged] = [(ident, when, holds, reads.of_invariant(invariants[ident]))
                                          for ident, (when, holds) in eng.transition_fns.items()]
        self.holds: dict[str, bool] = {}  # along a line of play: each state invariant's verdict in its last state
        self.idle: Idle = {}  # along a line of play
        self.judged = 0  # invariants judged (for the benchmarks and the tests: how much was saved)

    # ------------------------------------------------------------ along one line of play
    def start(self, st: State) -> list[s.InvariantDecl]:
        """Judge every state invariant in the first state of the line (a deal); the broken ones, in order."""
        ctx = Ctx(st, {}, None)
        self.holds = {ident: self._holds(ctx, when, holds) for ident, when, holds, _ in self.states}
        self.idle = {}
        return self._broken(self.holds)

    def after(self, before: State, after: State, move: Move | None
              ) -> tuple[list[s.InvariantDecl], list[s.InvariantDecl]]:
        """The state invariants broken in `after` and the transition invariants the move breaks, as the full
        judge gives them; `before` is the state the previous call (or `start`) judged as `after`."""
        changed = changed_parts(before, after)
        self._rejudge(self.holds, after, changed)
        for ident, *_, parts in self.transitions:
            if parts is EVERYTHING or not parts.isdisjoint(changed):
                self.idle.pop(ident, None)  # its parts have new values: what was kept holds no more
        return self._broken(self.holds), self.transitions_after(before, after, move, changed, self.idle)

    # ------------------------------------------------------------ from a state to its successors
    def states_after(self, before: State, broken_before: frozenset[str], after: State, changed: set[str]
                     ) -> list[s.InvariantDecl]:
        """The state invariants broken in `after`, a successor of `before` (in which `broken_before` broke, or
        more: those are judged again whatever the move changed)."""
        holds = dict.fromkeys((ident for ident, *_ in self.states), True)
        self._rejudge(holds, after, changed, broken_before)
        return self._broken(holds)

    def transitions_after(self, before: State, after: State, move: Move | None, changed: set[str], idle: Idle
                          ) -> list[s.InvariantDecl]:
        """The transition invariants the move from `before` to `after` breaks. `idle` holds the verdicts over
        moves that changed none of an invariant's parts: valid for moves from states that agree with `before`
        on those parts (kept along a line of play, or for the moves from one state)."""
        eng = self.eng
        env = eng.transition_env(before, move)
        ctx = Ctx(after, env, None)
        ctx.before = Ctx(before, ctx.env, None)  # one context for all: evaluating binds no name in it
        key = tuple(env.values())
        broken = []
        judged = 0
        for ident, when, holds, parts in self.transitions:
            if parts is EVERYTHING or not parts.isdisjoint(changed):
                judged += 1  # `_holds`, written out: this runs for every invariant after every move
                verdict = bool((when is not None and not when(ctx)) or holds(ctx))
            else:
                kept = idle.setdefault(ident, {})
                found = kept.get(key)
                verdict = kept[key] = self._holds(ctx, when, holds) if found is None else found
            if not verdict:
                broken.append(eng.rules.invariants[ident])
        self.judged += judged
        return broken

    # ------------------------------------------------------------ shared
    def _rejudge(self, holds: dict[str, bool], st: State, changed: set[str], also: frozenset[str] = frozenset()
                 ) -> None:
        """Judge again in `st` the state invariants that read a part in `changed`, and those in `also`."""
        ctx = Ctx(st, {}, None)  # one context for all: evaluating binds no name in it
        judged = 0
        for ident, when, fn, parts in self.states:
            if parts is EVERYTHING or not parts.isdisjoint(changed) or ident in also:
                judged += 1  # `_holds`, written out: this runs for every invariant after every move
                holds[ident] = bool((when is not None and not when(ctx)) or fn(ctx))
        self.judged += judged

    def _holds(self, ctx: Ctx, when: Fn | None, holds: Fn) -> bool:
        self.judged += 1
        return bool((when is not None and not when(ctx)) or holds(ctx))

    def _broken(self, holds: dict[str, bool]) -> list[s.InvariantDecl]:
        invariants = self.eng.rules.invariants
        return [invariants[ident] for ident, *_ in self.states if not holds[ident]]
