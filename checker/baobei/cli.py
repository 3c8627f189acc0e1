# PYTHON_ARGCOMPLETE_OK
"""The `baobei` command: the executable rules of BAO BEI.

Replay scenarios (check, explain), validate the rules (rules), play seeded games
(play, bench), search the rounds (explore), judge the rules' properties with Z3
and the search (verify) and generate the documentation (docs). Every command takes
--rules DIR to run a rules variant. Exit codes: 0 success, 1 a failure (a
scenario, a property), 2 bad input.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import dataclasses
import json
import os
import signal
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .compare.command import rules_folder
from .language.errors import (
    BaoError,
    ScenarioError,
    SourceError,
    check_directory,
    check_writable,
    read_source,
)
from .language.options import at_least, named
from .language.output import write_output
from .language.paths import PROJECT_ROOT, default_rules_dir, default_scenarios_dir
from .language.terminal import emit, is_terminal, progress, table
from .language.words import plural
from .proofs import defaults as verify_defaults  # no Z3: the options' defaults and help

if TYPE_CHECKING:
    from .docs.book import Book
    from .engine.engine import Engine
    from .engine.state import State
    from .language.ruleset import Ruleset
    from .scenarios.results import CheckRecord, Where
    from .scenarios.runner import Failure, ScenarioResult

EXIT_OK, EXIT_FAIL, EXIT_BAD_INPUT = 0, 1, 2
EXIT_INTERRUPTED = 130  # Ctrl-C, as shells report a command that SIGINT ended


class UsageError(BaoError):
    """A command's arguments that do not fit together (exit 2, like any bad input)."""


def _rules_dir(args: argparse.Namespace) -> Path | None:
    return Path(args.rules) if args.rules else None


def cmd_check(args: argparse.Namespace) -> int:
    from .docs.citations import outline
    from .scenarios.parser import SCENARIO_SUFFIX, scenario_files
    from .scenarios.results import FAILED, MALFORMED, check_json, counts, junit_xml
    from .scenarios.runner import engine_for

    if args.junit:
        check_writable(Path(args.junit))  # before the replays: a bad place is bad input found at once
    eng = engine_for(_rules_dir(args))
    if not cited_well(eng.rules):
        return EXIT_BAD_INPUT
    paths = [Path(p) for p in args.paths] or [default_scenarios_dir()]
    files = scenario_files(paths)
    if not files:
        # Nothing checked is no success: a misspelled folder or file suffix would otherwise pass silently.
        print(f"error: no scenario files (*{SCENARIO_SUFFIX}) found in " + ", ".join(map(str, paths)), file=sys.stderr)
        return EXIT_BAD_INPUT
    quiet = bool(args.json)  # the JSON alone goes to standard output; the lines for people to standard error
    checker = ScenarioCheck(eng, outline(), verbose=args.verbose, quiet=args.quiet, err=quiet)
    start = time.perf_counter()
    with progress("scenarios", len(files)) as advance:
        for f in files:
            checker.check(f)
            advance(1)
    elapsed = time.perf_counter() - start
    records = checker.records
    failures = [f"FAIL  {r.failure.place}: {r.failure.message}" for r in records
                if r.status == FAILED and r.failure is not None]
    if failures and not args.quiet:
        emit(f"{plural(len(failures), 'failure')}:", "head", err=quiet)
        for entry in failures:
            emit(entry, "fail", err=quiet)
    tally = counts(records)
    bad, failed = tally[MALFORMED], tally[FAILED]
    emit(f"{plural(len(files), 'scenario')} in {elapsed:.2f}s" + (f", {bad} malformed" if bad else ""), err=quiet)
    emit(f"{len(files) - failed - bad} passed, {failed} failed", "fail" if failed or bad else "pass", err=quiet)
    if args.json:
        print(json.dumps(check_json(records, elapsed), indent=2, ensure_ascii=False))
    if args.junit:
        write_output(Path(args.junit), junit_xml(records, elapsed))
    if bad:
        return EXIT_BAD_INPUT
    return EXIT_FAIL if failed else EXIT_OK


@dataclasses.dataclass
class ScenarioCheck:
    """Replays scenario files one by one: a record of each, and the lines for people as they come."""

    engine: Engine
    book: Book  # the rulebook's outline: the sections and paragraphs a scenario may cite
    verbose: bool = False
    quiet: bool = False  # one line per failure instead of its trace
    err: bool = False  # the lines for people go to standard error (standard output carries JSON)
    records: list[CheckRecord] = dataclasses.field(default_factory=list)

    def check(self, f: Path) -> None:
        from .docs.citations import bad_in_scenario
        from .scenarios.parser import parse_scenario_file
        from .scenarios.results import CheckRecord
        from .scenarios.runner import run_scenario

        began = time.perf_counter()
        try:
            scenario = parse_scenario_file(f)
            wrong = bad_in_scenario(self.book, scenario)
            if wrong:
                self.malformed(f, began, wrong)
                return
            result = run_scenario(scenario, self.engine)
        except BaoError as err:
            # A malformed scenario, or rules that fail on it: report it and go on with the others.
            self.malformed(f, began, [("" if isinstance(err, SourceError) else f"{f}: ") + str(err)])
            return
        self.records.append(CheckRecord(f, "passed" if result.passed else "failed", time.perf_counter() - began,
                                        scenario.title, [str(c) for c in scenario.cites],
                                        None if result.failure is None else self.where(result.failure),
                                        trace=self.report(f, result)))

    def malformed(self, f: Path, began: float, messages: list[str]) -> None:
        from .scenarios.results import MALFORMED, CheckRecord

        for message in messages:
            emit(f"ERROR {message}", "error", err=True)
        self.records.append(CheckRecord(f, MALFORMED, time.perf_counter() - began, error="; ".join(messages)))

    @staticmethod
    def where(failure: Failure) -> Where:
        from .scenarios.results import Where

        return Where(str(failure.pos), failure.pos.line, failure.pos.column, failure.message)

    def report(self, f: Path, result: ScenarioResult) -> str:
        """Say how the scenario went; the failure's trace is kept for the JUnit report too."""
        from .scenarios.runner import format_failure

        if result.failure is None:
            if self.verbose:
                emit(f"ok    {f}", "pass", err=self.err)
            return ""
        trace = format_failure(result, read_source(f, ScenarioError))
        if self.quiet:
            emit(f"FAIL  {result.failure.pos}: {result.failure.message}", "fail", err=self.err)
        else:
            emit(f"FAIL  {trace}", "fail", err=self.err)
        return trace


def print_moves(rules: Ruleset) -> int:
    """The move reference: every move, ability and step with who makes it, its arguments, phases, citation."""
    from .docs.language import move_rows

    header = ("move", "who may make it", "arguments (? optional)", "phases", "rule")
    table(header, [(f"{r.name} ({r.kind})", r.who, ", ".join(r.args) or "none", ", ".join(r.phases) or "any",
                    r.cite) for r in move_rows(rules)])
    print("a scenario's play line: PLAYER MOVE name=value ...; a slot is PLAYER.NUMBER, a held card Species#N")
    return EXIT_OK


def cited_well(rules: Ruleset) -> bool:
    """Every citation of the rules names a section of the rulebook and paragraphs of it; else say where."""
    from .docs.citations import bad_in_rules, outline

    wrong = bad_in_rules(outline(), rules)
    for message in wrong:
        print(f"error: {message}", file=sys.stderr)
    return not wrong


def cmd_explain(args: argparse.Namespace) -> int:
    from .scenarios.parser import parse_scenario_file
    from .scenarios.runner import engine_for, run_scenario

    if args.svg:
        check_directory(Path(args.svg))  # before the replay: a bad place is bad input, not a failed scenario
    eng = engine_for(_rules_dir(args))
    scenario = parse_scenario_file(Path(args.file))
    result = run_scenario(scenario, eng, snapshots=True)
    if args.source:
        from .docs.lexers import highlight_terminal

        source = read_source(Path(args.file), ScenarioError)
        print(highlight_terminal(source, "scenario") if is_terminal() else source)
    from .engine.table_view import LEGEND

    print(f"{scenario.title}  ({', '.join(str(c) for c in scenario.cites)})")
    print("", *LEGEND, sep="\n")
    for entry in result.trace:
        print(f"\nline {entry.pos.line}: {entry.text}")
        for other in entry.rejection.others if entry.rejection is not None else ():
            kind = "passing" if other.passing else "lasting"
            print(f"    also refused by {other.cite} ({other.rule}, {kind}): {other.reason}")
        for event in entry.events:
            print(f"    {event.text}")
            print(f"        by {event.rule} {event.cite}")
        for row in entry.table:
            print(f"  | {row}")
    if args.svg:
        from .docs.pictures import write_step_pictures

        written = write_step_pictures(eng, result, Path(args.svg), Path(args.file).stem)
        print(f"\nwrote {plural(len(written), 'picture')} of the table before and after each move to {args.svg}")
    if result.failure is not None:
        print(f"\nFAILED at {result.failure.pos}: {result.failure.message}")
        return EXIT_FAIL
    print("\nall expectations hold")
    return EXIT_OK


def cmd_rules(args: argparse.Namespace) -> int:
    from .engine.engine import Engine
    from .language.load import load_ruleset
    from .language.summary import rules_summary, summary_lines
    from .play.campaign import check_simulation_rules

    directory = _rules_dir(args) or default_rules_dir()
    rules = load_ruleset(directory)
    check_simulation_rules(Engine(rules))  # compiling resolves every name: an unknown one is reported here
    if not cited_well(rules):
        return EXIT_BAD_INPUT
    summary = rules_summary(rules, str(directory))
    if args.json:
        print(json.dumps(summary, indent=2, ensure_ascii=False))
        return EXIT_OK
    if args.moves:
        return print_moves(rules)
    for line in summary_lines(summary, args.verbose):
        print(line)
    return EXIT_OK


def cmd_bench(args: argparse.Namespace) -> int:
    from .play.simulate import Violation, bench
    from .scenarios.runner import engine_for

    eng = engine_for(_rules_dir(args))
    eng.check_player_count(args.players)  # before any work: a count beyond the rules is bad input at once
    watch = watched(eng, args)  # before the timed runs too: a misspelt name would be found only after them
    runs = []
    try:
        with progress("runs", max(1, args.repeat)) as advance:
            for _ in range(max(1, args.repeat)):
                runs.append(bench(eng, args.players, args.rounds, args.seed, invariants=args.invariants))
                advance(1)
    except Violation as err:
        print(f"violated: {err}")
        return EXIT_FAIL
    stats = runs[0]  # every run plays the same seeded moves; only the time differs
    judged = ", every invariant judged after every move" if args.invariants else ""
    print(f"{args.players} players, seed {args.seed}: {stats.rounds} rounds ({stats.matches} whole matches), "
          f"{stats.moves} moves" + (f" ({stats.capped} rounds capped)" if stats.capped else "") + judged)
    for i, run in enumerate(runs, 1):
        print(f"  run {i}: {run.seconds:.2f}s, {run.moves_per_second:,.0f} moves/s, "
              f"{run.rounds_per_second:,.1f} rounds/s, {run.microseconds_per_move:.1f} µs/move")
    median = sorted(runs, key=lambda r: r.seconds)[len(runs) // 2]
    print(f"median of {len(runs)}: {median.moves_per_second:,.0f} moves/s, {median.rounds_per_second:,.1f} rounds/s, "
          f"{median.microseconds_per_move:.1f} µs/move")
    if args.tally:
        print_tally(eng, args, watch)
    return EXIT_OK


def watched(eng: Engine, args: argparse.Namespace) -> list[str]:
    """The variables `bench --tally --watch` counts. --watch and --policy only shape the tally: without
    --tally nothing would read them, and a run that silently ignored them would mislead."""
    if not args.tally:
        given = [option for option, value in (("--watch", args.watch), ("--policy", args.policy)) if value is not None]
        if given:
            raise UsageError(f"{' and '.join(given)} {'is' if len(given) == 1 else 'are'} read only with --tally "
                             "(what the count after the timed runs counts, and how its players choose): give --tally "
                             "too")
        return []
    watch = [name.strip() for name in (args.watch or "").split(",") if name.strip()]
    unknown = [name for name in watch if name not in eng.rules.variables]
    if unknown:
        raise UsageError(f"--watch names no variable of the rules: {', '.join(unknown)}")
    return watch


def print_tally(eng: Engine, args: argparse.Namespace, watch: list[str]) -> None:
    """The same seeded play, counted: moves by name, rounds in which each watched variable took each value."""
    from .play.simulate import tally

    counted = tally(eng, args.players, args.rounds, args.seed, watch, args.policy or TALLY_POLICY)
    print(f"tally over {counted.rounds} rounds:")
    for name, count in sorted(counted.moves.items(), key=lambda item: (-item[1], item[0])):
        print(f"  {name:<18} {count:>7} moves")
    for (name, value), count in sorted(counted.seen.items()):
        print(f"  {name} = {value:<12} in {count} rounds")


def cmd_play(args: argparse.Namespace) -> int:
    from .play.simulate import View, lines_of_play
    from .scenarios.runner import engine_for

    eng = engine_for(_rules_dir(args))
    eng.check_player_count(args.players)  # before any work: a count beyond the rules is bad input at once
    if args.human is not None:
        return play_human(eng, args)
    if args.bots is not None:
        raise UsageError("--bots names the bots that play with people: give --human too")
    viewer = None if args.viewer is None else seat_of(args.viewer, args.players)
    view = View(verbose=args.verbose, viewer=viewer)
    writer = None
    if args.log:
        from .referee.write import LogWriter

        check_log_writable(Path(args.log))  # before the game: a bad place is bad input found at once
        names = [f"p{i + 1}" for i in range(args.players)]
        writer = LogWriter(eng, _rules_dir(args) or default_rules_dir(), names, args.seed, viewer)
    try:
        for text in lines_of_play(eng, args.players, args.seed, args.rounds, args.max_moves, args.max_turns, view,
                                  writer):
            emit(text, "head" if text.startswith(">") else None)
    finally:
        if writer is not None:  # what was played is logged, also when the game stalls
            write_output(Path(args.log), writer.text())
            emit(f"wrote {args.log}: a game log of {plural(len(writer.lines) - 2, 'move')} (baobei referee reads it)",
                 err=True)
    return EXIT_OK


def play_human(eng: Engine, args: argparse.Namespace) -> int:
    """`play --human`: people at the terminal (hot-seat when several), bots of --bots at the other seats."""
    from .play.campaign import default_policy
    from .play.human import human_seats, run_human_play

    if args.viewer is not None:
        raise UsageError("--as and --human exclude each other: each person sees their own view")
    log = Path(args.log) if args.log else None
    if log is not None:
        check_log_writable(log)  # before the game: a bad place is bad input found at once
    return run_human_play(eng, _rules_dir(args) or default_rules_dir(), args.players,
                          human_seats(args.human, args.players), args.bots or default_policy(eng), args.seed, log,
                          max_turns=args.max_turns)


def check_log_writable(path: Path) -> None:
    """Refuse a game log `play --log` cannot write before the game, which it is written after: besides what
    `check_writable` asks, the folder must take a new file, which a read-only or virtual file system (/proc)
    refuses although the folder exists. Tried with a file of its own, removed at once."""
    check_writable(path)
    try:
        with tempfile.NamedTemporaryFile(dir=path.parent, prefix=f".{path.name}.", suffix=".probe"):
            pass
    except OSError as err:
        raise UsageError(f"--log {path}: cannot write a file there ({err.strerror}); nothing was played: name a "
                         "file in a folder you can write") from None


def seat_of(name: str, players: int) -> int:
    """The seat of a player named as `play` names them (p1, p2, ...), or by number."""
    number = name.removeprefix("p")
    if not number.isdigit() or not 1 <= int(number) <= players:
        raise UsageError(f"--as {name}: no such player; the players are p1 to p{players}")
    return int(number) - 1


def cmd_simulate(args: argparse.Namespace) -> int:
    from .language.paths import default_rules_dir
    from .play.campaign import Spec, default_policy, default_workers, engine_for, read_rules, run_campaign, workers_used
    from .play.report import print_summary
    from .play.simulation import Simulation

    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out}: is a file; it names the directory the figures are written into")
    if args.dask is not None and args.workers is not None:
        raise UsageError("--workers and --dask exclude each other: a Dask cluster has workers of its own")
    directory = _rules_dir(args) or default_rules_dir()
    spec = Spec(read_rules(directory), str(directory), args.players, args.seed, "random", args.max_turns,
                not args.no_invariants)
    spec = dataclasses.replace(spec, policy=args.policy or default_policy(engine_for(spec)))
    simulation = Simulation(spec)  # compiles the rules, the policy and the statistics: bad input fails here
    try:  # before the matches, which may take hours: a directory that cannot be made is bad input now
        out.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise UsageError(f"--out {out}: cannot make the directory: {err.strerror}") from None
    workers = args.workers or default_workers()
    start = time.perf_counter()
    with progress("matches played", args.matches) as advance:
        totals = run_campaign(spec, args.matches, workers, args.dask, advance)
    seconds = time.perf_counter() - start
    figures = simulation.finish(totals, args.matches, out)
    if args.json:  # the figures alone on standard output; the lines for people on standard error
        print(json.dumps(figures, indent=2, ensure_ascii=False))
        with contextlib.redirect_stdout(sys.stderr):
            print_summary(figures)
    else:
        print_summary(figures)
    where = args.dask if args.dask else plural(workers_used(workers, args.matches), "worker")
    played = f"{args.matches:,} match" + ("" if args.matches == 1 else "es")
    emit(f"{played} in {seconds:.1f}s on {where}: {args.matches / seconds:,.2f} matches/s, "
         f"{figures['moves'] / seconds:,.0f} moves/s", err=args.json)
    emit(f"wrote {out / 'simulate.json'} and the plots (PNG and SVG) in {out}", err=args.json)
    return EXIT_FAIL if figures["findings"] else EXIT_OK


EXPLORE_PLAYERS = 2  # explore's table when --players is not given


def cmd_explore(args: argparse.Namespace) -> int:
    from .language.load import load_ruleset
    from .language.paths import default_rules_dir
    from .play.explore import (
        check_state_budget,
        explore,
        explore_from,
        failure_scenario,
        report_json,
        report_lines,
    )

    rules = load_ruleset(_rules_dir(args) or default_rules_dir())
    if args.emit_scenario:
        check_writable(Path(args.emit_scenario))
    max_states = check_state_budget(args.max_states)  # a limit the memory cannot hold is refused now
    for_deals = {"--players": args.players, "--deals": args.deals, "--seed": args.seed,
                 "--full-deck": args.full_deck or None, "--knowledge": args.knowledge or None}
    if args.start:
        given = [flag for flag, value in for_deals.items() if value is not None]
        if given:  # the search starts from the table, which sets these: a value given here would be ignored
            raise UsageError(f"--from starts from the scenario's table (its players, its cards, every property "
                             f"judged): {', '.join(given)} {'does' if len(given) == 1 else 'do'} not apply")
        report = explore_from(rules, *start_state(rules, Path(args.start)), args.depth, max_states,
                              where=f"the table of {args.start}")
    else:
        players = args.players if args.players is not None else EXPLORE_PLAYERS
        deals = args.deals if args.deals is not None else 1
        seed = args.seed if args.seed is not None else 1
        report = explore(rules, players, args.depth, deals, seed, args.full_deck, max_states, args.knowledge)
    say = sys.stderr if args.json else sys.stdout  # with --json, standard output carries the JSON alone
    for line in report_lines(report):
        print(line, file=say)
    if args.json:
        print(json.dumps(report_json(report), indent=2, ensure_ascii=False))
    first = report.first_failure()
    if args.emit_scenario:
        if first is None:
            print(f"no failure to write to {args.emit_scenario}", file=say)
        else:
            write_output(Path(args.emit_scenario), failure_scenario(first, report.deck))
            print(f"wrote {args.emit_scenario}: `baobei check{_rules_option(args)} {args.emit_scenario}` "
                  "replays the failure", file=say)
    return EXIT_OK if first is None else EXIT_FAIL


def start_state(rules: Ruleset, path: Path) -> tuple[State, int]:
    """The table of a scenario file as a state to explore from, and its seed."""
    from .engine.engine import Engine
    from .scenarios.parser import parse_scenario_file
    from .scenarios.setup import build_table
    from .scenarios.syntax import Table

    setup = parse_scenario_file(path).setup
    if not isinstance(setup, Table):
        raise BaoError(f"{path}: explore --from needs a scenario with a `table`, not a seeded deal")
    return build_table(Engine(rules), setup), setup.seed


def _rules_option(args: argparse.Namespace) -> str:
    return f" --rules {args.rules}" if args.rules else ""


def cmd_referee(args: argparse.Namespace) -> int:
    from .referee.command import run_referee

    return run_referee(args)


def cmd_verify(args: argparse.Namespace) -> int:
    from .proofs.verify import run_verify  # imports z3: only this command pays for it

    return run_verify(args)


def cmd_why(args: argparse.Namespace) -> int:
    from .referee.why import answer_json, answer_lines, ask, position_after, split_place
    from .scenarios.runner import engine_for

    rules_dir = _rules_dir(args) or default_rules_dir()
    try:
        path, line = split_place(args.place)
        answer = ask(position_after(engine_for(rules_dir), path, line, rules_dir), args.move)
    except (BaoError, OSError) as err:
        if not args.json:
            raise  # said for people by `main`
        return why_error(args.place, err)
    if args.json:
        print(json.dumps(answer_json(answer), indent=2, ensure_ascii=False))
    else:
        for text in answer_lines(answer):
            emit(text, "fail" if text.endswith(": illegal") else "pass" if text.endswith(": legal") else None)
    return EXIT_FAIL if answer.legal is False else EXIT_OK


def why_error(place: str, err: BaoError | OSError) -> int:
    """`why --json` when the question cannot be answered (bad input): the error as JSON on standard output,
    where a program reads the answer, and for people on standard error."""
    message = os_error_text(err) if isinstance(err, OSError) else str(err)
    print(json.dumps({"place": place, "error": message}, indent=2, ensure_ascii=False))
    print(f"error: {message}", file=sys.stderr)
    return EXIT_BAD_INPUT


def cmd_compare(args: argparse.Namespace) -> int:
    from .compare.command import run_compare

    return run_compare(args)


def cmd_serve(args: argparse.Namespace) -> int:
    from .desk.server import serve

    # It ends only in KeyboardInterrupt, which `main` answers with exit 130 as for every command.
    serve(_rules_dir(args), args.host, args.port, open_browser=not args.no_open,
          say=lambda text: emit(text, "pass", err=True))


def cmd_docs(args: argparse.Namespace) -> int:
    from .docs.generate import run_docs

    if args.site:
        if args.check:  # the site is built from the docs as they are; it has no generated copy to compare
            raise UsageError("--check compares the generated docs with docs/, --site builds the site: give one")
        return build_site(args)
    return run_docs(args)


SITE_MARK = ".baobei-site"  # left in a built site (mkdocs keeps hidden files when it empties the directory)


def is_built_site(out: Path) -> bool:
    """A directory `docs --site` built: its mark, or (a site built before the mark) mkdocs' own index and
    sitemap."""
    return (out / SITE_MARK).is_file() or ((out / "index.html").is_file() and (out / "sitemap.xml").is_file())


def build_site(args: argparse.Namespace) -> int:
    from .docs.generate import Project
    from .docs.site import build_site as build

    out = Path(args.site)
    if out.exists() and not out.is_dir():
        raise UsageError(f"--site {out}: is a file; it names the directory the site is built into")
    if out.is_dir() and any(out.iterdir()) and not is_built_site(out):
        # mkdocs empties the directory before it builds: only a site built before may be replaced.
        raise UsageError(f"--site {out}: is not empty and holds no site built by `baobei docs --site` (building "
                         "would delete what it holds); name a new or empty directory")
    report = build(Project.at(PROJECT_ROOT, _rules_dir(args)), out)
    (out / SITE_MARK).write_text("a site built by `baobei docs --site`: the next build replaces this directory\n",
                                 encoding="utf-8")
    emit(f"built the site in {report.out}: {plural(report.pages, 'page')}, {plural(report.pictures, 'picture')}, "
         f"{report.size / 1e6:.1f} MB in {report.seconds:.1f}s; open {report.out / 'index.html'} (search needs a "
         f"web server: python -m http.server -d {report.out})", "pass")
    return EXIT_OK


POSITIVE, NON_NEGATIVE = at_least(1), at_least(0)
TALLY_POLICY = "random"  # how `bench --tally` players choose unless --policy says otherwise


def port_number(text: str) -> int:
    """An argparse type: a TCP port, 0 (any free one) to 65535."""
    value = NON_NEGATIVE(text)
    if value > 65535:
        raise argparse.ArgumentTypeError(f"{value} is no port: ports go from 0 to 65535")
    return value


EXIT_TEXT = "Exit 0 on success, 2 for bad input."
EXIT_CODES = {
    "check": "Exit 0 when every scenario passes, 1 when one fails, 2 for bad input (a file that does not parse, "
             "is not UTF-8 or cites no paragraph of the rulebook; no scenario found).",
    "explore": "Exit 0 when every property holds in the states reached, 1 on a failure, 2 for bad input.",
    "simulate": "Exit 0 when no match met a failure of the rules, 1 when one did (each is written as a scenario "
                "that replays it), 2 for bad input.",
    "verify": "Exit 0 when no property is violated or unknown, 1 otherwise, 2 for bad input.",
    "docs": "Exit 0 when written (or, with --check, current), 1 when stale or a scenario fails, 2 for bad input.",
    "explain": "Exit 0 when the scenario passes, 1 when it fails, 2 for bad input.",
    "why": "Exit 0 when the move is legal (or no move was given), 1 when it is illegal, 2 for bad input (a file "
           "that does not parse, or fails before the line).",
    "compare": "Exit 0 when the two versions of the rules give the same answers, 1 when they differ, 2 for bad "
               "input.",
    "serve": "Serves until Ctrl-C (exit 130); exit 2 for bad input (a port in use, rules that do not load).",
    "referee": "Exit 0 when every move of every log is legal and every claim right, 1 at an illegal move, an "
               "impossible random outcome or a wrong claim (with the line, the rule and the table), 2 when a log is "
               "malformed (the other logs are still judged).",
}


class DefaultsShown(argparse.HelpFormatter):
    """Every option's default in --help, unless its text already says it."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        if "default" in text or action.default in (None, False, argparse.SUPPRESS) or not action.option_strings:
            return text
        return f"{text} (default: %(default)s)"


def package_version() -> str:
    import importlib.metadata  # here, not at the top: it costs every start ~30 ms

    try:
        return importlib.metadata.version("baobei")
    except importlib.metadata.PackageNotFoundError:  # run from a checkout that was never installed
        return "unknown"


class VersionAction(argparse.Action):
    """--version, looked up only when asked for."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS,
                         help="print the version and exit")

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        print(f"{parser.prog} {package_version()}")
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="baobei", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action=VersionAction)
    # A global option may come before the command too (`baobei --rules DIR check`); the command's own
    # --rules, given after it, wins (SUPPRESS: an absent one does not overwrite the global value).
    parser.add_argument("--rules", metavar="DIR", default=None, type=rules_folder,
                        help="rules directory (a variant); default: rules/")
    sub = parser.add_subparsers(dest="command", required=True)
    commands: list[tuple[str, str, Callable[[argparse.Namespace], int]]] = [
        ("check", "replay scenario files and report", cmd_check),
        ("explain", "print the step-by-step trace of one scenario", cmd_explain),
        ("rules", "validate and summarize the rules", cmd_rules),
        ("bench", "seeded random legal play: moves/s and rounds/s", cmd_bench),
        ("play", "print a seeded random game, move by move, each event with its rule", cmd_play),
        ("simulate", "seeded whole matches with policies, every invariant judged after every move: statistics, "
                     "plots, findings as scenarios", cmd_simulate),
        ("explore", "breadth-first search of the rounds from seeded deals: invariants and progress", cmd_explore),
        ("verify", "judge the rules' invariants and progress: Z3 proofs, the search for the rest", cmd_verify),
        ("docs", "generate docs/ from the rules and the passing scenarios", cmd_docs),
        ("referee", "replay a game log (JSON Lines, docs/log.schema.json): is every move legal, every claim right?",
         cmd_referee),
        ("why", "at a line of a scenario or a game log: is a move legal, and if not, every reason ranked, the "
                "decisive one first; without a move, every legal move of every player", cmd_why),
        ("compare", "what a change of the rules does: answers, properties, the shortest situation that tells two "
                    "versions apart, and play side by side", cmd_compare),
        ("serve", "the rules desk in the browser: set up a table, play and refuse moves, step through a scenario or "
                  "a game log, undo, export the session as a scenario (local, offline)", cmd_serve),
    ]
    for name, help_text, func in commands:
        p = sub.add_parser(name, help=help_text, description=f"{help_text}. {EXIT_CODES.get(name, EXIT_TEXT)}",
                           formatter_class=DefaultsShown)
        p.set_defaults(func=func)
        if name == "compare":  # two rules folders, both named with --rules
            from .compare.command import add_arguments

            add_arguments(p)
            continue
        p.add_argument("--rules", metavar="DIR", default=argparse.SUPPRESS, type=rules_folder,
                       help="rules directory (a variant); default: rules/")
        if name == "check":
            p.add_argument("paths", nargs="*", help="scenario files or directories (default: scenarios/)")
            p.add_argument("-v", "--verbose", action="store_true", help="also list the scenarios that pass")
            p.add_argument("-q", "--quiet", action="store_true",
                           help="one line per failing scenario (place and reason) instead of its trace")
            p.add_argument("--json", action="store_true",
                           help="print the results as JSON (schema: docs/check.schema.json); the lines for "
                                "people go to standard error")
            p.add_argument("--junit", type=named, metavar="FILE",
                           help="also write the results as JUnit XML, which CI dashboards show")
        elif name == "explain":
            p.add_argument("file", help="the scenario file to replay and explain")
            p.add_argument("--svg", type=named, metavar="DIR",
                           help="also draw the table before and after every move as SVG pictures into DIR")
            p.add_argument("--source", action="store_true",
                           help="first show the scenario's source, highlighted on a terminal")
        elif name == "rules":
            p.add_argument("-v", "--verbose", action="store_true",
                           help="also show every decision with its text, and every cited rule with its place")
            p.add_argument("--json", action="store_true",
                           help="print the summary as JSON (schema: docs/rules.schema.json)")
            p.add_argument("--moves", action="store_true",
                           help="list every move and ability: who makes it, its arguments, phases and rule")
        elif name == "bench":
            p.add_argument("--players", type=int, default=4, help="players at the table")
            p.add_argument("--rounds", type=POSITIVE, default=200, help="rounds to play per run")
            p.add_argument("--seed", type=int, default=1, help="the seed of the deals and the random moves")
            p.add_argument("--repeat", type=POSITIVE, default=3, help="runs to time; the median is reported")
            p.add_argument("--invariants", action="store_true",
                           help="judge every invariant after every move, as scenario replays do (the same moves)")
            p.add_argument("--tally", action="store_true", help="then count the same play: moves by name")
            p.add_argument("--watch", metavar="VARS", help="with --tally: variables whose values to count per round")
            p.add_argument("--policy", choices=["random", "kinds"], default=None,
                           help="with --tally: how the players choose, named as in `simulate`: random (uniformly "
                                f"over the legal moves) or kinds (a kind of move first); default: {TALLY_POLICY}")
        elif name == "play":
            p.add_argument("--players", type=int, default=3, help="players at the table")
            p.add_argument("--seed", type=int, default=1, help="the seed of the deal and the random moves")
            p.add_argument("--rounds", type=POSITIVE, default=1,
                           help="rounds to play; the output ends with the next deal")
            p.add_argument("--max-moves", type=POSITIVE, default=5000,
                           help="stop after this many moves (the rules bound no round's length)")
            p.add_argument("--max-turns", type=POSITIVE, default=None,
                           help="stop once this many turns have begun after the deal (a turn cap, as D9 "
                                "leaves to simulations)")
            p.add_argument("--log", type=named, metavar="FILE",
                           help="also write the game as a game log (JSON Lines, docs/log.schema.json) with claims "
                                "after every move, for `baobei referee`")
            p.add_argument("--as", dest="viewer", metavar="PLAYER",
                           help="show only what this player (p1, p2, ...) knows: other cards are ? or 'a card'")
            p.add_argument("-v", "--verbose", action="store_true",
                           help="also show the rules' bookkeeping: every variable given a value")
            p.add_argument("--human", metavar="PLAYERS",
                           help="play at the terminal as these players (p1,p2,...): one person against bots, or "
                                "several at one screen (hot-seat); the other seats are bots")
            p.add_argument("--bots", metavar="POLICY",
                           help="with --human: how the bots choose, named as in `simulate`: random, kinds or a policy "
                                "of the rules, one for every bot or one per bot seat (memory,random); default: the "
                                "first policy the rules declare")
        elif name == "simulate":
            add_simulate_arguments(p)
        elif name == "explore":
            # No defaults written here for what a deal needs: with --from they do not apply, and saying so
            # needs to know whether they were given (the defaults are set in cmd_explore).
            p.add_argument("--players", type=int, default=None, help="players at the table (default: 2)")
            p.add_argument("--depth", type=NON_NEGATIVE, default=8, help="moves after the deal to search at most")
            p.add_argument("--deals", type=POSITIVE, default=None, help="seeded deals to search from (default: 1)")
            p.add_argument("--seed", type=int, default=None,
                           help="the first deal's seed; the others follow (default: 1)")
            p.add_argument("--full-deck", action="store_true", help="the rules' deck instead of the small deck")
            p.add_argument("--max-states", type=POSITIVE, metavar="M",
                           help="stop after M states (default: as many as the available memory holds; a larger M "
                                "is refused)")
            p.add_argument("--emit-scenario", type=named, metavar="FILE", help="write the first failure as a scenario")
            p.add_argument("--knowledge", action="store_true",
                           help="also judge the properties that read who knows a card (left out by default: "
                                "knowledge then is part of every state, and the search reaches fewer depths)")
            p.add_argument("--from", dest="start", metavar="SCENARIO",
                           help="start from this scenario's table (the rules' full deck) instead of deals")
            p.add_argument("--json", action="store_true",
                           help="print the report as JSON (schema: docs/explore.schema.json); the lines for "
                                "people go to standard error")
        elif name == "why":
            p.add_argument("place", metavar="FILE[:LINE]",
                           help="a scenario or a game log, and the line after which to ask (default: its end)")
            p.add_argument("move", nargs="?", default=None,
                           help='the move to judge, as a scenario writes it ("bob peek target=alice.1"); '
                                "none: list every legal move")
            p.add_argument("--json", action="store_true", help="print the answer as JSON")
        elif name == "referee":
            p.add_argument("logs", nargs="+", metavar="LOG",
                           help="game logs (a header line, then one line per move: docs/log.schema.json), or "
                                "directories of them (*.jsonl, judged in name order); all in one process")
            p.add_argument("--json", action="store_true",
                           help="print the verdict as JSON (schema: docs/verdict.schema.json; for an implementer's "
                                "CI), a malformed log's too; for several logs every verdict and the counts. The lines "
                                "for people go to standard error")
            p.add_argument("--all", action="store_true",
                           help="go on after an error where the state allows, to list every error")
        elif name == "verify":
            p.add_argument("--players", type=int, help="one player count (default: every allowed count)")
            p.add_argument("--emit-scenario", type=named, metavar="FILE", help="write a counterexample as a scenario")
            p.add_argument("--json", type=named, metavar="FILE", dest="json_out",
                           help="also write every result as JSON (schema: docs/verify.schema.json); - for "
                                "standard output (the lines for people then go to standard error)")
            p.add_argument("-v", "--verbose", action="store_true",
                           help="also explain each method once, show the counterexamples to induction and the "
                                "progress of the searches")
            p.add_argument("--only", action="append", metavar="NAME",
                           help="judge only this property (repeat for more); the others are left out of the "
                                "bounded model checking too, which is then much faster")
            p.add_argument("--docs", type=named, metavar="FILE",
                           help="write the invariants' documentation (docs/invariants.md)")
            p.add_argument("--depth", type=NON_NEGATIVE, default=verify_defaults.DEFAULT_DEPTH,
                           help="moves after each deal the engine's search follows for what Z3 cannot prove")
            p.add_argument("--deals", type=POSITIVE, default=verify_defaults.DEFAULT_DEALS,
                           help="seeded deals the engine's search starts from")
            p.add_argument("--states", type=POSITIVE, default=verify_defaults.DEFAULT_STATES,
                           help="states the search judges at most per player count (it reports the depth it "
                                "judged completely)")
            p.add_argument("--bmc-depth", type=NON_NEGATIVE, default=None, metavar="K",
                           help="moves the bounded model checker unrolls from every deal (default: "
                                f"{verify_defaults.BMC_WORK} // players, at least 1)")
            p.add_argument("--bmc-seconds", type=POSITIVE, default=None, metavar="S",
                           help="stop deepening after S seconds per player count (the report gives the depth "
                                "reached); default: no limit")
            p.add_argument("--induction", action="store_true",
                           help="also try induction (one step from any state): 'inductive' properties hold in "
                                "every reachable state")
            p.add_argument("--certify", action="store_true",
                           help="induction, and record what it proved in the rules directory (induction.json), "
                                "which later runs use while the rules and their code are unchanged")
            p.add_argument("--carry", action="store_true",
                           help="seal the current record with a digest of every query to Z3 it rests on "
                                "(--players N: that count only); or carry a stale one, every count, over an edit "
                                "of the code or the rules, asking Z3 again the queries that changed; either way, "
                                "a property the record never tried is tried with the record's claims")
            p.add_argument("--tables", type=named, metavar="PATH", default=None,
                           help="scenarios whose tables the engine's search starts from too (default: the "
                                "project's scenarios/)")
            p.add_argument("--table-depth", type=NON_NEGATIVE, default=verify_defaults.DEFAULT_TABLE_DEPTH, metavar="D",
                           help="moves the search follows from each scenario table (0: none)")
            p.add_argument("--workers", type=POSITIVE, default=None,
                           help="processes judging the player counts side by side (default: every core); the "
                                "results are the same")
        elif name == "serve":
            p.add_argument("--port", type=port_number, default=8765, help="the port to listen on (0: any free one)")
            p.add_argument("--host", default="127.0.0.1",
                           help="the address to listen on (the desk is for this machine: keep 127.0.0.1)")
            p.add_argument("--no-open", action="store_true", help="do not open the desk in the browser")
        elif name == "docs":
            p.add_argument("--check", action="store_true", help="exit 1 when a generated file differs")
            p.add_argument("--out", type=named, metavar="DIR", default=None, help="output directory (default: docs/)")
            p.add_argument("--site", type=named, metavar="DIR",
                           help="build the docs as a static website (mkdocs-material, offline) into DIR instead")
            p.add_argument("--no-proofs", action="store_true",
                           help="leave out docs/invariants.md, whose proofs take about a minute")
    return parser


def add_simulate_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--players", type=int, default=4, help="players at the table")
    p.add_argument("--matches", type=POSITIVE, default=100, help="whole matches to play")
    p.add_argument("--seed", type=int, default=1, help="the campaign's seed: match i is dealt from (seed, i)")
    p.add_argument("--policy", type=named, default=None,
                   help="how the players choose: random (uniformly over the legal moves), kinds (a kind of move "
                        "first), or a policy of the rules (default: the first policy the rules declare, else random)")
    p.add_argument("--workers", type=POSITIVE, default=None,
                   help="worker processes (default: every core; at most one per match and four per core)")
    p.add_argument("--dask", metavar="ADDRESS", help="run the matches on this Dask scheduler instead (the dask "
                   "extra: pip install 'baobei[dask]')")
    p.add_argument("--out", type=named, metavar="DIR", default="simulation",
                   help="where the figures (simulate.json), the plots and the findings go (default: simulation/)")
    p.add_argument("--max-turns", type=POSITIVE, default=1000,
                   help="the turn cap of a round (D9: the rules set none); a capped round stops its match")
    p.add_argument("--no-invariants", action="store_true",
                   help="do not judge the invariants after every move (a speed run)")
    p.add_argument("--json", action="store_true",
                   help="print the figures as JSON (schema: docs/simulate.schema.json; the same as OUT/simulate.json); "
                        "the lines for people go to standard error")


def main(argv: Sequence[str] | None = None) -> int:
    if hasattr(signal, "SIGPIPE"):
        # When the reader goes away (`baobei verify | head`), end quietly as Unix tools do.
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    try:
        parser = build_parser()
        complete(parser)
        args = parser.parse_args(argv)
        code = int(args.func(args))
    except BaoError as err:
        print(f"error: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        return interrupted()
    except OSError as err:
        # A file the command cannot read or write that no reader above named (a directory or a dangling
        # link where a rules file is looked for, a folder a site generator cannot write): bad input, named.
        print(f"error: {os_error_text(err)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except RecursionError:
        print("error: the input nests too deeply to read (an expression of hundreds of terms in a row, say): "
              "split it into definitions", file=sys.stderr)
        return EXIT_BAD_INPUT
    except (ImportError, ctypes.ArgumentError) as err:
        # Ctrl-C inside native code surfaces as that code's error: a compiled module's initialisation
        # (matplotlib's) as ImportError, a call into Z3's C API as ctypes' ArgumentError.
        if caused_by_interrupt(err):
            return interrupted()
        raise
    return code


def os_error_text(err: OSError) -> str:
    what = err.strerror or str(err)
    where = " -> ".join(str(f) for f in (err.filename, err.filename2) if f is not None)
    return f"{where}: {what}" if where else what


def complete(parser: argparse.ArgumentParser) -> None:
    """Shell completion (argcomplete): when the shell asks for completions, answer and exit. Imported only
    then, so that other starts do not pay for it; `eval "$(register-python-argcomplete baobei)"` enables it."""
    if "_ARGCOMPLETE" in os.environ:
        import argcomplete

        argcomplete.autocomplete(parser)


def caused_by_interrupt(err: BaseException) -> bool:
    """Whether Ctrl-C caused `err`: a KeyboardInterrupt in its chain or its arguments, or ctypes' ArgumentError
    for an argument whose conversion Ctrl-C cut short: ctypes keeps only the interrupt's name, in its message
    ("argument 1: KeyboardInterrupt: "), with nothing chained."""
    seen: BaseException | None = err
    while seen is not None:
        if isinstance(seen, KeyboardInterrupt) or any(isinstance(a, KeyboardInterrupt) for a in seen.args):
            return True
        if isinstance(seen, ctypes.ArgumentError) and f": {KeyboardInterrupt.__name__}:" in str(seen):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def interrupted() -> int:
    """Ctrl-C: one line instead of a traceback, saying how far the run came; files are written whole or
    not at all (write_output)."""
    from .language import terminal

    cut = terminal.LAST_INTERRUPTED
    print("\ninterrupted" + (f": {cut} done" if cut is not None else ""), file=sys.stderr)
    INTERRUPTS.append(cut)
    return EXIT_INTERRUPTED


INTERRUPTS: list[object] = []  # the Ctrl-Cs `interrupted` answered in this process


def quiet_after_interrupt(unraisable: sys.UnraisableHookArgs) -> None:
    """The command's hook for a finaliser's error: dropped once Ctrl-C was answered, since an object whose
    construction the interrupt cut short (a Z3 context without its `owner`) fails in its finaliser when the
    interrupt's frames are freed, and that report would read as a crash; reported as usual otherwise."""
    if not INTERRUPTS:
        sys.__unraisablehook__(unraisable)


def entry() -> None:
    """The `baobei` command. After Ctrl-C it leaves at once: a module whose initialisation the interrupt
    cut short may crash the interpreter's own shutdown, which would turn exit 130 into an abort. So does a
    command that built large Z3 terms (terminal.LEAVE_AT_ONCE): freeing them would take minutes."""
    from .language import terminal

    sys.unraisablehook = quiet_after_interrupt
    code = main()
    if code == EXIT_INTERRUPTED or terminal.LEAVE_AT_ONCE:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)


if __name__ == "__main__":
    entry()
