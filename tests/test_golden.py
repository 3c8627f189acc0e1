"""Golden playthroughs: seeded random games whose every move and event is stored as text.

A change to the rules or the engine that changes what happens in these games shows up here,
line by line. When the change is intended, regenerate the file with the command in the message.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from baobei.engine.engine import Engine
from baobei.play.simulate import playthrough

GOLDEN = Path(__file__).parent / "golden"

GAMES = [("play_3p_seed7.txt", 3, 7, 1), ("play_2p_seed3_2rounds.txt", 2, 3, 2)]


@pytest.mark.parametrize(("name", "players", "seed", "rounds"), GAMES)
def test_playthrough_matches_the_golden_file(default_engine: Engine, name: str, players: int, seed: int,
                                             rounds: int) -> None:
    expected = (GOLDEN / name).read_text(encoding="utf-8").splitlines()
    actual = playthrough(default_engine, players, seed, rounds)
    command = f"baobei play -v --players {players} --seed {seed} --rounds {rounds} > tests/golden/{name}"
    first = next((i for i, (a, b) in enumerate(zip(actual, expected, strict=False)) if a != b),
                 min(len(actual), len(expected)))
    assert actual == expected, (f"{name} differs from line {first + 1}: "
                                f"{actual[first] if first < len(actual) else '(end)'!r} against "
                                f"{expected[first] if first < len(expected) else '(end)'!r}; "
                                f"if intended, regenerate: {command}")


def test_the_golden_games_are_real_games() -> None:
    for name, *_ in GAMES:
        lines = (GOLDEN / name).read_text(encoding="utf-8").splitlines()
        moves = [line for line in lines if line.startswith("> ")]
        assert len(moves) > 10, name
        assert any("pluck" in m for m in moves) or any("take" in m for m in moves), name
