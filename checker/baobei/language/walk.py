"""The one generic traversal of the rules' AST.

`expr_children` and `stmt_parts` know, for every node kind, which sub-nodes it
has; they end in `assert_never`, so mypy reports a node kind they miss. The
visitors give each consumer (compiler, kind checker, Z3 translator, printer)
one method per node kind, dispatched here; an instance of a visitor that lacks
a method is a mypy error (abstract class).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator
from typing import Generic, TypeVar, assert_never

from . import syntax as s

# The name `old(EXPR)` is written with (the grammar reads it so only before a parenthesis).
OLD_NAME = "old"

T = TypeVar("T")
E = TypeVar("E")


def expr_children(node: s.Expr) -> tuple[s.Expr, ...]:
    match node:
        case s.Lit() | s.Name():
            return ()
        case s.Call():
            return node.args
        case s.Index():
            return (node.base, node.index)
        case s.Unary():
            return (node.operand,)
        case s.Binary():
            return (node.left, node.right)
        case s.IfExpr():
            return (node.cond, node.then, node.other)
        case s.Quant():
            return (node.domain, node.body)
        case s.First() | s.Filter():
            return (node.domain, node.cond)
        case s.Old():
            return (node.expr,)
        case _:
            assert_never(node)


def stmt_parts(node: s.Stmt) -> tuple[tuple[s.Expr, ...], tuple[s.Stmt, ...]]:
    """The expressions a statement evaluates and the statements it contains."""
    match node:
        case s.Let():
            return (node.value,), ()
        case s.SetVar():
            return ((node.index,) if node.index is not None else ()) + (node.value,), ()
        case s.Draw():
            return (node.into,), ()
        case s.MoveCard():
            return (node.card, node.to), ()
        case s.Swap():
            return (node.first, node.second), ()
        case s.Peek():
            return (node.player, node.card), ()
        case s.Show() | s.Forget() | s.Mark():
            return (node.card,), ()
        case s.Say():
            return node.args, ()
        case s.OpenWindow():
            return (node.card, node.players), ()
        case s.UseWindow() | s.CloseWindow() | s.Shuffle():
            return (), ()
        case s.Trigger():
            return (node.card, node.player), ()
        case s.Continue():
            return (*node.args, node.player), ()
        case s.StartTurn():
            return (node.player,), ()
        case s.StartRound():
            return ((node.players,) if node.players is not None else ()), ()
        case s.Pick():
            return (node.domain,), ()
        case s.Run():
            return node.args, ()
        case s.ForEach():
            return (node.domain,), node.body
        case s.Repeat():
            return (node.count,), node.body
        case s.IfStmt():
            return (node.cond,), node.then + node.other
        case _:
            assert_never(node)


def walk_expr(node: s.Expr) -> Iterator[s.Expr]:
    """Every sub-expression, pre-order."""
    stack = [node]
    while stack:
        item = stack.pop()
        yield item
        stack.extend(reversed(expr_children(item)))


def walk_stmts(body: tuple[s.Stmt, ...]) -> Iterator[s.Stmt]:
    """Every statement of a block, nested ones included, pre-order."""
    stack = list(reversed(body))
    while stack:
        item = stack.pop()
        yield item
        stack.extend(reversed(stmt_parts(item)[1]))


def exprs_of(body: tuple[s.Stmt, ...]) -> Iterator[s.Expr]:
    """Every expression of a block, sub-expressions included."""
    for stmt in walk_stmts(body):
        for expr in stmt_parts(stmt)[0]:
            yield from walk_expr(expr)


def free_names(node: s.Expr) -> set[str]:
    """Names an expression reads, without the names its quantifiers bind."""
    match node:
        case s.Name():
            return {node.name}
        case s.Quant() | s.First() | s.Filter():
            inner = node.body if isinstance(node, s.Quant) else node.cond
            return free_names(node.domain) | (free_names(inner) - {node.var})
        case _:
            out: set[str] = set()
            for child in expr_children(node):
                out |= free_names(child)
            return out


def called(node: s.Expr) -> set[str]:
    """Functions an expression calls by name."""
    return {e.func for e in walk_expr(node) if isinstance(e, s.Call)}


def runs(body: tuple[s.Stmt, ...]) -> set[str]:
    """Routines a block runs, in any branch or loop."""
    return {stmt.routine for stmt in walk_stmts(body) if isinstance(stmt, s.Run)}


class ExprVisitor(ABC, Generic[T, E]):
    """One method per expression kind; `visit` dispatches. `E` is what the visitor carries down."""

    def visit(self, node: s.Expr, env: E) -> T:
        match node:
            case s.Lit():
                return self.lit(node, env)
            case s.Name():
                return self.name(node, env)
            case s.Call():
                return self.call(node, env)
            case s.Index():
                return self.index(node, env)
            case s.Unary():
                return self.unary(node, env)
            case s.Binary():
                return self.binary(node, env)
            case s.IfExpr():
                return self.if_expr(node, env)
            case s.Quant():
                return self.quant(node, env)
            case s.First():
                return self.first(node, env)
            case s.Filter():
                return self.filter(node, env)
            case s.Old():
                return self.old(node, env)
            case _:
                assert_never(node)

    @abstractmethod
    def lit(self, node: s.Lit, env: E) -> T: ...
    @abstractmethod
    def name(self, node: s.Name, env: E) -> T: ...
    @abstractmethod
    def call(self, node: s.Call, env: E) -> T: ...
    @abstractmethod
    def index(self, node: s.Index, env: E) -> T: ...
    @abstractmethod
    def unary(self, node: s.Unary, env: E) -> T: ...
    @abstractmethod
    def binary(self, node: s.Binary, env: E) -> T: ...
    @abstractmethod
    def if_expr(self, node: s.IfExpr, env: E) -> T: ...
    @abstractmethod
    def quant(self, node: s.Quant, env: E) -> T: ...
    @abstractmethod
    def first(self, node: s.First, env: E) -> T: ...
    @abstractmethod
    def filter(self, node: s.Filter, env: E) -> T: ...

    @abstractmethod
    def old(self, node: s.Old, env: E) -> T: ...


def phase_guard(cond: s.Expr) -> frozenset[str] | None:
    """The phases a guard `phase == "a"` (or `... or phase == "b"`) admits; None if not of that form."""
    if isinstance(cond, s.Binary) and cond.op == "or":
        left, right = phase_guard(cond.left), phase_guard(cond.right)
        return left | right if left is not None and right is not None else None
    if isinstance(cond, s.Binary) and cond.op == "==" and isinstance(cond.left, s.Name) \
            and cond.left.name == "phase" and isinstance(cond.right, s.Lit) and isinstance(cond.right.value, str):
        return frozenset({cond.right.value})
    return None


def move_phases(m: s.MoveDecl) -> frozenset[str] | None:
    """The phases a move's first `require phase == ...` admits (None: no such guard, any phase)."""
    return next((ph for req in m.requires if (ph := phase_guard(req.cond)) is not None), None)
