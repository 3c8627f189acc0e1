"""The referee: game logs written by `play --log` replay clean; mutated logs are caught with the rule they
break; malformed logs are exit 2 with their place; the schema validates every log the project writes."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from baobei.cli import main
from baobei.engine.engine import Engine
from baobei.language.load import load_ruleset
from baobei.language.paths import PROJECT_ROOT, default_rules_dir
from baobei.referee.judge import Verdict, referee
from baobei.referee.logfile import LogError, parse_log, schema
from baobei.referee.write import LogWriter
from jsonschema import Draft202012Validator
from variants import PLAYABLE

MakeVariant = Callable[..., Path]
Capture = pytest.CaptureFixture[str]
RULES = default_rules_dir()


def write_log(eng: Engine, rules: Path, players: int, seed: int, moves: int = 400,
              viewer: int | None = None, names: list[str] | None = None) -> LogWriter:
    """A seeded random game of at most `moves` moves, written as a game log (players p1, p2 ... unless named)."""
    writer = LogWriter(eng, rules, names or [f"p{i + 1}" for i in range(players)], seed, viewer)
    rng = random.Random(seed)
    for _ in range(moves):
        move = eng.random_move(writer.st, rng)
        if move is None:
            break
        writer.move(move)
    return writer


def judge(eng: Engine, text: str, rules: Path = RULES, keep_going: bool = False) -> Verdict:
    return referee(eng, parse_log(text, "game.jsonl"), rules, keep_going)


def lines_of(writer: LogWriter) -> list[dict[str, Any]]:
    return [json.loads(line) for line in writer.lines]


def text_of(lines: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(line) + "\n" for line in lines)


@pytest.fixture(scope="module")
def game(default_engine: Engine) -> LogWriter:
    return write_log(default_engine, RULES, 3, 11)


# ---------------------------------------------------------------- clean logs


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_logs_of_play_replay_clean_for_every_player_count(default_engine: Engine, players: int) -> None:
    for seed in (1, 2):
        writer = write_log(default_engine, RULES, players, seed)
        verdict = judge(default_engine, writer.text())
        assert verdict.legal, verdict.findings[:1]
        assert verdict.moves == len(writer.lines) - 2 and verdict.claims > 10 * verdict.moves // 2


@pytest.mark.parametrize("variant", sorted(PLAYABLE))
def test_logs_of_every_rules_variant_replay_clean(make_variant: MakeVariant, variant: str) -> None:
    rules = make_variant(*PLAYABLE[variant])
    eng = Engine(load_ruleset(rules))
    for players, seed in ((2, 3), (3, 4), (4, 5)):
        if eng.rules.min_players <= players <= eng.rules.max_players:
            verdict = judge(eng, write_log(eng, rules, players, seed, 250).text(), rules)
            assert verdict.legal, (variant, players, verdict.findings[:1])


@pytest.mark.parametrize("players", [2, 4, 6])
def test_a_players_view_replays_clean(default_engine: Engine, players: int) -> None:
    for viewer in range(players):
        writer = write_log(default_engine, RULES, players, 10 + viewer, viewer=viewer)
        header = lines_of(writer)[0]
        assert header["view"] == f"p{viewer + 1}"
        assert any(card is None for row in header["dealt"]["tableaux"].values() for card in row)
        verdict = judge(default_engine, writer.text())
        assert verdict.legal, (viewer, verdict.findings[:1])


def test_the_schema_validates_every_log_the_project_writes(default_engine: Engine) -> None:
    validator = Draft202012Validator(schema())
    Draft202012Validator.check_schema(schema())
    for players, viewer in ((2, None), (3, 1), (6, None)):
        for line in lines_of(write_log(default_engine, RULES, players, 7, viewer=viewer)):
            assert validator.is_valid(line), (players, line)


def test_the_published_schema_is_the_referees(default_engine: Engine) -> None:
    published = json.loads((PROJECT_ROOT / "docs" / "log.schema.json").read_text(encoding="utf-8"))
    assert published == schema()


# ---------------------------------------------------------------- mutated logs


def first_error(eng: Engine, lines: list[dict[str, Any]]) -> tuple[int, str, str, str]:
    verdict = judge(eng, text_of(lines))
    assert not verdict.legal, "the mutated log was accepted"
    found = verdict.findings[0]
    return found.line, found.kind, found.rule, found.why


def index_of(lines: list[dict[str, Any]], test: Callable[[dict[str, Any]], bool]) -> int:
    return next(i for i, line in enumerate(lines) if i > 0 and test(line))


def test_an_inserted_illegal_move_is_named_with_its_rule(default_engine: Engine, game: LogWriter) -> None:
    lines = lines_of(game)
    at = index_of(lines, lambda line: str(line.get("move", "")).endswith(" draw"))
    drawer = lines[at]["move"].split()[0]
    other = next(p for p in ("p1", "p2", "p3") if p != drawer)
    lines.insert(at, {"move": f"{other} draw"})
    line, kind, rule, why = first_error(default_engine, lines)
    # At the round's first turn the finding cites the rule that chose the starter too (test_referee_leftovers).
    assert (line, kind) == (at + 1, "illegal move") and rule.startswith("§ 2.1 [P18]")
    assert why.startswith("only the active player may do this")


def test_a_turn_out_of_order_is_an_illegal_move(default_engine: Engine, game: LogWriter) -> None:
    lines = lines_of(game)
    start = index_of(lines, lambda line: str(line.get("move", "")).split()[1:2] in (["draw"], ["take"]))
    end = next(i for i in range(start, len(lines)) if str(lines[i].get("move", "")).endswith("end_turn"))
    mover = lines[start]["move"].split()[0]
    del lines[start:end + 1]  # the whole turn is missing: the next player acts out of turn
    line, kind, rule, why = first_error(default_engine, lines)
    assert kind == "illegal move" and line == start + 1
    moves = default_engine.rules.moves
    # The round's first turn: the rule that chose the starter is cited after the move's (test_referee_leftovers).
    cited = (str(moves["draw"].by_citation), str(moves["take"].by_citation))
    assert rule.startswith(cited) and "only the active player" in why
    assert mover not in lines[start]["move"].split()[0]


def test_a_draw_of_a_card_not_in_the_pile_is_an_impossible_outcome(default_engine: Engine,
                                                                   game: LogWriter) -> None:
    lines = lines_of(game)
    header = lines[0]
    dealt = header["dealt"]["tableaux"]["p1"][0]  # a card that lies on a slot, not in the draw pile
    at = index_of(lines, lambda line: bool(line.get("draws")))
    lines[at]["draws"] = [dealt]
    line, kind, rule, why = first_error(default_engine, lines)
    assert (line, kind) == (at + 1, "impossible outcome")
    assert rule.startswith("§") and f"the draw gave {dealt}" in why


def test_a_wrong_noted_score_is_a_wrong_claim(default_engine: Engine, game: LogWriter) -> None:
    lines = lines_of(game)
    at = index_of(lines, lambda line: any(c.startswith("noted[") for c in line.get("claims", [])))
    claims = lines[at]["claims"]
    i = next(i for i, c in enumerate(claims) if c.startswith("noted["))
    name, _, value = claims[i].partition(" = ")
    claims[i] = f"{name} = {int(value) + 1}"
    line, kind, _, why = first_error(default_engine, lines)
    assert (line, kind) == (at + 1, "wrong claim")
    assert f"expected {name} = {int(value) + 1}, actual {value}" in why


def test_a_claim_to_know_an_unseen_card_is_a_wrong_claim(default_engine: Engine, game: LogWriter) -> None:
    lines = lines_of(game)
    lines[1]["claims"] = [c.replace("p2 knows not p1.3", "p2 knows p1.3") for c in lines[1]["claims"]]
    line, kind, _, why = first_error(default_engine, lines)
    assert (line, kind) == (2, "wrong claim")
    assert "p2 knows p1.3" in why


FINAL_PHASE = ["players alice bob", "alice: Spatz, Amsel", "bob: Star, Meise", "draw: Kranich",
               "discard: Specht", "active alice", "phase turn_end", "set final_phase = true"]


def test_a_bao_in_the_final_phase_is_refused_with_its_rule(default_engine: Engine) -> None:
    log = [{"log": "baobei-log/1", "players": ["alice", "bob"], "table": FINAL_PHASE},
           {"move": "alice bao"}]
    line, kind, rule, why = first_error(default_engine, log)
    assert (line, kind, rule) == (2, "illegal move", "§ 7.2 [P167]")
    assert "final phase" in why


def test_all_lists_every_error_and_a_refused_line_changes_nothing(default_engine: Engine, game: LogWriter) -> None:
    lines = lines_of(game)
    lines.insert(3, {"move": "p1 end_turn"})  # during the peek nobody ends a turn
    lines[1]["claims"] = ["phase turn"]  # wrong: the round begins with the peek
    verdict = judge(default_engine, text_of(lines), keep_going=True)
    kinds = [(f.line, f.kind) for f in verdict.findings]
    assert kinds == [(2, "wrong claim"), (4, "illegal move")]
    # Every other line still replays: the refused move left the state as it was.
    assert verdict.moves == len(lines) - 3


# ---------------------------------------------------------------- implicit steps and hand-written logs


def test_a_log_without_end_turn_and_deal_replays(default_engine: Engine) -> None:
    writer = write_log(default_engine, RULES, 3, 20, moves=2000)
    lines = lines_of(writer)
    kept: list[dict[str, Any]] = []
    carried: dict[str, Any] = {}
    for line in lines:
        move = str(line.get("move", ""))
        if move.split()[1:2] in (["end_turn"], ["dealt"]):
            if "dealt" in line:
                carried = {"dealt": line["dealt"]}  # the next logged move deals implicitly
            continue
        kept.append({**line, **carried} if "move" in line else line)
        carried = {}
    bare = [{k: v for k, v in line.items() if k != "claims"} for line in kept]
    verdict = judge(default_engine, text_of([line for line in bare if line]))
    assert verdict.legal, verdict.findings[:1]
    assert verdict.implicit >= 10 and verdict.moves == sum(1 for line in kept[1:] if "move" in line)


DEALT = {"tableaux": {"ann": ["Spatz", "Amsel", "Star", "Meise", "Kranich"],
                      "ben": ["Flamingo", "Specht", "Ara", "Elster", "Spatz"]},
         "piles": {"discard": ["Star"]}, "picks": ["ann"]}
HAND_WRITTEN = json.dumps({"log": "baobei-log/1", "players": ["ann", "ben"], "dealt": DEALT}) + """
{"move": "ann look slot=ann.1"}
{"move": "ann look slot=ann.2"}
{"move": "ben look slot=ben.1"}
{"move": {"player": "ben", "name": "look", "args": {"slot": "ben.2"}}, "claims": ["phase turn", "active ann"]}
{"move": "ann draw", "draws": ["Spatz"], "claims": ["ann holds Spatz"]}
{"move": "ann pluck target=ann.1", "claims": ["ann.1 is empty", "discard top is Spatz"]}
{"move": "ben take slot=ben.3", "claims": ["ben.3 is Spatz", "discard top is Ara", "active ben"]}
"""


def test_a_hand_written_log_that_leaves_out_the_end_of_a_turn(default_engine: Engine) -> None:
    verdict = judge(default_engine, HAND_WRITTEN)
    assert verdict.legal, verdict.findings[:1]
    assert (verdict.moves, verdict.implicit, verdict.claims) == (7, 1, 8)


# ---------------------------------------------------------------- malformed logs and the command


@pytest.mark.parametrize(("text", "message"), [
    ("", "the log is empty"),
    ('{"log": "baobei-log/1", "players": ["a", "b"]\n', "game.jsonl:1:"),
    ('{"log": "baobei-log/2", "players": ["a", "b"], "dealt": {}}\n', "'baobei-log/1' was expected"),
    ('{"log": "baobei-log/1", "players": ["a", "b"], "dealt": {}}\n{"move": 3}\n', "game.jsonl:2:1"),
    ('{"log": "baobei-log/1", "players": ["a", "b"], "dealt": {"picks": ["a"]}}\n{"move": "a fly"}\n',
     "unknown move 'fly'"),
    ('{"log": "baobei-log/1", "players": ["a", "b"], "dealt": {"picks": ["a"]}}\n{"claims": ["a.1 iz Spatz"]}\n',
     "found 'iz'"),
    ('{"log": "baobei-log/1", "players": ["a"], "dealt": {}}\n', "1 player"),
])
def test_a_malformed_log_is_refused_with_its_place(default_engine: Engine, text: str, message: str) -> None:
    with pytest.raises(LogError) as caught:
        judge(default_engine, text)
    assert message in str(caught.value)


def test_referee_command_exit_codes_and_json(default_engine: Engine, game: LogWriter, tmp_path: Path,
                                            capsys: Capture) -> None:
    good = tmp_path / "good.jsonl"
    good.write_text(game.text(), encoding="utf-8")
    assert main(["referee", str(good)]) == 0
    assert "every move is legal and every claim is right" in capsys.readouterr().out
    lines = lines_of(game)
    lines.insert(2, {"move": "p3 bao"})
    bad = tmp_path / "bad.jsonl"
    bad.write_text(text_of(lines), encoding="utf-8")
    assert main(["referee", str(bad)]) == 1
    out = capsys.readouterr().out
    assert f"{bad}:3: illegal move: p3 bao breaks § 4.1 [P87]" in out
    assert "draw pile" in out  # the table at that moment
    assert main(["referee", "--json", str(bad)]) == 1
    verdict = json.loads(capsys.readouterr().out)
    assert verdict["verdict"] == "errors" and verdict["errors"][0]["line"] == 3
    malformed = tmp_path / "malformed.jsonl"
    malformed.write_text("{not json\n", encoding="utf-8")
    assert main(["referee", str(malformed)]) == 2
    assert f"{malformed}:1:2: not JSON" in capsys.readouterr().err


def test_play_log_writes_a_log_the_referee_accepts(tmp_path: Path, capsys: Capture) -> None:
    log = tmp_path / "game.jsonl"
    assert main(["play", "--players", "4", "--seed", "3", "--log", str(log)]) == 0
    assert "a game log of" in capsys.readouterr().err
    assert main(["referee", str(log)]) == 0
    assert main(["referee", "--rules", str(RULES.parent / "tests"), str(log)]) == 2  # no rules there
