"""Static checks of a whole ruleset, before anything runs: every error names file:line:col.

- builtins, definitions, routines and statements get the right number and kinds of arguments;
- values have the kinds their places need: a variable's initial value and every value `set` gives it
  have its declared type, `==` and `!=` compare values of one kind, arithmetic and `<` read numbers,
  conditions (`require`, `if`, `and`, `where`, ...) are true or false, a table is read by a number and a
  per-player variable by a player; a value whose kind cannot be told (`none`, a parameter of unknown
  kind) is never refused, so only certain mismatches are errors;
- a table read by the player count has a row for every player count the rules allow;
- a string compared with or assigned to a value of a declared enumeration (the phases,
  the window kinds, the marks) is one of its names, so `set phase = "discardd"` is an error;
- windows, marks, piles, steps, routines and halts name what the rules declare;
- definitions and routines do not call themselves, directly or not;
- invariants and progress properties are conditions (true or false); `old(...)` stands only in an
  invariant, never inside another `old(...)`, and only a transition invariant (one with `old`) knows
  the name `actor`, the player who made the move.
"""

from __future__ import annotations

import itertools
from typing import assert_never

from . import syntax as s
from .builtins import BUILTINS, ENGINE_NAMES, STATE_NAMES, TRANSITION_NAMES
from .errors import RulesError
from .kinds import (
    ARITH_OPS,
    ORDER_OPS,
    PARAM_KINDS,
    PLACE,
    KindOf,
    Kinds,
    a_kind,
    any_of,
    bound,
    comparable,
    compatible,
    declared_kind,
    element,
    fits,
    formal_kinds,
    is_collection,
    move_kinds,
    shared_kinds,
)
from .ruleset import ALL_CARDS, Ruleset
from .statements import spec_of
from .walk import OLD_NAME, ExprVisitor, called, free_names, runs, stmt_parts
from .words import plural

# Where a card may be put: on a slot, or into a pile or a hand.
WHERE = ("slot", PLACE)
# What each expression of a statement is, and the kinds it may have, in the order walk.stmt_parts gives
# them: an error names it, with the words the statement starts with (statements.py). Statements not listed
# are checked on their own (set, continue, run, if, let, say) or have no expression.
Part = tuple[str, tuple[str, ...]]
CARD, PLAYER = ("card",), ("player",)
STATEMENT_KINDS: dict[type, tuple[Part, ...]] = {
    s.Draw: (("destination", WHERE),),
    s.MoveCard: (("card", CARD), ("destination", WHERE)),
    s.Swap: (("first card", CARD), ("second card", CARD)),
    s.Peek: (("player", PLAYER), ("card", CARD)),
    s.Show: (("card", CARD),),
    s.Forget: (("card", CARD),),
    s.Mark: (("card", CARD),),
    s.OpenWindow: (("reference", CARD), ("players", ("list player",))),
    s.Trigger: (("card", CARD), ("player", PLAYER)),
    s.StartTurn: (("player", PLAYER),),
    s.StartRound: (("players", ("list player",)),),
    s.Repeat: (("count", ("int",)),),
}
# The names of the state that count players: a table read by one of them needs a row for every count.
PLAYER_COUNTS = frozenset({"player_count", "seat_count"})


def check_ruleset(rules: Ruleset) -> None:
    # Cycles first: working out an expression's kind follows definitions into their bodies, so a cycle
    # would recurse without end before it is reported.
    check_define_cycles(rules)
    check_routine_cycles(rules)
    checker = Checker(rules)
    for d in rules.defines.values():
        checker.visit(d.body, formal_kinds(d.formals))
    for v in rules.variables.values():
        checker.var_init(v)
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
    check_table_rows(rules, checker.tables_read, checker.tables_by_count)


class Checker(ExprVisitor[None, Kinds]):
    """Walks expressions and statements with the kinds of the names in scope."""

    def __init__(self, rules: Ruleset) -> None:
        self.rules = rules
        self.kinds = KindOf(rules)
        self.in_invariant = False  # `old(...)` may stand here
        self.in_old = False
        # The tables some expression reads, and those it reads by what may be a player count.
        self.tables_read: set[str] = set()
        self.tables_by_count: set[str] = set()
        self.counting_defines: dict[str, bool] = {}  # see define_counts_players

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
        """A condition: its names checked, and its value true or false."""
        self.visit(node, env)
        self.truth(node, env, what)

    def truth(self, node: s.Expr, env: Kinds, what: str) -> None:
        """A value that decides (a guard, an operand of `and`) is true or false: a number or a player is
        refused, never read as true when not zero."""
        got = self.kinds.visit(node, env)
        if got not in (None, "", "bool"):
            raise RulesError(node.pos, f"{what} must be true or false; this is {a_kind(got)}")

    def expect(self, node: s.Expr, env: Kinds, wanted: tuple[str, ...], what: str, why: str = "") -> None:
        """A value of a known kind where another kind belongs is refused where it is written: `what` it is,
        the kinds `wanted` there, and `why` (in parentheses) when the kind comes from elsewhere."""
        got = self.kinds.visit(node, env)
        if not fits(wanted, got):
            because = f" ({why})" if why else ""
            raise RulesError(node.pos, f"{what} must be {any_of(wanted)}{because}; this is {a_kind(got)}")

    def var_init(self, var: s.VarDecl) -> None:
        self.visit(var.init, {})
        self.expect(var.init, {}, (declared_kind(var.type),), f"the initial value of variable {var.name!r}",
                    "its declared type")

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
            self.condition(m.by, env, f"the `by` of {m.name!r}")
        for req in m.requires:
            self.condition(req.cond, env, f"a `require` of {m.name!r}")
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
            self.condition(halt.when, {}, f"the `when` of halt {halt.name!r}")
            for name in halt.allow:
                if name not in rules.moves:
                    raise RulesError(halt.pos, f"halt {halt.name!r} allows {name!r}, which is no move")
        if rules.simultaneous is not None:
            self.visit(rules.simultaneous.order, {})
            self.expect(rules.simultaneous.order, {}, ("list player",), "the order of simultaneous calls")
        if rules.implicit is not None:
            for name in rules.implicit.moves:
                move = rules.moves.get(name)
                if move is None or move.is_ability or move.params:
                    raise RulesError(rules.implicit.pos, f"implicit {name!r}: only a move of the rules without "
                                     "arguments can be left out of a log (a referee could not choose them)")
        for protect in rules.protects.values():
            self.condition(protect.when, {protect.owner: "player"}, f"the `when` of protect {protect.name!r}")
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
                self.exprs(node, env)
                if node.bind:
                    env[node.bind] = "card"
            case s.MoveCard() | s.Swap() | s.Peek() | s.Show() | s.Forget() | s.Trigger() | s.StartTurn():
                self.exprs(node, env)
                if isinstance(node, s.Trigger) and node.after_window:
                    self.need_window(node.pos)
            case s.Mark():
                self.exprs(node, env)
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
                self.exprs(node, env)
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
                self.exprs(node, env)
                self.block(node.body, env)
            case s.IfStmt():
                self.condition(node.cond, env, "the condition of `if`")
                self.block(node.then, env)
                self.block(node.other, env)
            case _:
                assert_never(node)

    def exprs(self, node: s.Stmt, env: Kinds) -> None:
        """A statement's expressions, each checked, and of the kind the statement needs (STATEMENT_KINDS)."""
        parts = stmt_parts(node)[0]
        for e in parts:
            self.visit(e, env)
        for e, (role, wanted) in zip(parts, STATEMENT_KINDS.get(type(node), ()), strict=False):
            self.expect(e, env, wanted, f"the {role} of `{statement_words(node)}`")

    def set_var(self, node: s.SetVar, env: Kinds) -> None:
        if node.index is not None:
            self.visit(node.index, env)
        self.visit(node.value, env)
        if node.name == "phase" and node.index is None:
            self.expect(node.value, env, (STATE_NAMES["phase"].result,), "the phase", "one of the declared phases")
            self.enum_values("phases", node.value, node.pos)
            return
        var = self.rules.variables.get(node.name)
        if var is None:
            raise RulesError(node.pos, f"cannot set {node.name!r}: only declared variables and the phase can be set")
        if var.per_player != (node.index is not None):
            raise RulesError(node.pos, f"{node.name!r} is {'per player' if var.per_player else 'a single value'}")
        if node.index is not None:
            self.expect(node.index, env, ("player",), f"the index of {node.name!r}", "it holds a value per player")
        self.expect(node.value, env, (declared_kind(var.type),), f"the value of {node.name!r}", "its declared type")

    def continue_step(self, node: s.Continue, env: Kinds) -> None:
        for e in (*node.args, node.player):
            self.visit(e, env)
        step = self.rules.moves.get(node.step)
        if step is None or not step.is_step:
            raise RulesError(node.pos, f"unknown step {node.step!r}: declare it with `step {node.step}(...)`")
        if len(step.formals) != len(node.args):
            raise RulesError(node.pos, f"step {node.step!r} takes {len(step.formals)} value(s), got {len(node.args)}")
        self.arg_kinds(node.step, tuple(declared_kind(f.type) for f in step.formals), node.args, env)
        self.expect(node.player, env, ("player",), f"the player of `continue {node.step}`")

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
        self.arg_kinds(node.routine, tuple(declared_kind(f.type) for f in routine.formals), node.args, env)

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
        if builtin.collection:
            for i, arg in enumerate(node.args, 1):
                self.collection(arg, env, f"argument {i} of {node.func!r}")
        for kind, arg in zip(builtin.args, node.args, strict=True):
            if kind == "str" and builtin.enum:
                self.enum_values(builtin.enum, arg, arg.pos)

    def arg_kinds(self, func: str, expected: tuple[str, ...], args: tuple[s.Expr, ...], env: Kinds) -> None:
        """A function given a player where it reads a card (say) is a rules error, found at load."""
        for i, (wanted, arg) in enumerate(zip(expected, args, strict=False), 1):
            got = self.kinds.visit(arg, env)
            if not compatible(wanted, got):
                raise RulesError(arg.pos, f"argument {i} of {func!r} is {a_kind(wanted)}; this is {a_kind(got)}")

    def index(self, node: s.Index, env: Kinds) -> None:
        self.visit(node.base, env)
        self.visit(node.index, env)
        base = node.base.name if isinstance(node.base, s.Name) and node.base.name not in env else ""
        if base in self.rules.tables:
            self.table_read(base, node.index, env)
            self.expect(node.index, env, ("int",), f"the row of table {base!r}", "a player count")
        elif base in self.rules.variables and self.rules.variables[base].per_player:
            self.expect(node.index, env, ("player",), f"the index of {base!r}", "it holds a value per player")
        else:
            self.collection(node.base, env, "what is indexed")
            self.expect(node.index, env, ("int",), "the index of a list")

    def table_read(self, table: str, index: s.Expr, env: Kinds) -> None:
        """Note a read of a table, and whether its index may be a player count (check_table_rows)."""
        self.tables_read.add(table)
        if self.may_count_players(index, env):
            self.tables_by_count.add(table)

    def may_count_players(self, node: s.Expr, env: Kinds) -> bool:
        """Whether an index may be a player count: it reads the count of players or seats, a local name (a
        parameter, a loop's item, a `let`) whose value cannot be told here, or a definition that may."""
        return any(name in PLAYER_COUNTS or name in env or self.define_counts_players(name)
                   for name in free_names(node) | called(node))

    def define_counts_players(self, name: str) -> bool:
        """Whether a definition's value may be a player count; worked out once per definition, as
        definitions that read each other many times over would otherwise be followed again each time."""
        if name not in self.rules.defines:
            return False
        if name not in self.counting_defines:
            define = self.rules.defines[name]
            self.counting_defines[name] = self.may_count_players(define.body, formal_kinds(define.formals))
        return self.counting_defines[name]

    def unary(self, node: s.Unary, env: Kinds) -> None:
        self.visit(node.operand, env)
        if node.op == "neg":
            self.number(node.operand, env)
        else:
            self.truth(node.operand, env, "the operand of `not`")

    def number(self, node: s.Expr, env: Kinds, what: str = "arithmetic") -> None:
        """Arithmetic reads numbers: a value of another known kind is refused where it is written."""
        got = self.kinds.visit(node, env)
        if got not in (None, "", "int"):
            raise RulesError(node.pos, f"{what} needs a number; this is {a_kind(got)}")

    def binary(self, node: s.Binary, env: Kinds) -> None:
        self.visit(node.left, env)
        self.visit(node.right, env)
        if node.op in ("==", "!="):
            self.same_kind(node, env)
            for a, b in ((node.left, node.right), (node.right, node.left)):
                enum = self.enum_of(a)
                if enum:
                    self.enum_values(enum, b, node.pos)
        elif node.op in ARITH_OPS + ORDER_OPS:
            what = "arithmetic" if node.op in ARITH_OPS else f"the comparison `{node.op}`"
            self.number(node.left, env, what)
            self.number(node.right, env, what)
        elif node.op == "in":
            self.member(node, env)
        else:
            self.truth(node.left, env, f"each side of `{node.op}`")
            self.truth(node.right, env, f"each side of `{node.op}`")
        if node.op in ("//", "%") and isinstance(node.right, s.Lit) and node.right.value == 0:
            raise RulesError(node.right.pos, "division by zero")

    def same_kind(self, node: s.Binary, env: Kinds) -> None:
        """`==` and `!=` compare values of one kind: a phase (a word) is never equal to a number."""
        left, right = self.kinds.visit(node.left, env), self.kinds.visit(node.right, env)
        if not comparable(left, right):
            raise RulesError(node.pos, f"`{node.op}` compares values of one kind; this compares {a_kind(left)} "
                             f"with {a_kind(right)}")

    def member(self, node: s.Binary, env: Kinds) -> None:
        """`x in xs`: the right side holds items (a list, a pile, a hand), the left side is one of them."""
        self.collection(node.right, env, "the right side of `in`")
        items = self.kinds.visit(node.right, env)
        item = "card" if items == PLACE else element(items)
        if item:
            self.expect(node.left, env, (item,), "the left side of `in`", f"the right side is {a_kind(items)}")

    def if_expr(self, node: s.IfExpr, env: Kinds) -> None:
        for e in (node.cond, node.then, node.other):
            self.visit(e, env)
        self.truth(node.cond, env, "the condition of `if`")
        then, other = self.kinds.visit(node.then, env), self.kinds.visit(node.other, env)
        if not comparable(then, other):
            raise RulesError(node.other.pos, f"the `else` of `if ... then ... else` must be {a_kind(then)}, the kind "
                             f"of its `then`; this is {a_kind(other)}")

    def collection(self, node: s.Expr, env: Kinds, what: str) -> None:
        """A value that holds items: a list, or a pile or hand (a place)."""
        kind = self.kinds.visit(node, env)
        if not is_collection(kind):
            raise RulesError(node.pos, f"{what} must be a list (players, cards, slots) or a pile; this is "
                             f"{a_kind(kind)}")

    def domain(self, node: s.Expr, env: Kinds) -> None:
        """What a quantifier, `first`, a filter, `for` or `pick` ranges over: a list or a pile's cards."""
        self.visit(node, env)
        kind = self.kinds.visit(node, env)
        if not is_collection(kind):
            raise RulesError(node.pos, f"this ranges over {a_kind(kind)}; expected a list (players, cards, "
                             "slots) or a pile")

    def quant(self, node: s.Quant, env: Kinds) -> None:
        self.domain(node.domain, env)
        inner = bound(self.kinds, node, env)
        self.visit(node.body, inner)
        if node.kind in ("all", "any", "count"):
            self.truth(node.body, inner, f"the condition of `{node.kind}`")
        else:
            self.number(node.body, inner, f"`{node.kind}`")

    def first(self, node: s.First, env: Kinds) -> None:
        self.domain(node.domain, env)
        self.condition(node.cond, bound(self.kinds, node, env), "the condition of `where`")

    def filter(self, node: s.Filter, env: Kinds) -> None:
        self.domain(node.domain, env)
        self.condition(node.cond, bound(self.kinds, node, env), "the condition of `where`")

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


def statement_words(node: s.Stmt) -> str:
    """The words a statement starts with, up to its first part (`start turn of` of `start turn of PLAYER`)."""
    words = spec_of(node).syntax.split()
    return " ".join(itertools.takewhile(lambda w: w.isalpha() and w.islower(), words))


def check_table_rows(rules: Ruleset, read: set[str], by_count: set[str]) -> None:
    """A table has a row for every player count the rules allow: the rules declare tables as rows of player
    counts, and a missing row would be met only in play, with no file or line. A table every reading of
    which is by another number (a round, a turn) is not read by player count, and needs no such row."""
    for table in rules.tables.values():
        if table.name in read and table.name not in by_count:
            continue
        covered = {n for row in table.rows for n in range(row.low, row.high + 1)}
        missing = [n for n in range(rules.min_players, rules.max_players + 1) if n not in covered]
        if missing:
            raise RulesError(table.pos, f"table {table.name!r} has no row for {plural(missing[0], 'player')}: "
                             f"the rules allow {rules.min_players} to {rules.max_players} players "
                             f"({rules.players_cite}), and each count needs a row (missing: "
                             f"{', '.join(map(str, missing))})")


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
