"""A small-deck variant of a ruleset: the same rules, fewer copies of each species.

Both model checkers (the Z3 bounded model checker of proofs/ and the engine's
breadth-first `explore`) work on it, because their cost grows with the number of
card identities. Everything but the deck's counts stays as declared: species,
values, families, abilities, tables, moves and hooks.

The derived deck keeps one card of every species, so that every value, family and
ability still occurs. Further copies are added one at a time, cycling through the
species in declaration order (only species the full deck has more of), until the
deal (hands plus the first face-up card, counted from the draws of the rules'
round-start hook) leaves `spare` cards in the draw pile.
Families of several species (the pluck matches across species) keep their pairs
through the single copies; a species that is its own family gets a second copy
only when the deal needs more cards.
"""

from __future__ import annotations

import copy

from . import syntax as s
from .ruleset import Ruleset, Species

DEFAULT_SPARE = 3  # cards left in the draw pile after the deal, so that draws and recycles occur early

# The hook that deals a round (a name of the engine's contract with the rules), and the state names a
# deal's count may read: the players of the round and their number.
ROUND_START = "round_start"
PLAYERS, PLAYER_COUNT = "players", "player_count"


def deal_size(rules: Ruleset, players: int) -> int | None:
    """Cards the deal takes out of the draw pile (every hand plus the first face-up card), counted from
    the draws of the rules' round-start hook; None when a count cannot be told without playing (a count
    that reads the state), and then the small deck keeps every card."""
    hook = rules.hooks.get(ROUND_START)
    return _draws(rules, hook.body, players) if hook is not None else 0


def _draws(rules: Ruleset, body: tuple[s.Stmt, ...], players: int) -> int | None:
    """How many cards a block draws at most: loops multiply, a branch counts its larger side."""
    total = 0
    for stmt in body:
        match stmt:
            case s.Draw():
                n: int | None = 1
            case s.Repeat():
                n = _times(_count(rules, stmt.count, players), _draws(rules, stmt.body, players))
            case s.ForEach():
                each = players if isinstance(stmt.domain, s.Name) and stmt.domain.name == PLAYERS else None
                n = _times(each, _draws(rules, stmt.body, players))
            case s.IfStmt():
                sides = (_draws(rules, stmt.then, players), _draws(rules, stmt.other, players))
                n = None if None in sides else max(v for v in sides if v is not None)
            case s.Run() if stmt.routine in rules.routines:
                n = _draws(rules, rules.routines[stmt.routine].body, players)
            case _:
                n = 0
        if n is None:
            return None
        total += n
    return total


def _times(a: int | None, b: int | None) -> int | None:
    return None if a is None or b is None else a * b


def _count(rules: Ruleset, expr: s.Expr, players: int) -> int | None:
    """A repeat count the rules fix for a player count: a number, a table row, a sum of such, a definition, the
    larger side of an `if`."""
    match expr:
        case s.Lit(value=int(n)) if not isinstance(n, bool):
            return n
        case s.Name(name=name) if name == PLAYER_COUNT:
            return players
        case s.Name(name=name) if name in rules.defines and not rules.defines[name].formals:
            return _count(rules, rules.defines[name].body, players)
        case s.Index(base=s.Name(name=table)) if table in rules.tables:
            return rules.table_value(table, players) if _count(rules, expr.index, players) == players else None
        case s.Binary(op="+" | "*") if (a := _count(rules, expr.left, players)) is not None \
                and (b := _count(rules, expr.right, players)) is not None:
            return a + b if expr.op == "+" else a * b
        case s.IfExpr() if (a := _count(rules, expr.then, players)) is not None \
                and (b := _count(rules, expr.other, players)) is not None:
            return max(a, b)  # as a branch of statements: the larger side (a decision round's deal, say)
        case _:
            return None


def small_counts(rules: Ruleset, players: int, spare: int = DEFAULT_SPARE) -> dict[str, int]:
    """How many cards of each species the small deck has."""
    counts = {name: 1 for name in rules.species}
    deal = deal_size(rules, players)
    full = sum(sp.count for sp in rules.species.values())
    want = full if deal is None else min(deal + spare, full)
    order = list(rules.species.values())
    while sum(counts.values()) < want:
        for sp in order:
            if counts[sp.name] < sp.count and sum(counts.values()) < want:
                counts[sp.name] += 1
    return counts


def small_deck(rules: Ruleset, players: int, spare: int = DEFAULT_SPARE) -> Ruleset:
    """A copy of the ruleset whose deck has the counts of `small_counts`."""
    counts = small_counts(rules, players, spare)
    smaller = copy.copy(rules)
    smaller.species = {name: Species(sp.name, sp.value, counts[name], sp.family, sp.ability)
                       for name, sp in rules.species.items()}
    return smaller


def describe(rules: Ruleset) -> str:
    """The deck in one line: "15 cards (A 1, B 2, ...)", species by name and count."""
    total = sum(sp.count for sp in rules.species.values())
    return f"{total} cards (" + ", ".join(f"{sp.name} {sp.count}" for sp in rules.species.values()) + ")"
