"""`baobei why FILE[:LINE] [MOVE]` (issue 28): a judge's question at a position of a scenario or a game log."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from baobei.cli import main
from baobei.language.paths import default_scenarios_dir

SCENARIO = default_scenarios_dir() / "turn" / "out_of_turn_each_phase.scenario"
Capture = pytest.CaptureFixture[str]


def line_after(text: str) -> int:
    """The number of the scenario line that holds `text` (the position is after it)."""
    return SCENARIO.read_text(encoding="utf-8").splitlines().index(text) + 1


def test_an_illegal_move_lists_every_reason_decisive_first(capsys: Capture) -> None:
    place = f"{SCENARIO}:{line_after('  expect window open for bob, carol')}"
    assert main(["why", place, "bob bao"]) == 1
    out = capsys.readouterr().out
    reasons = [line for line in out.splitlines() if line.lstrip()[:3] in ("1. ", "2. ")]
    assert reasons[0].lstrip().startswith("1. decisive: § 4.1") and "lasting" in reasons[0]
    assert reasons[1].lstrip().startswith("2. also: § 6.10") and "passing" in reasons[1]
    assert "the rule: " in out


def test_a_legal_move_is_said_legal(capsys: Capture) -> None:
    place = f"{SCENARIO}:{line_after('  expect window open for bob, carol')}"
    assert main(["why", place, "bob pluck target=bob.1"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "bob pluck target=bob.1: legal"


def test_without_a_move_every_legal_move_by_player(capsys: Capture) -> None:
    place = f"{SCENARIO}:{line_after('  expect window open for bob, carol')}"
    assert main(["why", place, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    moves = data["legal_moves"]
    assert set(moves) == {"alice", "bob", "carol"}
    assert "bob pluck target=bob.1" in moves["bob"]
    assert not any(m.startswith("alice end_turn") for m in moves["alice"])  # her ability waits first


def test_json_gives_the_ranked_reasons(capsys: Capture) -> None:
    place = f"{SCENARIO}:{line_after('  expect window open for bob, carol')}"
    assert main(["why", place, "bob peek target=alice.1", "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["legal"] is False
    assert [r["passing"] for r in data["reasons"]] == [False, True]
    # The Weisspelikan was triggered for alice (the discard), not for bob: that lasts; the waiting passes.
    assert "§ 6.1" in data["reasons"][0]["cite"] and data["reasons"][0]["rule_text"]
    assert "for alice" in data["reasons"][0]["reason"]


def test_a_position_in_a_game_log(tmp_path: Path, capsys: Capture) -> None:
    log = tmp_path / "game.jsonl"
    assert main(["play", "--players", "2", "--seed", "3", "--log", str(log)]) == 0
    capsys.readouterr()
    lines = [json.loads(text) for text in log.read_text(encoding="utf-8").splitlines()]
    number = next(n for n, data in enumerate(lines, 1) if "move" in data)  # the first move's line
    assert main(["why", f"{log}:{number - 1}", "--json"]) == 0  # the table before it
    data = json.loads(capsys.readouterr().out)
    first = lines[number - 1]["move"]
    assert first in [m for moves in data["legal_moves"].values() for m in moves]
    assert main(["why", f"{log}:{number - 1}", first]) == 0


@pytest.mark.parametrize(("place", "move", "message"), [
    ("no/such.scenario", None, "no such file"),
    (f"{SCENARIO}:0", None, "lines are numbered from 1"),
    (str(SCENARIO), "bob fly", "unknown move 'fly'"),
])
def test_bad_questions_are_bad_input(place: str, move: str | None, message: str, capsys: Capture) -> None:
    assert main(["why", place, *([move] if move else [])]) == 2
    assert message in capsys.readouterr().err


def test_a_line_inside_simultaneous_calls_is_no_position(tmp_path: Path, capsys: Capture) -> None:
    """The calls of a `simultaneous` block are judged together: there is no table after one of them, so a
    line inside the block is refused, naming where to ask; its last call's line is the table after them."""
    scenario = default_scenarios_dir() / "double_pluck" / "single_and_double_simultaneous.scenario"
    lines = scenario.read_text(encoding="utf-8").splitlines()
    first = lines.index("  simultaneous") + 1
    last = lines.index("  end", first)  # the number of the block's last call, the line before `end`
    assert main(["why", f"{scenario}:{first + 1}", "alice end_turn"]) == 2
    assert f"inside the simultaneous calls of lines {first}-{last}" in capsys.readouterr().err
    assert main(["why", f"{scenario}:{last}"]) == 0
    table = capsys.readouterr().out
    assert "bob    1:—  2:Specht#1{-}  3:—" in table  # bob's double pluck is made: the table after the block


@pytest.mark.parametrize("slot", ["bob.0", "bob.1000"])
def test_a_slot_that_cannot_exist_is_bad_input_as_in_a_scenario(slot: str, capsys: Capture) -> None:
    """Not a refusal of the rules (exit 1, a rule's paragraph): a mistake in the question (exit 2)."""
    place = f"{SCENARIO}:{line_after('  expect window open for bob, carol')}"
    assert main(["why", place, f"bob pluck target={slot}"]) == 2
    assert f"target={slot} cannot exist: slots are numbered from 1" in capsys.readouterr().err


def test_a_place_with_a_colon_and_no_line_says_the_line_is_missing(capsys: Capture) -> None:
    assert main(["why", f"{SCENARIO}:"]) == 2
    assert f"{SCENARIO}:: the line number is missing" in capsys.readouterr().err
