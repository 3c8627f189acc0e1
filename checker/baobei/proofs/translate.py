"""Translate the rules' side-effect-free expressions to Z3 terms over a symbolic state.

The translator knows the language (literals, names, definitions, tables,
quantifiers, arithmetic, comparisons) and nothing of the game. What a state
name, a variable or a primitive means comes from a `Backend`: the distribution
model of verify_state.py or the placement model of verify_places.py. Anything a
backend cannot express raises `Unsupported`, which makes a proof `unknown`,
never `proved`.

Values mirror the engine's Python values: `none` is a sentinel (-1) for players
and cards and a separate flag for numbers and strings, so that comparisons and
equalities behave as the compiled closures of compiler.py do.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import z3  # type: ignore[import-untyped]

from . import syntax as s
from .model import Ruleset

Z = Any  # a z3 term (z3 ships no type information)
NONE_ID = -1  # the sentinel of a `none` player or card


class Unsupported(Exception):
    """The expression uses something the symbolic model cannot express."""

    def __init__(self, pos: s.Pos, what: str) -> None:
        super().__init__(f"{pos}: {what}")
        self.pos = pos
        self.what = what


# ---------------------------------------------------------------- values


@dataclass(frozen=True)
class SVal:
    """A symbolic value of the rules language."""

    def kind(self) -> str:
        return type(self).__name__.removesuffix("V").lower()


@dataclass(frozen=True)
class NoneV(SVal):
    """The literal `none`, before it meets a typed value."""


@dataclass(frozen=True)
class IntV(SVal):
    term: Z
    none: Z = field(default_factory=lambda: z3.BoolVal(False))


@dataclass(frozen=True)
class BoolV(SVal):
    term: Z


@dataclass(frozen=True)
class StrV(SVal):
    term: Z
    none: Z = field(default_factory=lambda: z3.BoolVal(False))


@dataclass(frozen=True)
class PlayerV(SVal):
    term: Z  # seat number, NONE_ID for none


@dataclass(frozen=True)
class CardV(SVal):
    """A card of the distribution model: its species index, NONE_ID for none."""

    term: Z


@dataclass(frozen=True)
class PileV(SVal):
    name: str


@dataclass(frozen=True)
class ListV(SVal):
    """A list of known length; each item is present when its Bool holds.

    `orders`, when given, says the items' order depends on the state: (condition, the
    list in that case) pairs, one of which holds. Quantifiers ignore the order; `first`
    and `if` use it.
    """

    items: tuple[tuple[SVal, Z], ...]
    orders: tuple[tuple[Z, ListV], ...] = ()


@dataclass(frozen=True)
class BagV(SVal):
    """A multiset of cards by species: one count per species of the deck."""

    counts: tuple[Z, ...]


def is_none(v: SVal) -> Z:
    if isinstance(v, NoneV):
        return z3.BoolVal(True)
    if isinstance(v, (IntV, StrV)):
        return v.none
    if isinstance(v, (PlayerV, CardV)):
        return v.term == NONE_ID
    return z3.BoolVal(False)


def ival(n: int) -> IntV:
    return IntV(z3.IntVal(n))


# ---------------------------------------------------------------- backends


class Backend(Protocol):
    """What the state is: names of the engine, variables and primitives."""

    def global_name(self, name: str, pos: s.Pos) -> SVal | None:
        """A name of the engine (players, phase, draw_pile ...), or None when it is not one."""

    def variable(self, decl: s.VarDecl, index: SVal | None, pos: s.Pos) -> SVal: ...

    def call(self, func: str, args: list[SVal], pos: s.Pos) -> SVal: ...

    def card_items(self, bag: BagV) -> list[tuple[SVal, Z, Z]]:
        """(card, present, multiplicity) for iterating over a bag of cards."""


# ---------------------------------------------------------------- translator


@dataclass
class Obligation:
    """A condition the engine needs to evaluate the expression at all (a table row exists)."""

    holds: Z
    broken: str  # what goes wrong when it does not hold


Env = dict[str, SVal]


class Translator:
    """Expressions -> SVal, definitions inlined with their arguments."""

    def __init__(self, rules: Ruleset, backend: Backend, players: int) -> None:
        self.rules = rules
        self.backend = backend
        self.n = players
        self.obligations: list[Obligation] = []
        self._const_defines: dict[str, SVal] = {}

    # ------------------------------------------------------------ entry points
    def expr(self, node: s.Expr, env: Env) -> SVal:
        method: Callable[[Any, Env], SVal] = getattr(self, "_e_" + type(node).__name__)
        return method(node, env)

    def boolean(self, node: s.Expr, env: Env) -> Z:
        return self.truth(self.expr(node, env), node.pos)

    def define(self, name: str, args: Sequence[SVal], pos: s.Pos) -> SVal:
        decl = self.rules.defines[name]
        formals = decl.formals or ()
        if len(formals) != len(args):
            raise Unsupported(pos, f"{name!r} takes {len(formals)} argument(s)")
        if not formals:
            if name not in self._const_defines:
                self._const_defines[name] = self.expr(decl.body, {})
            return self._const_defines[name]
        return self.expr(decl.body, {f.name: a for f, a in zip(formals, args, strict=True)})

    # ------------------------------------------------------------ helpers
    @staticmethod
    def truth(v: SVal, pos: s.Pos) -> Z:
        if isinstance(v, BoolV):
            return v.term
        if isinstance(v, NoneV):
            return z3.BoolVal(False)
        raise Unsupported(pos, f"a {v.kind()} used as a condition")

    @staticmethod
    def integer(v: SVal, pos: s.Pos) -> IntV:
        if isinstance(v, IntV):
            return v
        if isinstance(v, NoneV):
            return IntV(z3.IntVal(0), z3.BoolVal(True))
        raise Unsupported(pos, f"a {v.kind()} used as a number")

    # ------------------------------------------------------------ nodes
    def _e_Lit(self, node: s.Lit, env: Env) -> SVal:
        v = node.value
        if v is None:
            return NoneV()
        if isinstance(v, bool):
            return BoolV(z3.BoolVal(v))
        if isinstance(v, int):
            return ival(v)
        return StrV(z3.StringVal(v))

    def _e_Name(self, node: s.Name, env: Env) -> SVal:
        name = node.name
        if name in env:
            return env[name]
        known = self.backend.global_name(name, node.pos)
        if known is not None:
            return known
        var = self.rules.variables.get(name)
        if var is not None:
            if var.per_player:
                raise Unsupported(node.pos, f"{name!r} holds one value per player")
            return self.backend.variable(var, None, node.pos)
        if name in self.rules.defines:
            return self.define(name, (), node.pos)
        raise Unsupported(node.pos, f"unknown name {name!r}")

    def _e_Call(self, node: s.Call, env: Env) -> SVal:
        args = [self.expr(a, env) for a in node.args]
        if node.func in self.rules.defines:
            return self.define(node.func, args, node.pos)
        return self.backend.call(node.func, args, node.pos)

    def _e_Index(self, node: s.Index, env: Env) -> SVal:
        index = self.expr(node.index, env)
        base = node.base
        if isinstance(base, s.Name) and base.name not in env:
            if base.name in self.rules.tables:
                return self._table(base.name, index, node.pos)
            var = self.rules.variables.get(base.name)
            if var is not None and var.per_player:
                return self.backend.variable(var, index, node.pos)
        raise Unsupported(node.pos, "indexing is supported for tables and per-player variables")

    def _table(self, name: str, index: SVal, pos: s.Pos) -> SVal:
        """A table lookup; a missing row is an obligation (the engine stops there)."""
        key = self.integer(index, pos).term
        table = self.rules.tables[name]
        result: Z = z3.IntVal(0)
        defined: Z = z3.BoolVal(False)
        for row in reversed(table.rows):
            inside = z3.And(key >= row.low, key <= row.high)
            result = z3.If(inside, z3.IntVal(row.value), result)
            defined = z3.Or(inside, defined)
        shown = z3.simplify(key)
        where = f"{shown} players" if z3.is_int_value(shown) else "this index"
        self.obligations.append(Obligation(z3.simplify(defined), f"table {name} ({table.cite}) has no row for {where}"))
        return IntV(result)

    def _e_Unary(self, node: s.Unary, env: Env) -> SVal:
        inner = self.expr(node.operand, env)
        if node.op == "not":
            return BoolV(z3.Not(self.truth(inner, node.pos)))
        v = self.integer(inner, node.pos)
        return IntV(-v.term, v.none)

    def _e_Binary(self, node: s.Binary, env: Env) -> SVal:
        op = node.op
        left, right = self.expr(node.left, env), self.expr(node.right, env)
        if op in ("and", "or"):
            a, b = self.truth(left, node.pos), self.truth(right, node.pos)
            return BoolV(z3.And(a, b) if op == "and" else z3.Or(a, b))
        if op == "==":
            return BoolV(equal(left, right, node.pos))
        if op == "!=":
            return BoolV(z3.Not(equal(left, right, node.pos)))
        if op == "in":
            return BoolV(self._member(left, right, node.pos))
        a, b = self.integer(left, node.pos), self.integer(right, node.pos)
        both = z3.And(z3.Not(a.none), z3.Not(b.none))
        order = _ORDER.get(op)
        if order is not None:
            return BoolV(z3.And(both, order(a.term, b.term)))
        return IntV(_ARITH[op](a.term, b.term), z3.Not(both))

    def _member(self, item: SVal, container: SVal, pos: s.Pos) -> Z:
        if isinstance(container, ListV):
            return z3.Or(False, *(z3.And(m, equal(item, x, pos)) for x, m in container.items))
        if isinstance(container, BagV) and isinstance(item, CardV):
            return z3.Or(False, *(z3.And(item.term == i, c > 0) for i, c in enumerate(container.counts)))
        if isinstance(container, NoneV):
            return z3.BoolVal(False)
        raise Unsupported(pos, f"'in' on a {container.kind()}")

    def _e_IfExpr(self, node: s.IfExpr, env: Env) -> SVal:
        cond = self.boolean(node.cond, env)
        return merge(cond, self.expr(node.then, env), self.expr(node.other, env), node.pos)

    def _items(self, domain: SVal, pos: s.Pos) -> list[tuple[SVal, Z, Z]]:
        """(item, present, multiplicity) of a finite domain."""
        if isinstance(domain, ListV):
            return [(x, m, z3.IntVal(1)) for x, m in domain.items]
        if isinstance(domain, BagV):
            return self.backend.card_items(domain)
        if isinstance(domain, NoneV):
            return []
        raise Unsupported(pos, f"a {domain.kind()} is not a list")

    def _e_Quant(self, node: s.Quant, env: Env) -> SVal:
        items = self._items(self.expr(node.domain, env), node.pos)
        bodies = [(self.expr(node.body, {**env, node.var: x}), m, w) for x, m, w in items]
        kind = node.kind
        if kind == "all":
            return BoolV(z3.And(True, *(z3.Implies(m, self.truth(b, node.pos)) for b, m, _ in bodies)))
        if kind == "any":
            return BoolV(z3.Or(False, *(z3.And(m, self.truth(b, node.pos)) for b, m, _ in bodies)))
        if kind == "count":
            return IntV(z3.Sum(0, *(z3.If(z3.And(m, self.truth(b, node.pos)), w, 0) for b, m, w in bodies)))
        if kind == "sum":
            terms = []
            for b, m, w in bodies:
                v = self.integer(b, node.pos)
                if z3.is_int_value(w):  # an item of a list: counted when present
                    terms.append(z3.If(z3.And(m, z3.Not(v.none)), w * v.term, 0))
                else:  # a species of a bag: its multiplicity is 0 when absent
                    terms.append(z3.If(v.none, 0, w * v.term))
            return IntV(z3.Sum(0, *terms))
        return self._extreme(kind, bodies, node.pos)

    def _extreme(self, kind: str, bodies: list[tuple[SVal, Z, Z]], pos: s.Pos) -> SVal:
        """most / least: none when no item is present (as the engine's max/min of nothing)."""
        best: Z = z3.IntVal(0)
        found: Z = z3.BoolVal(False)
        for b, m, _ in bodies:
            v = self.integer(b, pos)
            present = z3.And(m, z3.Not(v.none))
            better = v.term > best if kind == "most" else v.term < best
            best = z3.If(z3.And(present, z3.Or(z3.Not(found), better)), v.term, best)
            found = z3.Or(found, present)
        return IntV(best, z3.Not(found))

    def _e_First(self, node: s.First, env: Env) -> SVal:
        domain = self.expr(node.domain, env)
        if isinstance(domain, ListV) and domain.orders:
            result: SVal = NoneV()
            for cond, ordered in reversed(domain.orders):
                result = merge(cond, self._first(node, ordered, env), result, node.pos)
            return result
        return self._first(node, domain, env)

    def _first(self, node: s.First, domain: SVal, env: Env) -> SVal:
        items = self._items(domain, node.pos)
        result: SVal = NoneV()
        for x, m, _ in reversed(items):
            cond = z3.And(m, self.boolean(node.cond, {**env, node.var: x}))
            result = merge(cond, x, result, node.pos)
        return result

    def _e_Filter(self, node: s.Filter, env: Env) -> SVal:
        domain = self.expr(node.domain, env)
        if isinstance(domain, BagV):
            items = self.backend.card_items(domain)
            counts = tuple(z3.If(self.boolean(node.cond, {**env, node.var: x}), c, 0)
                           for (x, _, c) in items)
            return BagV(counts)
        if isinstance(domain, ListV) and domain.orders:
            raise Unsupported(node.pos, "a filtered list whose order depends on the state")
        items = self._items(domain, node.pos)
        return ListV(tuple((x, z3.And(m, self.boolean(node.cond, {**env, node.var: x}))) for x, m, _ in items))


_ORDER: dict[str, Callable[[Z, Z], Z]] = {
    "<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
}
_ARITH: dict[str, Callable[[Z, Z], Z]] = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "//": lambda a, b: a / b, "%": lambda a, b: a % b,
}


def equal(a: SVal, b: SVal, pos: s.Pos) -> Z:
    """Python's == on the engine's values: none equals only none."""
    if isinstance(a, NoneV):
        return is_none(b)
    if isinstance(b, NoneV):
        return is_none(a)
    if (isinstance(a, IntV) and isinstance(b, IntV)) or (isinstance(a, StrV) and isinstance(b, StrV)):
        an, bn = a.none, b.none
        return z3.Or(z3.And(an, bn), z3.And(z3.Not(an), z3.Not(bn), a.term == b.term))
    for cls in (BoolV, PlayerV, CardV):
        if isinstance(a, cls) and isinstance(b, cls):
            return a.term == b.term
    if isinstance(a, PileV) and isinstance(b, PileV):
        return z3.BoolVal(a.name == b.name)
    raise Unsupported(pos, f"compares a {a.kind()} with a {b.kind()}")


def none_like(v: SVal) -> SVal:
    """The `none` of v's type."""
    if isinstance(v, IntV):
        return IntV(z3.IntVal(0), z3.BoolVal(True))
    if isinstance(v, StrV):
        return StrV(z3.StringVal(""), z3.BoolVal(True))
    if isinstance(v, PlayerV):
        return PlayerV(z3.IntVal(NONE_ID))
    if isinstance(v, CardV):
        return CardV(z3.IntVal(NONE_ID))
    if isinstance(v, ListV):
        return ListV(tuple((x, z3.BoolVal(False)) for x, _ in v.items))
    if isinstance(v, BagV):
        return BagV(tuple(z3.IntVal(0) for _ in v.counts))
    return v


def merge(cond: Z, a: SVal, b: SVal, pos: s.Pos) -> SVal:
    """`if cond then a else b` for two values of one type (none takes the other's type)."""
    if isinstance(a, NoneV) and isinstance(b, NoneV):
        return a
    if isinstance(a, NoneV):
        a = none_like(b)
    if isinstance(b, NoneV):
        b = none_like(a)
    if type(a) is not type(b):
        raise Unsupported(pos, f"'if' gives a {a.kind()} or a {b.kind()}")
    if isinstance(a, IntV) and isinstance(b, IntV):
        return IntV(z3.If(cond, a.term, b.term), z3.If(cond, a.none, b.none))
    if isinstance(a, StrV) and isinstance(b, StrV):
        return StrV(z3.If(cond, a.term, b.term), z3.If(cond, a.none, b.none))
    if isinstance(a, BoolV) and isinstance(b, BoolV):
        return BoolV(z3.If(cond, a.term, b.term))
    if isinstance(a, PlayerV) and isinstance(b, PlayerV):
        return PlayerV(z3.If(cond, a.term, b.term))
    if isinstance(a, CardV) and isinstance(b, CardV):
        return CardV(z3.If(cond, a.term, b.term))
    if isinstance(a, BagV) and isinstance(b, BagV):
        return BagV(tuple(z3.If(cond, x, y) for x, y in zip(a.counts, b.counts, strict=True)))
    if isinstance(a, ListV) and isinstance(b, ListV) and len(a.items) == len(b.items) \
            and not a.orders and not b.orders:
        return ListV(tuple((merge(cond, x, y, pos), z3.If(cond, m, n))
                           for (x, m), (y, n) in zip(a.items, b.items, strict=True)))
    if isinstance(a, PileV) and isinstance(b, PileV) and a.name == b.name:
        return a
    raise Unsupported(pos, f"'if' between two {a.kind()} values")
