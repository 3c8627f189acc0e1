"""The engine's API, layer by layer: values in words, states, rejections, legal-move listing and random
play, expressions (indexing), invariants and progress.

Written against `Engine`, `State`, `Move` and the scenario language's tables (no private helper), so that
they survive a restructuring of the engine's internals; mutation testing found these untested (issue 11).
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import random
from typing import Any

import pytest
from baobei.engine.engine import Engine, invariant_message, progress_message
from baobei.engine.move import Move
from baobei.engine.notation import parse_move_text
from baobei.engine.state import State, Waiting, Window
from baobei.language.errors import BaoError, EngineError, IllegalMove, Rejection
from baobei.language.load import load_ruleset
from baobei.language.source import Pos
from baobei.scenarios.expectations import compile_probe
from baobei.scenarios.parser import parse_scenario_text
from conftest import ELSTER_VS_SHIELD, EXCHANGE, NO_CHOICE, MakeVariant, table_state

HERE = Pos("units", 1, 1)

TABLE = """\
scenario "engine units"
table
  players alice bob carol
  alice: Spatz, _, Goldtukan
  bob: Flamingo, Kranich
  carol: Weisspelikan
  draw: Amsel, Star
  discard: Specht, Meise
  active bob
play
"""


def table(eng: Engine, text: str = TABLE) -> State:
    return table_state(eng, text)


def evaluate(eng: Engine, st: State, text: str) -> Any:
    fn, _ = compile_probe(eng, st, text, HERE)
    return eng.evaluate(st, fn, {name: i for i, name in enumerate(st.names)})


def snapshot(eng: Engine, st: State) -> str:
    return eng.state_to_json(st)


# ---------------------------------------------------------------- indexing (a real gap)
@pytest.mark.parametrize(("text", "expected"), [
    ("players[0]", 0),
    ("players[size(players) - 1]", 2),  # the last item
    ("players[size(players)]", None),  # exactly the length: no item, not an error
    ("players[size(players) + 1]", None),
    ("players[0 - 1]", None),  # no counting from the end
    ("[p in players where p != bob][1]", 2),
    ("[p in players where p != bob][2]", None),
    ("players[none]", None),
    ("discard_pile[1]", "Meise"),  # a pile by position, bottom first
    ("discard_pile[2]", None),
    ("cards(carol)[1]", None),
    ("hand_size[player_count]", 4),
    ("total[players[2]]", 0),
    ("total[none]", None),
])
def test_an_index_past_the_end_is_none(default_engine: Engine, text: str, expected: Any) -> None:
    st = table(default_engine)
    value = evaluate(default_engine, st, text)
    if isinstance(expected, str):
        assert value is not None and st.facts.species[value] == expected
    else:
        assert value == expected


# ---------------------------------------------------------------- values in words
def test_values_in_words(default_engine: Engine) -> None:
    eng, st = default_engine, table(default_engine)
    spatz = st.card_at((0, 1))
    assert eng.format_value(st, "player", None) == "none"
    assert eng.format_value(st, "player", 1) == "bob"
    assert eng.format_value(st, "card", spatz) == "Spatz#1"
    assert eng.format_value(st, "slot", (2, 1)) == "carol.1"
    assert eng.format_value(st, "players", [2, 0]) == "[carol, alice]"
    assert eng.format_value(st, "list player", [1]) == "[bob]"
    assert eng.format_value(st, "list card", [spatz]) == "[Spatz#1]"
    assert eng.format_value(st, "cards", []) == "[]"
    assert eng.format_value(st, "bool", True) == "true"
    assert eng.format_value(st, "bool", False) == "false"
    assert eng.format_value(st, "int", -3) == "-3"
    assert eng.format_value(st, "str", "turn") == "turn"
    assert eng.slot_label(st, (0, 3)) == "alice.3"


# ---------------------------------------------------------------- states
def test_a_blank_state_refuses_bad_player_lists(default_engine: Engine) -> None:
    with pytest.raises(BaoError, match="player names must differ: ann, ann"):
        default_engine.blank_state(["ann", "ann"], 1)
    with pytest.raises(BaoError, match=r"^1 player: these rules allow 2 to 6 players"):
        default_engine.blank_state(["ann"], 1)
    with pytest.raises(BaoError, match=r"^7 players: these rules allow 2 to 6"):
        default_engine.blank_state([f"p{i}" for i in range(7)], 1)
    for n in (2, 6):
        default_engine.check_player_count(n)


def test_a_blank_state_has_every_variable_at_its_initial_value(default_engine: Engine) -> None:
    st = default_engine.blank_state(["ann", "ben", "cid"], 1)
    assert st.vars["bao_caller"] is None and st.vars["shield"] == "none" and st.vars["recycles"] == 0
    assert st.pvars["total"] == [0, 0, 0] and st.pvars["owed"] == [False, False, False]
    assert st.box == list(range(len(default_engine.facts)))
    assert st.round == 0


def test_a_new_match_deals_the_first_round(default_engine: Engine) -> None:
    st, events = default_engine.new_match(["ann", "ben"], 4)
    assert st.round == 1
    assert events[0].text == "round 1 begins"
    assert not st.box or all(st.count_places(c) == 1 for c in range(len(default_engine.facts)))
    quiet, none = default_engine.new_match(["ann", "ben"], 4, log=False)
    assert none == [] and snapshot(default_engine, quiet) == snapshot(default_engine, st)


def test_a_round_among_some_players_names_them(default_engine: Engine) -> None:
    st = default_engine.blank_state(["ann", "ben", "cid"], 2)
    log: list[Any] = []
    default_engine.start_round(st, log, [0, 2])
    assert log[0].text == "round 1 begins among ann, cid"
    assert st.seated() == [0, 2]
    assert st.cards_of(1) == [] and st.cards_of(0) and st.cards_of(2)


def test_a_state_round_trips_through_json(default_engine: Engine) -> None:
    st, _ = default_engine.new_match(["ann", "ben", "cid"], 9)
    rng = random.Random(9)
    for _ in range(25):
        move = default_engine.random_move(st, rng)
        assert move is not None
        default_engine.push(st, move, log=False)
    text = default_engine.state_to_json(st)
    back = default_engine.state_from_json(text)
    assert default_engine.state_to_json(back) == text
    assert json.loads(text)["names"] == ["ann", "ben", "cid"]
    move = default_engine.random_move(st, random.Random(1))
    assert move is not None and default_engine.random_move(back, random.Random(1)) == move
    assert [e.text for e in default_engine.push(st, move)] == [e.text for e in default_engine.push(back, move)]


# ---------------------------------------------------------------- rejections
@pytest.mark.parametrize(("move", "rule", "reason"), [
    (Move(1, "fly"), "fly", "there is no move 'fly' in these rules"),
    (Move(3, "draw"), "draw", "no such player"),
    (Move(-1, "draw"), "draw", "no such player"),
    (Move(1, "draw", (("slot", (1, 1)),)), "draw", "draw takes no argument 'slot' (it takes: none)"),
    (Move(1, "keep"), "keep", "keep needs its argument 'slot'"),
    (Move(1, "keep", (("slot", 3),)), "keep", "argument 'slot' must be an own slot"),
    (Move(1, "keep", (("slot", (3, 1)),)), "keep", "argument 'slot' must be an own slot"),
    (Move(1, "keep", (("slot", (1, 0)),)), "keep", "argument 'slot' must be an own slot"),
    (Move(1, "keep", (("card", 1), ("slot", (1, 1)))), "keep", "keep takes no argument 'card' (it takes: slot)"),
    (Move(0, "draw"), "draw", "only the active player may do this"),
    (Move(1, "keep", (("slot", (1, 1)),)), "keep", "keep is the decision right after drawing"),
    (Move(1, "peek", (("target", (0, 1)),)), "peek", "no 'peek' is waiting to be used"),
])
def test_rejections_name_their_rule_and_reason(default_engine: Engine, move: Move, rule: str, reason: str) -> None:
    st = table(default_engine)
    before = snapshot(default_engine, st)
    rejection = default_engine.check(st, move)
    assert isinstance(rejection, Rejection)
    assert rejection.rule == rule
    assert rejection.reason.startswith(reason)
    assert not default_engine.is_legal(st, move)
    assert default_engine.apply(st, move) == rejection
    with pytest.raises(IllegalMove):
        default_engine.push(st, move)
    assert snapshot(default_engine, st) == before
    assert not default_engine.generates(st, move)


def test_a_slot_argument_must_name_a_slot_of_a_seat(default_engine: Engine) -> None:
    st, _ = default_engine.new_match(["ann", "ben"], 3)
    assert st.phase == "peek"
    for bad in (2, True, (2, 1), (5, 1), (-1, 1), (0, 0), (0, "1"), (0, 1, 1)):
        rejection = default_engine.check(st, Move(0, "look", (("slot", bad),)))
        assert rejection is not None and rejection.reason == "argument 'slot' must be an own slot", bad
    assert default_engine.check(st, Move(0, "look", (("slot", (0, 1)),))) is None


def test_an_argument_of_a_kind_that_depends_on_the_mover_is_checked_against_it(default_engine: Engine) -> None:
    # The text notation only names held cards, but the API and the referee's JSON moves pass card ids:
    # a card on a tableau named as the held card to exchange must be refused as generation never offers it.
    eng = default_engine
    st = table(eng, EXCHANGE)
    for text in ("bob draw", "bob discard", "bob double_exchange"):
        eng.push_checked(st, parse_move_text(eng.rules.moves, st, text))
    held = list(st.hands[1])
    on_table = st.tableaux[0][0]  # alice's Spatz
    args = (("own_card", held[0]), ("own", (1, 1)), ("other_card", held[1]), ("other", (0, 2)))
    assert eng.check(st, Move(1, "exchange_cards", args)) is None
    bad = (("own_card", on_table), *args[1:])
    rejection = eng.check(st, Move(1, "exchange_cards", bad))
    assert rejection is not None and rejection.reason == "argument 'own_card' must be a card held by bob"
    assert str(rejection.cite) == str(eng.rules.moves["exchange_cards"].cite)
    other = (("own_card", held[0]), ("own", (0, 1)), *args[2:])  # an own slot that is alice's: the rules say
    rejection = eng.check(st, Move(1, "exchange_cards", other))
    assert rejection is not None and rejection.rule == "exchange_cards" and "§ 6.9 [P141]" in str(rejection.cite)


def test_a_legal_move_applies_to_a_copy_or_in_place(default_engine: Engine) -> None:
    st = table(default_engine)
    before = snapshot(default_engine, st)
    draw = Move(1, "draw")
    assert default_engine.is_legal(st, draw) and default_engine.generates(st, draw)
    result = default_engine.apply(st, draw)
    assert not isinstance(result, Rejection)
    new, events = result
    assert snapshot(default_engine, st) == before
    assert events[0].text == "bob draw" and events[0].rule == "draw"
    assert [st.facts.species[c] for c in new.hands[1]] == ["Amsel"]
    pushed = st.copy()
    assert [str(e) for e in default_engine.push(pushed, draw)] == [str(e) for e in events]
    checked = st.copy()
    assert [str(e) for e in default_engine.push_checked(checked, draw)] == [str(e) for e in events]
    generated = st.copy()
    default_engine.push_generated(generated, draw)
    assert snapshot(default_engine, generated) == snapshot(default_engine, new) == snapshot(default_engine, pushed)
    assert default_engine.push(st.copy(), draw, log=False) == []


# ---------------------------------------------------------------- listing and random play
def states_of_matches(eng: Engine, seeds: range, players: int, moves: int) -> list[State]:
    out = []
    for seed in seeds:
        st, _ = eng.new_match([f"p{i}" for i in range(players)], seed, log=False)
        rng = random.Random(seed)
        for i in range(moves):
            if st.phase == "match_over":
                break
            if i % 4 == 1:
                out.append(st.copy())
            move = eng.random_move(st, rng)
            if move is None:
                break
            eng.push_generated(st, move)
    return out


@pytest.fixture(scope="module")
def reached(default_engine: Engine) -> list[State]:
    return states_of_matches(default_engine, range(3), 3, 100)


def test_listing_generating_and_checking_agree(default_engine: Engine, reached: list[State]) -> None:
    eng = default_engine
    kinds: set[str] = set()
    for st in reached:
        listed = list(itertools.islice(eng.legal_moves(st), 400))
        assert listed, f"nobody may act in phase {st.phase}"
        for move in listed[:60]:
            kinds.add(move.name)
            assert eng.check(st, move) is None, move
            assert eng.generates(st, move), move
        movers = eng.movers(st)
        assert movers == sorted({m.player for m in eng.legal_moves(st)})
        for p in range(len(st.names)):
            mine = list(itertools.islice(eng.legal_moves(st, p), 50))
            assert all(m.player == p for m in mine)
            assert bool(mine) == (p in movers)
            for cm in eng.candidates(st, p):
                first = eng.first_legal(st, p, cm)
                assert first == next(eng.moves_of(st, p, cm), None)
    assert {"look", "draw", "keep", "discard", "pluck", "end_turn"} <= kinds


def test_a_move_off_the_list_is_not_generated(default_engine: Engine, reached: list[State]) -> None:
    eng = default_engine
    for st in reached:
        for move in list(itertools.islice(eng.legal_moves(st), 30)):
            other = Move((move.player + 1) % len(st.names), move.name, move.args)
            assert eng.generates(st, other) == (eng.check(st, other) is None)
            extra = Move(move.player, move.name, (*move.args, ("nonsense", 1)))
            assert not eng.generates(st, extra)
            for i, (key, value) in enumerate(move.args):
                if isinstance(value, tuple):
                    moved = (value[0], value[1] + 20)
                    args = (*move.args[:i], (key, moved), *move.args[i + 1:])
                    assert not eng.generates(st, Move(move.player, move.name, args))


def test_random_moves_are_legal_and_reproducible(default_engine: Engine, reached: list[State]) -> None:
    eng = default_engine
    names: set[str] = set()
    for i, st in enumerate(reached):
        for pick in (eng.random_move, eng.random_move_by_kind):
            move = pick(st, random.Random(i))
            assert move is not None
            assert eng.check(st, move) is None, move
            assert pick(st, random.Random(i)) == move
            names.add(move.name)
        few = eng.random_move(st, random.Random(i), tries=0)  # no sampling: one of the listed moves
        assert few is not None and eng.check(st, few) is None
    assert {"look", "draw", "pluck"} <= names


def test_random_play_by_kind_tries_every_kind_of_move(default_engine: Engine) -> None:
    eng = default_engine
    st = table(eng)
    rng = random.Random(3)
    seen = {m.name for m in (eng.random_move_by_kind(st, rng) for _ in range(60)) if m is not None}
    assert seen == {m.name for m in eng.legal_moves(st)} == {"draw", "take"}


def test_a_match_over_has_no_legal_move(default_engine: Engine) -> None:
    st = table(default_engine, TABLE.replace("  active bob\n", "  active bob\n  phase match_over\n"))
    assert list(default_engine.legal_moves(st)) == []
    assert default_engine.movers(st) == []
    assert default_engine.random_move(st, random.Random(1)) is None
    assert default_engine.random_move_by_kind(st, random.Random(1)) is None
    halt = default_engine.halt(st)
    assert halt is not None and halt.name == "after_match"
    rejection = default_engine.check(st, Move(1, "draw"))
    assert rejection is not None and rejection.rule == "halt after_match"
    assert default_engine.deadlock(st) is None  # the match is over: nobody need act


# ---------------------------------------------------------------- properties
def test_a_broken_state_invariant_is_named(default_engine: Engine) -> None:
    st = table(default_engine)
    assert list(default_engine.broken_invariants(st)) == []
    st.box.append(st.piles[0][0])  # a card in two places
    broken = default_engine.broken_invariant(st)
    assert broken is not None and broken.ident == "card_conservation"
    assert invariant_message(broken).startswith("invariant card_conservation (")


def test_a_broken_transition_invariant_is_named(default_engine: Engine) -> None:
    before = table(default_engine)
    after = before.copy()
    assert default_engine.transition_failure(before, after, Move(1, "draw")) is None
    before.vars["shield"] = "active"
    after.vars["shield"] = "none"
    failure = default_engine.transition_failure(before, after, Move(1, "draw"))
    assert failure is not None and failure.startswith("invariant shield_stays_active (")
    assert [inv.ident for inv in default_engine.broken_transitions(before, after, None)] == ["shield_stays_active"]


def test_nobody_able_to_act_is_a_deadlock(default_engine: Engine) -> None:
    st = table(default_engine)
    assert default_engine.deadlock(st) is None
    st.phase = "nowhere"  # no move of the rules is legal in a phase they do not name
    decl = default_engine.deadlock(st)
    assert decl is not None and decl.ident == "no_deadlock"
    assert progress_message(decl).endswith("; nobody has a legal move")


def test_definitions_and_the_call_order(default_engine: Engine) -> None:
    st = table(default_engine)
    assert default_engine.define_value(st, "initial_peek") == 2
    assert default_engine.define_value(st, "round_value", 0) == 1 + default_engine.rules.species["Goldtukan"].value
    assert default_engine.call_order(st) == [1, 2, 0]  # clockwise from the active player


# ---------------------------------------------------------------- abilities mark what they move
ADDED_CARD = """\
scenario "The card an ability adds carries the moved mark; a card drawn in the turn does not"
cites § 6.11 [P153]
table
  players alice bob
  alice: Amsel, Kranich, Star, Meise, Spatz
  bob: Flamingo, Specht, Rotkehlchen, Star, Meise
  draw: Riesentukan, Weisspelikan, Star
  discard: Specht
  active alice
play
  alice draw
  expect value "marked(top(hand(alice)), \\"moved\\")" = false
  alice discard
  alice add_card victim=bob
  expect bob.6 is Weisspelikan
  expect value "marked(card_at(slot(bob, 6)), \\"moved\\")" = true
  expect value "marked(card_at(slot(bob, 5)), \\"moved\\")" = false
  expect value "marked(top(discard_pile), \\"moved\\")" = false
"""


def test_a_card_an_ability_moves_is_marked(default_engine: Engine) -> None:
    from baobei.scenarios.runner import run_scenario

    result = run_scenario(parse_scenario_text(ADDED_CARD, "marks.scenario"), default_engine)
    assert result.passed, result.failure


def test_a_table_without_a_row_for_the_player_count_refuses_the_match(make_variant: MakeVariant) -> None:
    # The loader refuses such a rules file (tests/test_rules_input.py): the row is taken out after loading, to
    # reach the engine's own check, which stays for rules built otherwise.
    rules = load_ruleset(make_variant())
    table = rules.tables["hand_size"]
    rules.tables["hand_size"] = dataclasses.replace(table, rows=tuple(r for r in table.rows if r.low != 2))
    eng = Engine(rules)
    with pytest.raises(EngineError, match=r"table 'hand_size' \(§ [0-9.]+ \[P[0-9, -P]+\]\) has no row for a round "
                       "of 2 players"):
        eng.new_match(["ann", "ben"], 1)
    eng.new_match(["ann", "ben", "cid"], 1)  # three players have a row


def test_a_new_round_starts_clean(default_engine: Engine) -> None:
    st, _ = default_engine.new_match(["ann", "ben", "cid"], 8, log=False)
    spatz = default_engine.facts.by_label["Spatz#1"]
    st.windows.append(Window("discard", spatz, 0b111, 1))
    st.waiting.append(Waiting("peek", spatz, 0))
    st.marks[spatz] = 1
    st.protected = 0b010
    st.vars["shield"] = "active"
    st.pvars["owed"][1] = True
    st.pvars["total"][1] = 40
    default_engine.start_round(st, None)
    assert st.round == 2
    assert st.windows == [] and st.waiting == [] and not any(st.marks) and st.protected == 0
    assert st.vars["shield"] == "none" and st.pvars["owed"] == [False, False, False]
    assert st.pvars["total"][1] == 40  # a match variable keeps its value
    with pytest.raises(EngineError, match="a round needs at least one player"):
        default_engine.start_round(st, None, [])


# ---------------------------------------------------------------- a protected tableau
def test_a_step_that_would_change_a_protected_tableau_is_refused_listed_and_sampled_so(default_engine: Engine) -> None:
    eng = default_engine
    st = table(eng, ELSTER_VS_SHIELD)
    for text in ("bob draw", "bob discard", "bob look_and_swap a=alice.1 b=carol.2"):
        eng.push(st, parse_move_text(eng.rules.moves, st, text))
    assert st.is_protected(0)
    before = snapshot(eng, st)
    swap = Move(1, "decide_swap", (("swap_them", True),))
    rejection = eng.check(st, swap)
    assert rejection is not None and rejection.rule == "protect shield"
    assert rejection.reason.startswith("the BAO shield is active: no other player may add, remove")
    assert snapshot(eng, st) == before  # the trial run changed nothing
    keep = Move(1, "decide_swap", (("swap_them", False),))
    assert list(eng.legal_moves(st)) == [keep]
    assert not eng.generates(st, swap) and eng.generates(st, keep)
    for seed in range(5):
        assert eng.random_move(st, random.Random(seed)) == keep
        assert eng.random_move_by_kind(st, random.Random(seed)) == keep
    assert eng.movers(st) == [1]
    # An argument that names the protected tableau is refused at once, citing the protection.
    st2 = table(eng, ELSTER_VS_SHIELD)
    eng.refresh_protection(st2)
    for text in ("bob draw", "bob discard"):
        eng.push(st2, parse_move_text(eng.rules.moves, st2, text))
    assert eng.check(st2, Move(1, "look_and_swap", (("a", (0, 1)), ("b", (2, 2))))) is None  # looking: allowed
    pluck = parse_move_text(eng.rules.moves, st2, "carol pluck target=alice.1 gift=carol.1")
    refused = eng.check(st2, pluck)
    assert refused is not None and refused.rule == "pluck" and refused.cite.section == "4.2"
    assert refused.reason.startswith("the BAO shield is active")
    assert not eng.generates(st2, pluck)
    assert not any(m.player == 2 and (0, 1) in dict(m.args).values() for m in eng.legal_moves(st2))


# ---------------------------------------------------------------- waiting abilities


def test_an_ability_without_a_choice_waits_for_the_window_then_is_dropped(default_engine: Engine) -> None:
    eng = default_engine
    st = table(eng, NO_CHOICE)
    for text in ("alice draw", "alice discard"):
        events = eng.push(st, parse_move_text(eng.rules.moves, st, text))
    assert events[-1].text == "Weisspelikan#1 triggers its ability 'peek' for alice once the window's calls are settled"
    assert [(w.ability, w.owner, w.after_window) for w in st.waiting] == [("peek", 0, True)]
    # Nobody has a target for the peek; the ability is judged once the window closes and holds nobody up.
    assert eng.movers(st) == [0]
    assert sorted(m.name for m in eng.legal_moves(st)) == ["bao", "end_turn"]
    gate = eng.check(st, Move(1, "end_turn"))
    # bob's own rule decides (he is not the active player); the waiting rule is kept as a passing reason.
    assert gate is not None and gate.rule == "end_turn" and not gate.passing
    waiting = gate.others[-1]
    assert waiting.rule == "waiting" and waiting.passing and waiting.reason.startswith(
        "alice must first use 'peek' of Weisspelikan#1: a triggered ability is carried out completely")
    events = eng.push(st, Move(0, "end_turn"))
    # Judged as alice goes on (A7), before ending the turn changes anything: right after the move itself.
    assert events[1].rule == "no choice" and events[1].text == (
        "the ability 'peek' of Weisspelikan#1 has no legal choice: an ability with no legal choice has no effect")
    assert st.waiting == [] and st.active == 1


def test_rules_that_do_not_say_what_an_ability_without_a_choice_does_fail_when_it_happens(
        make_variant: MakeVariant) -> None:
    line = 'no choice "An ability with no legal choice has no effect" § 6.10 [P152]\n'
    eng = Engine(load_ruleset(make_variant(("05_abilities.bao", line, ""))))
    st = table(eng, NO_CHOICE)
    for text in ("alice draw", "alice discard"):
        eng.push(st, parse_move_text(eng.rules.moves, st, text))
    with pytest.raises(EngineError, match=r"the ability 'peek' of Weisspelikan#1 has no legal choice, and the rules "
                       r"do not say what happens then \(declare `no choice ...`\)"):
        eng.push(st, Move(0, "end_turn"))


def test_only_a_seat_of_the_match_deals(default_engine: Engine) -> None:
    st = table(default_engine, TABLE.replace("  active bob\n", "  active bob\n  phase round_over\n"))
    assert [m for m in default_engine.legal_moves(st)] == [Move(p, "deal") for p in range(3)]
    for seat in (3, 4, -1):
        move = Move(seat, "deal")
        assert not default_engine.generates(st, move)
        rejection = default_engine.check(st, move)
        assert rejection is not None and rejection.reason == "no such player"


def test_a_definition_with_arguments_is_called_not_named(default_engine: Engine) -> None:
    from baobei.language.errors import ScenarioError

    st = table(default_engine)
    with pytest.raises(ScenarioError, match="'round_value' takes 1 argument"):
        compile_probe(default_engine, st, "round_value + 1", HERE)
    assert evaluate(default_engine, st, "initial_peek + 1") == 3  # one without arguments is named


def test_a_move_is_a_value(default_engine: Engine) -> None:
    move = Move(0, "keep", (("slot", (0, 1)),))
    assert move == Move(0, "keep", (("slot", (0, 1)),)) and len({move, Move(0, "keep", (("slot", (0, 1)),))}) == 1
    with pytest.raises(AttributeError):  # a move cannot be changed: a new one is made instead
        move.name = "take"  # type: ignore[misc]
    assert move.arg("slot") == (0, 1) and move.arg("gift") is None and Move(1, "draw").args == ()


SHADOWING_BLOCK = """
var inner: player = none
var outer: player = none
move try_shadow "test: a block's let shadows an outer one" § 1.1 by true do {
  let p = actor
  if true {
    let p = first q in players where q != actor
    set inner = p
  }
  set outer = p
}
"""


def test_a_block_that_shadows_a_name_runs_and_gives_the_outer_value_back(make_variant: MakeVariant) -> None:
    rules = make_variant()
    (rules / "95_shadow.bao").write_text(SHADOWING_BLOCK, encoding="utf-8")
    eng = Engine(load_ruleset(rules))
    st = table(eng)
    eng.push(st, Move(1, "try_shadow"))
    assert st.vars["inner"] == 0  # the block ran with its own p: the first player other than bob
    assert st.vars["outer"] == 1  # and bob's p came back after it


SHADOWING_DRAW = """
var inner_card: card = none
var outer_card: card = none
move try_draw_shadow "test: a draw inside a block binds a name the block gives back" § 1.1 by true do {
  let c = top(discard_pile)
  if true {
    draw into hand(actor) as c
    set inner_card = c
  }
  set outer_card = c
}
"""


def test_a_draw_that_shadows_a_name_gives_the_outer_value_back(make_variant: MakeVariant) -> None:
    rules = make_variant()
    (rules / "95_shadow.bao").write_text(SHADOWING_DRAW, encoding="utf-8")
    eng = Engine(load_ruleset(rules))
    st = table(eng)
    discard_top, draw_top = evaluate(eng, st, "top(discard_pile)"), evaluate(eng, st, "top(draw_pile)")
    eng.push(st, Move(1, "try_draw_shadow"))
    assert st.vars["inner_card"] == draw_top != discard_top  # the block's c: the card drawn
    assert st.vars["outer_card"] == discard_top  # the outer c came back after the block
