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

from collections.abc import Callable
from typing import Any, assert_never

from ..language import syntax as s
from ..language.errors import RulesError
from . import codegen
from .effects import Effects
from .runtime import Ctx, Fn, Origin, Proc, items_of
from .state import Chance, PileLoc

Scope = frozenset[str]
_UNSET = object()


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


class Compiler:
    """Resolves names against the ruleset and builds the functions the engine runs: expressions and
    definitions as generated code (codegen.py), statements as closures over them."""

    def __init__(self, rules: Any, effects: Effects, define_fns: dict[str, Callable[..., Any]],
                 routine_procs: dict[str, Proc]) -> None:
        self.rules = rules
        self.effects = effects
        self.define_fns = define_fns
        self.routine_procs = routine_procs
        self.piles = {name: PileLoc(i, name) for i, name in enumerate(rules.piles)}
        self.unit = codegen.Unit(rules, effects.eng.facts.facts, self.piles, define_fns)

    # ------------------------------------------------------------ expressions
    def expr(self, node: s.Expr, scope: Scope) -> Fn:
        return codegen.expression(self.unit, node, scope)

    def define(self, decl: s.DefineDecl) -> Callable[..., Any]:
        """A definition as a function of the state and its arguments (in the order of its formals)."""
        return codegen.definition(self.unit, decl)

    def function(self, nodes: tuple[s.Expr, ...], names: tuple[str, ...], conjunction: bool = False
                 ) -> Callable[..., Any]:
        """The value of one expression, or with `conjunction` whether all hold, as a function of the state and
        the values of `names` in that order (no context and no dictionary of names: for random play)."""
        return codegen.function(self.unit, nodes, names, conjunction)

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
        fx, e = self.effects, self.expr
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
        value = self.expr(node.value, scope)
        if node.name == "phase" and node.index is None:
            return self.effects.set_phase(value)
        var = self.rules.variables.get(node.name)
        if var is None:
            raise RulesError(node.pos, f"cannot set {node.name!r}: only declared variables and the phase can be set")
        index = self.expr(node.index, scope) if node.index is not None else None
        return self.effects.set_var(node.name, var.type, index, value, origin)

    def _pick(self, node: s.Pick, scope: Scope) -> Proc:
        domain, name = self.expr(node.domain, scope), node.name
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
        args = tuple(self.expr(a, scope) for a in node.args)
        formals = [f.name for f in routine.formals]
        procs, name = self.routine_procs, node.routine

        def run(ctx: Ctx) -> None:
            env = {"actor": ctx.env.get("actor")}
            for f, a in zip(formals, args, strict=True):
                env[f] = a(ctx)
            procs[name](ctx.derive(env))

        return run

    def _for(self, node: s.ForEach, scope: Scope, origin: Origin) -> Proc:
        domain = self.expr(node.domain, scope)
        body = self.block(node.body, scope | {node.var}, origin)
        var = node.var

        def loop(ctx: Ctx) -> None:
            for item in list(items_of(ctx.st, domain(ctx))):
                ctx.env[var] = item
                body(ctx)

        return _rebind(var, var in scope, loop)

    def _repeat(self, node: s.Repeat, scope: Scope, origin: Origin) -> Proc:
        count = self.expr(node.count, scope)
        body = self.block(node.body, scope, origin)

        def repeat(ctx: Ctx) -> None:
            for _ in range(count(ctx) or 0):
                body(ctx)

        return repeat

    def _if(self, node: s.IfStmt, scope: Scope, origin: Origin) -> Proc:
        cond = self.expr(node.cond, scope)
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
