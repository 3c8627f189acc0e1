"""The fast code's shortcuts give what the builtins' own implementations give (language/builtins.py):
a Table method read in place of its call (engine/codegen.py TABLE_READS), a builtin given a local that is
never none (an item of the players or the deck, an argument that is not optional), and a move made through
its slots (engine/move.py)."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from baobei.engine import codegen
from baobei.engine.codegen import TABLE_READS
from baobei.engine.engine import Engine
from baobei.engine.move import Move, new_move, set_args, set_name, set_player
from baobei.engine.runtime import Ctx
from baobei.language.builtins import BUILTINS, TRANSITION_NAMES
from test_codegen_methods import played  # states of one seeded 3-player round
from test_speed_verdict import played as simulated


@pytest.mark.parametrize("name", sorted(TABLE_READS))
def test_the_read_in_place_is_the_builtin(default_engine: Engine, name: str) -> None:
    builtin = BUILTINS[name]
    for st in played(default_engine):
        players, cards = list(range(len(st.names))), list(range(len(st.known)))
        domains = {"player": players, "card": cards}
        for args in itertools.product(*(domains[kind] for kind in builtin.args)):
            read = eval(TABLE_READS[name].format(*map(repr, args)), {"st": st})  # the template, values written in
            assert read == builtin.run(st, *args), (name, args)


def test_every_invariant_fast_and_checked_agree(default_engine: Engine) -> None:
    """Every invariant (the knowledge ones loop over the players and the deck, whose items the fast rendering
    does not test for none) gives the same verdict in the fast and in the checked rendering, before and
    after each move of a seeded match."""
    eng = default_engine
    states = simulated(eng, 4, 1)
    for before, after in itertools.pairwise(states):
        for inv in eng.rules.invariants.values():
            scope = frozenset(TRANSITION_NAMES) if inv.two_state else frozenset()
            ctx = Ctx(after, eng.transition_env(before, None) if inv.two_state else {}, None)
            ctx.before = Ctx(before, ctx.env, None)
            fast = codegen.expression(eng.unit, inv.holds, scope)
            checked = codegen.checked_expression(eng.unit, inv.holds, scope)
            assert fast(ctx) == checked(ctx), inv.ident


def test_a_move_made_through_its_slots_is_the_move() -> None:
    args: tuple[tuple[str, Any], ...] = (("target", (1, 2)), ("gift", None))
    made = new_move(Move)
    set_player(made, 1)
    set_name(made, "pluck")
    set_args(made, args)
    assert made == Move(1, "pluck", args) and hash(made) == hash(Move(1, "pluck", args))
    assert repr(made) == repr(Move(1, "pluck", args)) and isinstance(made, Move)
