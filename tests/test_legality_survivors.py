"""What legality.py, sampling.py and protection.py do where no other test looked, found by mutation testing
(tools/mutation.py, issue 11): each test pins one behaviour that a surviving mutant of these modules changed.
The argument kinds a check refuses (a player outside the seats or not a number, a held card below the first id),
an optional argument of an ability's step left out, the number of argument tuples each move weighs in random
play, the 64 rejected draws random play makes before it lists the legal moves, a protected tableau that does not
make random play give up sampling a move that is no step, the initial peek random play offers every player, a
halt that names no phase, an argument named like the engine's `source`, a waiting ability's guard that reads its
card, and the frozen engine guard the sampler calls while a tableau is protected."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest
from baobei.engine.engine import Engine
from baobei.engine.move import Move
from baobei.engine.notation import parse_move_text
from baobei.engine.sampling import Sizes, WhenProtected
from baobei.engine.state import State
from conftest import ELSTER_VS_SHIELD, EXCHANGE, Edit, table_state, variant_engine


def play(eng: Engine, st: State, *texts: str) -> None:
    for text in texts:
        eng.push_checked(st, parse_move_text(eng.rules.moves, st, text))


# alice's discarded Riesentukan leaves her `add_card` waiting (a `player` argument).
RIESENTUKAN = """\
scenario "a Riesentukan waits"
table
  players alice bob
  alice: Amsel, Kranich, Star, Meise, Spatz
  bob: Flamingo, Specht, Rotkehlchen, Star, Meise
  draw: Riesentukan, Weisspelikan, Star
  discard: Specht
  active alice
play
"""

def riesentukan_waits(eng: Engine) -> State:
    st = table_state(eng, RIESENTUKAN)
    play(eng, st, "alice draw", "alice discard")
    assert [(w.ability, w.owner) for w in st.waiting] == [("add_card", 0)]
    return st


def exchange_waits(eng: Engine) -> State:
    st = table_state(eng, EXCHANGE)
    play(eng, st, "bob draw", "bob discard", "bob double_exchange")
    assert [(w.ability, w.owner) for w in st.waiting] == [("exchange_cards", 1)]
    return st


# ---------------------------------------------------------------- argument kinds (legality.py:696-701)
@pytest.mark.parametrize("victim", [-1, 2, "bob", None.__class__, 1.0, True])
def test_a_player_argument_must_be_a_seat_number(default_engine: Engine, victim: Any) -> None:
    st = riesentukan_waits(default_engine)
    rejection = default_engine.check(st, Move(0, "add_card", (("victim", victim),)))
    assert rejection is not None
    assert (rejection.rule, rejection.reason) == ("add_card", "argument 'victim' must be a player")
    assert default_engine.check(st, Move(0, "add_card", (("victim", 1),))) is None


@pytest.mark.parametrize("card", [-1, True, "Amsel"])
def test_a_held_card_argument_must_be_a_card_id(default_engine: Engine, card: Any) -> None:
    st = exchange_waits(default_engine)
    held = list(st.hands[1])
    args = (("own_card", card), ("own", (1, 1)), ("other_card", held[1]), ("other", (0, 2)))
    rejection = default_engine.check(st, Move(1, "exchange_cards", args))
    assert rejection is not None
    assert (rejection.rule, rejection.reason) == ("exchange_cards", "argument 'own_card' must be a held card")


# ---------------------------------------------------------------- an ability's omitted optional argument (:325)
def test_an_ability_checks_and_runs_with_its_optional_arguments_left_out(default_engine: Engine) -> None:
    """An omitted optional argument is `none` for the guards and the body of an ability's step as well."""
    eng = default_engine
    st = exchange_waits(eng)
    held = list(st.hands[1])
    only_own = Move(1, "exchange_cards", (("own_card", held[0]), ("own", (1, 1))))
    rejection = eng.check(st, only_own)
    assert rejection is not None
    assert rejection.reason.startswith("the exchange with another player is possible, so it is made")
    full = Move(1, "exchange_cards", (("own_card", held[0]), ("own", (1, 1)), ("other_card", held[1]),
                                      ("other", (0, 2))))
    assert eng.check(st, full) is None


# ---------------------------------------------------------------- weights (sampling.py:90, :119)
def test_each_move_weighs_the_number_of_its_argument_tuples(default_engine: Engine) -> None:
    eng = default_engine
    st = exchange_waits(eng)
    sizes = Sizes(st.tableaux, st.hands, len(st.names))
    own, total, free = 3, 9, 0
    assert [len(row) - row.count(None) for row in st.tableaux] == [3, 3, 3] and len(st.hands[1]) == 2
    assert eng.moves["draw"].weight(sizes, 1) == 1
    assert eng.moves["keep"].weight(sizes, 1) == own
    assert eng.moves["pluck"].weight(sizes, 1) == total * (own + 1) * (free + 1)
    assert eng.moves["add_card"].weight(sizes, 1) == 3  # the players
    assert eng.moves["decide_swap"].weight(sizes, 1) == 2  # a bool
    assert eng.moves["exchange_cards"].weight(sizes, 1) == (2 + 1) * (own + 1) * (2 + 1) * (total + 1)


# ---------------------------------------------------------------- the sampler's engine guards (sampling.py:27)
def test_the_guard_the_sampler_calls_while_a_tableau_is_protected_is_a_frozen_value() -> None:
    def guard(st: State, *values: Any) -> bool:
        return True

    held = WhenProtected(guard)
    assert held == WhenProtected(guard) and hash(held) == hash(WhenProtected(guard))
    with pytest.raises(dataclasses.FrozenInstanceError):
        held.guard = guard  # type: ignore[misc]


# ---------------------------------------------------------------- random play (legality.py:46, :484-:499)
# alice's shield is active in bob's last turn; bob draws no Elster here.
SHIELDED = ELSTER_VS_SHIELD.replace("draw: Elster, Specht, Star", "draw: Specht, Star, Kranich")


def test_random_play_lists_the_legal_moves_after_64_rejected_draws(default_engine: Engine,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """With every draw of arguments refused, random play draws 64 times (SAMPLING_TRIES), then chooses
    among the legal moves listed."""
    eng = default_engine
    st = table_state(eng, RIESENTUKAN)
    draws: list[str] = []
    for cm in eng.moves.values():
        def refused(st: State, drawn: tuple[Any, ...], rnd: Any, name: str = cm.name) -> None:
            draws.append(name)
        monkeypatch.setattr(cm, "sample", refused)
    move = eng.random_move(st, random.Random(3))
    assert len(draws) == 64
    assert move is not None and eng.is_legal(st, move)
    assert move in set(eng.legal_moves(st))


def test_a_protected_tableau_leaves_random_play_sampling_moves_that_are_no_step(
        default_engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    """Only a step of an ability is tried on a copy against the protection: any other sampled move is taken
    as drawn, without listing every legal move."""
    eng = default_engine
    st = table_state(eng, SHIELDED)
    assert st.protected == 1  # alice's tableau

    def listed(*args: Any) -> Any:
        raise AssertionError("random play listed the legal moves")

    monkeypatch.setattr(eng, "moves_of", listed)
    for seed in range(10):
        move = eng.random_move(st, random.Random(seed))
        assert move is not None and move.player == 1 and move.name in ("draw", "take")
        assert eng.is_legal(st, move)


# Plucking only in the turn's phases: in the initial peek the others then have moves, none of them a call.
IN_TURNS = 'require phase == "turn" or phase == "drawn" or phase == "turn_end" else "test: plucks only in turns"'
TURN_PLUCKS: tuple[Edit, ...] = (
    ("04_pluck.bao", "  with target: slot, gift: own_slot?, place: free_slot?\n",
     "  with target: slot, gift: own_slot?, place: free_slot?\n"
     f"  {IN_TURNS} § 3.2 [P45]\n"),
    ("04_pluck.bao", "  with target1: slot, target2: slot, gift1: own_slot?, gift2: own_slot?, place: free_slot?\n",
     "  with target1: slot, target2: slot, gift1: own_slot?, gift2: own_slot?, place: free_slot?\n"
     f"  {IN_TURNS} § 3.6 [P76]\n"),
)


def test_random_play_offers_the_initial_peek_to_every_player_with_no_window_open(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    """A phase in which the others have moves that need no window (the initial peek) lets them act: random play
    draws their moves too, here with no call in the phase to give them moves."""
    eng = variant_engine(tmp_path_factory, *TURN_PLUCKS)
    assert eng.moves["pluck"].phases == frozenset({"turn", "drawn", "turn_end"})
    st, _ = eng.new_match(["alice", "bob", "carol"], 5, log=False)
    assert st.phase == "peek" and not st.windows
    rng = random.Random(2)
    for player in (0, 1, 2):
        move = eng.random_move(st, rng, player=player)
        assert move is not None and (move.player, move.name) == (player, "look")
        assert eng.is_legal(st, move)
    assert {m.player for m in (eng.random_move(st, rng) for _ in range(30)) if m is not None} == {0, 1, 2}


# ---------------------------------------------------------------- halts (legality.py:241)
NO_PHASE_HALT = """
halt last_card "Test: with one card left to draw, the turn may only end" § 2.2 [P24]
  when size(draw_pile) < 2 allow end_turn
"""


def test_a_halt_that_names_no_phase_holds_in_any_phase(tmp_path_factory: pytest.TempPathFactory) -> None:
    eng = variant_engine(tmp_path_factory, extra=NO_PHASE_HALT)
    st = table_state(eng, RIESENTUKAN.replace("draw: Riesentukan, Weisspelikan, Star", "draw: Star"))
    assert st.phase == "turn"
    halt = eng.halt(st)
    assert halt is not None and halt.name == "last_card"
    rejection = eng.check(st, Move(0, "draw"))
    assert rejection is not None and rejection.rule == "halt last_card"
    assert rejection.reason == "Test: with one card left to draw, the turn may only end"
    assert list(eng.legal_moves(st)) == []


# ---------------------------------------------------------------- the names a move's guards see (legality.py:106)
POINT_AT_SOURCE = """
move point "Test: point at a slot, with an argument named as the engine's source" § 2.2 [P24]
  by true
  with source: slot
  require occupied(source) else "test: an occupied slot" § 2.2 [P24]
  do { }
"""


def test_an_argument_named_source_replaces_the_engines_name_in_generation(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    eng = variant_engine(tmp_path_factory, extra=POINT_AT_SOURCE)
    assert eng.moves["point"].names == ("actor", "source")
    st = table_state(eng, RIESENTUKAN)
    points = [m for m in eng.legal_moves(st, 1) if m.name == "point"]
    assert [m.args for m in points] == [(("source", (p, i)),) for p in (0, 1) for i in range(1, 6)]
    rng = random.Random(4)
    drawn = {eng.random_move(st, rng, player=1) for _ in range(40)}
    assert drawn and all(m is not None and eng.is_legal(st, m) for m in drawn)
    assert all(m in points for m in drawn if m is not None and m.name == "point")


# The Weisspelikan's peek reads its own card (`source`, the card whose ability waits) in a guard.
PEEK_READS_SOURCE: Edit = (
    "05_abilities.bao", '  require occupied(target) else "choose a face-down card on the table" § 6.3 [P127]\n',
    '  require occupied(target) else "choose a face-down card on the table" § 6.3 [P127]\n'
    '  require source != none else "test: the ability of a card" § 6.3 [P127]\n')

PEEK_WAITS = """\
scenario "alice's discarded Weisspelikan waits"
table
  players alice bob
  alice: Amsel, Kranich
  bob: Flamingo, Specht
  draw: Weisspelikan, Star
  discard: Specht
  active alice
play
"""


def test_a_waiting_abilitys_guards_see_its_card_in_generation_and_random_play(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    eng = variant_engine(tmp_path_factory, PEEK_READS_SOURCE)
    st = table_state(eng, PEEK_WAITS)
    play(eng, st, "alice draw", "alice discard")
    assert [(w.ability, w.owner) for w in st.waiting] == [("peek", 0)]
    peeks = [Move(0, "peek", (("target", (p, i)),)) for p in (0, 1) for i in (1, 2)]
    assert all(eng.check(st, m) is None for m in peeks)
    assert list(eng.legal_moves(st, 0)) == peeks
    assert eng.random_move(st, random.Random(1), player=0) in peeks
    assert eng.random_move_by_kind(st, random.Random(1), player=0) in peeks
