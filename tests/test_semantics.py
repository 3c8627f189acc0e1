"""One meaning per construct: the engine and the Z3 translation agree, and every registry entry is complete.

The property test builds random expressions of the rules' expression language
(integer literals, negative ones included, names bound to random numbers,
booleans and none, + - * // %, unary minus, comparisons, and/or/not,
if-then-else, min/max/abs, `none` in arithmetic) and evaluates each twice: with
the engine's compiled closures and with the Z3 translation of proofs/, the names
bound to constants. Any difference fails, and so does a division by zero that
only one of them reports (the engine raises EngineError; the translation records
an obligation that does not hold).
"""

from __future__ import annotations

import typing
from dataclasses import dataclass
from typing import Any

import pytest
import z3  # type: ignore[import-untyped]
from baobei.engine.compiler import Compiler
from baobei.engine.engine import Engine
from baobei.engine.state import State
from baobei.language import syntax as s
from baobei.language.builtins import BUILTINS, STATE_NAMES, Builtin, NotProvable
from baobei.language.errors import EngineError
from baobei.language.load import load_ruleset
from baobei.language.paths import default_rules_dir
from baobei.language.statements import STATEMENTS, CardEffect, spec_of
from baobei.proofs.distribution import DistributionModel
from baobei.proofs.placement import NONE_VALUE, BodyModel, CardModel, RuleProver
from baobei.proofs.translate import (
    BoolV,
    IntV,
    NoneV,
    SVal,
    SymbolicModel,
    Translator,
    Unsupported,
    ival,
)
from hypothesis import given, settings
from hypothesis import strategies as st

HERE = s.Pos("<generated>", 1, 1)
INT_NAMES = ("x", "y", "z")
BOOL_NAMES = ("p", "q")
ARITH = ("//", "%", "//", "%", "+", "-", "*")
ORDER = ("<", "<=", ">", ">=", "==", "!=")
ERROR = "division by zero"  # what both sides must report for a zero divisor they evaluate

Env = dict[str, int | bool | None]
Draw = st.DrawFn


# ---------------------------------------------------------------- random expressions


@st.composite
def int_exprs(draw: Draw, depth: int = 4) -> s.Expr:
    """An expression whose value is a number or none; divisions are frequent, as their meaning is the
    hardest to get right (negative operands, zero)."""
    if depth == 0 or draw(st.integers(0, 9)) < 2:
        # `none` makes a whole sum none: rare enough that most expressions compute a number.
        leaf = draw(st.sampled_from(("number", "name") * 4 + ("none",)))
        if leaf == "number":
            return s.Lit(HERE, draw(st.one_of(st.integers(-5, 5), st.integers(-40, 40))))
        return s.Name(HERE, draw(st.sampled_from(INT_NAMES))) if leaf == "name" else s.Lit(HERE, None)
    shape = draw(st.sampled_from(("arith", "arith", "arith", "neg", "if", "minmax", "abs")))
    sub = int_exprs(depth - 1)
    if shape == "arith":
        return s.Binary(HERE, draw(st.sampled_from(ARITH)), draw(sub), draw(sub))
    if shape == "neg":
        return s.Unary(HERE, "neg", draw(sub))
    if shape == "if":
        return s.IfExpr(HERE, draw(bool_exprs(depth - 1)), draw(sub), draw(sub))
    if shape == "minmax":
        return s.Call(HERE, draw(st.sampled_from(("min", "max"))), (draw(sub), draw(sub)))
    return s.Call(HERE, "abs", (draw(sub),))


@st.composite
def bool_exprs(draw: Draw, depth: int = 4) -> s.Expr:
    """An expression whose value is true or false, or now and then none (which counts as false)."""
    if depth == 0 or draw(st.integers(0, 9)) < 2:
        leaf = draw(st.sampled_from(("literal", "name") * 4 + ("none",)))
        if leaf == "literal":
            return s.Lit(HERE, draw(st.booleans()))
        return s.Name(HERE, draw(st.sampled_from(BOOL_NAMES))) if leaf == "name" else s.Lit(HERE, None)
    shape = draw(st.sampled_from(("compare", "compare", "logic", "not", "if", "equal")))
    sub = bool_exprs(depth - 1)
    if shape == "compare":
        return s.Binary(HERE, draw(st.sampled_from(ORDER)), draw(int_exprs(depth - 1)), draw(int_exprs(depth - 1)))
    if shape == "logic":
        return s.Binary(HERE, draw(st.sampled_from(("and", "or"))), draw(sub), draw(sub))
    if shape == "not":
        return s.Unary(HERE, "not", draw(sub))
    if shape == "if":
        return s.IfExpr(HERE, draw(sub), draw(sub), draw(sub))
    return s.Binary(HERE, draw(st.sampled_from(("==", "!="))), draw(sub), draw(sub))


@st.composite
def divisions(draw: Draw) -> s.Expr:
    """A division or remainder of two small expressions: every sign, zero included, is likely."""
    return s.Binary(HERE, draw(st.sampled_from(("//", "%"))), draw(int_exprs(2)), draw(int_exprs(2)))


@st.composite
def guarded(draw: Draw) -> s.Expr:
    """A division behind `and`, `or` or `if`: the engine evaluates it only when the guard lets it."""
    divided = s.Binary(HERE, draw(st.sampled_from(ORDER)), draw(divisions()), draw(int_exprs(1)))
    guard, other = draw(bool_exprs(2)), draw(bool_exprs(1))
    shape = draw(st.sampled_from(("and", "or", "then", "else")))
    if shape == "then":
        return s.IfExpr(HERE, guard, divided, other)
    if shape == "else":
        return s.IfExpr(HERE, guard, other, divided)
    return s.Binary(HERE, shape, guard, divided)


expressions = st.one_of(int_exprs(), bool_exprs(), divisions(), guarded())
environments = st.fixed_dictionaries({
    **{n: st.one_of(*[st.integers(-5, 5), st.integers(-40, 40)] * 3, st.none()) for n in INT_NAMES},
    **{n: st.booleans() for n in BOOL_NAMES},
})


# ---------------------------------------------------------------- the two evaluations


@dataclass
class Setting:
    engine: Engine
    state: State


@pytest.fixture(scope="module")
def setting() -> Setting:
    eng = Engine(load_ruleset(default_rules_dir()))
    return Setting(eng, eng.blank_state(["alice", "bob"], 1))


def by_engine(setting: Setting, node: s.Expr, env: Env) -> Any:
    """The engine's value; compiled without the load-time checks, so that runtime meanings are compared."""
    eng = setting.engine
    fn = Compiler(eng.rules, eng.effects, eng.define_fns, eng.routine_procs).expr(node, frozenset(env))
    try:
        return eng.evaluate(setting.state, fn, dict(env))
    except EngineError as err:
        assert ERROR in str(err), err
        return ERROR


def symbolic(value: int | bool | None) -> SVal:
    if value is None:
        return IntV(z3.IntVal(0), z3.BoolVal(True))
    if isinstance(value, bool):
        return BoolV(z3.BoolVal(value))
    return ival(value)


def by_z3(setting: Setting, node: s.Expr, env: Env) -> Any:
    """The Z3 translation's value, simplified to a constant; an obligation that fails is the error."""
    tr = Translator(setting.engine.rules, SymbolicModel())
    value = tr.expr(node, {name: symbolic(v) for name, v in env.items()})
    for obligation in tr.obligations:
        holds = z3.simplify(obligation.holds)
        assert z3.is_true(holds) or z3.is_false(holds), holds
        if z3.is_false(holds):
            assert ERROR in obligation.broken
            return ERROR
    return constant(value)


def constant(value: SVal) -> Any:
    if isinstance(value, NoneV):
        return None
    assert isinstance(value, (IntV, BoolV)), value
    if z3.is_true(z3.simplify(value.none)):
        return None
    term = z3.simplify(value.term)
    if isinstance(value, BoolV):
        assert z3.is_bool(term) and (z3.is_true(term) or z3.is_false(term)), term
        return z3.is_true(term)
    assert z3.is_int_value(term), term
    return term.as_long()


def assert_agree(setting: Setting, node: s.Expr, env: Env) -> None:
    engine, proof = by_engine(setting, node, env), by_z3(setting, node, env)
    assert (type(engine), engine) == (type(proof), proof), f"{node} with {env}: engine {engine!r}, Z3 {proof!r}"


@settings(max_examples=300, deadline=None)
@given(node=expressions, env=environments)
def test_the_engine_and_z3_agree_on_random_expressions(setting: Setting, node: s.Expr, env: Env) -> None:
    assert_agree(setting, node, env)


@pytest.mark.slow
@settings(max_examples=10_000, deadline=None)
@given(node=expressions, env=environments)
def test_the_engine_and_z3_agree_on_many_random_expressions(setting: Setting, node: s.Expr, env: Env) -> None:
    assert_agree(setting, node, env)


def parse(text: str) -> s.Expr:
    from baobei.language.parser import RulesBuilder, build, grammar

    node: s.Expr = build(grammar("rules_expr").parse(text), RulesBuilder("<test>"))
    return node


@pytest.mark.parametrize(("text", "expected"), [
    ("7 // (0-2) == 0-4", True),  # floor division: the prover once proved `== 0-3`
    ("7 // (0-2) == 0-3", False),
    ("(0-7) // 2", -4),
    ("7 % (0-3)", -2),  # the remainder takes the divisor's sign
    ("(0-7) % 3", 2),
    ("x // 0", ERROR),
    ("x % (y - y)", ERROR),
    ("false and x // 0 == 1", False),  # the engine never evaluates the right operand
    ("if true then 1 else x // 0", 1),
    ("none // 0", None),  # arithmetic on none is none before anything divides
    ("min(none, 3) == none", True),
    ("abs(0 - x)", 7),
    ("if p then true else none", None),  # a none boolean stays none: it equals none, not false
    ("(if p then true else none) == false", False),
    ("not (if p then true else none)", True),
])
def test_known_answers(setting: Setting, text: str, expected: Any) -> None:
    env: Env = {"x": 7, "y": 2, "p": False}
    node = parse(text)
    assert by_engine(setting, node, env) == expected
    assert by_z3(setting, node, env) == expected


def test_a_divisor_that_may_be_zero_is_never_proved(setting: Setting) -> None:
    tr = Translator(setting.engine.rules, SymbolicModel())
    tr.expr(parse("x // y >= 0 or true"), {"x": IntV(z3.Int("x")), "y": IntV(z3.Int("y"))})
    assert len(tr.obligations) == 1 and tr.obligations[0].broken.startswith("<test>:1:")
    assert tr.obligations[0].broken.endswith(ERROR)
    solver = z3.Solver()
    solver.add(z3.Not(z3.And(*(o.holds for o in tr.obligations))))
    assert solver.check() == z3.sat  # y = 0 breaks it


# ---------------------------------------------------------------- the registries


ALL_BUILTINS = [*BUILTINS.values(), *STATE_NAMES.values()]


@pytest.mark.parametrize("builtin", ALL_BUILTINS, ids=[b.name for b in ALL_BUILTINS])
def test_every_builtin_has_every_part(builtin: Builtin) -> None:
    registry = BUILTINS if builtin.name in BUILTINS else STATE_NAMES
    assert registry[builtin.name] is builtin
    assert builtin.doc.strip() and builtin.result.strip()
    assert all(isinstance(kind, str) for kind in builtin.args)
    assert callable(builtin.run)
    if isinstance(builtin.prove, NotProvable):
        assert builtin.prove.reason.strip()
    else:
        assert callable(builtin.prove)


def _models(setting: Setting) -> list[tuple[Any, Any]]:
    """(model, a none argument) for every symbolic model of the provers."""
    rules = setting.engine.rules
    inv = next(iter(rules.invariants.values()))
    prover = RuleProver(rules, inv, 2)
    return [(SymbolicModel(), NoneV()), (DistributionModel(rules, 2), NoneV()), (CardModel([z3.IntVal(1)]), NoneV()),
            (BodyModel(prover, prover.zeros()), NONE_VALUE)]


@pytest.mark.parametrize("builtin", ALL_BUILTINS, ids=[b.name for b in ALL_BUILTINS])
def test_every_translation_calls_the_symbolic_protocol(setting: Setting, builtin: Builtin) -> None:
    """A translation answers or says what it cannot express; it never calls a method a model lacks."""
    if isinstance(builtin.prove, NotProvable):
        return
    for model, none in _models(setting):
        try:
            builtin.prove(model, HERE, *[none] * builtin.arity)
        except Unsupported:
            continue


def test_every_statement_kind_has_a_registry_entry() -> None:
    kinds = typing.get_args(s.Stmt)
    assert kinds and set(STATEMENTS) == set(kinds)
    for kind in kinds:
        spec = STATEMENTS[kind]
        assert isinstance(spec.effect, CardEffect) and spec.syntax.strip() and spec.doc.strip(), kind


def test_a_statement_without_an_entry_is_an_error() -> None:
    @dataclass(frozen=True)
    class Teleport:
        pos: s.Pos

    with pytest.raises(KeyError, match="Teleport has no entry"):
        spec_of(Teleport(HERE))  # type: ignore[arg-type]
