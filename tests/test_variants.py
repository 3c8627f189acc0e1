"""Rules variants: an edited copy of rules/ changes the game with no Python edit.

Each variant is compared against the default rules on the same input, so a test
shows the change the edit makes, not just a number.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from baobei.cli import main
from baobei.engine.engine import Engine
from baobei.language.errors import EngineError, ScenarioError
from baobei.language.load import load_ruleset
from baobei.language.paths import default_rules_dir
from baobei.scenarios.parser import parse_scenario_text
from baobei.scenarios.runner import ScenarioResult, run_scenario
from variants import (
    BAO_MIN_SEVEN,
    FACE_DOWN_DISCARD,
    ONE_FAMILY,
    RENAMED_PHASE,
    SEAT_ORDER,
    SIX_CARDS,
    STEAL,
    THRESHOLD_30,
    TRIBUTE,
    TWO_ATTEMPTS,
    TWO_HELD,
)

MakeVariant = Callable[..., Path]  # the make_variant fixture of conftest.py


def engine(directory: Path) -> Engine:
    return Engine(load_ruleset(directory))


def replay(text: str, eng: Engine) -> ScenarioResult:
    return run_scenario(parse_scenario_text(text, "variant.scenario"), eng)


# ---------------------------------------------------------------- (a) hand size



@pytest.mark.parametrize("seed", [1, 2, 3])
def test_six_cards_each_for_two_players(make_variant: MakeVariant, default_engine: Engine, seed: int) -> None:
    variant = engine(make_variant(*SIX_CARDS))
    st, _ = variant.new_match(["alice", "bob"], seed)
    assert [len(st.cards_of(p)) for p in range(2)] == [6, 6]
    default, _ = default_engine.new_match(["alice", "bob"], seed)
    assert [len(default.cards_of(p)) for p in range(2)] == [5, 5]
    # The deck is unchanged: the extra cards come out of the draw pile.
    draw = variant.pile_index["draw_pile"]
    assert len(st.piles[draw]) == len(default.piles[draw]) - 2


def test_six_cards_leave_other_player_counts_alone(make_variant: MakeVariant, default_engine: Engine) -> None:
    variant = engine(make_variant(*SIX_CARDS))
    st, _ = variant.new_match(["a", "b", "c"], 1)
    default, _ = default_engine.new_match(["a", "b", "c"], 1)
    assert [len(st.cards_of(p)) for p in range(3)] == [len(default.cards_of(p)) for p in range(3)]


# ---------------------------------------------------------------- (b) BAO failure minimum

# alice calls BAO with a round value of 2 (a single Meise) against bob's 1: the call fails.
FAILED_BAO = """\
scenario "A failed BAO with round value 2"
cites § 5.1 [P106]

table
  players alice bob
  alice: Meise
  bob: Spatz
  draw: Flamingo, Kranich
  discard: Specht
  active alice
  phase turn_end

play
  alice bao
  expect active bob
  bob draw
  bob discard
  bob end_turn
  expect phase round_over
  expect noted[bob] = 1
  expect noted[alice] = {noted}
"""


def test_bao_failure_minimum_of_seven(make_variant: MakeVariant, default_engine: Engine) -> None:
    variant = engine(make_variant(*BAO_MIN_SEVEN))
    assert replay(FAILED_BAO.format(noted=7), variant).passed
    assert replay(FAILED_BAO.format(noted=5), default_engine).passed
    failed = replay(FAILED_BAO.format(noted=7), default_engine)
    assert failed.failure is not None
    assert "expected noted[alice] = 7, actual 5" in failed.failure.message


# ---------------------------------------------------------------- (c) one family for Spatz and Meise

# alice draws a Spatz and plucks her own Meise with it.
SPATZ_ON_MEISE = """\
scenario "A Spatz reference on a Meise target"
cites § 3.1 [P40]

table
  players alice bob
  alice: Meise, Amsel, Kranich
  bob: Flamingo, Specht, Ara
  draw: Spatz, Star
  discard: Specht
  active alice

play
  alice draw
  alice pluck target=alice.1
  expect phase turn_end
  expect discard top is Meise
  expect alice.1 is empty
  expect alice cards 2
"""

def test_spatz_and_meise_one_family(make_variant: MakeVariant, default_engine: Engine) -> None:
    variant = engine(make_variant(*ONE_FAMILY))
    result = replay(SPATZ_ON_MEISE, variant)
    assert result.passed, result.failure
    assert result.state is not None and result.state.pvars["noted"] == [0, 0]
    default = replay(SPATZ_ON_MEISE, default_engine)
    assert default.failure is not None
    # With the default deck the pluck fails: the Meise stays and is shown.
    st = default.state
    assert st is not None
    meise = st.card_at((0, 1))
    assert meise is not None and default_engine.facts.species[meise] == "Meise"
    assert st.knows(1, meise)  # a failed pluck shows the target to everyone
    assert default.failure.message == "expected the top of the discard pile to be Meise, actual Spatz"


# ---------------------------------------------------------------- (d) threshold 30 for three players

# carol calls BAO; alice (total 25) then scores a round of 6 (a Specht) and bob plays last.
THRESHOLD = """\
scenario "A total of 31 against a threshold"
cites § 5.2 [P115]

table
  players alice bob carol
  alice: Specht
  bob: Star
  carol: Spatz
  draw: Flamingo, Kranich, Ara
  discard: Amsel
  active carol
  phase turn_end
  set total[alice] = 25

play
  carol bao
  alice draw
  alice discard
  alice end_turn
  bob draw
  bob discard
  bob end_turn
  expect total[alice] = 31
  expect phase {phase}
"""



def test_threshold_of_thirty_for_three_players(make_variant: MakeVariant, default_engine: Engine) -> None:
    variant = engine(make_variant(*THRESHOLD_30))
    ended = replay(THRESHOLD.format(phase="match_over"), variant)
    assert ended.passed, ended.failure
    assert ended.state is not None and ended.state.vars["match_over"] is True
    assert replay(THRESHOLD.format(phase="round_over"), default_engine).passed
    assert not replay(THRESHOLD.format(phase="match_over"), default_engine).passed


# ---------------------------------------------------------------- the command line on a variant


def test_check_on_a_variant_through_the_cli(make_variant: MakeVariant, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    variant = make_variant(*THRESHOLD_30)
    scenario = tmp_path / "threshold.scenario"
    scenario.write_text(THRESHOLD.format(phase="match_over"), encoding="utf-8")
    assert main(["check", "--rules", str(variant), str(scenario)]) == 0
    assert "1 passed, 0 failed" in capsys.readouterr().out
    assert main(["check", "--rules", str(default_rules_dir()), str(scenario)]) == 1
    out = capsys.readouterr().out
    assert "0 passed, 1 failed" in out and "expected phase match_over, actual round_over" in out


def test_rules_command_on_a_variant(make_variant: MakeVariant, default_engine: Engine,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    spatz = "card Spatz         value 1  count "
    variant = make_variant(("01_deck.bao", spatz + "5\n", spatz + "9\n"))
    assert main(["rules", "--rules", str(variant)]) == 0
    species = default_engine.rules.species
    assert f"{len(species)} species, {len(default_engine.facts) + 4} cards" in capsys.readouterr().out
    assert len(engine(variant).facts) == len(default_engine.facts) + 4


# ---------------------------------------------------------------- abilities, knowledge, the drawer

# alice draws a Weisspelikan and discards it: her peek is triggered while she has no cards.
PEEK_WITH_NO_CARDS = """\
scenario "A peek by a player with no cards"
table
  players alice bob
  alice: _
  bob: Kranich, Star
  draw: Weisspelikan, Meise
  discard: Specht
  active alice
play
  alice draw
  alice discard
"""

PEEK_NEEDS_OWN_CARDS = ("05_abilities.bao", "  require occupied(target) else \"choose a face-down card on the table\" "
                        "§ 6.3 [P127]", "  require size(cards(actor)) > 0 else \"variant\" § 6.3 [P127]\n"
                        "  require occupied(target) else \"choose a face-down card on the table\" § 6.3 [P127]")


def test_an_ability_whose_argument_free_guard_fails_has_no_effect(make_variant: MakeVariant,
                                                                   default_engine: Engine) -> None:
    # § 6.10 [P152]: nothing possible, no effect; the game must not wait for a move nobody can make.
    # It is judged once the window closes: the turn ends and nothing waits.
    variant = replay(PEEK_WITH_NO_CARDS + "  alice end_turn\n", engine(make_variant(PEEK_NEEDS_OWN_CARDS)))
    assert variant.passed and variant.state is not None
    assert variant.state.waiting == [] and variant.state.phase == "turn"
    default = replay(PEEK_WITH_NO_CARDS, default_engine)
    assert default.state is not None and [w.ability for w in default.state.waiting] == ["peek"]


KNOWN_DISCARD = """\
scenario "Everyone knows a discarded card"
table
  players alice bob
  alice: Spatz, Amsel
  bob: Kranich, Star
  draw: Meise
  discard: Specht
  active alice
play
  alice draw
  alice keep slot=alice.1
  alice end_turn
  # the Spatz alice replaced went face up to the discard; nobody had seen it before
  bob take slot=bob.1
  expect bob.1 is Spatz
  expect alice knows bob.1
"""


def test_knowledge_of_discards_comes_from_the_face_up_declaration(make_variant: MakeVariant,
                                                                  default_engine: Engine) -> None:
    assert replay(KNOWN_DISCARD, default_engine).passed
    variant = replay(KNOWN_DISCARD, engine(make_variant(*FACE_DOWN_DISCARD)))
    assert variant.failure is not None and "expected alice to know bob.1" in variant.failure.message


# bob plucks alice's discarded Weisspelikan; his peek (in this variant) draws a card into the
# target's tableau, which needs the second recycle: bob is the one who drew (D16), not carol.
DRAWER_IS_THE_ACTOR = """\
scenario "The player whose ability draws triggers the final phase"
table
  players alice bob carol
  alice: Spatz, Amsel
  bob: Weisspelikan, Star
  carol: Kranich, Rotkehlchen
  draw: Weisspelikan
  discard: Meise, Specht
  active alice
  set recycles = 1
play
  alice draw
  alice discard
  bob pluck target=bob.1
  bob peek target=carol.1
  expect final_phase = true
  expect carol cards 3
  expect owed[carol] = true
  expect owed[bob] = false
"""

PEEK_DRAWS = ("05_abilities.bao", "do { peek actor card_at(target) }",
              "do { draw into free_slot(owner(target), none) }")


def test_the_drawer_is_the_player_whose_ability_draws(make_variant: MakeVariant) -> None:
    result = replay(DRAWER_IS_THE_ACTOR, engine(make_variant(PEEK_DRAWS)))
    assert result.passed, result.failure


def test_a_decision_round_needs_table_rows_for_its_size(make_variant: MakeVariant) -> None:
    # Three to six players, no decision row for two: a tie of two cannot be dealt, and the engine says why.
    variant = engine(make_variant(("02_setup.bao", "players 2..6", "players 3..6"),
                                  ("02_setup.bao", "  2: 5     # two tied players\n", "")))
    st, _ = variant.new_match(["a", "b", "c"], 1, log=False)
    st.vars["deciding"] = True
    with pytest.raises(EngineError, match=r"'decision_hand_size' .* has no row for a round of 2 players"):
        variant.start_round(st, None, [0, 1])


def test_a_decision_round_deals_from_a_table_of_its_own(make_variant: MakeVariant, default_engine: Engine) -> None:
    """§ 5.3 [P117] gives the decision round's hand sizes itself: changing them leaves the normal deal alone,
    and changing the normal deal (SIX_CARDS) leaves the decision round alone."""
    def dealt(eng: Engine, deciding: bool) -> list[int]:
        st, _ = eng.new_match(["a", "b", "c"], 1, log=False)
        st.vars["deciding"] = deciding
        eng.start_round(st, None, [0, 2])
        return [len(st.cards_of(p)) for p in (0, 2)]

    decision_six = engine(make_variant(("02_setup.bao", "  2: 5     # two tied players\n", "  2: 6\n")))
    assert dealt(default_engine, True) == [5, 5] and dealt(decision_six, True) == [6, 6]
    assert dealt(default_engine, False) == dealt(decision_six, False) == [5, 5]
    assert dealt(engine(make_variant(*SIX_CARDS)), True) == [5, 5]


# ---------------------------------------------------------------- the game's vocabulary is rules data

TWO_CARDS_DRAWN = """\
scenario "Two cards drawn, one kept"
table
  players alice bob
  alice: Spatz, Amsel
  bob: Kranich, Star
  draw: Meise, Specht, Flamingo
  discard: Ara
  active alice
play
  alice draw
  expect alice holds Meise
  expect alice holds Specht
  alice keep card=Specht slot=alice.1
  expect alice.1 is Specht
  expect discard size 3
  expect discard top is Spatz
  expect alice holds nothing
  expect alice knows alice.1
"""


def test_a_hand_of_two_cards(make_variant: MakeVariant, default_engine: Engine) -> None:
    variant = replay(TWO_CARDS_DRAWN, engine(make_variant(*TWO_HELD)))
    assert variant.passed, variant.failure
    default = replay(TWO_CARDS_DRAWN, default_engine)
    assert default.failure is not None and "expected alice to hold Specht, actual Meise" in default.failure.message


RENAMED = """\
scenario "The end of a turn under another name"
table
  players alice bob
  alice: Spatz, Amsel
  bob: Kranich, Star
  draw: Meise, Specht
  discard: Ara
  active alice
play
  alice draw
  alice discard
  expect phase finish
  reject alice draw by § 2.1 [P18]
  alice end_turn
  expect active bob
"""


def test_another_set_of_phases(make_variant: MakeVariant, default_engine: Engine) -> None:
    variant = engine(make_variant(*RENAMED_PHASE))
    assert "finish" in variant.phases and "turn_end" not in variant.phases
    result = replay(RENAMED, variant)
    assert result.passed, result.failure
    with pytest.raises(ScenarioError, match="unknown phase 'finish'"):
        replay(RENAMED, default_engine)


SIMULTANEOUS = """\
scenario "Two calls at once"
table
  players alice bob carol
  alice: Spatz, Amsel
  bob: Kranich, Star
  carol: Spatz, Meise
  draw: Spatz, Specht
  discard: Ara
  active bob
play
  bob draw
  bob discard
  simultaneous
    alice pluck target=alice.1
    carol pluck target=carol.1
  end
  expect {winner}.1 is empty
"""


def test_the_order_of_simultaneous_calls_is_rules_data(make_variant: MakeVariant, default_engine: Engine) -> None:
    # Clockwise from bob, carol comes first; in seat order alice does.
    assert replay(SIMULTANEOUS.format(winner="carol"), default_engine).passed
    assert not replay(SIMULTANEOUS.format(winner="alice"), default_engine).passed
    assert replay(SIMULTANEOUS.format(winner="alice"), engine(make_variant(*SEAT_ORDER))).passed


def test_the_attempts_of_a_window_are_rules_data(make_variant: MakeVariant, default_engine: Engine) -> None:
    both = SIMULTANEOUS.format(winner="alice") + "  expect carol.1 is empty\n"
    assert replay(both, engine(make_variant(*TWO_ATTEMPTS))).passed
    assert not replay(both, default_engine).passed


NO_PEEK_POSSIBLE = """\
scenario "A peek with no face-down card anywhere"
table
  players alice bob
  alice: _
  bob: _
  draw: Weisspelikan, Meise
  discard: Specht
  active alice
play
  alice draw
  alice discard
  alice end_turn
  expect nothing pending
"""


def test_an_ability_without_choice_follows_the_no_choice_rule(make_variant: MakeVariant,
                                                               default_engine: Engine) -> None:
    result = replay(NO_PEEK_POSSIBLE, default_engine)
    assert result.passed, result.failure
    assert any("no legal choice" in e.text for entry in result.trace for e in entry.events)
    without = engine(make_variant(("05_abilities.bao", 'no choice "An ability with no legal choice has no effect"',
                                   '# no choice "An ability with no legal choice has no effect"')))
    failed = replay(NO_PEEK_POSSIBLE, without)
    assert failed.failure is not None and "declare `no choice" in failed.failure.message


# ---------------------------------------------------------------- invented abilities, no Python edit

# bob called BAO and alice's offensive pluck changed his tableau: the shield is active. alice then
# draws a Kranich and discards it; in the variant its ability takes a card.
STEAL_FROM_CALLER = """\
scenario "An invented ability meets the shield"
table
  players alice bob carol
  alice: Spatz, Amsel
  bob: Flamingo, Star
  carol: Meise, Specht
  draw: Kranich, Rotkehlchen
  discard: Ara
  active alice
  set bao_caller = bob
  set shield = active
play
  alice draw
  alice discard
  reject alice steal target=bob.1 by § 4.2 [P99]
  alice steal target=carol.1
  expect alice cards 3
  expect carol.1 is empty
  expect bob cards 2
"""


def test_an_invented_card_moving_ability_obeys_the_shield(make_variant: MakeVariant) -> None:
    result = replay(STEAL_FROM_CALLER, engine(make_variant(*STEAL)))
    assert result.passed, result.failure
    # Without the shield the same steal from bob is allowed.
    unshielded = STEAL_FROM_CALLER.replace("  set shield = active\n", "").replace(
        "  reject alice steal target=bob.1 by § 4.2 [P99]\n  alice steal target=carol.1\n  expect alice cards 3\n"
        "  expect carol.1 is empty\n  expect bob cards 2\n", "  alice steal target=bob.1\n  expect bob.1 is empty\n")
    free = replay(unshielded, engine(make_variant(*STEAL)))
    assert free.passed, free.failure


TRIBUTE_PLAY = """\
scenario "An invented ability in steps, one chosen by another player"
table
  players alice bob
  alice: Spatz, Amsel
  bob: Flamingo, Star
  draw: Kranich, Rotkehlchen
  discard: Ara
  active alice
play
  alice draw
  alice discard
  alice tribute giver=bob
  expect pending hand_over for bob
  # The step waits for bob only: alice's is refused by the step's own rule, not by the waiting rule.
  reject alice hand_over card=alice.1 by § 6.3 [P127]
  bob hand_over card=bob.2
  expect alice holds Star
  alice keep_or_bury held=Star keep_it=true
  expect alice.3 is Star
  expect bob.2 is empty
  expect nothing pending
  alice end_turn
"""


def test_an_invented_ability_in_steps_with_a_choice_by_another_player(make_variant: MakeVariant,
                                                                       default_engine: Engine) -> None:
    result = replay(TRIBUTE_PLAY, engine(make_variant(*TRIBUTE)))
    assert result.passed, result.failure
    with pytest.raises(ScenarioError, match="unknown move 'tribute'"):
        replay(TRIBUTE_PLAY, default_engine)
