"""The command line's leftovers of an audit, one test per defect (each failed before its fix):

6. `play --log` refuses a log it cannot write before the game is played;
7. `why --json` says an error as JSON;
8. `compare` with a scenario that does not parse is bad input (exit 2);
9. `--rules ""` is refused, not read as the default rules;
10. `bench --watch` (and `--policy`) without `--tally` is refused, since only the tally reads them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from baobei.cli import EXIT_BAD_INPUT, main
from baobei.language.paths import PROJECT_ROOT

Capture = pytest.CaptureFixture[str]
GAME = ["play", "--players", "3", "--seed", "7"]


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs the /proc file system, where no file can be made")
def test_play_refuses_a_log_it_cannot_write_before_the_game(capsys: Capture) -> None:
    assert main([*GAME, "--log", "/proc/x.jsonl"]) == EXIT_BAD_INPUT
    out, err = capsys.readouterr()
    assert out == "", "the game was played although its log cannot be written"
    assert "error: --log /proc/x.jsonl: cannot write a file there" in err and "nothing was played" in err


def test_why_json_says_an_error_as_json(tmp_path: Path, capsys: Capture) -> None:
    missing = tmp_path / "missing.jsonl"
    assert main(["why", "--json", f"{missing}:3"]) == EXIT_BAD_INPUT
    out, err = capsys.readouterr()
    assert json.loads(out) == {"place": f"{missing}:3", "error": f"{missing}: no such file"}
    assert f"error: {missing}: no such file" in err  # and for people on standard error


def test_compare_with_a_scenario_that_does_not_parse_is_bad_input(tmp_path: Path, capsys: Capture) -> None:
    bad = tmp_path / "bad.scenario"
    bad.write_text("nonsense here\n", encoding="utf-8")
    rules = str(PROJECT_ROOT / "rules")
    code = main(["compare", "--rules", rules, "--rules", rules, "--scenarios", str(bad), "--matches", "0",
                 "--depth", "0", "--bmc-depth", "0", "--max-states", "10", "--out", str(tmp_path / "out")])
    assert code == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert "scenario files that do not parse (1)" in err and f"{bad}:1:1" in err


@pytest.mark.parametrize("argv", [["rules", "--rules", ""], ["--rules", "", "rules"], ["--rules", " ", "rules"],
                                  ["compare", "--rules", "", "--rules", "rules"]])
def test_an_empty_rules_path_is_refused(argv: list[str], capsys: Capture) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    assert stopped.value.code == EXIT_BAD_INPUT
    assert "argument --rules: an empty path names no rules folder" in capsys.readouterr().err


def test_bench_refuses_tally_options_without_tally(capsys: Capture) -> None:
    small = ["bench", "--players", "2", "--rounds", "2", "--repeat", "1"]
    assert main([*small, "--watch", "shield"]) == EXIT_BAD_INPUT
    out, err = capsys.readouterr()
    assert out == "" and "error: --watch is read only with --tally" in err and "give --tally too" in err
    assert main([*small, "--policy", "kinds"]) == EXIT_BAD_INPUT
    assert "error: --policy is read only with --tally" in capsys.readouterr().err
    assert main([*small, "--tally", "--watch", "no_such_variable"]) == EXIT_BAD_INPUT
    out, err = capsys.readouterr()
    assert out == "" and "--watch names no variable of the rules: no_such_variable" in err  # before the runs
