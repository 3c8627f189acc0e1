"""Malformed scenarios are refused with a ScenarioError naming file:line:col."""

from __future__ import annotations

import pytest
from baobei.engine.engine import Engine
from baobei.language.errors import ScenarioError
from baobei.language.load import load_ruleset
from baobei.scenarios.parser import parse_scenario_text
from baobei.scenarios.runner import run_scenario
from conftest import MakeVariant

PATH = "bad.scenario"

# A small valid scenario; each test breaks one thing in it.
GOOD = """\
scenario "Parser test base"
cites § 3.3 [P53]
tags test

table
  players alice bob
  alice: Spatz, Amsel, Kranich
  bob: Flamingo, Specht, Ara
  draw: Spatz, Amsel
  discard: Specht
  active alice
  alice knows alice.1, alice.2

play
  alice draw
  expect alice holds Spatz
  alice pluck target=alice.1
  expect alice.1 is empty
"""


def line_col(text: str, needle: str) -> tuple[int, int]:
    index = text.index(needle)
    return text.count("\n", 0, index) + 1, index - (text.rfind("\n", 0, index) + 1) + 1


def broken(old: str, new: str) -> str:
    assert GOOD.count(old) == 1, old
    return GOOD.replace(old, new)


def error_of(text: str, engine: Engine) -> ScenarioError:
    """Parse and replay; the test fails unless a ScenarioError comes out."""
    with pytest.raises(ScenarioError) as info:
        run_scenario(parse_scenario_text(text, PATH), engine)
    return info.value


def assert_at(err: ScenarioError, text: str, needle: str) -> None:
    line, column = line_col(text, needle)
    assert (err.pos.file, err.pos.line, err.pos.column) == (PATH, line, column)
    assert str(err).startswith(f"{PATH}:{line}:{column}: ")


def test_the_base_scenario_is_valid_and_passes(default_engine: Engine) -> None:
    result = run_scenario(parse_scenario_text(GOOD, PATH), default_engine)
    assert result.passed, result.failure


def test_scenario_error_is_a_value_error() -> None:
    assert issubclass(ScenarioError, ValueError)


def test_syntax_error_stray_token(default_engine: Engine) -> None:
    text = broken("  alice draw\n", "  alice draw =\n")
    err = error_of(text, default_engine)
    assert_at(err, text, "=\n")
    assert "found '='" in err.message and "expected one of:" in err.message


def test_syntax_error_misspelt_keyword(default_engine: Engine) -> None:
    text = broken("table\n", "tabel\n")
    err = error_of(text, default_engine)
    assert_at(err, text, "tabel")
    assert "found 'tabel'" in err.message and "'table'" in err.message and "'deal'" in err.message


def test_syntax_error_in_a_citation(default_engine: Engine) -> None:
    text = broken("cites § 3.3 [P53]", "cites § 3.3 [53]")
    err = error_of(text, default_engine)
    assert_at(err, text, "53]")
    assert "expected" in err.message


def test_unknown_player_in_the_table(default_engine: Engine) -> None:
    text = broken("  active alice\n", "  active carol\n")
    err = error_of(text, default_engine)
    assert_at(err, text, "carol")
    assert "unknown player 'carol'" in err.message and "alice, bob" in err.message


def test_unknown_player_in_a_move(default_engine: Engine) -> None:
    text = broken("  alice draw\n", "  dave draw\n")
    err = error_of(text, default_engine)
    assert_at(err, text, "dave draw")
    assert "unknown player 'dave'" in err.message


def test_unknown_species(default_engine: Engine) -> None:
    text = broken("bob: Flamingo,", "bob: Flamingoo,")
    err = error_of(text, default_engine)
    assert_at(err, text, "bob: Flamingoo")
    assert "unknown species 'Flamingoo'" in err.message


def test_more_of_a_species_than_the_deck_has(default_engine: Engine) -> None:
    count = default_engine.rules.species["Amsel"].count
    # The tableau already holds one Amsel; the draw pile asks for the whole deck's count more.
    text = broken("  draw: Spatz, Amsel\n", "  draw: Spatz" + ", Amsel" * count + "\n")
    err = error_of(text, default_engine)
    assert_at(err, text, "draw: Spatz")
    assert f"more Amsel than the deck has ({count})" in err.message


def test_unknown_move(default_engine: Engine) -> None:
    text = broken("  alice draw\n", "  alice drav\n")
    err = error_of(text, default_engine)
    assert_at(err, text, "alice drav")
    assert "unknown move 'drav'" in err.message and "draw" in err.message


def test_unknown_argument(default_engine: Engine) -> None:
    text = broken("pluck target=alice.1", "pluck tgt=alice.1")
    err = error_of(text, default_engine)
    assert_at(err, text, "alice.1\n  expect alice.1 is empty")
    assert "no argument 'tgt'" in err.message and "target" in err.message


def test_knows_of_an_empty_slot(default_engine: Engine) -> None:
    text = broken("alice knows alice.1, alice.2", "alice knows alice.1, alice.9")
    err = error_of(text, default_engine)
    assert_at(err, text, "alice.9")
    assert "alice.9 holds no card" in err.message


def test_knows_of_a_free_slot(default_engine: Engine) -> None:
    text = broken("  alice: Spatz, Amsel, Kranich\n", "  alice: Spatz, _, Kranich\n")
    text = text.replace("alice knows alice.1, alice.2", "alice knows alice.2")
    err = error_of(text, default_engine)
    assert_at(err, text, "alice.2\n")
    assert "alice.2 holds no card" in err.message


# Names in expectations are checked like names anywhere else: a typo is a malformed scenario
# (exit 2, with its place), not a failed expectation that looks like a rules finding.
@pytest.mark.parametrize("expectation", [
    "expect dave holds Spatz",
    "expect dave cards 3",
    "expect dave knows alice.2",
    "expect active dave",
    "expect window open for alice, dave",
    "expect pending peek for dave",
])
def test_unknown_player_in_an_expectation(default_engine: Engine, expectation: str) -> None:
    text = broken("  expect alice holds Spatz\n", f"  {expectation}\n")
    err = error_of(text, default_engine)
    assert (err.pos.file, err.pos.line) == (PATH, line_col(text, expectation)[0]), str(err)
    assert "unknown player 'dave'" in err.message


@pytest.mark.parametrize("expectation", [
    "expect alice holds Spatzz",
    "expect discard top is Spatzz",
    "expect alice.2 is Spatzz",
])
def test_unknown_species_in_an_expectation(default_engine: Engine, expectation: str) -> None:
    text = broken("  expect alice holds Spatz\n", f"  {expectation}\n")
    err = error_of(text, default_engine)
    assert (err.pos.file, err.pos.line) == (PATH, line_col(text, expectation)[0]), str(err)
    assert "unknown species 'Spatzz'" in err.message


def test_an_argument_given_twice(default_engine: Engine) -> None:
    text = broken("  alice pluck target=alice.1\n", "  alice pluck target=alice.1 target=alice.2\n")
    err = error_of(text, default_engine)
    line, column = line_col(text, "target=alice.2")
    assert (err.pos.line, err.pos.column) == (line, column + len("target="))
    assert "argument 'target' of pluck is given twice" in err.message


def test_a_card_variable_is_set_from_a_table_by_where_the_card_lies_not_by_species(
        make_variant: MakeVariant) -> None:
    marker = "# Abilities run in between"
    rules = make_variant(("03_turn.bao", marker, "var spare: card = none\n" + marker))
    text = broken("  active alice\n", "  active alice\n  set spare = Spatz\n")
    err = error_of(text, Engine(load_ruleset(rules)))
    assert_at(err, text, "Spatz\n")
    assert "a card is named by where it lies (alice.2, discard top" in err.message
    run_scenario(parse_scenario_text(text.replace("set spare = Spatz", "set spare = discard top"), PATH),
                 Engine(load_ruleset(rules)))


def test_a_probe_passing_a_player_where_a_card_belongs_is_malformed(default_engine: Engine) -> None:
    text = GOOD + '  expect value "value(active)" = 1\n'
    err = error_of(text, default_engine)
    assert "argument 1 of 'value' is a card; this is a player" in err.message


@pytest.mark.parametrize(("probe", "actual"), [
    ('"active" = Spatz', "actual alice"),              # a player is not read as a card
    ('"top(discard_pile)" = alice', "actual Spatz"),  # a card is not read as a player
    ('"owner(slot(bob, 1))" = Spatz', "actual bob"),
])
def test_a_value_is_read_back_as_the_kind_it_is(default_engine: Engine, probe: str, actual: str) -> None:
    result = run_scenario(parse_scenario_text(GOOD + f"  expect value {probe}\n", PATH), default_engine)
    assert result.failure is not None and actual in result.failure.message


@pytest.mark.parametrize(("probe", "label"), [
    ('value "active" = 0', '"active" is a player'),
    ('value "others(alice)" = [1]', '"others(alice)" is a player'),
    ("bao_caller = 0", "bao_caller is a player"),
    ('value "top(discard_pile)" = 3', '"top(discard_pile)" is a card'),
])
def test_a_number_where_a_player_or_card_is_meant_is_refused(default_engine: Engine, probe: str, label: str) -> None:
    err = error_of(GOOD + f"  expect {probe}\n", default_engine)
    assert label in err.message and "not the number" in err.message


def test_a_seat_outside_the_round_holds_no_cards_and_does_not_act(default_engine: Engine) -> None:
    text = broken("  active alice\n", "  active alice\n  among bob\n")
    assert "alice is not in this round" in error_of(text, default_engine).message


def test_an_answering_scenario_must_prove_something() -> None:
    header = ('tags test\nanswers P186\nquestion de "F?"\nanswer de "A."\nquestion en "Q?"\nanswer en "A."\n')
    text = GOOD.replace("tags test\n", header).replace("cites § 3.3 [P53]", "cites § 3.3 [P53], § FAQ [P186]")
    only_moves = text.split("play\n")[0] + "play\n  alice draw\n"
    with pytest.raises(ScenarioError, match="must prove it"):
        parse_scenario_text(only_moves, PATH)
    parse_scenario_text(text, PATH)  # with its expectations it is accepted
