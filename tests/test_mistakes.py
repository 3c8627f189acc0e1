"""The catalogue of common mistakes (grammar/mistakes.toml): every example is recognised as its own
mistake and no other, and the advice reaches the user inside a real file, with the position."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from baobei.language.errors import RulesError, ScenarioError
from baobei.language.parser import common_mistake, grammar, mistake_catalogue, parse_rules_text
from baobei.language.paths import default_rules_dir
from baobei.scenarios.parser import parse_scenario_text
from lark.exceptions import UnexpectedInput

CASES = [(kind, advice, example) for kind, entries in mistake_catalogue().items()
         for advice, examples in entries.items() for example in examples]


def test_the_catalogue_covers_both_languages() -> None:
    assert {kind for kind, _, _ in CASES} == {"rules", "scenario"}
    assert len(CASES) >= 6


@pytest.mark.parametrize(("kind", "advice", "example"), CASES)
def test_each_example_is_recognised_as_its_own_mistake(kind: str, advice: str, example: str) -> None:
    lark = grammar(kind)
    with pytest.raises(UnexpectedInput) as err:
        lark.parse(example)
    assert common_mistake(err.value, lark, kind) == advice


@pytest.mark.parametrize(("kind", "advice", "example"), CASES)
def test_the_advice_reaches_the_user_with_the_position(kind: str, advice: str, example: str) -> None:
    parse: Callable[[str, str], object] = parse_rules_text if kind == "rules" else parse_scenario_text
    error = RulesError if kind == "rules" else ScenarioError
    with pytest.raises(error) as err:
        parse(example, f"mistake.{kind}")
    assert str(err.value).startswith(f"mistake.{kind}:") and advice in str(err.value)


def test_the_advice_comes_for_a_mistake_after_other_declarations() -> None:
    # The parser is back at the top level after a declaration: the same mistake there is recognised too.
    text = (default_rules_dir() / "01_deck.bao").read_text(encoding="utf-8")
    wrong = text + '\nmove m "t" § 1.2 [P6]\n  by actor = active\n  do { }\n'
    with pytest.raises(RulesError) as err:
        parse_rules_text(wrong, "01_deck.bao")
    line = wrong.count("\n") - 1
    assert str(err.value).startswith(f"01_deck.bao:{line}:") and "compare with ==" in str(err.value)


def test_an_unrelated_error_gets_no_advice(tmp_path: Path) -> None:
    with pytest.raises(RulesError) as err:
        parse_rules_text("players 2..6 § 1.2 [P7] }\n", "x.bao")
    assert all(advice not in str(err.value) for _, advice, _ in CASES)


def test_the_advice_comes_for_a_mistake_inside_a_move_of_the_real_rules() -> None:
    text = (default_rules_dir() / "03_turn.bao").read_text(encoding="utf-8")
    wrong = text.replace('require phase == "drawn" else "discard is the decision right after drawing a card"',
                         'require phase = "drawn" else "discard is the decision right after drawing a card"')
    assert wrong != text
    with pytest.raises(RulesError) as err:
        parse_rules_text(wrong, "03_turn.bao")
    assert "compare with ==" in str(err.value)
