"""Malformed scenarios the grammar accepts are refused with their place, what was found and what was expected:
an `assumes` line naming an undeclared decision, a `draws` line naming more cards than its move draws, a table
that leaves out a player's row, a player named by a word of the scenario language."""

from __future__ import annotations

import re

import pytest
from baobei.engine.engine import Engine
from baobei.language.errors import ScenarioError
from baobei.referee.logfile import schema
from baobei.scenarios.parser import parse_scenario_text, parse_table_lines
from baobei.scenarios.runner import run_scenario
from baobei.scenarios.wellformed import reserved_words
from baobei.scenarios.write import table_lines
from test_scenario_parser import (
    PATH,  # assert_at names this file
    assert_at,
    line_col,
)
from test_scenario_parser import error_of as refused

# A valid scenario; each test breaks one thing in it. alice's draw gives the top of the draw pile, one card.
GOOD = """\
scenario "Scenario input base"
cites § 3.3 [P53]
tags test
assumes D12

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
"""


def broken(old: str, new: str) -> str:
    assert GOOD.count(old) == 1, old
    return GOOD.replace(old, new)


def test_the_base_scenario_passes(default_engine: Engine) -> None:
    result = run_scenario(parse_scenario_text(GOOD, PATH), default_engine)
    assert result.passed, result.failure


def test_an_undeclared_decision_is_refused_with_the_nearest_declared_ones(default_engine: Engine) -> None:
    text = broken("assumes D12\n", "assumes D12, D999\n")
    err = refused(text, default_engine)
    assert_at(err, text, "D999")
    # The declared decisions nearest in number to D999: the three highest.
    declared = sorted((int(i[1:]) for i in default_engine.rules.assumptions if re.fullmatch(r"D\d+", i)),
                      reverse=True)
    nearest = ", ".join(f"D{n}" for n in declared[:3])
    assert err.message == (f"found 'D999', but the rules declare no decision or assumption of that id; expected a "
                           f"declared one, the nearest being {nearest} (`baobei rules` lists all "
                           f"{len(default_engine.rules.assumptions)})")


def test_a_draws_line_naming_more_cards_than_its_move_draws_fails(default_engine: Engine) -> None:
    text = broken("  alice draw\n", "  draws Spatz, Amsel\n  alice draw\n")
    result = run_scenario(parse_scenario_text(text, PATH), default_engine)
    assert result.failure is not None
    assert (result.failure.pos.line, result.failure.pos.column) == line_col(text, "draws Spatz")
    assert result.failure.message == ("the `draws` line names 2 cards for the move after it, alice draw, but that "
                                      "move drew 1 card from the draw pile: Amsel not drawn; name only the cards it "
                                      "draws")
    # Named cards that no later move draws at all are no less wrong.
    text = GOOD + "  draws Amsel\n"
    result = run_scenario(parse_scenario_text(text, PATH), default_engine)
    assert result.failure is not None and result.failure.message == (
        "the `draws` line names 1 card but no move after it draws: Amsel not drawn")
    # As many as the move draws pass.
    exact = broken("  alice draw\n", "  draws Amsel\n  alice draw\n").replace("holds Spatz", "holds Amsel")
    assert run_scenario(parse_scenario_text(exact, PATH), default_engine).passed


def test_a_table_leaving_out_a_players_row_is_refused(default_engine: Engine) -> None:
    text = broken("  bob: Flamingo, Specht, Ara\n", "")
    with pytest.raises(ScenarioError) as info:
        parse_scenario_text(text, PATH)
    assert_at(info.value, text, "bob\n")
    assert info.value.message == ("found no row for bob in the table, expected `bob: CARD, ...` for bob's tableau, "
                                  "or `bob:` for an empty one")
    # The format's own way to say an empty tableau is read as one.
    empty = broken("  bob: Flamingo, Specht, Ara\n", "  bob:\n") + "  expect bob cards 0\n"
    assert run_scenario(parse_scenario_text(empty, PATH), default_engine).passed
    # A player who is not in the round needs no row.
    away = broken("  players alice bob\n", "  players alice bob carol\n  among alice bob\n")
    assert parse_scenario_text(away, PATH).setup.players == ("alice", "bob", "carol")


def test_a_written_table_gives_an_empty_tableau_its_row(default_engine: Engine) -> None:
    """The tables the project writes (explore, verify, the desk) are scenarios `baobei check` reads."""
    text = broken("  bob: Flamingo, Specht, Ara\n", "  bob:\n")
    result = run_scenario(parse_scenario_text(text, PATH), default_engine)
    assert result.state is not None
    lines = table_lines(default_engine, result.state)
    assert "  bob:" in lines
    again = "\n".join(['scenario "written"', "cites § 3.3 [P53]", "", *lines, "", "play", "  expect bob cards 0", ""])
    assert run_scenario(parse_scenario_text(again, PATH), default_engine).passed


# `window` cannot be parsed as a name where a table line may begin with it; `draws` parses here but would be
# read as the word at the start of a play line.
@pytest.mark.parametrize("name", ["window", "draws"])
def test_a_player_named_by_a_reserved_word_is_refused_as_reserved(default_engine: Engine, name: str) -> None:
    text = re.sub(r"\bbob\b", name, GOOD)
    with pytest.raises(ScenarioError) as info:
        parse_scenario_text(text, PATH)
    assert_at(info.value, text, f"{name}\n")
    assert info.value.message.startswith(f"found {name!r} as a player's name, but it is a reserved word of the "
                                         "scenario language; expected a name that is none of: active, after, ")
    deal = f'scenario "A deal"\ncites § 1.2 [P7]\n\ndeal seed 1 players alice {name}\n\nplay\n'
    with pytest.raises(ScenarioError, match=f"found {name!r} as a player's name, but it is a reserved word"):
        parse_scenario_text(deal, PATH)


def test_the_referees_reserved_player_names_are_reserved_in_scenarios() -> None:
    """The referee refuses a game log's player named by a word of the claim language; a scenario reserves
    those words too (with the rest of its language's)."""
    claim_words = set(schema()["$defs"]["player"]["allOf"][1]["not"]["enum"])
    assert claim_words <= reserved_words()


def test_a_table_read_alone_names_a_reserved_player_in_its_place() -> None:
    """The tables of game logs and of the desk are read alone (parse_table_lines): a player named by a word of
    the language is reported there as in a scenario file, at the name, not as the syntax error it causes."""
    with pytest.raises(ScenarioError) as info:
        parse_table_lines(["players seed bob", "seed: Spatz", "bob: Star"], "log table")
    assert (info.value.pos.line, info.value.pos.column) == (2, 9)  # the table's own first line is line 1
    assert info.value.message.startswith("found 'seed' as a player's name, but it is a reserved word")
