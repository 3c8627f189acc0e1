"""The `baobei` command line: exit codes 0 (pass), 1 (a scenario fails), 2 (bad input), and its output."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from baobei.cli import main
from baobei.engine.engine import Engine
from baobei.language.load import load_ruleset
from baobei.language.paths import default_rules_dir, default_scenarios_dir
from conftest import DRAW_SCENARIO

MakeVariant = Callable[..., Path]  # the make_variant fixture of conftest.py
Capture = pytest.CaptureFixture[str]

PASSING = DRAW_SCENARIO

FAILING = PASSING.replace("expect discard top is Kranich", "expect discard top is Star")
MALFORMED = PASSING.replace("  alice draw\n", "  alice draw = =\n")


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_check_the_project_scenarios(capsys: Capture) -> None:
    code = main(["check", str(default_scenarios_dir())])
    out, err = capsys.readouterr()
    assert code == 0, out + err
    assert re.search(r"^\d+ passed, 0 failed$", out, re.M)


def test_check_a_passing_file(tmp_path: Path, capsys: Capture) -> None:
    path = write(tmp_path, "ok.scenario", PASSING)
    assert main(["check", "-v", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"ok    {path}" in out and "1 passed, 0 failed" in out


def test_check_a_failing_file(tmp_path: Path, capsys: Capture) -> None:
    path = write(tmp_path, "bad.scenario", FAILING)
    assert main(["check", str(path)]) == 1
    out = capsys.readouterr().out
    line = FAILING.splitlines().index("  expect discard top is Star") + 1
    assert f"{path}:{line}:" in out
    assert "expected the top of the discard pile to be Star, actual Kranich" in out
    assert "0 passed, 1 failed" in out


def test_check_a_malformed_file(tmp_path: Path, capsys: Capture) -> None:
    path = write(tmp_path, "malformed.scenario", MALFORMED)
    assert main(["check", str(path)]) == 2
    out, err = capsys.readouterr()
    line = MALFORMED.splitlines().index("  alice draw = =") + 1
    assert f"{path}:{line}:14:" in err and "found '='" in err
    assert "Traceback" not in out + err


@pytest.mark.parametrize("value", ["3", "true", "alice.1", "[alice]"])
def test_a_table_value_of_the_wrong_type_for_a_text_variable_is_malformed(
        value: str, tmp_path: Path, capsys: Capture) -> None:
    """`set shield = 3`: the shield is a text, so the table is bad input at the value, not a state that
    then breaks an invariant."""
    text = PASSING.replace("  active alice\n", f"  active alice\n  set shield = {value}\n")
    path = write(tmp_path, "typed.scenario", text)
    assert main(["check", str(path)]) == 2
    _, err = capsys.readouterr()
    line = text.splitlines().index(f"  set shield = {value}") + 1
    assert f"{path}:{line}:16: expected a word" in err and f"found {value}" in err


def test_none_for_a_text_variable_is_the_word_the_rules_write(tmp_path: Path) -> None:
    """`set shield = none` means the shield before a call (the text "none"), not an absent value that no rule
    makes and every comparison with a text would then miss."""
    from baobei.scenarios import syntax as sc
    from baobei.scenarios.parser import parse_scenario_text
    from baobei.scenarios.setup import build_table

    text = PASSING.replace("  active alice\n", "  active alice\n  set shield = none\n")
    scenario = parse_scenario_text(text, str(tmp_path / "none.scenario"))
    assert isinstance(scenario.setup, sc.Table)
    assert build_table(Engine(load_ruleset(default_rules_dir())), scenario.setup).vars["shield"] == "none"


def test_an_unknown_phase_in_a_table_is_reported_at_the_phase(tmp_path: Path, capsys: Capture) -> None:
    text = PASSING.replace("  active alice\n", "  active alice\n  phase nonsense\n")
    path = write(tmp_path, "phase.scenario", text)
    assert main(["check", str(path)]) == 2
    line = text.splitlines().index("  phase nonsense") + 1
    assert f"{path}:{line}:9: unknown phase 'nonsense'" in capsys.readouterr().err


@pytest.mark.parametrize("line", ["  active bob", "  phase turn", "  seed 3", "  round 2", "  turn 4"])
def test_a_table_line_that_says_one_thing_given_twice_is_malformed(line: str, tmp_path: Path, capsys: Capture) -> None:
    """Two `active` lines (or phases, seeds, rounds, turns) contradict each other or repeat: the second is
    reported, where the last one silently won."""
    text = PASSING.replace("  active alice\n", f"  active alice\n  phase turn\n  seed 2\n  round 1\n  turn 1\n{line}\n")
    path = write(tmp_path, "twice.scenario", text)
    assert main(["check", str(path)]) == 2
    number = len(text.splitlines()) - text.splitlines()[::-1].index(line)
    key = line.split()[0]
    assert f"{path}:{number}:" in (err := capsys.readouterr().err) and f"the table gives `{key}` twice" in err


def test_a_list_as_a_moves_argument_is_reported_in_the_scenario_notation(tmp_path: Path, capsys: Capture) -> None:
    text = PASSING.replace("  alice discard\n", "  alice keep slot=[alice.1]\n")
    path = write(tmp_path, "list.scenario", text)
    assert main(["check", str(path)]) == 2
    line = text.splitlines().index("  alice keep slot=[alice.1]") + 1
    err = capsys.readouterr().err
    assert f"{path}:{line}:19: a move's argument is one value, found the list [alice.1]" in err
    assert "Value(" not in err


def test_a_named_pipe_among_the_scenarios_of_a_directory_is_no_scenario(tmp_path: Path, capsys: Capture) -> None:
    """Reading a pipe nobody writes to waits forever: a directory's scenarios are its regular files."""
    import os

    write(tmp_path, "a.scenario", PASSING)
    os.mkfifo(tmp_path / "stray.scenario")
    assert main(["check", str(tmp_path)]) == 0
    assert "1 passed, 0 failed" in capsys.readouterr().out


def test_one_malformed_file_among_good_ones_still_exits_2(tmp_path: Path, capsys: Capture) -> None:
    write(tmp_path, "a.scenario", PASSING)
    write(tmp_path, "b.scenario", MALFORMED)
    assert main(["check", str(tmp_path)]) == 2
    out, _ = capsys.readouterr()
    assert "1 passed, 0 failed" in out and "1 malformed" in out


def test_check_a_missing_path(tmp_path: Path, capsys: Capture) -> None:
    assert main(["check", str(tmp_path / "nowhere.scenario")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_malformed_rules_directory(make_variant: MakeVariant, tmp_path: Path, capsys: Capture) -> None:
    rules = make_variant(("06_bao.bao", "do {", "do"))
    path = write(tmp_path, "ok.scenario", PASSING)
    assert main(["check", "--rules", str(rules), str(path)]) == 2
    out, err = capsys.readouterr()
    assert re.search(re.escape(str(rules / "06_bao.bao")) + r":\d+:\d+: ", err), err
    assert "Traceback" not in out + err


def test_a_rules_directory_that_does_not_exist(tmp_path: Path, capsys: Capture) -> None:
    assert main(["rules", "--rules", str(tmp_path / "none")]) == 2
    assert "rules directory not found" in capsys.readouterr().err


@pytest.mark.parametrize("players", ["alice", "a b c d e f g"])
def test_a_deal_with_a_bad_player_count(tmp_path: Path, capsys: Capture, players: str) -> None:
    text = f'scenario "A deal"\ncites § 1.2 [P7]\n\ndeal seed 1 players {players}\n\nplay\n  expect phase peek\n'
    path = write(tmp_path, "deal.scenario", text)
    assert main(["check", str(path)]) == 2
    out, err = capsys.readouterr()
    count = len(players.split())
    assert f"{path}:4:1:" in err and f"{count} player{'' if count == 1 else 's'}:" in err
    assert "Traceback" not in out + err


def test_a_deal_with_a_good_player_count_passes(tmp_path: Path, capsys: Capture) -> None:
    text = ('scenario "A deal"\ncites § 1.2 [P7]\n\ndeal seed 1 players a b c\n\nplay\n  expect phase peek\n'
            '  expect a cards 4\n')
    assert main(["check", str(write(tmp_path, "deal.scenario", text))]) == 0


def test_rules_prints_counts(default_engine: Engine, capsys: Capture) -> None:
    rules = default_engine.rules
    assert main(["rules"]) == 0
    out = capsys.readouterr().out
    moves = sum(1 for m in rules.moves.values() if not m.is_ability)
    assert f"{len(rules.files)} files, valid" in out
    assert f"{moves} moves, {len(rules.moves) - moves} abilities, {len(rules.routines)} routines" in out
    assert f"{len(rules.species)} species, {len(default_engine.facts)} cards" in out
    assert f"{len(rules.assumptions)} decisions where the rulebook is silent or unclear: " in out
    assert f"{len(rules.cited_rules())} cited rules" in out


def test_rules_verbose_shows_each_decision_with_its_text(default_engine: Engine, capsys: Capture) -> None:
    """`rules` promises the decisions: with -v each comes with its title, choice and reason, not its id only."""
    assert main(["rules", "-v"]) == 0
    out = capsys.readouterr().out
    for decision in default_engine.rules.assumptions.values():
        assert f"{decision.ident} {decision.title} ({decision.cite})" in out
        assert f"decided: {decision.choice}" in out and f"because: {decision.reason}" in out


def test_rules_json_follows_its_schema(default_engine: Engine, capsys: Capture) -> None:
    import json

    from jsonschema import Draft202012Validator

    schema = json.loads((Path(__file__).resolve().parents[1] / "docs" / "rules.schema.json").read_text())
    assert main(["rules", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    Draft202012Validator(schema).validate(data)
    rules = default_engine.rules
    assert [m["name"] for m in data["moves"]] == list(rules.moves)
    assert {a["id"]: a["choice"] for a in data["assumptions"]} == {a.ident: a.choice
                                                                   for a in rules.assumptions.values()}
    assert data["counts"]["invariants"] == len(rules.invariants)


def test_rules_verbose_lists_every_cited_rule(default_engine: Engine, capsys: Capture) -> None:
    assert main(["rules", "-v"]) == 0
    out = capsys.readouterr().out
    for kind, name, cite, _ in default_engine.rules.cited_rules():
        assert re.search(rf"{kind}\s+{re.escape(name)}\s+{re.escape(str(cite))}", out), (kind, name)


def test_explain_prints_events_with_citations(default_engine: Engine, tmp_path: Path, capsys: Capture) -> None:
    path = write(tmp_path, "ok.scenario", PASSING)
    assert main(["explain", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"line {PASSING.splitlines().index('  alice draw') + 1}: alice draw" in out
    for move in ("draw", "discard"):
        cite = default_engine.rules.moves[move].cite
        assert cite.paras
        assert re.search(rf"^\s+by {move} {re.escape(str(cite))}$", out, re.M), move
    assert "all expectations hold" in out


def test_explain_a_failing_scenario(tmp_path: Path, capsys: Capture) -> None:
    path = write(tmp_path, "bad.scenario", FAILING)
    assert main(["explain", str(path)]) == 1
    assert "FAILED at" in capsys.readouterr().out


def test_explain_a_malformed_scenario(tmp_path: Path, capsys: Capture) -> None:
    path = write(tmp_path, "malformed.scenario", MALFORMED)
    assert main(["explain", str(path)]) == 2
    out, err = capsys.readouterr()
    assert f"{path}:" in err and "Traceback" not in out + err


def test_bench_prints_moves_per_second(capsys: Capture) -> None:
    assert main(["bench", "--rounds", "5", "--players", "3", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert "3 players, seed 2: 5 rounds" in out
    assert re.search(r"median of 3: [\d,]+ moves/s, [\d,.]+ rounds/s", out)
    assert len(re.findall(r"run \d: ", out)) == 3


def test_bench_with_invariants_plays_the_same_moves_and_judges_each(capsys: Capture) -> None:
    assert main(["bench", "--rounds", "20", "--players", "4", "--seed", "3", "--repeat", "1"]) == 0
    plain = capsys.readouterr().out.splitlines()[0]
    assert main(["bench", "--rounds", "20", "--players", "4", "--seed", "3", "--repeat", "1", "--invariants"]) == 0
    judged = capsys.readouterr().out.splitlines()[0]
    assert judged == plain + ", every invariant judged after every move"
    assert re.search(r"\d+ moves", plain)


def test_bench_with_invariants_reports_a_broken_one(make_variant: Callable[..., Path], capsys: Capture) -> None:
    rules = make_variant()
    (rules / "95_broken.bao").write_text('invariant no_turn "Nobody ever has a turn" § 2.1 [P18] '
                                         '{ holds phase != "turn" }\n', encoding="utf-8")
    assert main(["bench", "--rules", str(rules), "--rounds", "3", "--repeat", "1", "--invariants"]) == 1
    out = capsys.readouterr().out
    assert out.startswith("violated: invariant no_turn (§ 2.1 [P18]) is violated: Nobody ever has a turn (after "), out
    assert main(["bench", "--rules", str(rules), "--rounds", "3", "--repeat", "1"]) == 0  # unjudged, it plays on


def test_bench_with_a_bad_player_count(capsys: Capture) -> None:
    assert main(["bench", "--rounds", "5", "--players", "9"]) == 2
    assert "9 players" in capsys.readouterr().err


# ---------------------------------------------------------------- text encodings and empty runs


def test_a_byte_order_mark_is_accepted(tmp_path: Path, capsys: Capture) -> None:
    path = tmp_path / "bom.scenario"
    path.write_bytes(b"\xef\xbb\xbf" + PASSING.encode("utf-8"))
    assert main(["check", str(path)]) == 0, capsys.readouterr()


def test_a_latin1_scenario_is_bad_input_with_its_place_and_the_others_still_run(tmp_path: Path,
                                                                               capsys: Capture) -> None:
    write(tmp_path, "a.scenario", PASSING)
    latin = PASSING.replace('scenario "A draw"', 'scenario "Ein Zug für Vögel"')
    (tmp_path / "b.scenario").write_bytes(latin.encode("latin-1"))
    (tmp_path / "c.scenario").write_bytes(bytes(range(128, 256)))
    assert main(["check", str(tmp_path)]) == 2
    out, err = capsys.readouterr()
    column = latin.splitlines()[0].index("ü") + 1
    assert f"b.scenario:1:{column}: not UTF-8 text: byte 0xfc" in err
    assert "c.scenario:1:1: not UTF-8 text: byte 0x80" in err
    assert "1 passed, 0 failed" in out and "2 malformed" in out and "Traceback" not in out + err


def test_a_rules_file_that_is_not_utf8_is_bad_input(make_variant: MakeVariant, capsys: Capture) -> None:
    rules = make_variant()
    deck = rules / "01_deck.bao"
    deck.write_bytes(deck.read_bytes() + "# Vögel\n".encode("latin-1"))
    line = deck.read_bytes().count(b"\n")
    assert main(["rules", "--rules", str(rules)]) == 2
    err = capsys.readouterr().err
    assert f"01_deck.bao:{line}:4: not UTF-8 text: byte 0xf6" in err and "Traceback" not in err


def test_a_rules_file_with_a_byte_order_mark_loads(make_variant: MakeVariant, capsys: Capture) -> None:
    rules = make_variant()
    deck = rules / "01_deck.bao"
    deck.write_bytes(b"\xef\xbb\xbf" + deck.read_bytes())
    assert main(["rules", "--rules", str(rules)]) == 0, capsys.readouterr()


@pytest.mark.parametrize("end", [b"\r", b"\r\n"])
def test_rules_saved_with_other_line_ends_mean_the_same(make_variant: MakeVariant, capsys: Capture,
                                                         end: bytes) -> None:
    """A lone CR (old Mac editors) or CR LF (Windows) ends a line as LF does: the same rules, and an error's
    line counted the same way. Read as one line, a lone-CR file's first comment would swallow it whole."""
    rules = make_variant()
    assert main(["rules", "--rules", str(rules)]) == 0
    as_lf = capsys.readouterr().out
    for path in sorted(rules.glob("*.bao")):
        path.write_bytes(path.read_bytes().replace(b"\n", end))
    assert main(["rules", "--rules", str(rules)]) == 0
    assert capsys.readouterr().out == as_lf
    deck = rules / "01_deck.bao"
    deck.write_bytes(deck.read_bytes() + b"deck oops" + end)
    line = deck.read_bytes().count(end)
    assert main(["rules", "--rules", str(rules)]) == 2
    err = capsys.readouterr().err
    assert f"01_deck.bao:{line}:" in err and "Traceback" not in err


def test_an_error_shows_its_own_line_after_a_comment_with_a_unicode_line_separator(make_variant: MakeVariant,
                                                                                     capsys: Capture) -> None:
    """Only LF ends a line for the parser: the excerpt under an error is that line, even where an earlier
    comment holds U+2028 (a line separator for str.splitlines, not for the rules)."""
    rules = make_variant()
    deck = rules / "01_deck.bao"
    deck.write_bytes(deck.read_bytes() + "# Vögel\u2028und Bäume\ndeck oops\n".encode())
    line = deck.read_bytes().count(b"\n")
    assert main(["rules", "--rules", str(rules)]) == 2
    err = capsys.readouterr().err
    assert f"01_deck.bao:{line}:" in err and "    deck oops\n" in err, err


@pytest.mark.parametrize("names", [[], ["draw.scenaro", "notes.txt"]])
def test_no_scenario_found_is_bad_input(tmp_path: Path, capsys: Capture, names: list[str]) -> None:
    for name in names:
        write(tmp_path, name, PASSING)
    assert main(["check", str(tmp_path)]) == 2
    assert "no scenario files (*.scenario) found" in capsys.readouterr().err


def test_counts_read_as_english(tmp_path: Path, capsys: Capture) -> None:
    assert main(["check", str(write(tmp_path, "ok.scenario", PASSING))]) == 0
    assert "1 scenario in " in capsys.readouterr().out
    assert main(["play", "--players", "1"]) == 2
    assert "1 player: these rules allow" in capsys.readouterr().err


# ---------------------------------------------------------------- no traceback from any command


def test_a_quantifier_over_a_number_is_refused_with_its_place(tmp_path: Path, capsys: Capture) -> None:
    probe = PASSING.replace("  expect discard top is Kranich\n",
                            '  expect discard top is Kranich\n  expect value "sum p in 3: p" = 0\n')
    path = write(tmp_path, "probe.scenario", probe)
    assert main(["check", str(path)]) == 2
    _, err = capsys.readouterr()
    line = probe.splitlines().index('  expect value "sum p in 3: p" = 0') + 1
    assert f"{path}:{line}:" in err and "ranges over an int; expected a list" in err and "Traceback" not in err


def test_outputs_that_cannot_be_written_are_bad_input(tmp_path: Path, capsys: Capture,
                                                      make_variant: MakeVariant) -> None:
    missing = tmp_path / "missing" / "x.scenario"
    rules = make_variant(("02_setup.bao", "  require peeked[actor] < initial_peek else", "  require true else"))
    assert main(["verify", "--rules", str(rules), "--players", "2", "--states", "300", "--depth", "4",
                 "--emit-scenario", str(missing)]) == 2
    assert f"{missing}: cannot write" in capsys.readouterr().err
    assert main(["explore", "--rules", str(rules), "--depth", "4", "--emit-scenario", str(missing)]) == 2
    assert f"{missing}: cannot write" in capsys.readouterr().err
    readme = write(tmp_path, "README.md", "# not a directory\n")
    assert main(["docs", "--out", str(readme)]) == 2
    assert "is a file; --out names the directory" in capsys.readouterr().err


def test_a_rules_option_naming_a_file_says_so(tmp_path: Path, capsys: Capture) -> None:
    readme = write(tmp_path, "README.md", "# not rules\n")
    assert main(["check", "--rules", str(readme), str(write(tmp_path, "ok.scenario", PASSING))]) == 2
    assert "is a file; --rules names a directory of .bao files" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["play", "--rounds", "-1"], ["play", "--rounds", "x"], ["bench", "--rounds", "0"],
                                  ["explore", "--depth", "-1"], ["verify", "--states", "0"]])
def test_counts_out_of_range_are_refused_by_the_command_line(argv: list[str], capsys: Capture) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    assert "error: argument" in capsys.readouterr().err


@pytest.mark.parametrize(("probe", "column", "wanted"), [
    ("1 <", 3, "found end of the expression, expected one of: 'false'"),
    ("1 2", 3, "found '2', expected one of: 'and', a comparison (== != < <= > >= in)"),
])
def test_a_bad_probe_is_described_without_parser_internals(tmp_path: Path, capsys: Capture, probe: str, column: int,
                                                           wanted: str) -> None:
    text = PASSING.replace("  expect discard top is Kranich\n", f'  expect discard top is Kranich\n'
                           f'  expect value "{probe}" = 1\n')
    assert main(["check", str(write(tmp_path, "probe.scenario", text))]) == 2
    err = capsys.readouterr().err
    assert f"bad expression '{probe}' at its character {column}: {wanted}" in err
    assert "Token(" not in err and "$END" not in err and "cmpop" not in err


def test_quiet_check_gives_one_line_per_failure(tmp_path: Path, capsys: Capture) -> None:
    write(tmp_path, "a.scenario", FAILING)
    write(tmp_path, "b.scenario", FAILING)
    write(tmp_path, "c.scenario", PASSING)
    assert main(["check", "-q", str(tmp_path)]) == 1
    out = capsys.readouterr().out.splitlines()
    fails = [line for line in out if line.startswith("FAIL  ")]
    assert len(fails) == 2 and len(out) == 4, out
    assert all("expected the top of the discard pile to be Star, actual Kranich" in line for line in fails)
    assert out[-1] == "1 passed, 2 failed"


def test_every_command_and_flag_has_help(capsys: Capture) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    top = capsys.readouterr().out
    commands = ["check", "explain", "rules", "bench", "play", "explore", "verify", "docs"]
    assert all(c in top.split("positional arguments:")[0] for c in commands), top
    for command in commands:
        with pytest.raises(SystemExit):
            main([command, "--help"])
        text = capsys.readouterr().out
        options = text.split("options:", 1)[1] if "options:" in text else text
        # Every option or argument line names its flag and then explains it (on the line or the next).
        entries = re.findall(r"^  (\S.*?)(?:\n(?=  \S)|\Z)", options, re.M | re.S)
        bare = [e for e in entries if len(e.split()) <= 2 and "\n" not in e]
        assert not bare, (command, bare)


# ---------------------------------------------------------------- citations against the rulebook's outline


def test_rules_citing_no_section_of_the_rulebook_are_refused(make_variant: MakeVariant, capsys: Capture) -> None:
    cite = 'move draw "Draw the top card of the draw pile and look at it secretly" § 2.2 [P24]'
    rules = make_variant(("03_turn.bao", cite, cite.replace("§ 2.2 [P24]", "§ 9.9 [P999]")))
    line = (rules / "03_turn.bao").read_text(encoding="utf-8").splitlines().index(
        cite.replace("§ 2.2 [P24]", "§ 9.9 [P999]")) + 1
    for argv in (["rules"], ["check", str(default_scenarios_dir() / "turn")]):
        assert main([*argv, "--rules", str(rules)]) == 2
        assert f"03_turn.bao:{line}:1: § 9.9 is no section of the rulebook" in capsys.readouterr().err


def test_a_paragraph_outside_its_section_is_refused(make_variant: MakeVariant, capsys: Capture) -> None:
    old = 'move end_turn "End the turn" § 2.1 [P18]'
    rules = make_variant(("03_turn.bao", old, old.replace("[P18]", "[P121]")))
    assert main(["rules", "--rules", str(rules)]) == 2
    assert "[P121] is not a paragraph of § 2.1" in capsys.readouterr().err


def test_a_scenario_citing_a_paragraph_outside_its_section_is_malformed(tmp_path: Path, capsys: Capture) -> None:
    write(tmp_path, "a.scenario", PASSING)
    write(tmp_path, "b.scenario", PASSING.replace("cites § 2.2 [P24]", "cites § 2.2 [P99]"))
    assert main(["check", str(tmp_path)]) == 2
    out, err = capsys.readouterr()
    assert "b.scenario:1:1: [P99] is not a paragraph of § 2.2" in err and "1 passed, 0 failed" in out


def test_play_says_when_it_stops_at_its_move_cap(capsys: Capture) -> None:
    assert main(["play", "--players", "2", "--seed", "3", "--max-moves", "7"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert sum(1 for line in lines if line.startswith("> ")) == 7
    assert lines[-1].startswith("stopped after 7 moves: the rules set no limit to a round")


def test_a_stalled_game_is_an_error_with_the_table_not_a_finished_match(make_variant: MakeVariant,
                                                                       capsys: Capture) -> None:
    from planted import STALL

    rules = make_variant(*STALL.edits)
    for argv in (["play", "--players", "2"], ["bench", "--players", "2", "--rounds", "3", "--repeat", "1"],
                 ["bench", "--players", "2", "--rounds", "3", "--tally"]):
        assert main([*argv, "--rules", str(rules)]) == 2, argv
        out, err = capsys.readouterr()
        assert "nobody can act, and no halt of the rules says the game is over" in err, argv
        assert "draw pile" in err and "Traceback" not in out + err


def test_rules_moves_lists_every_move_with_its_arguments(capsys: Capture) -> None:
    assert main(["rules", "--moves"]) == 0
    out = capsys.readouterr().out
    for m in load_ruleset(default_rules_dir()).moves.values():
        line = next(x for x in out.splitlines() if x.startswith(f"{m.name} ("))
        for p in m.params:
            assert f"{p.name}: {p.kind}" in line, (m.name, p.name)
        assert str(m.cite) in line
        # Who may make it in words (the reason a refusal gives), never a raw guard like `actor == active`.
        assert "actor" not in line and "true" not in line.split()[2:4], line
        if m.by_reason and not m.is_ability:
            assert m.by_reason in line


def test_failures_are_repeated_at_the_end_after_their_traces(tmp_path: Path, capsys: Capture) -> None:
    write(tmp_path, "a.scenario", FAILING)
    write(tmp_path, "b.scenario", PASSING)
    assert main(["check", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    tail = out.split("\n1 failure:\n", 1)[1].splitlines()
    assert tail[0].startswith("FAIL  ") and "a.scenario:" in tail[0] and "actual Kranich" in tail[0]
    assert tail[-1] == "1 passed, 1 failed"


@pytest.mark.parametrize(("command", "codes"), [("check", "1 when one fails, 2 for bad input"),
                                                ("verify", "1 otherwise, 2 for bad input")])
def test_exit_codes_are_in_the_help(command: str, codes: str, capsys: Capture) -> None:
    with pytest.raises(SystemExit):
        main([command, "--help"])
    assert codes in " ".join(capsys.readouterr().out.split())


def test_play_stops_at_a_turn_cap_and_says_so(capsys: Capture) -> None:
    assert main(["play", "--players", "3", "--seed", "2", "--max-turns", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1] == "stopped after 2 turns (--max-turns): the rules set no limit to a round"
    begun = [line for line in lines if "'s turn begins" in line]
    assert len(begun) == 3  # the starting player's turn from the deal, then two more


def test_explain_draws_pictures_and_shows_the_source(tmp_path: Path, capsys: Capture) -> None:
    scenario = default_scenarios_dir() / "pluck" / "offensive_gift.scenario"
    assert main(["explain", str(scenario), "--svg", str(tmp_path / "svg"), "--source"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# An offensive pluck")  # the source first (plain: not a terminal)
    pictures = sorted(p.name for p in (tmp_path / "svg").iterdir())
    assert "offensive_gift-step27-before.svg" in pictures and len(pictures) % 2 == 0
    assert f"wrote {len(pictures)} pictures" in out


def test_docs_site_into_a_file_is_bad_input(tmp_path: Path, capsys: Capture) -> None:
    target = tmp_path / "site.txt"
    target.write_text("x", encoding="utf-8")
    assert main(["docs", "--site", str(target)]) == 2
    assert "is a file" in capsys.readouterr().err


def test_docs_site_into_a_folder_of_other_files_is_refused_and_deletes_nothing(tmp_path: Path,
                                                                               capsys: Capture) -> None:
    """mkdocs empties the site's folder before it builds: a folder that holds anything but a site built
    before is refused, and what it holds stays."""
    from baobei.cli import SITE_MARK, is_built_site

    (tmp_path / "sub").mkdir()
    (tmp_path / "precious.txt").write_text("keep", encoding="utf-8")
    assert main(["docs", "--no-proofs", "--site", str(tmp_path)]) == 2
    assert "is not empty and holds no site built by `baobei docs --site`" in capsys.readouterr().err
    assert (tmp_path / "precious.txt").read_text(encoding="utf-8") == "keep" and (tmp_path / "sub").is_dir()
    assert not is_built_site(tmp_path)
    (tmp_path / SITE_MARK).write_text("", encoding="utf-8")
    assert is_built_site(tmp_path)


def test_an_unreadable_rules_file_is_bad_input_not_a_traceback(tmp_path: Path, capsys: Capture) -> None:
    """A folder named like a rules file, or a link to nothing: named, exit 2."""
    rules = tmp_path / "rules"
    shutil.copytree(default_rules_dir(), rules)
    (rules / "zz.bao").mkdir()
    assert main(["rules", "--rules", str(rules)]) == 2
    assert f"{rules / 'zz.bao'}: Is a directory" in capsys.readouterr().err
    (rules / "zz.bao").rmdir()
    (rules / "x.bao").symlink_to(tmp_path / "nowhere")
    assert main(["rules", "--rules", str(rules)]) == 2
    assert f"{rules / 'x.bao'}: No such file or directory" in capsys.readouterr().err


# ---------------------------------------------------------------- conventions (issue 29)


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    assert re.fullmatch(r"baobei \d+\.\d+\.\d+\S*\n", capsys.readouterr().out)


def test_global_rules_option_before_the_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`baobei --rules DIR check` reads DIR as `baobei check --rules DIR` does; the command's own option wins."""
    missing = tmp_path / "no_rules"
    assert main(["--rules", str(missing), "rules"]) == 2
    assert f"{missing}: rules directory not found" in capsys.readouterr().err
    assert main(["--rules", str(missing), "rules", "--rules", str(default_rules_dir())]) == 0


def test_help_shows_defaults(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["bench", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "rounds to play per run (default: 200)" in out
    assert "players at the table (default: 4)" in out


def test_explain_svg_into_a_file_is_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--svg names a directory: a file there, or a place that cannot be made, is bad input (exit 2), found
    before the replay, never a traceback with the exit code of a failed scenario."""
    scenario = str(sorted(default_scenarios_dir().rglob("*.scenario"))[0])
    occupied = tmp_path / "pictures"
    occupied.write_text("not a directory", encoding="utf-8")
    assert main(["explain", scenario, "--svg", str(occupied)]) == 2
    assert f"{occupied}: exists and is not a directory" in capsys.readouterr().err
    inside = occupied / "deeper"
    assert main(["explain", scenario, "--svg", str(inside)]) == 2
    assert f"{inside}: cannot make the directory" in capsys.readouterr().err
    assert occupied.read_text(encoding="utf-8") == "not a directory"


def test_check_json_follows_its_schema(tmp_path: Path, capsys: Capture) -> None:
    """`check --json`: standard output is the JSON alone, valid under docs/check.schema.json, one result per
    file with where a failure is; the exit code is as without it."""
    import json

    from jsonschema import Draft202012Validator

    schema = json.loads((Path(__file__).resolve().parents[1] / "docs" / "check.schema.json").read_text())
    good, bad = write(tmp_path, "good.scenario", PASSING), write(tmp_path, "bad.scenario", FAILING)
    assert main(["check", "--json", str(good), str(bad)]) == 1
    out, err = capsys.readouterr()
    data = json.loads(out)
    Draft202012Validator(schema).validate(data)
    by_file = {r["file"]: r for r in data["results"]}
    assert (data["passed"], data["failed"], data["malformed"]) == (1, 1, 0)
    assert by_file[str(good)]["status"] == "passed" and by_file[str(good)]["failure"] is None
    failure = by_file[str(bad)]["failure"]
    assert failure["line"] == FAILING.splitlines().index("  expect discard top is Star") + 1
    assert "1 passed, 1 failed" in err  # the lines for people, out of the JSON's way
    malformed = write(tmp_path, "malformed.scenario", MALFORMED)
    assert main(["check", "--json", str(malformed)]) == 2
    data = json.loads(capsys.readouterr().out)
    Draft202012Validator(schema).validate(data)
    assert data["results"][0]["status"] == "malformed" and "found '='" in data["results"][0]["error"]
    assert main(["check", "--json", str(default_scenarios_dir())]) == 0
    Draft202012Validator(schema).validate(json.loads(capsys.readouterr().out))


def test_check_junit_names_each_scenario_and_its_failure(tmp_path: Path, capsys: Capture) -> None:
    """`check --junit FILE`: a test case per scenario file; a failure carries file:line:column and why, a
    malformed file is an error; the exit code is as without it."""
    import xml.etree.ElementTree as ET

    good, bad = write(tmp_path, "good.scenario", PASSING), write(tmp_path, "bad.scenario", FAILING)
    malformed = write(tmp_path, "malformed.scenario", MALFORMED)
    report = tmp_path / "junit.xml"
    assert main(["check", "--junit", str(report), str(good), str(bad), str(malformed)]) == 2
    capsys.readouterr()
    suite = ET.parse(report).getroot().find("testsuite")
    assert suite is not None
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("3", "1", "1")
    cases = {case.get("name"): case for case in suite.iter("testcase")}
    assert sorted(cases) == ["bad", "good", "malformed"]
    assert list(cases["good"]) == []
    failure = cases["bad"].find("failure")
    line = FAILING.splitlines().index("  expect discard top is Star") + 1
    assert failure is not None and failure.get("message", "").startswith(f"{bad}:{line}:")
    error = cases["malformed"].find("error")
    assert error is not None and "found '='" in error.get("message", "")


def test_check_junit_to_a_bad_place_is_refused_first(tmp_path: Path, capsys: Capture) -> None:
    missing = tmp_path / "no" / "such" / "junit.xml"
    assert main(["check", "--junit", str(missing), str(write(tmp_path, "good.scenario", PASSING))]) == 2
    assert "cannot write: no directory" in capsys.readouterr().err


def test_explain_gives_a_legend_for_its_notation(tmp_path: Path, capsys: Capture) -> None:
    """`explain` says once how to read `Spatz#1{alice}`, `{-}`, `*alice` and `holds`."""
    assert main(["explain", str(write(tmp_path, "ok.scenario", PASSING))]) == 0
    out = capsys.readouterr().out
    legend = out[:out.index("\nline ")]
    for notation in ("*NAME", "#N", "{-} nobody", "{all} every player", "holds", "(top C)"):
        assert notation in legend, notation
    assert out.count("How to read the tables:") == 1


def test_one_policy_vocabulary(capsys: Capture) -> None:
    """bench and simulate name the players' ways of choosing alike: random and kinds."""
    assert main(["bench", "--players", "2", "--rounds", "2", "--repeat", "1", "--tally", "--policy", "random"]) == 0
    assert "tally over" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["bench", "--tally", "--policy", "uniform"])
    assert "invalid choice: 'uniform'" in capsys.readouterr().err
    for command in ("bench", "simulate"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        assert "random" in capsys.readouterr().out


def test_play_log_to_a_bad_place_is_refused_before_the_game(tmp_path: Path, capsys: Capture) -> None:
    log = tmp_path / "missing" / "game.jsonl"
    assert main(["play", "--players", "2", "--log", str(log)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "cannot write: no directory" in err  # no move was played


def test_shell_completion_names_commands_and_options(tmp_path: Path) -> None:
    """argcomplete answers a shell's question: the commands after `baobei ch`, the options after `check --j`."""
    import os
    import subprocess
    import sys

    def completions(line: str) -> list[str]:
        answer = tmp_path / "answer"
        env = {**os.environ, "_ARGCOMPLETE": "1", "_ARGCOMPLETE_IFS": "\n", "COMP_LINE": line,
               "COMP_POINT": str(len(line)), "_ARGCOMPLETE_STDOUT_FILENAME": str(answer)}
        subprocess.run([sys.executable, "-m", "baobei.cli"], env=env, capture_output=True, check=False)
        return answer.read_text(encoding="utf-8").split()

    assert completions("baobei ch") == ["check"]
    assert set(completions("baobei check --j")) == {"--json", "--junit"}


def test_built_site_and_simulation_output_are_not_committed() -> None:
    """`baobei docs --site site/` and `baobei simulate` (default out `simulation/`) write into the checkout."""
    ignored = (Path(__file__).resolve().parents[1] / ".gitignore").read_text(encoding="utf-8").split()
    assert "site/" in ignored and "/simulation/" in ignored


@pytest.mark.parametrize("cites", ["", "cites § 1.2\n"])
def test_a_scenario_that_cites_nothing_is_bad_input(cites: str, tmp_path: Path, capsys: Capture) -> None:
    """The README promises exit 2 for a scenario citing no paragraph: it answers no question of the book.
    A section alone names no paragraph either."""
    text = f'scenario "A deal"\n{cites}\ndeal seed 1 players a b c\n\nplay\n  expect phase peek\n'
    path = write(tmp_path, "uncited.scenario", text)
    assert main(["check", str(path)]) == 2
    assert f"{path}:1:1: the scenario cites no paragraph of the rulebook" in capsys.readouterr().err


@pytest.mark.parametrize("slot", ["alice.0", "alice.99", "alice.1000000000000000000000000000000"])
def test_a_slot_that_cannot_exist_is_bad_input(tmp_path: Path, capsys: Capture, slot: str) -> None:
    """A slot no tableau can have is a mistake in the scenario (exit 2 with its place), not a refusal of
    the rules with a rulebook citation (exit 1)."""
    text = PASSING.replace("  alice draw\n", f"  alice take slot={slot}\n", 1)
    path = write(tmp_path, "slot.scenario", text)
    assert main(["check", str(path)]) == 2
    line = text.splitlines().index(f"  alice take slot={slot}") + 1
    err = capsys.readouterr().err
    assert f"{path}:{line}:" in err and "cannot exist" in err and "Traceback" not in err


@pytest.mark.parametrize("argv", [["play", "--players", "99999999999999999999"],
                                  ["bench", "--players", "99999999999999999999", "--rounds", "1", "--repeat", "1"],
                                  ["play", "--players", "-5"]])
def test_a_player_count_beyond_the_rules_is_refused_before_any_work(argv: list[str], capsys: Capture) -> None:
    """It hung before (a list of that many player names was made first)."""
    assert main(argv) == 2
    assert f"{argv[2]} players: these rules allow" in capsys.readouterr().err


def test_a_port_beyond_65535_is_refused(capsys: Capture) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["serve", "--no-open", "--port", "70000"])
    assert exited.value.code == 2
    assert "70000 is no port" in capsys.readouterr().err


def test_simulate_forks_no_more_workers_than_matches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from baobei.play import campaign

    asked: list[int] = []
    real = campaign._job_results

    def one_process(spec: Any, todo: Any, workers: int, dask: str | None) -> Any:
        asked.append(workers)
        return real(spec, todo, 1, dask)

    monkeypatch.setattr(campaign, "_job_results", one_process)
    assert main(["simulate", "--players", "2", "--matches", "2", "--workers", "100000", "--out",
                 str(tmp_path / "sim")]) == 0
    assert asked == [2]


@pytest.mark.parametrize(("suffix", "message"), [(":500", ": the file has "), (":abc", "'abc' is no line number"),
                                                 (":22:3", "write FILE:LINE, one line number (no column)")])
def test_why_at_a_line_the_file_lacks_or_a_bad_line_says_so(suffix: str, message: str, capsys: Capture) -> None:
    """Past the end it answered as at the end; a line number written wrong was 'no such file'."""
    scenario = str(sorted(default_scenarios_dir().rglob("*.scenario"))[0])
    assert main(["why", scenario + suffix]) == 2
    assert message in capsys.readouterr().err


def test_verify_names_the_scenarios_of_tables_it_could_not_search(tmp_path: Path, capsys: Capture) -> None:
    """A scenario of --tables that cannot be read was left out without a word: now counted in the tables line."""
    garbage = tmp_path / "garbage.scenario"
    garbage.write_bytes(bytes(range(256)) * 2)
    assert main(["verify", "--players", "2", "--only", "peek_limit", "--depth", "1", "--states", "20",
                 "--bmc-depth", "0", "--table-depth", "1", "--tables", str(garbage)]) == 0
    assert "tables    2 players: 1 scenario of --tables not searched" in capsys.readouterr().out


def test_explore_that_finished_no_depth_says_nothing_was_judged(capsys: Capture) -> None:
    """With a state budget too small for one depth it said 'explored to depth -1: holds' for every property."""
    assert main(["explore", "--players", "2", "--depth", "1", "--max-states", "1"]) == 0
    out = capsys.readouterr().out
    assert "depth -1" not in out and "no_deadlock: not judged: the search stopped before it finished a depth" in out


def test_explore_deals_no_more_than_its_state_budget_holds(capsys: Capture, monkeypatch: pytest.MonkeyPatch) -> None:
    """100,000 deals under --max-states 50: it dealt them all (33 s, 3.5 GB) before it stopped."""
    dealt: list[int] = []
    real = Engine.new_match

    def counted(self: Engine, *args: Any, **kwargs: Any) -> Any:
        dealt.append(1)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Engine, "new_match", counted)
    assert main(["explore", "--players", "2", "--depth", "1", "--deals", "100000", "--max-states", "50"]) == 0
    assert "stopped at 50 states, in depth 0" in capsys.readouterr().out
    assert len(dealt) == 50


@pytest.mark.parametrize("argv", [
    ["play", "--players", "2", "--log", ""],
    ["check", "--junit", ""],
    ["explain", "--svg", "", "x.scenario"],
    ["explore", "--emit-scenario", ""],
    ["verify", "--json", ""],
    ["verify", "--tables", " "],
    ["docs", "--out", ""],
    ["simulate", "--out", ""],
    ["simulate", "--policy", ""],
])
def test_an_empty_path_or_name_is_bad_input(argv: list[str], capsys: Capture) -> None:
    """An empty value names nothing: it was passed over as if the option were not given (no log written),
    or taken for the current directory."""
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2 and "an empty value names nothing" in capsys.readouterr().err


@pytest.mark.parametrize("line", ['question en "Again?"', 'answer de "Nochmal."'])
def test_a_second_question_or_answer_in_one_language_is_malformed(line: str, tmp_path: Path, capsys: Capture) -> None:
    head = 'question de "Frage?"\nanswer de "Antwort."\nquestion en "Question?"\nanswer en "Answer."\n'
    text = PASSING.replace("cites § 2.2 [P24]\n", f"cites § 2.2 [P24]\n{head}{line}\n")
    path = write(tmp_path, "twice.scenario", text)
    assert main(["check", str(path)]) == 2
    number = text.splitlines().index(line) + 1
    assert f"{path}:{number}:1: a second `{line.split()[0]} {line.split()[1]}` line" in capsys.readouterr().err


def test_docs_check_and_site_together_are_refused(tmp_path: Path, capsys: Capture) -> None:
    """--check was ignored when --site was given: the site was built and nothing compared."""
    assert main(["docs", "--site", str(tmp_path / "site"), "--check"]) == 2
    assert "give one" in capsys.readouterr().err and not (tmp_path / "site").exists()


def test_verify_help_gives_the_defaults_verify_uses_without_importing_z3() -> None:
    """`verify --help` reads its defaults from proofs/defaults.py, the module verify reads them from, and
    imports no Z3 for it (a help or a typo in the options answers at once)."""
    import os
    import subprocess
    import sys

    from baobei.proofs import defaults

    probe = ("import sys\nfrom baobei.cli import main\ntry:\n    main(['verify', '--help'])\nexcept SystemExit:\n"
             "    pass\nprint('z3 imported' if 'z3' in sys.modules else 'no z3')\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                          env={**os.environ, "COLUMNS": "200"})
    help_text = " ".join(done.stdout.split())
    assert help_text.endswith("no z3"), help_text[-200:]
    assert f"(default: {defaults.DEFAULT_STATES})" in help_text
    assert f"(default: {defaults.BMC_WORK} // players, at least 1)" in help_text
    assert f"(default: {defaults.DEFAULT_DEPTH})" in help_text
    assert f"(default: {defaults.DEFAULT_TABLE_DEPTH})" in help_text
