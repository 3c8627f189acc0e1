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

One line per property and player count (proved / explored / violated / unknown,
with the time); `--emit-scenario FILE` writes the first violation as a scenario
that fails when replayed; `--docs FILE` writes docs/invariants.md. Exit 0 when
nothing is violated or unknown, 1 otherwise, 2 for bad input (raised as BaoError
and reported by the command line).

The modules of proofs/ are the only ones importing z3, so that the other
commands start without it.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeGuard

from ..engine.engine import Engine
from ..engine.move import Move
from ..engine.state import State
from ..language import syntax as s
from ..language.errors import BaoError, write_output
from ..language.load import load_ruleset
from ..language.paths import default_rules_dir
from ..language.ruleset import Ruleset
from ..language.terminal import emit as show_line
from ..language.terminal import progress
from ..play.explore import Failure, Report, explore, failure_scenario
from ..scenarios.parser import parse_scenario_text
from ..scenarios.runner import check_invariants
from ..scenarios.setup import build_table
from ..scenarios.syntax import Table
from .distribution import Outcome, StateCex, prove_state
from .placement import prove_placement, reads_places, transitions
from .report import (
    Method,
    Result,
    check_players,
    docs_markdown,
    probe_text,
    result_lines,
    scenario_header,
    scenario_table,
    shown_path,
)

EXIT_OK, EXIT_FAIL = 0, 1


def prove(rules: Ruleset, inv: s.InvariantDecl, players: int) -> Outcome:
    if reads_places(inv):
        return prove_placement(rules, inv, players)
    return prove_state(rules, inv, players)


# The defaults of the search: every allowed player count in well under the minute verify may take.
DEFAULT_DEPTH = 12
DEFAULT_DEALS = 1
DEFAULT_STATES = 3_500  # per player count: the search reports the deepest depth it judged completely
Property = s.InvariantDecl | s.ProgressDecl


@dataclass
class Searches:
    """One engine search per player count, made when a property first needs it."""

    rules: Ruleset
    depth: int
    deals: int
    states: int = DEFAULT_STATES
    done: dict[int, Report] = field(default_factory=dict)

    def report(self, players: int) -> Report:
        if players not in self.done:
            print(f"  ... exploring the rounds of {players} players: depth {self.depth} at most, "
                  f"{self.deals} deal(s), {self.states:,} states at most", flush=True)
            self.done[players] = explore(self.rules, players, self.depth, self.deals, max_states=self.states)
        return self.done[players]


def verify_all(rules: Ruleset, counts: list[int], depth: int = DEFAULT_DEPTH, deals: int = DEFAULT_DEALS,
               states: int = DEFAULT_STATES,
               done: Callable[[Result], None] = lambda r: None) -> tuple[list[Result], dict[str, Method]]:
    """Judge every property for every player count; `done` hears of each result as it comes."""
    results: list[Result] = []
    methods: dict[str, Method] = {}
    searches = Searches(rules, depth, deals, states)
    props: list[Property] = [*rules.invariants.values(), *rules.progress.values()]
    for prop in props:
        reads: list[str] = []
        explored = False
        for n in counts:
            outcome = prove(rules, prop, n) if over_states(prop) else None
            if outcome is not None and (outcome.status == "proved" or not searched(prop)):
                reads = reads or outcome.reads
                results.append(Result(prop, n, outcome))
            else:
                explored = True
                results.append(Result(prop, n, judged(prop, searches.report(n), outcome)))
            done(results[-1])
        methods[prop.ident] = Method(method_kind(prop, explored), reads)
    return results, methods


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


def judged(prop: Property, report: Report, over_every_state: Outcome | None) -> Outcome:
    """The search's verdict on a property, with what Z3 said over every state (when it was asked)."""
    failure = report.failures.get(label_of(prop))
    if failure is not None:
        return Outcome("violated", report.seconds, f"{failure.message}; reached {failure.depth} moves after the "
                       f"deal of seed {failure.seed}: " + " / ".join(failure.moves), trace=failure)
    if report.complete < 0:
        return Outcome("unknown", report.seconds, "the search stopped before it judged a whole depth")
    reach = "every reachable state of the round" if report.exhausted else \
        f"every state and move reached within {report.complete} moves of {report.deals} seeded deal(s)"
    detail = f"holds in {reach} ({report.states:,} states, deck {report.deck})"
    if over_every_state is not None and over_every_state.status == "violated":
        detail += "; over arbitrary states Z3 finds a counterexample, a state no explored round reaches"
    elif over_every_state is not None and over_every_state.detail:
        detail += f"; Z3 over arbitrary states: {over_every_state.status} ({over_every_state.detail})"
    return Outcome("explored", report.seconds, detail)


STATUSES = ("proved", "explored", "violated", "unknown")
STATUS_STYLES = {"proved": "pass", "explored": "pass", "violated": "fail", "unknown": "warn"}


def run_verify(args: argparse.Namespace) -> int:
    began = time.perf_counter()
    directory = Path(args.rules) if args.rules else default_rules_dir()
    rules = load_ruleset(directory)
    eng = Engine(rules)  # compiling resolves every name: an unknown one is bad input, reported here
    counts = check_players(rules, args.players)
    depth, deals = getattr(args, "depth", DEFAULT_DEPTH), getattr(args, "deals", DEFAULT_DEALS)
    states = getattr(args, "states", DEFAULT_STATES)
    if depth < 0 or deals < 1 or states < 1:
        raise BaoError("verify needs a depth of at least 0, at least one deal and a positive number of states")
    if not rules.invariants and not rules.progress:
        print(f"rules {directory}: no invariant declared")
        return EXIT_OK
    width = max(len(i) for i in [*rules.invariants, *rules.progress])

    def show(r: Result) -> None:  # each result as soon as it is known: the progress of a long run
        o = r.outcome
        show_line(f"{o.status:<8}  {r.inv.ident:<{width}}  {r.players} players  {o.seconds:6.3f}s",
                  STATUS_STYLES[o.status])
        for line in result_lines(rules, r):
            show_line("            " + line)
        advance(1)

    with progress("properties", (len(rules.invariants) + len(rules.progress)) * len(counts)) as advance:
        results, methods = verify_all(rules, counts, depth, deals, states, show)
    bad = [r for r in results if r.outcome.status in ("violated", "unknown")]
    tally = {k: sum(1 for r in results if r.outcome.status == k) for k in STATUSES}
    print(f"{len(rules.invariants) + len(rules.progress)} properties x {len(counts)} player counts: "
          + ", ".join(f"{v} {k}" for k, v in tally.items()) + f" in {time.perf_counter() - began:.2f}s")
    if args.emit_scenario:
        write_counterexample(eng, results, Path(args.emit_scenario))
    docs = getattr(args, "docs", None)
    if docs:
        write_output(Path(docs), invariants_markdown(rules, directory, results, methods))
        print(f"wrote {docs}")
    return EXIT_FAIL if bad else EXIT_OK


def invariants_markdown(rules: Ruleset, directory: Path, results: list[Result], methods: dict[str, Method]) -> str:
    """docs/invariants.md: every property with its citation, method and result (no timings: the same
    rules give the same file, so that `baobei docs --check` can compare it)."""
    return docs_markdown(rules, display_path(directory), results, methods, len(transitions(rules)))


def invariants_doc(directory: Path) -> str:
    """docs/invariants.md for a rules directory, judged with verify's defaults for every player count."""
    rules = load_ruleset(directory)
    Engine(rules)  # an unknown name is bad input, as in `baobei verify`
    results, methods = verify_all(rules, check_players(rules, None))
    return invariants_markdown(rules, directory, results, methods)


def display_path(directory: Path) -> str:
    return shown_path(str(directory)).rstrip("/") + "/"


# ---------------------------------------------------------------- counterexample scenarios


def write_counterexample(eng: Engine, results: list[Result], target: Path) -> None:
    """Write the first violation as a scenario (a reached one: the moves from the deal; one over every
    state: its counterexample table); say so when there is none."""
    for r in results:
        cex, trace = r.outcome.cex, r.outcome.trace
        if r.outcome.status == "violated" and isinstance(trace, Failure):
            write_output(target, failure_scenario(trace, trace_deck(eng.rules, r.players)))
            print(f"wrote {target}: the moves that break {r.inv.ident} with {r.players} players")
            return
        if r.outcome.status == "violated" and cex is not None and isinstance(r.inv, s.InvariantDecl):
            text, how = scenario_text(eng, r.inv, cex)
            write_output(target, text)
            print(f"wrote {target}: the counterexample to {r.inv.ident} with {r.players} players ({how})")
            return
    print(f"no state counterexample to write to {target}")


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
