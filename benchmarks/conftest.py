"""The states the speed suite times: seeded matches of 2, 4 and 6 players as `baobei simulate` plays them.

Each player count has a fixed sample of states, each with the move the dealer made in it and the state
after it, so that every run times the same work (and a saved run compares with the next like for like).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import pytest
from baobei.engine.engine import Engine
from baobei.engine.move import Move
from baobei.engine.state import State
from baobei.language.load import load_ruleset
from baobei.language.paths import default_rules_dir
from baobei.play.dealer import Dealer, Match, MatchRecord

PLAYERS = (2, 4, 6)
SAMPLE = 40  # states per player count, evenly spaced over the match
SEED = 1


@dataclass(frozen=True)
class Sample:
    """States of a match, the move made in each, and the state it led to."""

    eng: Engine
    states: list[State]
    moves: list[Move]
    afters: list[State]
    run: list[tuple[State, Move, State]]  # consecutive moves from the middle of the match (for the invariants)


@pytest.fixture(scope="session")
def engine() -> Engine:
    return Engine(load_ruleset(default_rules_dir()))


def played(eng: Engine, players: int, seed: int) -> list[tuple[State, Move, State]]:
    """Every (state, move, state after) of one match the dealer plays, invariants not judged."""
    out: list[tuple[State, Move, State]] = []

    class Recording(Match):
        def step(self, move: Move) -> bool:
            before = self.st.copy()
            going = super().step(move)
            out.append((before, move, self.st.copy()))
            return going

    dealer = Dealer(eng, next(iter(eng.rules.policies), "random"), invariants=False)
    st, _ = eng.new_match([f"p{i + 1}" for i in range(players)], seed, log=False)
    Recording(dealer, MatchRecord(0, seed), st, random.Random(f"policies/{seed}")).run()
    return out


_SAMPLES: dict[int, Sample] = {}


@pytest.fixture(params=PLAYERS, ids=[f"{n}p" for n in PLAYERS])
def sample(request: pytest.FixtureRequest, engine: Engine) -> Sample:
    players: int = request.param
    if players not in _SAMPLES:
        trace = played(engine, players, SEED)
        kept = trace[:: max(1, len(trace) // SAMPLE)][:SAMPLE]
        middle = len(trace) // 2
        _SAMPLES[players] = Sample(engine, [b for b, _, _ in kept], [m for _, m, _ in kept], [a for _, _, a in kept],
                                   trace[middle:middle + SAMPLE])
    return _SAMPLES[players]
