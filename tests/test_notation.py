"""Moves and states as text: a move's canonical text reads back as the same move; a state's JSON
form reads back as the same state, for every state of seeded random play of every variant."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from baobei.engine.engine import Engine
from baobei.engine.move import Move
from baobei.engine.notation import NotationError, parse_move_text
from baobei.engine.state import State
from baobei.language.load import load_ruleset
from conftest import MakeVariant
from variants import PLAYABLE

MOVES_PER_GAME = 400


def played_states(eng: Engine, players: int, seed: int) -> Iterator[tuple[State, Move]]:
    """Each state of a seeded random match with the move played from it."""
    st, _ = eng.new_match([f"p{i + 1}" for i in range(players)], seed, log=False)
    rng = random.Random(seed)
    for _ in range(MOVES_PER_GAME):
        move = eng.random_move(st, rng)
        if move is None:
            return
        yield st, move
        eng.push(st, move, log=False)


def check_round_trips(eng: Engine, players: int, seed: int, matches: int = 8) -> int:
    """Round-trip every state and move of a few seeded matches; the number of states checked."""
    seen = 0
    states = (pair for s in range(seed, seed + matches) for pair in played_states(eng, players, s))
    for st, move in states:
        text = eng.describe(st, move)
        assert parse_move_text(eng.rules.moves, st, text) == move, text
        again = eng.state_from_json(eng.state_to_json(st))
        assert again.to_json() == st.to_json()
        assert eng.random_move(again, random.Random(seed)) == eng.random_move(st.copy(), random.Random(seed))
        seen += 1
    return seen


@pytest.mark.parametrize("players", [2, 4, 6])
def test_default_rules_round_trip(default_engine: Engine, players: int) -> None:
    assert check_round_trips(default_engine, players, seed=players) > 100


@pytest.mark.parametrize("name", sorted(PLAYABLE))
def test_every_variant_round_trips(make_variant: MakeVariant, name: str) -> None:
    eng = Engine(load_ruleset(make_variant(*PLAYABLE[name])))
    assert check_round_trips(eng, 3, seed=11) > 50


def test_a_move_text_looks_like_the_scenario_language(default_engine: Engine) -> None:
    st = default_engine.blank_state(["alice", "bob"], 1)
    move = Move(0, "pluck", (("target", (1, 2)), ("gift", (0, 1)), ("place", None)))
    assert default_engine.describe(st, move) == "alice pluck target=bob.2 gift=alice.1"
    assert parse_move_text(default_engine.rules.moves, st, "alice pluck bob.2 alice.1") == move


@pytest.mark.parametrize(("text", "message"), [
    ("alice", "PLAYER MOVE"),
    ("zoe draw", "unknown player 'zoe'"),
    ("alice fly", "unknown move 'fly'"),
    ("alice pluck tgt=bob.1", "no argument 'tgt'"),
    ("alice pluck target=bob", "expected a slot"),
    ("alice pluck target=bob.1 target=bob.2", "given twice"),
])
def test_a_bad_move_text_is_a_clear_error(default_engine: Engine, text: str, message: str) -> None:
    st = default_engine.blank_state(["alice", "bob"], 1)
    with pytest.raises(NotationError, match=message):
        parse_move_text(default_engine.rules.moves, st, text)


def test_the_json_form_is_plain_json(default_engine: Engine, tmp_path: Path) -> None:
    st, _ = default_engine.new_match(["a", "b", "c"], 4, log=False)
    path = tmp_path / "state.json"
    path.write_text(default_engine.state_to_json(st), encoding="utf-8")
    again = default_engine.state_from_json(path.read_text(encoding="utf-8"))
    assert again.to_json() == st.to_json() and again.tableaux == st.tableaux
