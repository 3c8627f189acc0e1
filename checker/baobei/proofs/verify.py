"""`baobei verify`: prove the rules' invariants with Z3 for every allowed player count.

One line per invariant and player count (proved / violated / unknown, with the
time); a violation shows its counterexample; `--emit-scenario FILE` writes the
first state counterexample as a scenario that fails when replayed; `--docs FILE`
writes docs/invariants.md. Exit 0 when everything is proved, 1 otherwise, 2 for
bad input (raised as BaoError and reported by the command line).

The modules of proofs/ are the only ones importing z3, so that the other
commands start without it.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from ..engine.engine import Engine
from ..engine.move import Move
from ..engine.state import State
from ..language import syntax as s
from ..language.errors import BaoError
from ..language.load import load_ruleset
from ..language.paths import default_rules_dir
from ..language.ruleset import Ruleset
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


def verify_all(rules: Ruleset, counts: list[int]) -> tuple[list[Result], dict[str, Method]]:
    results: list[Result] = []
    methods: dict[str, Method] = {}
    for inv in rules.invariants.values():
        kind = "placement" if reads_places(inv) else "state"
        reads: list[str] = []
        for n in counts:
            outcome = prove(rules, inv, n)
            reads = reads or outcome.reads
            results.append(Result(inv, n, outcome))
        methods[inv.ident] = Method(kind, reads)
    return results, methods


def run_verify(args: argparse.Namespace) -> int:
    began = time.perf_counter()
    directory = Path(args.rules) if args.rules else default_rules_dir()
    rules = load_ruleset(directory)
    eng = Engine(rules)  # compiling resolves every name: an unknown one is bad input, reported here
    counts = check_players(rules, args.players)
    if not rules.invariants:
        print(f"rules {directory}: no invariant declared")
        return EXIT_OK
    results, methods = verify_all(rules, counts)
    width = max(len(i) for i in rules.invariants)
    for r in results:
        o = r.outcome
        print(f"{o.status:<8}  {r.inv.ident:<{width}}  {r.players} players  {o.seconds:6.3f}s")
        for line in result_lines(rules, r):
            print("            " + line)
    bad = [r for r in results if r.outcome.status != "proved"]
    tally = {k: sum(1 for r in results if r.outcome.status == k) for k in ("proved", "violated", "unknown")}
    print(f"{len(rules.invariants)} invariants x {len(counts)} player counts: "
          + ", ".join(f"{v} {k}" for k, v in tally.items()) + f" in {time.perf_counter() - began:.2f}s")
    if args.emit_scenario:
        emit(eng, results, Path(args.emit_scenario))
    docs = getattr(args, "docs", None)
    if docs:
        text = docs_markdown(rules, display_path(directory), results, methods, len(transitions(rules)))
        Path(docs).write_text(text, encoding="utf-8")
        print(f"wrote {docs}")
    return EXIT_FAIL if bad else EXIT_OK


def display_path(directory: Path) -> str:
    return shown_path(str(directory)).rstrip("/") + "/"


# ---------------------------------------------------------------- counterexample scenarios


def emit(eng: Engine, results: list[Result], target: Path) -> None:
    """Write the first state counterexample as a scenario; say so when there is none."""
    for r in results:
        cex = r.outcome.cex
        if r.outcome.status == "violated" and cex is not None:
            text, how = scenario_text(eng, r.inv, cex)
            target.write_text(text, encoding="utf-8")
            print(f"wrote {target}: the counterexample to {r.inv.ident} with {r.players} players ({how})")
            return
    print(f"no state counterexample to write to {target}")


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
