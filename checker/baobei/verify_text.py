"""Rules-language text of expressions and statements (for reports, docs and emitted scenarios)."""

from __future__ import annotations

from . import syntax as s

# Binding strength of binary operators: a weaker operand gets parentheses.
_STRENGTH = {"or": 1, "and": 2, "==": 4, "!=": 4, "<": 4, "<=": 4, ">": 4, ">=": 4, "in": 4,
             "+": 5, "-": 5, "*": 6, "//": 6, "%": 6}


def expr_text(node: s.Expr) -> str:
    return _text(node, 0)


def _text(node: s.Expr, outer: int) -> str:
    text, strength = _raw(node)
    return f"({text})" if strength < outer else text


def _raw(node: s.Expr) -> tuple[str, int]:
    """The text of a node and how strongly it binds (9: an atom)."""
    if isinstance(node, s.Lit):
        v = node.value
        if v is None:
            return "none", 9
        if isinstance(v, bool):
            return ("true" if v else "false"), 9
        if isinstance(v, int):
            return str(v), (9 if v >= 0 else 7)
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"', 9
    if isinstance(node, s.Name):
        return node.name, 9
    if isinstance(node, s.Call):
        return f"{node.func}({', '.join(_text(a, 0) for a in node.args)})", 9
    if isinstance(node, s.Index):
        return f"{_text(node.base, 9)}[{_text(node.index, 0)}]", 9
    if isinstance(node, s.Unary):
        if node.op == "not":
            return f"not {_text(node.operand, 3)}", 3
        return f"-{_text(node.operand, 7)}", 7
    if isinstance(node, s.Binary):
        strength = _STRENGTH[node.op]
        if node.op == "or":  # `a or (b and c)` reads better bracketed, though `and` binds anyway
            return f"{_or_operand(node.left, 1)} or {_or_operand(node.right, 2)}", strength
        # Comparisons do not chain in the grammar: both sides must bind more strongly.
        left_min = strength + 1 if strength == 4 else strength
        return f"{_text(node.left, left_min)} {node.op} {_text(node.right, strength + 1)}", strength
    if isinstance(node, s.IfExpr):
        return f"if {_text(node.cond, 0)} then {_text(node.then, 0)} else {_text(node.other, 0)}", 0
    # Quantifiers are atoms in the grammar but their body runs to the end: bracket them in any operand.
    if isinstance(node, s.Quant):
        return f"{node.kind} {node.var} in {_text(node.domain, 0)}: {_text(node.body, 0)}", 0
    if isinstance(node, s.First):
        return f"first {node.var} in {_text(node.domain, 0)} where {_text(node.cond, 0)}", 0
    if isinstance(node, s.Filter):
        return f"[{node.var} in {_text(node.domain, 0)} where {_text(node.cond, 0)}]", 9
    raise TypeError(f"no text for {type(node).__name__}")


def _or_operand(node: s.Expr, outer: int) -> str:
    if isinstance(node, s.Binary) and node.op == "and":
        return f"({_text(node, 0)})"
    return _text(node, outer)


def stmt_text(node: s.Stmt) -> str:
    """One line for a statement (blocks are elided)."""
    if isinstance(node, s.MoveCard):
        return f"move {expr_text(node.card)} to {expr_text(node.to)}"
    if isinstance(node, s.Draw):
        return f"draw into {expr_text(node.into)}" + (f" as {node.bind}" if node.bind else "")
    if isinstance(node, s.Shuffle):
        return f"shuffle {', '.join(node.sources)} into {node.into}"
    if isinstance(node, s.Run):
        return f"run {node.routine}({', '.join(expr_text(a) for a in node.args)})"
    if isinstance(node, s.Let):
        return f"let {node.name} = {expr_text(node.value)}"
    if isinstance(node, s.IfStmt):
        return f"if {expr_text(node.cond)} {{ ... }}"
    return type(node).__name__.lower()
