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
from baobei.engine.runtime import Ctx, Fn, Origin
from baobei.engine.state import State
from baobei.language import syntax as s
from baobei.language.errors import EngineError

HERE = s.Pos("<generated>", 3, 7)
WRONG = r"^<generated>:3:7: card_at\(5\): an argument is of the wrong kind$"


def name(text: str) -> s.Name:
    return s.Name(HERE, text)


def card_at_x() -> s.Call:
    return s.Call(HERE, "card_at", (name("x"),))


def compiled(eng: Engine, node: s.Expr, *names: str) -> Fn:
    return Compiler(eng.rules, eng.effects, eng.define_fns, eng.routine_procs).expr(node, frozenset(names))


@pytest.fixture
def dealt(default_engine: Engine) -> State:
    st, _ = default_engine.new_match(["alice", "bob", "carol"], 5, log=False)
    return st


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
