"""Load-time checks that mutation testing found untested: definition cycles hidden inside larger
expressions, and the kind of a card bound by `draw ... as NAME`."""

from __future__ import annotations

import pytest
from baobei.engine.engine import Engine
from baobei.language.errors import RulesError
from baobei.language.load import load_ruleset
from conftest import MakeVariant

MATCHES = "define matches(a: card, b: card) = family(a) == family(b) §"
DRAWN = "      peek actor c\n"


def test_a_definition_cycle_through_calls_inside_larger_expressions_is_refused(make_variant: MakeVariant) -> None:
    # Each call sits inside arithmetic, a comparison and an `and`: the cycle is found all the same.
    rules = make_variant(("01_deck.bao", MATCHES, "define matches(a: card, b: card) = family(a) == family(b) "
                          "and 1 + loop_a(a) > 0 §"),
                         ("02_setup.bao", "define initial_peek = 2 ", "define loop_a(c: card) = 1 + 2 * loop_b(c) "
                          "§ 1.2 [P9] \"a\"\ndefine loop_b(c: card) = -(if true then 1 - loop_a(c) else 0) "
                          "§ 1.2 [P9] \"b\"\ndefine initial_peek = 2 "))
    with pytest.raises(RulesError, match=r"definitions call each other in a cycle: matches -> loop_a -> loop_b -> "
                       "loop_a"):
        load_ruleset(rules)


def test_a_definition_cycle_met_while_working_out_a_kind_is_refused(make_variant: MakeVariant) -> None:
    # A filter's domain has its kind worked out, which follows definitions into their bodies: the cycle
    # must be reported before that, not end in a RecursionError (found by test_fuzz).
    rules = make_variant(("02_setup.bao", "define initial_peek = 2 ",
                          "define loop_a = if true then loop_b(1) else players § 1.2 [P9] \"a\"\n"
                          "define loop_b(x: int) = if x > 0 then loop_a else players § 1.2 [P9] \"b\"\n"
                          "define loop_c = [p in loop_a where true] § 1.2 [P9] \"c\"\n"
                          "define initial_peek = 2 "))
    with pytest.raises(RulesError, match="definitions call each other in a cycle: loop_a -> loop_b -> loop_a"):
        load_ruleset(rules)


def test_a_definition_that_names_itself_inside_an_expression_is_refused(make_variant: MakeVariant) -> None:
    rules = make_variant(("02_setup.bao", "define initial_peek = 2 ", "define initial_peek = 1 + initial_peek "))
    with pytest.raises(RulesError, match="definitions call each other in a cycle: initial_peek -> initial_peek"):
        load_ruleset(rules)


def test_a_card_drawn_as_a_name_is_a_card_where_a_player_belongs(make_variant: MakeVariant) -> None:
    rules = make_variant(("03_turn.bao", DRAWN, DRAWN + "      let o = others(c)\n"))
    with pytest.raises(RulesError, match=r"03_turn\.bao:\d+:\d+: argument 1 of 'others' is a player; this is a card"):
        load_ruleset(rules)


def test_a_card_drawn_as_a_name_serves_where_a_card_belongs(make_variant: MakeVariant) -> None:
    rules = make_variant(("03_turn.bao", DRAWN, DRAWN + "      let v = value(c) + size(held(owner(slot(actor, 1))))\n"))
    Engine(load_ruleset(rules))  # loads and compiles: a card where a card belongs
