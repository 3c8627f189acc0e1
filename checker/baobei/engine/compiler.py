"""Compile the rules' expressions and statements once, at load, into Python closures.

The engine never walks a syntax tree while playing: each node becomes a closure
`f(ctx)`; names are resolved here (an unknown name is a RulesError with its
position) and every statement knows the rule it belongs to, for the events.

Scoping is lexical: a name bound by `let`, `draw ... as`, `pick`, `for`, a
quantifier, a filter or `first` is visible until the end of its block or
expression; an inner binding shadows an outer one, and the outer value comes
back afterwards (the closure restores it).
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any, assert_never

from ..language import syntax as s
from ..language.arith import DivisionByZero, floor_div, floor_mod
from ..language.builtins import BUILTINS, STATE_NAMES, Builtin
from ..language.errors import EngineError, RulesError
from ..language.walk import ExprVisitor
from .effects import Effects
from .runtime import Ctx, Fn, Origin, Proc, items_of
from .state import Chance, PileLoc

Scope = frozenset[str]
_UNSET = object()


def _arith(fn: Callable[[Any, Any], Any], pos: s.Pos) -> Callable[[Any, Any], Any]:
    """Arithmetic is total on none (a missing card's value, say, gives none); a zero divisor is an error."""

    def apply(a: Any, b: Any) -> Any:
        if a is None or b is None:
            return None
        try:
            return fn(a, b)
        except DivisionByZero:
            raise EngineError(f"{pos}: division by zero") from None

    return apply


_ARITH: dict[str, Callable[[Any, Any], Any]] = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "//": floor_div, "%": floor_mod,
}
_ORDER: dict[str, Callable[[Any, Any], bool]] = {
    "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
}


def _rebind(var: str, shadows: bool, loop: Callable[[Ctx], Any]) -> Fn:
    """Run `loop`, which binds `var`; when `var` shadows an outer name, give the outer value back after."""
    if not shadows:
        return loop

    def scoped(ctx: Ctx) -> Any:
        env = ctx.env
        saved = env.get(var, _UNSET)
        try:
            return loop(ctx)
        finally:
            if saved is _UNSET:
                env.pop(var, None)
            else:
                env[var] = saved

    return scoped


class Compiler(ExprVisitor[Fn, Scope]):
    """Resolves names against the ruleset and builds closures."""

    def __init__(self, rules: Any, effects: Effects, define_fns: dict[str, Fn], routine_procs: dict[str, Proc]) -> None:
        self.rules = rules
        self.effects = effects
        self.facts = effects.eng.facts.facts  # the deck's facts by card, for builtins that read them
        self.define_fns = define_fns
        self.routine_procs = routine_procs
        self.piles = {name: PileLoc(i, name) for i, name in enumerate(rules.piles)}

    # ------------------------------------------------------------ expressions
    def expr(self, node: s.Expr, scope: Scope) -> Fn:
        return self.visit(node, scope)

    def lit(self, node: s.Lit, scope: Scope) -> Fn:
        value = node.value
        return lambda ctx: value

    def name(self, node: s.Name, scope: Scope) -> Fn:
        name = node.name
        if name in scope:
            return lambda ctx: ctx.env[name]
        if name in STATE_NAMES:
            builtin = STATE_NAMES[name]
            if builtin.attribute:  # read straight from the state: these names are read on every guard
                return operator.attrgetter(f"st.{builtin.attribute}")
            run = builtin.run
            return lambda ctx: run(ctx.st)
        if name in self.piles:
            pile = self.piles[name]
            return lambda ctx: pile
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
        funcs = self.define_fns
        formals = [f.name for f in self.rules.defines[name].formals or ()]
        if not args:
            # A definition without arguments runs in a fresh scope: its own bindings stay its own.
            return lambda ctx: funcs[name](Ctx(ctx.st, {}, None))

        def call(ctx: Ctx) -> Any:
            env = {f: a(ctx) for f, a in zip(formals, args, strict=True)}
            return funcs[name](ctx.derive(env))

        return call

    def call(self, node: s.Call, scope: Scope) -> Fn:
        args = tuple(self.visit(a, scope) for a in node.args)
        if node.func in self.rules.defines:
            return self._define_call(node.func, args)
        builtin = BUILTINS.get(node.func)
        if builtin is None or builtin.arity != len(args):
            raise RulesError(node.pos, f"unknown function {node.func!r} with {len(args)} argument(s)")
        if builtin.fact:
            return _fact_call(builtin, self.facts[builtin.fact], args[0], node.pos)
        return builtin_call(builtin, args, node.pos)

    def index(self, node: s.Index, scope: Scope) -> Fn:
        index = self.visit(node.index, scope)
        base = node.base
        if isinstance(base, s.Name) and base.name not in scope:
            if base.name in self.rules.tables:
                rules, table = self.rules, base.name
                # Total: a missing row is none (a match refuses to start without the rows it needs).
                return lambda ctx: rules.table_value(table, index(ctx))
            var = self.rules.variables.get(base.name)
            if var is not None and var.per_player:
                name = base.name
                return lambda ctx: None if (i := index(ctx)) is None else ctx.st.pvars[name][i]
        seq = self.visit(base, scope)

        def item(ctx: Ctx) -> Any:
            items, i = items_of(ctx.st, seq(ctx)), index(ctx)
            return items[i] if isinstance(i, int) and 0 <= i < len(items) else None  # total

        return item

    def unary(self, node: s.Unary, scope: Scope) -> Fn:
        inner = self.visit(node.operand, scope)
        if node.op == "not":
            return lambda ctx: not inner(ctx)
        return lambda ctx: None if (v := inner(ctx)) is None else -v

    def binary(self, node: s.Binary, scope: Scope) -> Fn:
        left = self.visit(node.left, scope)
        right = self.visit(node.right, scope)
        op = node.op
        if op == "and":
            return lambda ctx: bool(left(ctx)) and bool(right(ctx))
        if op == "or":
            return lambda ctx: bool(left(ctx)) or bool(right(ctx))
        if op == "in":
            return self._member(node, left, right, scope)
        if op in _ORDER:
            cmp = _ORDER[op]

            def ordered(ctx: Ctx) -> bool:
                a, b = left(ctx), right(ctx)
                return a is not None and b is not None and cmp(a, b)

            return ordered
        if op in ("==", "!=") and "actor" in scope and "active" not in scope and isinstance(node.left, s.Name) \
                and isinstance(node.right, s.Name) and {node.left.name, node.right.name} == {"actor", "active"}:
            # `actor == active` opens most guards: compare without two nested calls.
            if op == "==":
                return lambda ctx: ctx.env["actor"] == ctx.st.active
            return lambda ctx: ctx.env["actor"] != ctx.st.active
        if op in ("==", "!="):
            return self._equality(op, node, left, right)
        fn = _arith(_ARITH[op], node.pos)
        return lambda ctx: fn(left(ctx), right(ctx))

    @staticmethod
    def _equality(op: str, node: s.Binary, left: Fn, right: Fn) -> Fn:
        if isinstance(node.right, s.Lit):
            const = node.right.value
            if op == "==":
                return lambda ctx: left(ctx) == const
            return lambda ctx: left(ctx) != const
        if op == "==":
            return lambda ctx: left(ctx) == right(ctx)
        return lambda ctx: left(ctx) != right(ctx)

    @staticmethod
    def _member(node: s.Binary, left: Fn, right: Fn, scope: Scope) -> Fn:
        target = node.right.name if isinstance(node.right, s.Name) and node.right.name not in scope else ""
        if target == "window_players":
            # The window keeps its players as a bit mask: test the bit instead of building a list.
            def in_window(ctx: Ctx) -> bool:
                windows = ctx.st.windows
                p = left(ctx)
                return bool(windows) and p is not None and bool(windows[-1].players >> p & 1)

            return in_window
        if target == "players":
            return lambda ctx: (p := left(ctx)) is not None and bool(ctx.st.in_round >> p & 1)
        return lambda ctx: left(ctx) in items_of(ctx.st, right(ctx))

    def if_expr(self, node: s.IfExpr, scope: Scope) -> Fn:
        cond, then, other = (self.visit(n, scope) for n in (node.cond, node.then, node.other))
        return lambda ctx: then(ctx) if cond(ctx) else other(ctx)

    def quant(self, node: s.Quant, scope: Scope) -> Fn:
        domain = self.visit(node.domain, scope)
        body = self.visit(node.body, scope | {node.var})
        var = node.var
        if node.kind in ("all", "any"):
            return _rebind(var, var in scope, _short_circuit(node.kind == "all", var, domain, body))

        def values(ctx: Ctx) -> list[Any]:
            env = ctx.env
            out = []
            for item in items_of(ctx.st, domain(ctx)):
                env[var] = item
                out.append(body(ctx))
            return out

        return _rebind(var, var in scope, _AGGREGATES[node.kind](values))

    def first(self, node: s.First, scope: Scope) -> Fn:
        domain = self.visit(node.domain, scope)
        cond = self.visit(node.cond, scope | {node.var})
        var = node.var

        def first(ctx: Ctx) -> Any:
            for item in items_of(ctx.st, domain(ctx)):
                ctx.env[var] = item
                if cond(ctx):
                    return item
            return None

        return _rebind(var, var in scope, first)

    def filter(self, node: s.Filter, scope: Scope) -> Fn:
        domain = self.visit(node.domain, scope)
        cond = self.visit(node.cond, scope | {node.var})
        var = node.var

        def keep(ctx: Ctx) -> list[Any]:
            out = []
            for item in items_of(ctx.st, domain(ctx)):
                ctx.env[var] = item
                if cond(ctx):
                    out.append(item)
            return out

        return _rebind(var, var in scope, keep)

    def old(self, node: s.Old, scope: Scope) -> Fn:
        inner = self.visit(node.expr, scope)
        # The context before the move shares the names: a quantifier's variable bound outside stays bound.
        return lambda ctx: inner(ctx.before)

    # ------------------------------------------------------------ statements
    def block(self, stmts: tuple[s.Stmt, ...], scope: Scope, origin: Origin) -> Proc:
        """A block's closure; names it binds end with it, and an outer name it shadows comes back."""
        procs: list[Proc] = []
        inner = scope
        for stmt in stmts:
            proc, inner = self.stmt(stmt, inner, origin)
            procs.append(proc)
        shadowed = tuple(name for name in _bound_names(stmts) if name in scope)

        def run_all(ctx: Ctx) -> None:
            for p in procs:
                p(ctx)

        body: Proc = procs[0] if len(procs) == 1 else run_all
        if not procs:
            return lambda ctx: None
        if not shadowed:
            return body

        def scoped(ctx: Ctx) -> None:
            env = ctx.env
            saved = [(name, env.get(name, _UNSET)) for name in shadowed]
            try:
                body(ctx)
            finally:
                for name, value in saved:
                    if value is _UNSET:
                        env.pop(name, None)
                    else:
                        env[name] = value

        return scoped

    def stmt(self, node: s.Stmt, scope: Scope, origin: Origin) -> tuple[Proc, Scope]:
        """A statement's closure and the scope after it (a `let`, `draw as` or `pick` adds a name)."""
        fx, e = self.effects, self.visit
        match node:
            case s.Let():
                value, name = e(node.value, scope), node.name

                def let(ctx: Ctx) -> None:
                    ctx.env[name] = value(ctx)

                return let, scope | {name}
            case s.SetVar():
                return self._set(node, scope, origin), scope
            case s.Draw():
                proc = fx.draw(e(node.into, scope), node.bind, origin)
                return proc, (scope | {node.bind} if node.bind else scope)
            case s.MoveCard():
                return fx.move(e(node.card, scope), e(node.to, scope), origin, node.pos), scope
            case s.Swap():
                return fx.swap(e(node.first, scope), e(node.second, scope), origin, node.pos), scope
            case s.Peek():
                return fx.peek(e(node.player, scope), e(node.card, scope), origin), scope
            case s.Show():
                return fx.show(e(node.card, scope), origin), scope
            case s.Forget():
                return fx.forget(e(node.card, scope), origin), scope
            case s.Say():
                kinds = self.rules.say_kinds[node.pos]
                return fx.say(node.text, tuple(e(a, scope) for a in node.args), kinds, origin), scope
            case s.Mark():
                return fx.mark(node.mark, e(node.card, scope), origin), scope
            case s.OpenWindow():
                return fx.open_window(node.kind, e(node.card, scope), e(node.players, scope), origin), scope
            case s.UseWindow():
                return fx.use_window(origin), scope
            case s.CloseWindow():
                return fx.close_window(origin), scope
            case s.Trigger():
                return fx.trigger(e(node.card, scope), e(node.player, scope), node.after_window, origin), scope
            case s.Continue():
                args = tuple(e(a, scope) for a in node.args)
                return fx.continue_step(node.step, args, e(node.player, scope), origin), scope
            case s.Shuffle():
                return fx.shuffle(node.sources, self.piles[node.into], origin), scope
            case s.StartTurn():
                return fx.start_turn(e(node.player, scope), origin), scope
            case s.StartRound():
                return fx.start_round(e(node.players, scope) if node.players is not None else None), scope
            case s.Pick():
                return self._pick(node, scope), scope | {node.name}
            case s.Run():
                return self._run(node, scope), scope
            case s.ForEach():
                return self._for(node, scope, origin), scope
            case s.Repeat():
                return self._repeat(node, scope, origin), scope
            case s.IfStmt():
                return self._if(node, scope, origin), scope
            case _:
                assert_never(node)

    def _set(self, node: s.SetVar, scope: Scope, origin: Origin) -> Proc:
        value = self.visit(node.value, scope)
        if node.name == "phase" and node.index is None:
            return self.effects.set_phase(value)
        var = self.rules.variables.get(node.name)
        if var is None:
            raise RulesError(node.pos, f"cannot set {node.name!r}: only declared variables and the phase can be set")
        index = self.visit(node.index, scope) if node.index is not None else None
        return self.effects.set_var(node.name, var.type, index, value, origin)

    def _pick(self, node: s.Pick, scope: Scope) -> Proc:
        domain, name = self.visit(node.domain, scope), node.name
        kind = self.rules.pick_kinds.get(node.pos, "")

        def pick(ctx: Ctx) -> None:
            items = list(items_of(ctx.st, domain(ctx)))
            rng = ctx.st.rng
            if not items:
                ctx.env[name] = None
            elif isinstance(rng, Chance):
                ctx.env[name] = rng.pick(items, kind)  # the outcome may come from elsewhere (a game log)
            else:
                ctx.env[name] = rng.choice(items)

        return pick

    def _run(self, node: s.Run, scope: Scope) -> Proc:
        routine = self.rules.routines.get(node.routine)
        if routine is None:
            raise RulesError(node.pos, f"unknown routine {node.routine!r}")
        args = tuple(self.visit(a, scope) for a in node.args)
        formals = [f.name for f in routine.formals]
        procs, name = self.routine_procs, node.routine

        def run(ctx: Ctx) -> None:
            env = {"actor": ctx.env.get("actor")}
            for f, a in zip(formals, args, strict=True):
                env[f] = a(ctx)
            procs[name](ctx.derive(env))

        return run

    def _for(self, node: s.ForEach, scope: Scope, origin: Origin) -> Proc:
        domain = self.visit(node.domain, scope)
        body = self.block(node.body, scope | {node.var}, origin)
        var = node.var

        def loop(ctx: Ctx) -> None:
            for item in list(items_of(ctx.st, domain(ctx))):
                ctx.env[var] = item
                body(ctx)

        return _rebind(var, var in scope, loop)

    def _repeat(self, node: s.Repeat, scope: Scope, origin: Origin) -> Proc:
        count = self.visit(node.count, scope)
        body = self.block(node.body, scope, origin)

        def repeat(ctx: Ctx) -> None:
            for _ in range(count(ctx) or 0):
                body(ctx)

        return repeat

    def _if(self, node: s.IfStmt, scope: Scope, origin: Origin) -> Proc:
        cond = self.visit(node.cond, scope)
        then = self.block(node.then, scope, origin)
        other = self.block(node.other, scope, origin)

        def branch(ctx: Ctx) -> None:
            if cond(ctx):
                then(ctx)
            else:
                other(ctx)

        return branch


def _bound_names(stmts: tuple[s.Stmt, ...]) -> list[str]:
    """The names a block's own statements bind (not those of nested blocks, which restore their own)."""
    out: list[str] = []
    for stmt in stmts:
        if isinstance(stmt, s.Let | s.Pick):
            out.append(stmt.name)
        elif isinstance(stmt, s.Draw) and stmt.bind:
            out.append(stmt.bind)
    return out


_WRONG_KIND = (TypeError, IndexError, KeyError, AttributeError, ValueError)


def _wrong_kind(func: str, pos: s.Pos, values: tuple[Any, ...]) -> EngineError:
    shown = ", ".join(repr(v) for v in values)
    return EngineError(f"{pos}: {func}({shown}): an argument is of the wrong kind")


def builtin_call(builtin: Builtin, args: tuple[Fn, ...], pos: s.Pos) -> Fn:
    """A builtin call, total (a none argument gives the entry's none value) and positioned: a value of
    the wrong kind (a number where a slot belongs) becomes an EngineError naming the place, not a crash."""
    impl, func, default, total = builtin.run, builtin.name, builtin.none_value, builtin.total
    if len(args) == 1:
        (a,) = args

        def call1(ctx: Ctx) -> Any:
            x = a(ctx)
            if x is None and not total:
                return default
            try:
                return impl(ctx.st, x)
            except _WRONG_KIND:
                raise _wrong_kind(func, pos, (x,)) from None

        return call1
    if len(args) == 2:
        return _builtin_call2(builtin, args[0], args[1], pos)

    def call(ctx: Ctx) -> Any:
        values = tuple(f(ctx) for f in args)
        if not total and None in values:
            return default
        try:
            return impl(ctx.st, *values)
        except _WRONG_KIND:
            raise _wrong_kind(func, pos, values) from None

    return call


def _fact_call(builtin: Builtin, facts: list[Any], a: Fn, pos: s.Pos) -> Fn:
    """A card fact read straight from the deck's table (the same value `card_fact` gives)."""
    default, func = builtin.none_value, builtin.name

    def fact(ctx: Ctx) -> Any:
        c = a(ctx)
        if c is None:
            return default
        try:
            return facts[c]
        except _WRONG_KIND:
            raise _wrong_kind(func, pos, (c,)) from None

    return fact


def _builtin_call2(builtin: Builtin, a: Fn, b: Fn, pos: s.Pos) -> Fn:
    impl, func, default, total = builtin.run, builtin.name, builtin.none_value, builtin.total

    def call2(ctx: Ctx) -> Any:
        x, y = a(ctx), b(ctx)
        if not total and (x is None or y is None):
            return default
        try:
            return impl(ctx.st, x, y)
        except _WRONG_KIND:
            raise _wrong_kind(func, pos, (x, y)) from None

    return call2


def _short_circuit(want_all: bool, var: str, domain: Fn, body: Fn) -> Fn:
    """all/any that stop at the first deciding item."""

    def quantify(ctx: Ctx) -> bool:
        env = ctx.env
        for item in items_of(ctx.st, domain(ctx)):
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
