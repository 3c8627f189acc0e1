"""Engine paths that ordinary play seldom takes, each run and checked against the value it must give.

Random play falling back to listing every legal move, the shapes cache starting afresh, a query about a
state where nothing waits, a hook the rules leave out, rules without protections, a move whose argument is
named like an engine name, a repeat that changes a chosen tableau, a protection lifted in the middle of an
action, a routine run where no change is recorded, a value kept by an enclosing loop, a table read with a
number of another class, definitions called with the wrong number of arguments, a hand that is no
player's, and the scenario text of a held card that its species alone does not name.

Mutation testing (tools/mutation.py) found no test running these lines. The rules variants are written
into temporary copies of rules/: the rules themselves stay untouched.
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path
from typing import Any

import pytest
from baobei.engine import legality
from baobei.engine.compiler import Compiler
from baobei.engine.engine import Engine
from baobei.engine.move import Move
from baobei.engine.notation import move_text, parse_move_text, scenario_move_text
from baobei.engine.protection import ChangeTargets
from baobei.engine.runtime import Ctx
from baobei.engine.state import HandLoc, State, hand_of
from baobei.language import syntax as s
from baobei.language.load import load_ruleset
from baobei.language.paths import default_rules_dir
from conftest import NO_CHOICE, table_state

HERE = s.Pos("<paths>", 1, 1)

# Moves that only these tests need, and a second protection that never holds (so that the first one
# declared is not also the last one).
TEST_MOVES = """\
protect never "Test: a protection that never holds" § 4.2 [P94] tableau of p when false

move tap "Test: an argument named like the engine's name `source`" § 2.2 [P24]
  by true
  with source: slot
  do { move card_at(source) to under_pile }

move bury_once "Test: a repeat that changes the chosen tableau" § 2.2 [P24]
  by true
  with target: slot
  do { repeat 1 { move card_at(target) to under_pile } }

move unshield_gift "Test: the shield lifted mid-action, then a change of the caller's tableau" § 2.2 [P24]
  by true
  do {
    set shield = "none"
    move top(discard_pile) to free_slot(bao_caller, none)
  }
"""

TWO_BY_TWO = """\
scenario "two by two"
table
  players alice bob
  alice: Spatz, Amsel
  bob: Flamingo, Kranich
  draw: Star, Meise
  discard: Specht
  active alice
play
"""

THREE_BY_ONE = """\
scenario "three by one"
table
  players alice bob
  alice: Spatz, Amsel, Star
  bob: Flamingo
  draw: Kranich, Meise
  discard: Specht
  active alice
play
"""

# The scenario weisspelikan_drawn_discarded's table: a Weisspelikan drawn and discarded waits for the window.
PELICAN = """\
scenario "pelican"
table
  players alice bob carol
  alice: Amsel, Kranich, Star, Meise
  bob: Flamingo, Specht, Rotkehlchen, Meise
  carol: Star, Spatz, Kranich, Specht
  draw: Weisspelikan, Star
  discard: Specht
  active alice
play
"""

SHIELDED = """\
scenario "shielded"
table
  players alice bob
  alice: Spatz, Amsel
  bob: Flamingo, Kranich
  draw: Star
  discard: Specht, Meise
  active alice
  set bao_caller = bob
  set shield = active
play
"""


def copied_rules(root: Path, name: str) -> Path:
    target = root / name
    shutil.copytree(default_rules_dir(), target)
    return target


def cut(path: Path, start: str, end: str) -> None:
    """Remove the text from `start` up to and including the next `end`: it must be there exactly once, or
    the variant would silently be the default rules."""
    text = path.read_text(encoding="utf-8")
    assert text.count(start) == 1, f"{path.name}: {start!r}"
    begin = text.index(start)
    stop = text.index(end, begin) + len(end)
    path.write_text(text[:begin] + text[stop:], encoding="utf-8")


@pytest.fixture(scope="module")
def fresh() -> Engine:
    """The default rules in an engine of this module's own: the tests here look at its caches."""
    return Engine(load_ruleset(default_rules_dir()))


@pytest.fixture(scope="module")
def bare(tmp_path_factory: pytest.TempPathFactory) -> Engine:
    """The default rules without the optional `ability_start` hook and without any protection."""
    rules = copied_rules(tmp_path_factory.mktemp("bare"), "rules")
    cut(rules / "05_abilities.bao", "on ability_start(", "}\n")
    cut(rules / "06_bao.bao", "protect shield ", "\n")
    eng = Engine(load_ruleset(rules))
    assert "ability_start" not in eng.rules.hooks and eng.protections == []
    return eng


@pytest.fixture(scope="module")
def tested(tmp_path_factory: pytest.TempPathFactory) -> Engine:
    """The default rules with this module's test moves and a second protection."""
    rules = copied_rules(tmp_path_factory.mktemp("tested"), "rules")
    (rules / "98_test_moves.bao").write_text(TEST_MOVES, encoding="utf-8")
    eng = Engine(load_ruleset(rules))
    assert [p.decl.name for p in eng.protections] == ["shield", "never"]
    return eng


def push(eng: Engine, st: State, text: str) -> list[str]:
    """Play a move given by its text; the texts of its events after the first (which names the move)."""
    return [e.text for e in eng.push(st, parse_move_text(eng.rules.moves, st, text))][1:]


def label(st: State, card: int | None) -> str | None:
    return None if card is None else st.facts.label(card)


# ---------------------------------------------------------------- random play (legality.py)
def test_random_play_by_kind_lists_every_legal_move_when_sampling_gives_up(
        default_engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    # No sampling try at all: every kind goes straight to the listing of its legal moves, which is the
    # fallback rare low acceptance rates reach after SAMPLING_TRIES rejections (legality.py 601-603).
    monkeypatch.setattr(legality, "SAMPLING_TRIES", 0)
    eng = default_engine
    st = table_state(eng, TWO_BY_TWO)
    push(eng, st, "alice draw")  # drawn: keep takes a slot, so a kind holds several moves
    legal = set(eng.legal_moves(st))
    picked = [eng.random_move_by_kind(st, random.Random(seed)) for seed in range(40)]
    assert all(move in legal for move in picked), picked
    # A uniform choice among the listed moves of a kind, not always the same one.
    keeps = {move for move in picked if move is not None and move.name == "keep"}
    assert len(keeps) == 2
    # The same seed, the same move: the listing is in a fixed order.
    assert eng.random_move_by_kind(st, random.Random(7)) == picked[7]
    # Only alice may act (the draw's window is hers): bob gets no move, even from the listing.
    assert eng.random_move_by_kind(st, random.Random(1), player=1) is None
    # A kind whose guards hold but that lists no move (a pluck with no face-down card to point at) is
    # passed over for the next kind.
    bare_table = table_state(eng, NO_CHOICE)
    push(eng, bare_table, "alice draw")
    only = [Move(0, "discard")]
    assert list(eng.legal_moves(bare_table)) == only
    assert [eng.random_move_by_kind(bare_table, random.Random(seed)) for seed in range(6)] == only * 6


def test_the_shapes_cache_starts_afresh_once_full(fresh: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    # Random play keeps what it works out per table shape (the tableaux' lengths, no free slot); past
    # MAX_SHAPES shapes it forgets them all and starts again (legality.py 540-541).
    monkeypatch.setattr(legality, "MAX_SHAPES", 1)
    eng = fresh
    first, second = table_state(eng, TWO_BY_TWO), table_state(eng, THREE_BY_ONE)
    move = eng.random_move(first, random.Random(1))
    assert move is not None and eng.check(first, move) is None
    assert (2, 2) in eng._shapes
    move = eng.random_move(second, random.Random(1))
    assert move is not None and eng.check(second, move) is None
    assert list(eng._shapes) == [(3, 1)]
    # Forgetting loses nothing but time: the first table is worked out again, and its move is legal.
    again = eng.random_move(first, random.Random(5))
    assert list(eng._shapes) == [(2, 2)]
    assert again is not None and eng.check(first, again) is None


def test_nothing_waiting_is_never_deferred(default_engine: Engine) -> None:
    # `deferred` is asked about the first waiting ability; with none waiting, there is nothing to defer
    # (legality.py 268).
    eng = default_engine
    st = table_state(eng, NO_CHOICE)
    assert not st.waiting and eng.deferred(st) is False
    # The contrast: a peek without a target waits for the window's calls and is deferred meanwhile.
    push(eng, st, "alice draw")
    push(eng, st, "alice discard")
    assert [w.ability for w in st.waiting] == ["peek"]
    assert eng.deferred(st) is True


# ---------------------------------------------------------------- hooks and protections (engine.py)
def test_an_ability_starts_without_the_optional_hook(bare: Engine, default_engine: Engine) -> None:
    # The rules may leave out `on ability_start`: starting an ability then runs nothing more (engine.py 187).
    # The default hook closes the pluck window; without it the window stays open.
    outcomes = []
    for eng in (default_engine, bare):
        st = table_state(eng, PELICAN)
        for text in ("alice draw", "alice discard"):
            push(eng, st, text)
        assert [w.ability for w in st.waiting] == ["peek"] and st.windows
        push(eng, st, "alice peek target=carol.2")
        assert not st.waiting and st.known[st.facts.by_label["Spatz#1"]] & 1  # alice looked
        outcomes.append(bool(st.windows))
    assert outcomes == [False, True]


def test_rules_without_protections_leave_the_mask_alone(bare: Engine) -> None:
    # Without any protection there is nothing to evaluate after an action (engine.py 266): the engine does
    # not even rewrite the mask. A mask no protection set cannot arise in play; it is set here by hand
    # only to see that the mask is not rewritten.
    st = table_state(bare, TWO_BY_TWO)
    assert st.protected == 0
    st.protected = 0b10
    bare.refresh_protection(st)
    assert st.protected == 0b10
    # Nor does an action: the mask stays as it was after a move.
    push(bare, st, "alice draw")
    assert st.protected == 0b10


def test_a_move_with_an_argument_named_source_is_bound_by_name(tested: Engine) -> None:
    # `source` as an argument's name makes the move's names repeat: it is no plain move, and applying it
    # binds its names the general way (engine.py 238).
    assert not tested.moves["tap"].plain and not tested.moves["tap"].decl.is_ability
    st = table_state(tested, TWO_BY_TWO)
    assert push(tested, st, "alice tap source=bob.2") == ["Kranich#1 moves from bob.2 to under pile"]
    assert label(st, st.card_at((1, 2))) is None
    assert [label(st, c) for c in st.piles[tested.pile_index["under_pile"]]] == ["Kranich#1"]


def test_a_change_inside_a_repeat_names_its_target(tested: Engine) -> None:
    # The arguments a move may change are found inside `repeat` too (protection.py 97), so a protected
    # tableau is refused as an argument.
    assert ChangeTargets(tested.rules).of_move(tested.rules.moves["bury_once"]) == frozenset({"target"})
    st = table_state(tested, SHIELDED)
    assert st.protected == 0b10
    refused = tested.check(st, parse_move_text(tested.rules.moves, st, "alice bury_once target=bob.1"))
    assert refused is not None and refused.rule == "bury_once" and refused.cite.section == "4.2"
    assert refused.reason.startswith("the BAO shield is active")
    assert push(tested, st, "alice bury_once target=alice.1") == ["Spatz#1 moves from alice.1 to under pile"]


def test_a_protection_lifted_during_an_action_still_holds_until_it_ends(tested: Engine) -> None:
    # The mask says which tableaux are protected since the last completed action. When no protection holds
    # any more in the middle of an action, the change is still impossible, credited to the first protection
    # declared (protection.py 128).
    st = table_state(tested, SHIELDED)
    assert st.protected == 0b10
    assert push(tested, st, "alice unshield_gift") == \
        ["shield = none", "bob's tableau is protected (shield): this change is impossible and left out"]
    assert [label(st, c) for c in st.cards_of(1)] == ["Flamingo#1", "Kranich#1"]
    assert [label(st, c) for c in st.piles[tested.pile_index["discard_pile"]]] == ["Specht#1", "Meise#1"]
    assert st.vars["shield"] == "none" and st.protected == 0  # from the next action on, nothing is protected
    assert push(tested, st, "alice unshield_gift") == ["shield = none", "Meise#1 moves from discard pile to bob.3"]


# ---------------------------------------------------------------- effects where no change is recorded
def test_a_routine_run_outside_a_move_records_no_change(default_engine: Engine) -> None:
    # Hooks run in a context that records no changed tableau (`changed` is None); a routine run so moves
    # its cards all the same (effects.py 152).
    eng = default_engine
    st = table_state(eng, TWO_BY_TWO.replace("  active alice\n", "  active alice\n  alice holds Elster\n"))
    star = st.hands[0][0]
    ctx = Ctx(st, {"actor": 0, "new": star, "target": (0, 1)}, None)
    eng.routine_procs["exchange"](ctx)
    assert ctx.changed is None
    assert label(st, st.card_at((0, 1))) == label(st, star) and st.hands[0] == []
    assert [label(st, c) for c in st.piles[eng.pile_index["under_pile"]]] == ["Spatz#1"]


# ---------------------------------------------------------------- generated code (codegen.py)
def test_a_value_kept_by_an_enclosing_loop_is_worked_out_once(default_engine: Engine) -> None:
    # `sum x in players: sum y in [p in players where p != x]: round_value(b)`: round_value(b) reads no loop
    # variable, so the outer loop keeps it; the inner loop reads it from there instead of keeping its own
    # copy (codegen.py 459): one call in all, not one per outer item.
    eng = default_engine
    st, _ = eng.new_match(["alice", "bob", "carol"], 5, log=False)
    real = eng.define_fns["round_value"]
    calls: list[tuple[Any, ...]] = []

    def counted(state: State, *args: Any) -> Any:
        calls.append(args)
        return real(state, *args)

    defines = {**eng.define_fns, "round_value": counted}
    players, b = s.Name(HERE, "players"), s.Name(HERE, "b")
    others = s.Filter(HERE, "p", players, s.Binary(HERE, "!=", s.Name(HERE, "p"), s.Name(HERE, "x")))
    inner = s.Quant(HERE, "sum", "y", others, s.Call(HERE, "round_value", (b,)))
    node = s.Quant(HERE, "sum", "x", players, inner)
    fn = Compiler(eng.rules, eng.effects, defines, eng.routine_procs).expr(node, frozenset({"b"}))
    value = eng.evaluate(st, fn, {"b": 1})
    assert value == 6 * real(st, 1)  # three players, two others each
    assert calls == [(1,)]


class Seats(int):
    """A number of another class than int (as a value from outside the rules may be)."""


def test_a_table_read_with_a_number_of_another_class_is_answered_not_kept(fresh: Engine) -> None:
    # Only plain ints are kept (codegen.py 176): another class is answered by the rules each time.
    unit = fresh.unit
    assert unit.table_value("hand_size", Seats(3)) == 4
    assert unit.table_value("hand_size", Seats(2)) == 5
    assert ("hand_size", 3) not in unit._rows
    assert unit.table_value("hand_size", 3) == 4
    assert unit._rows[("hand_size", 3)] == 4
    assert unit.table_value("hand_size", None) is None  # no number at all: no row


# ---------------------------------------------------------------- definitions from Python (engine.py)
def test_a_definition_called_with_the_wrong_number_of_arguments_says_how_many_it_takes(
        default_engine: Engine) -> None:
    # engine.py 332-333: the count is checked before the generated function is called.
    eng = default_engine
    st = table_state(eng, TWO_BY_TWO)
    assert eng.define_value(st, "movable", (0, 1)) is True
    assert eng.define_value(st, "recyclable") == 0
    with pytest.raises(ValueError, match=r"^'movable' takes 1 argument\(s\), not 0$"):
        eng.define_value(st, "movable")
    with pytest.raises(ValueError, match=r"^'movable' takes 1 argument\(s\), not 2$"):
        eng.define_value(st, "movable", (0, 1), (0, 2))
    with pytest.raises(ValueError, match=r"^'recyclable' takes 0 argument\(s\), not 1$"):
        eng.define_value(st, "recyclable", 1)


# ---------------------------------------------------------------- states and notation
def test_a_hand_of_something_that_is_no_player_is_a_place_of_its_own() -> None:
    # Hands are made once per player; a value that cannot be a key gets a hand of its own each time
    # (state.py 49), which compares equal to another made from an equal value.
    assert hand_of(1) is hand_of(1) and hand_of(1) == HandLoc(1)
    not_a_player: Any = [1]  # a list: no key of the hands made so far
    odd = hand_of(not_a_player)
    assert isinstance(odd, HandLoc) and odd.player is not_a_player
    assert odd == HandLoc(not_a_player) and odd != hand_of(1)


def test_a_held_card_its_species_does_not_name_keeps_its_label(default_engine: Engine) -> None:
    # A scenario writes a held card by its species where that names the same card. A card the player
    # does not hold cannot be named so (reading it back fails): the labelled text stays (notation.py 185).
    eng = default_engine
    moves = eng.rules.moves
    st = table_state(eng, TWO_BY_TWO)
    elster = st.facts.by_label["Elster#1"]
    assert elster not in st.hands[0]
    move = Move(0, "exchange_cards", (("own_card", elster), ("own", (0, 1)), ("other_card", None), ("other", None)))
    text = "alice exchange_cards own_card=Elster#1 own=alice.1"
    assert move_text(moves, st, move) == text
    assert scenario_move_text(moves, st, move) == text
    # The contrast: once alice holds that very Elster, its species names it.
    held = table_state(eng, TWO_BY_TWO.replace("  active alice\n", "  active alice\n  alice holds Elster\n"))
    assert held.hands[0] == [elster]
    assert scenario_move_text(moves, held, move) == "alice exchange_cards own_card=Elster own=alice.1"


def test_a_random_move_for_one_player_is_always_that_players_own(default_engine: Engine) -> None:
    # After the deal every player may peek: the others' moves are legal too, yet only the named one's count.
    st, _ = default_engine.new_match(["alice", "bob", "carol"], 3, log=False)
    assert {m.player for m in default_engine.legal_moves(st)} == {0, 1, 2}
    rng = random.Random(5)
    for player in (0, 1, 2):
        picks = [default_engine.random_move(st, rng, player=player) for _ in range(30)]
        assert {m.player for m in picks if m is not None} == {player}, player
