"""What differs between two versions of the rules, declaration by declaration (text positions aside).

A declaration is known by its kind and name (a deck by its cards, one entry per species); it changed when
its syntax tree differs once source positions are left out, so moving a rule within its file, or into
another file, changes nothing. Besides the list for the report, each change gives what the search for a
situation that tells the versions apart starts from (perturb.py): the numbers it changed and the whole
numbers of the state that its neighbourhood reads (the names of the changed declaration and of those that
use it).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ..language import syntax as s
from ..language.ruleset import Ruleset
from ..language.source import Citation, Pos

CHANGED, ADDED, REMOVED = "changed", "added", "removed"
# Fields that hold words for people, not names a rule reads.
_PROSE = frozenset({"text", "title", "reason", "choice", "by_reason", "words"})
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*\Z")
# Counters of the engine's state that a scenario table sets with a line of its own (`turn N`, `round N`).
TABLE_COUNTERS = ("turn", "round")


@dataclass(frozen=True)
class Change:
    kind: str  # the declaration's keyword: define, table, move, routine, hook, invariant, card ...
    name: str
    status: str  # changed | added | removed
    cite: str  # the rulebook place the declaration cites (the new one when both cite)
    old: Any = None  # the declarations, positions included (None on the side that lacks it)
    new: Any = None
    old_cite: Citation | None = None
    new_cite: Citation | None = None

    def __str__(self) -> str:
        named = f"{self.kind} {self.name}" if self.name else self.kind
        return f"{named} {self.status}" + (f" ({self.cite})" if self.cite else "")


@dataclass(frozen=True)
class RuleChanges:
    changes: tuple[Change, ...]
    shifts: tuple[int, ...]  # new minus old for each number a change moved (same place in the declaration)
    numbers: tuple[int, ...]  # every number of a change that the other side does not have at that place
    targets: tuple[str, ...]  # whole-number state names read near a change: int variables and table counters
    sections: frozenset[str]  # the rulebook sections the changed declarations cite


def rule_changes(old: Ruleset, new: Ruleset) -> RuleChanges:
    olds, news = declarations(old), declarations(new)
    changes = []
    for key in [*olds, *(k for k in news if k not in olds)]:
        (a, cite_a), (b, cite_b) = olds.get(key, (None, None)), news.get(key, (None, None))
        if a is not None and b is not None and shape(a) == shape(b):
            continue
        status = CHANGED if a is not None and b is not None else ADDED if a is None else REMOVED
        cite = cite_b if cite_b is not None else cite_a
        changes.append(Change(key[0], key[1], status, str(cite) if cite is not None else "", a, b,
                              cite_a, cite_b))
    shifts, numbers = _numbers(changes)
    return RuleChanges(tuple(changes), shifts, numbers, _targets(changes, old, new), _sections(changes))


def declarations(rules: Ruleset) -> dict[tuple[str, str], tuple[Any, Citation | None]]:
    """Every declaration of the rules by (kind, name), in file order, with its citation; the deck as one
    entry per card (citing the deck)."""
    out: dict[tuple[str, str], tuple[Any, Citation | None]] = {}
    for file in rules.files:
        for decl in file.decls:
            if isinstance(decl, s.DeckDecl):
                out.update((("card", c.species), (c, decl.cite)) for c in decl.cards)
                out[("deck", "")] = (dataclasses.replace(decl, cards=()), decl.cite)
            else:
                cite = getattr(decl, "cite", None)
                out[(kind_of(decl), _name_of(decl))] = (decl, cite if isinstance(cite, Citation) else None)
    return out


def kind_of(decl: Any) -> str:
    """The keyword a declaration is written with (moves: move, ability or step; routines: routine or hook)."""
    if isinstance(decl, s.MoveDecl):
        return "step" if decl.is_step else "ability" if decl.is_ability else "move"
    if isinstance(decl, s.RoutineDecl):
        return "hook" if decl.is_hook else "routine"
    if isinstance(decl, s.InvariantDecl):
        return "lemma" if decl.lemma else "invariant"
    if isinstance(decl, s.VarDecl):
        return "var"
    return type(decl).__name__.removesuffix("Decl").lower()


def _name_of(decl: Any) -> str:
    for attr in ("name", "ident"):
        value = getattr(decl, attr, None)
        if isinstance(value, str):
            return value
    return ""  # a declaration the rules make once (phases, window, players ...)


def shape(value: Any) -> Any:
    """The value as nested tuples, without source positions: equal shapes are the same rule."""
    if isinstance(value, Pos):
        return None
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return (type(value).__name__, *(shape(getattr(value, f.name)) for f in dataclasses.fields(value)))
    if isinstance(value, (tuple, list)):
        return tuple(shape(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((str(k), shape(v)) for k, v in value.items()))
    return value


def whole_numbers(value: Any) -> Iterator[int]:
    """The whole numbers a declaration is written with, in order (citations' paragraph numbers aside)."""
    if isinstance(value, (Pos, Citation, bool)):
        return
    if isinstance(value, int):
        yield value
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            yield from whole_numbers(getattr(value, f.name))
    elif isinstance(value, (tuple, list)):
        for item in value:
            yield from whole_numbers(item)


def names_read(value: Any) -> set[str]:
    """The identifiers a declaration is written with (prose and string literals aside)."""
    if isinstance(value, (Pos, Citation, s.Lit)):
        return set()
    if isinstance(value, str):
        return {value} if _IDENTIFIER.match(value) else set()
    out: set[str] = set()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            if f.name not in _PROSE:
                out |= names_read(getattr(value, f.name))
    elif isinstance(value, (tuple, list)):
        for item in value:
            out |= names_read(item)
    return out


def _numbers(changes: list[Change]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The shifts (new - old where a number moved in place) and the numbers either side alone has."""
    shifts: set[int] = set()
    numbers: set[int] = set()
    for change in changes:
        a, b = list(whole_numbers(change.old)), list(whole_numbers(change.new))
        if len(a) == len(b):
            moved = [(x, y) for x, y in zip(a, b, strict=True) if x != y]
            shifts |= {y - x for x, y in moved}
            numbers |= {v for pair in moved for v in pair}
        else:  # added, removed or rewritten: every number it has that the other side lacks
            numbers |= set(a) ^ set(b)
    return tuple(sorted(shifts)), tuple(sorted(numbers))


def _targets(changes: list[Change], old: Ruleset, new: Ruleset) -> tuple[str, ...]:
    """The int variables and table counters read by a changed declaration or by one that uses it."""
    changed = {c.name for c in changes}
    read: set[str] = set()
    for change in changes:
        read |= names_read(change.old) | names_read(change.new)
    for _, names in _readers(old, new):
        if names & changed:
            read |= names
    ints = {name for rules in (old, new) for name, var in rules.variables.items() if var.type == "int"}
    return tuple(sorted(read & (ints | set(TABLE_COUNTERS))))


def _sections(changes: list[Change]) -> frozenset[str]:
    out: set[str] = set()
    for change in changes:
        for cite in (change.old_cite, change.new_cite):
            if cite is not None:
                out |= set(cite.sections)
    return frozenset(out)


# Declarations that a changed name reaches only through the names they read: a change that reaches none
# of the others (a hook the engine calls by itself, a protection, a halt, the window, the deck ...) may
# change any move.
_NAMED_KINDS = frozenset({"define", "routine", "table", "move", "ability", "step", "var", "invariant", "lemma",
                          "progress", "assumption", "statistic", "policy", "implicit"})
# Declarations that name others without reading them in an expression: a species names its ability, the
# phases are words, a game log's implicit steps name moves; none of them changes because those did.
_NO_READERS = frozenset({"card", "deck", "phases", "players", "hand", "pile", "window", "waiting", "nochoice",
                         "mark", "implicit", "assumption"})


def reached(old: Ruleset, new: Ruleset, changes: RuleChanges) -> frozenset[str] | None:
    """The names of the declarations a change can alter: the changed ones and every declaration that reads
    one of them, directly or through others; None when a change can alter any move (see _NAMED_KINDS)."""
    if any(c.kind not in _NAMED_KINDS for c in changes.changes):
        return None
    decls = _readers(old, new)
    keys = {(c.kind, c.name) for c in changes.changes}
    grown = True
    while grown:
        names = {name for _, name in keys if name}
        more = {key for key, read in decls if key not in keys and read & names}
        grown = bool(more)
        keys |= more
    if any(kind not in _NAMED_KINDS for kind, _ in keys):
        return None
    return frozenset(name for _, name in keys if name)


def _readers(old: Ruleset, new: Ruleset) -> list[tuple[tuple[str, str], set[str]]]:
    """Every declaration of either version that reads names in expressions, with the names it reads."""
    return [(key, names_read(decl)) for rules in (old, new) for key, (decl, _) in declarations(rules).items()
            if key[0] not in _NO_READERS]


# The declarations a move's legality can read in a state both versions agree on: its own guards and the
# definitions and tables they read (and, for a step, its body, which a trial run plays to find what a
# protection blocks). A change of any other kind but a routine, hook, variable or a declaration no move
# reads (properties, words, statistics) may change any move's legality.
_GUARD_KINDS = frozenset({"define", "table", "move", "ability", "step"})
_LEGAL_ALIKE = frozenset({"routine", "hook", "var", "invariant", "lemma", "progress", "assumption", "statistic",
                          "policy", "implicit"})


def legality_reached(old: Ruleset, new: Ruleset, changes: RuleChanges) -> frozenset[str] | None:
    """The moves whose legality a change can alter, in a state both versions agree on; None: any move."""
    if any(c.kind not in _GUARD_KINDS | _LEGAL_ALIKE for c in changes.changes):
        return None
    names = {c.name for c in changes.changes}
    grown = True
    while grown:  # definitions and routines that read a changed name, directly or not
        more = {key[1] for rules in (old, new) for key, (decl, _) in declarations(rules).items()
                if key[0] in ("define", "routine") and key[1] not in names and names_read(decl) & names}
        grown = bool(more)
        names |= more
    moves = set()
    for rules in (old, new):
        for name, decl in rules.moves.items():
            guards = names_read((decl.by, tuple(r.cond for r in decl.requires)))
            body = names_read(decl.body) if decl.is_step else set()
            if name in names or (guards | body) & names:
                moves.add(name)
    return frozenset(moves)
