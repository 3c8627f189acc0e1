"""The code generator and the block compiler, on paths no other test tells apart: each test pins a behaviour that
a mutant of engine/codegen.py or engine/compiler.py changed without any earlier test failing.

Like tests/test_codegen.py, most tests compile syntax trees made by hand (a hand tree reaches what the checker
keeps rules files from writing, and is quicker than loading a ruleset); the definitions some of them call are
loaded once, from a copy of the default rules with one file added.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from baobei.engine import sampling
from baobei.engine.compiler import Compiler
from baobei.engine.engine import Engine
from baobei.engine.runtime import Ctx, Origin
from baobei.engine.state import State, Window
from baobei.language import syntax as s
from baobei.language.errors import EngineError, RulesError
from baobei.language.load import load_ruleset
from baobei.language.paths import default_rules_dir

HERE = s.Pos("<generated>", 3, 7)
WRONG = r"^<generated>:3:7: card_at\(5\): an argument is of the wrong kind$"
ORIGIN = Origin("test", s.Citation("?"))
# Deeper than Python's limit of nested parentheses (about 200), as in tests/test_codegen_depth.py.
LEVELS = 230


def lit(value: int | str | bool | None) -> s.Lit:
    return s.Lit(HERE, value)


def name(text: str) -> s.Name:
    return s.Name(HERE, text)


def call(func: str, *args: s.Expr) -> s.Call:
    return s.Call(HERE, func, args)


def plus(left: s.Expr, right: s.Expr) -> s.Binary:
    return s.Binary(HERE, "+", left, right)


def set_recycles(value: s.Expr) -> s.SetVar:
    """`set recycles = VALUE`: the default rules' one plain number variable, where a test's block leaves what it saw."""
    return s.SetVar(HERE, "recycles", None, value)


def compiler(eng: Engine) -> Compiler:
    return Compiler(eng.rules, eng.effects, eng.define_fns, eng.routine_procs)


def evaluate(eng: Engine, st: State, node: s.Expr, env: dict[str, Any] | None = None) -> object:
    fn = compiler(eng).expr(node, frozenset(env or ()))
    return eng.evaluate(st, fn, env)


def run_block(eng: Engine, st: State, stmts: tuple[s.Stmt, ...], env: dict[str, Any]) -> dict[str, Any]:
    """Run a block of statements in a context with these names (the actor too); its names afterwards."""
    names = {"actor": 0, **env}
    block = compiler(eng).block(stmts, frozenset(names), ORIGIN)
    block(Ctx(st, names, None))
    return names


@pytest.fixture
def deep_stack() -> Iterator[None]:
    # The generator follows the tree recursively, a few frames per level: room for LEVELS levels.
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 20 * LEVELS))
    yield
    sys.setrecursionlimit(limit)


@pytest.fixture(scope="module")
def inc_engine(tmp_path_factory: pytest.TempPathFactory) -> Engine:
    """The default rules with one definition of one argument added: `inc(n) = n + 1`."""
    rules = tmp_path_factory.mktemp("rules") / "rules"
    shutil.copytree(default_rules_dir(), rules)
    (rules / "95_inc.bao").write_text('define inc(n: int) = n + 1 § 1.1 [P1] "One more than the number."\n',
                                      encoding="utf-8")
    return Engine(load_ruleset(rules))


# ---------------------------------------------------------------- how deep generated code nests


def test_definition_calls_nested_deeper_than_python_allows_keep_their_value(inc_engine: Engine,
                                                                             deep_stack: None) -> None:
    # inc(inc(...inc(0)...)): each call of a definition nests its argument one level deeper in the generated
    # code, so the generator must count it (codegen.py:299, a call's depth); a count of nothing for a call
    # leaves code Python's parser refuses.
    st, _ = inc_engine.new_match(["ann", "ben", "cid"], 1, log=False)
    node: s.Expr = lit(0)
    for _ in range(LEVELS):
        node = call("inc", node)
    assert evaluate(inc_engine, st, node) == LEVELS


def test_an_error_deep_inside_nested_builtin_calls_is_reported_with_its_place(
        default_engine: Engine, dealt: State, deep_stack: None) -> None:
    # abs(abs(...value(card_at(5))...)): the fast code raises, and the checked rendering, generated then,
    # nests every call through `checked_call` just as deep: its depth must be counted too (codegen.py:299),
    # or its code is refused by Python's parser instead of reporting the rules' error.
    node: s.Expr = call("value", call("card_at", lit(5)))
    for _ in range(LEVELS):
        node = call("abs", node)
    with pytest.raises(EngineError, match=WRONG):
        evaluate(default_engine, dealt, node)


def shadowing_loops(levels: int) -> tuple[s.Stmt, ...]:
    """`let p = p; for p in others(p) { ... }` nested `levels` deep around `set recycles = recycles + 1`: every
    level shadows `p` twice, so that its block and its loop each give the outer value back afterwards."""
    body: tuple[s.Stmt, ...] = (set_recycles(plus(name("recycles"), lit(1))),)
    for _ in range(levels):
        body = (s.Let(HERE, "p", name("p")), s.ForEach(HERE, "p", call("others", name("p")), body))
    return body


def test_blocks_that_shadow_a_name_at_every_level_nested_deep_still_run(default_engine: Engine,
                                                                       dealt: State) -> None:
    # Each level is three nested Python blocks (the block's restoring `try`, the loop's, the loop itself) and
    # Python refuses more than 20 in one function: the compiler moves a block into a function of its own
    # every few levels (compiler.MAX_BLOCKS). The statement inside runs once per other player of each loop.
    levels = 10
    dealt.vars["recycles"] = 0
    names = run_block(default_engine, dealt, shadowing_loops(levels), {"p": 0})
    assert dealt.vars["recycles"] == 2 ** levels
    assert names["p"] == 0  # the outer value came back


# ---------------------------------------------------------------- values


def test_a_tables_row_read_with_an_index_that_is_no_number_is_none(default_engine: Engine, dealt: State) -> None:
    # Tables are total: no row answers an index that is not a number (here the list of players). The rows for
    # numbers are kept once read (Unit.table_value); that keeping must not be asked to hash a list.
    assert evaluate(default_engine, dealt, s.Index(HERE, name("hand_size"), name("players"))) is None
    row = default_engine.rules.table_value("hand_size", 3)
    assert row is not None
    for _ in range(2):  # read again: the row kept gives the same value
        assert evaluate(default_engine, dealt, s.Index(HERE, name("hand_size"), lit(3))) == row


@pytest.mark.parametrize(("right", "env", "expected"), [
    ("players", {"players": [1, 2]}, (False, True)),
    ("window_players", {"window_players": [0]}, (True, False)),
])
def test_membership_in_a_bound_name_reads_the_bound_value_not_the_state_name(
        default_engine: Engine, dealt: State, right: str, env: dict[str, Any], expected: tuple[bool, bool]) -> None:
    # A name bound by the rules (`let players = ...`, say) shadows the state name: `x in players` then tests the
    # bound list, not the seats of the round (which the generated code tests as a bit mask for the state name).
    # Every seat plays in this round and no window is open, so the state names would give the other answers.
    assert not dealt.windows
    got = tuple(evaluate(default_engine, dealt, s.Binary(HERE, "in", lit(x), name(right)), env) for x in (0, 1))
    assert got == expected


@pytest.mark.parametrize(("inner", "expected"), [
    # sum p in players: sum q in players: abs(q) + p  ->  (0 + 1 + 2) + 3p for each p
    (lambda: s.Quant(HERE, "sum", "q", name("players"), plus(call("abs", name("q")), name("p"))), 18),
    # sum p in players: first q in players: abs(q) >= p  ->  p itself for each p
    (lambda: s.First(HERE, "q", name("players"), s.Binary(HERE, ">=", call("abs", name("q")), name("p"))), 3),
])
def test_a_part_of_an_inner_loop_that_reads_the_inner_variable_is_worked_out_for_every_item(
        default_engine: Engine, dealt: State, inner: Callable[[], s.Expr], expected: int) -> None:
    # A loop keeps the value of a part of its body that reads none of the names bound inside it; `abs(q)` reads
    # the inner loop's `q`, so the outer loop must not keep it (its first value would stand for every q).
    assert dealt.seats == [0, 1, 2]
    node = s.Quant(HERE, "sum", "p", name("players"), inner())
    assert evaluate(default_engine, dealt, node) == expected


def test_a_statement_keeps_the_value_the_checked_rendering_works_out(default_engine: Engine,
                                                                      dealt: State) -> None:
    # let n = (sum c in xs: places(c)) + 5, with xs a list of lists. The fast code counts `places` once for the
    # loop (a Counter), which cannot be asked about a list: it raises, and the statement evaluates the
    # expression again in its checked rendering, which asks the builtin itself: no place holds a list, 0.
    # The statement gets that value, the number 5, not whether it is true.
    value = plus(s.Quant(HERE, "sum", "c", name("xs"), call("places", name("c"))), lit(5))
    names = run_block(default_engine, dealt, (s.Let(HERE, "n", value),), {"xs": [[1]]})
    assert names["n"] == 5 and type(names["n"]) is int


def test_the_shield_protects_the_player_who_called_bao(default_engine: Engine, dealt: State) -> None:
    # `protect shield ... tableau of p when p == bao_caller and shield == "active" and not final_phase`: the
    # engine compiles `bao_caller` alone (Compiler.function, one expression: its value, the player) and
    # protects that one player; a function compiled as a conjunction would give true or false instead.
    dealt.vars.update(bao_caller=2, shield="active", final_phase=False)
    default_engine.refresh_protection(dealt)
    assert dealt.protected == 1 << 2
    dealt.vars["bao_caller"] = None  # nobody called: nobody is protected
    default_engine.refresh_protection(dealt)
    assert dealt.protected == 0


def test_a_pick_from_an_empty_domain_is_none(default_engine: Engine, dealt: State) -> None:
    # `pick` from nothing gives none (the random generator is not asked to choose from an empty list).
    names = run_block(default_engine, dealt, (s.Pick(HERE, "c", name("xs")),), {"xs": []})
    assert names["c"] is None


# ---------------------------------------------------------------- errors


def test_reading_a_per_player_variable_without_a_player_is_refused_when_compiled(default_engine: Engine) -> None:
    # `total` holds a number for each player: read without one, it is a rules error where it is written.
    per_player = r"^<generated>:3:7: 'total' holds one value per player: write total\[player\]$"
    with pytest.raises(RulesError, match=per_player):
        compiler(default_engine).expr(name("total"), frozenset())


def test_a_samplers_condition_reports_an_argument_of_the_wrong_kind_with_its_place(default_engine: Engine,
                                                                                  dealt: State) -> None:
    # Random play draws a move's arguments with a sampler whose conditions are written into it; when a
    # condition's code raises, its checked rendering (codegen.checked_function) reports the rules' error.
    unit = compiler(default_engine).unit
    holds = sampling.sampler(unit, ("x",), ("x",), [[s.Binary(HERE, "==", name("x"), lit(4))]])
    assert holds(dealt, (None, [4]), lambda: 0.0) == (("x", 4),)
    assert holds(dealt, (None, [5]), lambda: 0.0) is None
    wrong = sampling.sampler(unit, ("x",), ("x",), [[s.Binary(HERE, "==", call("card_at", name("x")), lit(None))]])
    with pytest.raises(EngineError, match=WRONG):
        wrong(dealt, (None, [5]), lambda: 0.0)


# ---------------------------------------------------------------- scoping of statements


@pytest.mark.parametrize("binding", [
    s.Let(HERE, "x", lit(2)),
    s.Pick(HERE, "x", name("players")),
    s.Draw(HERE, lit(None), "x"),  # a draw to nowhere is left out and binds none
], ids=["let", "pick", "draw as"])
def test_a_name_bound_in_an_inner_block_ends_with_it_and_the_outer_value_comes_back(
        default_engine: Engine, dealt: State, binding: s.Stmt) -> None:
    # let x = 100; if true { <binding of x> }; set recycles = x
    stmts = (s.Let(HERE, "x", lit(100)), s.IfStmt(HERE, lit(True), (binding,), ()), set_recycles(name("x")))
    run_block(default_engine, dealt, stmts, {})
    assert dealt.vars["recycles"] == 100


def test_a_loop_variable_that_shadows_a_name_gives_it_back_after_the_loop(default_engine: Engine,
                                                                         dealt: State) -> None:
    # let p = 100; set recycles = 0; for p in players { set recycles = recycles + p }; set recycles = recycles + p
    stmts = (s.Let(HERE, "p", lit(100)), set_recycles(lit(0)),
             s.ForEach(HERE, "p", name("players"), (set_recycles(plus(name("recycles"), name("p"))),)),
             set_recycles(plus(name("recycles"), name("p"))))
    run_block(default_engine, dealt, stmts, {})
    assert dealt.vars["recycles"] == (0 + 1 + 2) + 100


@pytest.mark.parametrize("right", ["players", "window_players"])
def test_a_value_that_is_no_seat_is_in_no_list_of_players(default_engine: Engine, dealt: State, right: str) -> None:
    # The seats of the round and of a window are kept as bit masks, and the generated code tests a seat's bit.
    # A negative number or a word is no seat: it is in neither list, as `x in [...]` says for any list; testing
    # its "bit" raised instead (a negative shift count, or a shift of a word), and the checked rendering tested
    # the same bit, so a rules variant writing `round - 2 in players` stopped with a traceback.
    seats = [0, 1, 2]
    if right == "window_players":
        dealt.windows.append(Window("discard", 1, 1 << 2 | 1 << 0, 1))
        seats = [0, 2]
    for x in (-1, -5, "ann", 3, *range(3)):
        assert evaluate(default_engine, dealt, s.Binary(HERE, "in", lit(x), name(right))) is (x in seats), x
