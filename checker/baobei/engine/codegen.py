"""The rules' expressions as generated Python source, compiled once, at load.

Why: a tree of closures costs a Python call per syntax node and a dictionary write per
quantified item, and guards and definitions run for every candidate move; one generated
function per expression evaluates the same tree as straight-line Python, a quantifier as a
loop over a local.

What the generated code reads: a name bound outside the expression from `ctx.env` (as
before), a name bound inside it (quantifiers, `first`, filters) from a local, a definition's
formals from its parameters. Every builtin keeps its one meaning: the code calls the registry
entry's `run`, or reads the state attribute or the deck fact the entry itself declares.

Two things a loop does once rather than for every item, as the state cannot change while an
expression is evaluated: it asks for a builtin's tally (the places of every card, say) before it
starts, and it keeps the value of a part of its body that does not depend on the item, worked out
the first time it is needed.

Each expression has two renderings from this one generator. The fast one calls the builtins
directly. The checked one, generated only when the fast one raises, calls each builtin through
`checked_call`, which turns an argument of the wrong kind into an EngineError naming the builtin
and its place. Expressions change nothing, so evaluating one again in the checked rendering is
safe: it gives the same value, or the error the rules should report.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from types import FunctionType
from typing import Any

from ..language import syntax as s
from ..language.arith import DivisionByZero, floor_div, floor_mod
from ..language.builtins import BUILTINS, STATE_NAMES, Builtin
from ..language.errors import EngineError, RulesError
from ..language.ruleset import Ruleset
from ..language.walk import ExprVisitor, expr_children, free_names, walk_expr
from .runtime import Fn, items_of
from .state import PileLoc

WRONG_KIND = (TypeError, IndexError, KeyError, AttributeError, ValueError)
# Generated code nests at most this deep before a part goes into a function of its own: Python's
# parser refuses a few hundred nested parentheses, and the rules allow 200 levels of nesting.
MAX_DEPTH = 24
_ORDER = ("<", "<=", ">", ">=")
_INLINE_ARITH = ("+", "-", "*")


# ---------------------------------------------------------------- what generated code calls


def wrong_kind(func: str, pos: s.Pos, values: tuple[Any, ...]) -> EngineError:
    shown = ", ".join(repr(v) for v in values)
    return EngineError(f"{pos}: {func}({shown}): an argument is of the wrong kind")


def checked_call(builtin: Builtin, pos: s.Pos, st: Any, *values: Any) -> Any:
    """A builtin call, total (a none argument gives the entry's none value) and positioned: a value of
    the wrong kind (a number where a slot belongs) becomes an EngineError naming the place, not a crash."""
    if not builtin.total and any(v is None for v in values):
        return builtin.none_value
    try:
        return builtin.run(st, *values)
    except WRONG_KIND:
        raise wrong_kind(builtin.name, pos, values) from None


def checked_fact(builtin: Builtin, facts: list[Any], pos: s.Pos, card: Any) -> Any:
    """A card fact read straight from the deck's table (the same value `card_fact` gives)."""
    if card is None:
        return builtin.none_value
    try:
        return facts[card]
    except WRONG_KIND:
        raise wrong_kind(builtin.name, pos, (card,)) from None


def arith(fn: Callable[[Any, Any], Any], pos: s.Pos) -> Callable[[Any, Any], Any]:
    """Arithmetic is total on none (a missing card's value, say, gives none); a zero divisor is an error."""

    def apply(a: Any, b: Any) -> Any:
        if a is None or b is None:
            return None
        try:
            return fn(a, b)
        except DivisionByZero:
            raise EngineError(f"{pos}: division by zero") from None

    return apply


def item(st: Any, seq: Any, i: Any) -> Any:
    items = items_of(st, seq)
    return items[i] if isinstance(i, int) and 0 <= i < len(items) else None  # total


def most(values: list[Any]) -> Any:
    present = [v for v in values if v is not None]
    return max(present) if present else None


def least(values: list[Any]) -> Any:
    present = [v for v in values if v is not None]
    return min(present) if present else None


# The builtins whose engine implementation (language/builtins.py) is one call of a Table method with the same
# arguments, and what follows the call: the fast code calls the method itself, a call fewer on every use
# (`knows` is called for every card and player by the invariants about knowledge). tests/test_codegen_methods.py
# checks each against the builtin's own implementation.
TABLE_METHODS: dict[str, tuple[str, str]] = {
    "card_at": ("card_at", ""), "occupied": ("card_at", " is not None"), "cards": ("cards_of", ""),
    "slots": ("occupied_slots", ""), "free_slots": ("free_slots", ""), "held": ("hand_cards", ""),
    "hand": ("hand_place", ""), "seats_from": ("seats_from", ""), "knows": ("knows", ""),
    "marked": ("is_marked", ""), "protected": ("is_protected", ""), "places": ("count_places", ""),
}
# The builtins that take a slot (a (player, number) pair) apart: which item of the pair they give.
SLOT_PARTS = {"owner": 0, "slot_no": 1}
# The builtins whose Table method is one read of the state's lists, written out in place of the call ({0}, {1}:
# the arguments, neither none): `knows` is asked for every card and player by the invariants about knowledge,
# after every move. tests/test_speed_codegen.py checks each against the builtin's own implementation.
TABLE_READS: dict[str, str] = {"knows": "(st.known[{1}] >> {0} & 1 == 1)"}


class Checked:
    """The checked rendering of a function, generated the first time the fast one raises."""

    __slots__ = ("fn", "make")

    def __init__(self, make: Callable[[], Callable[..., Any]]) -> None:
        self.make = make
        self.fn: Callable[..., Any] | None = None

    def __call__(self, *args: Any) -> Any:
        if self.fn is None:
            self.fn = self.make()
        return self.fn(*args)


# ---------------------------------------------------------------- the generator


@dataclass(frozen=True)
class Frame:
    """Where code is generated: the Python expression that reads each rule name in scope, and the
    Python names a function made from this code must take (the state, the names, locals)."""

    names: dict[str, str]
    params: tuple[str, ...]
    tallies: dict[str, str] = field(default_factory=dict)  # builtin -> the local that holds its tally
    memos: dict[int, tuple[str, int]] = field(default_factory=dict)  # id of a node -> where its value is kept
    # Locals that are never none (an item of the players or the deck, an argument that is not optional): a
    # builtin given one needs no test for none, which it would pass on every item of a loop.
    present: frozenset[str] = frozenset()
    # Parts of an expression whose value a local holds, worked out before the loop the code runs in (a
    # listing's guard part that reads one argument: enumeration.py).
    known: dict[int, str] = field(default_factory=dict)

    def bind(self, name: str, local: str, present: bool = False) -> Frame:
        return replace(self, names={**self.names, name: local}, params=(*self.params, local),
                       present=self.present | {local} if present else self.present)

    def tallied(self, builtin: str, local: str) -> Frame:
        return replace(self, params=(*self.params, local), tallies={**self.tallies, builtin: local})

    def memoized(self, local: str, nodes: list[s.Expr], keys: Iterator[int]) -> Frame:
        return replace(self, params=(*self.params, local),
                       memos={**self.memos, **{id(node): (local, next(keys)) for node in nodes}})

    def unmemoized(self, node: s.Expr) -> Frame:
        return replace(self, memos={k: v for k, v in self.memos.items() if k != id(node)})

    def knowing(self, known: dict[int, str]) -> Frame:
        return replace(self, params=(*self.params, *known.values()), known={**self.known, **known})

    def before(self) -> Frame:
        """The frame inside `old(...)`: the tallies counted in the state after the move do not hold there, nor
        the parts worked out in it."""
        return replace(self, tallies={}, known={})


@dataclass
class Unit:
    """A namespace for generated functions: constants they read, and fresh names for them."""

    rules: Ruleset
    facts: dict[str, list[Any]]
    piles: dict[str, PileLoc]
    defines: dict[str, Callable[..., Any]]  # the definitions' generated functions, by name (filled in later)
    ns: dict[str, Any] = field(default_factory=dict)
    _ids: itertools.count[int] = field(default_factory=itertools.count)
    _consts: dict[int, str] = field(default_factory=dict)
    _rows: dict[tuple[str, Any], int | None] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.ns.update({"_WRONG_KIND": WRONG_KIND, "_items_of": items_of, "_item": item, "_most": most,
                        "_least": least, "_D": self.defines, "_call": checked_call, "_fact": checked_fact,
                        "_table": self.table_value, "__builtins__": __builtins__})

    def table_value(self, table: str, players: Any) -> int | None:
        """`Ruleset.table_value`, each answer for a number kept: tables do not change, and some are read in
        every loop (a hand size for every card dealt)."""
        if players.__class__ is not int:
            return self.rules.table_value(table, players)
        key = (table, players)
        if key not in self._rows:
            self._rows[key] = self.rules.table_value(table, players)
        return self._rows[key]

    def fresh(self, prefix: str) -> str:
        return f"_{prefix}{next(self._ids)}"

    def const(self, value: Any) -> str:
        """A name the generated code reads `value` by (literal values are written out)."""
        if value is None or isinstance(value, bool | int | str):
            return repr(value)
        key = id(value)
        if key not in self._consts:
            name = self._consts[key] = self.fresh("k")
            self.ns[name] = value
        return self._consts[key]

    def define(self, source: str, name: str) -> FunctionType:
        """The function `name` that generated `source` defines (with its helpers), compiled when first called.

        Most of what a ruleset compiles is never run by a given engine (a fuzzed variant, a scenario
        check), and compiling is most of the cost of building an engine: so the function starts as a
        stub, and its first call compiles the source and gives the stub the compiled code, so that
        whoever holds the function runs the compiled code from then on."""
        stub = FunctionType(_STUB, self.ns, name)
        stub.__kwdefaults__ = {"_source": (self, source, stub)}
        self.ns[name] = stub
        return stub

    def compile(self, source: str, stub: FunctionType) -> FunctionType:
        name = stub.__name__
        exec(compile(source, f"<rules: {name}>", "exec"), self.ns)  # the source is generated from the rules
        stub.__code__ = self.ns[name].__code__
        stub.__kwdefaults__ = None
        self.ns[name] = stub
        return stub


def _stub(*args: Any, _source: tuple[Unit, str, FunctionType]) -> Any:
    """The code of a function not compiled yet (`Unit.define`): compile it, then run it."""
    unit, source, stub = _source
    return unit.compile(source, stub)(*args)


_STUB = _stub.__code__


class ExprSource(ExprVisitor[tuple[str, int], Frame]):
    """The Python source of an expression (and of the helper functions it needs), with its depth."""

    def __init__(self, unit: Unit, checked: bool) -> None:
        self.unit = unit
        self.checked = checked
        self.helpers: list[str] = []

    def kept(self, node: s.Expr, frame: Frame) -> tuple[str, int]:
        """The code of a node that an enclosing loop keeps: read from where it is kept, and worked out (and
        kept) the first time."""
        where, key = frame.memos[id(node)]
        text, depth = self.visit(node, frame.unmemoized(node))
        return f"({where}[{key}] if {key} in {where} else {where}.setdefault({key}, {text}))", depth + 1

    def code(self, node: s.Expr, frame: Frame) -> str:
        """An expression's code, put into a function of its own when it nests too deep."""
        # visit, or kept: written out here and in sub, as each nesting level of the rules costs frames of
        # Python's stack while the code is generated.
        if id(node) in frame.known:
            return frame.known[id(node)]
        text, depth = self.kept(node, frame) if id(node) in frame.memos else self.visit(node, frame)
        if depth <= MAX_DEPTH:
            return text
        return self.helper(frame, [f"return {text}"])

    def helper(self, frame: Frame, body: list[str], name: str | None = None) -> str:
        """A helper function over the frame's names; the code that calls it."""
        name = name or self.unit.fresh("h")
        args = ", ".join(frame.params)
        if not self.checked:
            body = _hoisted(body)
        self.helpers.append(f"def {name}({args}):\n" + "".join(f"    {line}\n" for line in body))
        return f"{name}({args})"

    def sub(self, node: s.Expr, frame: Frame) -> tuple[str, int]:
        if id(node) in frame.known:
            return frame.known[id(node)], 0
        text, depth = self.kept(node, frame) if id(node) in frame.memos else self.visit(node, frame)
        if depth > MAX_DEPTH:
            return self.helper(frame, [f"return {text}"]), 1
        return text, depth

    def temp(self) -> str:
        return self.unit.fresh("t")

    # ------------------------------------------------------------ leaves
    def lit(self, node: s.Lit, frame: Frame) -> tuple[str, int]:
        return self.unit.const(node.value), 0

    def name(self, node: s.Name, frame: Frame) -> tuple[str, int]:
        name = node.name
        if name in frame.names:
            return frame.names[name], 0
        if name in STATE_NAMES:
            builtin = STATE_NAMES[name]
            if builtin.attribute:  # read straight from the state: these names are read on every guard
                return f"st.{builtin.attribute}", 0
            return f"{self.unit.const(builtin.run)}(st)", 1
        if name in self.unit.piles:
            return self.unit.const(self.unit.piles[name]), 0
        rules = self.unit.rules
        var = rules.variables.get(name)
        if var is not None:
            if var.per_player:
                raise RulesError(node.pos, f"{name!r} holds one value per player: write {name}[player]")
            return f"st.vars[{name!r}]", 1
        define = rules.defines.get(name)
        if define is not None:
            if define.formals:
                raise RulesError(node.pos, f"{name!r} takes {len(define.formals)} argument(s)")
            if isinstance(define.body, s.Lit):
                return self.unit.const(define.body.value), 0  # a named constant: its value, without a call
            return f"_D[{name!r}](st)", 1
        raise RulesError(node.pos, f"unknown name {name!r}")

    # ------------------------------------------------------------ calls
    def call(self, node: s.Call, frame: Frame) -> tuple[str, int]:
        parts = [self.sub(a, frame) for a in node.args]
        args = [text for text, _ in parts]
        depth = 1 + max((d for _, d in parts), default=0)
        if node.func in self.unit.rules.defines:
            return self._define_call(node.func, args), depth
        builtin = BUILTINS.get(node.func)
        if builtin is None or builtin.arity != len(args):
            raise RulesError(node.pos, f"unknown function {node.func!r} with {len(args)} argument(s)")
        if self.checked:
            return self._checked(builtin, node.pos, args), depth
        if builtin.name in frame.tallies:
            t, default, tally = self.temp(), self.unit.const(builtin.none_value), frame.tallies[builtin.name]
            return f"({default} if ({t} := {args[0]}) is None else {tally}.get({t}, {default}))", depth + 1
        return self._fast(builtin, args, frame.present), depth + 1

    @staticmethod
    def _define_call(name: str, args: list[str]) -> str:
        # The checker made sure the arguments fit the formals; the function is looked up when called, so a
        # definition may use one declared after it.
        return f"_D[{name!r}](st{''.join(', ' + a for a in args)})"

    def _checked(self, builtin: Builtin, pos: s.Pos, args: list[str]) -> str:
        b, p = self.unit.const(builtin), self.unit.const(pos)
        if builtin.fact:
            return f"_fact({b}, {self.unit.const(self.unit.facts[builtin.fact])}, {p}, {args[0]})"
        return f"_call({b}, {p}, st{''.join(', ' + a for a in args)})"

    def _fast(self, builtin: Builtin, args: list[str], known: frozenset[str] = frozenset()) -> str:
        """A builtin's call; `known`: locals that are never none (an argument that is one needs no test)."""
        default = self.unit.const(builtin.none_value)
        if builtin.fact:
            if args[0] in known:
                return f"{self.unit.const(self.unit.facts[builtin.fact])}[{args[0]}]"
            t, facts = self.temp(), self.unit.const(self.unit.facts[builtin.fact])
            return f"({default} if ({t} := {args[0]}) is None else {facts}[{t}])"
        run = self.unit.const(builtin.run)
        if builtin.total or not args:
            return f"{run}(st{''.join(', ' + a for a in args)})"
        temps = [a if a in known else self.temp() for a in args]
        tests = " & ".join(f"(({t} := {a}) is not None)" for t, a in zip(temps, args, strict=True) if a not in known)

        def unless_none(code: str) -> str:
            return f"({code} if {tests} else {default})" if tests else f"({code})"

        read = TABLE_READS.get(builtin.name)
        if read is not None:
            return unless_none(read.format(*temps))
        method = TABLE_METHODS.get(builtin.name)
        if method is not None:  # the implementation's one call, made directly: no call of the lambda around it
            call, test = method
            return unless_none(f"st.{call}({', '.join(temps)}){test}")
        if builtin.name in SLOT_PARTS:  # a slot taken apart: the item itself, without a call
            return unless_none(f"{temps[0]}[{SLOT_PARTS[builtin.name]}]")
        return unless_none(f"{run}(st, {', '.join(temps)})")

    def index(self, node: s.Index, frame: Frame) -> tuple[str, int]:
        index, depth = self.sub(node.index, frame)
        base = node.base
        if isinstance(base, s.Name) and base.name not in frame.names:
            if base.name in self.unit.rules.tables:
                # Total: a missing row is none (a match refuses to start without the rows it needs).
                return f"_table({base.name!r}, {index})", depth + 1
            var = self.unit.rules.variables.get(base.name)
            if var is not None and var.per_player:
                t = self.temp()
                return f"(None if ({t} := {index}) is None else st.pvars[{base.name!r}][{t}])", depth + 1
        seq, seq_depth = self.sub(base, frame)
        return f"_item(st, {seq}, {index})", 1 + max(depth, seq_depth)

    # ------------------------------------------------------------ operators
    def unary(self, node: s.Unary, frame: Frame) -> tuple[str, int]:
        inner, depth = self.sub(node.operand, frame)
        if node.op == "not":
            return f"(not {inner})", depth + 1
        t = self.temp()
        return f"(None if ({t} := {inner}) is None else -{t})", depth + 1

    def binary(self, node: s.Binary, frame: Frame) -> tuple[str, int]:
        (left, ld), (right, rd) = self.sub(node.left, frame), self.sub(node.right, frame)
        depth = 1 + max(ld, rd)
        op = node.op
        if op in ("and", "or"):
            return f"((not not {left}) {op} (not not {right}))", depth + 1
        if op == "in":
            return self._member(node, left, right, frame), depth + 1
        if op in ("==", "!="):
            return f"({left} {op} {right})", depth
        a, b = self.temp(), self.temp()
        both = f"(({a} := {left}) is not None) & (({b} := {right}) is not None)"
        if op in _ORDER:
            return f"({a} {op} {b} if {both} else False)", depth + 1
        if op in _INLINE_ARITH:
            return f"({a} {op} {b} if {both} else None)", depth + 1
        fn = arith({"//": floor_div, "%": floor_mod}[op], node.pos)
        return f"{self.unit.const(fn)}({left}, {right})", depth

    def _member(self, node: s.Binary, left: str, right: str, frame: Frame) -> str:
        target = node.right.name if isinstance(node.right, s.Name) and node.right.name not in frame.names else ""
        t = self.temp()
        seat = f"isinstance({t} := {left}, int) and {t} >= 0"  # seats are bit masks: only a seat number has a bit
        if target == "window_players":
            return f"({seat} and bool(st.windows) and bool(st.windows[-1].players >> {t} & 1))"
        if target == "players":
            return f"({seat} and bool(st.in_round >> {t} & 1))"
        return f"({left} in {self.items(right)})"

    def if_expr(self, node: s.IfExpr, frame: Frame) -> tuple[str, int]:
        (cond, cd), (then, td), (other, od) = (self.sub(n, frame) for n in (node.cond, node.then, node.other))
        return f"({then} if {cond} else {other})", 1 + max(cd, td, od)

    # ------------------------------------------------------------ binders: a loop in a helper function
    def _loop(self, var: str, domain: s.Expr, body: s.Expr, frame: Frame) -> tuple[list[str], str, str, str]:
        """Lines that count the tallies the body reads, the items' code, the loop variable and the body's
        code (the variable bound in it). A builtin that declares a tally (`places` of every card, say)
        is asked once before the loop instead of once per item: the state does not change meanwhile."""
        items = self.items(self.code(domain, frame))
        local = self.unit.fresh("l")
        inner, counts = frame.bind(var, local, present=_none_free(domain, frame)), []
        for builtin in _tallies(body):
            if builtin.name not in inner.tallies and not self.checked:
                tally = self.unit.fresh("c")
                counts.append(f"{tally} = st.{builtin.tally}()")
                inner = inner.tallied(builtin.name, tally)
        same = [] if self.checked else _invariant(body, var, inner.memos, self.unit.rules.tables)
        if same:
            # Parts of the body that do not depend on the item (`round_value(bao_caller)` in a loop over the
            # others) are worked out once, the first time the loop needs them, and kept for its other items.
            memo = self.unit.fresh("m")
            counts.append(f"{memo} = {{}}")
            inner = inner.memoized(memo, same, self.unit._ids)
        return counts, items, local, self.code(body, inner)

    def items(self, value: str) -> str:
        """What a quantifier ranges over (`items_of`); most domains are lists already, which it gives as is."""
        t = self.temp()
        return f"({t} if ({t} := {value}).__class__ is list else _items_of(st, {t}))"

    def quant(self, node: s.Quant, frame: Frame) -> tuple[str, int]:
        counts, dom, x, body = self._loop(node.var, node.domain, node.body, frame)
        head = f"for {x} in {dom}:"
        lines = {
            "all": [head, f"    if not {body}:", "        return False", "return True"],
            "any": [head, f"    if {body}:", "        return True", "return False"],
            "sum": ["total = 0", head, f"    total += {body} or 0", "return total"],
            "count": ["total = 0", head, f"    if {body}:", "        total += 1", "return total"],
            "most": ["values = []", head, f"    values.append({body})", "return _most(values)"],
            "least": ["values = []", head, f"    values.append({body})", "return _least(values)"],
        }[node.kind]
        return self.helper(frame, counts + lines), 1

    def first(self, node: s.First, frame: Frame) -> tuple[str, int]:
        counts, dom, x, cond = self._loop(node.var, node.domain, node.cond, frame)
        return self.helper(frame, [*counts, f"for {x} in {dom}:", f"    if {cond}:", f"        return {x}",
                                   "return None"]), 1

    def filter(self, node: s.Filter, frame: Frame) -> tuple[str, int]:
        counts, dom, x, cond = self._loop(node.var, node.domain, node.cond, frame)
        return self.helper(frame, [*counts, "kept = []", f"for {x} in {dom}:", f"    if {cond}:",
                                   f"        kept.append({x})", "return kept"]), 1

    def old(self, node: s.Old, frame: Frame) -> tuple[str, int]:
        # The state before the move, with the names bound where `old` stands (the context before the
        # move shares them); no `old` stands inside another, so the context goes no further.
        inner = self.code(node.expr, frame.before())
        if _plain(node.expr) and "'" not in inner and '"' not in inner and "ctx" not in inner:
            # A builtin or a variable of the state before (`old(knows(p, c))`, read for every card): the same
            # code reading that state, written in place of a helper function called for every read.
            return f"({_STATE.sub('ctx.before.st', inner)})", 1
        name = self.unit.fresh("o")
        self.helper(frame, [f"return {inner}"], name)
        args = ", ".join({"st": "ctx.before.st", "ctx": "None"}.get(p, p) for p in frame.params)
        return f"{name}({args})", 1


# The name the generated code reads the state by (a parameter of every generated function and helper).
_STATE = re.compile(r"\bst\b")


# The state's lists that a helper reads item by item (`knows` of every card and player, after a move and
# before it): each is looked up once, when the helper starts, instead of once per item. The state does not
# change while an expression is evaluated, and an expression that reads the state before a move (`old`) is
# evaluated only where there is one.
_HOISTED = ((re.compile(r"\bctx\.before\.st\.known\["), "_before_known", "ctx.before.st.known"),
            (re.compile(r"(?<![.\w])st\.known\["), "_known", "st.known"))


def _hoisted(body: list[str]) -> list[str]:
    """A helper's lines, each list of `_HOISTED` it reads looked up once at the start."""
    head: list[str] = []
    for pattern, local, read in _HOISTED:
        if any(pattern.search(line) for line in body):
            head.append(f"{local} = {read}")
            body = [pattern.sub(local + "[", line) for line in body]
    return head + body


# The names of the state whose lists never hold none: an item of one is a player or a card.
NONE_FREE = frozenset({"players", "deck"})


def _none_free(domain: s.Expr, frame: Frame) -> bool:
    """Whether no item of this domain is none (the players of the round, the deck)."""
    return isinstance(domain, s.Name) and domain.name in NONE_FREE and domain.name not in frame.names


def _plain(node: s.Expr) -> bool:
    """Names, literals, operators and builtin calls only: code without helpers, loops or definitions."""
    return all(isinstance(e, s.Name | s.Lit | s.Unary | s.Binary | s.Index)
               or (isinstance(e, s.Call) and e.func in BUILTINS) for e in walk_expr(node))


def costly(node: s.Expr, tables: Any = None) -> bool:
    """Whether working `node` out costs more than a name or a sum does, so that working it out once and
    keeping it pays: a call, a quantifier, a search, or a row of one of `tables` (any index when none)."""
    if isinstance(node, s.Call | s.Quant | s.First | s.Filter):
        return True
    if not isinstance(node, s.Index):
        return False
    return tables is None or (isinstance(node.base, s.Name) and node.base.name in tables)


def _invariant(body: s.Expr, var: str, known: dict[int, tuple[str, int]], tables: Any) -> list[s.Expr]:
    """The largest parts of a loop's body worth keeping (a call, a quantifier, a table's row) that read
    neither the loop's variable nor a name bound inside the body: their value is the same for every item.
    Expressions change nothing, so working one out once gives what working it out for each item would."""
    out: list[s.Expr] = []

    def walk(node: s.Expr, bound: frozenset[str]) -> None:
        if id(node) in known:
            return  # kept by an enclosing loop already
        if costly(node, tables) and not free_names(node) & bound:
            out.append(node)
            return
        if isinstance(node, s.Quant | s.First | s.Filter):
            walk(node.domain, bound)
            walk(node.body if isinstance(node, s.Quant) else node.cond, bound | {node.var})
            return
        for child in expr_children(node):
            walk(child, bound)

    walk(body, frozenset({var}))
    return out


def _tallies(node: s.Expr) -> list[Builtin]:
    """The builtins with a tally that an expression calls with one argument, outside any `old(...)`."""
    out: dict[str, Builtin] = {}
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, s.Old):
            continue
        if isinstance(item, s.Call) and len(item.args) == 1:
            builtin = BUILTINS.get(item.func)
            if builtin is not None and builtin.tally:
                out[builtin.name] = builtin
        stack.extend(expr_children(item))
    return list(out.values())


# ---------------------------------------------------------------- entry points


def expression(unit: Unit, node: s.Expr, scope: frozenset[str]) -> Fn:
    """The function of a context that evaluates `node`; names in `scope` are read from the context's names."""
    frame = Frame({name: f"env[{name!r}]" for name in scope}, ("st", "env", "ctx"))
    return _with_checked(lambda checked: _function(unit, (node,), frame, False, checked, "ctx"))


def checked_expression(unit: Unit, node: s.Expr, scope: frozenset[str]) -> Checked:
    """The checked rendering of `expression` alone, generated when first called: what code that evaluates
    the expression inline runs when its fast code raises."""
    frame = Frame({name: f"env[{name!r}]" for name in scope}, ("st", "env", "ctx"))
    return Checked(lambda: _function(unit, (node,), frame, False, True, "ctx"))


def definition(unit: Unit, decl: s.DefineDecl) -> Callable[..., Any]:
    """A definition as a function of the state and its arguments, in the order of its formals."""
    return function(unit, (decl.body,), tuple(f.name for f in decl.formals or ()), conjunction=False)


def function(unit: Unit, nodes: tuple[s.Expr, ...], names: tuple[str, ...], conjunction: bool) -> Callable[..., Any]:
    """A function of the state and the values of `names` (in that order): the value of the one node, or with
    `conjunction` whether every node holds (evaluated in order, stopping at the first that does not)."""
    locals_ = [unit.fresh("l") for _ in names]
    frame = Frame(dict(zip(names, locals_, strict=True)), ("st", *locals_))
    return _with_checked(lambda checked: _function(unit, nodes, frame, conjunction, checked, ", ".join(frame.params)))


def checked_function(unit: Unit, nodes: tuple[s.Expr, ...], names: tuple[str, ...]) -> Checked:
    """The checked rendering of `function` (of one node) alone, generated when first called."""
    locals_ = [unit.fresh("l") for _ in names]
    frame = Frame(dict(zip(names, locals_, strict=True)), ("st", *locals_))
    return Checked(lambda: _function(unit, nodes, frame, False, True, ", ".join(frame.params)))


def _with_checked(make: Callable[[bool], FunctionType]) -> FunctionType:
    """The fast rendering, which falls back on the checked one (made when first needed) when it raises."""
    fast = make(False)
    fast.__globals__[fast.__name__ + "_checked"] = Checked(lambda: make(True))
    return fast


def _function(unit: Unit, nodes: tuple[s.Expr, ...], frame: Frame, conjunction: bool, checked: bool,
              args: str) -> FunctionType:
    """The source of one function over `args` (the context, or the frame's names) and its helpers, compiled."""
    gen = ExprSource(unit, checked)
    codes = [gen.code(node, frame) for node in nodes]
    if conjunction:
        lines = [line for code in codes for line in (f"if not {code}:", "    return False")] + ["return True"]
    else:
        (code,) = codes
        lines = [f"return {code}"]
    name = unit.fresh("f")
    if not checked:
        fallback = f"    return {name}_checked({args})"
        lines = ["try:", *(f"    {line}" for line in lines), "except _WRONG_KIND:", fallback]
    if args == "ctx":
        lines = ["st = ctx.st", "env = ctx.env", *lines]
    body = "".join(f"    {line}\n" for line in lines)
    return unit.define("".join(gen.helpers) + f"def {name}({args}):\n" + body, name)
