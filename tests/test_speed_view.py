"""A player's view built part by part (`ViewMaker.view_state`, what simulated players see) is the state the
JSON form of the view gives (`State.from_json(ViewMaker.view_json(...))`, the definition), for every seat
in the states of seeded matches."""

from __future__ import annotations

import pytest
from baobei.engine.engine import Engine
from baobei.engine.state import State
from baobei.play.view import ViewMaker
from test_speed_verdict import played  # every state of seeded matches, as simulate plays them


@pytest.mark.parametrize("players", [2, 4, 6])
def test_the_view_built_part_by_part_is_the_view_of_the_json_form(default_engine: Engine, players: int) -> None:
    views = ViewMaker(default_engine)
    facts, piles = views.engine.facts, views.engine.pile_locs
    states = played(default_engine, players, 2)
    assert len(states) > 100 and any(w.args for st in states for w in st.waiting)
    for st in states:
        for seat in range(players):
            built = views.view_state(st, seat)
            defined = State.from_json(views.view_json(st, seat), facts, piles)
            assert views.engine.state_to_json(built) == views.engine.state_to_json(defined)
            assert built.seats == defined.seats and built.came == defined.came
