"""The generated enumerators (engine/enumeration.py) list exactly the moves of the general walk (moves_of).

`Legality.listed` runs a move's enumerator, `moves_of` the walk that defines the legal moves; legal_moves,
first_legal and random play's fallback use the first. In every state of every scenario and of seeded
matches of 2, 4 and 6 players, and for every player and every move worth trying, both give the same moves
in the same order.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from baobei.engine.engine import Engine
from baobei.engine.state import State
from baobei.language.load import load_ruleset
from baobei.play.dealer import Dealer, Match, MatchRecord
from baobei.scenarios.parser import parse_scenario_file
from baobei.scenarios.runner import run_scenario
from conftest import MakeVariant

SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios"


def compare_listings(eng: Engine, st: State) -> int:
    """Assert both listings agree for every player and candidate move; how many moves were listed."""
    listed = 0
    for player in range(len(st.names)):
        for cm in eng.candidates(st, player):
            walked = list(eng.moves_of(st, player, cm))
            assert list(eng.listed(st, player, cm)) == walked, f"{cm.name} of {st.names[player]}"
            listed += len(walked)
    return listed


def match_states(eng: Engine, players: int, seed: int) -> list[State]:
    states: list[State] = []

    class Recording(Match):
        def step(self, move: object) -> bool:
            states.append(self.st.copy())
            return super().step(move)  # type: ignore[arg-type]

    dealer = Dealer(eng, next(iter(eng.rules.policies), "random"), invariants=False)
    st, _ = eng.new_match([f"p{i + 1}" for i in range(players)], seed, log=False)
    Recording(dealer, MatchRecord(0, seed), st, random.Random(f"policies/{seed}")).run()
    return states


def test_every_generated_listing_is_the_walk_in_every_scenario_state(default_engine: Engine) -> None:
    listed = 0
    for path in sorted(SCENARIOS.rglob("*.scenario")):
        trace = run_scenario(parse_scenario_file(path), default_engine, snapshots=True).trace
        for entry in trace:
            if entry.state is not None:
                listed += compare_listings(default_engine, entry.state)
    assert listed > 10_000


@pytest.mark.parametrize("players", [2, 4, 6])
def test_every_generated_listing_is_the_walk_in_seeded_matches(default_engine: Engine, players: int) -> None:
    states = match_states(default_engine, players, 7)
    assert len(states) > 50
    for st in states[:: max(1, len(states) // 60)]:
        compare_listings(default_engine, st)


def test_steps_and_moves_with_repeated_names_keep_the_walk(default_engine: Engine) -> None:
    """A step's choice is judged by a trial run (protections), which the enumerators leave to the walk."""
    steps = [cm for cm in default_engine.moves.values() if cm.decl.is_step]
    assert steps and all(cm.listing is None for cm in steps)
    assert any(cm.listing is not None for cm in default_engine.moves.values())


def test_a_guard_part_that_reads_no_earlier_argument_is_decided_once_per_value(default_engine: Engine) -> None:
    """`occupied(target2) and target2 != target1`: the first part reads only target2, so the enumerator
    filters target2's domain by it once; the second part reads target1 and stays in the loop. A guard of
    the first argument is never hoisted (its loop is the outermost)."""
    from baobei.engine.enumeration import _hoisted
    from baobei.language.text import expr_text

    move = default_engine.rules.moves["double_pluck"]
    params = tuple(p.name for p in move.params)
    second = [r.cond for r in move.requires if "target2 != target1" in expr_text(r.cond)]
    alone, rest = _hoisted(list(second), params, params.index("target2"))
    assert [expr_text(e) for e in alone] == ["occupied(target2)"]
    assert [expr_text(e) for e in rest] == ["target2 != target1"]
    assert _hoisted(list(second), params, 0) == ([], second)


def test_a_part_worked_out_ahead_over_an_optional_argument_keeps_the_walk(make_variant: MakeVariant) -> None:
    """Without `gift1 != none`, the part `owner(gift1) == actor and occupied(gift1)` is worked out ahead for
    the value none too (owner(none) is none, not the actor): the listing is still the walk's."""
    old = "(gift1 != none and owner(gift1) == actor and occupied(gift1)"
    eng = Engine(load_ruleset(make_variant(("04_pluck.bao", old, "(owner(gift1) == actor and occupied(gift1)"))))
    states = [st for st in match_states(eng, 4, 7) if st.windows]
    assert states
    listed = sum(compare_listings(eng, st) for st in states[:: max(1, len(states) // 30)])
    assert listed > 1_000


def test_a_part_that_failed_ahead_hands_the_guard_to_its_checked_rendering() -> None:
    """A part whose code failed where it was worked out ahead holds UNDECIDED: asking its truth raises one of
    the errors a guard's fast code hands to its checked rendering (`except _WRONG_KIND`)."""
    from baobei.engine.codegen import WRONG_KIND
    from baobei.engine.enumeration import UNDECIDED

    with pytest.raises(WRONG_KIND):
        bool(UNDECIDED)
