"""`baobei play` for people: results in words (the rules' `say`), the rules' bookkeeping only with -v,
and `--as PLAYER`, which shows only what that player knows."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from baobei.cli import main
from baobei.engine.engine import Engine
from baobei.engine.runtime import Event
from baobei.language.errors import RulesError
from baobei.language.load import load_ruleset
from baobei.language.paths import default_scenarios_dir
from baobei.language.source import Citation
from baobei.play.simulate import View, hide_unknown, lines_of_play
from baobei.scenarios.parser import parse_scenario_file
from baobei.scenarios.runner import run_scenario

MakeVariant = Callable[..., Path]
Capture = pytest.CaptureFixture[str]
LABEL = re.compile(r"[A-Za-z]+#[0-9]+")


def test_play_gives_the_result_in_words_and_hides_the_bookkeeping(capsys: Capture) -> None:
    assert main(["play", "--players", "3", "--seed", "7"]) == 0
    out = capsys.readouterr().out
    assert "BAO by p2 failed: the round value 49 is not lower than every other player's" in out
    assert "p3's total is 23" in out and "p3 wins the match" in out
    assert "noted[p1] = 42" not in out and "peeked[" not in out


def test_play_verbose_shows_the_bookkeeping(capsys: Capture) -> None:
    assert main(["play", "--players", "3", "--seed", "7", "-v"]) == 0
    out = capsys.readouterr().out
    assert "noted[p1] = 42" in out and "p3 wins the match" in out


def test_play_as_a_player_names_only_the_cards_that_player_knows(default_engine: Engine) -> None:
    lines = list(lines_of_play(default_engine, 3, 7, 1, view=View(verbose=False, viewer=1)))
    dealer = list(lines_of_play(default_engine, 3, 7, 1, view=View(verbose=False)))
    assert "  *p2  1:?  2:?  3:?  4:?" in lines  # nobody has looked at a card yet
    assert "  p1 looks secretly at a card  [look, § 1.2 [P9]]" in lines
    assert "  p2 looks secretly at Spatz#3  [look, § 1.2 [P9]]" in lines
    # The same game: every line of the player's view is the dealer's line with cards hidden.
    moves = [line for line in lines if line.startswith("> ")]
    assert moves == [line for line in dealer if line.startswith("> ")]
    assert sum("a card" in line for line in lines) > sum("a card" in line for line in dealer)


def test_every_card_named_in_a_players_view_was_known_to_that_player(default_engine: Engine) -> None:
    st, _ = default_engine.new_match(["p1", "p2", "p3"], 7)
    for label, card in st.facts.by_label.items():
        st.known[card] = 0b010 if label.endswith("#1") else 0
    text = " ".join(st.facts.by_label)
    seen = hide_unknown(st, text, 1)
    assert seen.count("a card") == sum(1 for label in st.facts.by_label if not label.endswith("#1"))
    assert all(label.endswith("#1") for label in LABEL.findall(seen))


def test_an_event_hides_a_card_by_who_knew_it_then() -> None:
    event = Event("look", Citation(""), "p1 looks secretly at Spatz#3, not Spatz#31", "effect",
                  (("Spatz#3", 0b001),))
    assert event.seen_by(0) == "p1 looks secretly at Spatz#3, not Spatz#31"
    assert event.seen_by(1) == "p1 looks secretly at a card, not Spatz#31"


@pytest.mark.parametrize("who", ["p4", "p0", "bob", "2x"])
def test_play_as_someone_not_at_the_table_is_bad_input(capsys: Capture, who: str) -> None:
    assert main(["play", "--players", "3", "--as", who]) == 2
    assert f"--as {who}: no such player; the players are p1 to p3" in capsys.readouterr().err


def test_play_as_a_seat_number(capsys: Capture) -> None:
    assert main(["play", "--players", "2", "--seed", "3", "--as", "2"]) == 0
    assert "the table as p2 sees it" in capsys.readouterr().out


def test_say_needs_one_argument_per_place(make_variant: MakeVariant) -> None:
    rules = make_variant(("07_scoring.bao", '''say "{} wins the match"(winner)''',
                          '''say "{} wins the match {}"(winner)'''))
    with pytest.raises(RulesError, match=r"has 2 places for a value .* but 1 argument follow"):
        load_ruleset(rules)


def test_a_scenario_notices_words_the_rules_do_not_say(make_variant: MakeVariant, tmp_path: Path) -> None:
    rules = make_variant(("07_scoring.bao", '''say "{} wins the match"(winner)''',
                          '''say "{} has won"(winner)'''))
    scenario = parse_scenario_file(default_scenarios_dir() / "scoring" / "results_in_words.scenario")
    result = run_scenario(scenario, Engine(load_ruleset(rules)))
    assert result.failure is not None
    assert "expected the rules to say 'bob wins the match'" in result.failure.message
    assert "'bob has won'" in result.failure.message
