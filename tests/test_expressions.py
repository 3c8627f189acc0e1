"""The rules' expression language: side-effect free and total, evaluated on a concrete table."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from baobei.engine.engine import Engine
from baobei.engine.state import State
from baobei.language.errors import EngineError, ScenarioError
from baobei.language.source import Pos
from baobei.scenarios.expectations import compile_probe
from conftest import table_state

TABLE = """\
scenario "expressions"
table
  players alice bob carol
  alice: Spatz, _, Goldtukan
  bob: Flamingo, Kranich
  carol: Weisspelikan
  draw: Amsel, Star
  discard: Specht, Meise
  active bob
  set total[alice] = 7
  set total[bob] = 3
  set total[carol] = 3
play
"""

HERE = Pos("test", 1, 1)


@pytest.fixture
def table(default_engine: Engine) -> State:
    return table_state(default_engine, TABLE, "expressions.scenario")


def evaluate(eng: Engine, st: State, text: str) -> Any:
    fn, _ = compile_probe(eng, st, text, HERE)
    return eng.evaluate(st, fn, {name: i for i, name in enumerate(st.names)})


@pytest.mark.parametrize(("text", "expected"), [
    ("1 + 2 * 3 - 4", 3),
    ("(1 + 2) * 3", 9),
    ("-(2 - 5)", 3),
    ("7 // 2", 3),
    ("7 % 3", 1),
    ("-7 // 2", -4),
    ("7 // (0 - 2)", -4),
    ("-7 % 3", 2),
    ("7 % (0 - 3)", -2),
    ("none + 1", None),
    ("-(least c in free_slots(bob): 1)", None),
    ("if 2 > 1 then 10 else 20", 10),
    ("not (1 == 1) or 2 != 3", True),
    ("none < 1", False),
    ("round_value(alice)", -4),
    ("round_value(carol)", 7),
    ("sum c in cards(bob): value(c)", 23),
    ("count p in players: round_value(p) > 0", 2),
    ("all p in players: size(cards(p)) > 0", True),
    ("any p in players: round_value(p) < 0", True),
    ("most p in players: total[p]", 7),
    ("least p in players: total[p]", 3),
    ("size(free_slots(alice))", 1),
    ("least c in free_slots(bob): 1", None),
    ("first p in seats_after(active) where total[p] == 3", 2),
    ("[p in players where total[p] == 3]", [1, 2]),
    ("others(alice)", [1, 2]),
    ("others(alice)[9]", None),
    ("size(discard_pile)", 2),
    ("count c in discard_pile: value(c) == 6", 1),
    ("hand_size[player_count]", 4),
    ("value(card_at(slot(alice, 2)))", 0),
    ("occupied(slot(alice, 2))", False),
    ("matches(card_at(slot(alice, 3)), card_at(slot(bob, 1)))", False),
    ("family(card_at(slot(alice, 3)))", "Tukan"),
    ("bob in players and active == bob", True),
])
def test_expression_values(default_engine: Engine, table: State, text: str, expected: Any) -> None:
    assert evaluate(default_engine, table, text) == expected


@pytest.mark.parametrize("text", ["7 // (1 - 1)", "7 % size(free_slots(bob))"])
def test_a_zero_divisor_at_run_time_is_a_positioned_error(default_engine: Engine, table: State, text: str) -> None:
    with pytest.raises(EngineError, match="division by zero") as err:
        evaluate(default_engine, table, text)
    assert str(err.value).startswith("test:1:")


def test_evaluation_changes_nothing(default_engine: Engine, table: State) -> None:
    def snapshot() -> Any:
        return copy.deepcopy(table.to_json())

    before = snapshot()
    probes = ("all p in players: round_value(p) > 0", "[p in players where total[p] > 0]",
              "first p in players where true", "count c in discard_pile: value(c) > 0")
    for text in probes:
        evaluate(default_engine, table, text)
    assert snapshot() == before


@pytest.mark.parametrize(("text", "message"), [
    ("round_value()", "takes 1 argument"),
    ("7 // 0", "division by zero"),
    ("7 % 0", "division by zero"),
    ("-(top(hand(alice)))", "a number"),
    ("size(discard_pile) + active", "a number"),
    ("no_such_thing + 1", "unknown name 'no_such_thing'"),
    ("nofunc(alice)", "unknown function 'nofunc'"),
    ("total", "one value per player"),
    ("1 +", "bad expression"),
])
def test_bad_expressions_are_positioned_errors(default_engine: Engine, table: State, text: str, message: str) -> None:
    with pytest.raises(ScenarioError, match=message) as err:
        compile_probe(default_engine, table, text, HERE)
    assert str(err.value).startswith("test:1:1")

