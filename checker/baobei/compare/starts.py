"""Where the lock-step search starts: seeded deals and the scenarios' own tables, each built under both
versions, with the lines of the scenario setup that builds it again.

- Deals: as `baobei explore` deals, on a small deck (one card of every species and copies until a few are
  left to draw, so that recycles come early), the same under both versions: each species has the larger
  of the two versions' small-deck counts. The state's generator is seeded afresh after the deal, so that
  the `seed` line of the written table gives the chance left in the round.
- Scenarios: every scenario's table (or seeded deal), with the scenario's own moves to follow in lock
  step (its expectations aside: they are the answers part's business).
- Whole deals with the rules' decks, for every player count either version allows: a deal that differs,
  or that one version refuses, is a difference before any move.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from dataclasses import dataclass

from ..engine.engine import Engine
from ..engine.state import State
from ..language.errors import BaoError
from ..language.paths import shown_path
from ..language.ruleset import Ruleset, Species
from ..language.small_deck import small_counts
from ..play.explore import NAMES
from ..scenarios import syntax as sc
from ..scenarios.setup import build_table
from ..scenarios.write import table_lines
from .lockstep import Twin

PathStep = sc.DoMove | sc.Draws | sc.Simultaneous  # a scenario's steps the search follows (moves, draws, calls)
DEAL, SCENARIO, BOUNDARY = "dealt", "scenario", "boundary"  # kinds of start: a seeded deal, a scenario, a variant


@dataclass(frozen=True)
class Start:
    label: str  # where the search starts, in words
    setup: tuple[str, ...]  # the scenario lines that build it (`table` ..., or `deal seed S players ...`)
    twin: Twin
    old: State
    new: State
    path: tuple[PathStep, ...] = ()  # a scenario's own moves, followed in lock step
    kind: str = SCENARIO


def common_small_decks(old: Ruleset, new: Ruleset, players: int) -> tuple[Ruleset, Ruleset] | None:
    """Both rules with one small deck (card numbers alike); None when their species differ."""
    if [sp.name for sp in old.species.values()] != [sp.name for sp in new.species.values()]:
        return None
    a, b = small_counts(old, players), small_counts(new, players)
    counts = {name: min(max(a[name], b[name]), old.species[name].count, new.species[name].count) for name in a}
    return _with_counts(old, counts), _with_counts(new, counts)


def _with_counts(rules: Ruleset, counts: dict[str, int]) -> Ruleset:
    smaller = copy.copy(rules)
    smaller.species = {name: Species(sp.name, sp.value, counts[name], sp.family, sp.ability)
                       for name, sp in rules.species.items()}
    return smaller


def deal_starts(twin: Twin, players: int, seed: int, deals: int) -> Iterator[Start]:
    """Seeded deals of the small deck, the first at `seed`."""
    names = list(NAMES[:players])
    for s in range(seed, seed + deals):
        try:
            a, _ = twin.old.new_match(names, s, log=False)
            b, _ = twin.new.new_match(names, s, log=False)
            setup = tuple(table_lines(twin.old, a, s))
        except BaoError:
            continue  # a deal a table cannot state, or one version refuses: the whole deals show it
        a.rng.seed(s)
        b.rng.seed(s)
        yield Start(f"the deal of seed {s} ({players} players, small deck)", setup, twin, a, b, kind=DEAL)


def scenario_start(twin: Twin, scenario: sc.Scenario, table: sc.Table | None = None,
                   moved: str = "") -> Start | None:
    """A scenario's table (or `table`, a variant of it that `moved` describes) under both versions, with its
    moves; None when one version cannot build it (the answers part reports that)."""
    setup = table or scenario.setup
    where = f"the table of {shown_path(scenario.path)}" + (f" with {moved}" if moved else "")
    try:
        if isinstance(setup, sc.Deal):
            a, _ = twin.old.new_match(list(setup.players), setup.seed, log=False)
            b, _ = twin.new.new_match(list(setup.players), setup.seed, log=False)
            lines: tuple[str, ...] = (f"deal seed {setup.seed} players {' '.join(setup.players)}",)
            where = f"the deal of {shown_path(scenario.path)}"
        else:
            a, b = build_table(twin.old, setup), build_table(twin.new, setup)
            lines = tuple(table_lines(twin.old, a, setup.seed))
    except BaoError:
        return None
    return Start(where, lines, twin, a, b, path_of(scenario), BOUNDARY if moved else SCENARIO)


def path_of(scenario: sc.Scenario) -> tuple[PathStep, ...]:
    """The moves, named draws and simultaneous calls of a scenario (its expectations and refusals aside)."""
    return tuple(step for step in scenario.steps if isinstance(step, (sc.DoMove, sc.Draws, sc.Simultaneous)))


@dataclass(frozen=True)
class DealCheck:
    """A whole deal that differs: the players, the seed, and the states (None: that version refuses it)."""

    names: tuple[str, ...]
    seed: int
    old: State | None
    new: State | None
    refusal: str = ""


def deal_checks(old: Engine, new: Engine, seed: int, deals: int) -> Iterator[DealCheck]:
    """Every whole deal of the rules' decks, for each player count either version allows."""
    low = min(old.rules.min_players, new.rules.min_players)
    high = min(max(old.rules.max_players, new.rules.max_players), len(NAMES))
    for n in range(low, high + 1):
        names = tuple(NAMES[:n])
        for s in range(seed, seed + deals):
            a, refused_a = _deal(old, names, s)
            b, refused_b = _deal(new, names, s)
            if a is None and b is None:
                continue
            yield DealCheck(names, s, a, b, refused_a or refused_b)


def _deal(eng: Engine, names: tuple[str, ...], seed: int) -> tuple[State | None, str]:
    try:
        return eng.new_match(list(names), seed, log=False)[0], ""
    except BaoError as err:
        return None, str(err)
