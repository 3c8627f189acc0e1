"""Move texts value by value: every kind of argument written and read back, and every way a text can
fail to name a move (engine/notation.py's contract; found untested by mutation testing, issue 11)."""

from __future__ import annotations

import pytest
from baobei.engine.engine import Engine
from baobei.engine.move import Move
from baobei.engine.notation import NotationError, build_move, literal_of, move_text, parse_move_text, value_text
from baobei.engine.state import State


@pytest.fixture
def st(default_engine: Engine) -> State:
    st = default_engine.blank_state(["alice", "bob"], 1)
    facts = default_engine.facts
    for label in ("Spatz#1", "Spatz#2"):  # bob holds two Spatzen, then a Meise
        st.hands[1].append(facts.by_label[label])
    st.hands[1].append(facts.by_label["Meise#1"])
    return st


@pytest.mark.parametrize(("token", "literal"), [
    ("true", ("bool", True)),
    ("false", ("bool", False)),
    ("none", ("none", None)),
    ("7", ("int", 7)),
    ("-3", ("int", -3)),
    ("bob.2", ("slot", ("bob", 2))),
    ("Spatz#2", ("card", "Spatz#2")),
    ("Spatz", ("name", "Spatz")),
    ("bob.x", ("name", "bob.x")),
])
def test_literals_of_move_texts(token: str, literal: tuple[str, object]) -> None:
    assert literal_of(token) == literal


def test_values_as_text(default_engine: Engine, st: State) -> None:
    spatz = default_engine.facts.by_label["Spatz#2"]
    assert value_text(st, "bool", True) == "true" and value_text(st, "bool", False) == "false"
    assert value_text(st, "slot", (1, 2)) == "bob.2"
    assert value_text(st, "own_slot", (0, 1)) == "alice.1" and value_text(st, "free_slot", (1, 5)) == "bob.5"
    assert value_text(st, "player", 1) == "bob" and value_text(st, "player", 0) == "alice"
    assert value_text(st, "player", 2) == "2"  # no such seat: the number
    assert value_text(st, "player", -1) == "-1"
    assert value_text(st, "held_card", spatz) == "Spatz#2"
    assert value_text(st, "", 7) == "7"
    assert value_text(st, "slot", (5, 1)) == "(5, 1)"  # no such seat: no crash, the value itself
    assert value_text(st, "slot", (-1, 1)) == "(-1, 1)" and value_text(st, "slot", (2, 1)) == "(2, 1)"
    assert value_text(st, "slot", (1, 2, 3)) == "(1, 2, 3)" and value_text(st, "slot", ("bob", 1)) == "('bob', 1)"


def test_every_kind_of_argument_reads_back(default_engine: Engine, st: State) -> None:
    moves = default_engine.rules.moves
    cases = [
        Move(1, "decide_swap", (("swap_them", True),)),
        Move(1, "decide_swap", (("swap_them", False),)),
        Move(0, "add_card", (("victim", 1),)),
        Move(1, "exchange_cards", (("own_card", default_engine.facts.by_label["Spatz#2"]), ("own", (1, 1)),
                                   ("other_card", default_engine.facts.by_label["Meise#1"]), ("other", (0, 2)))),
        Move(1, "exchange_cards", (("own_card", None), ("own", None), ("other_card", None), ("other", None))),
        Move(0, "pluck", (("target", (1, 2)), ("gift", None), ("place", (0, 4)))),
    ]
    for move in cases:
        text = move_text(moves, st, move)
        assert parse_move_text(moves, st, text) == move, text
    assert move_text(moves, st, cases[0]) == "bob decide_swap swap_them=true"
    assert move_text(moves, st, cases[2]) == "alice add_card victim=bob"
    assert move_text(moves, st, cases[3]) == "bob exchange_cards own_card=Spatz#2 own=bob.1 other_card=Meise#1 " \
        "other=alice.2"
    assert move_text(moves, st, cases[4]) == "bob exchange_cards"


def test_a_move_the_rules_do_not_know_is_written_as_given(default_engine: Engine, st: State) -> None:
    moves = default_engine.rules.moves
    assert move_text(moves, st, Move(1, "fly", (("to", (0, 1)), ("high", True), ("far", None)))) == \
        "bob fly to=(0, 1) high=true"
    assert move_text(moves, st, Move(4, "draw")) == "player5 draw"
    assert move_text(moves, st, Move(-1, "draw")) == "player0 draw"
    assert move_text(moves, st, Move(0, "draw")) == "alice draw"
    assert move_text(moves, st, Move(0, "draw", (("extra", 3),))) == "alice draw extra=3"


def test_held_cards_by_species_name_the_cards_in_the_order_held(default_engine: Engine, st: State) -> None:
    facts, moves = default_engine.facts, default_engine.rules.moves
    move = parse_move_text(moves, st, "bob exchange_cards own_card=Spatz other_card=Spatz")
    assert move.arg("own_card") == facts.by_label["Spatz#1"] and move.arg("other_card") == facts.by_label["Spatz#2"]
    move = parse_move_text(moves, st, "bob exchange_cards own_card=Meise other_card=Meise")
    assert move.arg("own_card") == move.arg("other_card") == facts.by_label["Meise#1"]  # only one: named twice
    move = parse_move_text(moves, st, "bob exchange_cards own_card=Spatz#2")
    assert move.arg("own_card") == facts.by_label["Spatz#2"] and move.arg("other_card") is None


@pytest.mark.parametrize(("text", "message", "arg"), [
    ("bob exchange_cards own_card=Star", "bob holds no Star", 0),
    ("bob exchange_cards own_card=Dodo", "unknown species 'Dodo'", 0),
    ("bob exchange_cards own_card=Dodo#1", "no card 'Dodo#1' in the deck", 0),
    ("bob exchange_cards own_card=3", "expected a held card by species (or label, Species#2), found 3", 0),
    ("bob exchange_cards own=bob.1 other_card=true", "expected a held card", 1),
    ("alice add_card victim=bob.1", "expected a player name, found ('bob', 1)", 0),
    ("alice add_card victim=zoe", "unknown player 'zoe'", 0),
    ("bob decide_swap swap_them=yes", "expected true or false, found yes", 0),
    ("bob decide_swap 1", "expected true or false, found 1", 0),
    ("alice pluck target=zoe.1", "unknown player 'zoe'", 0),
    ("alice draw bob.1", "draw takes 0 argument(s)", 0),
    ("alice keep alice.1 alice.2", "keep takes 1 argument(s)", 1),
    ("alice keep alice.1 slot=alice.2", "argument 'slot' of keep is given twice", 1),
    ("alice draw x=1", "draw has no argument 'x'; it takes: none", 0),
    ("alice keep x=1", "keep has no argument 'x'; it takes: slot", 0),
])
def test_a_bad_argument_names_its_place(default_engine: Engine, st: State, text: str, message: str,
                                        arg: int) -> None:
    with pytest.raises(NotationError) as err:
        parse_move_text(default_engine.rules.moves, st, text)
    assert str(err.value) == message or str(err.value).startswith(message), str(err.value)
    assert err.value.arg == arg


def test_a_bad_move_names_no_argument(default_engine: Engine, st: State) -> None:
    for text, message in (("alice", "'alice': a move is written PLAYER MOVE [NAME=VALUE ...]"),
                          ("zoe draw", "unknown player 'zoe'; the players are: alice, bob"),
                          ("alice fly", "unknown move 'fly'; the rules define: ")):
        with pytest.raises(NotationError) as err:
            parse_move_text(default_engine.rules.moves, st, text)
        assert str(err.value).startswith(message) and err.value.arg is None


def test_an_argument_of_a_kind_the_notation_does_not_know(default_engine: Engine, st: State) -> None:
    from baobei.engine.notation import arg_value

    with pytest.raises(NotationError, match="no argument of kind 'colour'"):
        arg_value(st, 0, "colour", ("name", "red"))
    assert arg_value(st, 0, "slot", ("none", None)) is None
    assert build_move(default_engine.rules.moves, st, "bob", "keep", [(None, ("slot", ("bob", 3)))]) == \
        Move(1, "keep", (("slot", (1, 3)),))
