"""The engine's effects as the players are told them: every event of a few turns, word for word, with who
knew each card; and the statements the default rules do not use (forget, impossible moves), through a
variant that adds test moves. Found untested by mutation testing (issue 11)."""

from __future__ import annotations

from pathlib import Path

import pytest
from baobei.engine.engine import Engine
from baobei.engine.move import Move
from baobei.engine.notation import parse_move_text
from baobei.engine.state import State
from baobei.language.errors import EngineError
from baobei.language.load import load_ruleset
from conftest import table_state

TABLE = """\
scenario "effects units"
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

# (move, [(kind, text, rule, ((card, knowers mask), ...)), ...]) for each move, in order.
TURNS: list[tuple[str, list[tuple[str, str, str, tuple[tuple[str, int], ...]]]]] = [
    ("bob draw", [
        ("effect", "bob draw", "draw", ()),
        ("draw", "a card is drawn to bob's hand", "draw", (("Amsel#1", 0),)),
        ("effect", "bob looks secretly at Amsel#1", "draw", (("Amsel#1", 0b010),)),
        ("effect", "the pluck window 'own_draw' opens on Amsel#1 for bob", "draw", (("Amsel#1", 0b010),))]),
    ("bob keep slot=bob.1", [
        ("effect", "bob keep slot=bob.1", "keep", ()),
        ("effect", "Flamingo#1 moves from bob.1 to discard pile", "keep", (("Flamingo#1", 0b111),)),
        ("effect", "Amsel#1 moves from bob's hand to bob.1", "keep", (("Amsel#1", 0b010),)),
        ("effect", "the pluck window 'discard' opens on Flamingo#1 for alice, carol", "keep",
         (("Flamingo#1", 0b111),))]),
    ("carol pluck target=carol.2", [
        ("effect", "carol pluck target=carol.2", "pluck", ()),
        ("effect", "an attempt on the reference is used", "pluck", ()),
        ("show", "Star#1 (carol.2) is shown to everyone", "pluck_failure", (("Star#1", 0b111),)),
        ("draw", "a card is drawn to carol.3", "pluck_failure", (("Weisspelikan#2", 0),))]),
    ("bob end_turn", [
        ("effect", "bob end_turn", "end_turn", ()),
        ("effect", "the pluck window closes", "finish_turn", ()),
        ("set", "owed[bob] = false", "finish_turn", ()),
        ("effect", "carol's turn begins", "finish_turn", ())]),
    ("carol take slot=carol.1", [
        ("effect", "carol take slot=carol.1", "take", ()),
        ("effect", "Weisspelikan#1 moves from carol.1 to discard pile", "take", (("Weisspelikan#1", 0b111),)),
        ("effect", "Flamingo#1 moves from discard pile to carol.1", "take", (("Flamingo#1", 0b111),)),
        ("effect", "the pluck window 'discard' opens on Weisspelikan#1 for alice, bob", "take",
         (("Weisspelikan#1", 0b111),))]),
    ("carol end_turn", [
        ("effect", "carol end_turn", "end_turn", ()),
        ("effect", "the pluck window closes", "finish_turn", ()),
        ("set", "owed[carol] = false", "finish_turn", ()),
        ("effect", "alice's turn begins", "finish_turn", ())]),
    ("alice draw", [
        ("effect", "alice draw", "draw", ()),
        ("draw", "a card is drawn to alice's hand", "draw", (("Star#2", 0),)),
        ("effect", "alice looks secretly at Star#2", "draw", (("Star#2", 0b001),)),
        ("effect", "the pluck window 'own_draw' opens on Star#2 for alice", "draw", (("Star#2", 0b001),))]),
    ("alice discard", [
        ("effect", "alice discard", "discard", ()),
        ("effect", "Star#2 moves from alice's hand to discard pile", "discard", (("Star#2", 0b111),)),
        ("effect", "the pluck window 'discard' opens on Star#2 for bob, carol", "discard", (("Star#2", 0b111),))]),
]


def table(eng: Engine, text: str = TABLE) -> State:
    return table_state(eng, text)


def push(eng: Engine, st: State, text: str) -> list[tuple[str, str, str, tuple[tuple[str, int], ...]]]:
    move = parse_move_text(eng.rules.moves, st, text)
    return [(e.kind, e.text, e.rule, e.cards) for e in eng.push(st, move)]


def test_every_event_of_a_few_turns_word_for_word(default_engine: Engine) -> None:
    st = table(default_engine)
    for text, events in TURNS:
        assert push(default_engine, st, text) == events, text


def test_an_event_told_to_one_player_hides_what_that_player_does_not_know(default_engine: Engine) -> None:
    st = table(default_engine)
    events = default_engine.push(st, parse_move_text(default_engine.rules.moves, st, "bob draw"))
    look = events[2]
    assert look.seen_by(1) == "bob looks secretly at Amsel#1"
    assert look.seen_by(0) == "bob looks secretly at a card"
    assert str(look) == f"bob looks secretly at Amsel#1  [draw, {look.cite}]"


def test_the_places_a_card_can_move_from_and_to(default_engine: Engine) -> None:
    st = table(default_engine)
    for text, _ in TURNS:
        push(default_engine, st, text)
    # Each card lies in exactly one place after all of it; the penalty card lies on carol's new slot.
    assert all(st.count_places(c) == 1 for c in range(len(st.facts)))
    assert st.facts.label(st.card_at((2, 3))) == "Weisspelikan#2"
    assert [st.facts.label(c) for c in st.piles[default_engine.pile_index["discard_pile"]]] == \
        ["Specht#1", "Meise#2", "Weisspelikan#1", "Star#2"]


# ---------------------------------------------------------------- statements the default rules do not use
TEST_MOVES = """
move forget_it "Test: nobody can follow the card any more" § 2.2 [P24]
  by true
  with target: slot
  do { forget card_at(target) }

move swap_top "Test: swap the top discard with a card on a slot" § 2.2 [P24]
  by true
  with target: slot
  do { swap top(discard_pile) with card_at(target) }

move swap_two "Test: swap two cards on slots" § 2.2 [P24]
  by true
  with one: slot, two: slot
  do { swap card_at(one) with card_at(two) }

move into_hand "Test: move a card into the actor's hand" § 2.2 [P24]
  by true
  with target: slot
  do { move card_at(target) to hand(actor) }

move onto "Test: move a card onto a slot" § 2.2 [P24]
  by true
  with target: slot, onto: slot
  do { move card_at(target) to onto }

move from_box "Test: move the first card of the deck that lies in the box to the under pile" § 2.2 [P24]
  by true
  do {
    move first c in deck where (all p in players: not (c in cards(p)) and not (c in held(p)))
      and not (c in draw_pile) and not (c in discard_pile) and not (c in under_pile) to under_pile
  }

move go_on "Test: continue outside an ability" § 2.2 [P24]
  by true
  do { continue decide_swap(slot(actor, 1), slot(actor, 2)) for actor }

move nobody_starts "Test: start the turn of nobody" § 2.2 [P24]
  by true
  do { start turn of first p in players where false }

move from_top "Test: the top discard onto a free slot" § 2.2 [P24]
  by true
  do { move top(discard_pile) to free_slot(actor, none) }

move mark_it "Test: mark a card" § 2.2 [P24]
  by true
  with target: slot
  do { mark moved card_at(target) }

move show_nothing "Test: show the top card of an empty pile" § 2.2 [P24]
  by true
  do { show top(under_pile) }

move park "Test: move a card to a free slot of the actor, if one is named" § 2.2 [P24]
  by true
  with target: slot, onto: free_slot?
  do { move card_at(target) to onto }

move window_on_nothing "Test: open a window on the top card of an empty pile" § 2.2 [P24]
  by true
  do { open window "discard" on top(under_pile) for players }

move go_on_with_nobody "Test: continue an ability for nobody" § 2.2 [P24]
  by true
  do { continue decide_swap(slot(actor, 1), slot(actor, 2)) for first p in players where false }

move gift "Test: the top discard onto the BAO caller's tableau (a change no argument chose)" § 2.2 [P24]
  by true
  do { move top(discard_pile) to free_slot(bao_caller, none) }
"""

SMALL = """\
scenario "small"
table
  players alice bob
  alice: Spatz, _, Goldtukan
  bob: Flamingo, Kranich
  draw: Amsel
  discard: Specht, Meise
  active alice
  phase turn
play
"""


@pytest.fixture(scope="module")
def tested(tmp_path_factory: pytest.TempPathFactory) -> Engine:
    import shutil

    from baobei.language.paths import default_rules_dir

    target: Path = tmp_path_factory.mktemp("rules") / "rules"
    shutil.copytree(default_rules_dir(), target)
    (target / "98_test_moves.bao").write_text(TEST_MOVES, encoding="utf-8")
    return Engine(load_ruleset(target))


def run(eng: Engine, st: State, text: str) -> list[str]:
    return [e.text for e in eng.push(st, parse_move_text(eng.rules.moves, st, text))][1:]


def test_forget_leaves_nobody_knowing_the_card(tested: Engine) -> None:
    st = table(tested, SMALL.replace("  phase turn\n", "  phase turn\n  alice knows alice.1\n  bob knows alice.1\n"))
    spatz = st.card_at((0, 1))
    assert spatz is not None and st.known[spatz] == 0b11
    assert run(tested, st, "alice forget_it target=alice.1") == ["nobody can follow Spatz#1 any more"]
    assert st.known[spatz] == 0
    assert run(tested, st, "alice forget_it target=alice.2") == []  # no card: nothing happens


def test_cards_swap_only_between_slots(tested: Engine) -> None:
    st = table(tested, SMALL)
    assert run(tested, st, "alice swap_two one=alice.1 two=bob.2") == \
        ["the cards on alice.1 and bob.2 swap places"]
    assert st.facts.label(st.card_at((0, 1))) == "Kranich#1" and st.facts.label(st.card_at((1, 2))) == "Spatz#1"
    assert run(tested, st, "alice swap_two one=alice.1 two=alice.1") == []  # a card with itself
    assert run(tested, st, "alice swap_two one=alice.2 two=alice.1") == []  # a free slot: nothing
    with pytest.raises(EngineError, match="only cards on slots can swap places"):
        tested.push(st, parse_move_text(tested.rules.moves, st, "alice swap_top target=alice.1"))


def test_a_card_goes_only_where_there_is_room(tested: Engine) -> None:
    st = table(tested, SMALL)
    assert run(tested, st, "alice into_hand target=bob.1") == ["Flamingo#1 moves from bob.1 to alice's hand"]
    assert run(tested, st, "alice into_hand target=alice.3") == ["Goldtukan#1 moves from alice.3 to alice's hand"]
    with pytest.raises(EngineError, match="alice's hand holds 2 cards already"):  # the rules' `hand holds 2`
        tested.push(st, parse_move_text(tested.rules.moves, st, "alice into_hand target=bob.2"))
    assert run(tested, st, "alice onto target=alice.1 onto=alice.3") == ["Spatz#1 moves from alice.1 to alice.3"]
    with pytest.raises(EngineError, match=r"slot alice\.3 is not free"):
        tested.push(st, parse_move_text(tested.rules.moves, st, "alice onto target=bob.2 onto=alice.3"))
    with pytest.raises(EngineError, match=r"slot alice\.5 is not free"):
        tested.push(st, parse_move_text(tested.rules.moves, st, "alice onto target=bob.2 onto=alice.5"))
    # A number as a destination (`move c to slot_no(s)`) is refused when the rules load
    # (tests/test_rules_input.py), so no move of a loaded ruleset can give one.
    assert [st.facts.label(c) for c in st.cards_of(1)] == ["Kranich#1"]  # a refused move loses nothing
    assert run(tested, st, "alice onto target=bob.2 onto=alice.2") == ["Kranich#1 moves from bob.2 to alice.2"]
    assert run(tested, st, "alice onto target=alice.3 onto=alice.4") == ["Spatz#1 moves from alice.3 to alice.4"]
    assert st.tableaux[0] == [None, st.facts.by_label["Kranich#1"], None, st.facts.by_label["Spatz#1"]]


def test_a_card_out_of_play_comes_from_the_box(tested: Engine) -> None:
    st = table(tested, SMALL)
    first = next(c for c in st.deck() if c in st.box)
    assert run(tested, st, "alice from_box") == [f"{st.facts.label(first)} moves from the box to under pile"]
    assert first not in st.box and st.piles[tested.pile_index["under_pile"]] == [first]


def test_a_mark_is_told_and_kept(tested: Engine) -> None:
    st = table(tested, SMALL)
    assert run(tested, st, "alice mark_it target=bob.1") == ["Flamingo#1 is marked moved"]
    assert st.is_marked(st.facts.by_label["Flamingo#1"], "moved")
    assert not st.is_marked(st.facts.by_label["Kranich#1"], "moved")


def test_what_only_an_ability_or_a_player_can_do_is_an_error_elsewhere(tested: Engine) -> None:
    """The rules' error names the statement's place (file:line:column), not only its rule."""
    st = table(tested, SMALL)
    with pytest.raises(EngineError, match=r"\.bao:\d+:\d+: go_on: `continue` goes on with an ability; this rule is no"):
        tested.push(st, Move(0, "go_on"))
    with pytest.raises(EngineError, match=r"\.bao:\d+:\d+: nobody_starts: no player to start the turn"):
        tested.push(st, Move(0, "nobody_starts"))


def test_the_top_card_of_a_pile_moves_from_the_pile(tested: Engine) -> None:
    st = table(tested, SMALL)
    assert run(tested, st, "alice from_top") == ["Meise#1 moves from discard pile to alice.2"]
    assert [st.facts.label(c) for c in st.piles[tested.pile_index["discard_pile"]]] == ["Specht#1"]


def test_a_statement_given_none_is_left_out(tested: Engine) -> None:
    # A none card, place or player is how an impossible part of an effect is left out: nothing changes.
    st = table(tested, SMALL)
    before = tested.state_to_json(st)
    for text in ("alice show_nothing", "alice park target=alice.2 onto=alice.2", "alice park target=alice.1",
                 "alice window_on_nothing", "alice go_on_with_nobody"):
        assert run(tested, st, text) == [], text
        assert tested.state_to_json(st) == before, text


def test_a_change_of_a_protected_tableau_no_argument_chose_is_left_out_and_told(tested: Engine) -> None:
    st = table(tested, SMALL.replace("  phase turn\n", "  phase turn\n  set bao_caller = bob\n  set shield = active\n"))
    assert st.protected == 0b10
    discard = list(st.piles[tested.pile_index["discard_pile"]])
    assert run(tested, st, "alice gift") == \
        ["bob's tableau is protected (shield): this change is impossible and left out"]
    assert [st.facts.label(c) for c in st.cards_of(1)] == ["Flamingo#1", "Kranich#1"]
    assert st.piles[tested.pile_index["discard_pile"]] == discard
    assert run(tested, st, "bob gift") == ["Meise#1 moves from discard pile to bob.3"]  # the owner's own change


def test_a_card_in_no_place_cannot_move(tested: Engine) -> None:
    st = table(tested, SMALL)
    lost = next(c for c in st.deck() if c in st.box)
    st.box.remove(lost)  # in no place at all: no rule can do this
    with pytest.raises(EngineError, match=f"^card {lost} is nowhere$"):
        tested.push(st, Move(0, "from_box"))
