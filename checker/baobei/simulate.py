"""Seeded random legal play: whole rounds, out-of-turn moves included (for the benchmark and fuzzing)."""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

from .engine import Engine
from .state import State

# Phases in which a round has ended (the rules name them; the simulator only watches for them).
ROUND_OVER_PHASES = ("round_over", "match_over")


@dataclass
class PlayStats:
    moves: int = 0
    rounds: int = 0
    capped: int = 0
    seconds: float = 0.0

    @property
    def moves_per_second(self) -> float:
        return self.moves / self.seconds if self.seconds else 0.0

    @property
    def rounds_per_second(self) -> float:
        return self.rounds / self.seconds if self.seconds else 0.0


def play_round(eng: Engine, st: State, rng: random.Random, cap: int, stats: PlayStats) -> None:
    """Random legal moves until the round is over (or `cap` moves: a finding, not an error, D9)."""
    for _ in range(cap):
        if st.phase in ROUND_OVER_PHASES:
            stats.rounds += 1
            return
        move = eng.random_move(st, rng)
        if move is None:
            raise RuntimeError(f"no legal move in phase {st.phase!r}: the rules leave the game stuck")
        eng.push(st, move, log=False)
        stats.moves += 1
    stats.capped += 1


def bench(eng: Engine, players: int, rounds: int, seed: int, cap: int = 5000) -> PlayStats:
    names = [f"p{i + 1}" for i in range(players)]
    rng = random.Random(seed)
    stats = PlayStats()
    start = time.perf_counter()
    game = 0
    while stats.rounds + stats.capped < rounds:
        st, _ = eng.new_match(names, seed + game, log=False)
        game += 1
        while stats.rounds + stats.capped < rounds:
            play_round(eng, st, rng, cap, stats)
            if st.phase != "round_over":
                break
            eng.start_round(st, None)
    stats.seconds = time.perf_counter() - start
    return stats
