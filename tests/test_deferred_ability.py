"""An ability that waits for the window's calls without a legal choice (A7): its owner may go on with the turn,
but not use an ability nothing triggered, and the waiting ability is judged as the owner goes on.

Both were found by induction (proofs/induction.py): its counterexamples were states where the owner of such an
ability used another one, and where the ability outlived the turn it was triggered in."""

from __future__ import annotations

from pathlib import Path

from baobei.engine.engine import Engine
from baobei.engine.notation import parse_move_text
from baobei.engine.state import State
from baobei.language.errors import Rejection
from baobei.scenarios.parser import parse_scenario_text
from baobei.scenarios.setup import build_table
from baobei.scenarios.syntax import Table

SCENARIO = Path(__file__).resolve().parents[1] / "scenarios" / "zero_cards" / \
    "deferred_ability_allows_no_other.scenario"


def deferred(eng: Engine) -> State:
    """alice has discarded an Ara that has no legal choice while bob may still pluck."""
    table = parse_scenario_text(SCENARIO.read_text(encoding="utf-8"), str(SCENARIO)).setup
    assert isinstance(table, Table)
    st = build_table(eng, table)
    for text in ("alice draw", "alice discard"):
        done = eng.apply(st, parse_move_text(eng.rules.moves, st, text))
        assert not isinstance(done, Rejection), done
        st = done[0]
    assert eng.deferred(st) and st.waiting and st.waiting[0].after_window
    return st


def test_the_owner_may_not_use_an_ability_nothing_triggered(default_engine: Engine) -> None:
    st = deferred(default_engine)
    legal = {m.name for m in default_engine.legal_moves(st) if m.player == 0}
    assert not legal & {name for name, d in default_engine.rules.moves.items() if d.is_ability}
    assert {"end_turn", "bao"} <= legal  # the turn goes on
    refused = default_engine.check(st, parse_move_text(default_engine.rules.moves, st, "alice peek target=bob.1"))
    assert refused is not None and "is waiting to be used" in refused.reason


def test_the_ability_is_judged_as_its_owner_goes_on(default_engine: Engine) -> None:
    st = deferred(default_engine)
    done = default_engine.apply(st, parse_move_text(default_engine.rules.moves, st, "alice bao"))
    assert not isinstance(done, Rejection), done
    after, events = done
    assert not after.waiting
    rules = [e.rule for e in events]
    # The ability has no effect before the call changes anything: the call's own events come after it.
    assert rules.index("no choice") < rules.index("bao", 1)
