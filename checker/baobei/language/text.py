"""Rules-language text of expressions and statements (for reports, docs and emitted scenarios)."""

from __future__ import annotations

from typing import assert_never

from . import syntax as s
from .walk import ExprVisitor
from .words import plural as plural  # its old home: callers may import it from here

# Binding strength of binary operators: a weaker operand gets parentheses.
_STRENGTH = {"or": 1, "and": 2, "==": 4, "!=": 4, "<": 4, "<=": 4, ">": 4, ">=": 4, "in": 4,
             "+": 5, "-": 5, "*": 6, "//": 6, "%": 6}


def expr_text(node: s.Expr) -> str:
    return _text(node, 0)


def _text(node: s.Expr, outer: int) -> str:
    text, strength = _RAW.visit(node, None)
    return f"({text})" if strength < outer else text


class _Raw(ExprVisitor[tuple[str, int], None]):
    """The text of a node and how strongly it binds (9: an atom)."""

    def lit(self, node: s.Lit, env: None) -> tuple[str, int]:
        v = node.value
        if v is None:
            return "none", 9
        if isinstance(v, bool):
            return ("true" if v else "false"), 9
        if isinstance(v, int):
            return str(v), (9 if v >= 0 else 7)
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"', 9

    def name(self, node: s.Name, env: None) -> tuple[str, int]:
        return node.name, 9

    def call(self, node: s.Call, env: None) -> tuple[str, int]:
        return f"{node.func}({', '.join(_text(a, 0) for a in node.args)})", 9

    def index(self, node: s.Index, env: None) -> tuple[str, int]:
        return f"{_text(node.base, 9)}[{_text(node.index, 0)}]", 9

    def unary(self, node: s.Unary, env: None) -> tuple[str, int]:
        if node.op == "not":
            return f"not {_text(node.operand, 3)}", 3
        return f"-{_text(node.operand, 7)}", 7

    def binary(self, node: s.Binary, env: None) -> tuple[str, int]:
        strength = _STRENGTH[node.op]
        if node.op == "or":  # `a or (b and c)` reads better bracketed, though `and` binds anyway
            return f"{_or_operand(node.left, 1)} or {_or_operand(node.right, 2)}", strength
        # Comparisons do not chain in the grammar: both sides must bind more strongly.
        left_min = strength + 1 if strength == 4 else strength
        return f"{_text(node.left, left_min)} {node.op} {_text(node.right, strength + 1)}", strength

    def if_expr(self, node: s.IfExpr, env: None) -> tuple[str, int]:
        return f"if {_text(node.cond, 0)} then {_text(node.then, 0)} else {_text(node.other, 0)}", 0

    # Quantifiers are atoms in the grammar but their body runs to the end: bracket them in any operand.
    def quant(self, node: s.Quant, env: None) -> tuple[str, int]:
        return f"{node.kind} {node.var} in {_text(node.domain, 0)}: {_text(node.body, 0)}", 0

    def first(self, node: s.First, env: None) -> tuple[str, int]:
        return f"first {node.var} in {_text(node.domain, 0)} where {_text(node.cond, 0)}", 0

    def filter(self, node: s.Filter, env: None) -> tuple[str, int]:
        return f"[{node.var} in {_text(node.domain, 0)} where {_text(node.cond, 0)}]", 9

    def old(self, node: s.Old, env: None) -> tuple[str, int]:
        return f"old({_text(node.expr, 0)})", 9


_RAW = _Raw()


def _or_operand(node: s.Expr, outer: int) -> str:
    if isinstance(node, s.Binary) and node.op == "and":
        return f"({_text(node, 0)})"
    return _text(node, outer)


def _args(args: tuple[s.Expr, ...]) -> str:
    return ", ".join(expr_text(a) for a in args)


def stmt_text(node: s.Stmt) -> str:
    """One line for a statement (blocks are elided)."""
    e = expr_text
    match node:
        case s.Let():
            return f"let {node.name} = {e(node.value)}"
        case s.SetVar():
            index = f"[{e(node.index)}]" if node.index is not None else ""
            return f"set {node.name}{index} = {e(node.value)}"
        case s.Draw():
            return f"draw into {e(node.into)}" + (f" as {node.bind}" if node.bind else "")
        case s.MoveCard():
            return f"move {e(node.card)} to {e(node.to)}"
        case s.Swap():
            return f"swap {e(node.first)} with {e(node.second)}"
        case s.Peek():
            return f"peek {e(node.player)} {e(node.card)}"
        case s.Say():
            return f'say "{node.text}"' + (f"({', '.join(e(a) for a in node.args)})" if node.args else "")
        case s.Show():
            return f"show {e(node.card)}"
        case s.Forget():
            return f"forget {e(node.card)}"
        case s.Mark():
            return f"mark {node.mark} {e(node.card)}"
        case s.OpenWindow():
            return f'open window "{node.kind}" on {e(node.card)} for {e(node.players)}'
        case s.UseWindow():
            return "use window"
        case s.CloseWindow():
            return "close window"
        case s.Trigger():
            return f"trigger {e(node.card)} for {e(node.player)}" + (" after window" if node.after_window else "")
        case s.Continue():
            return f"continue {node.step}({_args(node.args)}) for {e(node.player)}"
        case s.Shuffle():
            sources = ", ".join(src.pile + (" except top" if src.except_top else "") for src in node.sources)
            return f"shuffle {sources} into {node.into}"
        case s.StartTurn():
            return f"start turn of {e(node.player)}"
        case s.StartRound():
            return "start round" + (f" with {e(node.players)}" if node.players is not None else "")
        case s.Pick():
            return f"pick {node.name} from {e(node.domain)}"
        case s.Run():
            return f"run {node.routine}({_args(node.args)})"
        case s.ForEach():
            return f"for {node.var} in {e(node.domain)} {{ ... }}"
        case s.Repeat():
            return f"repeat {e(node.count)} {{ ... }}"
        case s.IfStmt():
            return f"if {e(node.cond)} {{ ... }}"
        case _:
            assert_never(node)


