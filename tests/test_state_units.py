"""The state's contract, part by part: slots, places, seats, windows, copies, the JSON form, card facts.

Written against `State`'s public methods and the scenario language's tables, so that they hold
whatever the engine's internals become (mutation testing found these untested, issue 11).
"""

from __future__ import annotations

import json
import random

import pytest
from baobei.engine.engine import Engine
from baobei.engine.state import Chance, HandLoc, PileLoc, State, Waiting, Window
from conftest import table_state

TABLE = """\
scenario "state units"
table
  players alice bob carol
  alice: Spatz, _, Goldtukan
  bob: Flamingo, Kranich
  carol: _
  draw: Amsel, Star
  discard: Specht, Meise
  active bob
play
"""


def table(eng: Engine, text: str = TABLE) -> State:
    return table_state(eng, text)


@pytest.fixture
def st(default_engine: Engine) -> State:
    return table(default_engine)


def species(st: State, card: int | None) -> str | None:
    return None if card is None else st.facts.species[card]


def test_card_at_is_none_outside_the_tableau(st: State) -> None:
    assert species(st, st.card_at((0, 1))) == "Spatz"
    assert st.card_at((0, 2)) is None  # a free slot
    assert species(st, st.card_at((0, 3))) == "Goldtukan"  # the last slot
    assert st.card_at((0, 4)) is None  # one past the last slot
    assert st.card_at((0, 0)) is None
    assert st.card_at((0, -1)) is None


def test_cards_and_slots_of_a_tableau(st: State) -> None:
    assert [species(st, c) for c in st.cards_of(0)] == ["Spatz", "Goldtukan"]
    assert st.occupied_slots(0) == [(0, 1), (0, 3)]
    assert st.free_slots(0) == [(0, 2)]
    assert st.cards_of(2) == [] and st.occupied_slots(2) == [] and st.free_slots(2) == [(2, 1)]
    assert st.free_slots(1) == []


def test_an_added_card_goes_to_the_named_free_slot_else_the_lowest_free_else_a_new_one(st: State) -> None:
    assert st.slot_for_added(0, (0, 2)) == (0, 2)  # named and free
    assert st.slot_for_added(0, (0, 1)) == (0, 2)  # named but occupied: the lowest free
    assert st.slot_for_added(0, (1, 2)) == (0, 2)  # another player's slot is no choice for alice
    assert st.slot_for_added(0, (0, 4)) == (0, 2)  # past the tableau: the lowest free
    assert st.slot_for_added(0, (0, 0)) == (0, 2)
    assert st.slot_for_added(0, None) == (0, 2)
    assert st.slot_for_added(1, None) == (1, 3)  # no free slot: a new one after the last
    assert st.slot_for_added(1, (1, 3)) == (1, 3)
    assert st.slot_for_added(2, (2, 1)) == (2, 1)


def test_places_of_cards(default_engine: Engine, st: State) -> None:
    spatz = st.card_at((0, 1))
    assert spatz is not None
    assert st.locate(spatz) == (0, 1)
    discard, draw = default_engine.pile_index["discard_pile"], default_engine.pile_index["draw_pile"]
    top_discard = st.piles[discard][-1]
    assert species(st, top_discard) == "Meise"
    assert st.locate(top_discard) == discard
    assert st.locate(st.piles[draw][0]) == draw
    boxed = st.box[0]
    assert st.locate(boxed) is None
    st.hands[1].append(st.box.pop(0))
    assert st.locate(boxed) == HandLoc(1)
    for card in range(len(st.facts)):
        assert st.count_places(card) == 1
    st.box.append(boxed)  # a copied card: two places
    assert st.count_places(boxed) == 2


def test_piles_and_hands_as_places(default_engine: Engine, st: State) -> None:
    discard = default_engine.pile_index["discard_pile"]
    assert [species(st, c) for c in st.pile_cards(PileLoc(discard, "discard_pile")) or []] == ["Specht", "Meise"]
    assert st.pile_cards(HandLoc(0)) == []
    assert st.pile_cards((0, 1)) is None and st.pile_cards(None) is None
    st.hands[0].append(st.box.pop())
    held = st.hand_cards(0)
    held.clear()  # a copy: the hand itself keeps its card
    assert len(st.hands[0]) == 1
    assert st.hand_place(2) == HandLoc(2)


def test_seats_of_a_round(st: State) -> None:
    assert st.player_count == 3 and st.everyone == 0b111
    assert st.seated() == [0, 1, 2]
    assert st.seats_from(1) == [1, 2, 0]
    assert st.seats_from(2) == [2, 0, 1]
    st.seat_round([2, 0, 0])
    assert st.seated() == [0, 2]
    assert st.seats_from(1) == [2, 0]  # a seat out of the round starts at the next seat of the round
    assert st.seats_from(2) == [2, 0]
    assert st.player_count == 3  # the match keeps its players


def test_knowledge_marks_and_facts(default_engine: Engine, st: State) -> None:
    spatz = st.card_at((0, 1))
    assert spatz is not None
    assert not st.knows(0, None)
    assert not st.knows(1, spatz)
    st.known[spatz] = 0b010
    assert st.knows(1, spatz) and not st.knows(0, spatz) and not st.knows(2, spatz)
    assert st.card_fact(spatz, "species") == "Spatz"
    assert st.card_fact(spatz, "value") == default_engine.rules.species["Spatz"].value
    assert st.deck() == list(range(len(st.facts)))
    assert not st.is_marked(spatz, "moved")
    st.marks[spatz] = 1 << st.facts.mark_bits["moved"]
    assert st.is_marked(spatz, "moved")
    assert not st.is_protected(2)
    st.protected = 0b100
    assert st.is_protected(2) and not st.is_protected(1)


def test_the_window_as_the_rules_read_it(st: State) -> None:
    assert st.window is None
    assert st.window_value("used") is False
    assert st.window_value("players") == []
    assert st.window_value("ref") is None and st.window_value("kind") is None
    st.windows.append(Window("discard", 5, 0b101, 1))
    st.windows.append(Window("own_draw", 7, 0b010, 1))
    assert st.window is st.windows[-1]  # the newest
    assert st.window_value("ref") == 7 and st.window_value("kind") == "own_draw"
    assert st.window_value("players") == [1]
    assert st.window_value("used") is False
    st.windows[-1].attempts = 0
    assert st.window_value("used") is True
    st.windows.pop()
    assert st.window_value("players") == [0, 2]


def test_card_facts_name_every_card_by_species_and_ordinal(default_engine: Engine) -> None:
    facts = default_engine.facts
    assert facts.label(None) == "nothing"
    spatzen = [c for c in range(len(facts)) if facts.species[c] == "Spatz"]
    assert [facts.label(c) for c in spatzen[:2]] == ["Spatz#1", "Spatz#2"]
    assert len(spatzen) == default_engine.rules.species["Spatz"].count
    assert facts.by_label["Spatz#2"] == spatzen[1]
    assert len(facts.by_label) == len(facts) == sum(sp.count for sp in default_engine.rules.species.values())
    assert facts.ability[spatzen[0]] is None
    pelikan = facts.by_label["Weisspelikan#1"]
    assert facts.ability[pelikan] == "peek" and facts.value[pelikan] == 7


def test_a_copy_is_independent_in_every_part(default_engine: Engine, st: State) -> None:
    st.vars["bao_caller"] = 1
    st.windows.append(Window("discard", 3, 0b011, 1))
    st.waiting.append(Waiting("peek", 4, 1, ((0, 1),), True))
    st.protected = 0b001
    st.seat_round([0, 1])
    before = json.dumps(st.to_json(), sort_keys=True)
    new = st.copy()
    assert json.dumps(new.to_json(), sort_keys=True) == before
    assert new.names == st.names and new.facts is st.facts
    assert (new.active, new.phase, new.round, new.turn, new.in_round, new.seats) == \
        (st.active, st.phase, st.round, st.turn, st.in_round, st.seats)
    # Change every part of the copy: the original stays as it was.
    new.tableaux[0][0] = None
    new.piles[0].clear()
    new.hands[0].append(99)
    new.active, new.phase, new.round, new.turn = 2, "x", 9, 9
    new.vars["bao_caller"] = 2
    new.pvars[next(iter(new.pvars))][0] = 77
    new.windows[0].attempts = 0
    new.waiting.clear()
    new.known[0] = 7
    new.marks[0] = 7
    new.box.clear()
    new.seats.append(2)
    new.protected = 0
    assert json.dumps(st.to_json(), sort_keys=True) == before
    assert st.seats == [0, 1]


def test_a_copy_draws_the_same_random_numbers_as_the_original(st: State) -> None:
    st.rng.random()  # a generator in use
    new = st.copy()
    assert [new.rng.random() for _ in range(3)] == [st.rng.random() for _ in range(3)]
    newer = new.copy()  # a copy of a copy whose generator was never used
    again = newer.copy()
    assert newer.rng_state() == again.rng_state()
    assert [again.rng.random() for _ in range(2)] == [newer.rng.random() for _ in range(2)]


def test_a_chance_takes_over_the_random_outcomes(st: State) -> None:
    class Fixed(Chance):
        def pick(self, items: list[int], kind: str) -> int:
            return items[-1]

    chance = Fixed(3)
    st.use_chance(chance)
    assert st.rng is chance
    assert Chance(5).pick(["a", "b", "c"], "player") == random.Random(5).choice(["a", "b", "c"])
    # A copy goes back to a generator of its own, in the chance's state.
    new = st.copy()
    assert not isinstance(new.rng, Chance)
    assert new.rng.random() == chance.random()


def test_the_json_form_round_trips_slots_inside_values(default_engine: Engine, st: State) -> None:
    st.vars["bao_caller"] = 2
    st.vars["probe"] = [(0, 1), [(1, 2)], 3, None]
    name = next(iter(st.pvars))
    st.pvars[name] = [(2, 1), [(0, 3)], None]
    st.waiting.append(Waiting("decide_swap", 4, 1, ((0, 1), (1, 2)), True))
    st.windows.append(Window("discard", 3, 0b011, 0))
    st.seat_round([0, 2])
    st.protected = 0b100
    st.rng.random()
    text = json.dumps(st.to_json())
    back = State.from_json(json.loads(text), default_engine.facts, default_engine.pile_locs)
    assert json.dumps(back.to_json()) == text
    assert back.vars["probe"] == [(0, 1), [(1, 2)], 3, None]
    assert back.pvars[name] == [(2, 1), [(0, 3)], None]
    assert back.waiting[0].args == ((0, 1), (1, 2)) and back.waiting[0].after_window
    assert (back.windows[0].kind, back.windows[0].ref, back.windows[0].players, back.windows[0].attempts) == \
        ("discard", 3, 0b011, 0)
    assert back.seated() == [0, 2] and back.in_round == 0b101 and back.protected == 0b100
    assert back.rng.random() == st.rng.random()
    assert back.to_json()["vars"]["probe"] == [{"slot": [0, 1]}, [{"slot": [1, 2]}], 3, None]
