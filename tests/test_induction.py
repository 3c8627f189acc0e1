"""Induction with free cards (proofs/induction.py): which claims it tries, and how it reports the others.

The full run (every move of the rules from any state, Houdini over the claims) takes minutes per player
count, so it is `verify --induction`'s, not the tests'; these check its parts that decide what it claims.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from baobei.engine.engine import Engine
from baobei.language.load import load_ruleset
from baobei.language.ruleset import Ruleset
from baobei.proofs.induction import Cti, classify, cti_reason
from baobei.proofs.report import cti_lines

RULES = Path(__file__).resolve().parents[1] / "rules"


@pytest.fixture(scope="module")
def rules() -> Ruleset:
    return load_ruleset(RULES)


def test_claims_that_read_cards_are_left_out_with_their_reason(rules: Ruleset) -> None:
    labels = {f"invariant {name}" for name in rules.invariants}
    claims, transitions, left_out = classify(rules, 2, labels)
    tried = {d.ident for d in claims} | {d.ident for d in transitions}
    # Hands are cards, and who knows a card is a question about one card: free cards cannot decide them.
    assert {"invariant hands_empty_at_turn_start", "invariant discard_top_known"} <= set(left_out)
    # A round value is a sum over a tableau's cards that reads nothing else: the store keeps its answer
    # while nothing moves, so the claims about the scores a round notes are tried.
    assert {"failed_bao_noted", "successful_bao_noted", "caller_noted_lowest"} <= {d.ident for d in claims}
    assert all(why.startswith("reads the cards") for why in left_out.values())
    # `source` is a card too: a claim about one ability is left out by its name alone.
    assert "whose ability" in left_out["invariant abilities_teach_their_user"]
    # What only the kept state decides is tried: the peek counts, the caller, the shield.
    assert {"peek_limit", "caller_not_owed", "shield_after_call"} <= {d.ident for d in claims}
    assert {"bao_caller_fixed", "shield_stays_active"} <= {d.ident for d in transitions}
    assert not tried & {label.split(" ", 1)[1] for label in left_out}
    assert tried | {label.split(" ", 1)[1] for label in left_out} == set(rules.invariants)


def test_lemmas_are_always_tried(rules: Ruleset) -> None:
    claims, transitions, left_out = classify(rules, 3, set())
    assert {d.ident for d in claims} == {name for name in rules.lemmas if f"invariant {name}" not in left_out}
    assert not transitions and all(d.lemma for d in claims)


def test_a_counterexample_to_induction_is_a_scenario_table(rules: Ruleset) -> None:
    eng = Engine(rules)
    before, _ = eng.new_match(["alice", "bob"], 3)
    before.vars["shield"] = "active"  # no caller: a state no game reaches
    lines = cti_lines(rules, Cti("shield_stays_active", "alice bao", before, before))
    assert lines[1:3] == ["table", "  players alice bob"]
    assert "  set shield = active" in lines and lines[-1] == "then alice bao"
    assert cti_reason(Cti("x", "alice bao", before, before)).startswith("not kept by alice bao")
    assert cti_lines(rules, Cti("x", "", None, before)) == []  # the base case has no state before a move


def test_a_question_about_the_cards_keeps_its_answer_however_much_else_is_remembered(rules: Ruleset) -> None:
    """With free cards, a guard and the body after it must read the same value for the same question (the
    card on a slot, say): a separate fresh value would let the body act on a card the guard never allowed."""
    from baobei.proofs.arguments import fresh_maker
    from baobei.proofs.store import Codes, FreeCards, fresh_free_store

    store = fresh_free_store(Codes(rules, 2), "t")
    store.fresh = fresh_maker("t")
    first = store.answer(("card_at", 0, 1), "card")
    for i in range(5_000):  # more than the memo of worked-out values keeps
        store.remember(("other", i), lambda i=i: i)
    copy = store.copy()
    assert isinstance(copy, FreeCards)
    assert copy.answer(("card_at", 0, 1), "card") is first
    store.written()
    assert store.answer(("card_at", 0, 1), "card") is not first  # a change of the cards asks afresh


def test_houdini_asks_a_step_again_only_when_it_was_checked_under_claims_since_dropped() -> None:
    from baobei.proofs.induction import houdini

    alive: dict[str, object] = {"a": None, "b": None, "c": None}
    asked: list[tuple[int, frozenset[str]]] = []

    def check(step: int) -> bool:
        asked.append((step, frozenset(alive)))
        if step == 2 and "b" in alive:
            alive.pop("b")  # step 2 breaks b
            return True
        if step == 0 and "c" in alive and "b" not in alive:
            alive.pop("c")  # without b assumed, step 0 breaks c
            return True
        return False

    houdini([0, 1, 2, 3], alive, check, lambda: None)
    assert set(alive) == {"a"}
    # Steps 0 and 1 were checked assuming b, step 2 dropped it: those three again; step 3 was checked after
    # the drop, and only c's drop (by step 0) sends every other step back.
    assert asked == [(0, frozenset("abc")), (1, frozenset("abc")), (2, frozenset("abc")), (3, frozenset("ac")),
                     (0, frozenset("ac")), (1, frozenset("a")), (2, frozenset("a")), (3, frozenset("a")),
                     (0, frozenset("a"))]


class _GivesUpAtFirst:
    """A solver that answers only when given the longer time: `answers[ms]` is what it says."""

    def __init__(self, ms: int, answers: dict[int, object], made: list[int]) -> None:
        self.answer = answers[ms]
        made.append(ms)

    def check(self, *_: object) -> object:
        return self.answer

    def reason_unknown(self) -> str:
        return "timeout"


@pytest.mark.parametrize("late", ["unsat", "unknown"])
def test_a_claim_z3_gave_up_on_is_asked_again_with_more_time_by_a_new_solver(
        monkeypatch: pytest.MonkeyPatch, late: str) -> None:
    import types

    import z3  # type: ignore[import-untyped]
    from baobei.proofs import induction

    made: list[int] = []
    answers = {induction.CHECK_MS: z3.unknown, induction.RETRY_MS: getattr(z3, late)}
    monkeypatch.setattr(induction, "_solver", lambda hyps, ms: _GivesUpAtFirst(ms, answers, made))
    alive: dict[str, object] = {"c": None}
    out = induction.Proof(2)
    step = types.SimpleNamespace(cm=types.SimpleNamespace(name="deal"))
    induction._one_by_one(None, None, step, [], {"c": z3.Bool("c")}, alive, out)  # type: ignore[arg-type]
    assert made == [induction.CHECK_MS, induction.RETRY_MS]
    assert ("c" in alive) == (late == "unsat")
    if late == "unknown":
        assert f"no answer in {induction.RETRY_MS // 1000} s" in out.ctis["c"].move


@pytest.mark.parametrize("late", ["unsat", "unknown"])
def test_a_transition_invariant_z3_gave_up_on_is_asked_again_with_more_time(
        monkeypatch: pytest.MonkeyPatch, late: str) -> None:
    """As a claim alone (above): measured at 4 players, match_ends_at_threshold after `deal` took Z3 more than
    its 30 s beside another proof, and 8-10 s alone."""
    import types

    import z3  # type: ignore[import-untyped]
    from baobei.proofs import induction

    made: list[int] = []
    answers = {induction.CHECK_MS: z3.unknown, induction.RETRY_MS: getattr(z3, late)}
    monkeypatch.setattr(induction, "_solver", lambda hyps, ms: _GivesUpAtFirst(ms, answers, made))
    monkeypatch.setattr(induction, "TwoStates", lambda *_: None)
    monkeypatch.setattr(induction, "claim", lambda *_: z3.Bool("goal"))
    monkeypatch.setattr(induction, "_unless_failed", lambda name, post, goal: goal)
    rel = types.SimpleNamespace(side=[], pre={("err",): z3.BoolVal(False)})
    step = types.SimpleNamespace(cm=types.SimpleNamespace(name="deal", decl=types.SimpleNamespace(is_ability=False)),
                                 player=z3.Int("player"), allowed=z3.BoolVal(True), post=None, facts=[])
    decl = types.SimpleNamespace(ident="t")
    found = induction._transition(None, rel, [step], [], decl, lambda: None, False)  # type: ignore[arg-type]
    assert made == [induction.CHECK_MS, induction.RETRY_MS]
    assert (found is None) == (late == "unsat")
    if found is not None:
        assert f"no answer in {induction.RETRY_MS // 1000} s" in found.move


def test_a_question_about_one_part_of_the_cards_keeps_its_answer_when_another_part_changes(rules: Ruleset) -> None:
    """Who knows a card and its marks go with the card: learning a card leaves every place as it was, and a
    move leaves what is known and marked (an ability that only looks must not seem to discard a card)."""
    from baobei.proofs.arguments import fresh_maker
    from baobei.proofs.store import KNOWLEDGE, LAYOUT, MARKS, Codes, fresh_free_store

    store = fresh_free_store(Codes(rules, 2), "t")
    store.fresh = fresh_maker("t")
    questions = {LAYOUT: (("size", 1), "int"), KNOWLEDGE: (("knows", 0, 3), "bool"), MARKS: (("marked", 3, 0), "bool")}

    def answers() -> dict[str, object]:
        return {part: store.answer(what, kind) for part, (what, kind) in questions.items()}

    for part in questions:
        before = answers()
        store.written(part)
        after = answers()
        assert {p for p in questions if after[p] is not before[p]} == {part}
    before = answers()
    store.written()
    assert all(answers()[p] is not before[p] for p in questions)  # every part written: every answer afresh


def _free_store(rules: Ruleset, players: int = 2):  # type: ignore[no-untyped-def]
    from baobei.proofs.arguments import fresh_maker
    from baobei.proofs.store import Codes, fresh_free_store

    store = fresh_free_store(Codes(rules, players), "t")
    store.fresh = fresh_maker("t")
    return store


def _round_value(rules: Ruleset, store: object, player: object) -> object:
    from baobei.proofs.translate import Translator
    from test_properties import parse_expr

    return Translator(rules, store).expr(parse_expr("round_value(p)"), {"p": player})  # type: ignore[arg-type]


def test_a_round_value_keeps_its_answer_until_a_card_moves(rules: Ruleset) -> None:
    """A sum over a tableau's cards that reads only each card's facts is a question about the cards alone:
    the store keeps its answer while the variables change (the scores a routine notes from it), and a
    claim about it reads the same value the routine read. A sum whose body reads the state does not."""
    from baobei.proofs import terms as T
    from baobei.proofs.store import LAYOUT, reads_cards
    from baobei.proofs.translate import PlayerV, Translator
    from test_properties import parse_expr

    store = _free_store(rules)
    alice = PlayerV(T.num(0))
    first = _round_value(rules, store, alice)
    before = Translator(rules, store).expr(parse_expr("sum c in cards(p): value(c) + round"), {"p": alice})
    store[("round",)] = T.add(store[("round",)], 1)  # a variable changes: a new content of the store
    assert _round_value(rules, store, alice) is first
    assert Translator(rules, store).expr(parse_expr("sum c in cards(p): value(c) + round"), {"p": alice}) != before
    assert not reads_cards(first.term)  # type: ignore[attr-defined]  # a claim about it is tried by induction
    store.written(LAYOUT)
    assert _round_value(rules, store, alice) is not first  # a card moved: asked afresh


def test_a_move_that_moves_cards_on_some_paths_keeps_the_answers_of_the_others(rules: Ruleset) -> None:
    """After a move whose paths join, the cards' epoch is If(path, new, old): a question's answer is the new
    epoch's on the paths that moved a card and the old one's on the others (the end of a turn that scores
    the round moves nothing, but the abilities that may settle in it do)."""
    import z3
    from baobei.proofs import terms as T
    from baobei.proofs.store import EPOCHS, LAYOUT
    from baobei.proofs.translate import PlayerV

    store = _free_store(rules)
    alice = PlayerV(T.num(0))
    old = _round_value(rules, store, alice)
    moved = z3.Bool("moved")
    store.t[EPOCHS[LAYOUT]] = T.ite(moved, z3.Int("new_epoch"), store.t[EPOCHS[LAYOUT]])
    after = _round_value(rules, store, alice)
    solver = z3.Solver()
    assert solver.check(z3.Not(moved), after.term != old.term) == z3.unsat  # type: ignore[attr-defined]
    assert solver.check(moved, after.term != old.term) == z3.sat  # type: ignore[attr-defined]


def test_a_tableau_of_a_player_the_state_names_is_the_tableau_of_that_seat(rules: Ruleset) -> None:
    """The caller's round value in a claim and the round value a routine noted seat by seat are one value
    when the caller is that seat: the answer about the caller's tableau is the answer about each seat."""
    import z3
    from baobei.proofs import terms as T
    from baobei.proofs.translate import PlayerV

    store = _free_store(rules, 3)
    caller = z3.Int("caller")
    by_seat = [_round_value(rules, store, PlayerV(T.num(q))) for q in range(3)]
    named = _round_value(rules, store, PlayerV(caller))
    solver = z3.Solver()
    for q, value in enumerate(by_seat):
        assert solver.check(caller == q, named.term != value.term) == z3.unsat  # type: ignore[attr-defined]
    assert solver.check(caller == 1, named.term != by_seat[0].term) == z3.sat  # type: ignore[attr-defined]


def test_induction_assumes_what_z3_proves_of_every_state_and_the_free_cards_can_state(rules: Ruleset) -> None:
    """single_negative holds in every state (Z3 over every state of the cards); over free cards it is a fact
    about the round values that no move could teach: induction assumes it before and after every move.
    A claim about reached states, or one the free cards cannot state (every card in one place), is no fact."""
    from baobei.proofs.induction import every_state_facts

    facts = {d.ident for d in every_state_facts(rules, 2)}
    assert {"single_negative", "negative_caller_succeeds"} <= facts
    assert not facts & {"card_conservation", "failed_bao_noted", "peek_limit"}
    assert all(not rules.invariants[name].reachable for name in facts)


def test_a_claim_about_every_state_that_z3_refutes_is_no_fact(tmp_path: Path) -> None:
    """Assuming a claim that does not hold in every state would prove anything: one Z3 refutes is left out."""
    import shutil

    from baobei.proofs.induction import every_state_facts

    variant = tmp_path / "rules"
    shutil.copytree(RULES, variant)
    (variant / "10_extra.bao").write_text(
        'invariant no_negative_value "No round value below zero" § 5.1 [P113] {\n'
        "  holds all p in players: round_value(p) >= 0\n}\n", encoding="utf-8")
    facts = {d.ident for d in every_state_facts(load_ruleset(variant), 2)}
    assert "single_negative" in facts and "no_negative_value" not in facts


def _two_claims_one_step(monkeypatch: pytest.MonkeyPatch) -> tuple[object, object, object]:
    """A step that breaks claim `needs_fact` only where the fact after it is false, and `beyond` only where it
    is true (no model breaks both): the first a fact rules out, the second not."""
    import types

    import z3
    from baobei.proofs import induction

    g1, g2, fact = z3.Bools("g1 g2 fact")
    monkeypatch.setattr(induction, "_claims", lambda rules, post, alive: {n: {"needs_fact": g1, "beyond": g2}[n]
                                                                          for n in alive})
    monkeypatch.setattr(induction, "_unless_failed", lambda name, post, goal: goal)
    monkeypatch.setattr(induction, "_cti", lambda rules, rel, step, model: Cti("", "move", "before", "after"))
    rel = types.SimpleNamespace(side=[], facts=[], pre={("err",): z3.BoolVal(False)})
    step = types.SimpleNamespace(post=None, facts=[fact],
                                 allowed=z3.And(z3.Implies(z3.Not(g1), z3.Not(fact)), z3.Implies(z3.Not(g2), fact)))
    return rel, step, {"needs_fact": z3.Bool("p1"), "beyond": z3.Bool("p2")}


def test_the_first_pass_notes_which_claims_a_fact_about_every_state_would_not_save(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from baobei.proofs import induction

    rel, step, pre = _two_claims_one_step(monkeypatch)
    alive: dict[str, object] = {"needs_fact": None, "beyond": None}
    out = induction.Proof(2)
    assert induction._houdini_step(None, rel, step, [], pre, alive, out, False)  # type: ignore[arg-type]
    assert alive == {} and set(out.ctis) == {"needs_fact", "beyond"}
    assert out.beyond_facts == {"beyond"}


def test_the_second_pass_assumes_the_facts_and_keeps_what_they_save(monkeypatch: pytest.MonkeyPatch) -> None:
    from baobei.proofs import induction

    rel, step, pre = _two_claims_one_step(monkeypatch)
    alive: dict[str, object] = {"needs_fact": None, "beyond": None}
    out = induction.Proof(2)
    assert induction._houdini_step(None, rel, step, [], pre, alive, out, True)  # type: ignore[arg-type]
    assert alive == {"needs_fact": None} and set(out.ctis) == {"beyond"}


def test_the_second_pass_asks_only_the_claims_the_first_dropped_and_keeps_the_first_cti_if_z3_gives_up(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Claims proved without the facts are assumed, not asked again; a claim Z3 cannot judge with the facts
    keeps the CTI that dropped it without them (a state, not 'no answer')."""
    import types

    import z3
    from baobei.proofs import induction

    asked: list[set[str]] = []

    def second(steps: object, again: dict[str, object], check: object, deadline: object) -> None:
        asked.append(set(again))
        again.pop("lost")
        out.ctis["lost"] = Cti("lost", "end_turn (Z3 gave no answer in 120 s)", None, None)

    monkeypatch.setattr(induction, "houdini", second)
    out = induction.Proof(2)
    out.ctis = {"saved": Cti("saved", "a", "s", "t"), "lost": Cti("lost", "b", "u", "v")}
    alive: dict[str, object] = {"kept": None}
    rel = types.SimpleNamespace(facts=[z3.Bool("f")])
    pre = {name: z3.Bool(name) for name in ("kept", "saved", "lost")}
    induction._with_facts(None, rel, [], [], {"saved": None, "lost": None}, pre, alive, out,  # type: ignore[arg-type]
                          lambda: None)
    assert asked == [{"saved", "lost"}]
    assert set(alive) == {"kept", "saved"}
    assert set(out.ctis) == {"lost"} and out.ctis["lost"].before == "u"


def test_a_list_made_of_a_players_tableau_by_a_condition_is_a_list_of_its_own(rules: Ruleset) -> None:
    """`if c then cards(caller) else ...` under two conditions: two lists, whose sizes may differ. Mapping each
    to the seats' lists would lose the condition and make them one."""
    import z3
    from baobei.language import syntax as s
    from baobei.proofs.translate import PlayerV

    store = _free_store(rules, 3)
    caller = store.cards(PlayerV(z3.Int("caller")), s.NOWHERE)
    first = caller.fresh(("if", 101, "OpaqueV", "size"), "int")  # type: ignore[attr-defined]
    second = caller.fresh(("if", 202, "OpaqueV", "size"), "int")  # type: ignore[attr-defined]
    assert z3.Solver().check(*store.side, z3.Int("caller") == 1, first.term != second.term) == z3.sat


def test_a_definition_named_like_a_fact_of_the_deck_is_not_pure() -> None:
    """A sum whose body calls a definition (which wins over the builtin of its name) may read the state."""
    from baobei.language import syntax as s
    from baobei.proofs.translate import _pure

    body = s.Call(s.NOWHERE, "value", (s.Name(s.NOWHERE, "c"),))
    assert _pure(body, frozenset({"c"}), frozenset())
    assert not _pure(body, frozenset({"c"}), frozenset({"value"}))


def test_a_tableau_list_is_the_tableau_when_it_was_made(rules: Ruleset) -> None:
    """`let before = cards(p)`, a card moves, then `size(before)`: the engine keeps the list it made, so its
    size is the old tableau's, not the new one's. Asked with the layout of the moment, the old list would
    have the new tableau's size, and a claim could be proved of states no game has."""
    from baobei.language import syntax as s
    from baobei.proofs import terms as T
    from baobei.proofs.store import LAYOUT
    from baobei.proofs.translate import PlayerV

    store = _free_store(rules)
    alice = PlayerV(T.num(0))
    before = store.cards(alice, s.NOWHERE)
    old_size = store.size(before, s.NOWHERE)
    store.written(LAYOUT)
    assert store.size(before, s.NOWHERE) is old_size  # the list made before the move: its size then
    assert store.size(store.cards(alice, s.NOWHERE), s.NOWHERE) is not old_size  # the tableau now: afresh


def test_free_slots_are_those_of_the_moment_they_were_asked_for(rules: Ruleset) -> None:
    """Free-slot membership is the free slots of the moment the set was made, however late it is asked; a set
    made after a card moved answers afresh."""
    import z3
    from baobei.language import syntax as s
    from baobei.proofs import terms as T
    from baobei.proofs.store import LAYOUT
    from baobei.proofs.translate import PlayerV, SlotV

    store = _free_store(rules)
    free = store.slots(PlayerV(T.num(0)), True, s.NOWHERE)
    mine = free.member(SlotV(T.num(0), T.num(2)))  # type: ignore[attr-defined]
    store.written(LAYOUT)
    assert z3.Solver().check(mine != free.member(SlotV(T.num(0), T.num(2)))) == z3.unsat  # type: ignore[attr-defined]
    later = store.slots(PlayerV(T.num(0)), True, s.NOWHERE)
    assert z3.Solver().check(mine != later.member(SlotV(T.num(0), T.num(2)))) == z3.sat  # type: ignore[attr-defined]


def test_an_if_between_lists_of_one_tableau_made_at_two_layouts_is_neither(rules: Ruleset) -> None:
    """`if c then before else cards(p)`, a card moved between: the branches are two lists. Taken for one,
    the branch made after the move would be answered with the old layout's tableau."""
    import z3
    from baobei.language import syntax as s
    from baobei.proofs import terms as T
    from baobei.proofs.store import LAYOUT
    from baobei.proofs.translate import PlayerV, merge

    store = _free_store(rules)
    alice = PlayerV(T.num(0))
    before = store.cards(alice, s.NOWHERE)
    again = store.cards(alice, s.NOWHERE)
    choose = z3.Bool("c")
    assert merge(choose, before, again, s.NOWHERE) is before  # one layout: one list
    store.written(LAYOUT)
    after = store.cards(alice, s.NOWHERE)
    merged = merge(choose, before, after, s.NOWHERE)
    assert store.size(merged, s.NOWHERE) is not store.size(before, s.NOWHERE)
