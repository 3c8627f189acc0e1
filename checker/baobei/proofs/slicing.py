"""The side constraints a query needs: those that share a constant with it, at any remove.

Induction asks Z3 thousands of questions over one relation. Each question assumes the side constraints of the
whole relation (what the fresh values of every step stand for: some 50,000 at 2 players), though a step's
question shares a constant with a few thousand of them at most; Z3 spends most of its time reading the rest.

Constraints that share no constant (and no uninterpreted function) with a question, directly or through other
constraints, cannot change its answer when they are satisfiable together: a model of the question and its own
constraints joins any model of the others. So a question refuted with its own constraints only is refuted with
them all (fewer assumptions can only make a refutation harder). A question that is not refuted that way is asked
again as before, of every constraint, so that a counterexample and what is read from its model are those of the
whole relation (induction.py: `Quick`).

The constraints are grouped as they are made: a union-find over the constants and function symbols they read,
each term visited once however many constraints share it (Z3's terms are shared: same is same).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import z3  # type: ignore[import-untyped]
from z3 import z3core as C

from .translate import Z


class Slicer:
    """The side constraints of one relation, grouped by the constants they connect; `side` grows as the
    relation's stores make fresh values, and is read again up to its end at every question."""

    def __init__(self, side: list[Z]) -> None:
        self.side = side
        self.grouped = 0  # how many of `side` are grouped
        self.parent: dict[int, int] = {}  # union-find over the ids of constants and function symbols
        self.members: dict[int, list[int]] = {}  # a group's root -> the indices in `side` of its constraints
        self.ground: list[int] = []  # the indices of the constraints that read no constant
        # The id of a term walked -> a constant it reads (None: none). Z3 gives the id of a term that was freed
        # to the next one made, so every term walked is kept alive (`held`; the side keeps its own): a
        # question's claims and hypotheses come back step after step, and are then not walked again.
        self.reps: dict[int, int | None] = {}
        self.held: list[Z] = []

    def needed(self, terms: Iterable[Z]) -> list[Z]:
        """The side constraints connected to `terms` (and those that read no constant at all), in the order
        they were made."""
        self._group()
        roots: set[int] = set()
        for t in terms:
            if C.Z3_get_ast_id(t.ctx.ref(), t.as_ast()) not in self.reps:
                self.held.append(t)
            if (r := self._rep(t)) is not None:
                roots.add(self._find(r))
        chosen = [*self.ground, *(i for root in roots for i in self.members.get(root, ()))]
        return [self.side[i] for i in sorted(chosen)]

    def _group(self) -> None:
        for i in range(self.grouped, len(self.side)):
            rep = self._rep(self.side[i])
            if rep is None:
                self.ground.append(i)
            else:
                self.members.setdefault(self._find(rep), []).append(i)
        self.grouped = len(self.side)

    def _find(self, x: int) -> int:
        parent = self.parent
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def _union(self, a: int, b: int) -> int:
        """One group of the two; the larger keeps its root, and takes the smaller's constraints."""
        ra, rb = self._find(a), self._find(b)
        if ra == rb:
            return ra
        small, large = self.members.get(ra, []), self.members.get(rb, [])
        if len(small) > len(large):
            ra, rb, small, large = rb, ra, large, small
        self.parent[ra] = rb
        if small:
            large.extend(small)
            self.members[rb] = large
            del self.members[ra]
        return rb

    def _rep(self, term: Z) -> int | None:
        """A constant `term` reads, all of them joined in one group (None: it reads none). Iterative (the
        relation's terms are deep), and through Z3's C interface: a term walked by z3's Python objects costs
        six times as much (each child and symbol is an object with its reference count)."""
        reps = self.reps
        ctx = term.ctx.ref()
        top = term.as_ast()
        root = C.Z3_get_ast_id(ctx, top)
        if root in reps:
            return reps[root]
        stack: list[tuple[Any, bool]] = [(top, False)]
        while stack:
            node, ready = stack.pop()
            key = C.Z3_get_ast_id(ctx, node)
            if key in reps:
                continue
            kids = _children(ctx, node)
            if not ready:
                stack.append((node, True))
                stack.extend((kid, False) for kid in kids if C.Z3_get_ast_id(ctx, kid) not in reps)
                continue
            rep = self._symbol(ctx, node)
            for kid in kids:
                got = reps[C.Z3_get_ast_id(ctx, kid)]
                if got is not None:
                    rep = got if rep is None else self._union(rep, got)
            reps[key] = rep
        return reps[root]

    def _symbol(self, ctx: Any, node: Any) -> int | None:
        """The uninterpreted symbol an application names (a constant, or a function whose applications
        share its meaning), as its id; None for an interpreted operation, a number, a bound variable."""
        if C.Z3_get_ast_kind(ctx, node) != z3.Z3_APP_AST:
            return None
        decl = C.Z3_get_app_decl(ctx, C.Z3_to_app(ctx, node))
        if C.Z3_get_decl_kind(ctx, decl) != z3.Z3_OP_UNINTERPRETED:
            return None
        key = int(C.Z3_get_func_decl_id(ctx, decl))
        self.parent.setdefault(key, key)
        return key


def _children(ctx: Any, node: Any) -> list[Any]:
    """The terms a term is made of: an application's arguments, a quantifier's body."""
    kind = C.Z3_get_ast_kind(ctx, node)
    if kind == z3.Z3_APP_AST:
        app = C.Z3_to_app(ctx, node)
        return [C.Z3_get_app_arg(ctx, app, i) for i in range(C.Z3_get_app_num_args(ctx, app))]
    if kind == z3.Z3_QUANTIFIER_AST:
        return [C.Z3_get_quantifier_body(ctx, node)]
    return []
