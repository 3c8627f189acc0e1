"""What each builtin gives the engine, read from a table written here (not from the registry, whose entries
these values check): with a none argument (every builtin is total: a missing card, slot or player gives
the entry's none value), and on a table whose seats and tableaux are known.

The default rules never pass none to most of these, and some they never call (`others`): without this file
a wrong none value or a wrong seat order in the registry would change nothing the scenarios see.
"""

from __future__ import annotations

from typing import Any

import pytest
from baobei.engine.compiler import Compiler
from baobei.engine.engine import Engine
from baobei.engine.state import State
from baobei.language import syntax as s
from baobei.language.builtins import BUILTINS
from conftest import table_state

HERE = s.Pos("<builtins>", 1, 1)
NONE = s.Lit(HERE, None)

# The value of each builtin when its (first) argument is none; the other arguments are given below.
NONE_VALUES: dict[str, Any] = {
    "value": 0, "family": None, "species": None, "has_ability": False, "card_at": None, "owner": None,
    "slot_no": 0, "occupied": False, "cards": [], "slots": [], "free_slots": [], "size": 0, "top": None,
    "hand": None, "held": [], "seats_from": [], "seats_after": [], "others": [], "knows": False,
    "marked": False, "protected": False, "places": 0, "abs": None, "max": None, "min": None, "slot": None,
    "free_slot": None,
}
SECOND: dict[str, s.Expr] = {"knows": NONE, "marked": s.Lit(HERE, "x"), "max": s.Lit(HERE, 3),
                             "min": s.Lit(HERE, 3), "slot": s.Lit(HERE, 1), "free_slot": NONE}

TABLE = """\
scenario "seats and slots"
table
  players alice bob carol
  alice: Spatz, _, Amsel
  bob: Meise
  carol: Rotkehlchen, Amsel
  draw: Kranich, Star
  discard: Ara
  active bob
play
"""


def value(eng: Engine, st: State, node: s.Expr) -> Any:
    fn = Compiler(eng.rules, eng.effects, eng.define_fns, eng.routine_procs).expr(node, frozenset())
    return eng.evaluate(st, fn)


def call(name: str, *args: Any) -> s.Call:
    return s.Call(HERE, name, tuple(a if isinstance(a, s.Expr) else s.Lit(HERE, a) for a in args))


def test_the_table_names_every_builtin() -> None:
    assert set(NONE_VALUES) == set(BUILTINS)


@pytest.mark.parametrize("name", sorted(NONE_VALUES))
def test_a_none_argument_gives_the_none_value(name: str, default_engine: Engine, dealt: State) -> None:
    builtin = BUILTINS[name]
    node = call(name, NONE, *([SECOND[name]] if builtin.arity == 2 else []))
    assert value(default_engine, dealt, node) == NONE_VALUES[name]


@pytest.fixture
def seated(default_engine: Engine) -> State:
    return table_state(default_engine, TABLE)


@pytest.mark.parametrize(("name", "player", "expected"), [
    ("seats_from", 1, [1, 2, 0]), ("seats_after", 1, [2, 0]), ("others", 1, [2, 0]),
    ("seats_from", 2, [2, 0, 1]), ("others", 0, [1, 2]),
])
def test_seats_run_in_seating_order(name: str, player: int, expected: list[int], default_engine: Engine,
                                    seated: State) -> None:
    assert value(default_engine, seated, call(name, player)) == expected


def test_slots_and_free_slots_split_a_tableau(default_engine: Engine, seated: State) -> None:
    eng = default_engine
    assert value(eng, seated, call("slots", 0)) == [(0, 1), (0, 3)]
    assert value(eng, seated, call("free_slots", 0)) == [(0, 2)]
    assert value(eng, seated, call("free_slots", 1)) == []
    assert value(eng, seated, call("slot_no", (0, 3))) == 3
    assert value(eng, seated, call("occupied", (0, 2))) is False
    assert value(eng, seated, call("size", call("cards", 2))) == 2


def test_max_and_min(default_engine: Engine, seated: State) -> None:
    assert value(default_engine, seated, call("max", 2, 5)) == 5
    assert value(default_engine, seated, call("min", 2, 5)) == 2
    assert value(default_engine, seated, call("abs", -4)) == 4
