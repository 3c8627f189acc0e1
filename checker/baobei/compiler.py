"""Compile the rules' expressions and statements once, at load, into Python closures.

The engine never walks a syntax tree while playing: each node becomes a closure
`f(ctx)`, names are resolved here (unknown names are RulesErrors with their
position), and every statement knows the rule it belongs to, for the events.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from . import syntax as s
from .builtins import ARG_KINDS, GLOBALS, SHUFFLE_SOURCES, pile_list
from .errors import EngineError, RulesError
from .kinds import compatible, declared_kind, element, kind_of
from .state import PileLoc

if TYPE_CHECKING:
    from .engine import Engine
    from .state import State

Fn = Callable[["Ctx"], Any]
Proc = Callable[["Ctx"], None]


class Ctx:
    """What a running closure sees: the state, local names, the event log, the engine."""

    __slots__ = ("eng", "env", "log", "st")

    def __init__(self, st: State, env: dict[str, Any], log: list[Event] | None, eng: Engine) -> None:
        self.st = st
        self.env = env
        self.log = log
        self.eng = eng

    def derive(self, env: dict[str, Any]) -> Ctx:
        return Ctx(self.st, env, self.log, self.eng)


@dataclass(frozen=True)
class Event:
    """Something that happened, with the rule that made it happen."""

    rule: str
    cite: s.Citation
    text: str

    def __str__(self) -> str:
        return f"{self.text}  [{self.rule}, {self.cite}]"


@dataclass(frozen=True)
class Origin:
    """The declaration a statement belongs to: named in events and rules errors."""

    rule: str
    cite: s.Citation


def _divide(a: Any, b: Any) -> Any:
    return a // b if b else 0  # total: division by zero gives 0


def _modulo(a: Any, b: Any) -> Any:
    return a % b if b else 0


def _arith(fn: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    """Arithmetic is total: a `none` operand (a missing card's value, say) gives none."""
    return lambda a, b: None if a is None or b is None else fn(a, b)


_BINOPS: dict[str, Callable[[Any, Any], Any]] = {
    "+": _arith(operator.add), "-": _arith(operator.sub), "*": _arith(operator.mul),
    "//": _arith(_divide), "%": _arith(_modulo),
    "==": operator.eq, "!=": operator.ne,
}
_ORDER: dict[str, Callable[[Any, Any], bool]] = {
    "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
}


def free_names(node: object) -> set[str]:
    """Names an expression reads (to tell guards on parameters from the rest)."""
    out: set[str] = set()
    if isinstance(node, s.Name):
        out.add(node.name)
    elif isinstance(node, (s.Quant, s.First, s.Filter)):
        inner = node.body if isinstance(node, s.Quant) else node.cond
        out |= free_names(node.domain) | (free_names(inner) - {node.var})
    elif isinstance(node, s.Expr):
        for value in vars(node).values():
            if isinstance(value, tuple):
                for item in value:
                    out |= free_names(item)
            else:
                out |= free_names(value)
    return out


class Compiler:
    """Resolves names against the ruleset and builds closures."""

    def __init__(self, eng: Engine) -> None:
        self.eng = eng
        self.rules = eng.rules
        self.functions = eng.functions
        # Kinds of the names bound while compiling one declaration (its parameters), for kind checks.
        self.kinds: dict[str, str] = {}

    # ------------------------------------------------------------ expressions
    def expr(self, node: s.Expr, scope: frozenset[str]) -> Fn:
        method = getattr(self, "_e_" + type(node).__name__)
        result: Fn = method(node, scope)
        return result

    def _e_Lit(self, node: s.Lit, scope: frozenset[str]) -> Fn:
        value = node.value
        return lambda ctx: value

    def _e_Name(self, node: s.Name, scope: frozenset[str]) -> Fn:
        name = node.name
        if name in scope:
            return lambda ctx: ctx.env[name]
        if name in GLOBALS:
            getter = GLOBALS[name]
            return lambda ctx: getter(ctx.st)
        var = self.rules.variables.get(name)
        if var is not None:
            if var.per_player:
                raise RulesError(node.pos, f"{name!r} holds one value per player: write {name}[player]")
            return lambda ctx: ctx.st.vars[name]
        define = self.rules.defines.get(name)
        if define is not None:
            if define.formals:
                raise RulesError(node.pos, f"{name!r} takes {len(define.formals)} argument(s)")
            return self._define_call(name, ())
        raise RulesError(node.pos, f"unknown name {name!r}")

    def _define_call(self, name: str, args: tuple[Fn, ...]) -> Fn:
        funcs = self.eng.define_fns
        formals = [f.name for f in self.rules.defines[name].formals or ()]
        if not args:
            return lambda ctx: funcs[name](ctx.derive({}))

        def call(ctx: Ctx) -> Any:
            env = {f: a(ctx) for f, a in zip(formals, args, strict=True)}
            return funcs[name](ctx.derive(env))

        return call

    def _e_Call(self, node: s.Call, scope: frozenset[str]) -> Fn:
        args = tuple(self.expr(a, scope) for a in node.args)
        define = self.rules.defines.get(node.func)
        if define is not None:
            if len(define.formals or ()) != len(args):
                wanted = len(define.formals or ())
                raise RulesError(node.pos, f"{node.func!r} takes {wanted} argument(s), got {len(args)}")
            expected = tuple(declared_kind(f.type) for f in define.formals or ())
            self._check_kinds(node, expected)
            return self._define_call(node.func, args)
        if node.func not in self.functions:
            raise RulesError(node.pos, f"unknown function {node.func!r}")
        arity, impl = self.functions[node.func]
        if arity != len(args):
            raise RulesError(node.pos, f"{node.func!r} takes {arity} argument(s), got {len(args)}")
        self._check_kinds(node, ARG_KINDS.get(node.func, ()))
        return _guarded_call(impl, args, node.func, node.pos)

    def _check_kinds(self, node: s.Call, expected: tuple[str, ...]) -> None:
        """A function given a player where it reads a card (say) is a rules error, found at load."""
        for i, (wanted, arg) in enumerate(zip(expected, node.args, strict=False), 1):
            got = kind_of(self.rules, arg, self.kinds)
            if not compatible(wanted, got):
                raise RulesError(arg.pos, f"argument {i} of {node.func!r} is a {wanted}; this is a {got}")

    def _e_Index(self, node: s.Index, scope: frozenset[str]) -> Fn:
        index = self.expr(node.index, scope)
        base = node.base
        if isinstance(base, s.Name) and base.name not in scope:
            if base.name in self.rules.tables:
                return self._table_lookup(base.name, index, node.pos)
            var = self.rules.variables.get(base.name)
            if var is not None and var.per_player:
                name = base.name
                return lambda ctx: None if (i := index(ctx)) is None else ctx.st.pvars[name][i]
        seq = self.expr(base, scope)

        def item(ctx: Ctx) -> Any:
            items, i = items_of(ctx, seq(ctx)), index(ctx)
            return items[i] if isinstance(i, int) and 0 <= i < len(items) else None  # total

        return item

    def _table_lookup(self, name: str, index: Fn, pos: s.Pos) -> Fn:
        rules = self.rules

        # Total: a missing row is none (a match refuses to start without the rows it needs).
        return lambda ctx: rules.table_value(name, index(ctx))

    def _e_Unary(self, node: s.Unary, scope: frozenset[str]) -> Fn:
        inner = self.expr(node.operand, scope)
        if node.op == "not":
            return lambda ctx: not inner(ctx)
        return lambda ctx: None if (v := inner(ctx)) is None else -v

    def _e_Binary(self, node: s.Binary, scope: frozenset[str]) -> Fn:
        left = self.expr(node.left, scope)
        right = self.expr(node.right, scope)
        op = node.op
        if op == "and":
            return lambda ctx: bool(left(ctx)) and bool(right(ctx))
        if op == "or":
            return lambda ctx: bool(left(ctx)) or bool(right(ctx))
        if op == "in" and isinstance(node.right, s.Name) and node.right.name == "window_players" \
                and "window_players" not in scope:
            # The window keeps its players as a bit mask: test the bit instead of building a list.
            return lambda ctx: (w := ctx.st.window) is not None and (p := left(ctx)) is not None \
                and bool(w.players >> p & 1)
        if op == "in" and isinstance(node.right, s.Name) and node.right.name == "players" and "players" not in scope:
            return lambda ctx: (p := left(ctx)) is not None and bool(ctx.st.in_round >> p & 1)
        if op == "in":
            return lambda ctx: left(ctx) in items_of(ctx, right(ctx))
        if op in _ORDER:
            cmp = _ORDER[op]

            def ordered(ctx: Ctx) -> bool:
                a, b = left(ctx), right(ctx)
                return a is not None and b is not None and cmp(a, b)

            return ordered
        if op in ("==", "!=") and isinstance(node.right, s.Lit):
            const = node.right.value
            if op == "==":
                return lambda ctx: left(ctx) == const
            return lambda ctx: left(ctx) != const
        fn = _BINOPS[op]
        return lambda ctx: fn(left(ctx), right(ctx))

    def _e_IfExpr(self, node: s.IfExpr, scope: frozenset[str]) -> Fn:
        cond, then, other = (self.expr(n, scope) for n in (node.cond, node.then, node.other))
        return lambda ctx: then(ctx) if cond(ctx) else other(ctx)

    def _bound(self, var: str, domain: s.Expr, node: s.Expr, scope: frozenset[str]) -> Fn:
        """Compile `node` with `var` bound to the items of `domain` (its kind known while compiling)."""
        saved = self.kinds.get(var)
        self.kinds[var] = element(kind_of(self.rules, domain, self.kinds)) or ""
        try:
            return self.expr(node, scope | {var})
        finally:
            if saved is None:
                del self.kinds[var]
            else:
                self.kinds[var] = saved

    def _e_Quant(self, node: s.Quant, scope: frozenset[str]) -> Fn:
        domain = self.expr(node.domain, scope)
        body = self._bound(node.var, node.domain, node.body, scope)
        var = node.var
        if node.kind in ("all", "any"):
            return _short_circuit(node.kind == "all", var, domain, body)

        def values(ctx: Ctx) -> list[Any]:
            env = ctx.env
            out = []
            for item in items_of(ctx, domain(ctx)):
                env[var] = item
                out.append(body(ctx))
            return out

        return _AGGREGATES[node.kind](values)

    def _e_First(self, node: s.First, scope: frozenset[str]) -> Fn:
        domain = self.expr(node.domain, scope)
        cond = self._bound(node.var, node.domain, node.cond, scope)
        var = node.var

        def first(ctx: Ctx) -> Any:
            for item in items_of(ctx, domain(ctx)):
                ctx.env[var] = item
                if cond(ctx):
                    return item
            return None

        return first

    def _e_Filter(self, node: s.Filter, scope: frozenset[str]) -> Fn:
        domain = self.expr(node.domain, scope)
        cond = self._bound(node.var, node.domain, node.cond, scope)
        var = node.var

        def keep(ctx: Ctx) -> list[Any]:
            out = []
            for item in items_of(ctx, domain(ctx)):
                ctx.env[var] = item
                if cond(ctx):
                    out.append(item)
            return out

        return keep

    # ------------------------------------------------------------ statements
    def block(self, stmts: tuple[s.Stmt, ...], scope: frozenset[str], origin: Origin) -> Proc:
        procs: list[Proc] = []
        for stmt in stmts:
            proc, scope = self.stmt(stmt, scope, origin)
            procs.append(proc)
        if len(procs) == 1:
            return procs[0]

        def run_all(ctx: Ctx) -> None:
            for p in procs:
                p(ctx)

        return run_all

    def stmt(self, node: s.Stmt, scope: frozenset[str], origin: Origin) -> tuple[Proc, frozenset[str]]:
        """A statement's closure and the scope after it (a `let` or `draw as` adds a name)."""
        method = getattr(self, "_s_" + type(node).__name__)
        result: tuple[Proc, frozenset[str]] = method(node, scope, origin)
        return result

    def _s_Let(self, node: s.Let, scope: frozenset[str], origin: Origin) -> tuple[Proc, frozenset[str]]:
        value = self.expr(node.value, scope)
        name = node.name
        self.kinds[name] = kind_of(self.rules, node.value, self.kinds) or ""  # "" when unknown: no check

        def let(ctx: Ctx) -> None:
            ctx.env[name] = value(ctx)

        return let, scope | {name}

    def _s_SetVar(self, node: s.SetVar, scope: frozenset[str], origin: Origin) -> tuple[Proc, frozenset[str]]:
        value = self.expr(node.value, scope)
        name = node.name
        if name == "phase" and node.index is None:
            return self.eng.ops.set_phase(value, origin), scope
        var = self.rules.variables.get(name)
        if var is None:
            raise RulesError(node.pos, f"cannot set {name!r}: only declared variables and the phase can be set")
        if var.per_player != (node.index is not None):
            raise RulesError(node.pos, f"{name!r} is {'per player' if var.per_player else 'a single value'}")
        index = self.expr(node.index, scope) if node.index is not None else None
        return self.eng.ops.set_var(name, index, value, origin), scope

    def _s_Draw(self, node: s.Draw, scope: frozenset[str], origin: Origin) -> tuple[Proc, frozenset[str]]:
        into = self.expr(node.into, scope)
        new_scope = scope | {node.bind} if node.bind else scope
        if node.bind:
            self.kinds[node.bind] = "card"
        return self.eng.ops.draw(into, node.bind, origin), new_scope

    def _s_MoveCard(self, node: s.MoveCard, scope: frozenset[str], origin: Origin) -> tuple[Proc, frozenset[str]]:
        return self.eng.ops.move(self.expr(node.card, scope), self.expr(node.to, scope), origin, node.pos), scope

    def _s_Peek(self, node: s.Peek, scope: frozenset[str], origin: Origin) -> tuple[Proc, frozenset[str]]:
        return self.eng.ops.peek(self.expr(node.player, scope), self.expr(node.card, scope), origin), scope

    def _s_Show(self, node: s.Show, scope: frozenset[str], origin: Origin) -> tuple[Proc, frozenset[str]]:
        return self.eng.ops.show(self.expr(node.card, scope), origin), scope

    def _s_Forget(self, node: s.Forget, scope: frozenset[str], origin: Origin) -> tuple[Proc, frozenset[str]]:
        return self.eng.ops.forget(self.expr(node.card, scope), origin), scope

    def _s_OpenWindow(self, node: s.OpenWindow, scope: frozenset[str], origin: Origin) -> tuple[Proc, frozenset[str]]:
        card, players = self.expr(node.card, scope), self.expr(node.players, scope)
        return self.eng.ops.open_window(node.kind, card, players, origin), scope

    def _s_UseWindow(self, node: s.UseWindow, scope: frozenset[str], origin: Origin) -> tuple[Proc, frozenset[str]]:
        return self.eng.ops.use_window(origin), scope

    def _s_CloseWindow(self, node: s.CloseWindow, scope: frozenset[str], origin: Origin) -> tuple[Proc, frozenset[str]]:
        return self.eng.ops.close_window(origin), scope

    def _s_Trigger(self, node: s.Trigger, scope: frozenset[str], origin: Origin) -> tuple[Proc, frozenset[str]]:
        return self.eng.ops.trigger(self.expr(node.card, scope), self.expr(node.player, scope), origin), scope

    def _s_Shuffle(self, node: s.Shuffle, scope: frozenset[str], origin: Origin) -> tuple[Proc, frozenset[str]]:
        for source in node.sources:
            if source not in SHUFFLE_SOURCES:
                raise RulesError(node.pos, f"cannot shuffle {source!r}; one of: {', '.join(SHUFFLE_SOURCES)}")
        if node.into != "draw_pile":
            raise RulesError(node.pos, "cards are shuffled into the draw_pile only")
        return self.eng.ops.shuffle(node.sources, origin), scope

    def _s_StartTurn(self, node: s.StartTurn, scope: frozenset[str], origin: Origin) -> tuple[Proc, frozenset[str]]:
        return self.eng.ops.start_turn(self.expr(node.player, scope), origin), scope

    def _s_StartRound(self, node: s.StartRound, scope: frozenset[str], origin: Origin) -> tuple[Proc, frozenset[str]]:
        eng = self.eng
        players = self.expr(node.players, scope) if node.players is not None else None
        if players is None:
            return (lambda ctx: eng.start_round(ctx.st, ctx.log)), scope
        return (lambda ctx: eng.start_round(ctx.st, ctx.log, list(items_of(ctx, players(ctx))))), scope

    def _s_Pick(self, node: s.Pick, scope: frozenset[str], origin: Origin) -> tuple[Proc, frozenset[str]]:
        domain = self.expr(node.domain, scope)
        name = node.name
        self.kinds[name] = element(kind_of(self.rules, node.domain, self.kinds)) or ""

        def pick(ctx: Ctx) -> None:
            items = list(items_of(ctx, domain(ctx)))
            ctx.env[name] = ctx.st.rng.choice(items) if items else None

        return pick, scope | {name}

    def _s_Run(self, node: s.Run, scope: frozenset[str], origin: Origin) -> tuple[Proc, frozenset[str]]:
        routine = self.rules.routines.get(node.routine)
        if routine is None:
            raise RulesError(node.pos, f"unknown routine {node.routine!r}")
        if len(routine.formals) != len(node.args):
            raise RulesError(node.pos, f"routine {node.routine!r} takes {len(routine.formals)} argument(s)")
        args = tuple(self.expr(a, scope) for a in node.args)
        formals = [f.name for f in routine.formals]
        procs = self.eng.routine_procs
        name = node.routine

        def run(ctx: Ctx) -> None:
            env = {"actor": ctx.env.get("actor")}
            for f, a in zip(formals, args, strict=True):
                env[f] = a(ctx)
            procs[name](ctx.derive(env))

        return run, scope

    def _s_ForEach(self, node: s.ForEach, scope: frozenset[str], origin: Origin) -> tuple[Proc, frozenset[str]]:
        domain = self.expr(node.domain, scope)
        saved = self.kinds.get(node.var)
        self.kinds[node.var] = element(kind_of(self.rules, node.domain, self.kinds)) or ""
        body = self.block(node.body, scope | {node.var}, origin)
        self.kinds[node.var] = saved if saved is not None else ""
        var = node.var

        def loop(ctx: Ctx) -> None:
            for item in list(items_of(ctx, domain(ctx))):
                ctx.env[var] = item
                body(ctx)

        return loop, scope

    def _s_Repeat(self, node: s.Repeat, scope: frozenset[str], origin: Origin) -> tuple[Proc, frozenset[str]]:
        count = self.expr(node.count, scope)
        body = self.block(node.body, scope, origin)

        def repeat(ctx: Ctx) -> None:
            for _ in range(count(ctx) or 0):
                body(ctx)

        return repeat, scope

    def _s_IfStmt(self, node: s.IfStmt, scope: frozenset[str], origin: Origin) -> tuple[Proc, frozenset[str]]:
        cond = self.expr(node.cond, scope)
        then = self.block(node.then, scope, origin)
        other = self.block(node.other, scope, origin)

        def branch(ctx: Ctx) -> None:
            if cond(ctx):
                then(ctx)
            else:
                other(ctx)

        return branch, scope


_WRONG_KIND = (TypeError, IndexError, KeyError, AttributeError, ValueError)


def _wrong_kind(func: str, pos: s.Pos, values: tuple[Any, ...]) -> EngineError:
    shown = ", ".join(repr(v) for v in values)
    return EngineError(f"{pos}: {func}({shown}): an argument is of the wrong kind")


def _guarded_call(impl: Callable[..., Any], args: tuple[Fn, ...], func: str, pos: s.Pos) -> Fn:
    """A builtin call; a value of the wrong kind (a number where a slot belongs) becomes a
    positioned rules error instead of a Python crash. (A `try` costs nothing until it fires.)"""
    if len(args) == 1:
        (a,) = args

        def call1(ctx: Ctx) -> Any:
            x = a(ctx)
            try:
                return impl(ctx.st, x)
            except _WRONG_KIND:
                raise _wrong_kind(func, pos, (x,)) from None

        return call1
    if len(args) == 2:
        a, b = args

        def call2(ctx: Ctx) -> Any:
            x, y = a(ctx), b(ctx)
            try:
                return impl(ctx.st, x, y)
            except _WRONG_KIND:
                raise _wrong_kind(func, pos, (x, y)) from None

        return call2

    def call(ctx: Ctx) -> Any:
        values = tuple(f(ctx) for f in args)
        try:
            return impl(ctx.st, *values)
        except _WRONG_KIND:
            raise _wrong_kind(func, pos, values) from None

    return call


def items_of(ctx: Ctx, value: Any) -> Any:
    """What a quantifier ranges over: a list, or a pile's cards (bottom to top); none is empty."""
    if value is None:
        return ()
    if isinstance(value, PileLoc):
        return list(pile_list(ctx.st, value))
    return value


def _short_circuit(want_all: bool, var: str, domain: Fn, body: Fn) -> Fn:
    """all/any that stop at the first deciding item."""

    def quantify(ctx: Ctx) -> bool:
        env = ctx.env
        for item in items_of(ctx, domain(ctx)):
            env[var] = item
            if bool(body(ctx)) != want_all:
                return not want_all
        return want_all

    return quantify


def _most(values: list[Any]) -> Any:
    present = [v for v in values if v is not None]
    return max(present) if present else None


def _least(values: list[Any]) -> Any:
    present = [v for v in values if v is not None]
    return min(present) if present else None


def _aggregate(reduce: Callable[[list[Any]], Any]) -> Callable[[Callable[[Ctx], list[Any]]], Fn]:
    def make(values: Callable[[Ctx], list[Any]]) -> Fn:
        return lambda ctx: reduce(values(ctx))

    return make


_AGGREGATES: dict[str, Callable[[Callable[[Ctx], list[Any]]], Fn]] = {
    "sum": _aggregate(lambda vs: sum(v or 0 for v in vs)),
    "count": _aggregate(lambda vs: sum(1 for v in vs if v)),
    "most": _aggregate(_most),
    "least": _aggregate(_least),
}
