"""Bad rules input is refused when the rules load, with file:line:col, what was found and what was expected:
values of the wrong kind, a table without the row of an allowed player count, and syntax errors in the
words of a user (never the grammar's names for its terminals)."""

from __future__ import annotations

from pathlib import Path

import pytest
from baobei.language.errors import RulesError, ScenarioError, SourceError
from baobei.language.load import load_ruleset
from baobei.language.parser import grammar, parse_rules_text
from baobei.scenarios.parser import parse_scenario_text
from conftest import MakeVariant


def line_col(path: Path, needle: str) -> tuple[int, int]:
    """1-based line and column of the first occurrence of `needle` in a file; in `before|needle` the place is
    that of the part after the bar (the part before makes it unique)."""
    text = path.read_text(encoding="utf-8")
    before, _, after = needle.rpartition("|")
    index = text.index(before + after) + len(before)
    return text.count("\n", 0, index) + 1, index - (text.rfind("\n", 0, index) + 1) + 1


def refusal(directory: Path) -> RulesError:
    with pytest.raises(RulesError) as info:
        load_ruleset(directory)
    return info.value


def assert_refused_at(err: SourceError, path: Path, needle: str, message: str) -> None:
    """The error names the file, the line and column of `needle`, and says `message` (found and expected)."""
    line, column = line_col(path, needle)
    assert (err.pos.file, err.pos.line, err.pos.column) == (str(path), line, column), str(err)
    assert str(err).startswith(f"{path}:{line}:{column}: ")
    assert message in err.message, err.message


@pytest.mark.parametrize(("file", "old", "new", "needle", "message"), [
    ("06_bao.bao", 'var shield: str = "none"', "var shield: str = 5", "5 \"BAO",
     "the initial value of variable 'shield' must be a str (its declared type); this is an int"),
    ("02_setup.bao", 'require phase == "peek"', "require phase == 3", "phase == 3",
     "`==` compares values of one kind; this compares a str with an int"),
    ("06_bao.bao", 'set shield = "armed"', "set shield = 2", "2\n",
     "the value of 'shield' must be a str (its declared type); this is an int"),
    ("06_bao.bao", "set bao_caller = actor", "set bao_caller = source", "source\n",
     "the value of 'bao_caller' must be a player (its declared type); this is a card"),
    ("03_turn.bao", "require size(discard_pile) > 0", "require size(3) > 0", "3) > 0",
     "argument 1 of 'size' must be a list (players, cards, slots) or a pile; this is an int"),
    ("03_turn.bao", "require size(discard_pile) > 0", "require size(discard_pile) > \"none\"", "\"none\" else",
     "the comparison `>` needs a number; this is a str"),
    ("03_turn.bao", "require size(discard_pile) > 0", "require size(discard_pile)", "size(discard_pile) else",
     "a `require` of 'take' must be true or false; this is an int"),
    ("04_pluck.bao", "  show card_at(target)\n", "  show owner(target)\n", "show |owner(target)",
     "the card of `show` must be a card; this is a player"),
    ("02_setup.bao", "repeat dealt_hand {", "repeat phase {", "phase {",
     "the count of `repeat` must be an int; this is a str"),
], ids=["variable_initial_value", "phase_compared_with_a_number", "set_a_number_to_a_str", "set_a_card_to_a_player",
        "size_of_a_number", "number_compared_with_a_str", "require_of_a_number", "show_a_slot", "repeat_a_word"])
def test_a_value_of_the_wrong_kind_is_refused_where_it_is_written(make_variant: MakeVariant, file: str, old: str,
                                                                  new: str, needle: str, message: str) -> None:
    rules = make_variant((file, old, new))
    assert_refused_at(refusal(rules), rules / file, needle, message)


def test_a_table_without_the_row_of_an_allowed_player_count_is_refused(make_variant: MakeVariant) -> None:
    rules = make_variant(("07_scoring.bao", "  5: 70\n", ""))
    assert_refused_at(refusal(rules), rules / "07_scoring.bao", "table threshold",
                      "table 'threshold' has no row for 5 players: the rules allow 2 to 6 players")
    # A table every reading of which is by another number (here the round) is not one of player counts.
    rounds = make_variant(("07_scoring.bao", "  5: 70\n", ""),
                          ("07_scoring.bao", "total[p] >= threshold[player_count]", "total[p] >= threshold[round]"))
    (rounds / "09_invariants.bao").write_text((rounds / "09_invariants.bao").read_text(encoding="utf-8").replace(
        "threshold[seat_count]", "threshold[round]").replace("threshold[player_count]", "threshold[round]"),
        encoding="utf-8")
    load_ruleset(rounds)


SCENARIO = """\
scenario "s"
table
  players alice bob
  active alice bob
play
"""


def test_syntax_errors_say_what_may_be_typed_in_a_user_s_words(make_variant: MakeVariant, tmp_path: Path) -> None:
    rules = make_variant(("02_setup.bao", "  2: 5\n", "  2: x\n"))
    err = refusal(rules)
    assert_refused_at(err, rules / "02_setup.bao", "x\n", "found 'x', expected one of: a number")
    assert "signed" not in err.message.lower()
    path = tmp_path / "s.scenario"
    with pytest.raises(ScenarioError) as info:
        parse_scenario_text(SCENARIO, str(path))
    assert (info.value.pos.line, info.value.pos.column) == (4, 16)
    assert info.value.message == "found 'bob', expected one of: end of line"
    with pytest.raises(ScenarioError) as info:
        parse_scenario_text(SCENARIO.replace('scenario "s"', "scenario"), str(path))
    assert info.value.message == 'found end of line, expected one of: a quoted text ("...")'
    with pytest.raises(RulesError) as rules_info:
        parse_rules_text("players 2..x § 1.2 [P7]\n", "f.bao")
    assert str(rules_info.value).startswith("f.bao:1:12: found 'x', expected one of: a number (0 or more)")
    # Every terminal of both grammars that is a pattern, not one word to type, has words of its own.
    from baobei.language.parser import SPELLED

    for kind in ("rules", "scenario"):
        ignored = set(grammar(kind).lexer_conf.ignore)
        patterns = {t.name for t in grammar(kind).terminals if t.pattern.type == "re" and t.name not in ignored}
        assert patterns <= set(SPELLED), f"{kind}: no words for {sorted(patterns - set(SPELLED))}"


def test_a_planted_mistake_moving_a_card_to_a_number_is_refused_when_the_rules_load(make_variant: MakeVariant
                                                                                    ) -> None:
    """The planted mistake a search used to find at the first keep (the engine refused the destination) is
    now refused before anything runs: a slot number is no place for a card."""
    from planted import KEEP_LOSES_CARD

    variant = make_variant(*KEEP_LOSES_CARD.edits)
    err = refusal(variant)
    assert_refused_at(err, variant / "03_turn.bao", "move old to |slot_no(slot)",
                      "the destination of `move` must be a slot or a place; this is an int")
