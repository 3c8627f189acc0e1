"""Static checks of a whole ruleset, before anything runs: every error names file:line:col.

- builtins and definitions get the right number and kinds of arguments;
- a string compared with or assigned to a value of a declared enumeration (the phases,
  the window kinds, the marks) is one of its names, so `set phase = "discardd"` is an error;
- windows, marks, piles, steps, routines and halts name what the rules declare;
- definitions and routines do not call themselves, directly or not;
- invariants and progress properties are conditions (true or false); `old(...)` stands only in an
  invariant, never inside another `old(...)`, and only a transition invariant (one with `old`) knows
  the name `actor`, the player who made the move.
"""

from __future__ import annotations

from typing import assert_never

from . import syntax as s
from .builtins import BUILTINS, ENGINE_NAMES, STATE_NAMES, TRANSITION_NAMES
from .errors import RulesError
from .kinds import (
    PARAM_KINDS,
    KindOf,
    Kinds,
    bound,
    compatible,
    declared_kind,
    element,
    formal_kinds,
    move_kinds,
    shared_kinds,
)
from .ruleset import ALL_CARDS, Ruleset
from .walk import OLD_NAME, ExprVisitor, called, free_names, runs, stmt_parts
from .words import plural


def check_ruleset(rules: Ruleset) -> None:
    # Cycles first: working out an expression's kind follows definitions into their bodies, so a cycle
    # would recurse without end before it is reported.
    check_define_cycles(rules)
    check_routine_cycles(rules)
    checker = Checker(rules)
    for d in rules.defines.values():
        checker.visit(d.body, formal_kinds(d.formals))
    for v in rules.variables.values():
        checker.visit(v.init, {})
    for m in rules.moves.values():
        checker.transition(m)
    for r in [*rules.routines.values(), *rules.hooks.values()]:
        checker.block(r.body, {**ENGINE_NAMES, **formal_kinds(r.formals)})
    for inv in rules.invariants.values():
        checker.invariant(inv)
    for prog in rules.progress.values():
        if prog.when is not None:
            checker.condition(prog.when, {}, f"the condition of progress {prog.ident!r}")
    for stat in rules.statistics.values():
        checker.statistic(stat)
    for policy in rules.policies.values():
        checker.policy(policy)
    checker.declarations()


class Checker(ExprVisitor[None, Kinds]):
    """Walks expressions and statements with the kinds of the names in scope."""

    def __init__(self, rules: Ruleset) -> None:
        self.rules = rules
        self.kinds = KindOf(rules)
        self.in_invariant = False  # `old(...)` may stand here
        self.in_old = False

    # ------------------------------------------------------------ declarations
    def invariant(self, inv: s.InvariantDecl) -> None:
        env = dict(TRANSITION_NAMES) if inv.two_state else {}
        # A lemma is a claim about one state: the proofs assume it before a move and prove it after.
        self.in_invariant = not inv.lemma
        try:
            for part, e in (("when", inv.when), ("holds", inv.holds)):
                if e is not None:
                    self.condition(e, env, f"the {part} of invariant {inv.ident!r}")
        finally:
            self.in_invariant = False

    def condition(self, node: s.Expr, env: Kinds, what: str) -> None:
        """A property's condition: its names checked, and its value true or false."""
        self.visit(node, env)
        got = self.kinds.visit(node, env)
        if got not in (None, "", "bool"):
            raise RulesError(node.pos, f"{what} must be true or false; this is a {got}")

    def statistic(self, stat: s.StatisticDecl) -> None:
        """A statistic reads the states before (`old`) and after a move, the mover, the ability's card and
        the arguments of the move it counts."""
        what = f"statistic {stat.ident!r}"
        for name in stat.on:
            self.move_params(name, stat.pos, what)
        env = {**ENGINE_NAMES, **shared_kinds([self.rules.moves[name] for name in stat.on])}
        self.in_invariant = True
        try:
            if stat.when is not None:
                self.condition(stat.when, env, f"the when of {what}")
            for part in [d.expr for d in stat.by] + ([stat.outcome] if stat.outcome is not None else []):
                self.visit(part, env)
        finally:
            self.in_invariant = False

    def policy(self, policy: s.PolicyDecl) -> None:
        """A `prefer` rule reads the arguments of its move; an `avoid` rule excludes whole kinds of move,
        so it reads no argument."""
        for rule in policy.rules:
            what = f"a rule of policy {policy.ident!r}"
            env = {"actor": ENGINE_NAMES["actor"]}
            for name in rule.moves:
                params = self.move_params(name, rule.pos, what)
                if rule.prefer:
                    env = {**ENGINE_NAMES, **params}
            if rule.when is not None:
                self.condition(rule.when, env, f"the when of {what}")
            if rule.best is not None:
                self.visit(rule.best, env)
                self.number(rule.best, env)

    def move_params(self, name: str, pos: s.Pos, what: str) -> Kinds:
        """The kinds of a named move's arguments; a name that is no move of the rules is an error."""
        move = self.rules.moves.get(name)
        if move is None:
            raise RulesError(pos, f"{what} names the move {name!r}, which these rules do not declare")
        return move_kinds(move)

    def transition(self, m: s.MoveDecl) -> None:
        for p in m.params:
            if p.kind not in PARAM_KINDS:
                raise RulesError(m.pos, f"parameter {p.name!r} has unknown kind {p.kind!r}; "
                                 f"one of: {', '.join(PARAM_KINDS)}")
        env = {**ENGINE_NAMES, **formal_kinds(m.formals), **{p.name: PARAM_KINDS[p.kind] for p in m.params}}
        if m.by is not None:
            self.visit(m.by, env)
        for req in m.requires:
            self.visit(req.cond, env)
        self.block(m.body, env)

    def say(self, node: s.Say, env: Kinds) -> None:
        holes = node.text.count("{}")
        if holes != len(node.args):
            raise RulesError(node.pos, f"the text of `say` has {plural(holes, 'place')} for a value ({{}}) "
                             f"but {plural(len(node.args), 'argument')} follow it")
        for arg in node.args:
            self.visit(arg, env)
        self.rules.say_kinds[node.pos] = tuple(self.kinds.visit(a, env) or "" for a in node.args)

    def declarations(self) -> None:
        rules = self.rules
        for halt in rules.halts.values():
            self.visit(halt.when, {})
            for name in halt.allow:
                if name not in rules.moves:
                    raise RulesError(halt.pos, f"halt {halt.name!r} allows {name!r}, which is no move")
        if rules.simultaneous is not None:
            self.visit(rules.simultaneous.order, {})
        if rules.implicit is not None:
            for name in rules.implicit.moves:
                move = rules.moves.get(name)
                if move is None or move.is_ability or move.params:
                    raise RulesError(rules.implicit.pos, f"implicit {name!r}: only a move of the rules without "
                                     "arguments can be left out of a log (a referee could not choose them)")
        for protect in rules.protects.values():
            self.visit(protect.when, {protect.owner: "player"})
        # Their text is the reason the engine gives (a refused move, a dropped ability): it cannot be empty.
        texts = [(p.pos, p.text, f"protect {p.name!r}") for p in rules.protects.values()]
        if rules.no_choice is not None:
            texts.append((rules.no_choice.pos, rules.no_choice.text, "no choice"))
        if rules.untriggered is not None:
            texts.append((rules.untriggered.pos, rules.untriggered.text, "untriggered"))
        for pos, text, what in texts:
            if not text.strip():
                raise RulesError(pos, f"{what} needs a text: the reason a move is refused or an ability dropped "
                                 "by this rule")

    # ------------------------------------------------------------ statements
    def block(self, body: tuple[s.Stmt, ...], env: Kinds) -> None:
        env = dict(env)  # names bound in a block end with it
        for stmt in body:
            self.stmt(stmt, env)

    def stmt(self, node: s.Stmt, env: Kinds) -> None:
        match node:
            case s.Let():
                self.visit(node.value, env)
                env[node.name] = self.kinds.visit(node.value, env) or ""
            case s.SetVar():
                self.set_var(node, env)
            case s.Draw():
                self.visit(node.into, env)
                if node.bind:
                    env[node.bind] = "card"
            case s.MoveCard() | s.Swap() | s.Peek() | s.Show() | s.Forget() | s.Trigger() | s.StartTurn():
                self.exprs(node, env)
                if isinstance(node, s.Trigger) and node.after_window:
                    self.need_window(node.pos)
            case s.Mark():
                self.visit(node.card, env)
                self.enum_name("marks", node.mark, node.pos)
            case s.OpenWindow():
                self.exprs(node, env)
                self.need_window(node.pos)
                self.enum_name("window kinds", node.kind, node.pos)
            case s.UseWindow() | s.CloseWindow():
                self.need_window(node.pos)
            case s.Continue():
                self.continue_step(node, env)
            case s.Shuffle():
                self.shuffle(node)
            case s.StartRound():
                if node.players is not None:
                    self.visit(node.players, env)
            case s.Say():
                self.say(node, env)
            case s.Pick():
                self.domain(node.domain, env)
                env[node.name] = element(self.kinds.visit(node.domain, env)) or ""
                self.rules.pick_kinds[node.pos] = env[node.name]
            case s.Run():
                self.run(node, env)
            case s.ForEach():
                self.domain(node.domain, env)
                self.block(node.body, {**env, node.var: element(self.kinds.visit(node.domain, env)) or ""})
            case s.Repeat():
                self.visit(node.count, env)
                self.block(node.body, env)
            case s.IfStmt():
                self.visit(node.cond, env)
                self.block(node.then, env)
                self.block(node.other, env)
            case _:
                assert_never(node)

    def exprs(self, node: s.Stmt, env: Kinds) -> None:
        for e in stmt_parts(node)[0]:
            self.visit(e, env)

    def set_var(self, node: s.SetVar, env: Kinds) -> None:
        if node.index is not None:
            self.visit(node.index, env)
        self.visit(node.value, env)
        if node.name == "phase" and node.index is None:
            self.enum_values("phases", node.value, node.pos)
            return
        var = self.rules.variables.get(node.name)
        if var is None:
            raise RulesError(node.pos, f"cannot set {node.name!r}: only declared variables and the phase can be set")
        if var.per_player != (node.index is not None):
            raise RulesError(node.pos, f"{node.name!r} is {'per player' if var.per_player else 'a single value'}")

    def continue_step(self, node: s.Continue, env: Kinds) -> None:
        for e in (*node.args, node.player):
            self.visit(e, env)
        step = self.rules.moves.get(node.step)
        if step is None or not step.is_step:
            raise RulesError(node.pos, f"unknown step {node.step!r}: declare it with `step {node.step}(...)`")
        if len(step.formals) != len(node.args):
            raise RulesError(node.pos, f"step {node.step!r} takes {len(step.formals)} value(s), got {len(node.args)}")
        self.arg_kinds(node.step, tuple(declared_kind(f.type) for f in step.formals), node.args, env)

    def shuffle(self, node: s.Shuffle) -> None:
        piles = self.rules.piles
        for source in node.sources:
            if source.pile != ALL_CARDS and source.pile not in piles:
                raise RulesError(node.pos, f"cannot shuffle {source.pile!r}: it is neither a declared pile "
                                 f"({', '.join(piles)}) nor {ALL_CARDS}")
            if source.except_top and source.pile == ALL_CARDS:
                raise RulesError(node.pos, f"{ALL_CARDS} has no top card")
        if node.into not in piles:
            raise RulesError(node.pos, f"cards are shuffled into a declared pile, not {node.into!r}")

    def run(self, node: s.Run, env: Kinds) -> None:
        for a in node.args:
            self.visit(a, env)
        routine = self.rules.routines.get(node.routine)
        if routine is None:
            raise RulesError(node.pos, f"unknown routine {node.routine!r}")
        if len(routine.formals) != len(node.args):
            raise RulesError(node.pos, f"routine {node.routine!r} takes {len(routine.formals)} argument(s)")

    def need_window(self, pos: s.Pos) -> None:
        if self.rules.window is None:
            raise RulesError(pos, "the rules declare no window (window \"...\" kinds ... attempts N open N)")

    # ------------------------------------------------------------ enumerations
    def enum_name(self, enum: str, name: str, pos: s.Pos) -> None:
        names = self.rules.enum_values(enum)
        if name not in names:
            raise RulesError(pos, f"{name!r} is not one of the declared {enum}: {', '.join(names) or 'none'}")

    def enum_values(self, enum: str, node: s.Expr, pos: s.Pos) -> None:
        for value, where in string_literals(self.rules, node):
            self.enum_name(enum, value, where)

    def enum_of(self, node: s.Expr) -> str:
        if isinstance(node, s.Name) and node.name in STATE_NAMES:
            return STATE_NAMES[node.name].enum
        return ""

    # ------------------------------------------------------------ expressions
    def lit(self, node: s.Lit, env: Kinds) -> None:
        return None

    def name(self, node: s.Name, env: Kinds) -> None:
        if self.in_invariant and node.name in ENGINE_NAMES and node.name not in env:
            raise RulesError(node.pos, f"{node.name!r} is bound only while a rule runs; in an invariant only "
                             "a transition invariant (one that reads old(...)) knows 'actor', the player who "
                             "made the move")
        return None  # other unknown names are refused by the compiler, which resolves them

    def call(self, node: s.Call, env: Kinds) -> None:
        for a in node.args:
            self.visit(a, env)
        define = self.rules.defines.get(node.func)
        if define is not None:
            wanted = len(define.formals or ())
            if wanted != len(node.args):
                raise RulesError(node.pos, f"{node.func!r} takes {wanted} argument(s), got {len(node.args)}")
            self.arg_kinds(node.func, tuple(declared_kind(f.type) for f in define.formals or ()), node.args, env)
            return
        builtin = BUILTINS.get(node.func)
        if builtin is None:
            raise RulesError(node.pos, f"unknown function {node.func!r}")
        if builtin.arity != len(node.args):
            raise RulesError(node.pos, f"{node.func!r} takes {builtin.arity} argument(s), got {len(node.args)}")
        self.arg_kinds(node.func, builtin.args, node.args, env)
        for kind, arg in zip(builtin.args, node.args, strict=True):
            if kind == "str" and builtin.enum:
                self.enum_values(builtin.enum, arg, arg.pos)

    def arg_kinds(self, func: str, expected: tuple[str, ...], args: tuple[s.Expr, ...], env: Kinds) -> None:
        """A function given a player where it reads a card (say) is a rules error, found at load."""
        for i, (wanted, arg) in enumerate(zip(expected, args, strict=False), 1):
            got = self.kinds.visit(arg, env)
            if not compatible(wanted, got):
                raise RulesError(arg.pos, f"argument {i} of {func!r} is a {wanted}; this is a {got}")

    def index(self, node: s.Index, env: Kinds) -> None:
        self.visit(node.base, env)
        self.visit(node.index, env)

    def unary(self, node: s.Unary, env: Kinds) -> None:
        self.visit(node.operand, env)
        if node.op == "neg":
            self.number(node.operand, env)

    def number(self, node: s.Expr, env: Kinds) -> None:
        """Arithmetic reads numbers: a value of another known kind is refused where it is written."""
        got = self.kinds.visit(node, env)
        if got not in (None, "", "int"):
            raise RulesError(node.pos, f"arithmetic needs a number; this is a {got}")

    def binary(self, node: s.Binary, env: Kinds) -> None:
        self.visit(node.left, env)
        self.visit(node.right, env)
        if node.op in ("==", "!="):
            for a, b in ((node.left, node.right), (node.right, node.left)):
                enum = self.enum_of(a)
                if enum:
                    self.enum_values(enum, b, node.pos)
        if node.op in ("+", "-", "*", "//", "%"):
            self.number(node.left, env)
            self.number(node.right, env)
        if node.op in ("//", "%") and isinstance(node.right, s.Lit) and node.right.value == 0:
            raise RulesError(node.right.pos, "division by zero")

    def if_expr(self, node: s.IfExpr, env: Kinds) -> None:
        for e in (node.cond, node.then, node.other):
            self.visit(e, env)

    def domain(self, node: s.Expr, env: Kinds) -> None:
        """What a quantifier, `first`, a filter, `for` or `pick` ranges over: a list or a pile's cards."""
        self.visit(node, env)
        kind = self.kinds.visit(node, env)
        if kind and not kind.startswith("list ") and kind != "place":
            article = "an" if kind[0] in "aeiou" else "a"
            raise RulesError(node.pos, f"this ranges over {article} {kind}; expected a list (players, cards, "
                             "slots) or a pile")

    def quant(self, node: s.Quant, env: Kinds) -> None:
        self.domain(node.domain, env)
        self.visit(node.body, bound(self.kinds, node, env))

    def first(self, node: s.First, env: Kinds) -> None:
        self.domain(node.domain, env)
        self.visit(node.cond, bound(self.kinds, node, env))

    def filter(self, node: s.Filter, env: Kinds) -> None:
        self.domain(node.domain, env)
        self.visit(node.cond, bound(self.kinds, node, env))

    def old(self, node: s.Old, env: Kinds) -> None:
        if not self.in_invariant:
            raise RulesError(node.pos, "old(...) reads the state before a move: it may stand only in an "
                             "invariant's when or holds, or in a statistic")
        if self.in_old:
            raise RulesError(node.pos, "old(...) inside old(...): the inner one would read the same state")
        self.in_old = True
        try:
            self.visit(node.expr, env)
        finally:
            self.in_old = False


def string_literals(rules: Ruleset, node: s.Expr) -> list[tuple[str, s.Pos]]:
    """The string literals an expression may give as its value (through `if` and named definitions)."""
    match node:
        case s.Lit(value=str(text)):
            return [(text, node.pos)]
        case s.IfExpr():
            return string_literals(rules, node.then) + string_literals(rules, node.other)
        case s.Name() if node.name in rules.defines and not rules.defines[node.name].formals:
            return string_literals(rules, rules.defines[node.name].body)
        case _:
            return []


def check_define_cycles(rules: Ruleset) -> None:
    """Definitions may not call themselves, directly or not: expressions stay total."""
    defines = rules.defines
    for d in defines.values():
        if d.formals and d.name == OLD_NAME:
            raise RulesError(d.pos, f"a definition with arguments cannot be called {OLD_NAME}: {OLD_NAME}(...) is the "
                             "two-state form of invariants")
    graph = {n: free_names(d.body) | called(d.body) for n, d in defines.items()}
    state: dict[str, int] = {}

    def visit(name: str, path: list[str]) -> None:
        if state.get(name) == 2:
            return
        if state.get(name) == 1:
            raise RulesError(defines[name].pos, "definitions call each other in a cycle: " + " -> ".join([*path, name]))
        state[name] = 1
        for dep in graph[name]:
            if dep in defines:
                visit(dep, [*path, name])
        state[name] = 2

    for name in defines:
        visit(name, [])


def check_routine_cycles(rules: Ruleset) -> None:
    """A routine may not run itself, directly or not: every move's effect ends."""
    routines = rules.routines
    graph = {name: runs(r.body) for name, r in routines.items()}
    done: set[str] = set()

    def visit(name: str, path: list[str]) -> None:
        if name in path:
            raise RulesError(routines[name].pos, "routines run each other in a cycle: "
                             + " -> ".join([*path[path.index(name):], name]))
        if name in done:
            return
        for callee in graph[name]:
            if callee in routines:
                visit(callee, [*path, name])
        done.add(name)

    for name in routines:
        visit(name, [])
