"""Malformed rules files are refused with a RulesError naming file:line:col and what is wrong."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from baobei.engine.engine import Engine
from baobei.language.errors import RulesError
from baobei.language.load import load_ruleset
from baobei.language.parser import expand_paras, parse_rules_text
from baobei.language.paths import default_rules_dir

MakeVariant = Callable[..., Path]  # the make_variant fixture of conftest.py


def line_col(path: Path, needle: str, nth: int = 1) -> tuple[int, int]:
    """1-based line and column of the nth occurrence of `needle` in a file."""
    text = path.read_text(encoding="utf-8")
    index = -1
    for _ in range(nth):
        index = text.index(needle, index + 1)
    line = text.count("\n", 0, index) + 1
    column = index - (text.rfind("\n", 0, index) + 1) + 1
    return line, column


def load_error(directory: Path) -> RulesError:
    """The error of loading and compiling a rules directory (the test fails if there is none)."""
    with pytest.raises(RulesError) as info:
        Engine(load_ruleset(directory))
    return info.value


def assert_at(err: RulesError, path: Path, line: int, column: int) -> None:
    assert (err.pos.file, err.pos.line, err.pos.column) == (str(path), line, column)
    assert str(err).startswith(f"{path}:{line}:{column}: ")


def test_rules_error_is_a_value_error() -> None:
    assert issubclass(RulesError, ValueError)


def test_default_rules_load_and_compile() -> None:
    rules = load_ruleset(default_rules_dir())
    Engine(rules)
    assert rules.moves and rules.species and rules.hooks


def test_missing_brace_names_what_was_found_and_expected(make_variant: MakeVariant) -> None:
    d = make_variant(("05_abilities.bao", "do { peek actor card_at(target) }", "do { peek actor card_at(target)"))
    path = d / "05_abilities.bao"
    err = load_error(d)
    # The block runs on into the next declaration: that keyword is what the parser finds.
    assert_at(err, path, *line_col(path, "ability show_card"))
    assert "found 'ability'" in err.message
    assert "expected one of:" in err.message and "'}'" in err.message
    assert "ability show_card" in str(err)  # the source line is quoted under the message


def test_unknown_token(make_variant: MakeVariant) -> None:
    d = make_variant(("07_scoring.bao", "define bao_failure_min = 5 ", "define bao_failure_min = 5 $ "))
    path = d / "07_scoring.bao"
    err = load_error(d)
    assert_at(err, path, *line_col(path, "$"))
    assert "unexpected character '$'" in err.message
    assert "expected one of:" in err.message


def test_unknown_name_is_reported_by_the_compiler_with_its_position(make_variant: MakeVariant) -> None:
    d = make_variant(("07_scoring.bao", "2 * round_value(p), bao_failure_min)", "2 * round_value(p), bao_failur_min)"))
    path = d / "07_scoring.bao"
    load_ruleset(d)  # syntactically fine: only name resolution finds the mistake
    err = load_error(d)
    assert_at(err, path, *line_col(path, "bao_failur_min"))
    assert "unknown name 'bao_failur_min'" in err.message


def test_duplicate_move(make_variant: MakeVariant) -> None:
    d = make_variant(("06_bao.bao", "move bao ", "move end_turn "))
    path = d / "06_bao.bao"
    err = load_error(d)
    assert_at(err, path, *line_col(path, "move end_turn"))
    assert "'end_turn'" in err.message and "declared twice" in err.message


def test_unknown_ability_on_a_card(make_variant: MakeVariant) -> None:
    d = make_variant(("01_deck.bao", "family Pelikan ability peek", "family Pelikan ability spy"))
    path = d / "01_deck.bao"
    err = load_error(d)
    assert_at(err, path, *line_col(path, "card Weisspelikan"))
    assert "unknown ability 'spy'" in err.message and "Weisspelikan" in err.message


def test_definition_cycle(make_variant: MakeVariant) -> None:
    d = make_variant(("07_scoring.bao", "define bao_failure_min = 5 ", "define bao_failure_min = bao_score(active) "))
    path = d / "07_scoring.bao"
    err = load_error(d)
    assert "cycle" in err.message
    assert "bao_failure_min" in err.message and "bao_score" in err.message
    # Reported at one of the definitions on the cycle.
    starts = {line_col(path, "define bao_failure_min"), line_col(path, "define bao_score")}
    assert (err.pos.line, err.pos.column) in starts
    assert err.pos.file == str(path)


def test_routine_called_with_the_wrong_arity(make_variant: MakeVariant) -> None:
    d = make_variant(("03_turn.bao", "do { run finish_turn }", "do { run finish_turn(actor) }"))
    path = d / "03_turn.bao"
    err = load_error(d)
    assert_at(err, path, *line_col(path, "run finish_turn(actor)"))
    assert "'finish_turn'" in err.message and "takes 0 argument" in err.message


def test_empty_player_range(make_variant: MakeVariant) -> None:
    d = make_variant(("02_setup.bao", "players 2..6", "players 6..2"))
    path = d / "02_setup.bao"
    err = load_error(d)
    assert_at(err, path, *line_col(path, "players 6..2"))
    assert "6..2" in err.message and "empty" in err.message


def test_unknown_routine(make_variant: MakeVariant) -> None:
    d = make_variant(("03_turn.bao", "do { run finish_turn }", "do { run finish_turns }"))
    path = d / "03_turn.bao"
    err = load_error(d)
    assert_at(err, path, *line_col(path, "run finish_turns"))
    assert "unknown routine 'finish_turns'" in err.message


def test_paragraph_ranges_expand() -> None:
    assert expand_paras([("P3", "P5"), ("P9", None)]) == ("P3", "P4", "P5", "P9")
    rules_file = parse_rules_text("players 2..6 § 1.2 [P3-P5, P9]\n", "inline.bao")
    (decl,) = rules_file.decls
    cite = decl.cite  # type: ignore[attr-defined]
    assert cite.section == "1.2"
    assert cite.paras == ("P3", "P4", "P5", "P9")


def test_paragraph_ranges_expand_in_the_default_rules() -> None:
    rules = load_ruleset(default_rules_dir())
    # 02_setup.bao writes `table hand_size ... § 1.2 [P6-P8]`.
    assert rules.tables["hand_size"].cite.paras == ("P6", "P7", "P8")


# ---------------------------------------------------------------- checks on the checked model


def test_a_builtin_given_the_wrong_kind_is_refused_at_load(make_variant: MakeVariant) -> None:
    # `cards` reads a player's tableau; a card is no player (both are numbers inside the engine).
    old = "require size(cards(actor)) > 0 else \"with no own card nothing can be replaced"
    d = make_variant(("03_turn.bao", old, old.replace("cards(actor)", "cards(card_at(slot))")))
    err = load_error(d)
    assert_at(err, d / "03_turn.bao", *line_col(d / "03_turn.bao", "card_at(slot))) > 0"))
    assert "argument 1 of 'cards' is a player; this is a card" in err.message


def test_routines_that_run_each_other_in_a_cycle_are_refused(make_variant: MakeVariant) -> None:
    old = "if deciding { run end_decision_round } else { run end_normal_round }"
    d = make_variant(("07_scoring.bao", old, old + "\n  if false { run end_round }"))
    err = load_error(d)
    assert "routines run each other in a cycle: end_round -> end_round" in err.message
    assert err.pos.file == str(d / "07_scoring.bao")


def test_an_unknown_variable_type_is_refused(make_variant: MakeVariant) -> None:
    d = make_variant(("06_bao.bao", "var bao_caller: player = none", "var bao_caller: widget = none"))
    err = load_error(d)
    assert_at(err, d / "06_bao.bao", *line_col(d / "06_bao.bao", "var bao_caller"))
    assert "unknown type 'widget'" in err.message


def test_two_table_rows_for_one_player_count_are_refused(make_variant: MakeVariant) -> None:
    d = make_variant(("02_setup.bao", "  3..6: 4\n", "  3..6: 4\n  6: 3\n"))
    assert "table 'hand_size' has two rows for 6" in load_error(d).message


def test_a_paragraph_range_that_does_not_go_up_is_refused(make_variant: MakeVariant) -> None:
    d = make_variant(("03_turn.bao", "keep is the decision right after drawing a card\" § 2.2 [P25, P26]",
                      "keep is the decision right after drawing a card\" § 2.2 [P26-P25]"))
    err = load_error(d)
    assert "paragraph range P26-P25 does not go up" in err.message
    assert_at(err, d / "03_turn.bao", *line_col(d / "03_turn.bao", "P26-P25"))


def test_a_shuffle_source_must_be_a_declared_pile(make_variant: MakeVariant) -> None:
    d = make_variant(("08_recycle.bao", "shuffle discard_pile except top", "shuffle discard_heap except top"))
    err = load_error(d)
    assert_at(err, d / "08_recycle.bao", *line_col(d / "08_recycle.bao", "shuffle discard_heap"))
    assert "cannot shuffle 'discard_heap'" in err.message


@pytest.mark.parametrize(("definition", "message"), [
    ("define bad = sum p in players: value(p)", "argument 1 of 'value' is a card; this is a player"),
    ("define bad = round_value(top(discard_pile))", "argument 1 of 'round_value' is a player; this is a card"),
    ("define bad = top(active)", "argument 1 of 'top' is a place; this is a player"),
])
def test_kinds_of_local_names_and_definition_arguments_are_checked(make_variant: MakeVariant, definition: str,
                                                                    message: str) -> None:
    d = make_variant()
    with (d / "07_scoring.bao").open("a", encoding="utf-8") as f:
        f.write("\n" + definition + "\n")
    err = load_error(d)
    assert message in err.message and err.pos.file == str(d / "07_scoring.bao")


@pytest.mark.parametrize("definition", [
    "define ok(p: player) = sum p in cards(p): value(p)",  # a local may shadow a name of another kind
    "define ok = size(cards(first p in contenders where true))",
    "define ok = first c in cards(active) where value(c) > 3",
])
def test_well_kinded_definitions_load(make_variant: MakeVariant, definition: str) -> None:
    d = make_variant()
    with (d / "07_scoring.bao").open("a", encoding="utf-8") as f:
        f.write("\n" + definition + "\n")
    Engine(load_ruleset(d))


@pytest.mark.parametrize(("old", "new", "message"), [
    ("card Spatz         value 1  count 5\n", "card Spatz         value 1  count 100000000\n",
     "'Spatz' has 100000000 cards; a deck holds at most 1000"),
    ("card Spatz         value 1  count 5\n", "card Spatz         value 1  count 990\n",
     "the deck has 1051 cards; a deck holds at most 1000"),
    ("card Spatz         value 1  count 5\n", "card Spatz         value 5000000  count 5\n",
     "values lie between -1000000 and 1000000"),
])
def test_resource_limits_are_checked_when_the_rules_load(make_variant: MakeVariant, old: str, new: str,
                                                         message: str) -> None:
    rules = make_variant(("01_deck.bao", old, new))
    with pytest.raises(RulesError, match=re.escape(message)) as err:
        load_ruleset(rules)
    assert "01_deck.bao:" in str(err.value)


def test_a_player_range_beyond_the_limit_is_refused(make_variant: MakeVariant) -> None:
    rules = make_variant(("02_setup.bao", "players 2..6 ", "players 2..600 "))
    with pytest.raises(RulesError, match="at most 26 players"):
        load_ruleset(rules)
