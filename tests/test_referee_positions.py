"""Where the referee says a malformed log is wrong: a header `table`'s error by the table line it is in (the
scenario parser counts a `table` line of its own before them), and a move's error by the part of the move
it is about (its player, its name, which argument and, in a move text, at which character), said once."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from baobei.cli import main
from baobei.engine.engine import Engine
from baobei.language.paths import default_rules_dir
from baobei.referee.judge import referee
from baobei.referee.logfile import LogError, parse_log

Line = dict[str, Any]
RULES = default_rules_dir()
DEAL: Line = {"tableaux": {"ann": ["Goldtukan", "Amsel", "Spatz", "Meise", "Star"],
                           "ben": ["Flamingo", "Specht", "Ara", "Elster", "Spatz"]},
              "piles": {"discard_pile": ["Star"]}, "picks": ["ann"]}
FULL: Line = {"log": "baobei-log/1", "players": ["ann", "ben"], "dealt": DEAL}


def error_of(eng: Engine, lines: list[Line]) -> LogError:
    with pytest.raises(LogError) as caught:
        referee(eng, parse_log("".join(json.dumps(line) + "\n" for line in lines), "game.jsonl"), RULES)
    return caught.value


def table(*lines: str) -> Line:
    return {"log": "baobei-log/1", "players": ["ann", "ben"], "table": list(lines)}


# ---------------------------------------------------------------- a header's table


@pytest.mark.parametrize(("lines", "said"), [
    (["@@@"], "table line 1 '@@@', at its character 1: unexpected character '@'"),
    (["players ann ben", "ann: Dragon"], "table line 2 'ann: Dragon', at its character 1: unknown species 'Dragon'"),
    (["players ann ben", "ann: Spatz", "play"], "table line 3 'play', at its character 5: found end of line"),
    # A string with a line feed is two lines of the table: the lines after it are still counted by string.
    (["players ann ben\nann: Spatz", "ben: Star\nben kn"], "table line 2 'ben: Star\\nben kn' (its line 2), at its "
     "character 5: found 'kn'"),
    ([], "table: the table names no players"),
    (["ann: Spatz"], "table: the table names no players"),
])
def test_a_tables_error_names_the_table_line_it_is_in(default_engine: Engine, lines: list[str], said: str) -> None:
    err = error_of(default_engine, [table(*lines)])
    assert str(err.pos) == "game.jsonl:1:1"
    assert err.message.startswith(said), err.message
    assert "game.jsonl" not in err.message  # the place is said once, by the log's line


def test_a_numbered_card_in_a_table_names_its_table_line(default_engine: Engine) -> None:
    err = error_of(default_engine, [table("players ann ben", "ann: Spatz#2")])
    assert err.message.startswith("table line 2 'ann: Spatz#2': 'Spatz#2' names a numbered card"), err.message


# ---------------------------------------------------------------- a move's error


@pytest.mark.parametrize(("move", "said", "caret"), [
    ("ann look slot=-5", "move 'ann look slot=-5', argument slot, at its character 10: expected a slot like "
     "alice.2, found -5", 9),
    ("ann look ben", "move 'ann look ben', argument slot, at its character 10: expected a slot", 9),
    ("ann look slot=ann.1 ann.2", "move 'ann look slot=ann.1 ann.2', argument 2 (given in order), at its character "
     "21: look takes 1 argument(s)", 20),
    ("ann look slot=ann.1 x=1", "move 'ann look slot=ann.1 x=1', argument x, at its character 21: look has no "
     "argument 'x'", 20),
    ("zed look slot=ann.1", "move 'zed look slot=ann.1', its player, at its character 1: unknown player 'zed'", 0),
    ("ann  fly slot=ann.1", "move 'ann  fly slot=ann.1', its name, at its character 6: unknown move 'fly'", 5),
    ("ann look slot=?", "move 'ann look slot=?', argument slot, at its character 10: `?` stands for a held card", 9),
])
def test_a_move_texts_error_names_the_argument_and_its_character(default_engine: Engine, move: str, said: str,
                                                                 caret: int) -> None:
    err = error_of(default_engine, [FULL, {"move": move}])
    assert str(err.pos) == "game.jsonl:2:1"
    assert err.message.startswith(said), err.message
    source, under = err.excerpt.split("\n")
    assert source == f"    {move}" and under == "    " + " " * caret + "^"


@pytest.mark.parametrize(("move", "said"), [
    ({"player": "ann", "name": "look", "args": {"slot": -5}}, "at move.args.slot: expected a slot like alice.2"),
    ({"player": "ann", "name": "look", "args": {"slot": "?"}}, "at move.args.slot: `?` stands for a held card"),
    ({"player": "ann", "name": "look", "args": {"slot": "ann.1", "x y": 1}}, 'at move.args["x y"]: look has no '
     "argument 'x y'"),
    ({"player": "zed", "name": "look", "args": {"slot": "ann.1"}}, "at move.player: unknown player 'zed'"),
    ({"player": "ann", "name": "fly"}, "at move.name: unknown move 'fly'"),
])
def test_a_move_objects_error_names_the_field(default_engine: Engine, move: Line, said: str) -> None:
    err = error_of(default_engine, [FULL, {"move": move}])
    assert err.message.startswith(said), err.message


@pytest.mark.parametrize("move", ["", "   ", "ann", "ann look slot=?"])
def test_a_moves_error_says_its_place_once(tmp_path: Path, capsys: pytest.CaptureFixture[str], move: str) -> None:
    log = tmp_path / "game.jsonl"
    log.write_text("".join(json.dumps(line) + "\n" for line in [FULL, {"move": move}]), encoding="utf-8")
    assert main(["referee", str(log)]) == 2
    err = capsys.readouterr().err
    assert err.count("game.jsonl") == 1, err
    assert f"game.jsonl:2:1: move {move!r}" in err
