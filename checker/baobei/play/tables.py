"""The engine's search from the scenarios' tables: the rulebook's edge cases as starting points.

A breadth-first search from a deal (play/explore.py) reaches a dozen moves at most; the automatic
final phase needs two recycles, some sixteen moves after a deal. The scenarios' tables are the
situations the rulebook's clarifications are about (one draw before the second recycle, a shield
about to end, a decision round), each a state a round reaches. A short search from every one of
them judges every property in the neighbourhood of every edge case, with the rules' full deck.

A table that the rules cannot build (a variant without a species the table names, a phase it does
not declare) is skipped and counted, not an error: the tables belong to the project's rules, and a
variant is judged from those that still make sense for it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from ..engine.engine import Engine
from ..engine.state import State
from ..language.errors import BaoError
from ..language.paths import shown_path
from ..language.small_deck import describe
from ..scenarios.parser import parse_scenario_file, scenario_files
from ..scenarios.setup import build_table
from ..scenarios.syntax import Table
from .explore import Failure, search_from

DEFAULT_TABLE_STATES = 120  # per table


@dataclass(frozen=True)
class Start:
    where: str  # the scenario file
    state: State
    seed: int


@dataclass
class TablesReport:
    """What the searches from the tables of one player count found."""

    players: int
    depth: int
    tables: int = 0
    skipped: int = 0  # tables the rules could not build
    states: int = 0
    seconds: float = 0.0
    failures: dict[str, tuple[str, Failure]] = field(default_factory=dict)  # label -> (table, first failure)
    deck: str = ""


def scenario_tables(eng: Engine, directory: Path) -> tuple[dict[int, list[Start]], int]:
    """The tables of the scenarios under `directory`, by player count, and how many could not be built."""
    out: dict[int, list[Start]] = {}
    skipped = 0
    for path in scenario_files([directory]):
        try:
            setup = parse_scenario_file(path).setup
            if not isinstance(setup, Table):
                continue  # a seeded deal: the search from deals covers it
            st = build_table(eng, setup)
        except BaoError:
            skipped += 1
            continue
        out.setdefault(len(st.names), []).append(Start(shown_path(str(path)), st, setup.seed))
    return out, skipped


def explore_tables(eng: Engine, starts: list[Start], players: int, depth: int,
                   states: int = DEFAULT_TABLE_STATES) -> TablesReport:
    """Search `depth` moves (at most `states` states) from each table; keep each property's first failure,
    the one with the fewest moves over all tables."""
    began = time.perf_counter()
    out = TablesReport(players, depth, tables=len(starts), deck=describe(eng.rules))
    for start in starts:
        report = search_from(eng, start.state, start.seed, depth, states, f"the table of {start.where}")
        out.states += report.states
        for label, failure in report.failures.items():
            known = out.failures.get(label)
            if known is None or failure.depth < known[1].depth:
                out.failures[label] = (start.where, failure)
    out.seconds = time.perf_counter() - began
    return out
