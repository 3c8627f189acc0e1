"""`baobei explore`: the breadth-first model checker finds every planted bug it can reach, its emitted
scenario replays to the same failure, and the default rules break nothing it explores."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from baobei.cli import main
from baobei.engine.engine import Engine
from baobei.language.errors import BaoError
from baobei.language.load import load_ruleset
from baobei.language.paths import default_rules_dir
from baobei.language.small_deck import DEFAULT_SPARE, deal_size, small_deck
from baobei.play.explore import (
    explore,
    failure_scenario,
    knowing_properties,
    knowledge_phases,
    report_lines,
    state_key,
    without_properties,
)
from baobei.play.tables import explore_tables, scenario_tables
from baobei.scenarios.parser import parse_scenario_text
from baobei.scenarios.setup import build_table
from baobei.scenarios.syntax import Table
from baobei.scenarios.write import table_lines
from conftest import MakeVariant
from planted import ALL, BAO_IN_FINAL_PHASE, PER_INVARIANT, Planted

Capture = pytest.CaptureFixture[str]

# Beyond a breadth-first search's reach from a deal in a test: the final phase needs two recycles, about
# 16 moves; `explore --from` a scenario's table finds it in three (test at the end of the module).
OUT_OF_REACH = {"bao_in_final_phase"}
# Within reach, but slower than a test in CI may take (11 moves deep: about 90 s).
SLOW = {"final_phase_at_first_recycle"}
FAST = [name for name in ALL if name not in OUT_OF_REACH | SLOW and not ALL[name].table]
# Found from the table of the scenario they name: they lie a whole round after a deal (or need cards a deal
# of the small deck rarely brings together: a Schuhschnabel, a BAO call, a decision round, a recycle).
FROM_TABLES = [name for name in ALL if ALL[name].table]
# Of those, the bugs in what a round records (PER_INVARIANT), which `verify` must find from the same tables too.
RECORDED = [name for name in PER_INVARIANT if PER_INVARIANT[name].table]

# For each planted bug, a scenario that fails under it (those of properties/ written for the new properties).
CATCHING_SCENARIO = {
    "noted_round_value": "properties/failed_bao_noted", "deal_seven_more": "properties/deal_gives_hand_size",
    "no_shuffle": "properties/no_deadlock", "take_covers": "turn/take_the_discard",
    "keep_skips_old": "turn/keep_replaces_the_chosen_slot", "two_draws": "properties/hands_empty_at_turn_start",
    "bao_in_final_phase": "properties/no_bao_in_final_phase", "stall": "properties/no_deadlock",
    "look_without_limit": "properties/peek_limit", "caller_owed": "properties/caller_not_owed",
    "final_phase_at_first_recycle": "properties/final_phase_after_second_recycle",
    "negative_scores": "properties/one_negative_noted", "second_bao": "properties/bao_called_once",
    "shield_one_turn": "properties/shield_stays_active",
    "totals_add_round_value": "properties/totals_change_at_round_end",
    "bao_score_not_doubled": "scoring/example_p109_doubled",
    "everyone_scored_as_caller": "scoring/example_p108_success",
    "look_covers": "setup/initial_peek_two_own_cards",
    "negative_not_kept": "properties/negative_caller_noted", "bao_bonus_forgotten": "properties/successful_bao_noted",
    "bonus_for_everyone": "properties/caller_noted_lowest", "no_neutral_card": "properties/neutral_card_dealt",
    "threshold_for_all": "properties/match_ends_at_threshold",
    "threshold_reacher_wins": "properties/winner_has_lowest_total",
    # the planted mistakes of the proofs issue
    "own_draw_window_for_all": "properties/pluck_window_players",
    "active_plucks_own_discard": "properties/pluck_window_players",
    "gift_not_given": "properties/pluck_changes_only_the_plucker",
    "penalty_only_after_own_draw": "properties/pluck_changes_only_the_plucker",
    "reference_kept_after_failure": "pluck/failure_own_draw", "ara_swap_as_moves": "birds/ara_swaps_unseen",
    "riesentukan_to_actor": "properties/ability_draw_not_to_user",
    "schuhschnabel_discards_replaced": "properties/ability_discards_nothing",
    "schuhschnabel_ignores_shield": "properties/hands_empty_at_round_end",
    "elster_swaps_moved_card": "properties/ability_moves_marked",
    "moved_mark_not_given": "properties/ability_moves_marked",
    "caller_change_raises_shield": "properties/shield_raised_by_others",
    "other_player_calls_again": "properties/bao_called_once", "same_player_again": "properties/turn_passes_clockwise",
    "recycle_takes_the_top": "properties/recycle_keeps_the_top",
    "starter_lowest": "properties/starter_noted_most", "trigger_on_take": "properties/take_triggers_nothing",
    "double_both_trigger": "properties/double_pluck_one_ability",
    "keep_old_under": "properties/drawn_card_decision_discards",
    "ara_same_player": "properties/ability_fills_one_slot_each",
    "take_no_window": "properties/turned_up_card_is_a_reference",
    "shield_in_final_phase": "properties/no_shield_in_final_phase",
    "decision_deals_everyone": "scoring/decision_round_dealt_to_contenders",
    "pluck_any_window": "properties/pluck_by_window_players",
    "riesentukan_user_looks": "properties/added_card_unseen",
    "under_pile_not_recycled": "properties/recycle_keeps_the_top",
    "recycle_not_counted": "properties/recycle_keeps_the_top",
    "decision_by_totals": "properties/decision_won_by_noted_score",
    "decision_round_adds_totals": "scoring/decision_round_tied_again",
    "shield_on_active_player": "properties/protected_tableau_unchanged",
    "bao_at_turn_start": "bao/call_only_at_end_of_own_turn",
}
SCENARIOS = default_rules_dir().parent / "scenarios"


def find(variant: Path, planted: Planted) -> tuple[str, str, str, list[str]]:
    """Explore a variant as the planted bug says; the first failure's message, last move and scenario, and
    the properties the search left out (they read knowledge)."""
    report = explore(load_ruleset(variant), 2, planted.depth, planted.deals, planted.seed)
    assert {planted.expected, *planted.also} <= set(report.failures), "\n".join(report_lines(report))
    first = report.first_failure()
    assert first is not None and first.depth == report.failures[planted.expected].depth <= planted.depth
    return (first.message, first.moves[-1] if first.moves else "", failure_scenario(first, report.deck),
            report.left_out)


def replays_to(variant: Path, scenario: str, tmp_path: Path, capsys: Capture) -> str:
    """`baobei check` of the emitted scenario under the variant: it must fail; its report."""
    path = tmp_path / "found.scenario"
    path.write_text(scenario, encoding="utf-8")
    capsys.readouterr()
    assert main(["check", "--rules", str(variant), str(path)]) == 1
    return capsys.readouterr().out


def check_found(name: str, make_variant: MakeVariant, tmp_path: Path, capsys: Capture) -> None:
    planted = ALL[name]
    variant = make_variant(*planted.edits)
    message, last, scenario, left_out = find(variant, planted)
    out = replays_to(variant, scenario, tmp_path, capsys)
    earlier = [label for label in left_out if f"invariant {label.split()[-1]} (" in out]
    if earlier:  # a property the search left out fails first in the replay (a drawn card nobody looked at)
        assert "FAIL " in out, out
    elif last:  # the last move fails, with the message the search gave
        assert f"step: {last}\n" in out and message in out, out
    else:  # the dealt state itself: its expectation of the invariant fails
        assert "step: expect value" in out and "actual false" in out, out


@pytest.mark.parametrize("name", FAST)
def test_explore_finds_the_planted_bug_and_its_scenario_replays_it(name: str, make_variant: MakeVariant,
                                                                   tmp_path: Path, capsys: Capture) -> None:
    check_found(name, make_variant, tmp_path, capsys)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(SLOW))
def test_explore_finds_the_deeper_planted_bugs(name: str, make_variant: MakeVariant, tmp_path: Path,
                                               capsys: Capture) -> None:
    check_found(name, make_variant, tmp_path, capsys)


@pytest.mark.parametrize("name", sorted(ALL))
def test_a_scenario_catches_each_planted_bug(name: str, make_variant: MakeVariant, capsys: Capture) -> None:
    """Every planted bug fails a scenario too (for a new property, the one written for it)."""
    path = SCENARIOS / f"{CATCHING_SCENARIO[name]}.scenario"
    assert main(["check", str(path)]) == 0
    assert main(["check", "-q", "--rules", str(make_variant(*ALL[name].edits)), str(path)]) == 1
    assert capsys.readouterr().out.count("FAIL ") == 1


def test_the_bug_out_of_reach_is_caught_by_its_scenario(make_variant: MakeVariant, capsys: Capture) -> None:
    variant = make_variant(*BAO_IN_FINAL_PHASE.edits)
    path = SCENARIOS / "properties" / "no_bao_in_final_phase.scenario"
    assert main(["check", "--rules", str(variant), str(path)]) == 1
    assert "expected the move to be rejected citing § 7.2 [P167], but it is legal" in capsys.readouterr().out


def test_the_default_rules_break_nothing_explore_reaches() -> None:
    report = explore(load_ruleset(default_rules_dir()), 2, 8)
    assert not report.failures and report.complete == 8
    assert report.per_depth[0] == 1 and report.states > 500 and report.moves > report.states
    lines = report_lines(report)
    assert sum(": explored to depth 8: holds" in line for line in lines) == len(report.labels) + 1


def test_three_players_and_several_deals_break_nothing_either() -> None:
    report = explore(load_ruleset(default_rules_dir()), 3, 8, 2, 5)
    assert not report.failures and report.per_depth[0] == 2 and report.states > 200


# ---------------------------------------------------------------- the search itself


def test_states_reached_in_either_order_are_one(default_engine: Engine) -> None:
    rules = default_engine.rules
    assert knowledge_phases(Engine(rules)) is None  # properties read knowledge: explore leaves them out
    eng = Engine(small_deck(without_properties(rules, frozenset(knowing_properties(rules))), 2))
    st, _ = eng.new_match(["alice", "bob"], 1)
    knowing = knowledge_phases(eng)
    assert knowing == frozenset({"peek"})  # without them, only the initial peek reads knowledge
    moves = {eng.describe(st, m): m for m in eng.legal_moves(st)}
    one, other = st.copy(), st.copy()
    orders = (("alice look slot=alice.1", "bob look slot=bob.2"), ("bob look slot=bob.2", "alice look slot=alice.1"))
    for a, b in orders:
        target = one if a.startswith("alice") else other
        eng.push(target, moves[a])
        eng.push(target, next(m for m in eng.legal_moves(target) if eng.describe(target, m) == b))
    assert state_key(one, False, True) == state_key(other, False, True)
    assert state_key(one, False, True) != state_key(st, False, True)
    other.rng.random()  # the same table, another chance ahead (a later recycle)
    assert state_key(one, False, True) != state_key(other, False, True)


def test_knowledge_counts_where_the_rules_read_it(default_engine: Engine) -> None:
    st, _ = default_engine.new_match(["alice", "bob"], 1)
    knows_more = st.copy()
    knows_more.known[knows_more.tableaux[0][0] or 0] |= 1
    assert state_key(st, False, True) != state_key(knows_more, False, True)
    assert state_key(st, False, False) == state_key(knows_more, False, False)


# Every turn begins with another initial peek: the round enters the phase that reads knowledge again.
PEEK_EVERY_TURN = ("03_turn.bao", "    start turn of first p in seats_after(active) where (not last_turns) or owed[p]\n"
                                  "    set phase = turn_start_phase\n",
                   "    start turn of first p in seats_after(active) where (not last_turns) or owed[p]\n"
                   "    for p in players { set peeked[p] = 0 }\n"
                   '    set phase = "peek"\n')


def test_a_move_back_into_the_peek_makes_the_search_exact(make_variant: MakeVariant) -> None:
    """Knowledge is merged outside the peek; a failure found with it merged is real (the stall hands
    the turn on into a peek nobody can make), but a round that enters the peek again without failing is
    searched once more, exactly."""
    stall = explore(load_ruleset(make_variant(*ALL["stall"].edits)), 2, 6)
    assert stall.returned and stall.knowledge_merged and "progress no_deadlock" in stall.failures
    assert any("a `holds` may have missed states" in line for line in report_lines(stall))
    again = explore(load_ruleset(make_variant(PEEK_EVERY_TURN)), 2, 6, max_states=400)
    assert not again.failures and not again.knowledge_merged and again.truncated
    merged = explore(load_ruleset(make_variant(PEEK_EVERY_TURN)), 2, 5)
    assert merged.knowledge_merged and not merged.returned and merged.states < 400


def test_a_dealt_state_written_as_a_table_builds_the_same_state(default_engine: Engine) -> None:
    small = Engine(small_deck(default_engine.rules, 3))
    st, _ = small.new_match(["alice", "bob", "carol"], 7)
    st.rng.seed(7)
    text = "\n".join(['scenario "written"', "", *table_lines(small, st, 7), "", "play", ""])
    setup = parse_scenario_text(text, "<written>").setup
    assert isinstance(setup, Table)
    built = build_table(default_engine, setup)  # the full deck: the further copies stay out of play
    species = default_engine.facts.species
    assert [[species[c] if c is not None else None for c in row] for row in built.tableaux] == \
        [[small.facts.species[c] if c is not None else None for c in row] for row in st.tableaux]
    assert [[species[c] for c in pile] for pile in built.piles] == [[small.facts.species[c] for c in pile]
                                                                     for pile in st.piles]
    assert (built.active, built.phase, built.vars, built.pvars) == (st.active, st.phase, st.vars, st.pvars)
    assert built.rng.random() == st.rng.random()
    st.tableaux[0].append(st.piles[1][-1])  # a card in two places: no table can state it
    with pytest.raises(BaoError, match="places each card once"):
        table_lines(small, st)


def test_the_small_deck_follows_the_deal_the_rules_make(default_engine: Engine, make_variant: MakeVariant) -> None:
    rules = default_engine.rules
    for n in range(rules.min_players, rules.max_players + 1):
        hand = rules.table_value("hand_size", n) or 0
        assert deal_size(rules, n) == n * hand + 1
        deck = small_deck(rules, n)
        assert all(sp.count >= 1 for sp in deck.species.values())
        assert sum(sp.count for sp in deck.species.values()) >= n * hand + 1 + DEFAULT_SPARE
    more = load_ruleset(make_variant(*ALL["deal_seven_more"].edits))
    assert deal_size(more, 2) == 2 * ((rules.table_value("hand_size", 2) or 0) + 7) + 1


def test_a_full_deck_and_a_state_limit(default_engine: Engine) -> None:
    report = explore(default_engine.rules, 2, 6, full_deck=True, max_states=100)
    assert report.truncated and report.states == 100 and report.complete == 2
    assert "66 cards" in report.deck
    assert any("stopped at" in line for line in report_lines(report))


# ---------------------------------------------------------------- the command


TIMING = re.compile(r"^[\d,]+ states, [\d,]+ moves in \d+\.\d+s \([\d,]+ states/s, [\d,]+ moves/s\)$", re.M)


def test_the_command_reports_and_exits_0_when_everything_holds(capsys: Capture) -> None:
    assert main(["explore", "--depth", "5", "--deals", "2"]) == 0
    first = capsys.readouterr().out
    assert main(["explore", "--depth", "5", "--deals", "2"]) == 0
    second = capsys.readouterr().out
    assert len(TIMING.findall(first)) == 1
    assert TIMING.sub("", first) == TIMING.sub("", second)  # deterministic but for the timing
    assert "explore: 2 players, 2 deal(s) from seed 1, depth 5" in first
    assert "progress no_deadlock: explored to depth 5: holds" in first


def test_the_command_exits_1_and_writes_the_failure(make_variant: MakeVariant, tmp_path: Path,
                                                    capsys: Capture) -> None:
    variant = make_variant(*ALL["caller_owed"].edits)
    target = tmp_path / "caller.scenario"
    assert main(["explore", "--rules", str(variant), "--depth", "6", "--emit-scenario", str(target)]) == 1
    out = capsys.readouterr().out
    assert "invariant caller_not_owed: violated at depth 6 (seed 1)" in out and f"wrote {target}" in out
    text = target.read_text(encoding="utf-8")
    assert text.startswith("# Written by `baobei explore`") and "\ntable\n" in text and "  seed 1\n" in text
    assert main(["check", "--rules", str(variant), str(target)]) == 1
    assert "invariant caller_not_owed (§ 4.1 [P89, P90]; § 7.2 [P166]) is violated" in capsys.readouterr().out


def test_bad_input_exits_2(capsys: Capture) -> None:
    assert main(["explore", "--players", "9"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "Traceback" not in err


@pytest.mark.parametrize("argv", [["--depth", "-1"], ["--deals", "0"]])
def test_counts_out_of_range_are_refused_by_the_command_line(argv: list[str], capsys: Capture) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["explore", *argv])
    assert exit_.value.code == 2 and "error: argument" in capsys.readouterr().err


@pytest.mark.parametrize(("depth", "deals"), [(-1, 1), (2, 0)])
def test_the_function_refuses_them_too(depth: int, deals: int) -> None:
    with pytest.raises(BaoError, match="explore needs"):
        explore(load_ruleset(default_rules_dir()), 2, depth, deals)


def test_nothing_to_emit(tmp_path: Path, capsys: Capture) -> None:
    target = tmp_path / "none.scenario"
    assert main(["explore", "--depth", "2", "--emit-scenario", str(target)]) == 0
    assert f"no failure to write to {target}" in capsys.readouterr().out and not target.exists()


def test_what_lies_too_deep_after_a_deal_is_found_from_a_scenario_table(tmp_path: Path, capsys: Capture,
                                                                        make_variant: MakeVariant) -> None:
    # Planted bug 7 (BAO in the automatic final phase) needs two recycles after a deal; from the table of
    # a scenario one draw before the second recycle, the search finds it in three moves.
    rules = make_variant(*BAO_IN_FINAL_PHASE.edits)
    start = default_rules_dir().parent / "scenarios" / "properties" / "no_bao_in_final_phase.scenario"
    target = tmp_path / "found.scenario"
    code = main(["explore", "--rules", str(rules), "--from", str(start), "--depth", "4",
                 "--emit-scenario", str(target)])
    out = capsys.readouterr().out
    assert code == 1 and "invariant bao_caller_fixed: violated at depth 3" in out
    assert f"moves from the table of {start}" in out
    assert main(["check", "--rules", str(rules), str(target)]) == 1
    assert "bao_caller_fixed" in capsys.readouterr().out
    # The rules as written hold from the same table.
    assert main(["explore", "--from", str(start), "--depth", "4"]) == 0


@pytest.mark.parametrize("name", FROM_TABLES)
def test_a_bug_in_what_a_round_records_is_found_from_its_table(name: str, tmp_path: Path, capsys: Capture,
                                                                make_variant: MakeVariant) -> None:
    """A routine that records the wrong score or ends the match wrongly breaks the claim about what is
    recorded; from the table of the claim's scenario the search finds it, and its scenario replays. So are
    found the planted mistakes that need a table a deal of the small deck rarely brings."""
    planted = ALL[name]
    rules = make_variant(*planted.edits)
    start = SCENARIOS / f"{planted.table}.scenario"
    target = tmp_path / "found.scenario"
    code = main(["explore", "--rules", str(rules), "--from", str(start), "--depth", str(planted.depth),
                 "--emit-scenario", str(target)])
    out = capsys.readouterr().out
    assert code == 1
    for label in (planted.expected, *planted.also):
        shown = "rules: every legal move can be carried out" if label == "rules" else label
        assert f"{shown}: violated at depth {planted.depth}" in out, out
    assert main(["check", "--rules", str(rules), str(target)]) == 1
    assert planted.expected.split()[-1] in capsys.readouterr().out
    assert main(["explore", "--from", str(start), "--depth", str(planted.depth + 1)]) == 0


@pytest.mark.parametrize("name", RECORDED)
def test_verify_catches_a_bug_in_what_a_round_records(name: str, tmp_path: Path, capsys: Capture,
                                                      make_variant: MakeVariant) -> None:
    """The same bugs through `baobei verify`: its search from the scenario tables finds each (the claims
    about every state still hold: no definition changed), and the scenario it writes replays."""
    planted = ALL[name]
    rules = make_variant(*planted.edits)
    target = tmp_path / "found.scenario"
    code = main(["verify", "--rules", str(rules), "--players", str(planted.players), "--bmc-depth", "0",
                 "--depth", "0", "--tables", str(SCENARIOS / f"{planted.table}.scenario"), "--table-depth", "2",
                 "--emit-scenario", str(target)])
    out = capsys.readouterr().out
    ident = planted.expected.split()[-1]
    assert code == 1 and re.search(rf"^violated\s+{ident}\s+{planted.players} players", out, re.M), out
    assert re.search(r"^proved\s+single_negative\s", out, re.M)
    assert main(["check", "--rules", str(rules), "-q", str(target)]) == 1
    assert ident in capsys.readouterr().out


def test_explore_from_needs_a_table(tmp_path: Path, capsys: Capture) -> None:
    dealt = tmp_path / "dealt.scenario"
    dealt.write_text('scenario "A deal"\ncites § 2.2 [P24]\n\ndeal seed 3 players alice bob\n\nplay\n',
                     encoding="utf-8")
    assert main(["explore", "--from", str(dealt)]) == 2
    assert "needs a scenario with a `table`" in capsys.readouterr().err


# ---------------------------------------------------------------- verify searches from every scenario table


def test_verify_finds_what_lies_too_deep_from_the_scenarios_tables(tmp_path: Path, capsys: Capture,
                                                                   make_variant: MakeVariant) -> None:
    # The same bug through `baobei verify`: no deal search reaches it, the search from the tables does,
    # and the scenario it writes (that table and the moves) replays to the same violation.
    rules = make_variant(*BAO_IN_FINAL_PHASE.edits)
    target = tmp_path / "found.scenario"
    code = main(["verify", "--rules", str(rules), "--players", "2", "--bmc-depth", "1", "--depth", "2",
                 "--states", "100", "--tables", str(SCENARIOS / "properties"), "--emit-scenario", str(target)])
    out = capsys.readouterr().out
    assert code == 1 and re.search(r"^violated\s+bao_caller_fixed\s+2 players", out, re.M), out
    assert "moves from the table of scenarios/properties/" in out and " bao" in out
    assert "Found 3 moves from the table of scenarios/properties/" in target.read_text(encoding="utf-8")
    assert main(["check", "--rules", str(rules), "-q", str(target)]) == 1
    assert "bao_caller_fixed" in capsys.readouterr().out
    # Without the tables, nothing finds it at these bounds.
    assert main(["verify", "--rules", str(rules), "--players", "2", "--bmc-depth", "1", "--depth", "2",
                 "--states", "100", "--table-depth", "0"]) == 0


def test_no_scenario_table_breaks_a_property_of_the_default_rules() -> None:
    eng = Engine(load_ruleset(default_rules_dir()))
    starts, skipped = scenario_tables(eng, SCENARIOS)
    assert skipped == 0 and sum(len(s) for s in starts.values()) > 100
    for players, tables in sorted(starts.items()):
        report = explore_tables(eng, tables, players, depth=2, states=40)
        assert report.failures == {}, {label: where for label, (where, _) in report.failures.items()}
        assert report.states >= len(tables)


def test_a_table_the_variant_cannot_build_is_skipped_and_counted(make_variant: MakeVariant) -> None:
    # A variant that renames a species: the tables that name the old one cannot be built under it.
    rules = make_variant(("01_deck.bao", "card Goldtukan     value -5", "card Goldtukn      value -5"))
    eng = Engine(load_ruleset(rules))
    naming = sum(1 for p in SCENARIOS.rglob("*.scenario") if "Goldtukan" in p.read_text(encoding="utf-8")
                 and "\ntable" in p.read_text(encoding="utf-8"))
    starts, skipped = scenario_tables(eng, SCENARIOS)
    assert 0 < skipped <= naming
    assert sum(len(s) for s in starts.values()) + skipped == sum(
        1 for p in SCENARIOS.rglob("*.scenario") if "\ntable" in p.read_text(encoding="utf-8"))


def test_an_ability_that_moves_a_moved_card_again_is_found_from_a_table(tmp_path: Path, capsys: Capture,
                                                                         make_variant: MakeVariant) -> None:
    # § 6.11 through a move: `movable` no longer reads the mark, so a second Schuhschnabel exchange replaces
    # the card the first one placed. The trace names held cards: its scenario must hold them by species.
    rules = make_variant(("05_abilities.bao", 'define movable(s: slot) = occupied(s) and not marked(card_at(s), '
                          '"moved") ', "define movable(s: slot) = occupied(s) "))
    target = tmp_path / "found.scenario"
    code = main(["verify", "--rules", str(rules), "--players", "2", "--bmc-depth", "1", "--depth", "2",
                 "--states", "100", "--tables", str(SCENARIOS / "birds"), "--table-depth", "5",
                 "--emit-scenario", str(target)])
    out = capsys.readouterr().out
    assert code == 1 and re.search(r"^violated\s+no_card_moved_twice\s+2 players", out, re.M), out
    text = target.read_text(encoding="utf-8")
    assert re.search(r"exchange_cards (own|other)_card=[A-Z]", text) and "#" not in text.split("\nplay\n", 1)[1]
    assert main(["check", "--rules", str(rules), "-q", str(target)]) == 1
    assert "invariant no_card_moved_twice" in capsys.readouterr().out


@pytest.mark.parametrize("given", [["--players", "3"], ["--deals", "2"], ["--seed", "5"], ["--full-deck"],
                                   ["--players", "2", "--knowledge"]])
def test_options_of_the_deals_do_not_apply_to_a_search_from_a_table(given: list[str], capsys: Capture) -> None:
    """--from takes its players, cards and properties from the table: an option that would be ignored there
    is refused, naming it, rather than passed over."""
    start = SCENARIOS / "pluck" / "defensive_own_draw.scenario"
    assert main(["explore", "--from", str(start), "--depth", "1", *given]) == 2
    err = capsys.readouterr().err
    assert "--from starts from the scenario's table" in err and all(g in err for g in given if g.startswith("--"))
