"""Transition invariants (`old(...)`) and progress properties: the language, the engine's judgement, the
replay of scenarios, and seeded random play that judges every property after every move."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import pytest
from baobei.cli import main
from baobei.engine.engine import Engine
from baobei.engine.move import Move
from baobei.engine.state import State, Waiting, Window
from baobei.language import syntax as s
from baobei.language.load import load_ruleset
from baobei.language.parser import RulesBuilder, build, grammar
from baobei.language.paths import default_rules_dir
from baobei.language.text import expr_text
from baobei.language.walk import ExprVisitor
from baobei.scenarios.runner import check_move
from conftest import DRAW_SCENARIO, MakeVariant
from test_rules_parser import assert_at, line_col, load_error

Capture = pytest.CaptureFixture[str]
Policy = Callable[[Engine, State, random.Random], "Move | None"]


def extra(variant: Path, text: str) -> Path:
    """A variant with one more rules file."""
    path = variant / "10_extra.bao"
    path.write_text(text, encoding="utf-8")
    return path


def parse_expr(text: str) -> s.Expr:
    expr: s.Expr = build(grammar("rules_expr").parse(text), RulesBuilder("<test>"))
    return expr


# ---------------------------------------------------------------- the language


def test_old_is_a_node_only_before_a_parenthesis() -> None:
    node = parse_expr("total[p] == old(total[p]) + old (noted[p])")
    assert isinstance(node, s.Binary) and isinstance(node.right, s.Binary)
    assert isinstance(node.right.left, s.Old) and isinstance(node.right.right, s.Old)
    # The rules call a replaced card `old`: as a plain name it is still one.
    assert parse_expr("old") == s.Name(s.NOWHERE, "old")
    assert parse_expr("older(x)") == s.Call(s.NOWHERE, "older", (s.Name(s.NOWHERE, "x"),))


@pytest.mark.parametrize("text", ["old(total[p])", "all p in players: old(card_at(p)) == none", "-old(x) + 1",
                                  "old(if a then b else c)", "not old(shield == \"active\")"])
def test_old_prints_as_text_that_parses_back(text: str) -> None:
    node = parse_expr(text)
    assert parse_expr(expr_text(node)) == node


class OneState(ExprVisitor[str, None]):
    """A visitor written before old(...) existed: it names what it meets and refuses unknown functions."""

    def lit(self, node: s.Lit, env: None) -> str:
        return "lit"

    def name(self, node: s.Name, env: None) -> str:
        return node.name

    def call(self, node: s.Call, env: None) -> str:
        raise LookupError(f"unknown function {node.func} of {[self.visit(a, env) for a in node.args]}")

    def index(self, node: s.Index, env: None) -> str:
        return "index"

    def unary(self, node: s.Unary, env: None) -> str:
        return "unary"

    def binary(self, node: s.Binary, env: None) -> str:
        return "binary"

    def if_expr(self, node: s.IfExpr, env: None) -> str:
        return "if"

    def quant(self, node: s.Quant, env: None) -> str:
        return "quant"

    def first(self, node: s.First, env: None) -> str:
        return "first"

    def filter(self, node: s.Filter, env: None) -> str:
        return "filter"


def test_a_visitor_that_does_not_know_old_refuses_it_instead_of_reading_the_state_now() -> None:
    # `old` is a node every visitor must handle, like any other: one written without it cannot even exist.
    with pytest.raises(TypeError, match="old"):
        OneState()  # type: ignore[abstract]


def test_the_one_state_provers_refuse_old_where_it_stands() -> None:
    from baobei.proofs.translate import SymbolicModel, Translator, Unsupported

    node = parse_expr("old(round) == round")
    with pytest.raises(Unsupported, match=r"old\(\.\.\.\) reads the state before a move") as err:
        Translator(load_ruleset(default_rules_dir()), SymbolicModel()).expr(node)
    assert err.value.pos == node.left.pos


def test_the_default_rules_declare_transition_invariants_and_progress() -> None:
    rules = load_ruleset(default_rules_dir())
    two_state = {i for i, inv in rules.invariants.items() if inv.two_state}
    assert {"shield_stays_active", "totals_change_at_round_end", "protected_tableau_unchanged",
            "bao_caller_fixed"} <= two_state
    assert "single_negative" not in two_state and "peek_limit" in rules.invariants
    assert rules.progress and all(p.text and p.cite.paras for p in rules.progress.values())
    assert ("progress", "no_deadlock") in {(k, n) for k, n, _, _ in rules.cited_rules()}


@pytest.mark.parametrize(("text", "needle", "message"), [
    ('define sneaky = old(round)\n', "old(round)", "may stand only in an invariant's when or holds"),
    ('invariant twice "x" § 2.1 [P18] { holds old(old(round)) == round }\n', "old(round))",
     "old(...) inside old(...)"),
    ('invariant who "x" § 2.1 [P18] { holds actor == active }\n', "actor ==", "only a transition invariant"),
    ('progress count "x" § 2.1 [P18] { when round + 1 }\n', "round + 1", "must be true or false; this is an int"),
    ('invariant number "x" § 2.1 [P18] { holds old(round) }\n', "old(round)", "must be true or false"),
    ('progress peek_limit "x" § 2.1 [P18]\n', "progress", "property 'peek_limit' is declared twice"),
    ('define old(x: int) = x\n', "define", "cannot be called old"),
], ids=["old_in_a_definition", "old_in_old", "actor_in_a_state_invariant", "progress_not_a_condition",
        "invariant_not_a_condition", "property_name_twice", "a_definition_called_old"])
def test_misplaced_properties_are_refused_where_they_stand(make_variant: MakeVariant, text: str, needle: str,
                                                            message: str) -> None:
    path = extra(make_variant(), text)
    err = load_error(path.parent)
    assert_at(err, path, *line_col(path, needle))
    assert message in err.message


def test_old_in_a_move_is_refused(make_variant: MakeVariant) -> None:
    variant = make_variant(("06_bao.bao", "    set bao_caller = actor\n", "    set bao_caller = old(actor)\n"))
    err = load_error(variant)
    assert_at(err, variant / "06_bao.bao", *line_col(variant / "06_bao.bao", "old(actor)"))
    assert "only in an invariant" in err.message


def test_a_malformed_progress_declaration_names_the_place(make_variant: MakeVariant) -> None:
    path = extra(make_variant(), 'progress stuck "x" § 2.1 [P18] { when }\n')
    err = load_error(path.parent)
    assert_at(err, path, *line_col(path, "}"))
    assert "found '}'" in err.message


def test_a_scenario_probe_may_not_read_old(tmp_path: Path, capsys: Capture) -> None:
    path = tmp_path / "probe.scenario"
    path.write_text(DRAW_SCENARIO + '  expect value "old(round) == round" = true\n', encoding="utf-8")
    assert main(["check", str(path)]) == 2
    assert "only in an invariant" in capsys.readouterr().err


# ---------------------------------------------------------------- the engine's judgement


def dealt(eng: Engine) -> State:
    st, _ = eng.new_match(["alice", "bob"], 3)
    return st


def test_old_reads_the_state_before_with_the_names_bound_around_it(make_variant: MakeVariant) -> None:
    variant = make_variant()
    extra(variant, 'invariant same_peeks "Looking changes one count" § 1.2 [P9] {\n'
          "  holds (count p in players: peeked[p] != old(peeked[p])) <= 1 and "
          "(actor == none or peeked[actor] == old(peeked[actor]) or peeked[actor] == old(peeked[actor]) + 1)\n}\n")
    eng = Engine(load_ruleset(variant))
    before = dealt(eng)
    after = before.copy()
    after.pvars["peeked"][0] = 1
    assert eng.transition_failure(before, after, Move(0, "look")) is None
    after.pvars["peeked"][1] = 1  # two counts changed in one move
    assert eng.transition_failure(before, after, Move(0, "look")) == (
        "invariant same_peeks (§ 1.2 [P9]) is violated: Looking changes one count")
    after.pvars["peeked"][1] = 0
    after.pvars["peeked"][0] = 2  # the actor's count jumped by two
    assert (eng.transition_failure(before, after, Move(0, "look")) or "").startswith("invariant same_peeks ")
    assert eng.transition_failure(before, after, None) is None  # no actor: that part says nothing


def test_state_invariants_skip_transition_invariants(default_engine: Engine) -> None:
    st = dealt(default_engine)
    st.vars["shield"] = "active"  # an active shield without a caller: the lemma shield_after_call says no
    broken = default_engine.broken_invariant(st)
    assert broken is not None and broken.ident == "shield_after_call"
    st.vars["bao_caller"] = 1  # a caller's active shield: every state invariant holds
    assert default_engine.broken_invariant(st) is None
    after = st.copy()
    after.vars["shield"] = "armed"
    inv = next(default_engine.broken_transitions(st, after, Move(0, "draw")))
    assert inv.ident == "shield_stays_active"
    after.round += 1  # a new round may reset the shield
    assert default_engine.transition_failure(st, after, Move(0, "draw")) is None


def test_a_state_where_nobody_can_act_breaks_progress(default_engine: Engine) -> None:
    st = dealt(default_engine)
    assert default_engine.deadlock(st) is None
    st.pvars["peeked"] = [2, 2]  # the peek is done but the phase never moved on: nobody may act
    stuck = default_engine.deadlock(st)
    assert stuck is not None and stuck.ident == "no_deadlock"
    st.phase = "match_over"  # the condition: a match that is over owes nobody a move
    assert default_engine.deadlock(st) is None


# ---------------------------------------------------------------- scenarios


BAO_TWICE = """\
scenario "A second call"
cites § 4.1 [P88]

table
  players alice bob
  alice: Spatz
  bob: Meise
  draw: Kranich, Star
  discard: Specht
  active alice
  phase turn_end

play
  alice bao
  bob draw
  bob discard
  bob bao
"""


def test_a_replay_fails_naming_the_transition_invariant_a_move_breaks(make_variant: MakeVariant, tmp_path: Path,
                                                                      capsys: Capture) -> None:
    variant = make_variant(("06_bao.bao", '  require bao_caller == none else "BAO was already called this round" '
                                          "§ 4.1 [P88]\n", ""))
    path = tmp_path / "twice.scenario"
    path.write_text(BAO_TWICE, encoding="utf-8")
    assert main(["check", "--rules", str(variant), str(path)]) == 1
    out = capsys.readouterr().out
    assert f"{path}:17:3: A second call" in out and "step: bob bao" in out
    assert "invariant bao_caller_fixed (§ 4.1 [P88]; § 7.2 [P167]) is violated" in out


STALL = """\
scenario "A turn handed on into the peek"
cites § 2.1 [P18]

table
  players alice bob
  alice: Spatz, Amsel, Meise, Star, Star
  bob: Flamingo, Specht, Meise, Amsel, Amsel
  draw: Kranich, Star
  discard: Ara
  active alice
  set peeked[alice] = 2
  set peeked[bob] = 2

play
  alice draw
  alice discard
  alice end_turn
"""


def test_a_replay_fails_naming_the_progress_property_a_move_breaks(make_variant: MakeVariant, tmp_path: Path,
                                                                   capsys: Capture) -> None:
    variant = make_variant(("03_turn.bao", "    set phase = turn_start_phase\n  }\n}",
                            '    set phase = "peek"\n  }\n}'))
    path = tmp_path / "stall.scenario"
    path.write_text(STALL, encoding="utf-8")
    assert main(["check", "--rules", str(variant), str(path)]) == 1
    out = capsys.readouterr().out
    assert "step: alice end_turn" in out and "progress no_deadlock (§ 2.1 [P18]" in out
    assert "nobody has a legal move" in out
    assert main(["check", str(path)]) == 0


# ---------------------------------------------------------------- seeded random play


def no_bao(eng: Engine, st: State, rng: random.Random) -> Move | None:
    """A kind of move first, BAO only when nothing else is left: rounds run long, into recycles and the
    automatic final phase."""
    move = eng.random_move_by_kind(st, rng)
    for _ in range(8):
        if move is None or move.name != "bao":
            return move
        move = eng.random_move_by_kind(st, rng)
    return move


POLICIES: dict[str, Policy] = {
    "uniform": lambda eng, st, rng: eng.random_move(st, rng),
    "kinds": lambda eng, st, rng: eng.random_move_by_kind(st, rng),
    "no_bao": no_bao,
}


def play_and_judge(eng: Engine, players: int, seed: int, policy: Policy, cap: int) -> tuple[int, str | None]:
    """Random legal moves from a seeded deal; after each one every property is judged. Returns the moves
    made and the first failure."""
    st, _ = eng.new_match([f"p{i}" for i in range(players)], seed)
    rng = random.Random(seed)
    for made in range(cap):
        move = policy(eng, st, rng)
        if move is None:
            return made, None  # the match is over (a deadlock before it would have been reported)
        before = st.copy()
        eng.push_generated(st, move)
        broken = check_move(eng, before, move, st)
        if broken is not None:
            return made + 1, f"seed {seed}, {eng.describe(before, move)}: {broken}"
    return cap, None


@pytest.mark.parametrize("players", range(2, 7))
@pytest.mark.parametrize("policy", POLICIES)
def test_random_play_breaks_no_property(default_engine: Engine, players: int, policy: str) -> None:
    made = 0
    for seed in range(4):
        moves, failure = play_and_judge(default_engine, players, seed, POLICIES[policy], 400)
        assert failure is None, failure
        made += moves
    assert made > 60  # the games were played, not ended at once


@pytest.mark.slow
@pytest.mark.parametrize("players", range(2, 7))
def test_long_random_play_breaks_no_property(default_engine: Engine, players: int) -> None:
    for seed in range(300):
        for policy in POLICIES.values():
            _, failure = play_and_judge(default_engine, players, 1000 + seed, policy, 3000)
            assert failure is None, failure


def test_the_random_play_check_can_fail(make_variant: MakeVariant) -> None:
    eng = Engine(load_ruleset(make_variant(("07_scoring.bao", "  for p in players { set noted[p] = noted_score(p) }\n",
                                            "  for p in players { set noted[p] = 0 - noted_score(p) }\n"))))
    failures = [play_and_judge(eng, 3, seed, POLICIES["uniform"], 400)[1] for seed in range(4)]
    assert any(f is not None and "one_negative_noted" in f for f in failures), failures


def _lemma_window(st: State, kind: str, attempts: int) -> None:
    others = sum(1 << p for p in st.seated() if p != st.active)
    st.windows.append(Window(kind, st.piles[0][-1] if st.piles[0] else 0, others, attempts))


def _waits(st: State, count: int) -> None:
    st.waiting += [Waiting("peek", 0, st.active) for _ in range(count)]


def _drawn_window_waiting(st: State) -> None:
    st.phase = "drawn"
    _lemma_window(st, "own_draw", 1)
    _waits(st, 1)


def _two_wait_on_discard(st: State) -> None:
    st.phase = "turn_end"
    _lemma_window(st, "discard", 1)
    _waits(st, 2)


def _total_none(st: State) -> None:
    st.pvars["total"][st.active] = None


def _untied_decision(st: State) -> None:
    st.vars["deciding"] = True
    st.pvars["total"][st.active] += 1  # a decision round among players whose totals differ


def _decision_round_scored_as_normal(st: State) -> None:
    st.vars["deciding"] = True
    st.phase = "round_over"  # a decision round that ended like an ordinary one


def _decision_round_of_one(st: State) -> None:
    st.vars["deciding"] = True  # a decision round may leave players out, but never all but one
    st.seat_round([st.active])


def _normal_round_short_of_a_player(st: State) -> None:
    st.seat_round(st.seated()[:-1])  # a normal round that leaves a player out


def _decision_due_undecided(st: State) -> None:
    st.phase = "decision_due"  # a decision round called while the match is not one to be decided


def _contenders_from_outside(st: State) -> None:
    st.vars["deciding"] = True
    st.phase = "decision_due"
    st.seat_round([st.active, next(p for p in st.seated() if p != st.active)])
    st.vars["contenders"] = tuple(range(len(st.names)))  # tied on their totals, but one of them did not play the round


# The lemmas that let induction prove the encoding's bounds (rules/09_invariants.bao), each with a state
# that breaks it alone among them; the state before the edit breaks none of them.
LEMMA_BREAKERS: dict[str, Callable[[State], None]] = {
    "window_only_in_the_turn": lambda st: _lemma_window(st, "discard", 0),
    "drawn_card_window": lambda st: setattr(st, "phase", "drawn"),
    "own_draw_window_alone": _drawn_window_waiting,
    "one_waits_on_an_unused_window": _two_wait_on_discard,
    "two_players_at_least": _decision_round_of_one,
    "totals_are_numbers": _total_none,
    "decision_among_tied": _untied_decision,
    "decision_round_ends_decided": _decision_round_scored_as_normal,
    "normal_round_seats_everyone": _normal_round_short_of_a_player,
    "decision_called_only_to_decide": _decision_due_undecided,
    "contenders_play_the_round": _contenders_from_outside,
}


@pytest.mark.parametrize("lemma", sorted(LEMMA_BREAKERS))
def test_each_window_lemma_is_judged(default_engine: Engine, lemma: str) -> None:
    st, _ = default_engine.new_match(["alice", "bob", "carol"], 3)  # three: a round may leave one out
    assert not {i.ident for i in default_engine.broken_invariants(st)} & set(LEMMA_BREAKERS)
    LEMMA_BREAKERS[lemma](st)
    assert {i.ident for i in default_engine.broken_invariants(st)} & set(LEMMA_BREAKERS) == {lemma}
