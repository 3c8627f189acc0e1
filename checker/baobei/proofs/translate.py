"""Translate the rules' side-effect-free expressions to Z3 terms over a symbolic state.

The translator knows the language (literals, names, definitions, tables,
quantifiers, arithmetic, comparisons) and nothing of the game. What a builtin or
a state name means comes from its entry in the builtin registry
(`language/builtins.py`), whose `prove` part calls the `Symbolic` methods of the
model it is given: the distribution model of distribution.py or the card models
of placement.py. Anything a model cannot express raises `Unsupported`, which
makes a proof `unknown`, never `proved`.

Values mirror the engine's Python values: `none` is a sentinel (-1) for players
and cards and a separate flag for numbers, booleans and strings, so that
comparisons and equalities behave as the engine's generated code (engine/codegen.py)
does. Where the engine would stop (a zero divisor, a table without the row), the
translator records an `Obligation`, guarded by the condition under which the
engine evaluates that sub-expression at all (`and`, `or`, `if`, `all`, `any` and
`first` do not evaluate every operand).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import z3  # type: ignore[import-untyped]

from ..language import syntax as s
from ..language.builtins import BUILTINS, ENGINE_NAMES, STATE_NAMES, Builtin, NotProvable, Symbolic
from ..language.ruleset import Ruleset, Species
from ..language.walk import ExprVisitor, walk_expr
from . import terms as T
from .alive import term_id, value_id

Z = Any  # a z3 term (z3 ships no type information)
NONE_ID = -1  # the sentinel of a `none` player or card
TRUE: Z = T.TRUE
FALSE: Z = T.FALSE


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
    none: Z = field(default_factory=lambda: FALSE)


@dataclass(frozen=True)
class BoolV(SVal):
    """A boolean; a none boolean (an `if` giving none) has `term` false, so it is falsy as in Python."""

    term: Z
    none: Z = field(default_factory=lambda: FALSE)


@dataclass(frozen=True)
class StrV(SVal):
    term: Z
    none: Z = field(default_factory=lambda: FALSE)


@dataclass(frozen=True)
class PlayerV(SVal):
    term: Z  # seat number, NONE_ID for none


@dataclass(frozen=True)
class CardV(SVal):
    """A card of the distribution model: its species index, NONE_ID for none."""

    term: Z


@dataclass(frozen=True)
class SlotV(SVal):
    """A slot: the seat of its tableau (NONE_ID for none) and its number from 1. `card`, when known, is
    the number of the card that lies on it wherever the slot is present (a slot listed as a card's own)."""

    player: Z
    number: Z
    card: int | None = field(default=None, compare=False)


@dataclass(frozen=True)
class PlaceV(SVal):
    """A place cards lie in: a declared pile (by name) or a player's hand (`player` is the seat term)."""

    pile: str = ""
    player: Z | None = None


@dataclass(frozen=True)
class ListV(SVal):
    """A list of known length; each item is present when its Bool holds.

    `orders`, when given, says the items' order depends on the state: (condition, the
    list in that case) pairs, one of which holds. Quantifiers ignore the order; `first`
    and `if` use it.
    """

    items: tuple[tuple[SVal, Z], ...]
    orders: tuple[tuple[Z, ListV], ...] = ()
    unordered: bool = False  # the items' order is not the engine's (cards by slot number): no `first`


@dataclass(frozen=True)
class OpaqueV(SVal):
    """A list whose members the model does not keep (the cards of a tableau when the cards are free
    values): a question about it has an answer, but a fresh one, the same for the same question."""

    key: tuple[Any, ...]
    item: str  # the kind of its items: card, slot, player, str
    fresh: Callable[[tuple[Any, ...], str], SVal] = field(compare=False)
    made: Any = field(default=None, compare=False)  # the cards' layout epoch it was made at (store.FreeCards)

    def answer(self, what: tuple[Any, ...], kind: str) -> SVal:
        return self.fresh((*self.key, *what), kind)


@dataclass(frozen=True)
class SlotSetV(SVal):
    """The free slots of a tableau: a set with no bound on its members (slot numbers grow as cards are
    added), known by its size and by who belongs to it. `in` and `size` read it; a quantifier cannot."""

    owner: Z
    count: Z
    member: Callable[[SVal], Z] = field(compare=False)


@dataclass(frozen=True)
class BagV(SVal):
    """A multiset of cards by species: one count per species of the deck."""

    counts: tuple[Z, ...]


def is_none(v: SVal) -> Z:
    if isinstance(v, NoneV):
        return TRUE
    if isinstance(v, (IntV, StrV, BoolV)):
        return v.none
    if isinstance(v, (PlayerV, CardV)):
        return T.eq(v.term, NONE_ID)
    if isinstance(v, SlotV):
        return T.eq(v.player, NONE_ID)
    return FALSE


def _surely_present(v: SVal) -> bool:
    """Whether v is not none, as far as can be told without asking Z3 (a shortcut, never a guess)."""
    if isinstance(v, (IntV, StrV, BoolV)):
        return T.is_false(v.none)
    if isinstance(v, (PlayerV, CardV)):
        return T.value(v.term) not in (None, NONE_ID)
    if isinstance(v, SlotV):
        return T.value(v.player) not in (None, NONE_ID)
    return not isinstance(v, NoneV)


def ival(n: int) -> IntV:
    return IntV(T.num(n))


def lift(value: int | str | bool | None) -> SVal:
    """A Python constant (a literal, a deck fact, a builtin's none value) as a symbolic value."""
    if value is None:
        return NoneV()
    if isinstance(value, bool):
        return BoolV(T.boolean(value))
    if isinstance(value, int):
        return ival(value)
    return StrV(z3.StringVal(value))


def species_fact(sp: Species, fact: str) -> int | str | bool:
    """A card fact of the builtin registry (`card_fact`), read from the species' declaration."""
    facts: dict[str, int | str | bool] = {"value": sp.value, "family": sp.family, "species": sp.name,
                                          "has_ability": sp.ability is not None}
    return facts[fact]


# ---------------------------------------------------------------- symbolic models


class SymbolicModel:
    """The base of the symbolic states: implements `language.builtins.Symbolic`.

    Every method a model does not override raises `Unsupported`, naming the model and the
    primitive, so that a proof needing it is `unknown`. The pure primitives (min, max, abs) are
    defined here once. Besides the builtins, the translator asks a model for the rules' variables
    and for the items of a bag of cards.
    """

    what = "symbolic model"

    def string(self, text: str) -> Z:
        """The term of a string constant (a literal, a deck fact); a model may encode strings as numbers."""
        return z3.StringVal(text)

    def missing(self, primitive: str, pos: s.Pos) -> Unsupported:
        return Unsupported(pos, f"the {self.what} has no primitive {primitive!r}")

    # ------------------------------------------------------------ pure
    def minmax(self, a: SVal, b: SVal, smaller: bool, pos: s.Pos) -> SVal:
        x, y = integer(a, pos), integer(b, pos)
        pick = T.lt(x.term, y.term) if smaller else T.gt(x.term, y.term)
        return IntV(T.ite(pick, x.term, y.term), T.or_(x.none, y.none))

    def absolute(self, a: SVal, pos: s.Pos) -> SVal:
        x = integer(a, pos)
        return IntV(T.ite(T.lt(x.term, 0), -x.term, x.term), x.none)

    # ------------------------------------------------------------ beyond the builtins
    def variable(self, decl: s.VarDecl, index: SVal | None, pos: s.Pos) -> SVal:
        raise Unsupported(pos, f"the {self.what} has no value for the variable {decl.name!r}")

    def card_items(self, bag: BagV, pos: s.Pos) -> list[tuple[SVal, Z, Z]]:
        """(card, present, multiplicity) for iterating over a bag of cards."""
        raise Unsupported(pos, f"the {self.what} has no bags of cards")

    # ------------------------------------------------------------ the rest of the protocol
    def card_fact(self, card: SVal, fact: str, pos: s.Pos) -> SVal:
        raise self.missing(fact, pos)

    def card_at(self, slot: SVal, pos: s.Pos) -> SVal:
        raise self.missing("card_at", pos)

    def owner(self, slot: SVal, pos: s.Pos) -> SVal:
        raise self.missing("owner", pos)

    def slot_no(self, slot: SVal, pos: s.Pos) -> SVal:
        raise self.missing("slot_no", pos)

    def occupied(self, slot: SVal, pos: s.Pos) -> SVal:
        raise self.missing("occupied", pos)

    def make_slot(self, player: SVal, number: SVal, pos: s.Pos) -> SVal:
        raise self.missing("slot", pos)

    def cards(self, player: SVal, pos: s.Pos) -> SVal:
        raise self.missing("cards", pos)

    def slots(self, player: SVal, free: bool, pos: s.Pos) -> SVal:
        raise self.missing("free_slots" if free else "slots", pos)

    def added_slot(self, player: SVal, preferred: SVal, pos: s.Pos) -> SVal:
        raise self.missing("free_slot", pos)

    def size(self, value: SVal, pos: s.Pos) -> SVal:
        raise self.missing("size", pos)

    def top(self, place: SVal, pos: s.Pos) -> SVal:
        raise self.missing("top", pos)

    def hand(self, player: SVal, pos: s.Pos) -> SVal:
        raise self.missing("hand", pos)

    def held(self, player: SVal, pos: s.Pos) -> SVal:
        raise self.missing("held", pos)

    def seats(self, player: SVal, include_self: bool, pos: s.Pos) -> SVal:
        raise self.missing("seats_from" if include_self else "seats_after", pos)

    def knows(self, player: SVal, card: SVal, pos: s.Pos) -> SVal:
        raise self.missing("knows", pos)

    def marked(self, card: SVal, mark: SVal, pos: s.Pos) -> SVal:
        raise self.missing("marked", pos)

    def protected(self, player: SVal, pos: s.Pos) -> SVal:
        raise self.missing("protected", pos)

    def places(self, card: SVal, pos: s.Pos) -> SVal:
        raise self.missing("places", pos)

    def players(self, pos: s.Pos) -> SVal:
        raise self.missing("players", pos)

    def deck(self, pos: s.Pos) -> SVal:
        raise self.missing("deck", pos)

    def player_count(self, pos: s.Pos) -> SVal:
        raise self.missing("player_count", pos)

    def seat_count(self, pos: s.Pos) -> SVal:
        raise self.missing("seat_count", pos)

    def state(self, name: str, kind: str, pos: s.Pos) -> SVal:
        raise Unsupported(pos, f"the {self.what} has no value for {name!r}")


if TYPE_CHECKING:
    def _implements_symbolic(model: SymbolicModel) -> Symbolic:
        return model  # mypy checks here that the base class has every method of the protocol


# ---------------------------------------------------------------- translator


@dataclass
class Obligation:
    """A condition the engine needs to evaluate the expression at all (a table row exists, a divisor
    is not zero); `holds` is already guarded by when the engine evaluates that sub-expression."""

    holds: Z
    broken: str  # what goes wrong when it does not hold


@dataclass(frozen=True)
class Scope:
    """What a sub-expression sees: the local names, and when the engine evaluates it at all."""

    names: Mapping[str, SVal]
    guard: Z = TRUE

    def bind(self, name: str, value: SVal) -> Scope:
        return Scope({**self.names, name: value}, self.guard)

    def under(self, cond: Z) -> Scope:
        return Scope(self.names, T.and_(self.guard, cond))


class Translator(ExprVisitor[SVal, Scope]):
    """Expressions -> SVal, definitions inlined with their arguments."""

    def __init__(self, rules: Ruleset, model: SymbolicModel) -> None:
        self.rules = rules
        self.model = model
        self.obligations: list[Obligation] = []
        # Translated definition calls by name and arguments (z3 terms compare and hash structurally).
        self._calls: dict[tuple[object, ...], tuple[SVal, list[Obligation]]] = {}

    # ------------------------------------------------------------ entry points
    def expr(self, node: s.Expr, names: Mapping[str, SVal] | None = None) -> SVal:
        return self.visit(node, Scope(names or {}))

    def boolean(self, node: s.Expr, names: Mapping[str, SVal] | None = None) -> Z:
        return truth(self.expr(node, names), node.pos)

    def define(self, name: str, args: Sequence[SVal], pos: s.Pos, guard: Z = TRUE) -> SVal:
        decl = self.rules.defines[name]
        formals = decl.formals or ()
        if len(formals) != len(args):
            raise Unsupported(pos, f"{name!r} takes {len(formals)} argument(s)")
        # Lexical scope: the body sees its formals only, not the caller's local names.
        names = {f.name: a for f, a in zip(formals, args, strict=True)}
        return self._translated((name, *args), decl.body, names, guard)

    def _translated(self, key: tuple[object, ...], body: s.Expr, names: dict[str, SVal], guard: Z) -> SVal:
        """A definition's body for these arguments, translated once (the rules call the same one many
        times); its obligations are kept apart and hold wherever the call is evaluated."""
        if key not in self._calls:
            outer, self.obligations = self.obligations, []
            try:
                value = self.visit(body, Scope(names))
            finally:
                inner, self.obligations = self.obligations, outer
            self._calls[key] = (value, inner)
        value, needs = self._calls[key]
        self.obligations += [Obligation(T.implies(guard, o.holds), o.broken) for o in needs]
        return value

    def oblige(self, scope: Scope, holds: Z, broken: str) -> None:
        self.obligations.append(Obligation(T.implies(scope.guard, holds), broken))

    # ------------------------------------------------------------ leaves
    def lit(self, node: s.Lit, scope: Scope) -> SVal:
        if isinstance(node.value, str):
            return StrV(self.model.string(node.value))
        return lift(node.value)

    def name(self, node: s.Name, scope: Scope) -> SVal:
        name = node.name
        if name in scope.names:
            return scope.names[name]
        if name in STATE_NAMES:
            return self.builtin(STATE_NAMES[name], [], node.pos)
        if name in self.rules.piles:
            return PlaceV(pile=name)
        if name in ENGINE_NAMES:
            raise Unsupported(node.pos, f"{name!r} is bound only while a rule runs")
        var = self.rules.variables.get(name)
        if var is not None:
            if var.per_player:
                raise Unsupported(node.pos, f"{name!r} holds one value per player")
            return self.model.variable(var, None, node.pos)
        if name in self.rules.defines:
            return self.define(name, (), node.pos, scope.guard)
        raise Unsupported(node.pos, f"unknown name {name!r}")

    # ------------------------------------------------------------ calls and lookups
    def call(self, node: s.Call, scope: Scope) -> SVal:
        args = [self.visit(a, scope) for a in node.args]
        if node.func in self.rules.defines:
            return self.define(node.func, args, node.pos, scope.guard)
        builtin = BUILTINS.get(node.func)
        if builtin is None or builtin.arity != len(args):
            raise Unsupported(node.pos, f"unknown function {node.func!r} with {len(args)} argument(s)")
        return self.builtin(builtin, args, node.pos)

    def builtin(self, builtin: Builtin, args: list[SVal], pos: s.Pos) -> SVal:
        """The registry's translation; a none argument gives the entry's none value, as in the engine."""
        prove = builtin.prove
        if isinstance(prove, NotProvable):
            raise Unsupported(pos, f"{builtin.name!r} has no Z3 translation: {prove.reason}")
        if not builtin.total and any(isinstance(a, NoneV) for a in args):
            return lift(builtin.none_value) if not isinstance(builtin.none_value, list) else ListV(())
        result = prove(self.model, pos, *args)
        if not isinstance(result, SVal):
            raise TypeError(f"the translation of {builtin.name!r} gave {result!r}, not a symbolic value")
        maybe_none = [a for a in args if not _surely_present(a)]
        if builtin.total or not maybe_none:
            return result
        absent = T.or_(FALSE, *(is_none(a) for a in maybe_none))
        if T.is_false(absent):
            return result
        none = none_like(result) if isinstance(builtin.none_value, list) else lift(builtin.none_value)
        return merge(absent, none, result, pos)

    def index(self, node: s.Index, scope: Scope) -> SVal:
        index = self.visit(node.index, scope)
        base = node.base
        if isinstance(base, s.Name) and base.name not in scope.names:
            if base.name in self.rules.tables:
                return self._table(base.name, index, scope, node.pos)
            var = self.rules.variables.get(base.name)
            if var is not None and var.per_player:
                return self.model.variable(var, index, node.pos)
        raise Unsupported(node.pos, "indexing is supported for tables and per-player variables")

    def _table(self, name: str, index: SVal, scope: Scope, pos: s.Pos) -> SVal:
        """A table lookup; a missing row is an obligation (the engine refuses such a round)."""
        key = integer(index, pos).term
        table = self.rules.tables[name]
        result: Z = T.num(0)
        defined: Z = FALSE
        for row in reversed(table.rows):
            inside = T.and_(T.ge(key, row.low), T.le(key, row.high))
            result = T.ite(inside, T.num(row.value), result)
            defined = T.or_(inside, defined)
        shown = T.value(key)
        where = f"{shown} players" if shown is not None else "this index"
        self.oblige(scope, defined, f"table {name} ({table.cite}) has no row for {where}")
        return IntV(result)

    # ------------------------------------------------------------ operators
    def unary(self, node: s.Unary, scope: Scope) -> SVal:
        inner = self.visit(node.operand, scope)
        if node.op == "not":
            return BoolV(T.not_(truth(inner, node.pos)))
        v = integer(inner, node.pos)
        return IntV(-v.term, v.none)

    def binary(self, node: s.Binary, scope: Scope) -> SVal:
        op = node.op
        left = self.visit(node.left, scope)
        if op in ("and", "or"):
            a = truth(left, node.pos)
            # The engine evaluates the right operand only when the left one does not decide.
            b = truth(self.visit(node.right, scope.under(a if op == "and" else T.not_(a))), node.pos)
            return BoolV(T.and_(a, b) if op == "and" else T.or_(a, b))
        right = self.visit(node.right, scope)
        if op == "==":
            return BoolV(equal(left, right, node.pos))
        if op == "!=":
            return BoolV(T.not_(equal(left, right, node.pos)))
        if op == "in":
            return BoolV(self._member(left, right, node.pos))
        a, b = integer(left, node.pos), integer(right, node.pos)
        both = T.and_(T.not_(a.none), T.not_(b.none))
        order = _ORDER.get(op)
        if order is not None:
            return BoolV(T.and_(both, order(a.term, b.term)))
        if op in ("//", "%"):
            # Arithmetic on none gives none before dividing: only two numbers can divide by zero.
            self.oblige(scope, T.implies(both, T.ne(b.term, 0)), f"{node.pos}: division by zero")
        return IntV(_ARITH[op](a.term, b.term), T.not_(both))

    def _member(self, item: SVal, container: SVal, pos: s.Pos) -> Z:
        if isinstance(container, ListV):
            return T.or_(False, *(T.and_(m, equal(item, x, pos)) for x, m in container.items))
        if isinstance(container, BagV) and isinstance(item, CardV):
            return T.or_(False, *(T.and_(T.eq(item.term, i), T.gt(c, 0)) for i, c in enumerate(container.counts)))
        if isinstance(container, SlotSetV):
            return container.member(item)
        if isinstance(container, OpaqueV):
            return truth(container.answer(("in", _ident(item)), "bool"), pos)
        if isinstance(container, NoneV):
            return FALSE
        raise Unsupported(pos, f"'in' on a {container.kind()}")

    def if_expr(self, node: s.IfExpr, scope: Scope) -> SVal:
        cond = truth(self.visit(node.cond, scope), node.pos)
        then = self.visit(node.then, scope.under(cond))
        other = self.visit(node.other, scope.under(T.not_(cond)))
        return merge(cond, then, other, node.pos)

    # ------------------------------------------------------------ binders
    def _items(self, domain: SVal, pos: s.Pos) -> list[tuple[SVal, Z, Z]]:
        """(item, present, multiplicity) of a finite domain."""
        if isinstance(domain, ListV):
            return [(x, m, T.num(1)) for x, m in domain.items]
        if isinstance(domain, BagV):
            return self.model.card_items(domain, pos)
        if isinstance(domain, NoneV):
            return []
        raise Unsupported(pos, f"a {domain.kind()} is not a list")

    @staticmethod
    def _in_order(domain: SVal) -> bool:
        """Whether the items are in the order the engine visits them (so short-circuits can be followed)."""
        return isinstance(domain, ListV) and not domain.orders and not domain.unordered

    def quant(self, node: s.Quant, scope: Scope) -> SVal:
        domain = self.visit(node.domain, scope)
        if isinstance(domain, OpaqueV):
            kind = "bool" if node.kind in ("all", "any") else "int"
            if _pure(node.body, frozenset({node.var}), frozenset(self.rules.defines)):
                # Read by nothing but its item and the deck's facts (a round value): the answer depends on the
                # list alone, so the store may keep it while the list is unchanged (FreeCards.answer).
                return domain.answer((PURE, node.kind, value_id(node)), kind)
            return domain.answer((node.kind, value_id(node), *_scope_idents(scope)), kind)
        items = self._items(domain, node.pos)
        kind = node.kind
        if kind in ("all", "any"):
            return BoolV(self._all_any(node, items, self._in_order(domain), scope))
        bodies = [(self.visit(node.body, scope.under(m).bind(node.var, x)), m, w) for x, m, w in items]
        if kind == "count":
            return IntV(T.total([T.ite(T.and_(m, truth(b, node.pos)), w, 0) for b, m, w in bodies]))
        if kind == "sum":
            terms = []
            for b, m, w in bodies:
                v = integer(b, node.pos)
                if T.value(w) is not None:  # an item of a list: counted when present
                    terms.append(T.ite(T.and_(m, T.not_(v.none)), w * v.term, 0))
                else:  # a species of a bag: its multiplicity is 0 when absent
                    terms.append(T.ite(v.none, 0, w * v.term))
            return IntV(T.total(terms))
        return _extreme(kind, bodies, node.pos)

    def _all_any(self, node: s.Quant, items: list[tuple[SVal, Z, Z]], in_order: bool, scope: Scope) -> Z:
        """all / any, stopping where the engine stops: an item is evaluated only while none decided.
        Without a known order every item counts as evaluated (more obligations, never fewer)."""
        want = node.kind == "all"
        going: Z = TRUE  # no earlier item decided
        parts: list[Z] = []
        for x, m, _ in items:
            inner = scope.under(T.and_(m, going) if in_order else m)
            t = truth(self.visit(node.body, inner.bind(node.var, x)), node.pos)
            parts.append(T.implies(m, t) if want else T.and_(m, t))
            going = T.and_(going, T.implies(m, t if want else T.not_(t)))
        return T.and_(True, *parts) if want else T.or_(False, *parts)

    def first(self, node: s.First, scope: Scope) -> SVal:
        domain = self.visit(node.domain, scope)
        if isinstance(domain, OpaqueV):
            return domain.answer(("first", value_id(node), *_scope_idents(scope)), domain.item)
        if isinstance(domain, ListV) and domain.orders:
            result: SVal = NoneV()
            for cond, ordered in reversed(domain.orders):
                result = merge(cond, self._first(node, ordered, scope.under(cond)), result, node.pos)
            return result
        return self._first(node, domain, scope)

    def _first(self, node: s.First, domain: SVal, scope: Scope) -> SVal:
        """The first present item whose condition holds; later items are evaluated only until then."""
        if isinstance(domain, ListV) and domain.unordered:
            raise Unsupported(node.pos, "'first' over a list whose order the symbolic store does not keep")
        items = self._items(domain, node.pos)
        in_order = self._in_order(domain)
        found: Z = FALSE
        chosen: list[tuple[Z, SVal]] = []
        for x, m, _ in items:
            inner = scope.under(T.and_(m, T.not_(found)) if in_order else m)
            hit = T.and_(m, truth(self.visit(node.cond, inner.bind(node.var, x)), node.pos))
            chosen.append((hit, x))
            found = T.or_(found, hit)
        result: SVal = NoneV()
        for hit, x in reversed(chosen):
            result = merge(hit, x, result, node.pos)
        return result

    def old(self, node: s.Old, scope: Scope) -> SVal:
        raise Unsupported(node.pos, "old(...) reads the state before a move; these models judge one state")

    def filter(self, node: s.Filter, scope: Scope) -> SVal:
        domain = self.visit(node.domain, scope)
        if isinstance(domain, OpaqueV):
            return OpaqueV((*domain.key, "where", value_id(node), *_scope_idents(scope)), domain.item, domain.fresh,
                           domain.made)
        if isinstance(domain, BagV):
            items = self.model.card_items(domain, node.pos)
            counts = tuple(T.ite(self._keeps(node, x, T.gt(c, 0), scope), c, 0) for (x, _, c) in items)
            return BagV(counts)
        if isinstance(domain, ListV) and domain.orders:
            raise Unsupported(node.pos, "a filtered list whose order depends on the state")
        items = self._items(domain, node.pos)
        return ListV(tuple((x, T.and_(m, self._keeps(node, x, m, scope))) for x, m, _ in items))

    def _keeps(self, node: s.Filter, item: SVal, present: Z, scope: Scope) -> Z:
        return truth(self.visit(node.cond, scope.under(present).bind(node.var, item)), node.pos)


def _ident(v: SVal) -> tuple[Any, ...]:
    """A value's terms by identity (a key of the fresh answers an opaque list gives)."""
    out: list[Any] = [type(v).__name__]
    for f in ("term", "none", "player", "number"):
        x = getattr(v, f, None)
        if x is not None and hasattr(x, "get_id"):
            out.append(term_id(x))
    return tuple(out)


PURE = "pure"  # marks a question about an opaque list whose answer depends on the list alone


def _pure(node: s.Expr, bound: frozenset[str], defines: frozenset[str]) -> bool:
    """Whether an expression reads nothing but the names `bound` and the deck's facts of cards (no state, no
    definition, no other name): its value is a function of those names alone. A definition named like a
    fact of the deck is the definition (it wins over the builtin), and it may read the state."""
    for sub in walk_expr(node):
        if isinstance(sub, s.Name) and sub.name not in bound:
            return False
        if isinstance(sub, s.Call) and (sub.func in defines or not (sub.func in BUILTINS and BUILTINS[sub.func].fact)):
            return False
        if not isinstance(sub, s.Lit | s.Name | s.Call | s.Unary | s.Binary | s.IfExpr):
            return False
    return True


def _scope_idents(scope: Scope) -> tuple[Any, ...]:
    return tuple((name, _ident(v)) for name, v in sorted(scope.names.items()))


def _extreme(kind: str, bodies: list[tuple[SVal, Z, Z]], pos: s.Pos) -> SVal:
    """most / least: none when no item is present (as the engine's max/min of nothing)."""
    best: Z = T.num(0)
    found: Z = FALSE
    for b, m, _ in bodies:
        v = integer(b, pos)
        present = T.and_(m, T.not_(v.none))
        better = T.gt(v.term, best) if kind == "most" else T.lt(v.term, best)
        best = T.ite(T.and_(present, T.or_(T.not_(found), better)), v.term, best)
        found = T.or_(found, present)
    return IntV(best, T.not_(found))


def floor_div(a: Z, b: Z) -> Z:
    """language/arith.py's floor division in SMT terms: SMT's `div` rounds so that the remainder is
    never negative, which is the floor for a positive divisor; a negative one is negated away."""
    return T.ite(T.gt(b, 0), a / b, (-a) / (-b))


def floor_mod(a: Z, b: Z) -> Z:
    return a - b * floor_div(a, b)


_ORDER: dict[str, Callable[[Z, Z], Z]] = {"<": T.lt, "<=": T.le, ">": T.gt, ">=": T.ge}
_ARITH: dict[str, Callable[[Z, Z], Z]] = {
    "+": T.add, "-": lambda a, b: a - b, "*": lambda a, b: a * b, "//": floor_div, "%": floor_mod,
}


# ---------------------------------------------------------------- value helpers


def truth(v: SVal, pos: s.Pos) -> Z:
    """A value as a condition: a boolean, or none (false)."""
    if isinstance(v, BoolV):
        return v.term
    if isinstance(v, NoneV):
        return FALSE
    raise Unsupported(pos, f"a {v.kind()} used as a condition")


def integer(v: SVal, pos: s.Pos) -> IntV:
    if isinstance(v, IntV):
        return v
    if isinstance(v, NoneV):
        return IntV(T.num(0), TRUE)
    raise Unsupported(pos, f"a {v.kind()} used as a number")


def _flagged_equal(a: IntV | StrV | BoolV, b: IntV | StrV | BoolV) -> Z:
    an, bn = a.none, b.none
    return T.or_(T.and_(an, bn), T.and_(T.not_(an), T.not_(bn), T.eq(a.term, b.term)))


def equal(a: SVal, b: SVal, pos: s.Pos) -> Z:
    """Python's == on the engine's values: none equals only none."""
    if isinstance(a, NoneV):
        return is_none(b)
    if isinstance(b, NoneV):
        return is_none(a)
    same = type(a) is type(b)
    if same and isinstance(a, (IntV, StrV, BoolV)) and isinstance(b, (IntV, StrV, BoolV)):
        return _flagged_equal(a, b)
    if same and isinstance(a, (PlayerV, CardV)) and isinstance(b, (PlayerV, CardV)):
        return T.eq(a.term, b.term)
    if isinstance(a, SlotV) and isinstance(b, SlotV):
        return T.and_(T.eq(a.player, b.player), T.or_(T.eq(a.player, NONE_ID), T.eq(a.number, b.number)))
    if isinstance(a, PlaceV) and isinstance(b, PlaceV):
        return _same_place(a, b)
    raise Unsupported(pos, f"compares a {a.kind()} with a {b.kind()}")


def _same_place(a: PlaceV, b: PlaceV) -> Z:
    if a.player is None or b.player is None:
        return T.boolean(a.player is None and b.player is None and a.pile == b.pile)
    return T.eq(a.player, b.player)


def none_like(v: SVal) -> SVal:
    """The `none` of v's type (for a list: the list without items)."""
    if isinstance(v, IntV):
        return IntV(T.num(0), TRUE)
    if isinstance(v, StrV):
        # The sort of the string encoding the value's model uses (a string, or a number of an enumeration).
        return StrV(T.num(0) if isinstance(v.term, z3.ArithRef) else z3.StringVal(""), TRUE)
    if isinstance(v, BoolV):
        return BoolV(FALSE, TRUE)
    if isinstance(v, PlayerV):
        return PlayerV(T.num(NONE_ID))
    if isinstance(v, CardV):
        return CardV(T.num(NONE_ID))
    if isinstance(v, SlotV):
        return SlotV(T.num(NONE_ID), T.num(0))
    if isinstance(v, ListV):
        return ListV(tuple((x, FALSE) for x, _ in v.items), unordered=v.unordered)
    if isinstance(v, BagV):
        return BagV(tuple(T.num(0) for _ in v.counts))
    if isinstance(v, SlotSetV):
        return SlotSetV(T.num(NONE_ID), T.num(0), lambda item: FALSE)
    if isinstance(v, PlaceV) and v.player is not None:
        return PlaceV(player=T.num(NONE_ID))
    return v


def merge(cond: Z, a: SVal, b: SVal, pos: s.Pos) -> SVal:
    """`if cond then a else b` for two values of one type (none takes the other's type)."""
    if isinstance(a, NoneV) and isinstance(b, NoneV):
        return a
    if isinstance(a, NoneV):
        a = none_like(b)
    if isinstance(b, NoneV):
        b = none_like(a)
    if isinstance(a, OpaqueV) or isinstance(b, OpaqueV):
        return _merge_opaque(cond, a, b)
    if type(a) is not type(b):
        raise Unsupported(pos, f"'if' gives a {a.kind()} or a {b.kind()}")
    if isinstance(a, (IntV, StrV, BoolV)):
        assert isinstance(b, (IntV, StrV, BoolV))
        return type(a)(T.ite(cond, a.term, b.term), T.ite(cond, a.none, b.none))
    if isinstance(a, (PlayerV, CardV)):
        assert isinstance(b, (PlayerV, CardV))
        return type(a)(T.ite(cond, a.term, b.term))
    if isinstance(a, SlotV) and isinstance(b, SlotV):
        return SlotV(T.ite(cond, a.player, b.player), T.ite(cond, a.number, b.number))
    if isinstance(a, BagV) and isinstance(b, BagV):
        return BagV(tuple(T.ite(cond, x, y) for x, y in zip(a.counts, b.counts, strict=True)))
    if isinstance(a, ListV) and isinstance(b, ListV):
        return _merge_lists(cond, a, b, pos)
    if isinstance(a, PlaceV) and isinstance(b, PlaceV):
        return _merge_places(cond, a, b, pos)
    if isinstance(a, SlotSetV) and isinstance(b, SlotSetV):
        first, second = a, b
        return SlotSetV(T.ite(cond, a.owner, b.owner), T.ite(cond, a.count, b.count),
                        lambda item: T.ite(cond, first.member(item), second.member(item)))
    raise Unsupported(pos, f"'if' between two {a.kind()} values")


def _merge_opaque(cond: Z, a: SVal, b: SVal) -> OpaqueV:
    """`if` between lists one of which the model does not keep: a list it does not keep either."""
    known = a if isinstance(a, OpaqueV) else b
    assert isinstance(known, OpaqueV)
    if isinstance(a, OpaqueV) and isinstance(b, OpaqueV) and a.key == b.key and _same_epoch(a.made, b.made):
        return a  # one list: the same question, asked of the same layout
    return OpaqueV(("if", term_id(cond), _ident(a), _ident(b), value_id(a), value_id(b)), known.item, known.fresh)


def _same_epoch(a: Any, b: Any) -> bool:
    """Whether two lists of one tableau were made at one layout: a list made after one branch moved a card is
    another list, and answering it as the other would assume the old layout on that branch."""
    return a is b or (a is not None and b is not None and a.get_id() == b.get_id())


def _merge_lists(cond: Z, a: ListV, b: ListV, pos: s.Pos) -> ListV:
    """Two lists of the same items (seats, say): each item present as the chosen list says; the
    order, when either list's depends on the state, is the chosen list's."""
    if len(a.items) != len(b.items):
        raise Unsupported(pos, "'if' between lists of different lengths")
    items = tuple((merge(cond, x, y, pos), T.ite(cond, m, n)) for (x, m), (y, n) in zip(a.items, b.items, strict=True))
    if not a.orders and not b.orders:
        return ListV(items, unordered=a.unordered or b.unordered)
    orders = tuple((T.and_(cond, c), lst) for c, lst in (a.orders or ((TRUE, a),)))
    orders += tuple((T.and_(T.not_(cond), c), lst) for c, lst in (b.orders or ((TRUE, b),)))
    return ListV(items, orders)


def _merge_places(cond: Z, a: PlaceV, b: PlaceV, pos: s.Pos) -> PlaceV:
    if a.player is None and b.player is None and a.pile == b.pile:
        return a
    if a.player is not None and b.player is not None:
        return PlaceV(player=T.ite(cond, a.player, b.player))
    raise Unsupported(pos, "'if' between a pile and a hand")
