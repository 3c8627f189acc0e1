"""The kind of value an expression gives — player, card, slot, place, int, bool, str, list of ... —
inferred from the rules and the builtin registry where it can be told, None where it cannot.

Players and cards are both numbers inside the engine; kinds keep them apart: the checker
refuses a builtin given an argument of the wrong kind (`value(active)`), and a scenario's
expectation reads a number back as the player or the card it stands for.
"""

from __future__ import annotations

from . import syntax as s
from .builtins import BUILTINS, ENGINE_NAMES, STATE_NAMES
from .ruleset import Ruleset
from .walk import ExprVisitor

# Declared list types, as value kinds.
LIST_TYPES = {"players": "list player", "cards": "list card"}

# Parameter kinds of moves, as value kinds.
PARAM_KINDS = {"slot": "slot", "own_slot": "slot", "free_slot": "slot", "player": "player", "bool": "bool",
               "held_card": "card"}

_BOOL_OPS = ("and", "or", "in", "==", "!=", "<", "<=", ">", ">=")
# Operators that read numbers: the arithmetic, and the orderings (which give true or false).
ARITH_OPS = ("+", "-", "*", "//", "%")
ORDER_OPS = ("<", "<=", ">", ">=")
# The kind of a pile or a hand: a place cards lie in.
PLACE = "place"
Kinds = dict[str, str]


def declared_kind(type_name: str) -> str:
    """The kind of a value declared with this type (`players` is a list of players)."""
    return LIST_TYPES.get(type_name, type_name)


def element(kind: str | None) -> str | None:
    """The kind of a list's items (None when the list's kind is unknown)."""
    return kind.removeprefix("list ") if kind and kind.startswith("list ") else None


def formal_kinds(formals: tuple[s.Formal, ...] | None) -> Kinds:
    return {f.name: declared_kind(f.type) for f in formals or ()}


def compatible(expected: str, got: str | None) -> bool:
    """An argument fits unless both kinds are known and differ (a hand and a pile are both places)."""
    return got is None or got == "" or expected == "" or expected == got


def fits(wanted: tuple[str, ...], got: str | None) -> bool:
    """A value fits one of several kinds (a card goes to a slot or a place) unless its kind is known and none."""
    return any(compatible(kind, got) for kind in wanted)


def is_collection(kind: str | None) -> bool:
    """Whether a value of this kind holds items to range over, count or look in: a list, or a pile or hand
    (a place); an unknown kind may."""
    return not kind or kind.startswith("list ") or kind == PLACE


def comparable(a: str | None, b: str | None) -> bool:
    """Whether `==` can ever hold between values of these kinds: the same kind, or a kind not known."""
    return compatible(a or "", b)


def a_kind(kind: str | None) -> str:
    """A kind as a message names it, with its article: "an int", "a list of players"."""
    if not kind:
        return "a value of unknown kind"
    items = element(kind)
    if items is not None:
        return f"a list of {items}s"
    return f"{'an' if kind[0] in 'aeiou' else 'a'} {kind}"


def any_of(kinds: tuple[str, ...]) -> str:
    """Alternatives as a message names them: "a slot or a place"."""
    return " or ".join(a_kind(kind) for kind in kinds)


class KindOf(ExprVisitor[str | None, Kinds]):
    """kind_of as a visitor: `env` gives the kinds of local names ("" when unknown)."""

    def __init__(self, rules: Ruleset) -> None:
        self.rules = rules

    def lit(self, node: s.Lit, env: Kinds) -> str | None:
        return None if node.value is None else type(node.value).__name__

    def name(self, node: s.Name, env: Kinds) -> str | None:
        name = node.name
        if name in env:
            return env[name] or None
        var = self.rules.variables.get(name)
        if var is not None:
            return declared_kind(var.type)
        define = self.rules.defines.get(name)
        if define is not None and not define.formals:
            return self.visit(define.body, {})
        if name in self.rules.piles:
            return PLACE
        if name in STATE_NAMES:
            return STATE_NAMES[name].result
        return ENGINE_NAMES.get(name)

    def call(self, node: s.Call, env: Kinds) -> str | None:
        define = self.rules.defines.get(node.func)
        if define is not None:
            return self.visit(define.body, formal_kinds(define.formals))
        builtin = BUILTINS.get(node.func)
        return builtin.result if builtin is not None else None

    def index(self, node: s.Index, env: Kinds) -> str | None:
        if isinstance(node.base, s.Name) and node.base.name not in env:
            if node.base.name in self.rules.tables:
                return "int"
            var = self.rules.variables.get(node.base.name)
            if var is not None and var.per_player:
                return declared_kind(var.type)
        return element(self.visit(node.base, env))

    def unary(self, node: s.Unary, env: Kinds) -> str | None:
        return "bool" if node.op == "not" else "int"

    def binary(self, node: s.Binary, env: Kinds) -> str | None:
        return "bool" if node.op in _BOOL_OPS else "int"

    def if_expr(self, node: s.IfExpr, env: Kinds) -> str | None:
        return self.visit(node.then, env) or self.visit(node.other, env)

    def quant(self, node: s.Quant, env: Kinds) -> str | None:
        fixed = {"all": "bool", "any": "bool", "sum": "int", "count": "int"}.get(node.kind)
        return fixed or self.visit(node.body, bound(self, node, env))

    def first(self, node: s.First, env: Kinds) -> str | None:
        return element(self.visit(node.domain, env))

    def filter(self, node: s.Filter, env: Kinds) -> str | None:
        domain = self.visit(node.domain, env)
        return "list card" if domain == PLACE else domain  # the cards of a pile or hand that pass: a list

    def old(self, node: s.Old, env: Kinds) -> str | None:
        return self.visit(node.expr, env)  # the same kind of value, read in the state before the move


def bound(kinds: KindOf, node: s.Binder, env: Kinds) -> Kinds:
    """The kinds inside a quantifier, filter or `first`: its variable is an item of the domain."""
    return {**env, node.var: element(kinds.visit(node.domain, env)) or ""}


def kind_of(rules: Ruleset, node: s.Expr, known: Kinds) -> str | None:
    """The kind of `node`'s value; `known` gives the kinds of local names."""
    return KindOf(rules).visit(node, known)


def move_kinds(move: s.MoveDecl) -> Kinds:
    """The kinds of the names a move binds for its guards and body: a step's values, then its arguments."""
    return {**formal_kinds(move.formals), **{p.name: PARAM_KINDS[p.kind] for p in move.params if p.kind in PARAM_KINDS}}


def shared_kinds(moves: list[s.MoveDecl]) -> Kinds:
    """The names every one of these moves binds, with one kind in all (a statistic counting several moves
    reads only those)."""
    shared: Kinds | None = None
    for move in moves:
        kinds = move_kinds(move)
        shared = kinds if shared is None else {k: v for k, v in shared.items() if kinds.get(k) == v}
    return shared or {}
