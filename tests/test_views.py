"""A policy reads its player's view, and the view holds no card that player does not know.

The proof: take states of real play, and for each seat make another state that differs from it only in
the cards that seat has not seen (they are shuffled among their places, each keeping who knows it and its
marks). The two views are equal, byte for byte, and every policy chooses the same move in both: nothing
a policy is given depends on a hidden card. And no hidden card's own number is anywhere in the view.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from baobei.engine.engine import Engine
from baobei.engine.state import State
from baobei.play.policies import make_policy, policy_names
from baobei.play.view import BLANK, ViewMaker, map_cards


@pytest.fixture(scope="module")
def maker(default_engine: Engine) -> ViewMaker:
    return ViewMaker(default_engine)


def played_states(eng: Engine, players: int, seed: int, every: int = 7, count: int = 12) -> list[State]:
    """States of one seeded random match, every `every` moves."""
    st, _ = eng.new_match([f"p{i + 1}" for i in range(players)], seed, log=False)
    rng = random.Random(seed)
    out = []
    for step in range(every * count):
        move = eng.random_move(st, rng)
        if move is None:
            break
        eng.push_generated(st, move)
        if step % every == 0:
            out.append(st.copy())
    return out


def relabelled(maker: ViewMaker, st: State, seat: int, rng: random.Random) -> State:
    """`st` with the cards `seat` does not know shuffled among their places (with who knows each, its marks)."""
    data = st.to_json()
    hidden = [c for c in range(len(data["known"])) if not data["known"][c] >> seat & 1]
    shuffled = hidden[:]
    rng.shuffle(shuffled)
    sigma = dict(zip(hidden, shuffled, strict=True))
    out = map_cards(data, lambda c: sigma.get(c, c), maker.card_args, maker.card_vars)
    for ledger in ("known", "marks"):
        out[ledger] = list(data[ledger])
        for c, d in sigma.items():
            out[ledger][d] = data[ledger][c]
    return State.from_json(out, maker.eng.facts, maker.eng.pile_locs)


def placed_cards(data: dict[str, Any]) -> list[int]:
    """Every card a state's JSON names in a place, a window or a waiting ability."""
    cards = [c for row in data["tableaux"] for c in row if c is not None]
    cards += [c for pile in data["piles"] + data["hands"] for c in pile] + list(data["box"])
    return cards + [w[1] for w in data["windows"]] + [w[1] for w in data["waiting"]]


def test_views_of_tables_that_differ_only_in_hidden_cards_are_equal(maker: ViewMaker) -> None:
    rng = random.Random(5)
    differed = 0
    for players, seed in ((2, 1), (4, 2), (6, 3)):
        for st in played_states(maker.eng, players, seed):
            for seat in range(players):
                other = relabelled(maker, st, seat, rng)
                differed += maker.eng.state_to_json(other) != maker.eng.state_to_json(st)
                assert json.dumps(maker.view_json(st, seat)) == json.dumps(maker.view_json(other, seat))
    assert differed > 50  # the hidden cards really moved: the test could fail


def test_no_hidden_card_is_in_a_view(maker: ViewMaker) -> None:
    deck = len(maker.eng.facts)
    for st in played_states(maker.eng, 4, 7):
        data = st.to_json()
        for seat in range(4):
            view = maker.view_json(st, seat)
            for card in placed_cards(view):
                if card < deck:
                    assert data["known"][card] >> seat & 1, f"seat {seat} sees {maker.eng.facts.label(card)}"
            blanks = [c for c in placed_cards(view) if c >= deck]
            assert blanks, "every seat has cards it has not seen"
            state = maker.view(st, seat).state
            assert {state.facts.species[c] for c in blanks} == {BLANK}
            assert all(state.facts.value[c] is None for c in blanks)


def test_a_view_says_nothing_of_the_shuffles_to_come(maker: ViewMaker) -> None:
    first = played_states(maker.eng, 3, 1)[1]
    second = first.copy()
    second.rng.random()  # the same table, with other shuffles to come
    assert first.rng_state() != second.rng_state()
    assert maker.view_json(first, 0) == maker.view_json(second, 0)


@pytest.mark.parametrize("name", ["random", "kinds", "memory", "take_only"])
def test_every_policy_chooses_the_same_from_indistinguishable_tables(maker: ViewMaker, name: str) -> None:
    assert name in policy_names(maker.engine)
    policy = make_policy(name, maker.engine)
    rng = random.Random(11)
    chosen = 0
    for players, seed in ((3, 4), (5, 5)):
        for st in played_states(maker.eng, players, seed, every=5):
            for seat in range(players):
                other = relabelled(maker, st, seat, rng)
                a = policy.choose(maker.view(st, seat, forced=True), random.Random(seat))
                b = policy.choose(maker.view(other, seat, forced=True), random.Random(seat))
                assert a == b
                chosen += a is not None
    assert chosen > 10
