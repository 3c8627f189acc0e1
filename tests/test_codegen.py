"""The rules compiled to generated Python: the errors and values the rules' meaning gives, on every path.

The fast code calls builtins directly and counts a tally once per quantifier; when it raises, the
checked rendering of the same source reports an argument of the wrong kind with its place, as the
rules' expressions and statements always did. The checker refuses such arguments in the rules, so
these tests compile syntax trees directly, as the property test of tests/test_semantics.py does.
"""

from __future__ import annotations

import pytest
from baobei.engine.compiler import Compiler
from baobei.engine.engine import Engine
from baobei.engine.move import Move
from baobei.engine.runtime import Ctx, Fn, Origin
from baobei.engine.state import State
from baobei.language import syntax as s
from baobei.language.errors import EngineError, RulesError
from baobei.language.load import load_ruleset
from conftest import MakeVariant

HERE = s.Pos("<generated>", 3, 7)
WRONG = r"^<generated>:3:7: card_at\(5\): an argument is of the wrong kind$"


def name(text: str) -> s.Name:
    return s.Name(HERE, text)


def card_at_x() -> s.Call:
    return s.Call(HERE, "card_at", (name("x"),))


def compiled(eng: Engine, node: s.Expr, *names: str) -> Fn:
    return Compiler(eng.rules, eng.effects, eng.define_fns, eng.routine_procs).expr(node, frozenset(names))


@pytest.mark.parametrize("node", [
    card_at_x(),
    s.Binary(HERE, "and", s.Lit(HERE, True), s.Binary(HERE, "==", card_at_x(), s.Lit(HERE, None))),
    s.Quant(HERE, "any", "p", name("players"), s.Binary(HERE, "==", card_at_x(), s.Lit(HERE, None))),
    s.Quant(HERE, "sum", "p", name("players"), s.Call(HERE, "value", (card_at_x(),))),
])
def test_an_argument_of_the_wrong_kind_is_a_positioned_error(default_engine: Engine, dealt: State,
                                                             node: s.Expr) -> None:
    with pytest.raises(EngineError, match=WRONG):
        default_engine.evaluate(dealt, compiled(default_engine, node, "x"), {"x": 5})


def test_the_wrong_kind_inside_a_definition_is_reported_where_the_definition_says_it(
        default_engine: Engine, dealt: State) -> None:
    node = s.Call(HERE, "round_value", (name("x"),))
    with pytest.raises(EngineError, match=r"07_scoring\.bao:\d+:\d+: cards\('seat'\): an argument is of the wrong"):
        default_engine.evaluate(dealt, compiled(default_engine, node, "x"), {"x": "seat"})


def test_a_statement_reports_the_wrong_kind_before_it_does_anything(default_engine: Engine, dealt: State) -> None:
    comp = Compiler(default_engine.rules, default_engine.effects, default_engine.define_fns,
                    default_engine.routine_procs)
    block = comp.block((s.Show(HERE, card_at_x()),), frozenset({"x"}), Origin("test", s.Citation("?")))
    known = list(dealt.known)
    with pytest.raises(EngineError, match=WRONG):
        block(Ctx(dealt, {"x": 5, "actor": 0}, None))
    assert dealt.known == known


def test_a_tally_counts_every_card_once_per_quantifier(default_engine: Engine, dealt: State) -> None:
    every_once = compiled(default_engine, s.Quant(HERE, "all", "c", name("deck"), s.Binary(
        HERE, "==", s.Call(HERE, "places", (name("c"),)), s.Lit(HERE, 1))))
    total = compiled(default_engine, s.Quant(HERE, "sum", "c", name("deck"), s.Call(HERE, "places", (name("c"),))))
    assert default_engine.evaluate(dealt, every_once) is True
    assert default_engine.evaluate(dealt, total) == len(dealt.known)
    dealt.box.append(dealt.piles[0][-1])  # a card in two places: no rule can do this
    assert default_engine.evaluate(dealt, every_once) is False
    assert default_engine.evaluate(dealt, total) == len(dealt.known) + 1
    assert dict(dealt.place_counts()) == {c: dealt.count_places(c) for c in [*range(len(dealt.known)), None]
                                          if dealt.count_places(c)}


def test_a_snapshot_reads_like_the_state_but_cannot_be_played_on(default_engine: Engine, dealt: State) -> None:
    snap = dealt.snapshot()
    assert snap.tableaux == dealt.tableaux and snap.known == dealt.known and snap.phase == dealt.phase
    assert default_engine.broken_invariant(snap) is None
    with pytest.raises(AssertionError, match="a snapshot has no random generator"):
        snap.rng.random()


def neg(node: s.Expr, times: int) -> s.Expr:
    for _ in range(times):
        node = s.Unary(HERE, "neg", node)
    return node


@pytest.mark.parametrize("depth", [24, 25, 26, 60])
def test_an_expression_nested_past_the_generators_depth_keeps_its_value(
        default_engine: Engine, dealt: State, depth: int) -> None:
    # Generated code goes into a helper function once it nests deeper than codegen.MAX_DEPTH; the value
    # is the same at every depth, the top level included.
    node = neg(s.Lit(HERE, 7), depth)
    assert default_engine.evaluate(dealt, compiled(default_engine, node)) == (-7 if depth % 2 else 7)


@pytest.mark.parametrize("func", ["slot_no", "value"])
def test_a_none_argument_gives_the_none_value_where_the_error_is_reported_too(
        default_engine: Engine, dealt: State, func: str) -> None:
    # The checked rendering runs after the fast one raised: a builtin given none there still gives its none
    # value (0 here, not none), so the condition takes the same branch and the error is the one reported.
    cond = s.Binary(HERE, "==", s.Call(HERE, func, (s.Lit(HERE, None),)), s.Lit(HERE, 0))
    node = s.IfExpr(HERE, cond, card_at_x(), s.Lit(HERE, 0))
    with pytest.raises(EngineError, match=WRONG):
        default_engine.evaluate(dealt, compiled(default_engine, node, "x"), {"x": 5})


@pytest.mark.parametrize(("kind", "expected"), [("all", True), ("any", False), ("count", 0), ("sum", 0)])
def test_a_quantifier_over_none_ranges_over_nothing(default_engine: Engine, dealt: State, kind: str,
                                                   expected: object) -> None:
    node = s.Quant(HERE, kind, "p", s.Lit(HERE, None), s.Lit(HERE, kind != "all"))
    assert default_engine.evaluate(dealt, compiled(default_engine, node)) == expected


def test_what_the_kind_checker_refuses_is_refused_when_compiled_too(default_engine: Engine) -> None:
    # Compiled without the checker (a syntax tree made by hand): the compiler's own errors, with the place.
    comp = Compiler(default_engine.rules, default_engine.effects, default_engine.define_fns,
                    default_engine.routine_procs)
    origin = Origin("test", s.Citation("?"))
    with pytest.raises(RulesError, match=r"^<generated>:3:7: unknown function 'fly' with 1 argument\(s\)$"):
        comp.expr(s.Call(HERE, "fly", (s.Lit(HERE, 1),)), frozenset())
    with pytest.raises(RulesError, match=r"^<generated>:3:7: unknown function 'value' with 2 argument\(s\)$"):
        comp.expr(s.Call(HERE, "value", (s.Lit(HERE, 1), s.Lit(HERE, 2))), frozenset())
    with pytest.raises(RulesError, match=r"^<generated>:3:7: cannot set 'speed': only declared variables and "
                                         r"the phase can be set$"):
        comp.block((s.SetVar(HERE, "speed", None, s.Lit(HERE, 1)),), frozenset(), origin)
    with pytest.raises(RulesError, match=r"^<generated>:3:7: unknown routine 'fly'$"):
        comp.block((s.Run(HERE, "fly", ()),), frozenset(), origin)


def deep_move(levels: int) -> str:
    """A move whose body nests `levels` blocks (if, for, if, ...) around one assignment."""
    opening = "".join("if true { " if i % 2 == 0 else "for p in players { " for i in range(levels))
    return f"""
move deep "Nested blocks" § 1.1 [P1]
  by true
  do {{ {opening}set recycles = recycles + 1 {"} " * levels}}}
"""


@pytest.mark.parametrize("levels", [3, 4, 5, 9])
def test_blocks_nested_past_the_compilers_depth_still_run(make_variant: MakeVariant, levels: int) -> None:
    # Blocks nested deeper than compiler.MAX_BLOCKS go into a function of their own; the statements inside run
    # all the same: once per player of each `for` around them.
    rules = make_variant()
    (rules / "95_deep.bao").write_text(deep_move(levels), encoding="utf-8")
    eng = Engine(load_ruleset(rules))
    st, _ = eng.new_match(["ann", "ben", "cid"], 1, log=False)
    before = st.vars["recycles"]
    eng.push(st, Move(0, "deep", ()), log=False)
    assert st.vars["recycles"] == before + 3 ** (levels // 2)
