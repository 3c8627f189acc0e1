"""Every builtin of the expression language on a concrete table: its value, and its value for `none`
(each is total). The registry's own contract (language/builtins.py), read through rules expressions."""

from __future__ import annotations

import re
from typing import Any

import pytest
from baobei.engine.engine import Engine
from baobei.engine.state import State, Window
from baobei.language.builtins import BUILTINS, STATE_NAMES
from baobei.language.errors import EngineError
from baobei.language.source import Pos
from baobei.scenarios.expectations import compile_probe
from conftest import table_state

HERE = Pos("builtins", 1, 1)
TABLE = """\
scenario "builtins"
table
  players alice bob carol
  alice: Spatz, _, Goldtukan
  bob: Flamingo, Kranich
  carol: Weisspelikan
  draw: Amsel, Star
  discard: Specht, Meise
  active bob
  bob knows alice.1
play
"""


@pytest.fixture
def table(default_engine: Engine) -> State:
    st = table_state(default_engine, TABLE, "builtins.scenario")
    st.hands[2].append(default_engine.facts.by_label["Ara#1"])  # carol holds a drawn Ara
    st.box.remove(default_engine.facts.by_label["Ara#1"])
    return st


def value(eng: Engine, st: State, text: str) -> Any:
    fn, _ = compile_probe(eng, st, text, HERE)
    return eng.evaluate(st, fn, {name: i for i, name in enumerate(st.names)})


def as_labels(eng: Engine, result: Any, expected: Any) -> Any:
    """The result with cards as labels where the expectation names cards by label (Species#n)."""
    def is_label(x: Any) -> bool:
        return isinstance(x, str) and re.fullmatch(r"[A-Za-z]+#[0-9]+", x) is not None

    if is_label(expected):
        return eng.facts.label(result)
    if isinstance(expected, list) and expected and all(is_label(x) for x in expected):
        return [eng.facts.label(c) for c in result]
    return result


@pytest.mark.parametrize(("text", "expected"), [
    ("value(card_at(slot(alice, 3)))", -5),
    ("family(card_at(slot(alice, 3)))", "Tukan"),
    ("species(card_at(slot(alice, 3)))", "Goldtukan"),
    ("has_ability(card_at(slot(carol, 1)))", True),
    ("has_ability(card_at(slot(alice, 1)))", False),
    ("card_at(slot(bob, 2))", "Kranich#1"),
    ("card_at(slot(alice, 2))", None),
    ("owner(slot(carol, 1))", 2),
    ("slot_no(slot(bob, 2))", 2),
    ("occupied(slot(alice, 1))", True),
    ("occupied(slot(alice, 2))", False),
    ("cards(alice)", ["Spatz#1", "Goldtukan#1"]),
    ("slots(alice)", [(0, 1), (0, 3)]),
    ("free_slots(alice)", [(0, 2)]),
    ("free_slot(alice, none)", (0, 2)),
    ("free_slot(bob, slot(bob, 1))", (1, 3)),
    ("size(draw_pile)", 2),
    ("size(hand(carol))", 1),
    ("size(cards(alice))", 2),
    ("size(players)", 3),
    ("top(discard_pile)", "Meise#1"),
    ("top(draw_pile)", "Amsel#1"),  # the draw pile is written top first
    ("top(hand(carol))", "Ara#1"),
    ("top(hand(alice))", None),
    ("held(carol)", ["Ara#1"]),
    ("held(alice)", []),
    ("seats_from(carol)", [2, 0, 1]),
    ("seats_after(carol)", [0, 1]),
    ("others(bob)", [2, 0]),
    ("knows(bob, card_at(slot(alice, 1)))", True),
    ("knows(alice, card_at(slot(alice, 1)))", False),
    ("knows(carol, top(discard_pile))", True),  # the discard pile lies face up
    ("marked(card_at(slot(alice, 1)), \"moved\")", False),
    ("protected(bob)", False),
    ("places(card_at(slot(alice, 1)))", 1),
    ("max(3, 0 - 4)", 3),
    ("min(3, 0 - 4)", -4),
    ("abs(0 - 4)", 4),
    ("players", [0, 1, 2]),
    ("size(deck)", 110),
    ("player_count", 3),
    ("active", 1),
    ("round", 1),
    ("turn", 1),
    ("window_ref", None),
    ("window_kind", None),
    ("window_used", False),
    ("window_players", []),
])
def test_builtin_values(default_engine: Engine, table: State, text: str, expected: Any) -> None:
    if text == "size(deck)":
        expected = len(default_engine.facts)
    assert as_labels(default_engine, value(default_engine, table, text), expected) == expected


NONE_VALUES: dict[str, Any] = {
    "value": 0, "family": None, "species": None, "has_ability": False, "card_at": None, "owner": None,
    "slot_no": 0, "occupied": False, "slot": None, "cards": [], "slots": [], "free_slots": [], "free_slot": None,
    "size": 0, "top": None, "hand": None, "held": [], "seats_from": [], "seats_after": [], "others": [],
    "knows": False, "marked": False, "protected": False, "places": 0, "max": None, "min": None, "abs": None,
}
NONE_ARGS = {"slot": "none, 1", "free_slot": "none, none", "knows": "none, none", "marked": "none, \"moved\"",
             "max": "none, 1", "min": "1, none"}


@pytest.mark.parametrize("name", sorted(BUILTINS))
def test_every_builtin_is_total_on_none(default_engine: Engine, table: State, name: str) -> None:
    assert set(NONE_VALUES) == set(BUILTINS)
    args = NONE_ARGS.get(name, "none")
    assert value(default_engine, table, f"{name}({args})") == NONE_VALUES[name]


def test_a_none_second_argument_gives_the_none_value(default_engine: Engine, table: State) -> None:
    assert value(default_engine, table, "knows(alice, none)") is False
    assert value(default_engine, table, "slot(alice, none)") is None
    assert value(default_engine, table, "marked(card_at(slot(alice, 1)), none)") is False
    assert value(default_engine, table, "free_slot(alice, slot(alice, 1))") == (0, 2)


def test_the_window_names_read_the_newest_window(default_engine: Engine, table: State) -> None:
    spatz = default_engine.facts.by_label["Spatz#1"]
    table.windows.append(Window("discard", spatz, 0b110, 1))
    assert value(default_engine, table, "window_ref") == spatz
    assert value(default_engine, table, "window_kind") == "discard"
    assert value(default_engine, table, "window_players") == [1, 2]
    assert value(default_engine, table, "bob in window_players") is True
    assert value(default_engine, table, "alice in window_players") is False
    assert value(default_engine, table, "window_used") is False
    table.windows[-1].attempts = 0
    assert value(default_engine, table, "window_used") is True


def test_membership_in_the_players_of_the_round(default_engine: Engine, table: State) -> None:
    assert value(default_engine, table, "carol in players") is True
    assert value(default_engine, table, "none in players") is False
    assert value(default_engine, table, "none in window_players") is False
    table.seat_round([0, 1])
    assert value(default_engine, table, "carol in players") is False
    assert value(default_engine, table, "alice in players") is True
    assert value(default_engine, table, "players") == [0, 1]
    assert value(default_engine, table, "player_count") == 2
    assert value(default_engine, table, "carol in [p in seats_from(alice) where true]") is False


def test_a_value_of_the_wrong_kind_is_a_positioned_error(default_engine: Engine, table: State) -> None:
    # A scenario's probe is kind-checked, so the wrong kind reaches a builtin only through a value the
    # checker cannot see: a variable or a pile that holds something else than the rules say.
    table.vars["bao_caller"] = (0, 1)
    table.piles[default_engine.pile_index["under_pile"]].append("x")
    for text, shown in (("cards(bao_caller)", "cards((0, 1))"), ("value(top(under_pile))", "value('x')"),
                        ("knows(bao_caller, top(discard_pile))", "knows((0, 1), "),
                        ("size(cards(bao_caller))", "cards((0, 1))")):
        with pytest.raises(EngineError, match=r"^builtins:1:[0-9]+: ") as err:
            value(default_engine, table, text)
        assert shown in str(err.value) and str(err.value).endswith("an argument is of the wrong kind"), text


def test_the_registry_describes_every_builtin(default_engine: Engine) -> None:
    for entry in [*BUILTINS.values(), *STATE_NAMES.values()]:
        assert entry.doc and entry.result
        assert entry.arity == len(entry.args)
