"""What a scenario must say beyond its grammar: players whose names the scenario language reads as names, a
row for every player of the round, and only decisions and assumptions the rules declare.

The grammar alone accepts a player named by a word of the language where the word cannot begin a line, a
table that leaves a player out, and an `assumes` line with any name: each would be read silently, and
wrongly. The checks here refuse them with the file, line and column, what was found and what was expected.
"""

from __future__ import annotations

import dataclasses
import difflib
import re
from collections.abc import Iterable
from functools import cache

from lark import Token, Tree
from lark.exceptions import UnexpectedInput

from ..language.errors import ScenarioError, caret_excerpt
from ..language.parser import grammar
from ..language.source import Pos
from . import syntax as sc

# A word of a grammar: a keyword a name could be spelled like (the NAME terminal's pattern).
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# An id of a decision or assumption: a prefix (its kind: D, A ...) and a number.
_NUMBERED = re.compile(r"(\D*)(\d+)")
NEAREST = 3  # how many known ids an unknown one is shown with
# The grammar rule of a table's `players` line (its NAME tokens are the players).
_PLAYERS_LINE = "t_players"


@cache
def reserved_words() -> frozenset[str]:
    """The words of the scenario language. The referee refuses a game log's player named by a word of the
    claim language (referee/log.schema.json, checked against this grammar's `expectation` by the tests); a
    scenario's player may appear anywhere in the language, so every keyword of its grammar is reserved."""
    lark = grammar("scenario")
    return frozenset(t.pattern.value for t in lark.terminals
                     if t.pattern.type == "str" and _WORD.fullmatch(t.pattern.value))


def reserved_message(name: str) -> str:
    listed = ", ".join(sorted(reserved_words()))
    return (f"found {name!r} as a player's name, but it is a reserved word of the scenario language; expected a "
            f"name that is none of: {listed} (a player named so would be read as the word)")


def check_player_names(players: tuple[str, ...], where: tuple[Pos, ...], text: str) -> None:
    """Refuse a player named by a reserved word, at its place in the line that names the players."""
    for name, pos in zip(players, where, strict=True):
        if name in reserved_words():
            raise ScenarioError(pos, reserved_message(name), caret_excerpt(text, pos.line, pos.column))


def check_rows(table: sc.Table, text: str) -> None:
    """Every player of the round has a row: a left-out row would silently give an empty tableau. An empty
    tableau is said with an empty row (`bob:`); a player not in the round (`among`) needs none."""
    written = {name for name, _, _ in table.lines}
    seated = set(table.among[0]) if table.among is not None else set(table.players)
    for name, pos in zip(table.players, table.players_pos, strict=True):
        if name in seated and name not in written:
            raise ScenarioError(pos, f"found no row for {name} in the table, expected `{name}: CARD, ...` for "
                                f"{name}'s tableau, or `{name}:` for an empty one",
                                caret_excerpt(text, pos.line, pos.column))


def reserved_player_in(text: str, path: str) -> ScenarioError | None:
    """A player a `players` or `deal` line names by a reserved word: the cause of a syntax error wherever the
    name is then read as the word, so it is reported in its place (the lines are read one by one, since
    the whole file does not parse)."""
    for number, line in enumerate(text.split("\n"), 1):  # as the parser counts lines (caret_excerpt)
        for name, column in _declared_players(line):
            if name in reserved_words():
                return ScenarioError(Pos(path, number, column), reserved_message(name),
                                     caret_excerpt(text, number, column))
    return None


def _declared_players(line: str) -> list[tuple[str, int]]:
    """The players a single line declares, with their columns: a table's `players` line, or a deal."""
    lark = grammar("scenario:setup")
    for prefix in ("table\n", ""):  # a table line is read in a table; a deal line alone
        try:
            tree = lark.parse(prefix + line + "\n")
        except UnexpectedInput:
            continue
        return [(str(tok), tok.column or 0) for tok in _names_declared(tree)]
    return []


def _names_declared(tree: Tree[Token]) -> Iterable[Token]:
    """The names of a `players` line, and the names a setup holds itself: a deal's players (a table's names
    are all inside its lines)."""
    for sub in (tree, *tree.find_data(_PLAYERS_LINE)):
        yield from (t for t in sub.children if isinstance(t, Token) and t.type == "NAME")


def without_undeclared(scenario: sc.Scenario, known: Iterable[str]) -> tuple[sc.Scenario, tuple[str, ...]]:
    """The scenario with only the decisions and assumptions it `assumes` that the rules declare, and those it
    assumes that they do not (what `check_assumes` refuses; `compare` replays without them)."""
    declared = set(known)
    kept = [i for i, ident in enumerate(scenario.assumes) if ident in declared]
    if len(kept) == len(scenario.assumes):
        return scenario, ()
    undeclared = tuple(ident for ident in scenario.assumes if ident not in declared)
    positions = tuple(scenario.assumes_pos[i] for i in kept) if scenario.assumes_pos else ()
    return dataclasses.replace(scenario, assumes=tuple(scenario.assumes[i] for i in kept),
                               assumes_pos=positions), undeclared


def check_assumes(scenario: sc.Scenario, known: Iterable[str]) -> None:
    """Every decision or assumption a scenario `assumes` is one the rules declare: every binding decision of
    the rulebook's editors is declared there as an `assumption` (rules/), with the project's own."""
    declared = list(known)
    # A scenario built without positions (not read from a file) is placed at its header.
    places = scenario.assumes_pos or (scenario.pos,) * len(scenario.assumes)
    for ident, pos in zip(scenario.assumes, places, strict=True):
        if ident not in declared:
            nearest = ", ".join(nearest_ids(ident, declared)) or "none"
            raise ScenarioError(pos, f"found {ident!r}, but the rules declare no decision or assumption of that id; "
                                f"expected a declared one, the nearest being {nearest} (`baobei rules` lists all "
                                f"{len(declared)})")


def nearest_ids(ident: str, known: list[str]) -> list[str]:
    """The known ids closest to an unknown one: those of its kind nearest in number (D999: D23, D22 ...),
    else those closest in spelling."""
    match = _NUMBERED.fullmatch(ident)
    if match is not None:
        kind, number = match.group(1), int(match.group(2))
        same = [(abs(int(m.group(2)) - number), int(m.group(2)), k) for k in known
                if (m := _NUMBERED.fullmatch(k)) is not None and m.group(1) == kind]
        if same:
            return [k for _, _, k in sorted(same)[:NEAREST]]
    return difflib.get_close_matches(ident, known, n=NEAREST, cutoff=0)
