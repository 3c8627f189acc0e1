"""`baobei verify`: judge the rules' properties for every allowed player count.

Two methods, in this order:

1. Z3 over every state: a state invariant that reads the deck, the tables and the
   definitions is proved over every distribution of the cards with every state
   variable free (distribution.py), card conservation per transition rule
   (placement.py). `proved` holds in every state, reachable or not.
2. The engine's breadth-first search (play/explore.py) over the states a round
   reaches from seeded deals of the small deck: for what the first method cannot
   prove (a state invariant whose Z3 counterexample may be a state no game
   reaches, a transition invariant, a progress property). `explored` holds in every
   state and move reached to the depth shown; `violated` comes with the moves that
   reach the violation from the deal.

One line per property and player count: its status, how it was decided and its
own time (its own Z3 query; the work every property shares, the relation and the
searches, stands once per player count with its time), a violation's counterexample
under its line; a summary with the count of each status and the wall and CPU time.
`-v` adds the explanations, each once, and the counterexamples to induction;
`--json FILE` (`-`: standard output, the lines for people then on standard error)
writes the results for programs (docs/verify.schema.json); `--emit-scenario FILE`
writes the first violation as a scenario that fails when replayed; `--docs FILE`
writes docs/invariants.md. Exit 0 when nothing is violated or unknown, 1 otherwise,
2 for bad input (raised as BaoError and reported by the command line).

The modules of proofs/ are the only ones importing z3, so that the other
commands start without it.
"""

from __future__ import annotations

import argparse
import functools
import json
import multiprocessing
import os
import pickle
import sys
import time
from collections.abc import Callable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeGuard

from ..engine.engine import Engine
from ..engine.move import Move
from ..engine.state import State
from ..language import syntax as s
from ..language import terminal
from ..language.errors import BaoError, check_writable, ignore_interrupts
from ..language.load import load_ruleset
from ..language.output import write_output
from ..language.paths import default_rules_dir, default_scenarios_dir, shown_path
from ..language.ruleset import Ruleset
from ..language.small_deck import small_deck
from ..language.terminal import emit as show_line
from ..language.terminal import progress
from ..language.words import plural
from ..play.explore import NAMES, Failure, Report, check_state_budget, explore, failure_scenario, knowing_properties
from ..play.tables import Start, TablesReport, explore_tables, scenario_tables
from ..scenarios.parser import parse_scenario_text
from ..scenarios.runner import check_invariants
from ..scenarios.setup import build_table
from ..scenarios.syntax import Table
from .bmc import RULES_RUN, BmcReport, Finding, bmc, properties
from .carry import Now, carry_record
from .certificate import FILE, Kept, certificate_path, counts_text, kept, record
from .defaults import DEFAULT_DEALS, DEFAULT_DEPTH, DEFAULT_STATES, DEFAULT_TABLE_DEPTH, default_bmc_depth
from .distribution import Outcome, StateCex, prove_state
from .induction import InductionReport, reachable
from .interrupts import watch_interrupts
from .itf import itf_path, itf_trace
from .placement import PlacementOutcome, prove_placement, reads_places, transitions
from .report import (
    Method,
    Result,
    check_players,
    cti_lines,
    docs_markdown,
    probe_text,
    result_lines,
    scenario_header,
    scenario_table,
)
from .trace import trace_scenario
from .translate import Unsupported

EXIT_OK, EXIT_FAIL = 0, 1


def prove(rules: Ruleset, inv: s.InvariantDecl, players: int) -> Outcome:
    if reads_places(inv):
        return prove_placement(rules, inv, players)
    return prove_state(rules, inv, players)


def say(line: str) -> None:
    """A progress line in one write: worker processes judging other player counts write beside it."""
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def say_err(line: str) -> None:
    """A progress line on standard error (standard output carries the JSON)."""
    sys.stderr.write(line + "\n")
    sys.stderr.flush()


Property = s.InvariantDecl | s.ProgressDecl


@dataclass
class Searches:
    """One engine search per player count, made when a property first needs it."""

    rules: Ruleset
    depth: int
    deals: int
    states: int = DEFAULT_STATES
    tables: Path | None = None  # the scenarios whose tables are searched too (None: none)
    table_depth: int = DEFAULT_TABLE_DEPTH
    done: dict[int, Report] = field(default_factory=dict)
    # The search that keeps knowledge in every state, for the properties that read it (play/explore.py).
    knowing: dict[int, Report] = field(default_factory=dict)
    from_tables: dict[int, TablesReport] = field(default_factory=dict)
    _starts: dict[int, list[Start]] | None = None
    _skipped: int = 0
    _engine: Engine | None = None
    tell: Callable[[str], None] = say  # where the progress lines go

    def report(self, players: int) -> Report:
        if players not in self.done:
            self.tell(f"  ... exploring the rounds of {players} players: depth {self.depth} at most, "
                      f"{self.deals} deal(s), {self.states:,} states at most")
            self.done[players] = explore(self.rules, players, self.depth, self.deals, max_states=self.states)
        return self.done[players]

    @functools.cached_property
    def knowing_names(self) -> frozenset[str]:
        """The properties that read knowledge (walked once: every property of every player count asks)."""
        return frozenset(knowing_properties(self.rules))

    def knowing_report(self, players: int) -> Report | None:
        """The search for the properties that read knowledge (None when no property does)."""
        if not self.knowing_names:
            return None
        if players not in self.knowing:
            self.tell(f"  ... exploring the rounds of {players} players with who knows which card: depth "
                      f"{self.depth} at most, {self.states:,} states at most")
            self.knowing[players] = explore(self.rules, players, self.depth, self.deals, max_states=self.states,
                                            knowledge=True)
        return self.knowing[players]

    def report_for(self, prop: Property, players: int) -> Report:
        """The search that judged `prop`: the one keeping knowledge when `prop` reads it."""
        knowing = self.knowing_report(players) if prop.ident in self.knowing_names else None
        return knowing if knowing is not None else self.report(players)

    def prepare(self) -> None:
        """Compile the engine and read the scenario tables once, for every player count."""
        if self.tables is None or self.table_depth < 1:
            return
        if self._engine is None:
            self._engine = Engine(self.rules)
        if self._starts is None:
            self._starts, self._skipped = scenario_tables(self._engine, self.tables)

    def keep(self, players: int, report: Report, knowing: Report | None, tables: TablesReport | None) -> None:
        """The reports of one player count, made elsewhere (a worker process)."""
        self.done[players] = report
        if knowing is not None:
            self.knowing[players] = knowing
        if tables is not None:
            self.from_tables[players] = tables

    def tables_report(self, players: int) -> TablesReport | None:
        if self.tables is None or self.table_depth < 1:
            return None
        if players not in self.from_tables:
            self.prepare()
            assert self._engine is not None and self._starts is not None
            eng = self._engine
            starts = self._starts.get(players, [])
            self.tell(f"  ... exploring from {plural(len(starts), 'scenario table')} of {players} players: "
                      f"depth {self.table_depth} at most")
            report = explore_tables(eng, starts, players, self.table_depth)
            report.skipped = self._skipped
            self.from_tables[players] = report
        return self.from_tables[players]


@dataclass
class Relations:
    """The transition relation's verdicts per player count: bounded model checking, induction when asked."""

    rules: Ruleset
    depth: int | None  # None: default_bmc_depth
    seconds: float | None
    induction: bool
    skip: frozenset[str]
    done: dict[int, Transitions] = field(default_factory=dict)
    tell: Callable[[str], None] = say  # where the progress lines go
    kept: dict[int, InductionReport] = field(default_factory=dict)  # induction's record (certificate.py)

    def report(self, players: int) -> Transitions:
        if players not in self.done:
            self.done[players] = self._judge(players)
        return self.done[players]

    def _judge(self, players: int) -> Transitions:
        small = small_deck(self.rules, players)
        depth = self.depth if self.depth is not None else default_bmc_depth(players)
        self.tell(f"  ... bounded model checking with {players} players: {plural(depth, 'move')} at most")
        try:
            found = bmc(small, players, depth, self.seconds if self.seconds is not None else float("inf"),
                        skip=self.skip,
                        progress=lambda k, secs: self.tell(f"      depth {k} judged with {players} players "
                                                           f"({secs:.1f}s)"))
        except Unsupported as err:
            return Transitions(None, None, str(err))
        inductive = None
        if self.induction:
            self.tell(f"  ... induction with {players} players: every move of the rules from any state, cards free")
            open_labels = {p.label for p in properties(small, self.skip) if p.label not in found.findings}
            inductive = reachable(self.rules, players, list(NAMES[:players]), open_labels, lambda: None,
                                  functools.partial(cti_lines, self.rules))
        elif players in self.kept:
            inductive = self.kept[players]
        return Transitions(found, inductive, "")


@dataclass
class Transitions:
    bmc: BmcReport | None
    induction: InductionReport | None
    error: str  # why the relation cannot follow these rules ("" when it can)


# ---------------------------------------------------------------- the player counts side by side

_WORK: tuple[Searches, Relations] | None = None  # what a forked worker judges (inherited, not sent)


def _judge_count(players: int) -> tuple[int, bytes | None]:
    """In a worker: one player count's search, table search and relation, pickled (None when something in
    them cannot be pickled: the parent then judges that count itself)."""
    assert _WORK is not None
    searches, relations = _WORK
    judged = (players, searches.report(players), searches.knowing_report(players), searches.tables_report(players),
              relations.report(players))
    try:
        return players, pickle.dumps(judged)
    except (pickle.PicklingError, TypeError, AttributeError):
        return players, None


def judge_counts(searches: Searches, relations: Relations, counts: list[int], workers: int) -> None:
    """Judge the player counts in `workers` forked processes and keep their reports in the caches of
    `searches` and `relations`. Each count's work is seeded and depends on no other count, so the reports
    are those one process makes; only the order of the progress lines differs."""
    global _WORK
    todo = [n for n in counts if n not in relations.done]
    if workers < 2 or len(todo) < 2 or "fork" not in multiprocessing.get_all_start_methods():
        return
    searches.prepare()  # parsed once here, inherited by every worker
    _WORK = (searches, relations)
    try:
        with multiprocessing.get_context("fork").Pool(min(workers, len(todo)), initializer=ignore_interrupts) as pool:
            for players, data in pool.imap_unordered(_judge_count, todo):
                if data is not None:
                    _, report, knowing, tables, transitions = pickle.loads(data)
                    searches.keep(players, report, knowing, tables)
                    relations.done[players] = transitions
    finally:
        _WORK = None


def default_workers(counts: list[int]) -> int:
    """One worker per core, never more than there are player counts."""
    return max(1, min(len(os.sched_getaffinity(0)), len(counts)))


@dataclass(frozen=True)
class Verdict:
    """How one result was decided, beyond its status: for the lines, the JSON and the tests."""

    method: str  # a key of METHOD_WORDS
    depth: int | None = None  # bounded, explored: the depth judged; violated: the moves to the violation
    lemmas: tuple[str, ...] = ()  # inductive: the rules' lemmas proved with it


@dataclass
class Verified:
    """verify_all's answer: the results with their verdicts (in the same order), the methods per property,
    and the shared work (the relation and the searches of each player count)."""

    results: list[Result]
    verdicts: list[Verdict]
    methods: dict[str, Method]
    relations: dict[int, Transitions]
    searches: Searches
    stale: list[int] = field(default_factory=list)  # counts whose induction record is for other rules or code
    unreadable: bool = False  # the induction record is there but cannot be read
    missing: list[int] = field(default_factory=list)  # counts judged that the current record has no entry for
    carried: int = 0  # edits of the code the record used was carried over (carry.py)


def quiet(line: str) -> None:
    """Progress nobody asked for (verify without -v)."""


def verify_all(rules: Ruleset, counts: list[int], depth: int = DEFAULT_DEPTH, deals: int = DEFAULT_DEALS,
               states: int = DEFAULT_STATES, done: Callable[[Result, Verdict], None] = lambda r, v: None,
               bmc_depth: int | None = None, bmc_seconds: float | None = None,
               with_induction: bool = False, tables: Path | None = None, table_depth: int = DEFAULT_TABLE_DEPTH,
               workers: int = 1, only: frozenset[str] | None = None, tell: Callable[[str], None] = say,
               ) -> Verified:
    """Judge every property (or those named in `only`) for every player count; `done` hears of each result
    as it comes. `tables`: the scenarios whose tables the engine's search starts from too (None: only the
    deals). `workers`: processes that judge the player counts side by side (the results are the same).
    `tell`: where the progress lines of the searches go."""
    searches = Searches(rules, depth, deals, states, tables, table_depth, tell=tell)
    props = selected(rules, only)
    chosen = {p.ident for p in props}
    skip = frozenset(i.ident for i in rules.invariants.values() if over_states(i) and not i.reachable) | frozenset(
        name for name in [*rules.invariants, *rules.progress] if name not in chosen)
    recorded = Kept({}, []) if with_induction else kept(Path(rules.source))
    relations = Relations(rules, bmc_depth, bmc_seconds, with_induction, skip, tell=tell, kept=recorded.reports)
    if any(searched(p) for p in props):
        judge_counts(searches, relations, counts, workers)
    # A record for these rules and this code that lacks a count judged here: its certification did not run yet.
    missing = [n for n in counts if n not in recorded.reports] if recorded.reports else []
    out = Verified([], [], {}, relations.done, searches, recorded.stale, recorded.unreadable, missing,
                   recorded.carried)
    for prop in props:
        reads: list[str] = []
        explored = False
        for n in counts:
            result, verdict, proof = judge_one(rules, prop, n, searches, relations)
            reads = reads or (proof.reads if proof is not None else [])  # what it reads, proved or searched
            explored = explored or result.outcome is not proof
            out.results.append(result)
            out.verdicts.append(verdict)
            done(result, verdict)
        out.methods[prop.ident] = Method(method_kind(prop, explored), reads)
    return out


def judge_one(rules: Ruleset, prop: Property, players: int, searches: Searches, relations: Relations,
              ) -> tuple[Result, Verdict, Outcome | None]:
    """One property for one player count: Z3 over every state where it can, else the relation and the
    searches; also the outcome of Z3 over every state (None when there was no such query)."""
    proof = None
    if over_states(prop):
        proof = prove(rules, prop, players)
        if proof.status == "proved" or not searched(prop):
            return Result(prop, players, proof), Verdict("placement" if reads_places(prop) else "state"), proof
    report, relation = searches.report_for(prop, players), relations.report(players)
    outcome = judged(prop, report, relation, proof, searches.tables_report(players))
    return Result(prop, players, outcome), search_verdict(label_of(prop), outcome, relation, report), proof


def search_verdict(label: str, outcome: Outcome, relation: Transitions, report: Report) -> Verdict:
    """How the relation and the searches decided a claim about reached states or moves."""
    trace = outcome.trace
    if isinstance(trace, Finding):
        return Verdict("bmc", trace.depth)
    if isinstance(trace, Failure):
        return Verdict("search" if report.failures.get(label) is trace else "tables", trace.depth)
    if outcome.status == "inductive" and relation.induction is not None:
        return Verdict("induction", lemmas=tuple(relation.induction.lemmas))
    if outcome.status == "bounded" and relation.bmc is not None:
        return Verdict("bmc", relation.bmc.depth)
    if outcome.status == "unknown" and relation.bmc is not None and label in relation.bmc.findings:
        return Verdict("bmc")  # the prover and the engine disagree
    return Verdict("search", report.complete if report.complete >= 0 else None)


def selected(rules: Ruleset, only: frozenset[str] | None) -> list[Property]:
    """The properties to judge: all of them, or those named (a name the rules do not declare is bad input).
    The relation then leaves the others out of every depth's question, which makes it much cheaper."""
    props: list[Property] = [*rules.invariants.values(), *rules.progress.values()]
    if only is None:
        return props
    unknown = sorted(only - {p.ident for p in props})
    if unknown:
        raise BaoError(f"--only: the rules declare no property named {', '.join(map(repr, unknown))}; they declare "
                       + ", ".join(p.ident for p in props))
    return [p for p in props if p.ident in only]


def over_states(prop: Property) -> TypeGuard[s.InvariantDecl]:
    """Whether Z3 can judge the property over every state (one state at a time, no move)."""
    return isinstance(prop, s.InvariantDecl) and not prop.two_state


def searched(prop: Property) -> bool:
    """Whether the property is a claim about reached states or moves: the engine's search judges what Z3
    cannot prove over every state. A claim about every state stands or falls with Z3's answer."""
    return not isinstance(prop, s.InvariantDecl) or prop.reachable or prop.two_state


def method_kind(prop: Property, explored: bool) -> str:
    if not over_states(prop):
        return "explored"
    kind = "placement" if reads_places(prop) else "state"
    return f"{kind}+explored" if explored else kind


def label_of(prop: Property) -> str:
    return f"{'invariant' if isinstance(prop, s.InvariantDecl) else 'progress'} {prop.ident}"


def judged(prop: Property, report: Report, relation: Transitions, over_every_state: Outcome | None,
           tables: TablesReport | None = None) -> Outcome:
    """The verdict on a claim about reached states or moves: the relation's (a violation with its trace,
    inductive, bounded to k moves) and the engine's search (a violation, the depth it reached). Its time is
    the property's own, its query over every state: the relation and the searches judge every property at
    once, their times are theirs (shared_lines)."""
    label = label_of(prop)
    own = over_every_state.seconds if over_every_state is not None else 0.0
    finding = relation.bmc.findings.get(label) if relation.bmc is not None else None
    if finding is not None and finding.confirmed:
        return Outcome("violated", own,
                       f"{finding.message}; Z3 finds it {finding.depth} moves after a deal: {finding.moves_text()}",
                       trace=finding)
    failure = report.failures.get(label)
    if failure is not None:
        return Outcome("violated", own, f"{failure.message}; reached {failure.depth} moves after the "
                       f"deal of seed {failure.seed}: " + " / ".join(failure.moves), trace=failure)
    from_table = tables.failures.get(label) if tables is not None else None
    if from_table is not None:
        where, failure = from_table
        return Outcome("violated", own, f"{failure.message}; reached "
                       f"{failure.depth} moves from the table of {where}: " + " / ".join(failure.moves),
                       trace=failure)
    if finding is not None:
        return Outcome("unknown", own, f"the prover and the engine disagree: {finding.disagreement or finding.message}")
    parts = [relation_detail(label, relation), search_detail(report), tables_detail(tables)]
    if over_every_state is not None and over_every_state.status == "violated":
        parts.append("over arbitrary states Z3 finds a counterexample, a state no round reaches")
    status = "inductive" if relation.induction is not None and label in relation.induction.inductive else \
        "bounded" if relation.bmc is not None and relation.bmc.depth >= 0 and label not in relation.bmc.unstated \
        else \
        "explored" if report.complete >= 0 else "unknown"
    cti = relation.induction.ctis.get(label, []) if relation.induction is not None else []
    return Outcome(status, own, "; ".join(p for p in parts if p), cti=cti)


def relation_detail(label: str, relation: Transitions) -> str:
    if relation.bmc is None:
        return relation.error
    b = relation.bmc
    if label in b.unstated:
        return b.unstated[label]
    if b.depth < 0:
        return "Z3 judged no depth in its time"
    text = f"bounded to {b.depth} move{'s' if b.depth != 1 else ''} (Z3 over every deal of the small deck)"
    if b.bound_reached:
        text += f"; a state beyond the encoding's bounds is reachable at depth {b.depth + 1}"
    if relation.induction is not None and label in relation.induction.inductive:
        ind = relation.induction
        facts = f"; the claims the first pass dropped tried again assuming what holds in every state: " \
            f"{', '.join(ind.facts)}" if ind.facts else ""
        text = "proved for every reachable state (induction: kept by every move of the rules from any state " \
               f"satisfying the proved claims, cards free; lemmas: {', '.join(ind.lemmas) or 'none'}{facts}" + \
               (f"; recorded in {FILE} by `verify --certify`, or by `verify --carry` for a property added later"
                if ind.kept else "") + "); " + text
    elif relation.induction is not None and label in relation.induction.dropped:
        text = f"induction did not prove it: {relation.induction.dropped[label]}; " + text
    return text


def search_detail(report: Report) -> str:
    if report.complete < 0:
        return "the search stopped before it judged a whole depth"
    reach = "every reachable state of the round" if report.exhausted else \
        f"explored to depth {report.complete} of {report.deals} seeded deal(s)"
    if report.with_knowledge:
        reach += ", who knows which card kept in every state"
    return f"{reach} ({report.states:,} states, deck {report.deck.split(' (')[0]})"


def tables_detail(tables: TablesReport | None) -> str:
    if tables is None:
        return ""
    # A scenario of --tables that cannot be read, or whose table these rules cannot build, is named by its
    # count: silence would pass it for searched.
    unread = (f"{plural(tables.skipped, 'scenario')} of --tables not searched: unreadable, or a table these rules "
              "cannot build (`baobei check` says why)") if tables.skipped else ""
    if not tables.tables:
        return unread
    return (f"explored to depth {tables.depth} from {plural(tables.tables, 'scenario table')} "
            f"({tables.states:,} states, the full deck)" + (f"; {unread}" if unread else ""))


STATUSES = ("proved", "inductive", "bounded", "explored", "violated", "unknown")
STATUS_STYLES = {"proved": "pass", "inductive": "pass", "bounded": "pass", "explored": "pass", "violated": "fail",
                 "unknown": "warn"}
SHOWN_WITH_LINE = ("violated", "unknown")  # statuses whose evidence stands under their line without -v

# What each status means, said once with -v (docs/verify.schema.json and docs/invariants.md say it too).
STATUS_MEANING = {
    "proved": "Z3 shows that no state at all breaks it, reachable or not",
    "inductive": "every move of the rules keeps it from any state satisfying the proved claims: it holds in "
                 "every reachable state",
    "bounded": "no path of up to k moves from any deal of the small deck breaks it (Z3 over the rules' "
               "transition relation); deeper is not judged",
    "explored": "the engine's search reached no violation to the depth shown: no proof",
    "violated": "with a counterexample: a state, or the moves that reach the violation",
    "unknown": "not judged; the reason stands under its line",
}

# How a result was decided (Verdict.method), in words.
METHOD_WORDS = {
    "state": "Z3 over every state",
    "placement": "Z3 over every transition rule",
    "induction": "induction over every move",
    "bmc": "Z3 over every deal",
    "search": "the engine's search from the deals",
    "tables": "the engine's search from the scenario tables",
}

OWN_TIME = ("time: the seconds of the property's own query, Z3 over every state; - where all of its work is "
            "shared with the other properties (bounded model checking, the engine's searches, induction), "
            "whose times stand once per player count on the lines search, tables, relation and induction")

JSON_TO_STDOUT = "-"  # --json -: the JSON on standard output, the lines for people on standard error
INDENT = " " * 12  # the lines under a result line


@dataclass(frozen=True)
class Voice:
    """Where the lines for people go, and how much they say."""

    err: bool = False  # standard error: standard output carries the JSON (--json -)
    verbose: bool = False  # -v: the explanations (once), the counterexamples to induction, the progress

    def line(self, text: str, style: str | None = None) -> None:
        show_line(text, style, err=self.err)

    def progress(self) -> Callable[[str], None]:
        """Where the searches' progress lines go: nowhere without -v."""
        if not self.verbose:
            return quiet
        return say_err if self.err else say


def voice_of(args: argparse.Namespace) -> Voice:
    return Voice(err=getattr(args, "json_out", None) == JSON_TO_STDOUT, verbose=bool(getattr(args, "verbose", False)))


def cpu_seconds() -> float:
    """CPU time of this process and of its finished children (the workers judging player counts)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def search_options(args: argparse.Namespace) -> tuple[int, int, int]:
    """The engine search's depth, deals and states, checked."""
    depth, deals = getattr(args, "depth", DEFAULT_DEPTH), getattr(args, "deals", DEFAULT_DEALS)
    states = getattr(args, "states", DEFAULT_STATES)
    if depth < 0 or deals < 1 or states < 1:
        raise BaoError("verify needs a depth of at least 0, at least one deal and a positive number of states")
    return depth, deals, check_state_budget(states, option="--states")  # refused now if memory cannot hold it


def check_outputs(args: argparse.Namespace) -> None:
    """Refuse an output path that cannot be written before the work (`--json -` is standard output)."""
    json_out = getattr(args, "json_out", None)
    for output in (args.emit_scenario, getattr(args, "docs", None), json_out if json_out != JSON_TO_STDOUT else None):
        if output:
            check_writable(Path(output))


def run_verify(args: argparse.Namespace) -> int:
    watch_interrupts()  # Ctrl-C stops the proofs at once, also inside a Z3 call
    began, cpu = time.perf_counter(), cpu_seconds()
    voice = voice_of(args)
    directory = Path(args.rules) if args.rules else default_rules_dir()
    rules = load_ruleset(directory)
    eng = Engine(rules)  # compiling resolves every name: an unknown one is bad input, reported here
    counts = check_players(rules, args.players)
    search_options(args)
    check_outputs(args)
    if not rules.invariants and not rules.progress:
        voice.line(f"rules {directory}: no invariant declared")
        return EXIT_OK
    only = frozenset(args.only) if getattr(args, "only", None) else None
    if only is not None and getattr(args, "docs", None):
        raise BaoError("--docs documents every property: leave out --only")
    certify = bool(getattr(args, "certify", False))
    if certify and only is not None:
        raise BaoError("--certify records induction for every property: leave out --only")
    if getattr(args, "carry", False):
        return run_carry(args, rules, directory, voice)
    at_start = Now.of(directory) if certify else None
    if certify:
        terminal.LEAVE_AT_ONCE = True  # induction's terms take minutes to free at exit
        args.induction = True
        check_writable(certificate_path(directory))
    verified = judge_all(args, rules, counts, only, voice)
    if at_start is not None:
        proved = {n: t.induction for n, t in verified.relations.items() if t.induction is not None}
        voice.line(f"  ... sealing {counts_text(sorted(proved))}: building every query the record rests on (carry.py)")
        seals = {n: at_start.seal(rules, n, {"inductive": sorted(report.inductive), "dropped": report.dropped,
                                             "bounds": report.bounds}) for n, report in proved.items()}
        path = record(directory, proved, at_start.key, seals)
        voice.line(f"recorded induction for {plural(len(proved), 'player count')} in {path}")
    failing_rules = rules_failures(verified.searches)
    beyond = show_shared(verified, failing_rules, voice)
    if voice.verbose:
        for line in explanation_lines(verified.results, shared_details(verified.searches)):
            voice.line(line)
    wall, cpu = time.perf_counter() - began, cpu_seconds() - cpu
    voice.line(summary_line(verified.results, len(selected(rules, only)), counts, beyond, wall, cpu))
    if args.emit_scenario:
        write_counterexample(eng, verified.results, Path(args.emit_scenario), verified.relations, failing_rules,
                             voice.line)
    json_out = getattr(args, "json_out", None)
    if json_out:
        summary = {"rules": display_path(directory), "player_counts": counts, "seconds": round(wall, 3),
                   "cpu_seconds": round(cpu, 3), "tally": tally_of(verified.results)}
        write_json(json_out, results_json(summary, verified))
    docs = getattr(args, "docs", None)
    if docs:
        write_output(Path(docs), invariants_markdown(rules, directory, verified.results, verified.methods,
                                                     verified.stale, verified.missing))
        voice.line(f"wrote {docs}")
    failed = [r for r in verified.results if r.outcome.status in SHOWN_WITH_LINE]
    return EXIT_FAIL if failed or beyond else EXIT_OK


def run_carry(args: argparse.Namespace, rules: Ruleset, directory: Path, voice: Voice) -> int:
    """`verify --carry`: the record sealed, or carried over an edit of the code (carry.py); nothing else judged."""
    options = {"certify": "--certify", "induction": "--induction", "only": "--only", "docs": "--docs",
               "json_out": "--json", "emit_scenario": "--emit-scenario"}
    others = [option for flag, option in options.items() if getattr(args, flag, None)]
    if others:
        raise BaoError("--carry judges no property: leave out " + ", ".join(others))
    check_writable(certificate_path(directory))
    terminal.LEAVE_AT_ONCE = True  # the terms built below take minutes to free at exit
    counts = [args.players] if args.players is not None else None
    done = carry_record(rules, directory, counts, voice.line, default_workers(counts or list(range(2, 7))))
    return EXIT_OK if done else EXIT_FAIL


def judge_all(args: argparse.Namespace, rules: Ruleset, counts: list[int], only: frozenset[str] | None,
              voice: Voice) -> Verified:
    """verify_all with the command's options; each result's line as soon as it is known (the progress of a
    long run), with the progress bar on a terminal."""
    depth, deals, states = search_options(args)
    width = max(len(i) for i in [*rules.invariants, *rules.progress])
    with progress("properties", len(selected(rules, only)) * len(counts)) as advance:
        def show(r: Result, v: Verdict) -> None:
            for line, style in result_block(rules, r, v, width, voice.verbose):
                voice.line(line, style)
            advance(1)

        return verify_all(rules, counts, depth, deals, states, show, getattr(args, "bmc_depth", None),
                          getattr(args, "bmc_seconds", None), getattr(args, "induction", False), tables_dir(args),
                          getattr(args, "table_depth", DEFAULT_TABLE_DEPTH),
                          getattr(args, "workers", None) or default_workers(counts), only, voice.progress())


# ---------------------------------------------------------------- the lines for people


def result_block(rules: Ruleset, r: Result, v: Verdict, width: int, verbose: bool) -> list[tuple[str, str | None]]:
    """A result's line (status, property, player count, its own time, how it was decided), then what stands
    under it: a violation's counterexample, the reason for `unknown`; with -v, induction's counterexample."""
    status = r.outcome.status
    head = f"{status:<8}  {r.inv.ident:<{width}}  {r.players} players  {own_time_text(r)}  {verdict_text(status, v)}"
    return [(head, STATUS_STYLES[status])] + [(INDENT + line, None) for line in evidence(rules, r, verbose)]


def own_seconds(r: Result) -> float | None:
    """The property's own time: its query, Z3 over every state (None: all of its work is shared)."""
    return r.outcome.seconds if over_states(r.inv) else None


def own_time_text(r: Result) -> str:
    seconds = own_seconds(r)
    return f"{seconds:7.3f}s" if seconds is not None else f"{'-':>8}"


def verdict_text(status: str, v: Verdict) -> str:
    """How the status was reached, in a few words: "bounded to 4 moves (Z3 over every deal)"."""
    how = METHOD_WORDS[v.method]
    if status == "inductive":
        return f"in every reachable state ({how}; lemmas: {', '.join(v.lemmas) or 'none'})"
    if v.depth is None:
        return how
    if status == "bounded":
        return f"bounded to {plural(v.depth, 'move')} ({how})"
    if status == "explored":
        return f"explored to depth {v.depth} ({how})"
    if status == "violated":
        where = "from a scenario table" if v.method == "tables" else "after a deal"
        return f"{plural(v.depth, 'move')} {where} ({how})"
    return how


def evidence(rules: Ruleset, r: Result, verbose: bool) -> list[str]:
    """What stands under a result line: a violation's counterexample or an `unknown`'s reason; with -v,
    induction's counterexample (the explanation of the other statuses is said once: explanation_lines)."""
    o = r.outcome
    if o.status not in SHOWN_WITH_LINE:
        return ["  " + line for line in o.cti] if verbose else []
    if o.cex is not None or isinstance(o, PlacementOutcome):
        return result_lines(rules, r)
    return ([o.detail] if o.detail else []) + (["  " + line for line in o.cti] if verbose else [])


def show_shared(verified: Verified, failing_rules: list[tuple[int, str, Failure]], voice: Voice) -> int:
    """The work all properties of a player count share, once, with its time; then the moves the rules cannot
    carry out. Returns the number of failures beyond the properties."""
    beyond = 0
    for n in sorted(set(verified.relations) | set(verified.searches.done)):
        for line, failed in shared_lines(n, verified.relations.get(n), verified.searches, voice.verbose):
            voice.line(line, "fail" if failed else None)
            beyond += failed
    if verified.stale:
        voice.line(f"induction the record {FILE} is for other rules or another prover ({counts_text(verified.stale)}): "
                   "not used; `baobei verify --carry` carries it over the edit when every query that changed is "
                   "still proved, else `baobei verify --certify` makes it again")
    if verified.missing:
        voice.line(f"induction the record {FILE} has no entry for {counts_text(verified.missing)}: judged without "
                   "it; `baobei verify --players N --certify` adds one")
    if verified.carried and any(t.induction is not None and t.induction.kept for t in verified.relations.values()):
        voice.line(f"induction the record {FILE} was carried over {plural(verified.carried, 'edit')} of the code by "
                   "`baobei verify --carry`: each query to Z3 that changed was proved again")
    if verified.unreadable:
        voice.line(f"induction the record {FILE} cannot be read (not JSON, or a format this code does not know): "
                   "not used; `baobei verify --certify` makes it again")
    for players, where, failure in failing_rules:
        voice.line(f"violated  a move the rules cannot carry out with {players} players, reached {failure.depth} "
                   f"moves {where}: " + " / ".join(failure.moves), "fail")
    return beyond + len(failing_rules)


def shared_lines(players: int, t: Transitions | None, searches: Searches, verbose: bool) -> list[tuple[str, bool]]:
    """One player count's engine searches and relation: what they reached and their times (each line with
    whether it is a failure)."""
    out: list[tuple[str, bool]] = []
    report = searches.done.get(players)
    if report is not None:
        out.append((f"search    {players} players: {search_detail(report)} in {report.seconds:.1f}s", False))
    knowing = searches.knowing.get(players)
    if knowing is not None:
        out.append((f"knowing   {players} players: {search_detail(knowing)} in {knowing.seconds:.1f}s", False))
    tables = searches.from_tables.get(players)
    if tables is not None and (tables.tables or tables.skipped):
        out.append((f"tables    {players} players: {tables_detail(tables)} in {tables.seconds:.1f}s", False))
    return out + (relation_lines(players, t, verbose) if t is not None else [])


def tally_of(results: list[Result]) -> dict[str, int]:
    return {k: sum(1 for r in results if r.outcome.status == k) for k in STATUSES}


def summary_line(results: list[Result], judged_count: int, counts: list[int], beyond: int, wall: float,
                 cpu: float) -> str:
    said = "1 property" if judged_count == 1 else f"{judged_count} properties"
    return (f"{said} x {plural(len(counts), 'player count')}: "
            + ", ".join(f"{v} {k}" for k, v in tally_of(results).items())
            + f" in {wall:.2f}s wall, {cpu:.2f}s CPU"
            + (f"; {plural(beyond, 'failure')} beyond the properties (above)" if beyond else ""))


def shared_details(searches: Searches) -> set[str]:
    """What the lines of the shared work say already (the searches' reach): no explanation repeats it."""
    return {search_detail(r) for r in [*searches.done.values(), *searches.knowing.values()]} | {
        tables_detail(t) for t in searches.from_tables.values()}


def explanation_lines(results: list[Result], said: AbstractSet[str] = frozenset()) -> list[str]:
    """With -v: what the statuses shown mean, and how each result was judged, each explanation once for
    the results it is about (but what the lines of the shared work, `said`, say already)."""
    shown = [k for k in STATUSES if any(r.outcome.status == k for r in results)]
    out = ["what the statuses mean:", *(f"  {k:<9} {STATUS_MEANING[k]}" for k in shown), f"  {OWN_TIME}"]
    groups = explanation_groups(results, said)
    if groups:
        out.append("how each was judged:")
        for rs, parts in groups:
            out += [f"  {who(rs)}:", *(f"    {part}" for part in parts)]
    out.append("each method at length: docs/invariants.md (baobei verify --docs FILE)")
    return out


def explanation_groups(results: list[Result], said: AbstractSet[str] = frozenset(),
                       ) -> list[tuple[list[Result], list[str]]]:
    """The parts of the results' details ("bounded to 4 moves (...)", "explored to depth 9 ...") with the
    results each is about, the parts about the same results together: each part said once. Violations and
    `unknown` are left out: their detail stands under their line."""
    about: dict[str, list[Result]] = {}
    for r in results:
        if r.outcome.status not in SHOWN_WITH_LINE:
            for part in (p for p in r.outcome.detail.split("; ") if p and p not in said):
                about.setdefault(part, []).append(r)
    groups: dict[tuple[int, ...], tuple[list[Result], list[str]]] = {}
    for part, rs in about.items():
        groups.setdefault(tuple(id(r) for r in rs), (rs, []))[1].append(part)
    return list(groups.values())


def who(rs: list[Result]) -> str:
    """The results an explanation is about: "2 players: a, b; 3 players: a"."""
    by_count: dict[int, list[str]] = {}
    for r in rs:
        by_count.setdefault(r.players, []).append(r.inv.ident)
    return "; ".join(f"{plural(n, 'player')}: {', '.join(names)}" for n, names in sorted(by_count.items()))


# ---------------------------------------------------------------- the results for programs


def write_json(target: str, text: str) -> None:
    """The JSON to its file, or to standard output (`-`)."""
    if target != JSON_TO_STDOUT:
        write_output(Path(target), text)
        return
    sys.stdout.write(text)
    sys.stdout.flush()


def results_json(summary: dict[str, object], verified: Verified) -> str:
    """verify's results for programs (docs/verify.schema.json): one entry per property and player count,
    the shared work per player count."""
    entries = [result_json(r, v) for r, v in zip(verified.results, verified.verdicts, strict=True)]
    induction = {str(n): {"seconds": round(t.induction.seconds, 3), "lemmas_proved": t.induction.lemmas,
                          "facts_assumed": t.induction.facts, "recorded": t.induction.kept}
                 for n, t in sorted(verified.relations.items()) if t.induction is not None}
    return json.dumps({**summary, "shared": shared_json(verified), "results": entries, "induction": induction},
                      indent=2, ensure_ascii=False) + "\n"


def result_json(r: Result, v: Verdict) -> dict[str, object]:
    seconds = own_seconds(r)
    return {
        "property": r.inv.ident,
        "kind": "progress" if isinstance(r.inv, s.ProgressDecl) else "lemma" if r.inv.lemma else "invariant",
        "cite": str(r.inv.cite),
        "players": r.players,
        "status": r.outcome.status,
        "method": v.method,
        "depth": v.depth,
        "lemmas": list(v.lemmas),
        "seconds": round(seconds, 3) if seconds is not None else None,
        "detail": r.outcome.detail,
        "counterexample_to_induction": r.outcome.cti,
    }


def shared_json(verified: Verified) -> dict[str, object]:
    """Per player count (as a string): the engine searches and the relation, what they reached, their times."""
    searches = verified.searches
    return {str(n): shared_count_json(searches.done.get(n), searches.knowing.get(n), searches.from_tables.get(n),
                                    verified.relations.get(n))
            for n in sorted(set(verified.relations) | set(searches.done))}


def shared_count_json(report: Report | None, knowing: Report | None, tables: TablesReport | None,
                      t: Transitions | None) -> dict[str, object]:
    search, knowing_search = ({"depth": r.complete, "states": r.states, "seconds": round(r.seconds, 3)}
                              if r is not None else None for r in (report, knowing))
    from_tables = None if tables is None or not tables.tables else {
        "depth": tables.depth, "tables": tables.tables, "states": tables.states, "seconds": round(tables.seconds, 3)}
    relation = None if t is None or t.bmc is None else {"depth": t.bmc.depth, "seconds": round(t.bmc.seconds, 3)}
    return {"search": search, "knowing": knowing_search, "tables": from_tables, "relation": relation}


def relation_lines(players: int, t: Transitions, verbose: bool = False) -> list[tuple[str, bool]]:
    """What the relation found beyond the declared properties: a rule that fails, a bound reached, a
    disagreement with the engine (each line with whether it is a failure); with -v, the counterexamples to
    the induction of the encoding's own bounds."""
    if t.bmc is None:
        return [(f"relation  {players} players: {t.error}", True)]
    b = t.bmc
    out = [(f"relation  {players} players: bounded model checking to {plural(b.depth, 'move')} in {b.seconds:.1f}s"
            f" ({b.refinements} refinement(s) by the engine's choices)", False)]
    rules_run = b.findings.get(RULES_RUN)
    if rules_run is not None:
        out.append((f"violated  a move the rules cannot carry out, {rules_run.depth} moves after a deal: "
                    f"{rules_run.moves_text()}",
                    True))
    if b.bound_reached:
        out.append((f"bounded   the encoding's bounds are reached at depth {b.depth + 1}: deeper is not judged",
                    False))
    out += [(f"disagree  {d}", True) for d in b.disagreements]
    ind = t.induction
    if ind is not None:
        took = f"{ind.seconds:.1f}s"
        if ind.kept:  # not worked out now: the record says how long working it out took
            took = f"recorded by `verify --certify` in {FILE}, which took {took}"
        out.append((f"induction {players} players: {len(ind.inductive)} proved for every reachable state, "
                    f"lemmas proved: {', '.join(ind.lemmas) or 'none'} ({took})", False))
        if ind.bounds:
            out.append((f"induction {players} players: {ind.bounds}", False))
            for name in ("well_formed", "within_bounds") if verbose else ():
                out += [(f"{INDENT}{line}", False) for line in ind.ctis.get(name, [])]
    return out


def invariants_markdown(rules: Ruleset, directory: Path, results: list[Result], methods: dict[str, Method],
                        stale: list[int] | None = None, missing: list[int] | None = None) -> str:
    """docs/invariants.md: every property with its citation, method and result (no timings: the same
    rules give the same file, so that `baobei docs --check` can compare it)."""
    return docs_markdown(rules, display_path(directory), results, methods, len(transitions(rules)), stale, missing)


def invariants_doc(directory: Path) -> str:
    """docs/invariants.md for a rules directory, judged with verify's defaults for every player count."""
    rules = load_ruleset(directory)
    Engine(rules)  # an unknown name is bad input, as in `baobei verify`
    counts = check_players(rules, None)
    verified = verify_all(rules, counts, tables=default_scenarios_dir(), workers=default_workers(counts))
    return invariants_markdown(rules, directory, verified.results, verified.methods, verified.stale,
                               verified.missing)


def tables_dir(args: argparse.Namespace) -> Path | None:
    """The scenarios whose tables the search starts from: --tables, else the project's scenarios."""
    given = getattr(args, "tables", None)
    path = Path(given) if given else default_scenarios_dir()
    if given and not path.exists():
        raise BaoError(f"{path}: no such scenario file or directory (--tables)")
    return path if path.exists() else None  # an installed package has no scenarios: the deals' search only


def display_path(directory: Path) -> str:
    return shown_path(str(directory)).rstrip("/") + "/"


# ---------------------------------------------------------------- counterexample scenarios


def rules_failures(searches: Searches) -> list[tuple[int, str, Failure]]:
    """The legal moves the engine's searches could not carry out (a rule covering a card, say): by player
    count, where the search began, and the failure; no property names them, so they are listed apart."""
    out: list[tuple[int, str, Failure]] = []
    for n, report in sorted(searches.done.items()):
        failure = report.failures.get(RULES_RUN)
        if failure is not None:
            out.append((n, f"after the deal of seed {failure.seed}", failure))
    for n, tables in sorted(searches.from_tables.items()):
        found = tables.failures.get(RULES_RUN)
        if found is None or any(players == n for players, _, _ in out):
            continue  # one way there per player count: the one from a deal, when there is one
        out.append((n, f"from the table of {found[0]}", found[1]))
    return out


def write_counterexample(eng: Engine, results: list[Result], target: Path,
                         relations: dict[int, Transitions] | None = None,
                         failing_rules: list[tuple[int, str, Failure]] | None = None,
                         tell: Callable[[str], None] = print) -> None:
    """Write the first violation as a scenario (a reached one: the moves from the deal; one over every
    state: its counterexample table), and beside it as an ITF trace (`NAME.itf.json`); say so (through
    `tell`) when there is none."""
    for r in results:
        cex, trace = r.outcome.cex, r.outcome.trace
        if r.outcome.status == "violated" and isinstance(trace, Finding):
            _write_both(eng, target, finding_scenario(trace, r.players))
            tell(f"wrote {target}: the moves that break {r.inv.ident} with {r.players} players (Z3's trace)")
            return
        if r.outcome.status == "violated" and isinstance(trace, Failure):
            _write_both(eng, target, failure_scenario(trace, trace_deck(eng.rules, r.players)))
            tell(f"wrote {target}: the moves that break {r.inv.ident} with {r.players} players")
            return
        if r.outcome.status == "violated" and cex is not None and isinstance(r.inv, s.InvariantDecl):
            text, how = scenario_text(eng, r.inv, cex)
            _write_both(eng, target, text)
            tell(f"wrote {target}: the counterexample to {r.inv.ident} with {r.players} players ({how})")
            return
    for n, t in sorted((relations or {}).items()):
        found = t.bmc.findings.get(RULES_RUN) if t.bmc is not None else None
        if found is not None and found.confirmed:
            _write_both(eng, target, finding_scenario(found, n))
            tell(f"wrote {target}: the moves after which the rules fail with {n} players (Z3's trace)")
            return
    for n, _, failure in failing_rules or []:
        _write_both(eng, target, failure_scenario(failure, trace_deck(eng.rules, n)))
        tell(f"wrote {target}: the moves after which the rules fail with {n} players")
        return
    tell(f"no state counterexample to write to {target}")


def _write_both(eng: Engine, target: Path, text: str) -> None:
    write_output(target, text)
    write_output(itf_path(target), json.dumps(itf_trace(eng, text, str(target)), indent=1) + "\n")


def finding_scenario(found: Finding, players: int) -> str:
    """A BMC trace as a scenario that replays the violation with the rules it was found with."""
    from ..language.small_deck import describe
    from ..scenarios.write import invariant_expectation

    eng = Engine(found.rules)
    prop = found.prop
    depth = found.depth
    when = f"{depth} moves after a deal" if depth else "in the deal"
    expectation = ""
    if depth == 0 and isinstance(prop.decl, s.InvariantDecl):
        expectation = invariant_expectation(prop.decl)
    comment = [f"Written by `baobei verify` (bounded model checking): {found.message}.",
               f"Z3 found it {when} with {players} players, deck {describe(found.rules)}; it chose the deal",
               "and the draws. Replayed with the rules that produced it, the last step fails."]
    cite = str(prop.decl.cite) if prop.decl is not None else ""
    return trace_scenario(eng, found.trace, f"BMC: {prop.label} fails {when}", comment, cite, expectation)


def trace_deck(rules: Ruleset, players: int) -> str:
    from ..language.small_deck import describe, small_deck

    return describe(small_deck(rules, players))


def scenario_text(eng: Engine, inv: s.InvariantDecl, cex: StateCex) -> tuple[str, str]:
    """The scenario and how it shows the violation: a legal move after which the replay's invariant
    check fails naming the invariant, else an expectation evaluating the invariant."""
    lines = [*scenario_header(inv, cex.players), "", *scenario_table(eng.rules, cex), "", "play"]
    move = breaking_move(eng, "\n".join(lines) + "\n", inv.ident)
    if move is not None:
        return "\n".join([*lines, f"  {move}"]) + "\n", f"the move `{move}` makes the replay fail"
    lines.append(f'  expect value "{probe_text(inv)}" = true')
    return "\n".join(lines) + "\n", "its expectation of the invariant fails"


def breaking_move(eng: Engine, text: str, ident: str, limit: int = 500) -> str | None:
    """A legal move from the scenario's table after which the replay names invariant `ident`,
    in the engine's own move text (which the scenario language reads back)."""
    setup = parse_scenario_text(text, "<counterexample>").setup
    assert isinstance(setup, Table)
    st = build_table(eng, setup)
    for i, move in enumerate(eng.legal_moves(st)):
        if i >= limit:
            break
        if _breaks(eng, st, move, ident):
            return eng.describe(st, move)
    return None


def _breaks(eng: Engine, st: State, move: Move, ident: str) -> bool:
    try:
        applied = eng.apply(st, move)
    except BaoError:
        return False  # the rules fail on this move: it shows nothing about the invariant
    return isinstance(applied, tuple) and (check_invariants(eng, applied[0]) or "").startswith(f"invariant {ident} ")
