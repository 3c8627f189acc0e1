"""Generated code stays valid Python however deep an expression nests, for every kind of expression.

Python's parser refuses code nested about 200 parentheses deep. The generator counts how deep each part of
an expression nests and moves a part into a helper function of its own once it passes codegen.MAX_DEPTH.
Each case here nests one construct far deeper than Python allows in one piece and compares the value
with the same construct applied one level at a time: a construct whose depth the generator miscounts
(counted as adding nothing) leaves code Python cannot parse.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator

import pytest
from baobei.engine.compiler import Compiler
from baobei.engine.engine import Engine
from baobei.engine.state import State
from baobei.language import syntax as s
from baobei.language.errors import EngineError

HERE = s.Pos("<generated>", 3, 7)
# Deeper than Python's limit of nested parentheses even for a construct that writes one per level.
LEVELS = 230

Wrap = Callable[[s.Expr], s.Expr]


def lit(value: int | str | bool | None) -> s.Lit:
    return s.Lit(HERE, value)


def name(text: str) -> s.Name:
    return s.Name(HERE, text)


def binary(op: str, right: s.Expr) -> Wrap:
    return lambda inner: s.Binary(HERE, op, inner, right)


def call(func: str, *rest: s.Expr) -> Wrap:
    return lambda inner: s.Call(HERE, func, (inner, *rest))


# (what one level wraps around the expression inside it, the innermost expression)
CASES: dict[str, tuple[Wrap, s.Expr]] = {
    "minus": (lambda inner: s.Unary(HERE, "neg", inner), lit(7)),
    "not": (lambda inner: s.Unary(HERE, "not", inner), lit(True)),
    "and": (lambda inner: s.Binary(HERE, "and", lit(True), inner), lit(True)),
    "or": (binary("or", lit(False)), lit(True)),
    "equal": (binary("==", lit(True)), lit(True)),
    "less": (binary("<", lit(2)), lit(0)),
    "plus": (binary("+", lit(1)), lit(0)),
    "floor division": (binary("//", lit(1)), lit(7)),
    "remainder": (binary("%", lit(1000)), lit(7)),
    "member of the players": (binary("in", name("players")), lit(0)),
    "if": (lambda inner: s.IfExpr(HERE, lit(True), inner, lit(0)), lit(7)),
    "builtin of one argument": (call("abs"), lit(-7)),
    "builtin of two arguments": (call("max", lit(0)), lit(7)),
    "a table's row": (lambda inner: s.Index(HERE, name("hand_size"), inner), lit(4)),
    "a player's variable": (lambda inner: s.Index(HERE, name("total"), inner), lit(0)),
    "an item of a list": (lambda inner: s.Index(HERE, name("players"), inner), lit(0)),
    "a quantifier": (lambda inner: s.Quant(HERE, "sum", "p", name("players"), inner), lit(1)),
}


@pytest.fixture(autouse=True)
def deep_stack() -> Iterator[None]:
    # The generator follows the tree recursively, a few frames per level: room for LEVELS levels.
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 20 * LEVELS))
    yield
    sys.setrecursionlimit(limit)


def evaluate(eng: Engine, st: State, node: s.Expr) -> object:
    fn = Compiler(eng.rules, eng.effects, eng.define_fns, eng.routine_procs).expr(node, frozenset())
    return eng.evaluate(st, fn)


def nested(wrap: Wrap, inner: s.Expr, levels: int) -> s.Expr:
    for _ in range(levels):
        inner = wrap(inner)
    return inner


def one_level_at_a_time(eng: Engine, st: State, wrap: Wrap, inner: s.Expr, levels: int) -> object:
    value = evaluate(eng, st, inner)
    for _ in range(levels):
        assert value is None or isinstance(value, bool | int | str)
        value = evaluate(eng, st, wrap(lit(value)))
    return value


@pytest.mark.parametrize("case", sorted(CASES))
def test_an_expression_nested_deeper_than_python_allows_keeps_its_value(
        default_engine: Engine, dealt: State, case: str) -> None:
    wrap, inner = CASES[case]
    expected = one_level_at_a_time(default_engine, dealt, wrap, inner, LEVELS)
    assert evaluate(default_engine, dealt, nested(wrap, inner, LEVELS)) == expected


def test_a_deep_expression_gives_its_value_where_every_part_is_a_different_construct(
        default_engine: Engine, dealt: State) -> None:
    # The constructs in turn, so that each one's count meets every other's.
    wraps = [CASES[case][0] for case in ("minus", "plus", "if", "builtin of one argument", "remainder")]
    node: s.Expr = lit(3)
    value = evaluate(default_engine, dealt, node)
    for level in range(LEVELS):
        wrap = wraps[level % len(wraps)]
        node = wrap(node)
        value = evaluate(default_engine, dealt, wrap(lit(value)))  # type: ignore[arg-type]
    assert evaluate(default_engine, dealt, node) == value


def test_an_error_deep_inside_is_reported_with_its_place(default_engine: Engine, dealt: State) -> None:
    # The fast code raises; the checked rendering of the same expression, nested as deep, names the place.
    bottom = s.Call(HERE, "value", (s.Call(HERE, "card_at", (lit(5),)),))
    node = nested(CASES["minus"][0], bottom, LEVELS)
    with pytest.raises(EngineError, match=r"^<generated>:3:7: card_at\(5\): an argument is of the wrong kind$"):
        evaluate(default_engine, dealt, node)
