"""A comparison of two versions of the rules, from a request to the files it writes.

Four parts, each in its module: the scenarios' answers replayed under both (answers.py), the properties
judged by the search under both (properties.py), the shortest situation that tells them apart
(distinguish.py), and play side by side (play.py). A rules folder may come from a git revision
(revision.py); the output for people and as JSON is report.py's.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass
from pathlib import Path

from ..engine.engine import Engine
from ..language.errors import BaoError
from ..language.load import load_ruleset
from ..language.output import write_output
from ..language.paths import default_scenarios_dir
from ..language.terminal import progress
from ..play.campaign import default_workers
from ..scenarios import syntax as sc
from ..scenarios.parser import SCENARIO_SUFFIX, parse_scenario_file, scenario_files
from .answers import compare_answers
from .changes import rule_changes
from .distinguish import SearchOptions, distinguish
from .lockstep import NEW, OLD
from .play import PlayOptions, PlayReport, Sample, compare_play
from .properties import Budget, compare_properties
from .report import Comparison, to_text
from .revision import RulesSource

FIGURES = "compare.json"
SITUATION = "situation.scenario"
COUNTEREXAMPLES = "counterexamples"


@dataclass(frozen=True)
class Request:
    """Everything a comparison depends on (the command line stays in this module)."""

    old: RulesSource
    new: RulesSource
    scenarios: list[Path]
    properties: Budget
    search: SearchOptions
    play: PlayOptions | None  # None: no matches


def request_of(args: argparse.Namespace, old: RulesSource, new: RulesSource, scenarios: list[Path]) -> Request:
    budget = Budget(args.players, args.depth, args.deals, args.seed, args.max_states)
    search = SearchOptions(args.players, args.seed, args.deals, args.depth, args.table_depth, args.max_states,
                           args.bmc_depth, args.bmc_seconds)
    play = PlayOptions(args.players, args.matches, args.seed, args.policy, args.max_turns,
                       args.workers or default_workers()) if args.matches else None
    return Request(old, new, scenarios, budget, search, play)


def out_dir(out: Path) -> Path:
    if out.exists() and not out.is_dir():
        raise BaoError(f"--out {out}: is a file; it names the folder the comparison is written into")
    try:  # before the work: a folder that cannot be made is bad input now
        out.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise BaoError(f"--out {out}: cannot make the folder: {err.strerror}") from None
    return out


def scenario_paths(paths: list[str] | None) -> list[Path]:
    given = [Path(p) for p in paths] if paths else [default_scenarios_dir()]
    files = scenario_files(given)
    if not files:
        raise BaoError(f"no scenario files (*{SCENARIO_SUFFIX}) found in " + ", ".join(map(str, given)))
    return files


def readable(files: list[Path]) -> list[Path]:
    """The scenario files, each found to parse; else bad input (exit 2), every file that does not parse named.
    A scenario the comparison cannot read answers nothing under either version: a comparison without it would
    pass in silence what the user asked to be compared."""
    unread = []
    for path in files:
        try:
            parse_scenario_file(path)
        except BaoError as err:
            unread.append(str(err).splitlines()[0])
    if unread:
        raise BaoError(f"scenario files that do not parse ({len(unread)}), which neither version can replay (fix them "
                       "or leave them out of --scenarios): " + "; ".join(unread))
    return files


def compare(request: Request) -> Comparison:
    """The four parts of the comparison, in this order (the cheapest first)."""
    began = time.perf_counter()
    labels = {OLD: request.old.label, NEW: request.new.label}
    # Compiled afresh (from the cache of compiled rules, keyed by the files' digest), not from the engines a
    # process keeps per folder: a folder edited since, in a long session, would be compared as it was.
    old, new = Engine(load_ruleset(request.old.directory)), Engine(load_ruleset(request.new.directory))
    _check_players(request.properties.players, old, new, labels)
    changes = rule_changes(old.rules, new.rules)
    with progress("scenarios replayed under both versions", len(request.scenarios)) as advance:
        answers = compare_answers(request.scenarios, old, new, advance)
    properties = compare_properties(old.rules, new.rules, request.properties)
    search = distinguish(old, new, labels, changes, _readable(request.scenarios), request.search)
    played, samples = _play(request, request.play) if request.play is not None else (None, None)
    return Comparison(labels, changes, answers, properties, search, played, samples=samples,
                      seconds=time.perf_counter() - began)


def _check_players(players: int, old: Engine, new: Engine, labels: dict[str, str]) -> None:
    """A player count that neither version allows is bad input, before any work (one that a version allows
    is a difference the comparison shows)."""
    sides = ((OLD, old.rules), (NEW, new.rules))
    if not any(rules.min_players <= players <= rules.max_players for _, rules in sides):
        allowed = "; ".join(f"{side} ({labels[side]}) allows {rules.min_players} to {rules.max_players} "
                            f"({rules.players_cite})" for side, rules in sides)
        raise BaoError(f"--players {players}: no version allows it: {allowed}")


def _readable(files: list[Path]) -> list[sc.Scenario]:
    out = []
    for path in files:
        try:
            out.append(parse_scenario_file(path))
        except BaoError:
            continue  # listed by the answers part as not read
    return out


def _play(request: Request, options: PlayOptions) -> tuple[PlayReport, dict[str, Sample]]:
    with progress("matches played", 2 * options.matches) as advance:
        return compare_play(request.old.directory, request.new.directory, options, advance)


def write_files(c: Comparison, out: Path) -> None:
    """The situation's scenario, each property's counterexample, the plots, then the JSON naming them all."""
    if c.search.situation is not None:
        write_output(out / SITUATION, c.search.situation.scenario)
        c.files.append(str(out / SITUATION))
    for change in c.property_changes:
        broken = change.new if change.breaks_in == NEW else change.old if change.breaks_in == OLD else None
        if broken is not None and broken.scenario:
            path = out / COUNTEREXAMPLES / f"{change.breaks_in}_{change.label.replace(' ', '_')}.scenario"
            path.parent.mkdir(exist_ok=True)
            write_output(path, broken.scenario)
            c.files.append(str(path))
    if c.play is not None and c.samples is not None:
        from .plots import write_plots

        c.files += [str(p) for p in write_plots(c.play, c.samples, c.labels, out) if p.suffix == ".png"]
    c.files.append(str(out / FIGURES))
    write_output(out / FIGURES, to_text(c))
