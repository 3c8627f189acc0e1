"""The fast code calls some Table methods directly (engine/codegen.py TABLE_METHODS): each direct call gives
what the builtin's own implementation (language/builtins.py) gives, for every argument of a played state."""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest
from baobei.engine.codegen import SLOT_PARTS, TABLE_METHODS
from baobei.engine.engine import Engine
from baobei.engine.state import State
from baobei.language.builtins import BUILTINS


def arguments(st: State, kind: str, marks: list[str]) -> list[Any]:
    players = list(range(len(st.names)))
    slots = [(p, n) for p in players for n in range(0, len(st.tableaux[p]) + 2)]
    domains: dict[str, list[Any]] = {"slot": slots, "player": players, "card": list(range(len(st.known))),
                                      "str": marks}
    return domains[kind]


def played(eng: Engine) -> list[State]:
    st, _ = eng.new_match(["a", "b", "c"], 3, log=False)
    rng, out = random.Random(3), [st.copy()]
    for _ in range(60):
        move = eng.random_move(st, rng)
        if move is None:
            break
        eng.push_generated(st, move)
        out.append(st.copy())
    return out[::6]


@pytest.mark.parametrize("name", sorted(TABLE_METHODS))
def test_the_direct_call_is_the_builtin(default_engine: Engine, name: str) -> None:
    builtin = BUILTINS[name]
    method, test = TABLE_METHODS[name]
    marks = list(default_engine.rules.marks)
    for st in played(default_engine):
        for args in itertools.product(*(arguments(st, kind, marks) for kind in builtin.args)):
            direct = getattr(st, method)(*args)
            if test == " is not None":
                direct = direct is not None
            else:
                assert test == ""
            assert direct == builtin.run(st, *args), (name, args)


@pytest.mark.parametrize("name", sorted(SLOT_PARTS))
def test_a_slot_taken_apart_is_the_builtin(default_engine: Engine, name: str) -> None:
    st = played(default_engine)[-1]
    for slot in arguments(st, "slot", []):
        assert slot[SLOT_PARTS[name]] == BUILTINS[name].run(st, slot)
