"""Bounded memory (issue 29): `simulate` streams its jobs and folds each match's record into running totals,
so that its memory does not grow with --matches; `explore` refuses a state limit the machine cannot hold."""

from __future__ import annotations

import itertools
import json
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from baobei.cli import main
from baobei.engine.move import Move
from baobei.language.errors import BaoError
from baobei.language.load import load_ruleset
from baobei.language.paths import default_rules_dir
from baobei.play import explore as explore_module
from baobei.play.campaign import Spec, Totals, campaign_records, in_order, jobs, read_rules, run_campaign
from baobei.play.dealer import Finding, MatchRecord
from baobei.play.explore import MEMORY_SHARE, STATE_BYTES, check_state_budget, explore, report_lines
from baobei.play.loops import RoundSummary
from baobei.play.simulation import Simulation, distribution

# Far more matches than any machine could hold a job, let alone a record, of.
HUGE = 10 ** 12


def spec(players: int = 2) -> Spec:
    directory = default_rules_dir()
    return Spec(read_rules(directory), str(directory), players, 1, "random", invariants=False)


# ---------------------------------------------------------------- the jobs are made as they are sent


def test_the_jobs_of_a_huge_campaign_are_made_one_at_a_time() -> None:
    start = time.perf_counter()
    todo = jobs(HUGE, 2)
    first = list(itertools.islice(todo, 3))
    assert time.perf_counter() - start < 1.0
    assert first == [range(0, 25), range(25, 50), range(50, 75)]
    assert isinstance(todo, Iterator)


def test_jobs_cover_every_match_once_in_order() -> None:
    for matches, workers in ((1, 1), (7, 2), (100, 2), (1001, 4), (30, 1)):
        assert [i for job in jobs(matches, workers) for i in job] == list(range(matches))


@pytest.mark.parametrize("workers", [1, 2])
def test_the_first_records_of_a_huge_campaign_come_at_once(workers: int) -> None:
    """Before: the campaign made a list of every job first (10^12 matches: never done, memory without end)."""
    start = time.perf_counter()
    records = campaign_records(spec(), HUGE, workers)
    first = list(itertools.islice(records, 3))
    records.close()  # leaving the pool ends its workers
    assert [r.index for r in first] == [0, 1, 2]
    assert time.perf_counter() - start < 60


def test_at_most_a_window_of_jobs_is_under_way() -> None:
    """The jobs are read from their source only as results are read: a few ahead, never all."""
    made: list[int] = []
    under_way = 0
    most = 0

    def source() -> Iterator[range]:
        for i in itertools.count():
            made.append(i)
            yield range(i, i + 1)

    def submit(job: range) -> range:
        nonlocal under_way, most
        under_way += 1
        most = max(most, under_way)
        return job

    def result(job: range) -> list[MatchRecord]:
        nonlocal under_way
        under_way -= 1
        return [MatchRecord(job[0], 0)]

    results = in_order(submit, result, source(), window=4)
    got = [records[0].index for records in itertools.islice(results, 10)]
    assert got == list(range(10))
    assert most <= 4
    assert len(made) <= 10 + 4


def test_the_progress_callback_counts_every_match() -> None:
    done: list[int] = []
    run_campaign(spec(), 3, 1, advance=done.append)
    assert sum(done) == 3


# ---------------------------------------------------------------- the totals keep a bounded number of things


def summary(match: int, turns: int) -> RoundSummary:
    return RoundSummary(match, 1, turns, False, 0, 0, (), (), None)


def finding(match: int, label: str) -> Finding:
    return Finding(label, f"{label} fails", "", match, match, 2, 1, (Move(0, "draw"),))


def record(i: int) -> MatchRecord:
    """A made-up record: one longest round each, a finding every third match of one of two properties."""
    r = MatchRecord(i, i, finished=i % 4 != 0, capped=i % 4 == 0, moves=10 + i % 7, rounds=[3 + i % 5, 2],
                    tallies={"stat": Counter({((i % 3,), None): 1})}, longest=summary(i, i % 50))
    if i % 3 == 0:
        r.findings.append(finding(i, f"invariant p{i % 2}"))
    return r


def test_the_totals_keep_a_few_rounds_and_one_finding_per_property_however_many_matches() -> None:
    totals = Totals(keep=5)
    for i in range(20_000):
        totals.add(record(i))
    assert totals.matches == 20_000
    assert len(totals.longest) == 5
    assert [(r.turns, r.match) for r in totals.longest] == [(49, 49), (49, 99), (49, 149), (49, 199), (49, 249)]
    assert sorted(totals.first) == ["invariant p0", "invariant p1"]
    assert [f.match for f in totals.first_findings()] == [0, 3]
    assert totals.found == Counter({"invariant p0": 3334, "invariant p1": 3333})
    assert len(totals.tallies["stat"]) == 3  # one count per value, not per match
    assert len(totals.rounds_per_match) <= 5 and len(totals.turns_per_round) <= 6


def test_the_totals_do_not_depend_on_the_order_the_records_arrive_in() -> None:
    forward, backward = Totals(keep=5), Totals(keep=5)
    for i in range(500):
        forward.add(record(i))
    for i in reversed(range(500)):
        backward.add(record(i))
    assert forward == backward


def test_a_distribution_from_counts_is_the_one_from_the_numbers() -> None:
    for values in ([5], [1, 2], [3, 3, 3, 1], list(range(100)), [7, 1, 9, 9, 2, 2, 2, 40, 0, 13, 13]):
        ordered = sorted(values)
        expected = {"count": len(values), "mean": round(sum(values) / len(values), 3),
                    "median": ordered[min(len(values) - 1, int(0.5 * len(values)))],
                    "p90": ordered[min(len(values) - 1, int(0.9 * len(values)))], "min": ordered[0],
                    "max": ordered[-1], "histogram": {str(v): n for v, n in sorted(Counter(values).items())}}
        assert distribution(Counter(values)) == expected
    assert distribution(Counter()) == {"count": 0}


def test_a_campaign_folded_as_it_goes_gives_the_figures_of_its_records(tmp_path: Path) -> None:
    """The figures of the totals are those of every record kept (the figures before the change)."""
    s = replace(spec(3), policy="memory")
    records = list(campaign_records(s, 6))
    totals = Totals(keep=5)
    for r in records:
        totals.add(r)
    figures = Simulation(s).finish(totals, 6, tmp_path)
    assert figures["moves"] == sum(r.moves for r in records)
    assert figures["finished_matches"] == sum(r.finished for r in records)
    turns = [t for r in records for t in r.rounds]
    assert figures["turns_per_round"]["count"] == len(turns)
    assert figures["turns_per_round"]["mean"] == round(sum(turns) / len(turns), 3)
    longest = sorted((r.longest for r in records if r.longest is not None),
                     key=lambda r: (r.turns, -r.match), reverse=True)[:5]
    assert figures["longest_rounds"] == [r.to_json() for r in longest]
    assert json.loads((tmp_path / "simulate.json").read_text(encoding="utf-8")) == figures


# ---------------------------------------------------------------- explore: a state limit that fits


def test_a_state_limit_the_memory_cannot_hold_is_refused() -> None:
    refusal = r"--max-states 1,000,000: .* more than the 0\.8 GB it may take \(80% of the 1\.0 GB available\)"
    with pytest.raises(BaoError, match=refusal):
        check_state_budget(1_000_000, memory=2 ** 30)
    assert check_state_budget(1_000, memory=2 ** 30) == 1_000


def test_without_a_limit_the_search_stops_where_memory_ends() -> None:
    fits = check_state_budget(None, memory=2 ** 30)
    assert 0 < fits * STATE_BYTES <= 2 ** 30
    assert check_state_budget(fits, memory=2 ** 30) == fits


def test_explore_refuses_an_impossible_max_states_before_searching(capsys: pytest.CaptureFixture[str]) -> None:
    start = time.perf_counter()
    code = main(["explore", "--players", "2", "--max-states", str(10 ** 15)])
    err = capsys.readouterr().err
    assert code == 2
    assert "--max-states 1,000,000,000,000,000:" in err and "GB" in err and "states fit" in err
    assert time.perf_counter() - start < 10


def test_compare_refuses_an_impossible_max_states_before_comparing(capsys: pytest.CaptureFixture[str]) -> None:
    rules = str(default_rules_dir())
    code = main(["compare", "--rules", rules, "--rules", rules, "--max-states", str(10 ** 15)])
    err = capsys.readouterr().err
    assert code == 2
    assert "--max-states 1,000,000,000,000,000:" in err and "states fit" in err


def test_verify_refuses_an_impossible_states_before_proving(capsys: pytest.CaptureFixture[str]) -> None:
    start = time.perf_counter()
    code = main(["verify", "--players", "2", "--states", str(10 ** 15)])
    err = capsys.readouterr().err
    assert code == 2
    assert "--states 1,000,000,000,000,000:" in err and "states fit" in err
    assert time.perf_counter() - start < 10


def test_a_search_without_a_limit_stops_at_the_states_memory_holds(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rather than being killed when the machine runs out of memory (here: memory for 40 states)."""
    monkeypatch.setattr(explore_module, "available_memory", lambda: int(40 * STATE_BYTES / MEMORY_SHARE) + 1)
    report = explore(load_ruleset(default_rules_dir()), 2, 8)
    assert report.truncated and report.states == 40
    assert "stopped at 40 states" in "\n".join(report_lines(report))


def test_the_search_refuses_no_limit_it_is_given(monkeypatch: pytest.MonkeyPatch) -> None:
    """The command checks the limit; a default worked out from the memory available a moment ago is not
    refused by the search because a little less is available now."""
    monkeypatch.setattr(explore_module, "available_memory", lambda: STATE_BYTES)
    report = explore(load_ruleset(default_rules_dir()), 2, 1, max_states=1_000)
    assert not report.truncated and report.states > 1
