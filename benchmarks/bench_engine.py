"""The engine's operations, timed on the same states every run (conftest.py): one benchmark round does the
operation once for each of the sample's states, so the figures are per sample (40 states), not per state."""

from __future__ import annotations

import random
from typing import Any

from baobei.engine.incremental import IncrementalJudge
from conftest import Sample

ROUNDS = 10


def bench_apply_checked(benchmark: Any, sample: Sample) -> None:
    """Engine.push: the move checked, then applied in place (on copies made outside the clock)."""
    eng = sample.eng

    def run(copies: list[Any]) -> None:
        for st, move in zip(copies, sample.moves, strict=True):
            eng.push(st, move, False)

    benchmark.pedantic(run, setup=lambda: (([st.copy() for st in sample.states],), {}), rounds=ROUNDS)


def bench_apply_generated(benchmark: Any, sample: Sample) -> None:
    """Engine.push_generated: a move the generator produced, applied without checking it again."""
    eng = sample.eng

    def run(copies: list[Any]) -> None:
        for st, move in zip(copies, sample.moves, strict=True):
            eng.push_generated(st, move)

    benchmark.pedantic(run, setup=lambda: (([st.copy() for st in sample.states],), {}), rounds=ROUNDS)


def bench_list_legal_moves(benchmark: Any, sample: Sample) -> None:
    """Every legal move of every player."""
    eng = sample.eng
    benchmark.pedantic(lambda: [list(eng.legal_moves(st)) for st in sample.states], rounds=3)


def bench_random_legal_move(benchmark: Any, sample: Sample) -> None:
    """One uniformly random legal move."""
    eng, rng = sample.eng, random.Random(1)
    benchmark.pedantic(lambda: [eng.random_move(st, rng) for st in sample.states], rounds=ROUNDS)


def bench_invariants_full(benchmark: Any, sample: Sample) -> None:
    """Every invariant judged after each move of a run of consecutive moves: state and transition invariants."""
    eng = sample.eng

    def run() -> None:
        for before, move, after in sample.run:
            list(eng.broken_invariants(after))
            list(eng.broken_transitions(before, after, move))

    benchmark.pedantic(run, rounds=ROUNDS)


def bench_invariants_incremental(benchmark: Any, sample: Sample) -> None:
    """The same moves judged as the dealer judges them (engine/incremental.py): only the invariants a move can
    have affected, along the run (the judge started on its first state outside the clock)."""
    eng = sample.eng

    def start() -> tuple[tuple[IncrementalJudge], dict[str, Any]]:
        judge = IncrementalJudge(eng)
        judge.start(sample.run[0][0])
        return (judge,), {}

    def run(judge: IncrementalJudge) -> None:
        for before, move, after in sample.run:
            judge.after(before, after, move)

    benchmark.pedantic(run, setup=start, rounds=ROUNDS)
