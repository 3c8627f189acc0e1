"""Tables at the boundaries of a changed number: where a rare difference is found without a deep search.

A change of a threshold or a limit shows only in states no short search from a deal reaches (a total just
at the threshold, a round many turns long). The scenarios about the changed rules (those citing a section
a changed declaration cites) set up states near such boundaries already: a scenario that checks that 89
stays below 90 plays to a total of 89. Moving the whole numbers of their tables that the changed rules'
neighbourhood reads (changes.py `targets`) by what the change moved (`shifts`), or onto the changed
numbers themselves, gives tables at the new boundary; their scenario's own moves then reach it.

- a number the table sets is moved by each shift, up and down (85 + 1 = 86 reaches 90 where 85 reached 89);
- a counter or a single variable the table leaves alone is set to each changed number and one below it
  (a turn cap of 200: `turn 199`, `turn 200`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

from ..language.ruleset import Ruleset
from ..language.source import Pos
from ..scenarios import syntax as sc
from ..scenarios.setup import TABLE_ROUND, TABLE_TURN
from .changes import TABLE_COUNTERS, RuleChanges

COUNTER_DEFAULTS = dict(zip(TABLE_COUNTERS, (TABLE_TURN, TABLE_ROUND), strict=True))
BELOW = (-1, 0)  # a changed number itself and the number before it


def about_changes(scenario: sc.Scenario, changes: RuleChanges) -> bool:
    """Whether the scenario cites a section that a changed declaration cites."""
    return any(set(c.sections) & changes.sections for c in scenario.cites)


def perturbed_tables(table: sc.Table, changes: RuleChanges, rules: Ruleset) -> Iterator[tuple[sc.Table, str]]:
    """Variants of the table at the changed boundaries, each with what it moved, in words."""
    seen: set[str] = set()
    for target in changes.targets:
        for variant, words in _variants(table, target, changes, rules):
            if words not in seen:
                seen.add(words)
                yield variant, words


def _variants(table: sc.Table, target: str, changes: RuleChanges, rules: Ruleset) -> Iterator[tuple[sc.Table, str]]:
    if target in COUNTER_DEFAULTS:
        yield from _counter(table, target, changes)
        return
    var = rules.variables.get(target)
    if var is None:
        return
    sets = [(name, index, value, pos) for name, index, value, pos in table.sets
            if name == target and value.kind == "int"]
    for name, index, value, pos in sets:
        for shift in _both_ways(changes.shifts):
            yield _set(table, name, index, value.data + shift, pos), _words(name, index, value.data + shift,
                                                                              value.data)
    if not sets and not var.per_player:
        for number in _near(changes.numbers):
            yield _set(table, target, None, number, table.pos), _words(target, None, number, None)


def _counter(table: sc.Table, counter: str, changes: RuleChanges) -> Iterator[tuple[sc.Table, str]]:
    given = getattr(table, counter)
    now = given[0] if given is not None else COUNTER_DEFAULTS[counter]
    values = [now + shift for shift in _both_ways(changes.shifts)] + list(_near(changes.numbers))
    for value in dict.fromkeys(values):
        if value >= 0 and value != now:
            line = (value, table.pos)
            turn = TABLE_COUNTERS[0]
            moved = dataclasses.replace(table, turn=line) if counter == turn else dataclasses.replace(table, round=line)
            yield moved, f"{counter} {value} ({now} there)"


def _both_ways(shifts: tuple[int, ...]) -> list[int]:
    return list(dict.fromkeys([*shifts, *(-s for s in shifts)]))


def _near(numbers: tuple[int, ...]) -> Iterator[int]:
    for number in numbers:
        for below in BELOW:
            yield number + below


def _set(table: sc.Table, name: str, index: str | None, value: int, pos: Pos) -> sc.Table:
    kept = tuple(entry for entry in table.sets if (entry[0], entry[1]) != (name, index))
    return dataclasses.replace(table, sets=(*kept, (name, index, sc.Value("int", value, pos), pos)))


def _words(name: str, index: str | None, value: int, before: int | None) -> str:
    label = f"{name}[{index}]" if index is not None else name
    return f"{label} = {value}" + (f" ({before} there)" if before is not None else "")
