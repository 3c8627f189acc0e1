"""The referee against logs an independent implementation writes: what its author may give (the draw pile in
the deal), what a table line cannot hold (a numbered card), and messages that name what went wrong (a
BAO caller's turn too many, outcomes the move did not make). Each test failed before its fix."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

import pytest
from baobei.engine.engine import Engine
from baobei.language.paths import default_rules_dir
from baobei.referee.judge import Verdict, referee
from baobei.referee.logfile import LogError, parse_log
from baobei.referee.write import LogWriter
from test_referee import write_log

Line = dict[str, Any]
RULES = default_rules_dir()


def text_of(lines: list[Line]) -> str:
    return "".join(json.dumps(line) + "\n" for line in lines)


def judge(eng: Engine, lines: list[Line]) -> Verdict:
    return referee(eng, parse_log(text_of(lines), "game.jsonl"), RULES, False)


@pytest.fixture(scope="module")
def game(default_engine: Engine) -> tuple[LogWriter, list[Line]]:
    writer = write_log(default_engine, RULES, 3, 7, 60)
    lines = [json.loads(line) for line in writer.lines]
    # Up to the first recycle or new deal: until then every draw is the next card of the pile as dealt.
    end = next((i for i, line in enumerate(lines) if i > 0 and ("shuffles" in line or "dealt" in line)), len(lines))
    return writer, lines[:end]


def draw_pile_bottom_first(writer: LogWriter, lines: list[Line]) -> list[str]:
    """The draw pile as dealt, bottom first: the cards nobody drew (any order), then the drawn ones, the first
    drawn on top."""
    deal = lines[0]["dealt"]
    placed = [c for row in deal["tableaux"].values() for c in row] + [c for p in deal["piles"].values() for c in p]
    drawn = [c for line in lines[1:] for c in line.get("draws", [])]
    deck = [writer.st.facts.label(c) for c in range(len(writer.st.known))]
    rest = [c for c in deck if c not in placed and c not in drawn]
    return rest + list(reversed(drawn))


def with_draw_pile(lines: list[Line], pile: Sequence[str | None]) -> list[Line]:
    header = json.loads(json.dumps(lines[0]))
    header["dealt"]["piles"]["draw_pile"] = list(pile)
    return [header, *lines[1:]]


def test_a_draw_pile_in_the_deal_gives_the_order_the_draws_follow(default_engine: Engine,
                                                                  game: tuple[LogWriter, list[Line]]) -> None:
    writer, lines = game
    pile = draw_pile_bottom_first(writer, lines)
    assert sum(len(line.get("draws", [])) for line in lines) >= 2, "the game draws too little to test the order"
    assert judge(default_engine, with_draw_pile(lines, pile)).legal
    swapped = [*pile[:-2], pile[-1], pile[-2]]  # the first two draws' cards the other way round
    verdict = judge(default_engine, with_draw_pile(lines, swapped))
    assert not verdict.legal
    assert verdict.findings[0].kind == "impossible outcome"
    assert "the draw pile's order is known (the log's deal" in verdict.findings[0].why


def test_a_draw_pile_in_the_deal_names_every_card(default_engine: Engine,
                                                  game: tuple[LogWriter, list[Line]]) -> None:
    writer, lines = game
    pile: list[str | None] = list(draw_pile_bottom_first(writer, lines))
    pile[0] = None
    with pytest.raises(LogError, match=r"lists the draw pile with a card left out \(null\)"):
        judge(default_engine, with_draw_pile(lines, pile))


def test_a_numbered_card_in_a_table_line_is_refused_not_cut_short(default_engine: Engine) -> None:
    header = {"log": "baobei-log/1", "players": ["ann", "bob"],
              "table": ["ann: Spatz#3, Amsel, Kranich", "bob: Star, Meise, Amsel"]}
    with pytest.raises(LogError, match=r"'Spatz#3' names a numbered card, but a table names species only"):
        judge(default_engine, [header])


TWO_PLAYER_TABLE: Line = {"log": "baobei-log/1", "players": ["ann", "ben"], "table": [
    "players ann ben", "ann: Spatz, Amsel, Kranich, Star, Meise", "ben: Flamingo, Specht, Ara, Elster, Meise",
    "draw: Rotkehlchen, Spatz, Meise, Amsel, Star", "discard: Specht", "active ann"]}
ROUND_TO_ITS_END: list[Line] = [
    {"move": "ann draw", "draws": ["Rotkehlchen"]}, {"move": "ann discard"}, {"move": "ann bao"},
    {"move": "ben draw", "draws": ["Spatz"]}, {"move": "ben discard"}, {"move": "ben end_turn"}]


def test_a_turn_too_many_after_bao_names_the_rule_that_ended_the_round(default_engine: Engine) -> None:
    """Two players: after ann's BAO ben has the last turn, and the round is over. Another move of ann is one
    too many for the round, or the first of the next one, whose deal the log would have to give: the finding
    says both, with the rule that ended the round."""
    verdict = judge(default_engine, [TWO_PLAYER_TABLE, *ROUND_TO_ITS_END, {"move": "ann draw", "draws": ["Meise"]}])
    found = verdict.findings[0]
    assert (found.line, found.kind) == (8, "impossible outcome")
    assert found.rule.startswith("§ 4.1")
    assert "The round is over" in found.why and "the line does not say the deal (`dealt`)" in found.why


def test_an_outcome_the_move_did_not_make_is_named_without_draws(default_engine: Engine) -> None:
    verdict = judge(default_engine, [TWO_PLAYER_TABLE, {"move": "ann draw", "draws": ["Rotkehlchen"],
                                                         "shuffles": [["Spatz"]]}])
    assert verdict.findings[0].why == "the log names 1 shuffle more than the move made"


@pytest.mark.parametrize("name", ["spatz", "Dodo"])
def test_a_name_that_is_no_card_of_the_rules_is_said_to_be_none(default_engine: Engine, name: str) -> None:
    """A lowercase species or one of other rules: the log names no card of the deck, and is told so with the
    species it may name, not that the deck holds too few of it or that the pile's top is another card."""
    header = {"log": "baobei-log/1", "players": ["ann", "ben"],
              "table": ["players ann ben", "ann: Spatz, Amsel, Kranich, Star, Meise",
                        "ben: Flamingo, Specht, Ara, Elster, Meise", "draw: Rotkehlchen, Spatz", "discard: Specht",
                        "active ann"]}
    verdict = judge(default_engine, [header, {"move": "ann draw", "draws": [name]}])
    assert verdict.findings[0].why.startswith(f"the log says the draw gave {name}, but {name} is no card of "
                                              "these rules")


@pytest.mark.parametrize(("line", "message"), [
    ('{"move": null}', "at move: null is not a string or an object"),
    ('{"move": 5}', "at move: 5 is not a string or an object"),
    ('{"move": "ann draw", "draws": [NaN]}', "at draws.0: NaN is not a string or null"),
    ('{"log": "baobei-log/1", "players": ["ann", "ben"]}', "unexpected fields 'log', 'players' (allowed here: move,"),
])
def test_a_line_against_the_schema_is_told_in_jsons_words(default_engine: Engine, line: str, message: str) -> None:
    """JSON's words for what is wrong (null, an object), not Python's (None, 'object'), and a header given twice
    named by its fields."""
    header = json.dumps(TWO_PLAYER_TABLE)
    with pytest.raises(LogError, match=re.escape(message)):
        referee(default_engine, parse_log(f"{header}\n{line}\n", "game.jsonl"), RULES, False)


def test_a_header_with_a_deal_and_a_table_is_told_to_give_one(default_engine: Engine) -> None:
    both = dict(TWO_PLAYER_TABLE, dealt={"tableaux": {}})
    with pytest.raises(LogError, match=re.escape("give one of `dealt` or `table`, not more")):
        judge(default_engine, [both])


def test_a_key_given_twice_in_a_line_is_refused(default_engine: Engine) -> None:
    """`{"move": "ann draw", "move": "ben draw"}`: Python's reader keeps the last value, others the first; a
    referee must not judge a move the log's author may not have meant."""
    header = json.dumps(TWO_PLAYER_TABLE)
    with pytest.raises(LogError, match=r"the key 'move' is given twice in one object"):
        referee(default_engine, parse_log(f'{header}\n{{"move": "ann draw", "move": "ben draw"}}\n', "g.jsonl"),
                RULES, False)


def test_after_an_error_a_claim_the_state_cannot_judge_is_wrong_not_malformed(default_engine: Engine) -> None:
    """Under --all, after an illegal move the referee's state is not the log's: a claim about a card on a slot
    now empty is a wrong claim. It made the whole verdict 'malformed' and lost the errors found; without an
    earlier error such a claim is still a malformed log."""
    lines = [TWO_PLAYER_TABLE, {"move": "ben draw"},
             {"move": "ann draw", "draws": ["Rotkehlchen"], "claims": ["ann knows ann.6"]}]
    verdict = referee(default_engine, parse_log(text_of(lines), "game.jsonl"), RULES, True)
    assert [f.kind for f in verdict.findings] == ["illegal move", "wrong claim"]
    assert "ann knows ann.6: it cannot hold here, after the log's earlier error:" in verdict.findings[1].why
    with pytest.raises(LogError, match=re.escape("claim 1 'ann knows ann.6'")):
        judge(default_engine, [TWO_PLAYER_TABLE, lines[2]])
