"""The language layer: lexical scoping, the one traversal, the registries, closed sets of names."""

from __future__ import annotations

import dataclasses
import typing
from pathlib import Path
from typing import Any

import pytest
from baobei.engine.engine import Engine
from baobei.engine.state import State
from baobei.language import syntax as s
from baobei.language.errors import RulesError
from baobei.language.load import load_ruleset
from baobei.language.parser import parse_rules_text
from baobei.language.source import Pos
from baobei.language.statements import STATEMENTS, statement_kinds
from baobei.language.walk import expr_children, stmt_parts, walk_expr, walk_stmts
from baobei.scenarios.expectations import compile_probe
from conftest import MakeVariant, edit_file

HERE = Pos("test", 1, 1)


def new_state(eng: Engine) -> State:
    st = eng.blank_state(["alice", "bob", "carol"], 1)
    st.phase, st.active = "turn", 0
    return st


def probe(eng: Engine, st: State, text: str) -> Any:
    fn, _ = compile_probe(eng, st, text, HERE)
    return eng.evaluate(st, fn, {name: i for i, name in enumerate(st.names)})


# ---------------------------------------------------------------- lexical scoping


@pytest.mark.parametrize(("text", "expected"), [
    # An inner quantifier's p shadows the outer one only inside its own body.
    ("count p in players: (any p in players: p == alice) and p == carol", 1),
    ("sum p in [q in players where q != alice]: (count p in players: true) + total[p]", 6),
    ("[p in players where (all p in players: true) and p == bob]", [1]),
    ("first p in players where (any p in players: p == carol) and p == bob", 1),
])
def test_inner_bindings_shadow_and_end(default_engine: Engine, text: str, expected: Any) -> None:
    st = new_state(default_engine)
    assert probe(default_engine, st, text) == expected


SCOPED_RULE = """
routine scoped "a let, then a quantifier over the same name" § 1.1 {
  let p = actor
  if any p in players: p != actor { set seen = p }
  for p in others(actor) { set count_seen = count_seen + 1 }
  set after_for = p
  if true {
    let p = none
    set inner = p
  }
  set after_block = p
}
"""


def test_a_let_survives_a_shadowing_quantifier_loop_and_block(make_variant: MakeVariant) -> None:
    rules = make_variant()
    (rules / "95_scoped.bao").write_text(
        "var seen: player = none\nvar count_seen: int = 0\nvar after_for: player = none\n"
        "var inner: player = none\nvar after_block: player = none\n"
        "move try_scope \"test\" § 1.1 by true do { run scoped }\n" + SCOPED_RULE, encoding="utf-8")
    eng = Engine(load_ruleset(rules))
    st = new_state(eng)
    st.phase = "turn"
    eng.push(st, next(m for m in eng.legal_moves(st, 1) if m.name == "try_scope"))
    assert st.vars["seen"] == 1  # the let's p (bob, the actor), not the quantifier's last item
    assert st.vars["count_seen"] == 2
    assert st.vars["after_for"] == 1 and st.vars["after_block"] == 1
    assert st.vars["inner"] is None


# ---------------------------------------------------------------- one traversal


def placeholder(field_type: str) -> Any:
    """A value for a dataclass field of the AST, enough to build every node kind."""
    lit = s.Lit(HERE, 1)
    if "tuple[Stmt" in field_type:
        return (s.UseWindow(HERE),)
    if "tuple[Expr" in field_type:
        return (lit,)
    if "tuple[ShuffleSource" in field_type:
        return (s.ShuffleSource("draw_pile"),)
    if "Expr" in field_type:
        return lit
    if "bool" in field_type:
        return False
    return "x"


def build(cls: type) -> Any:
    values = {f.name: (HERE if f.name == "pos" else placeholder(str(f.type))) for f in dataclasses.fields(cls)}
    return cls(**values)


def test_every_expression_kind_is_walked() -> None:
    for cls in typing.get_args(s.Expr):
        node = build(cls)
        children = expr_children(node)
        assert all(isinstance(c, typing.get_args(s.Expr)) for c in children)
        assert next(iter(walk_expr(node))) is node


def test_every_statement_kind_is_walked_and_registered() -> None:
    kinds = statement_kinds()
    assert len(kinds) >= 20
    assert set(STATEMENTS) == set(kinds), "every statement kind declares how it moves cards"
    for cls in kinds:
        node = build(cls)
        exprs, inner = stmt_parts(node)
        assert next(iter(walk_stmts((node,)))) is node
        assert all(isinstance(e, typing.get_args(s.Expr)) for e in exprs)
        assert all(isinstance(i, typing.get_args(s.Stmt)) for i in inner)


def test_the_walk_reaches_every_statement_of_the_rules(default_engine: Engine) -> None:
    rules = default_engine.rules
    bodies = [m.body for m in rules.moves.values()] + [r.body for r in [*rules.routines.values(),
                                                                         *rules.hooks.values()]]
    seen = {type(st) for body in bodies for st in walk_stmts(body)}
    assert {s.MoveCard, s.Draw, s.Shuffle, s.IfStmt, s.ForEach, s.Trigger, s.Run} <= seen


def test_no_string_dispatch_on_node_names() -> None:
    package = Path(__file__).resolve().parents[1] / "checker" / "baobei"
    found = [str(p) for p in package.rglob("*.py") if '"_e_" +' in p.read_text(encoding="utf-8")
             or '"_s_" +' in p.read_text(encoding="utf-8")]
    assert not found, found


# ---------------------------------------------------------------- closed sets of names


@pytest.mark.parametrize(("file", "old", "new", "message"), [
    ("03_turn.bao", 'set phase = "drawn"', 'set phase = "drawnn"', "'drawnn' is not one of the declared phases"),
    ("03_turn.bao", 'require phase == "drawn" else "keep', 'require phase == "drwn" else "keep',
     "'drwn' is not one of the declared phases"),
    ("03_turn.bao", 'open window "discard" on c', 'open window "discrad" on c',
     "'discrad' is not one of the declared window kinds"),
    ("04_pluck.bao", 'if kind == "own_draw" { move ref to discard_pile }\n  # [P51]',
     'if window_kind == "own_drw" { move ref to discard_pile }\n  # [P51]',
     "'own_drw' is not one of the declared window kinds"),
    ("02_setup.bao", 'define initial_peek = 2', 'define initial_peek = 2 // 0', "division by zero"),
])
def test_a_typo_in_a_closed_set_is_a_positioned_load_error(make_variant: MakeVariant, file: str, old: str,
                                                           new: str, message: str) -> None:
    rules = make_variant((file, old, new))
    with pytest.raises(RulesError) as err:
        load_ruleset(rules)
    assert message in err.value.message
    text = (rules / file).read_text(encoding="utf-8")
    line = text[: text.index(new)].count("\n") + 1
    assert err.value.pos.file.endswith(file) and err.value.pos.line == line


def test_the_phases_are_declared_once(default_engine: Engine) -> None:
    assert set(default_engine.rules.phase_names) == default_engine.phases
    with pytest.raises(RulesError, match="phase 'turn' is named twice"):
        parse_and_file('phases turn, turn § 2.1\n')


@pytest.mark.parametrize(("file", "old", "new", "message"), [
    ("04_pluck.bao", "  with target: slot, gift: own_slot?, place: free_slot?\n",
     "  with target: slot, gift: own_slot?, target: free_slot?\n",
     "move 'pluck': the argument 'target' is named twice"),
    ("04_pluck.bao", "routine give(gift: slot, target: slot)", "routine give(gift: slot, gift: slot)",
     "routine 'give': the parameter 'gift' is named twice"),
    ("01_deck.bao", "define matches(a: card, b: card)", "define matches(a: card, a: card)",
     "definition 'matches': the parameter 'a' is named twice"),
])
def test_a_name_given_twice_in_one_signature_is_refused(make_variant: MakeVariant, file: str, old: str, new: str,
                                                       message: str) -> None:
    # The second binding would hide the first: whichever the engine kept, the other argument is lost.
    rules = make_variant((file, old, new))
    with pytest.raises(RulesError) as err:
        load_ruleset(rules)
    assert message in err.value.message
    assert err.value.pos.file.endswith(file)


def parse_and_file(text: str) -> None:
    from baobei.language.ruleset import Ruleset, file_declarations

    rules = Ruleset(source="x", files=[parse_rules_text(text, "x.bao")])
    file_declarations(rules)


def test_a_rules_directory_without_phases_is_refused(make_variant: MakeVariant) -> None:
    rules = make_variant()
    edit_file(rules / "03_turn.bao", "phases peek,", "# phases peek,")
    with pytest.raises(RulesError, match="declare no phases"):
        load_ruleset(rules)
