"""A scenario table states every part of an engine state: `table_lines` (scenarios/write.py) writes any state
as a table, and `build_table` (scenarios/setup.py) builds it back, the same but for which copy of a species
lies where (`renumbered`). Round and turn, open windows, waiting abilities with their values, marks, who
knows which card wherever it lies and the protected tableaux have their lines, so a prover's or a model
checker's state replays; what a table still cannot say is refused by name, and a bad table line is a
ScenarioError with its place."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
from baobei.cli import main
from baobei.engine.engine import Engine
from baobei.engine.state import State, Waiting, Window
from baobei.language.errors import BaoError, ScenarioError
from baobei.language.load import load_ruleset
from baobei.scenarios.parser import parse_scenario_text, parse_table_lines
from baobei.scenarios.runner import run_scenario
from baobei.scenarios.setup import build_table
from baobei.scenarios.syntax import Table
from baobei.scenarios.write import renumbered, table_lines
from conftest import MakeVariant

NAMES = ("alice", "bob", "carol", "dave")
PATH = "table.scenario"
MOVES = 400  # a random match ends long before


def state_json(eng: Engine, st: State) -> dict[str, Any]:
    """Every part of a state but its random generator (a table gives a seed, not a generator's state)."""
    data: dict[str, Any] = json.loads(eng.state_to_json(st))
    del data["rng"]
    return data


def build(eng: Engine, lines: list[str]) -> State:
    assert lines[0] == "table"
    return build_table(eng, parse_table_lines(lines[1:], "<written>"))


def round_trip(eng: Engine, st: State) -> tuple[list[str], State]:
    """Write, build back: the state a table of `st` promises, and the same table once more."""
    lines = table_lines(eng, st)
    built = build(eng, lines)
    assert state_json(eng, built) == state_json(eng, renumbered(eng, st)), "\n".join(lines)
    assert table_lines(eng, built) == lines
    return lines, built


def play(eng: Engine, seed: int, by_kind: bool) -> list[State]:
    """Every state of a seeded random match (the moves drawn uniformly, or a kind of move first)."""
    rng = random.Random(seed)
    st, _ = eng.new_match(list(NAMES[:2 + seed % 3]), seed)
    states = [st.copy()]
    pick = eng.random_move_by_kind if by_kind else eng.random_move
    while len(states) < MOVES and (move := pick(st, rng)) is not None:
        eng.push_generated(st, move)
        states.append(st.copy())
    return states


@pytest.fixture(scope="module")
def played(default_engine: Engine) -> list[State]:
    return [st for seed in range(48) for st in play(default_engine, seed, True)] + \
        [st for seed in range(8) for st in play(default_engine, seed, False)]


def test_every_state_of_seeded_random_play_is_written_and_built_back(default_engine: Engine,
                                                                       played: list[State]) -> None:
    for st in played:
        round_trip(default_engine, st)


def test_random_play_reaches_what_tables_could_not_state_before(default_engine: Engine,
                                                                 played: list[State]) -> None:
    """The round trips above cover the new lines: the seeds reach each of them."""
    face_down = [i for i in range(len(default_engine.pile_names)) if i not in default_engine.effects.face_up]
    reached = {
        "window": any(st.windows for st in played),
        "used window": any(w.attempts == 0 for st in played for w in st.windows),
        "waiting": any(st.waiting for st in played),
        "after window": any(w.after_window for st in played for w in st.waiting),
        "step values": any(w.args for st in played for w in st.waiting),
        "mark": any(any(st.marks) for st in played),
        "round": any(st.round > 1 for st in played),
        "turn": any(st.turn > 1 for st in played),
        "among": any(len(st.seats) < len(st.names) for st in played),
        "held": any(any(st.hands) for st in played),
        "known face down": any(st.known[c] for st in played for i in face_down for c in st.piles[i]),
    }
    assert all(reached.values()), [what for what, yes in reached.items() if not yes]
    written = [line for st in played for line in table_lines(default_engine, st)]
    for start in ("  window ", "  waiting ", "  marked ", "  round ", "  turn "):
        assert any(line.startswith(start) for line in written), start


def test_the_elster_step_waits_with_its_two_slots(default_engine: Engine, played: list[State]) -> None:
    st = next(st for st in played if st.waiting and st.waiting[0].ability == "decide_swap")
    lines, built = round_trip(default_engine, st)
    waiting = [line for line in lines if line.startswith("  waiting ")]
    assert len(waiting) == 1
    assert re.fullmatch(r"  waiting decide_swap of discard top for \w+( after window)? with \w+\.\d+, \w+\.\d+",
                        waiting[0]), waiting[0]
    assert built.waiting[0].args == st.waiting[0].args  # slots name no card: the very same values


# ---------------------------------------------------------------- every new line, read and written

EVERY_LINE = """\
scenario "every line of a table"
table
  players alice bob carol
  among alice bob
  round 3
  turn 7
  alice: Spatz, Meise, _
  bob: Elster, Amsel, Riesentukan
  draw: Star, Kranich, Ara
  discard: Specht, Elster, Riesentukan
  under: Flamingo
  active bob
  phase turn_end
  bob holds Spatz
  alice knows bob.1, draw 2, under top, bob hand 1, box Spatz 2
  bob knows not discard top, bob hand 1
  marked moved alice.2, draw top, discard 1
  window discard on discard top for alice
  window own_draw on discard 2 for nobody attempts 0
  waiting decide_swap of discard 2 for bob after window with alice.1, bob.2
  waiting place_added of discard top for alice with bob.3
  set bao_caller = alice
  set shield = active
  protected nobody
play
"""


def every_line(eng: Engine) -> State:
    setup = parse_scenario_text(EVERY_LINE, PATH).setup
    assert isinstance(setup, Table)
    return build_table(eng, setup)


def test_a_table_builds_what_its_new_lines_say(default_engine: Engine) -> None:
    eng = default_engine
    st = every_line(eng)
    label, alice, bob = eng.facts.label, 1, 2
    draw, discard, under = (eng.pile_index[name] for name in ("draw_pile", "discard_pile", "under_pile"))
    assert (st.round, st.turn, st.seats) == (3, 7, [0, 1])

    def at(index: int, position: int) -> str:
        return label(st.piles[index][position])

    # The draw pile is written top first (`draw 2` the second from the top), the others bottom first.
    assert (at(draw, -1), at(draw, -2), at(discard, 0), at(discard, -1)) == \
        ("Star#1", "Kranich#1", "Specht#1", "Riesentukan#2")
    held = st.hands[1][0]
    assert label(held) == "Spatz#2"  # alice.1 took the first Spatz
    box_spatz = [label(c) for c in range(len(eng.facts)) if st.known[c] == alice and c in st.box]
    assert box_spatz == ["Spatz#4"]  # `box Spatz 2`: the second Spatz out of play (#3, #4, #5)
    assert st.known[held] == alice  # alice knows it, its holder does not
    assert st.known[st.piles[discard][-1]] == st.everyone & ~bob
    elster = st.tableaux[1][0]
    assert elster is not None
    assert st.known[st.piles[draw][-2]] == st.known[st.piles[under][-1]] == st.known[elster] == alice
    assert sorted(label(c) for c in range(len(eng.facts)) if st.marks[c]) == ["Meise#1", "Specht#1", "Star#1"]
    assert [(w.kind, label(w.ref), w.players, w.attempts) for w in st.windows] == \
        [("discard", "Riesentukan#2", alice, 1), ("own_draw", "Elster#2", 0, 0)]
    assert [(w.ability, label(w.card), w.owner, w.args, w.after_window) for w in st.waiting] == \
        [("decide_swap", "Elster#2", 1, ((0, 1), (1, 2)), True),
         ("place_added", "Riesentukan#2", 0, (st.tableaux[1][2],), False)]
    assert st.protected == 0
    without = every_line(eng)
    assert without.protected == 0  # the line overrode the rules' protection of the BAO caller:
    eng.refresh_protection(without)
    assert without.protected == alice


def test_a_table_is_written_back_line_for_line_and_builds_the_very_same_state(default_engine: Engine) -> None:
    st = every_line(default_engine)
    assert state_json(default_engine, renumbered(default_engine, st)) == state_json(default_engine, st)
    lines, built = round_trip(default_engine, st)
    assert state_json(default_engine, built) == state_json(default_engine, st)
    for line in ("  round 3", "  turn 7", "  among alice bob",
                 "  alice knows bob.1, draw 2, under top, bob hand 1, box Spatz 2",
                 "  bob knows not discard top, bob hand 1", "  marked moved alice.2, draw top, discard 1",
                 "  window discard on discard top for alice", "  window own_draw on discard 2 for nobody attempts 0",
                 "  waiting decide_swap of discard 2 for bob after window with alice.1, bob.2",
                 "  waiting place_added of discard top for alice with bob.3", "  protected nobody"):
        assert line in lines, line


def test_copies_of_a_species_come_back_renumbered_everywhere_a_card_is_named(default_engine: Engine) -> None:
    """A table names species: the copies it builds are the first of the deck. A state holding other copies
    comes back as `renumbered` says, with the windows, waiting cards and values following the copies."""
    eng = default_engine
    st = every_line(eng)
    elsters = [c for c in range(len(eng.facts)) if eng.facts.species[c] == "Elster"]
    first, second, spare = elsters[0], elsters[1], elsters[-1]  # bob.1, discard 2, in the box
    swapped = st.copy()
    swapped.tableaux[1][0], swapped.piles[eng.pile_index["discard_pile"]][1] = spare, first
    swapped.box[swapped.box.index(spare)] = second
    for per_card in (swapped.known, swapped.marks):
        per_card[first], per_card[second], per_card[spare] = per_card[second], per_card[spare], per_card[first]
    swapped.windows[1] = Window("own_draw", first, 0, 0)
    swapped.waiting[0] = Waiting("decide_swap", first, 1, st.waiting[0].args, True)
    assert table_lines(eng, swapped) == table_lines(eng, st)
    assert state_json(eng, renumbered(eng, swapped)) == state_json(eng, st)
    round_trip(eng, swapped)


def test_a_card_variable_is_set_by_where_the_card_lies(make_variant: MakeVariant) -> None:
    marker = "# Abilities run in between"
    eng = Engine(load_ruleset(make_variant(("03_turn.bao", marker, "var spare: card = none\n"
                                                                   "player var pair: cards = none\n" + marker))))
    text = EVERY_LINE.replace("  protected nobody\n", "  set spare = discard 2\n"
                                                      "  set pair[bob] = [alice.1, bob hand 1, box Spatz]\n")
    setup = parse_scenario_text(text, PATH).setup
    assert isinstance(setup, Table)
    st = build_table(eng, setup)
    label = eng.facts.label
    assert label(st.vars["spare"]) == "Elster#2"
    assert [label(c) for c in st.pvars["pair"][1]] == ["Spatz#1", "Spatz#2", "Spatz#3"]
    lines, built = round_trip(eng, st)
    assert "  set spare = discard 2" in lines and "  set pair[bob] = [alice.1, bob hand 1, box Spatz]" in lines
    assert state_json(eng, built) == state_json(eng, st)


# ---------------------------------------------------------------- what a table still cannot say


def _twice(eng: Engine, st: State) -> None:
    st.tableaux[0].append(st.piles[eng.pile_index["draw_pile"]][-1])


def _full_hand(eng: Engine, st: State) -> None:
    draw = st.piles[eng.pile_index["draw_pile"]]
    st.hands[0] += [draw.pop() for _ in range(eng.effects.capacity + 1)]


def _phase(eng: Engine, st: State) -> None:
    st.phase = "lunch"


def _string(eng: Engine, st: State) -> None:
    st.vars["shield"] = "half on"


def _absent_text(eng: Engine, st: State) -> None:
    st.vars["shield"] = None  # no game has it: the rules start the shield at the word "none"


def _kind(eng: Engine, st: State) -> None:
    st.windows.append(Window("lunch", st.piles[eng.pile_index["discard_pile"]][-1], 1, 1))


def _seat(eng: Engine, st: State) -> None:
    st.seat_round([1])
    st.active = 1


@pytest.mark.parametrize(("change", "message"), [
    (_twice, r"places each card once; \w+#\d is in 2 places"),
    (_full_hand, "alice's hand of 3 cards: the rules' hand holds at most 2"),
    (_phase, "the phase 'lunch', which the rules do not declare"),
    (_string, "cannot write 'half on' as the value of shield"),
    (_absent_text, "cannot write an absent text as the value of shield"),
    (_kind, "a window of kind 'lunch': the rules declare the kinds own_draw, discard"),
    (_seat, "alice, who is not in this round, holds cards"),
])
def test_what_a_table_still_cannot_say_is_refused_by_name(default_engine: Engine, change: Any, message: str) -> None:
    st, _ = default_engine.new_match(["alice", "bob"], 3)
    change(default_engine, st)
    with pytest.raises(BaoError, match=message):
        table_lines(default_engine, st)


# ---------------------------------------------------------------- bad table lines

BAD_BASE = """\
scenario "bad table lines"
cites § 1.2 [P9]
table
  players alice bob
  alice: Spatz, Meise, _
  bob: Elster, Amsel
  draw: Star, Kranich
  discard: Specht, Elster
  active alice
  bob holds Spatz
{line}
play
"""


@pytest.mark.parametrize(("line", "at", "message"), [
    ("window pluck on discard top for bob", "pluck", "unknown window kind 'pluck'; the rules declare: own_draw, "
                                                     "discard"),
    ('window "own draw" on discard top for bob', '"own draw"', "unknown window kind 'own draw'"),
    ("window discard on alice.3 for bob", "alice.3", "alice.3 holds no card"),
    ("window discard on bob.9 for bob", "bob.9", "bob.9 holds no card"),
    ("window discard on discard top for bob, zoe", "zoe", "unknown player 'zoe'"),
    ("alice knows discard 3", "discard 3", "no card discard 3: discard holds 2 cards"),
    ("alice knows draw 5", "draw 5", "no card draw 5: draw holds 2 cards"),
    ("alice knows draw 0", "draw 0", "no card draw 0: draw holds 2 cards"),
    ("marked moved discard top, under top", "under top", "under is empty: it has no top card"),
    ("alice knows not bob hand 2", "bob hand 2", "no card bob hand 2: bob holds 1 card"),
    ("alice knows alice hand 1", "alice hand 1", "no card alice hand 1: alice holds no card"),
    ("alice knows box Spatz 4", "box Spatz 4", "no card box Spatz 4: the box holds 3 Spatz"),
    ("alice knows box Goldtukan 2", "box Goldtukan 2", "no card box Goldtukan 2: the box holds 1 Goldtukan"),
    ("alice knows box Spatzz", "box Spatzz", "unknown species 'Spatzz'"),
    ("alice knows alice top", "alice top", "alice is a player, not a pile: a held card is `alice hand N`"),
    ("alice knows bin 1", "bin 1", "unknown pile 'bin'"),
    ("zoe knows alice.1", "zoe", "unknown player 'zoe'"),
    ("marked dirty alice.1", "dirty", "unknown mark 'dirty'; the rules declare: moved"),
    ("waiting fly of discard top for bob", "fly", "unknown ability 'fly'; the rules' abilities and steps: peek, "),
    ("waiting draw of discard top for bob", "draw", "unknown ability 'draw'"),
    ("waiting decide_swap of discard top for bob with alice.1", "alice.1",
     "decide_swap waits with 2 value(s) (a: slot, b: slot), the table gives 1"),
    ("waiting peek of discard top for bob with alice.1", "alice.1", "peek waits with 0 value(s) (none), the table "
                                                                     "gives 1"),
    ("waiting decide_swap of discard top for zoe with alice.1, bob.1", "zoe", "unknown player 'zoe'"),
    ("waiting decide_swap of discard top for bob with alice.1, discard 1", "discard 1",
     "expected a slot like alice.2, found discard 1"),
    ("waiting place_added of discard top for bob with Spatz", "Spatz", "a card is named by where it lies"),
    ("waiting place_added of discard top for bob with alice.3", "alice.3", "alice.3 holds no card"),
    ("protected alice, zoe", "zoe", "unknown player 'zoe'"),
    ("set bao_caller = discard top", "discard top", "expected a player name, found discard top"),
    ("set shield = discard top", "discard top", "expected a value of type str, found the card discard top"),
    # Malformed lines: the parser's place and what it expected.
    ("window discard on for bob", "bob", "found 'bob'"),  # `for` is a pile's name there
    ("round -1", "-1", "found '-1'"),
    ("alice knows discard bottom", "bottom", "found 'bottom'"),
    ("window discard on discard top for", "\n", "expected"),
    ("waiting decide_swap of discard top for bob with", "\n", "expected"),
])
def test_a_bad_table_line_is_refused_with_its_place(default_engine: Engine, line: str, at: str, message: str) -> None:
    text = BAD_BASE.format(line=f"  {line}")
    number = text.splitlines().index(f"  {line}") + 1
    column = len(f"  {line}") + 1 if at == "\n" else f"  {line}".index(at) + 1
    with pytest.raises(ScenarioError) as info:
        run_scenario(parse_scenario_text(text, PATH), default_engine)
    err = info.value
    assert str(err).startswith(f"{PATH}:{number}:{column}: "), str(err)
    assert message in err.message, err.message


def test_the_command_line_reports_a_bad_table_line_without_a_traceback(tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.scenario"
    path.write_text(BAD_BASE.format(line="  alice knows discard 3"), encoding="utf-8")
    assert main(["check", str(path)]) == 2
    out, err = capsys.readouterr()
    line = BAD_BASE.format(line="  alice knows discard 3").splitlines().index("  alice knows discard 3") + 1
    assert f"{path}:{line}:15: no card discard 3: discard holds 2 cards" in out + err
    assert "Traceback" not in out + err
