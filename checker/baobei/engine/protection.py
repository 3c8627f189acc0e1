"""Protected tableaux (the rules' `protect` declarations), enforced once for every rule.

A move chooses the target of a change when one of its slot or player arguments flows
(through `let`, routine arguments and branches) into the card or the place of a statement
that changes a tableau: `move`, `swap`, `draw into`. Such an argument that names a tableau
protected against the mover is refused, citing the protection, whatever the outcome would
be (a pluck's target is chosen before anyone knows whether it matches). Any other change
of a protected tableau by another player while a rule runs is impossible and left out.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..language import syntax as s
from ..language.ruleset import Ruleset
from ..language.walk import free_names
from .runtime import Ctx
from .state import State

Taint = dict[str, frozenset[str]]  # a local name -> the arguments its value derives from


@dataclass(frozen=True)
class Protection:
    decl: s.ProtectDecl
    when: Callable[[State, int], Any]  # (state, the owner of the tableau, bound to decl.owner) -> holds
    # When `when` reads `OWNER == X and REST`, X alone says whose tableau it can be: the engine evaluates
    # X once instead of `when` for every seat (a protection is re-evaluated after every action).
    only: Callable[[State], Any] | None = None
    rest: Callable[[State, int], Any] | None = None


def owner_pattern(decl: s.ProtectDecl) -> tuple[s.Expr, s.Expr] | None:
    """(X, REST) when the condition is `OWNER == X and REST` with X not reading OWNER."""
    conjuncts = _conjuncts(decl.when)
    first, rest = conjuncts[0], conjuncts[1:]
    if not rest or not (isinstance(first, s.Binary) and first.op == "==" and isinstance(first.left, s.Name)
                        and first.left.name == decl.owner and decl.owner not in free_names(first.right)):
        return None
    joined = rest[0]
    for item in rest[1:]:
        joined = s.Binary(item.pos, "and", joined, item)
    return first.right, joined


def _conjuncts(cond: s.Expr) -> list[s.Expr]:
    if isinstance(cond, s.Binary) and cond.op == "and":
        return _conjuncts(cond.left) + _conjuncts(cond.right)
    return [cond]


class ChangeTargets:
    """Which arguments of a move name what it may change."""

    def __init__(self, rules: Ruleset) -> None:
        self.rules = rules
        self._routines: dict[tuple[str, tuple[frozenset[str], ...]], frozenset[str]] = {}

    def of_move(self, decl: s.MoveDecl) -> frozenset[str]:
        params = [p.name for p in decl.params if p.kind in ("slot", "own_slot", "free_slot", "player")]
        return self.block(decl.body, {name: frozenset({name}) for name in params})

    def block(self, body: tuple[s.Stmt, ...], taint: Taint) -> frozenset[str]:
        taint = dict(taint)
        found: set[str] = set()
        for stmt in body:
            found |= self.stmt(stmt, taint)
        return frozenset(found)

    def reads(self, expr: s.Expr | None, taint: Taint) -> frozenset[str]:
        if expr is None:
            return frozenset()
        out: set[str] = set()
        for name in free_names(expr):
            out |= taint.get(name, frozenset())
        return frozenset(out)

    def stmt(self, node: s.Stmt, taint: Taint) -> frozenset[str]:
        if isinstance(node, s.Let):
            taint[node.name] = self.reads(node.value, taint)
        elif isinstance(node, s.MoveCard):
            return self.reads(node.card, taint) | self.reads(node.to, taint)
        elif isinstance(node, s.Swap):
            return self.reads(node.first, taint) | self.reads(node.second, taint)
        elif isinstance(node, s.Draw):
            return self.reads(node.into, taint)
        elif isinstance(node, s.Run):
            return self.routine(node, taint)
        elif isinstance(node, s.IfStmt):
            return self.block(node.then, taint) | self.block(node.other, taint)
        elif isinstance(node, s.ForEach):
            return self.block(node.body, {**taint, node.var: self.reads(node.domain, taint)})
        elif isinstance(node, s.Repeat):
            return self.block(node.body, taint)
        return frozenset()

    def routine(self, node: s.Run, taint: Taint) -> frozenset[str]:
        routine = self.rules.routines[node.routine]
        args = tuple(self.reads(a, taint) for a in node.args)
        key = (node.routine, args)
        if key not in self._routines:
            self._routines[key] = frozenset()  # routines do not recurse (checked at load)
            inner = {f.name: a for f, a in zip(routine.formals, args, strict=True)}
            self._routines[key] = self.block(routine.body, inner)
        return self._routines[key]


def tableau_of(value: Any) -> int | None:
    """The player whose tableau an argument names: a slot's owner, or a player."""
    if isinstance(value, tuple):
        return int(value[0])
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    return None


def protection_against(protections: list[Protection], ctx: Ctx, owner: int, by: int | None) -> s.ProtectDecl | None:
    """The protection that forbids `by` to change `owner`'s tableau now, if any. The state's mask says which
    tableaux are protected since the last completed action; the declaration is looked up only then."""
    if by is None or by == owner or not ctx.st.protected >> owner & 1:
        return None  # the engine's own setup, the owner's own change, or no protection
    for p in protections:
        if p.when(ctx.st, owner):
            return p.decl
    return protections[0].decl if protections else None

