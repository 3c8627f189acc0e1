"""`baobei simulate`: seeded campaigns give the same figures however they run; the rules' statistics and
policies steer them without a Python edit; failures of the rules come back as minimized scenarios; D9's
endless rounds are found as cycles; bad input is refused with exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from baobei.cli import main
from baobei.engine.engine import Engine
from baobei.engine.move import Move
from baobei.language.load import load_ruleset
from baobei.language.paths import default_rules_dir
from baobei.play.campaign import Spec, match_seed, read_rules, run_campaign
from baobei.play.dealer import Dealer, MatchRecord
from baobei.play.figures import to_text
from baobei.play.findings import ddmin
from baobei.play.loops import periodic_tail
from baobei.play.simulation import Simulation
from baobei.scenarios.parser import parse_scenario_file
from baobei.scenarios.runner import run_scenario
from conftest import MakeVariant, edit_file
from planted import NOTED_ROUND_VALUE, TAKE_COVERS


def spec(rules: Path | None = None, players: int = 3, policy: str = "memory", **kw: int) -> Spec:
    """A campaign's spec (the memory policy: the one of the default rules that plays like people)."""
    directory = rules or default_rules_dir()
    return Spec(read_rules(directory), str(directory), players, kw.pop("seed", 1), policy, **kw)  # type: ignore[arg-type]


def figures(s: Spec, matches: int, tmp: Path, workers: int = 1, dask: str | None = None) -> dict[str, object]:
    return Simulation(s).finish(run_campaign(s, matches, workers, dask), matches, tmp)


def test_the_same_seed_gives_the_same_figures_whatever_the_workers(tmp_path: Path) -> None:
    s = spec(players=3)
    one = to_text(figures(s, 3, tmp_path / "one", workers=1))
    two = to_text(figures(s, 3, tmp_path / "two", workers=2))
    assert one == two
    other = to_text(figures(spec(players=3, seed=2), 3, tmp_path / "other"))
    assert other != one  # the seed matters: equality above is no accident


def test_a_dask_cluster_gives_the_same_figures(tmp_path: Path) -> None:
    from distributed import LocalCluster

    s = spec(players=2)
    local = to_text(figures(s, 2, tmp_path / "local"))
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        remote = to_text(figures(s, 2, tmp_path / "dask", dask=cluster.scheduler_address))
    assert remote == local


def test_a_match_is_dealt_from_the_campaign_seed_and_its_index() -> None:
    assert match_seed(1, 0) == match_seed(1, 0)
    assert len({match_seed(s, i) for s in range(3) for i in range(50)}) == 150
    assert match_seed(1, 3) < 2 ** 48  # a scenario's `deal seed` line states it


def test_the_summary_names_the_workers_the_campaign_ran_on(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--workers beyond the matches: the campaign runs one process per match, and says so."""
    args = ["simulate", "--players", "2", "--matches", "1", "--workers", "9", "--out", str(tmp_path / "sim")]
    assert main(args) == 0
    assert "1 match in " in (out := capsys.readouterr().out) and " on 1 worker: " in out


def test_the_command_writes_the_table_the_json_and_the_plots(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "sim"
    args = ["simulate", "--players", "4", "--matches", "3", "--seed", "1", "--workers", "1", "--out", str(out)]
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "turns per round" in text and "bao:" in text and "winner:" in text
    data = json.loads((out / "simulate.json").read_text(encoding="utf-8"))
    assert data["matches_played"] == 3 and data["finished_matches"] == 3
    assert data["statistics"]["bao"]["rows"] and data["statistics"]["ability"]["rows"]
    names = sorted(p.name for p in out.iterdir())
    for stem in ("round_length", "bao", "winner"):
        assert f"{stem}.png" in names and f"{stem}.svg" in names
    first = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    assert main(args) == 0
    again = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    assert again == first  # JSON, PNG and SVG: the same bytes


@pytest.mark.parametrize(("args", "message"), [
    (["--players", "7"], "7 players: these rules allow 2 to 6"),
    (["--policy", "nobody"], "--policy nobody: no such policy; there are: random, kinds, memory"),
    (["--workers", "2", "--dask", "tcp://127.0.0.1:9"], "--workers and --dask exclude each other"),
])
def test_bad_input_is_refused_with_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str],
                                          message: str) -> None:
    assert main(["simulate", "--out", str(tmp_path / "o"), *args]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(("args", "message"), [
    (["--matches", "0"], "0 is less than 1"),
    (["--max-turns", "x"], "'x' is not a whole number"),
    (["--workers", "-1"], "-1 is less than 1"),
])
def test_bad_numbers_are_refused_by_the_parser(capsys: pytest.CaptureFixture[str], args: list[str],
                                               message: str) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["simulate", *args])
    assert stop.value.code == 2 and message in capsys.readouterr().err


def test_an_out_that_is_a_file_or_cannot_be_made_is_refused(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "f").write_text("", encoding="utf-8")
    assert main(["simulate", "--matches", "1", "--out", str(tmp_path / "f")]) == 2
    assert "is a file" in capsys.readouterr().err
    assert main(["simulate", "--matches", "1", "--out", str(tmp_path / "f" / "under")]) == 2
    assert "cannot make the directory" in capsys.readouterr().err


def test_a_statistic_added_to_the_rules_is_counted(make_variant: MakeVariant, tmp_path: Path) -> None:
    variant = make_variant()
    (variant / "11_more.bao").write_text(
        'statistic takes "Discards taken, by the slot the taken card goes to" § 2.3 [P29] '
        "{\n  on take\n  by slot = slot_no(slot)\n}\n", encoding="utf-8")
    data = figures(spec(variant), 3, tmp_path)
    takes = data["statistics"]["takes"]  # type: ignore[index]
    assert takes["count"] > 0 and takes["dimensions"] == {"slot": "int"}
    assert "takes" not in figures(spec(), 3, tmp_path / "default")["statistics"]  # type: ignore[operator]


def test_the_memory_policy_is_steered_by_the_rules(make_variant: MakeVariant, tmp_path: Path) -> None:
    """Calling BAO at a higher known value makes callers' values higher: no Python edit."""
    bold = make_variant(("10_statistics.bao", "define memory_low_total = 8 ", "define memory_low_total = 16 "))

    def mean_caller_value(data: dict[str, object]) -> float:
        rows = data["statistics"]["bao"]["rows"]  # type: ignore[index]
        return sum(r["key"]["value"] * r["count"] for r in rows) / sum(r["count"] for r in rows)

    assert mean_caller_value(figures(spec(bold), 6, tmp_path / "bold")) > \
        mean_caller_value(figures(spec(), 6, tmp_path / "default")) + 2


# Noting the plain round value breaks successful_bao_noted as well as failed_bao_noted: these matches
# meet a successful BAO first.
@pytest.mark.parametrize(("planted", "label"), [(NOTED_ROUND_VALUE, "invariant successful_bao_noted"),
                                                (TAKE_COVERS, "rules")])
def test_a_failure_of_the_rules_becomes_a_minimized_scenario(make_variant: MakeVariant, tmp_path: Path,
                                                             planted: object, label: str) -> None:
    variant = make_variant(*planted.edits)  # type: ignore[attr-defined]
    out = tmp_path / "out"
    data = figures(spec(variant, players=2), 2, out)
    found = data["findings"]
    assert [f["property"] for f in found] == [label]  # type: ignore[index, union-attr]
    f = found[0]  # type: ignore[index]
    assert f["minimized_moves"] < f["first"]["moves"] and f["scenario"]
    scenario = parse_scenario_file(Path(f["scenario"]))
    result = run_scenario(scenario, Engine(load_ruleset(variant)))
    assert result.failure is not None and result.failure.pos.line == scenario.steps[-1].pos.line
    assert result.failure.message.split(":")[0] == f["message"].split(":")[0]
    assert run_scenario(scenario, Engine(load_ruleset(default_rules_dir()))).passed  # the bug is the variant's


def test_the_command_exits_1_on_a_finding(make_variant: MakeVariant, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    variant = make_variant(*TAKE_COVERS.edits)
    out = tmp_path / "out"
    assert main(["simulate", "--rules", str(variant), "--players", "2", "--matches", "2", "--workers", "1",
                 "--out", str(out)]) == 1
    assert "findings" in capsys.readouterr().out
    assert (out / "findings" / "rules.scenario").is_file()


def test_ddmin_keeps_exactly_what_the_failure_needs() -> None:
    moves = [Move(0, f"m{i}") for i in range(100)]
    needed = {moves[13], moves[57], moves[58]}
    kept, asked = ddmin(moves, lambda ms: ms if needed <= set(ms) else None)
    assert kept == (moves[13], moves[57], moves[58]) and asked < 200


def test_periodic_tail_finds_the_shortest_repeating_period() -> None:
    assert periodic_tail(["a", "b", "c", "d", "c", "d", "c", "d"]) == (2, 6)
    assert periodic_tail(["x", "y", "y", "y"]) == (1, 3)
    assert periodic_tail(["a", "b", "c"]) == (0, 0)


def test_a_round_that_only_takes_the_discard_is_a_cycle_the_cap_cuts(default_engine: Engine) -> None:
    """D9: nothing in the rules ends a round in which every turn takes the discard and nobody calls BAO."""
    record: MatchRecord = Dealer(default_engine, "take_only", max_turns=60).play(0, 5, 3)
    assert record.capped and not record.finished and record.rounds == []
    longest = record.longest
    assert longest is not None and longest.turns == 60 and longest.capped
    assert longest.repeat is not None  # the state came back: a cycle
    assert longest.pattern == ("take end_turn",) and longest.periodic_turns >= 58


def test_memory_policy_rounds_end(default_engine: Engine) -> None:
    record = Dealer(default_engine, "memory").play(0, 9, 4)
    assert record.finished and not record.findings and record.rounds
    assert record.tallies["winner"] and sum(record.tallies["bao"].values()) == len(record.rounds)


def test_edit_file_is_strict(tmp_path: Path) -> None:
    path = tmp_path / "x.bao"
    path.write_text("a a", encoding="utf-8")
    with pytest.raises(AssertionError):
        edit_file(path, "a", "b")


@pytest.mark.parametrize(("text", "message"), [
    ('statistic s "t" § 2.3 [P29] { on nothing }\n', "names the move 'nothing', which these rules do not declare"),
    ('statistic s "t" § 2.3 [P29] { when true when false }\n', "statistic 's' has two `when` clauses"),
    ('statistic s "t" § 2.3 [P29] { by a = 1 by a = 2 }\n', "two dimensions named 'a'"),
    ('statistic s "t" § 2.3 [P29] { by a = nowhere }\n', "unknown name 'nowhere'"),
    ('statistic s "t" § 2.3 [P29] { when 3 }\n', "must be true or false"),
    ('policy p "t" § 2.3 [P29] { avoid take when slot_no(slot) == 1 }\n', "unknown name 'slot'"),
    ('policy p "t" § 2.3 [P29] { prefer take when old(round) == 1 }\n', "old(...) reads the state before a move"),
    ('policy p "t" § 2.3 [P29] { prefer take best true }\n', "arithmetic needs a number; this is a bool"),
    ('policy memory "t" § 2.3 [P29] { prefer take }\n', "policy 'memory' is declared twice"),
    ('policy p "t" § 9.9 [P29] { prefer take }\n', "§ 9.9 is no section of the rulebook"),
])
def test_bad_statistics_and_policies_are_refused_with_their_place(make_variant: MakeVariant,
                                                                  capsys: pytest.CaptureFixture[str], text: str,
                                                                  message: str) -> None:
    variant = make_variant()
    (variant / "11_more.bao").write_text(text, encoding="utf-8")
    assert main(["rules", "--rules", str(variant)]) == 2
    err = capsys.readouterr().err
    assert message in err and "11_more.bao" in err
