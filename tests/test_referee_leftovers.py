"""The referee's leftovers of an audit, one test per defect (each failed before its fix):

1. a failed pluck whose penalty draw the log leaves out names the failure and the rule of the penalty;
2. a slot beyond a player's tableau is said not to exist, with how many slots the player has;
3. a refused pluck chain and a wrong starting player cite the rules that forbid them;
4. a first deal without the random picks the rules make is refused with a message that says so;
5. `referee --json` is described by docs/verdict.schema.json, and a finding without a rule has a null rule.

The rules' citations are looked up in their declarations here too, never written out.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from baobei.cli import main
from baobei.engine.engine import Engine
from baobei.language import syntax as s
from baobei.language.paths import PROJECT_ROOT, default_rules_dir
from baobei.language.text import expr_text
from baobei.language.walk import runs, walk_stmts
from baobei.referee.judge import Finding, Verdict, referee
from baobei.referee.logfile import LogError, parse_log, schema
from baobei.referee.write import LogWriter
from jsonschema import Draft202012Validator
from test_referee import write_log

Line = dict[str, Any]
Capture = pytest.CaptureFixture[str]
RULES = default_rules_dir()
VERDICT_SCHEMA = PROJECT_ROOT / "docs" / "verdict.schema.json"

# ann draws the Rotkehlchen on top of the draw pile; none of her cards matches it.
TABLE: Line = {"log": "baobei-log/1", "players": ["ann", "ben"], "table": [
    "players ann ben", "ann: Spatz, Amsel, Kranich, Star, Meise", "ben: Spatz, Specht, Ara, Elster, Meise",
    "draw: Rotkehlchen, Spatz, Meise, Amsel, Star", "discard: Specht", "active ann"]}


def text_of(lines: list[Line]) -> str:
    return "".join(json.dumps(line) + "\n" for line in lines)


def judge(eng: Engine, lines: list[Line]) -> Verdict:
    return referee(eng, parse_log(text_of(lines), "game.jsonl"), RULES, False)


def first(eng: Engine, lines: list[Line]) -> Finding:
    verdict = judge(eng, lines)
    assert not verdict.legal, "the log was accepted"
    return verdict.findings[0]


def drawing_routine(eng: Engine, move: str) -> s.RoutineDecl:
    """The routine a move runs that draws a card: for a pluck, the failed attempt's penalty."""
    routines = eng.rules.routines
    found = [routines[name] for name in runs(eng.rules.moves[move].body)
             if any(isinstance(stmt, s.Draw) for stmt in walk_stmts(routines[name].body))]
    assert len(found) == 1, found
    return found[0]


def branch_condition(eng: Engine, move: str) -> s.Expr:
    """The condition of the move's `if` whose branches run what the attempt does (success or failure)."""
    return next(stmt.cond for stmt in walk_stmts(eng.rules.moves[move].body) if isinstance(stmt, s.IfStmt))


# ---------------------------------------------------------------- 1. a failed pluck's penalty draw left out


def test_a_failed_pluck_without_its_penalty_draw_names_the_failure_and_its_rule(default_engine: Engine) -> None:
    found = first(default_engine, [TABLE, {"move": "ann draw", "draws": ["Rotkehlchen"]},
                                   {"move": "ann pluck target=ann.1"}])
    penalty = drawing_routine(default_engine, "pluck")
    assert (found.line, found.kind) == (3, "impossible outcome")
    assert found.rule == str(penalty.cite) != str(default_engine.rules.moves["pluck"].cite)
    # The attempt failed: the cards do not match, so the rules run the failure, whose words name the penalty.
    assert f"`{expr_text(branch_condition(default_engine, 'pluck'))}` is false" in found.why
    assert f"the rules run {penalty.name} ({penalty.text})" in found.why and "penalty" in penalty.text
    assert "a card is drawn to ann.6" in found.why and "the log does not name the card drawn (draw 1" in found.why


# ---------------------------------------------------------------- 2. a slot that does not exist


def test_a_slot_beyond_the_tableau_is_said_not_to_exist(default_engine: Engine) -> None:
    for move, place in (("ann look slot=ann.99", "slot=ann.99"), ("ann take slot=ann.6", "slot=ann.6")):
        found = first(default_engine, [TABLE, {"move": move}])
        number = place.rpartition(".")[2]
        assert found.kind == "illegal move" and found.rule == ""
        assert found.why == f"ann has no slot {number} ({place}): ann has 5 slots (ann.1 to ann.5)"
        assert found.others and all(rule.startswith("§") for rule, _ in found.others)  # the rules' reasons follow
        assert found.to_json()["rule"] is None


# ---------------------------------------------------------------- 3. a pluck chain, a wrong starting player


def starter_routine(eng: Engine) -> s.RoutineDecl:
    """The routine the deal runs that starts a turn: the rule of who starts a round."""
    routines = eng.rules.routines
    found = [routines[name] for name in runs(eng.rules.hooks["round_start"].body)
             if any(isinstance(stmt, s.StartTurn) for stmt in walk_stmts(routines[name].body))]
    assert len(found) == 1, found
    return found[0]


def the_require(eng: Engine, move: str, found: Finding) -> s.Require:
    return next(r for r in eng.rules.moves[move].requires if found.why.startswith(r.reason))


def second_round(eng: Engine) -> list[Line]:
    """A seeded game of three players written as a log up to the second round's first turn move."""
    for seed in range(1, 40):
        writer = LogWriter(eng, RULES, ["p1", "p2", "p3"], seed)
        rng = random.Random(seed)
        while not (writer.st.round == 2 and writer.st.phase != "peek"):
            move = eng.random_move(writer.st, rng)
            if move is None or len(writer.lines) > 400:
                break
            writer.move(move)
        else:
            return [json.loads(line) for line in writer.lines]
    raise AssertionError("no seeded game reached a second round")


def test_a_pluck_chain_and_a_wrong_starter_cite_the_rules_against_them(default_engine: Engine) -> None:
    eng = default_engine
    # ann draws a Spatz and plucks her own with it: the card removed is no new reference.
    chain = [{**TABLE, "table": [*TABLE["table"][:3], "draw: Spatz, Meise, Star", *TABLE["table"][4:]]},
             {"move": "ann draw", "draws": ["Spatz"]}, {"move": "ann pluck target=ann.1"}]
    found = first(eng, [*chain, {"move": "ben pluck target=ben.1"}])
    used = the_require(eng, "pluck", found)
    assert found.rule == str(used.cite) and "window_used" in expr_text(used.cond)
    found = first(eng, [*chain, {"move": "ann end_turn"}, {"move": "ben pluck target=ben.1"}])
    closed = the_require(eng, "pluck", found)
    assert found.rule == str(closed.cite) and "window_ref" in expr_text(closed.cond)

    lines = second_round(eng)
    deal = max(i for i, line in enumerate(lines) if i > 0 and "dealt" in line)
    starter = next(c.split()[1] for c in lines[deal]["claims"] if c.startswith("active "))
    other = next(p for p in ("p1", "p2", "p3") if p != starter)
    chose = starter_routine(eng)
    found = first(eng, [*lines[:-1], {"move": f"{other} draw", "draws": ["Spatz"]}])
    assert found.kind == "illegal move" and str(eng.rules.moves["draw"].by_citation) in found.rule
    assert str(chose.cite) in found.rule
    assert f"{starter} starts round 2: {chose.text}" in found.why
    lines[deal]["claims"] = [f"active {other}" if c.startswith("active ") else c for c in lines[deal]["claims"]]
    found = first(eng, lines[:deal + 1])
    assert (found.kind, found.rule) == ("wrong claim", str(chose.cite))
    assert f"{starter} starts round 2" in found.why


# ---------------------------------------------------------------- 4. the first deal's random picks


def test_a_first_deal_without_its_picks_says_they_are_required(default_engine: Engine) -> None:
    writer = LogWriter(default_engine, RULES, ["p1", "p2", "p3"], 7)
    header = json.loads(writer.lines[0])
    assert header["dealt"]["picks"], "the rules pick the starting player at random"
    del header["dealt"]["picks"]
    with pytest.raises(LogError) as caught:
        judge(default_engine, [header])
    message = caught.value.message
    assert "the rules pick a player at random while dealing (one of p1, p2, p3)" in message
    assert "the header's `dealt` has no `picks`: `dealt.picks` is required whenever the rules pick" in message
    described = schema()["$defs"]["deal"]["properties"]["picks"]["description"]
    assert "Required in the header's `dealt` whenever the rules pick at random while dealing" in described
    published = json.loads((PROJECT_ROOT / "docs" / "log.schema.json").read_text(encoding="utf-8"))
    assert published == schema()


# ---------------------------------------------------------------- 5. the verdict's schema


def referee_json(argv: list[str], capsys: Capture) -> tuple[int, Any]:
    code = main(["referee", "--json", *argv])
    return code, json.loads(capsys.readouterr().out)


def test_the_json_verdict_follows_its_schema_and_no_rule_is_empty(tmp_path: Path, default_engine: Engine,
                                                                  capsys: Capture) -> None:
    published = json.loads(VERDICT_SCHEMA.read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(published)
    validator = Draft202012Validator(published)
    writer = LogWriter(default_engine, RULES, ["p1", "p2"], 3)
    legal = tmp_path / "legal.jsonl"
    legal.write_text(writer.text(), encoding="utf-8")
    wrong = tmp_path / "wrong.jsonl"  # a wrong claim (no rule), a missing slot (no rule), a refused move
    wrong.write_text(text_of([TABLE, {"claims": ["active ben"]}, {"move": "ann look slot=ann.99"},
                              {"move": "ben draw", "draws": ["Spatz"]}]), encoding="utf-8")
    malformed = tmp_path / "malformed.jsonl"
    malformed.write_text("{not json\n", encoding="utf-8")
    outputs = [referee_json([str(legal)], capsys), referee_json(["--all", str(wrong)], capsys),
               referee_json([str(malformed)], capsys), referee_json([str(tmp_path)], capsys)]
    assert [code for code, _ in outputs] == [0, 1, 2, 2]
    for _, document in outputs:
        errors = [e.message for e in validator.iter_errors(document)]
        assert not errors, errors
    findings = outputs[1][1]["errors"]
    assert [f["rule"] is None for f in findings] == [True, True, False]
    assert not validator.is_valid({**outputs[1][1], "errors": [{**findings[0], "rule": ""}]})


@pytest.mark.parametrize("name", ["seed", "turn"])
def test_a_table_headers_player_named_by_a_scenario_word_is_refused_as_reserved(default_engine: Engine,
                                                                                 name: str) -> None:
    """A `table` header is read as a scenario's table, whose words (`seed`, `turn`) the claims do not reserve:
    such a player is refused by name, not with the syntax error the table would give."""
    table = [line.replace("ann", name) for line in TABLE["table"]]
    with pytest.raises(LogError) as caught:
        judge(default_engine, [{**TABLE, "players": [name, "ben"], "table": table}])
    message = caught.value.message
    assert message.startswith(f"found {name!r} as a player's name, but it is a reserved word"), message
    assert "a log with `dealt` may use these names" in message


def test_a_dealt_headers_player_may_be_named_by_a_scenario_word(default_engine: Engine) -> None:
    writer = write_log(default_engine, RULES, 2, 3, 20, names=["seed", "turn"])
    verdict = judge(default_engine, [json.loads(line) for line in writer.lines])
    assert verdict.legal, [f.why for f in verdict.findings]
