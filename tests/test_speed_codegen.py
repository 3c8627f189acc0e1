"""The fast code's shortcuts give what the builtins' own implementations give (language/builtins.py):
a Table method read in place of its call (engine/codegen.py TABLE_READS), a builtin given a local that is
never none (an item of the players or the deck, an argument that is not optional), a move made in one call
(engine/move.py), and moves listed while the cycle collector waits (engine/legality.py `gathered`)."""

from __future__ import annotations

import gc
import itertools
from typing import Any

import pytest
from baobei.engine import codegen
from baobei.engine.codegen import TABLE_READS
from baobei.engine.engine import Engine
from baobei.engine.legality import gathered
from baobei.engine.move import Move, made_move
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
    # Each rendering made once (making one is most of the cost), then judged before and after every move.
    renderings = []
    for inv in eng.rules.invariants.values():
        scope = frozenset(TRANSITION_NAMES) if inv.two_state else frozenset()
        renderings.append((inv, codegen.expression(eng.unit, inv.holds, scope),
                           codegen.checked_expression(eng.unit, inv.holds, scope)))
    for before, after in itertools.pairwise(states):
        for inv, fast, checked in renderings:
            ctx = Ctx(after, eng.transition_env(before, None) if inv.two_state else {}, None)
            ctx.before = Ctx(before, ctx.env, None)
            assert fast(ctx) == checked(ctx), inv.ident


def test_a_move_made_in_one_call_is_the_move() -> None:
    args: tuple[tuple[str, Any], ...] = (("target", (1, 2)), ("gift", None))
    made = made_move(Move, (1, "pluck", args))
    assert made.player == 1 and made.name == "pluck" and made.args == args and made.arg("gift") is None
    assert made == Move(1, "pluck", args) and hash(made) == hash(Move(1, "pluck", args))
    assert repr(made) == repr(Move(1, "pluck", args)) and isinstance(made, Move)


@pytest.mark.parametrize("enabled", [True, False])
def test_listing_leaves_the_collector_as_it_found_it(default_engine: Engine, enabled: bool) -> None:
    """The moves are made while the collector waits (`gathered`); afterwards it is on again only if it was
    on before, also when listing fails midway."""
    eng = default_engine
    st = simulated(eng, 4, 1)[-1]
    was = gc.isenabled()
    try:
        (gc.enable if enabled else gc.disable)()
        assert list(eng.legal_moves(st)) and gc.isenabled() == enabled

        def failing() -> Any:
            yield Move(0, "keep")
            raise KeyboardInterrupt

        with pytest.raises(KeyboardInterrupt):
            gathered(failing())
        assert gc.isenabled() == enabled
    finally:
        (gc.enable if was else gc.disable)()


def test_the_first_move_is_the_first_listed_without_listing_the_rest(default_engine: Engine) -> None:
    """`first_move` (lazy) finds the move `legal_moves` lists first, for everyone and for each player, and
    None for a player who may not act."""
    eng = default_engine
    idle = 0
    for st in simulated(eng, 4, 1)[:60]:
        assert eng.first_move(st) == next(eng.legal_moves(st), None)
        for p in range(len(st.names)):
            first = eng.first_move(st, p)
            assert first == next(eng.legal_moves(st, p), None)
            idle += first is None
    assert idle > 0  # some states leave a player without a move: the None case is judged too
