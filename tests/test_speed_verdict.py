"""The generated verdicts (engine/verdict.py) agree with the full check: a move they call legal is one the
check accepts, one they call illegal is one it refuses; and `check`, `is_legal` and `legal_among` give what
the full check gives, for every legal move of seeded matches and for moves one argument away from them."""

from __future__ import annotations

import random
from typing import Any

import pytest
from baobei.engine.engine import Engine
from baobei.engine.move import Move
from baobei.engine.state import State
from baobei.play.dealer import Dealer, Match, MatchRecord


def played(eng: Engine, players: int, matches: int) -> list[State]:
    """Every state of seeded matches as `baobei simulate` plays them."""
    out: list[State] = []

    class Recording(Match):
        def step(self, move: Move) -> bool:
            out.append(self.st.copy())
            return bool(super().step(move))

    dealer = Dealer(eng, next(iter(eng.rules.policies), "random"), invariants=False)
    for seed in range(matches):
        st, _ = eng.new_match([f"p{i}" for i in range(players)], seed, log=False)
        Recording(dealer, MatchRecord(0, seed), st, random.Random(seed)).run()
    return out


def neighbours(eng: Engine, st: State, move: Move, rng: random.Random) -> list[Move]:
    """Moves one change away from a legal one: another value for one argument (from every kind's domain, so
    of the wrong kind too), another player, an argument left out, or the arguments in another order."""
    values: list[Any] = [None, True, 0, len(st.names), (0, 1), (0, 99), (len(st.names), 1), (1, 1), *st.hands[0][:2]]
    out = [Move(p, move.name, move.args) for p in range(len(st.names)) if p != move.player]
    for i, (name, _) in enumerate(move.args):
        for value in rng.sample(values, 4):
            out.append(Move(move.player, move.name, (*move.args[:i], (name, value), *move.args[i + 1:])))
        out.append(Move(move.player, move.name, move.args[:i] + move.args[i + 1:]))
    if len(move.args) > 1:
        out.append(Move(move.player, move.name, tuple(reversed(move.args))))
    return out


LEGAL_SAMPLE = 150  # legal moves of a state judged both ways


@pytest.mark.parametrize("players", [2, 4, 6])
def test_the_verdicts_agree_with_the_full_check(default_engine: Engine, players: int) -> None:
    eng, rng = default_engine, random.Random(players)
    states = played(eng, players, 2)
    said = {True: 0, False: 0, None: 0}
    for st in states[:: max(1, len(states) // 80)]:
        legal = list(eng.legal_moves(st))
        # A seeded sample of a state's legal moves (an open pluck window has thousands, nearly all double
        # plucks alike), and the neighbours of a few: wrong players, wrong values, missing arguments.
        sample = legal if len(legal) <= LEGAL_SAMPLE else rng.sample(legal, LEGAL_SAMPLE)
        tried = sample + [m for move in rng.sample(legal, min(len(legal), 6)) for m in neighbours(eng, st, move, rng)]
        for move in tried:
            full = eng._find_rejection(st, move)
            verdict = eng.verdict(st, move)
            said[verdict] += 1
            assert verdict is None or verdict == (full is None), (eng.describe(st, move), verdict, full)
            assert eng.is_legal(st, move) == (full is None)
            assert (eng.check(st, move) is None) == (full is None)
        assert eng.legal_among(st, tried) == [m for m in tried if eng._find_rejection(st, m) is None]
        # Every move generation makes is one its verdict admits, but a step while a tableau is protected (its
        # trial run decides) and a move of the owner of an ability that has no choice yet (the waiting rule).
        deferred = eng.deferred(st)
        assert all(eng.verdict(st, m) is True for m in legal
                   if not (st.protected and eng.moves[m.name].decl.is_step) and not deferred)
    assert said[True] and said[False] and said[None]  # each answer was given, and checked


def test_a_refused_move_gets_the_full_rejection(default_engine: Engine) -> None:
    """The verdict never answers for a refused move: `check` gives the full rejection, with every reason."""
    eng, rng = default_engine, random.Random(5)
    for st in played(eng, 4, 1)[::10]:
        for move in eng.legal_moves(st):
            for near in neighbours(eng, st, move, rng):
                rejection = eng.check(st, near)
                if rejection is not None:
                    assert rejection.move == eng.describe(st, near)
                    assert rejection.rule and rejection.reason
            break
