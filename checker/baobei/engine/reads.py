"""What an expression of the rules reads of the state, and what a move changed: the parts of a State.

A part is a field of the state (`tableaux`, `known`, `phase`, ...) or one variable of the rules (`var:NAME`,
either kind, per player or not). The parts an expression reads come from the rules alone: its free names
and the functions it calls (language/walk.py), definitions followed to their bodies, each builtin mapped to
the fields of the Table protocol its implementation reads (language/builtins.py). A name or a function this
module does not know makes the whole state read (`EVERYTHING`), so a new builtin is judged on every move
until it is entered below: sound by default. The parts a move changed come from comparing the state before
it with the state after it, field by field.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..language import syntax as s
from ..language.builtins import BUILTINS, STATE_NAMES, TRANSITION_NAMES
from ..language.ruleset import Ruleset
from ..language.walk import called, free_names
from .state import State

Parts = frozenset[str]
EVERYTHING: Parts = frozenset({"*"})  # read by an expression whose reads are not known: changed by every move
CARDS_PLACED = ("tableaux", "hands", "piles", "box")  # every place a card can lie in

# The parts of the state each builtin's engine implementation reads (the Table methods it calls).
BUILTIN_READS: dict[str, tuple[str, ...]] = {
    # card facts: the deck, never changed by a move
    "value": (), "family": (), "species": (), "has_ability": (),
    # slots and tableaux (`owner`, `slot_no`, `slot` take a slot apart or build one: no state)
    "card_at": ("tableaux",), "occupied": ("tableaux",), "cards": ("tableaux",), "slots": ("tableaux",),
    "free_slots": ("tableaux",), "free_slot": ("tableaux",), "owner": (), "slot_no": (), "slot": (),
    # piles and hands: a place's cards (a list's size reads nothing more than the list)
    "size": ("hands", "piles"), "top": ("hands", "piles"), "hand": ("hands",), "held": ("hands",),
    # seats, knowledge, marks, protection
    "seats_from": ("seats",), "seats_after": ("seats",), "others": ("seats",),
    "knows": ("known",), "marked": ("marks",), "protected": ("protected",),
    "places": CARDS_PLACED,
    "max": (), "min": (), "abs": (),
}
# The parts each state name reads (the builtins without arguments).
STATE_NAME_READS: dict[str, tuple[str, ...]] = {
    "players": ("seats",), "deck": (), "player_count": ("seats",), "seat_count": (), "active": ("active",),
    "phase": ("phase",), "round": ("round",), "turn": ("turn",), "window_ref": ("windows",),
    "window_kind": ("windows",), "window_used": ("windows",), "window_players": ("windows",), "waiting": ("waiting",),
}


class Reads:
    """The parts of the state the rules' expressions read, worked out once per rules."""

    def __init__(self, rules: Ruleset) -> None:
        self.rules = rules
        self._defines: dict[str, Parts] = {}
        self._open: set[str] = set()  # definitions being worked out (a cycle reads everything)

    def of(self, exprs: Iterable[s.Expr | None]) -> Parts:
        """Everything the expressions read; names bound to the move (`actor`, `by_ability`) are no part."""
        out: set[str] = set()
        for e in exprs:
            if e is not None:
                out |= self._expr(e)
        return EVERYTHING if "*" in out else frozenset(out)

    def of_invariant(self, decl: s.InvariantDecl) -> Parts:
        return self.of((decl.when, decl.holds))

    def _expr(self, e: s.Expr) -> Parts:
        out: set[str] = set()
        for name in free_names(e):
            out |= self._name(name)
        for func in called(e):
            out |= self._function(func)
        return frozenset(out)

    def _name(self, name: str) -> Parts:
        rules = self.rules
        if name in TRANSITION_NAMES:
            return frozenset()
        if name in STATE_NAME_READS:
            return frozenset(STATE_NAME_READS[name])
        if name in rules.variables:
            return frozenset({f"var:{name}"})
        if name in rules.piles:
            return frozenset({"piles"})
        if name in rules.tables:
            return frozenset()  # a table of the rules: one row per player count, never changed by a move
        if name in rules.defines:
            return self._define(name)
        return EVERYTHING

    def _function(self, func: str) -> Parts:
        if func in self.rules.defines:
            return self._define(func)
        if func in BUILTIN_READS:
            return frozenset(BUILTIN_READS[func])
        return EVERYTHING

    def _define(self, name: str) -> Parts:
        known = self._defines.get(name)
        if known is not None:
            return known
        if name in self._open:
            return EVERYTHING
        self._open.add(name)
        decl = self.rules.defines[name]
        formals = {f.name for f in decl.formals or ()}
        out: set[str] = set()
        for free in free_names(decl.body) - formals:
            out |= self._name(free)
        for func in called(decl.body):
            out |= self._function(func)
        self._open.discard(name)
        found = self._defines[name] = EVERYTHING if "*" in out else frozenset(out)
        return found


def unknown_reads() -> set[str]:
    """The builtins and state names whose reads this module does not state (each reads everything)."""
    return (set(BUILTINS) - set(BUILTIN_READS)) | (set(STATE_NAMES) - set(STATE_NAME_READS))


_MISSING = object()


def changed_parts(before: State, after: State) -> set[str]:
    """The parts of the state that differ between `before` and `after` (the state after a move)."""
    out = set()
    if before.tableaux != after.tableaux:
        out.add("tableaux")
    if before.hands != after.hands:
        out.add("hands")
    if before.piles != after.piles:
        out.add("piles")
    if before.box != after.box:
        out.add("box")
    if before.known != after.known:
        out.add("known")
    if before.marks != after.marks:
        out.add("marks")
    if before.active != after.active:
        out.add("active")
    if before.phase != after.phase:
        out.add("phase")
    if before.round != after.round:
        out.add("round")
    if before.turn != after.turn:
        out.add("turn")
    if before.protected != after.protected:
        out.add("protected")
    if before.in_round != after.in_round or before.seats != after.seats:
        out.add("seats")
    if _windows(before) != _windows(after):
        out.add("windows")
    if not _same_entries(before.waiting, after.waiting):
        out.add("waiting")
    out.update(_changed_vars(before.vars, after.vars))
    out.update(_changed_vars(before.pvars, after.pvars))
    return out


def _windows(st: State) -> list[tuple[Any, ...]]:
    return [(w.kind, w.ref, w.players, w.attempts) for w in st.windows]


def _same_entries(a: list[Any], b: list[Any]) -> bool:
    """The same waiting abilities: an entry is never changed in place, so the same objects are the same."""
    return len(a) == len(b) and all(x is y for x, y in zip(a, b, strict=True))


def _changed_vars(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    if before == after:
        return []
    names = [k for k, v in after.items() if before.get(k, _MISSING) != v]
    return [f"var:{k}" for k in names + [k for k in before if k not in after]]
