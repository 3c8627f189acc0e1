"""The library: `import baobei` and play (docs/library.md), the package's data, and what the wheel ships."""

from __future__ import annotations

import doctest
import json
import random
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import baobei
import baobei.game
import pytest
from baobei import Game, IllegalMove, MatchState, Move
from baobei.language.errors import BaoError
from baobei.language.paths import PROJECT_ROOT, default_rules_dir, grammar_dir, outline_dir, package_data
from baobei.play.view import BLANK
from conftest import MakeVariant

NEWCOMER = """
import baobei

game = baobei.Game.load()
state = game.new_match(["ann", "ben", "cleo"], seed=11)
rng = __import__("random").Random(3)
while not state.is_over():
    state.push(state.random_move(rng))
outcome = state.outcome()
print(outcome.winner, outcome.scores, state.returns())
"""


@pytest.fixture(scope="module")
def game() -> Game:
    return Game.load()


def finished(game: Game, players: int, seed: int) -> MatchState:
    state = game.new_match(players, seed)
    rng = random.Random(seed)
    while not state.is_over():
        move = state.random_move(rng)
        assert move is not None, "nobody may act, yet the match is not over"
        state.push(move, log=False)
    return state


def test_the_docstrings_examples_run() -> None:
    result = doctest.testmod(baobei.game, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 10 and result.failed == 0


def test_a_newcomers_script_with_only_import_baobei_plays_a_match_to_the_end(tmp_path: Path) -> None:
    script = tmp_path / "newcomer.py"
    script.write_text(NEWCOMER, encoding="utf-8")
    run = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    winner, *_ = run.stdout.split()
    assert winner in {"ann", "ben", "cleo"}
    assert run.stdout.strip().endswith("]") and "1.0" in run.stdout


def test_import_baobei_compiles_nothing_until_a_name_is_used() -> None:
    code = "import sys, baobei; print('baobei.engine.engine' in sys.modules); baobei.Game; " \
           "print('baobei.engine.engine' in sys.modules)"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert run.stdout.split() == ["False", "True"], run.stderr


def test_all_names_the_public_surface() -> None:
    for name in baobei.__all__:
        assert getattr(baobei, name) is not None
    assert {"Game", "MatchState", "Move", "Outcome", "Rejection", "IllegalMove"} <= set(baobei.__all__)
    with pytest.raises(AttributeError):
        _ = baobei.NoSuchThing  # type: ignore[attr-defined]


def test_a_move_as_text_or_as_a_move_and_the_refusal_with_its_rule(game: Game) -> None:
    state = game.new_match(["ann", "ben"], seed=7)
    look = state.parse_move("ann look slot=ann.1")
    assert look in state.legal_moves("ann") and "ann look slot=ann.1" in state.legal_moves()
    assert look not in state.legal_moves("ben") and "ann look slot=zed.1" not in state.legal_moves()
    events = state.push(look)
    assert events and state.events == tuple(events) and events[0].rule == "look"
    refusal = state.check(look)
    assert refusal is not None and refusal.rule == "look" and refusal.reason
    with pytest.raises(IllegalMove) as caught:
        state.push("ann look slot=ann.1")
    assert caught.value.rejection == refusal
    with pytest.raises(BaoError):
        state.push("ann fly away")
    assert state.move_text(look) == "ann look slot=ann.1"


def test_legal_moves_of_one_player_and_of_everybody(game: Game) -> None:
    state = game.new_match(3, seed=1)
    every = list(state.legal_moves())
    assert len(state.legal_moves()) == len(every) > 0 and state.legal_moves()
    by_player = [m for p in state.players for m in state.legal_moves(p)]
    assert sorted(map(state.move_text, by_player)) == sorted(map(state.move_text, every))
    assert sorted(state.movers()) == sorted({state.players[m.player] for m in every})
    with pytest.raises(BaoError, match="no player"):
        state.legal_moves("zed")


def test_the_match_ends_by_the_rules_halt_and_the_outcome_names_the_winner(game: Game) -> None:
    state = game.new_match(2, seed=5)
    assert not state.is_over() and state.outcome() is None and state.returns() == [0.0, 0.0]
    state = finished(game, 4, seed=5)
    outcome = state.outcome()
    assert outcome is not None and state.halt() is not None and not state.legal_moves()
    assert outcome.halt == state.halt().name  # type: ignore[union-attr]
    # The default rules name the winner in `winner`, keep `total` and `noted`, and define `round_value`.
    assert outcome.winner == state.players[state.raw.vars["winner"]]
    assert outcome.scores["total"] == dict(zip(state.players, state.raw.pvars["total"], strict=True))
    assert set(outcome.scores) == {"noted", "total"} and "round_value" in outcome.values
    assert state.returns() == [1.0 if p == outcome.winner else 0.0 for p in state.players]


def test_a_round_over_is_not_the_match_over(game: Game) -> None:
    state = game.new_match(2, seed=2)
    rng = random.Random(2)
    while state.round == 1:
        move = state.random_move(rng)
        assert move is not None
        if move.name == "deal":
            assert state.halt() is not None and not state.is_over()
        state.push(move)


def test_a_copy_and_the_json_form_go_on_exactly_as_the_state(game: Game) -> None:
    state = game.new_match(3, seed=9)
    rng = random.Random(9)
    for _ in range(25):
        state.push(state.random_move(rng), log=False)  # type: ignore[arg-type]
    copy, restored = state.copy(), game.state_from_json(state.to_json())
    assert restored.to_json() == state.to_json() and json.loads(state.to_json())["names"] == state.players
    for other in (copy, restored):
        a, b = random.Random(4), random.Random(4)
        ours, theirs = state.copy(), other
        while not ours.is_over():
            move = ours.random_move(a)
            assert move is not None
            ours.push(move, log=False)
            theirs.push(theirs.random_move(b), log=False)  # type: ignore[arg-type]
        assert ours.to_json() == theirs.to_json()
    assert copy.to_json() != state.to_json() or state.is_over()


def test_a_players_view_hides_the_cards_that_player_has_not_seen(game: Game) -> None:
    state = game.new_match(["ann", "ben"], seed=7)
    state.push("ann look slot=ann.1")
    view = state.view("ann")
    facts = view.game.engine.facts
    ann, ben = view.raw.tableaux
    assert facts.species[ann[0]] != BLANK  # seen at the peek
    assert all(facts.species[c] == BLANK for c in ann[1:] + ben if c is not None)
    assert view.players == state.players and view.phase == state.phase
    assert any(line.count("?") for line in state.table("ben"))


def test_random_move_then_push_is_checked_once_and_any_other_move_is_checked(game: Game) -> None:
    state = game.new_match(2, seed=3)
    move = state.random_move(random.Random(1))
    assert move is not None
    state.push(move)
    with pytest.raises(IllegalMove):
        state.push(Move(move.player, move.name, move.args))  # equal, but not generated for this state now


def test_loading_the_same_rules_twice_compiles_them_once_and_a_variant_is_another_game(
        make_variant: MakeVariant) -> None:
    assert Game.load() is Game.load(str(default_rules_dir()))
    variant = make_variant(("07_scoring.bao", "  2: 100\n", "  2: 10\n"))
    short = Game.load(variant)
    assert short is not Game.load() and short.rules_dir == variant
    assert finished(short, 2, seed=1).outcome() is not None
    with pytest.raises(BaoError, match="no such rules folder"):
        Game.load(variant / "missing")


def test_the_data_files_are_package_data_with_the_checkout_as_fallback(tmp_path: Path) -> None:
    assert (default_rules_dir() / "01_deck.bao").is_file() and (grammar_dir() / "rules.lark").is_file()
    assert (outline_dir() / "sections.toml").is_file()
    assert package_data("baobei.no_such_data", "*.bao", tmp_path) == tmp_path
    assert package_data("baobei.language", "*.bao", tmp_path) == tmp_path  # a package without such files


def test_the_wheel_lists_every_package_and_ships_the_rules_and_grammars() -> None:
    config = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    code = PROJECT_ROOT / "checker"
    found = {".".join(p.parent.relative_to(code).parts) for p in code.glob("baobei/**/__init__.py")}
    assert set(config["packages"]) == found | {"baobei.rules", "baobei.grammar", "baobei.outline"}
    assert config["package-dir"] == {"": "checker", "baobei.rules": "rules", "baobei.grammar": "grammar",
                                     "baobei.outline": "docs/src"}
    data = config["package-data"]
    assert data["baobei.rules"] == ["*.bao", "induction.json"] and set(data["baobei.grammar"]) >= {"*.lark", "*.toml"}
    assert data["baobei.outline"] == ["*.toml"]
    for folder, kinds in (("grammar", {".lark", ".toml"}), ("docs/src", {".toml"}), ("rules", {".bao", ".json"})):
        assert {p.suffix for p in (PROJECT_ROOT / folder).iterdir()} <= kinds, f"a file of {folder}/ left out"


def test_the_library_page_shows_running_code(tmp_path: Path) -> None:
    page = (PROJECT_ROOT / "docs" / "library.md").read_text(encoding="utf-8")
    blocks = [textwrap.dedent(b.split("\n", 1)[1]) for b in page.split("```python")[1:]]
    first = blocks[0].split("```")[0]
    script = tmp_path / "first.py"
    script.write_text(first, encoding="utf-8")
    run = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr


def test_whether_a_player_may_act_agrees_with_the_moves_listed(game: Game) -> None:
    """`bool(legal_moves(p))` finds one move without listing the others: it must say what listing says, for
    a player who may act and for one who may not (a seeded match played for a while)."""
    state = game.new_match(3, seed=11)
    rng = random.Random(11)
    seen = set()
    for _ in range(80):
        for player in state.players:
            listed = list(state.legal_moves(player))
            assert bool(state.legal_moves(player)) == bool(listed)
            seen.add(bool(listed))
        move = state.random_move(rng)
        if move is None:
            break
        state.push(move)
    assert seen == {True, False}
