"""What the engine's context, events and round start do where no other test looked, found by mutation testing
(tools/mutation.py, issue 11): each test pins one behaviour that a surviving mutant of engine/runtime.py or
engine/engine.py changed. The kinds an event may have, events and origins as values, the marks and the trial
run's record of protections that a routine called from a move shares with it, a new round clearing every mark
(also one that lasts beyond a turn), and rules without an `on changed` hook."""

from __future__ import annotations

import dataclasses
import random

import baobei.engine.runtime as runtime
import pytest
from baobei.engine.engine import Engine
from baobei.engine.notation import parse_move_text
from baobei.engine.state import State
from baobei.language.paths import default_rules_dir
from conftest import ELSTER_VS_SHIELD, table_state, variant_engine


def play(eng: Engine, st: State, text: str) -> list[runtime.Event]:
    return eng.push(st, parse_move_text(eng.rules.moves, st, text))


def card(st: State, label: str) -> int:
    return st.facts.by_label[label]


SCHUHSCHNABEL = """\
scenario "Schuhschnabel"
table
  players alice bob
  alice: Amsel, Flamingo, Star, Meise, Spatz
  bob: Kranich, Specht, Rotkehlchen, Star, Meise
  draw: Schuhschnabel, Spatz, Goldtukan, Star
  discard: Specht
  active alice
play
"""


# ---------------------------------------------------------------- events (runtime.py:44, :47, :73)
def test_every_event_of_a_match_has_one_of_the_documented_kinds(default_engine: Engine) -> None:
    """EVENT_KINDS names the kinds an event may have; a seeded random match gives only those, and all five."""
    assert runtime.EVENT_KINDS == ("effect", "draw", "show", "set", "say")
    eng = default_engine
    st, events = eng.new_match(["ann", "ben", "cid"], 3)
    rng = random.Random(3)
    for _ in range(400):
        move = eng.random_move(st, rng)
        if move is None:
            break
        events += eng.push(st, move)
    assert {e.kind for e in events} == set(runtime.EVENT_KINDS)


def test_an_event_and_an_origin_are_values(default_engine: Engine) -> None:
    """Events and origins are frozen values: equal ones are one in a set, and none can be changed afterwards."""
    st = table_state(default_engine, SCHUHSCHNABEL)
    cite = default_engine.rules.moves["draw"].cite
    first = play(default_engine, st, "alice draw")[0]
    same = runtime.Event("draw", cite, "alice draw")
    assert first == same and len({first, same}) == 1
    with pytest.raises(dataclasses.FrozenInstanceError):
        first.text = "bob draw"  # type: ignore[misc]
    origin = runtime.Origin("draw", cite)
    assert len({origin, runtime.Origin("draw", cite)}) == 1
    with pytest.raises(dataclasses.FrozenInstanceError):
        origin.rule = "keep"  # type: ignore[misc]


# ---------------------------------------------------------------- what a routine shares (runtime.py:36, :37)
def test_the_cards_a_routine_of_an_ability_moves_are_marked_moved(default_engine: Engine) -> None:
    """The Schuhschnabel's exchanges run the routine `exchange`: the cards it moves get the ability's mark
    `moved` (the routine runs with the marking of the ability that called it); the cards left alone do not."""
    eng = default_engine
    st = table_state(eng, SCHUHSCHNABEL)
    for text in ("alice draw", "alice discard", "alice double_exchange",
                 "alice exchange_cards own_card=Goldtukan own=alice.2 other_card=Spatz other=bob.1"):
        play(eng, st, text)
    assert st.card_at((0, 2)) == card(st, "Goldtukan#1") and st.card_at((1, 1)) == card(st, "Spatz#2")
    moved = [label for label in ("Goldtukan#1", "Spatz#2", "Flamingo#1", "Kranich#1")
             if st.is_marked(card(st, label), "moved")]
    assert moved == ["Goldtukan#1", "Spatz#2", "Flamingo#1", "Kranich#1"]
    assert not any(st.is_marked(c, "moved") for c in (st.card_at((0, 1)), st.card_at((1, 2))) if c is not None)


SWAP_ROUTINE = """
routine swap_looked(a: slot, b: slot) "Test: the Elster's swap, made by a routine" § 6.6 [P133, P134] {
  swap card_at(a) with card_at(b)
}
"""


def test_a_step_whose_routine_would_change_a_protected_tableau_is_refused(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    """The Elster's swap made by a routine: the trial run that judges the step sees the shield block the
    routine's swap (the routine records into the trial's list), so the swap is refused as in the default rules."""
    eng = variant_engine(tmp_path_factory, ("05_abilities.bao", "if swap_them { swap card_at(a) with card_at(b) }",
                                     "if swap_them { run swap_looked(a, b) }"), extra=SWAP_ROUTINE)
    st = table_state(eng, ELSTER_VS_SHIELD)
    for text in ("bob draw", "bob discard", "bob look_and_swap a=alice.1 b=carol.2"):
        play(eng, st, text)
    rejection = eng.check(st, parse_move_text(eng.rules.moves, st, "bob decide_swap swap_them=true"))
    assert rejection is not None and rejection.rule == "protect shield"
    assert eng.check(st, parse_move_text(eng.rules.moves, st, "bob decide_swap swap_them=false")) is None


# ---------------------------------------------------------------- a new round (engine.py:176)
def test_a_new_round_clears_a_mark_that_lasts_beyond_a_turn(tmp_path_factory: pytest.TempPathFactory) -> None:
    """With `moved` lasting past a turn, only the new round clears it: a dealt round has no card marked, and
    a mark carried into the next round is gone once it starts."""
    eng = variant_engine(tmp_path_factory, ("05_abilities.bao", "until turn on ability moves", "on ability moves"))
    assert not eng.rules.marks["moved"].until_turn
    st, _ = eng.new_match(["ann", "ben", "cid"], 4, log=False)
    assert not any(st.is_marked(c, "moved") for c in st.deck())
    st.marks[card(st, "Spatz#1")] = 1 << st.facts.mark_bits["moved"]
    eng.start_round(st, None)
    assert st.marks == [0] * len(st.marks)


# ---------------------------------------------------------------- no `on changed` hook (engine.py:253)
def changed_hook() -> str:
    """The default rules' `on changed` declaration, as written in its file."""
    text = (default_rules_dir() / "06_bao.bao").read_text(encoding="utf-8")
    start = text.index("on changed(")
    return text[start:text.index("\n}\n", start) + 3]


def test_rules_without_an_on_changed_hook_change_tableaux_without_telling_anyone(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    """The hook `on changed` is optional: without it a move that changes a tableau just runs (nothing to call)."""
    eng = variant_engine(tmp_path_factory, ("06_bao.bao", changed_hook(), ""))
    assert "changed" not in eng.rules.hooks
    st = table_state(eng, ELSTER_VS_SHIELD.replace("  set shield = active\n", "  set shield = armed\n"))
    play(eng, st, "bob draw")
    events = play(eng, st, "bob keep slot=bob.1")
    assert [e.text for e in events] == [
        "bob keep slot=bob.1", "Flamingo#1 moves from bob.1 to discard pile", "Elster#1 moves from bob's hand to bob.1",
        "the pluck window 'discard' opens on Flamingo#1 for alice, carol"]
    assert st.card_at((1, 1)) == card(st, "Elster#1") and st.vars["shield"] == "armed"
