"""What the primitive statements of engine/effects.py do where no other test looked, found by mutation testing
(tools/mutation.py, issue 11): each test pins one behaviour that a surviving mutant of effects.py changed. How
many windows stay open, which slot numbers are places, a draw the event log tells as impossible, a `move` in
the deal (outside any move), a swap the shield leaves out, a draw onto an occupied slot, the mark an ability's
`move` gives, where `continue` queues an ability's next step, and a shuffle of every card."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from baobei.engine.engine import Engine
from baobei.engine.notation import parse_move_text
from baobei.engine.state import State
from baobei.language.errors import EngineError
from conftest import table_state, variant_engine
from variants import STEAL

# Moves for these tests only: each runs one primitive statement in a way the default rules never do.
TEST_MOVES = """
move to_zero "Test: move a card to slot 0 of the actor" § 2.2 [P24]
  by true
  with target: slot
  do { move card_at(target) to slot(actor, 0) }

move swap_with_caller "Test: swap the actor's first card with the BAO caller's (a change no argument chose)" § 2.2 [P24]
  by true
  do { swap card_at(slot(actor, 1)) with card_at(slot(bao_caller, 1)) }

move draw_onto "Test: draw onto a slot, free or not" § 2.2 [P24]
  by true
  with target: slot
  do { draw into target }

move trigger_three "Test: trigger the abilities of the actor's first three cards" § 2.2 [P24]
  by true
  do {
    trigger card_at(slot(actor, 1)) for actor
    trigger card_at(slot(actor, 2)) for actor
    trigger card_at(slot(actor, 3)) for actor
  }

move reshuffle "Test: shuffle every card of the deck into the draw pile" § 2.2 [P24]
  by true
  do { shuffle all_cards into draw_pile }
"""

SMALL = """\
scenario "small"
table
  players alice bob
  alice: Spatz, Goldtukan, _
  bob: Flamingo, Kranich
  draw: Amsel
  discard: Specht, Meise
  active alice
  phase turn
play
"""

THREE = """\
scenario "three"
table
  players alice bob carol
  alice: Spatz, _, Goldtukan
  bob: Flamingo, Kranich
  carol: Weisspelikan, Star
  draw: Amsel, Weisspelikan, Star, Meise
  discard: Specht, Meise
  active bob
play
"""


@pytest.fixture(scope="module")
def tested(tmp_path_factory: pytest.TempPathFactory) -> Engine:
    return variant_engine(tmp_path_factory, extra=TEST_MOVES)


def run(eng: Engine, st: State, text: str) -> list[str]:
    """The texts of a move's events, without the first (the move itself)."""
    return [e.text for e in eng.push(st, parse_move_text(eng.rules.moves, st, text))][1:]


def labels(st: State, cards: Sequence[int | None]) -> list[str | None]:
    return [None if c is None else st.facts.label(c) for c in cards]


# ---------------------------------------------------------------- windows (effects.py:57, :280)
def test_a_new_window_closes_the_oldest_one_open_beyond_the_rules_limit(default_engine: Engine) -> None:
    """`window ... open 1`: the discard window bob's keep opens replaces the window of his own draw (the oldest
    window closes when more are open than the rules allow), so one window is open, on the discarded card."""
    st = table_state(default_engine, THREE)
    run(default_engine, st, "bob draw")
    assert [(w.kind, st.facts.label(w.ref)) for w in st.windows] == [("own_draw", "Amsel#1")]
    run(default_engine, st, "bob keep slot=bob.1")
    assert [(w.kind, st.facts.label(w.ref)) for w in st.windows] == [("discard", "Flamingo#1")]


def test_the_number_of_open_windows_is_rules_data(tmp_path_factory: pytest.TempPathFactory) -> None:
    """`window ... open 2`: the same two steps leave both windows open, the newest last (the engine reads the
    limit from the rules' window declaration, not a default of one)."""
    eng = variant_engine(tmp_path_factory, ("04_pluck.bao", "attempts 1 open 1", "attempts 1 open 2"))
    st = table_state(eng, THREE)
    run(eng, st, "bob draw")
    run(eng, st, "bob keep slot=bob.1")
    assert [(w.kind, st.facts.label(w.ref)) for w in st.windows] == [("own_draw", "Amsel#1"), ("discard", "Flamingo#1")]


# ---------------------------------------------------------------- places (effects.py:97, :208)
def test_slot_zero_is_no_place_even_when_the_last_slot_is_free(tested: Engine) -> None:
    """Slots are numbered from 1: slot 0 is refused, also when the tableau's last slot is free (read as
    `row[-1]`, slot 0 would be taken for the last slot)."""
    st = table_state(tested, SMALL)
    with pytest.raises(EngineError, match=r"98_test_moves\.bao:\d+:\d+: slot alice\.0 is not free$"):
        tested.push(st, parse_move_text(tested.rules.moves, st, "alice to_zero target=bob.1"))
    assert labels(st, st.tableaux[0]) == ["Spatz#1", "Goldtukan#1", None]
    assert labels(st, st.tableaux[1]) == ["Flamingo#1", "Kranich#1"]


def test_a_draw_onto_an_occupied_slot_is_refused_and_loses_nothing(tested: Engine) -> None:
    """A draw checks its destination as a move does: a card on the slot is never covered (and so lost); the
    refused draw leaves the draw pile as it was. A free slot takes the drawn card."""
    st = table_state(tested, SMALL)
    with pytest.raises(EngineError, match=r"^draw_onto: slot alice\.1 is not free$"):
        tested.push(st, parse_move_text(tested.rules.moves, st, "alice draw_onto target=alice.1"))
    assert labels(st, st.tableaux[0]) == ["Spatz#1", "Goldtukan#1", None]
    assert labels(st, st.piles[tested.pile_index["draw_pile"]]) == ["Amsel#1"]
    assert run(tested, st, "alice draw_onto target=alice.3") == ["a card is drawn to alice.3"]
    assert labels(st, st.tableaux[0]) == ["Spatz#1", "Goldtukan#1", "Amsel#1"]


# ---------------------------------------------------------------- an impossible draw (effects.py:203, :204)
NOTHING_TO_DRAW = """\
scenario "nothing to draw"
table
  players alice bob
  alice: Spatz, Amsel
  bob: Kranich, Star
  discard: Specht
  active alice
play
"""


def test_an_impossible_draw_is_told_in_the_event_log(default_engine: Engine) -> None:
    """§ 7.1 [P162] (D8): a failed pluck's penalty card cannot be drawn, not even after a recycle (nothing to
    recycle): the draw is left out, and the event log (`baobei explain`, the FAQ's traces) says so."""
    st = table_state(default_engine, NOTHING_TO_DRAW)
    run(default_engine, st, "alice take slot=alice.2")
    events = default_engine.push(st, parse_move_text(default_engine.rules.moves, st, "bob pluck target=bob.1"))
    assert [(e.rule, e.text) for e in events] == [
        ("pluck", "bob pluck target=bob.1"), ("pluck", "an attempt on the reference is used"),
        ("pluck_failure", "Kranich#1 (bob.1) is shown to everyone"),
        ("pluck_failure", "the draw is impossible and is left out")]
    assert labels(st, st.tableaux[1]) == ["Kranich#1", "Star#1"]


# ---------------------------------------------------------------- changes outside a move (effects.py:151)
def test_a_deal_written_with_move_deals_as_one_written_with_draw(tmp_path_factory: pytest.TempPathFactory,
                                                                 default_engine: Engine) -> None:
    """The deal runs in the round_start hook, where no move's changed tableaux are recorded (`ctx.changed` is
    None): a `move` onto a slot there must not try to record it. Dealt with `move top(draw_pile)` instead of
    `draw`, the same seed deals the same tableaux."""
    deal = "repeat dealt_hand { draw into free_slot(p, none) }"
    eng = variant_engine(tmp_path_factory, ("02_setup.bao", deal, deal.replace("draw into", "move top(draw_pile) to")))
    moved, _ = eng.new_match(["alice", "bob", "carol"], 5, log=False)
    drawn, _ = default_engine.new_match(["alice", "bob", "carol"], 5, log=False)
    assert [len(row) for row in moved.tableaux] == [4, 4, 4]
    assert [labels(moved, row) for row in moved.tableaux] == [labels(drawn, row) for row in drawn.tableaux]


# ---------------------------------------------------------------- the shield (effects.py:186)
def test_a_swap_of_a_protected_tableau_no_argument_chose_moves_nothing(tested: Engine) -> None:
    """A swap that would change bob's shielded tableau, with no argument of the move naming it, is
    impossible: it is told and left out, both cards stay (§ 4.2 [P99]). Without the shield it happens."""
    shielded = SMALL.replace("  phase turn\n", "  phase turn\n  set bao_caller = bob\n  set shield = active\n")
    st = table_state(tested, shielded)
    assert run(tested, st, "alice swap_with_caller") == \
        ["bob's tableau is protected (shield): this change is impossible and left out"]
    assert labels(st, st.tableaux[0]) == ["Spatz#1", "Goldtukan#1", None]
    assert labels(st, st.tableaux[1]) == ["Flamingo#1", "Kranich#1"]
    st = table_state(tested, SMALL.replace("  phase turn\n", "  phase turn\n  set bao_caller = bob\n"))
    assert run(tested, st, "alice swap_with_caller") == ["the cards on alice.1 and bob.1 swap places"]
    assert labels(st, st.tableaux[0]) == ["Flamingo#1", "Goldtukan#1", None]


# ---------------------------------------------------------------- the moved mark (effects.py:172, :173)
STEAL_PLAY = """\
scenario "An invented ability that moves a card"
table
  players alice bob carol
  alice: Spatz, Amsel
  bob: Flamingo, Star
  carol: Meise, Specht
  draw: Kranich, Rotkehlchen
  discard: Ara
  active alice
play
"""


def test_a_card_an_ability_moves_is_marked_moved(tmp_path_factory: pytest.TempPathFactory) -> None:
    """§ 6.11 [P153] (D13): every card an ability moves gets the mark `moved` (rules/05_abilities.bao, `on
    ability moves`), given by the `move` statement itself. The invented Kranich ability of the STEAL variant
    moves carol's Meise with `move`: it is marked, the cards it did not move are not."""
    eng = variant_engine(tmp_path_factory, *STEAL)
    st = table_state(eng, STEAL_PLAY)
    run(eng, st, "alice draw")
    run(eng, st, "alice discard")
    assert run(eng, st, "alice steal target=carol.1") == ["the pluck window closes",
                                                          "Meise#1 moves from carol.1 to alice.3"]
    meise = st.facts.by_label["Meise#1"]
    assert st.card_at((0, 3)) == meise and st.is_marked(meise, "moved")
    assert not any(st.is_marked(st.facts.by_label[c], "moved") for c in ("Spatz#1", "Amsel#1", "Specht#1"))


# ---------------------------------------------------------------- an ability's next step (effects.py:319-321)
ABILITIES = """\
scenario "three abilities"
table
  players alice bob
  alice: Elster, Ara, Weisspelikan
  bob: Flamingo, Kranich
  draw: Amsel
  discard: Specht
  active alice
  phase turn
play
"""


def test_an_abilitys_next_step_comes_before_every_other_waiting_ability(tested: Engine) -> None:
    """§ 6.10 [P146, P152]: an ability is carried out completely before anything else happens, so the step
    that `continue` queues goes first in line, before every other waiting ability, not only before the last.
    Three abilities wait (Elster, Ara, Weisspelikan, in the order triggered); the Elster's look goes on with
    its decision before the Ara and the Weisspelikan, and the event log says so."""
    st = table_state(tested, ABILITIES)
    run(tested, st, "alice trigger_three")
    assert [w.ability for w in st.waiting] == ["look_and_swap", "swap_blind", "peek"]
    assert run(tested, st, "alice look_and_swap a=alice.2 b=bob.1")[-1] == "alice goes on with 'decide_swap'"
    assert [w.ability for w in st.waiting] == ["decide_swap", "swap_blind", "peek"]
    assert [st.facts.label(w.card) for w in st.waiting] == ["Elster#1", "Ara#1", "Weisspelikan#1"]


# ---------------------------------------------------------------- shuffling every card (effects.py:342, :343)
def test_shuffling_every_card_takes_the_cards_in_hands_too(tested: Engine) -> None:
    """`shuffle all_cards` gathers every card wherever it lies, a held card included: afterwards the hands
    are empty and each card of the deck lies exactly once, in the draw pile, known to nobody."""
    st = table_state(tested, SMALL.replace("  phase turn\n", "  phase turn\n  alice holds Meise\n"))
    assert labels(st, st.hands[0]) == ["Meise#2"]
    assert run(tested, st, "alice reshuffle") == [f"{len(st.facts)} cards shuffled into the draw pile"]
    assert st.hands == [[], []]
    assert sorted(st.piles[tested.pile_index["draw_pile"]]) == list(range(len(st.facts)))
    assert all(st.count_places(c) == 1 for c in range(len(st.facts)))
    assert not any(st.known)
