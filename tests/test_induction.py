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
from baobei.proofs.induction import Cti, classify, cti_lines, cti_reason

RULES = Path(__file__).resolve().parents[1] / "rules"


@pytest.fixture(scope="module")
def rules() -> Ruleset:
    return load_ruleset(RULES)


def test_claims_that_read_cards_are_left_out_with_their_reason(rules: Ruleset) -> None:
    labels = {f"invariant {name}" for name in rules.invariants}
    claims, transitions, left_out = classify(rules, 2, labels)
    tried = {d.ident for d in claims} | {d.ident for d in transitions}
    # Round values are sums of card values; hands are cards: free cards cannot decide them.
    assert {"invariant single_negative", "invariant hands_empty_at_turn_start"} <= set(left_out)
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
                                 player=z3.Int("player"), allowed=z3.BoolVal(True), post=None)
    decl = types.SimpleNamespace(ident="t")
    found = induction._transition(None, rel, [step], [], decl, lambda: None)  # type: ignore[arg-type]
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
