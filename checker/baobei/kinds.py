"""The kind of value an expression gives — player, card, slot, int, bool, str, list of ... —
inferred from the rules where it can be told, None where it cannot.

Players and cards are both numbers inside the engine; kinds keep them apart: the compiler
refuses a builtin given an argument of the wrong kind (`value(active)`), and a scenario's
expectation reads a number back as the player or the card it stands for.
"""

from __future__ import annotations

from . import syntax as s
from .builtins import RESULT_KINDS
from .model import Ruleset

# Names the engine binds while a rule runs.
ENGINE_NAMES = {"actor": "player", "source": "card"}

# Declared list types, as value kinds.
LIST_TYPES = {"players": "list player", "cards": "list card"}


def declared_kind(type_name: str) -> str:
    """The kind of a value declared with this type (`players` is a list of players)."""
    return LIST_TYPES.get(type_name, type_name)


# Parameter kinds of moves, as value kinds.
PARAM_KINDS = {"slot": "slot", "own_slot": "slot", "free_slot": "slot", "player": "player", "bool": "bool"}

_BOOL_OPS = ("and", "or", "in", "==", "!=", "<", "<=", ">", ">=")


def kind_of(rules: Ruleset, node: s.Expr, known: dict[str, str]) -> str | None:
    """The kind of `node`'s value; `known` gives the kinds of local names."""
    if isinstance(node, s.Lit):
        return None if node.value is None else type(node.value).__name__
    if isinstance(node, s.Name):
        return _name_kind(rules, node.name, known)
    if isinstance(node, s.Call):
        define = rules.defines.get(node.func)
        if define is not None:
            return kind_of(rules, define.body, formal_kinds(define.formals))
        return RESULT_KINDS.get(node.func)
    if isinstance(node, s.Index):
        return _index_kind(rules, node, known)
    if isinstance(node, s.Binary):
        return "bool" if node.op in _BOOL_OPS else "int"
    if isinstance(node, s.Unary):
        return "bool" if node.op == "not" else "int"
    return _compound_kind(rules, node, known)


def _name_kind(rules: Ruleset, name: str, known: dict[str, str]) -> str | None:
    if name in known:
        return known[name] or None
    var = rules.variables.get(name)
    if var is not None:
        return declared_kind(var.type)
    define = rules.defines.get(name)
    if define is not None and not define.formals:
        return kind_of(rules, define.body, {})
    return RESULT_KINDS.get(name)


def _index_kind(rules: Ruleset, node: s.Index, known: dict[str, str]) -> str | None:
    if isinstance(node.base, s.Name) and node.base.name not in known:
        if node.base.name in rules.tables:
            return "int"
        var = rules.variables.get(node.base.name)
        if var is not None and var.per_player:
            return declared_kind(var.type)
    return element(kind_of(rules, node.base, known))


def _compound_kind(rules: Ruleset, node: s.Expr, known: dict[str, str]) -> str | None:
    if isinstance(node, s.Quant):
        fixed = {"all": "bool", "any": "bool", "sum": "int", "count": "int"}.get(node.kind)
        return fixed or kind_of(rules, node.body, {**known, node.var: element(kind_of(rules, node.domain, known))
                                                   or ""})
    if isinstance(node, s.Filter):
        return kind_of(rules, node.domain, known)
    if isinstance(node, s.First):
        return element(kind_of(rules, node.domain, known))
    if isinstance(node, s.IfExpr):
        return kind_of(rules, node.then, known) or kind_of(rules, node.other, known)
    return None


def element(kind: str | None) -> str | None:
    """The kind of a list's items (None when the list's kind is unknown)."""
    return kind.removeprefix("list ") if kind and kind.startswith("list ") else None


def formal_kinds(formals: tuple[s.Formal, ...] | None) -> dict[str, str]:
    return {f.name: declared_kind(f.type) for f in formals or ()}


def compatible(expected: str, got: str | None) -> bool:
    """An argument fits unless both kinds are known and differ."""
    return got is None or got == "" or expected == got
