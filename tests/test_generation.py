"""Move generation: arguments one at a time with early guards, and uniform random moves."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from baobei.engine.engine import Engine
from baobei.engine.legality import _first_of_species_drawn
from baobei.engine.move import Move
from baobei.engine.runtime import Ctx
from baobei.engine.state import State
from baobei.language.load import load_ruleset
from baobei.scenarios.parser import parse_scenario_text
from baobei.scenarios.runner import run_scenario
from conftest import MakeVariant

QUAD = """
move quad "Choose four slots: two own, then two of others" § 1.1 [P1]
  by true
  with a: slot, b: slot, c: slot, d: slot
  require owner(a) == actor else "a is own" § 1.1 [P1]
  require owner(b) == actor and b != a else "b is own and not a" § 1.1 [P1]
  require owner(c) != actor else "c is another's" § 1.1 [P1]
  require owner(d) != actor and d != c else "d is another's and not c" § 1.1 [P1]
  do { }
"""


def quad_engine(make_variant: MakeVariant) -> Engine:
    rules = make_variant()
    (rules / "95_quad.bao").write_text(QUAD, encoding="utf-8")
    return Engine(load_ruleset(rules))


def counting(fn: Callable[[Ctx], Any], calls: list[int]) -> Callable[[Ctx], Any]:
    def counted(ctx: Ctx) -> Any:
        calls[0] += 1
        return fn(ctx)

    return counted


def test_each_guard_is_checked_as_soon_as_its_arguments_are_chosen(make_variant: MakeVariant) -> None:
    eng = quad_engine(make_variant)
    st, _ = eng.new_match(["alice", "bob"], 1, log=False)  # five cards each: ten slots
    cm = eng.moves["quad"]
    calls = [0]
    cm.levels = [[counting(fn, calls) for fn in level] for level in cm.levels]
    found = list(eng.moves_of(st, 0, cm))
    assert len(found) == 5 * 4 * 5 * 4
    # Level by level: 10 values of a, 5 kept x 10 of b, 20 x 10 of c, 100 x 10 of d.
    assert calls[0] == 10 + 50 + 200 + 1000, calls[0]
    assert calls[0] < 10 ** 4  # far below the product of the four domains
    # The same moves as checking every combination of the product.
    slots = eng.domain(st, "slot", 0)
    brute = {Move(0, "quad", tuple(zip("abcd", combo, strict=True)))
             for combo in itertools.product(slots, repeat=4)}
    assert {m for m in brute if eng.check(st, m) is None} == set(found)


DISCARDED = """\
scenario "a discard open to plucks"
table
  players alice bob carol
  alice: Spatz, Amsel
  bob: Kranich, _, Star
  carol: Meise
  draw: Rotkehlchen, Specht
  discard: Ara
  active alice
play
  alice draw
  alice discard
"""


def chi_square(counts: Counter[Any], expected: float) -> float:
    return sum((n - expected) ** 2 / expected for n in counts.values())


def test_random_moves_are_uniform_over_the_legal_moves(default_engine: Engine) -> None:
    result = run_scenario(parse_scenario_text(DISCARDED, "uniform.scenario"), default_engine)
    assert result.passed and result.state is not None
    st = result.state
    legal = list(default_engine.legal_moves(st))
    assert 15 <= len(legal) <= 80 and len({m.player for m in legal}) == 3
    rng = random.Random(7)
    draws = 300 * len(legal)
    counts: Counter[Move] = Counter(default_engine.random_move(st, rng) for _ in range(draws))
    assert set(counts) == set(legal)  # every legal move is drawn, nothing else
    # Chi-square with len(legal) - 1 degrees of freedom: its mean is about len(legal); a sampler that
    # favoured a player or a move kind would be far above (a few hundred here).
    assert chi_square(counts, draws / len(legal)) < 2 * len(legal) + 30


def test_rejection_sampling_falls_back_to_enumeration(default_engine: Engine) -> None:
    result = run_scenario(parse_scenario_text(DISCARDED, "uniform.scenario"), default_engine)
    st = result.state
    assert st is not None
    legal = set(default_engine.legal_moves(st))
    rng = random.Random(3)
    # With no sampling tries left, every move comes from the enumeration, still only legal ones.
    moves = {default_engine.random_move(st, rng, tries=0) for _ in range(12 * len(legal))}
    assert moves == legal


# bob's Schuhschnabel draws two Amsel: one exchange may use either card, both exchanges use both.
TWO_OF_A_KIND = """\
scenario "a Schuhschnabel exchange with two held cards of one species"
table
  players alice bob
  alice: Spatz, Kranich, Meise
  bob: Flamingo, Specht, Star
  draw: Schuhschnabel, Amsel, Amsel, Kranich, Star
  discard: Rotkehlchen
  active bob
play
  bob draw
  bob discard
  bob double_exchange
  expect pending exchange_cards for bob
  expect bob holds Amsel
"""


@pytest.fixture
def two_of_a_kind(default_engine: Engine) -> State:
    """The state of TWO_OF_A_KIND: bob's exchange pending, two Amsel in his hand."""
    result = run_scenario(parse_scenario_text(TWO_OF_A_KIND, "two_of_a_kind.scenario"), default_engine)
    assert result.passed and result.state is not None, result.failure
    return result.state


def test_the_sampler_pairs_two_held_cards_of_one_species_as_the_enumeration_does(
        default_engine: Engine, two_of_a_kind: State) -> None:
    """A held card is named by its species: of two alike, the first not chosen earlier in the move stands for
    both. The sampler draws the moves that use both (the second Amsel for the second exchange), all of the
    enumeration's and as often as each other."""
    st = two_of_a_kind
    legal = [m for m in default_engine.legal_moves(st) if m.player == 1]
    both = [m for m in legal if dict(m.args).get("own_card") is not None and dict(m.args).get("other_card") is not None]
    assert both and all(dict(m.args)["own_card"] != dict(m.args)["other_card"] for m in both)
    rng = random.Random(11)
    draws = 200 * len(legal)
    counts: Counter[Move] = Counter(default_engine.random_move(st, rng, player=1) for _ in range(draws))
    assert set(counts) == set(legal)
    assert chi_square(counts, draws / len(legal)) < 2 * len(legal) + 30


def test_the_drawn_held_card_is_the_first_of_its_species_not_chosen_before(two_of_a_kind: State) -> None:
    """The sampler's test of a drawn held card, alone: with one Amsel chosen for the first exchange, the
    second Amsel (not the first again) is the one that stands for the species in the second."""
    st = two_of_a_kind
    first, second = st.hands[1]
    names = ("actor", "own_card", "other_card")
    canonical = _first_of_species_drawn(names, ["own_card", "other_card"], [0, 1], 1)
    assert canonical(st, 1, first, second) and canonical(st, 1, None, first)
    assert not canonical(st, 1, first, first) and not canonical(st, 1, None, second)
    assert canonical(st, 1, first, None)  # no second card chosen
