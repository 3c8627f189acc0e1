"""Random simulation of every playable rules variant, for 2 to 6 players (as OpenSpiel's games_sim_test).

For each rules set and player count one seeded match is played by uniformly random legal moves, and in
every state reached:
- nobody has a legal move exactly when a halt of the rules that allows nothing holds (the match is over);
- every invariant of the rules holds, transition invariants over each move: among them the bounds of a BAO
  score, of the noted scores and of the totals (rules/09_invariants.bao), so scores lie within the rules'
  bounds;
- the state round-trips through JSON: the same JSON, and the same random move from the same generator;
and the same seed gives the same trace, move for move. Each rules set also plays one match with the
simulator's memory policy, its statistics judged.
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest
from baobei.engine.engine import Engine
from baobei.engine.state import State
from baobei.language.load import load_ruleset
from baobei.language.paths import default_rules_dir
from baobei.play.dealer import Dealer
from baobei.scenarios.runner import check_move
from conftest import edit_all, edit_file
from variants import PLAYABLE, Edit

RULE_SETS = ["default", *PLAYABLE]
PLAYERS = range(2, 7)
MOVES = 3_000  # far more than a random match takes; a match that needs more is reported


@pytest.fixture(scope="module")
def engines(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Engine]:
    out = {"default": Engine(load_ruleset(default_rules_dir()))}
    for name, edits in PLAYABLE.items():
        out[name] = Engine(load_ruleset(variant_dir(tmp_path_factory.mktemp(name), edits)))
    return out


def variant_dir(target: Path, edits: tuple[Edit, ...]) -> Path:
    rules = target / "rules"
    shutil.copytree(default_rules_dir(), rules)
    for file, old, new in edits:
        edit_all(rules, old, new) if file == "*" else edit_file(rules / file, old, new)
    return rules


def random_match(eng: Engine, players: int, seed: int) -> list[str]:
    """Play one match by random legal moves, judging every state; the trace of move texts."""
    st, _ = eng.new_match([f"p{i + 1}" for i in range(players)], seed, log=False)
    rng = random.Random(seed)
    trace: list[str] = []
    for _ in range(MOVES):
        judge_state(eng, st)
        move = eng.random_move(st, rng)
        if move is None:
            return trace
        trace.append(eng.describe(st, move))
        before = st.copy()
        eng.push(st, move, log=False)
        assert check_move(eng, before, move, st) is None, trace[-1]
    raise AssertionError(f"no end after {MOVES} moves: {trace[-10:]}")


def judge_state(eng: Engine, st: State) -> None:
    halt = eng.halt(st)
    over = halt is not None and not halt.allow
    assert (not eng.movers(st)) == over, f"movers {eng.movers(st)}, halt {halt}"
    text = eng.state_to_json(st)
    back = eng.state_from_json(text)
    assert eng.state_to_json(back) == text
    assert eng.random_move(back, random.Random(7)) == eng.random_move(st.copy(), random.Random(7))


@pytest.mark.parametrize("players", PLAYERS)
@pytest.mark.parametrize("rules", RULE_SETS)
def test_random_matches_of_every_variant(engines: dict[str, Engine], rules: str, players: int) -> None:
    eng = engines[rules]
    seed = 1000 * players + RULE_SETS.index(rules)
    trace = random_match(eng, players, seed)
    assert trace, "a match has moves"
    assert random_match(eng, players, seed) == trace  # the same seed, the same trace


@pytest.mark.parametrize("rules", RULE_SETS)
def test_the_memory_policy_plays_every_variant(engines: dict[str, Engine], rules: str) -> None:
    record = Dealer(engines[rules], "memory", max_turns=300).play(0, 3, 3)
    assert not record.findings, record.findings[0].message if record.findings else ""
    assert record.finished or record.capped
    assert record.rounds or record.capped
