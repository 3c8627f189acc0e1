"""The engine over Z3 terms (proofs/machine.py) against the engine over values: one semantics.

Every move of seeded random play is made twice: by the engine on its state, and by the engine's own
code over a store of constants (the prover's value domain); Z3 must find the engine's result among
those the symbolic run allows. A planted difference in the symbolic domain's place operations is
caught, so the comparison can fail.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from baobei.engine.engine import Engine
from baobei.language.load import load_ruleset
from baobei.language.ruleset import Ruleset
from baobei.proofs import agree
from baobei.proofs.agree import Recorder, agreement, step_agrees
from baobei.proofs.machine import SymEngine

RULES = Path(__file__).resolve().parents[1] / "rules"


@pytest.fixture(scope="module")
def rules() -> Ruleset:
    return load_ruleset(RULES)


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_every_move_of_seeded_play_is_a_step_of_the_relation(rules: Ruleset, players: int) -> None:
    # 20 moves of each seeded match (the first 20 of the 30 this took before, a minute of CI at 4 players);
    # the trace replays (test_relation) and the Hypothesis agreement reach further.
    assert agreement(rules, players, 20, seed=players) == []


def test_a_wrong_place_operation_is_a_disagreement(rules: Ruleset, monkeypatch: pytest.MonkeyPatch) -> None:
    """A symbolic `reveal` that shows nothing: the engine's shown card is known, the relation's is not."""
    eng = Engine(rules)
    sym = SymEngine(rules, 2)
    monkeypatch.setattr(type(sym.effects), "reveal", staticmethod(lambda st, c: None))
    rng = random.Random(4)
    st, _ = eng.new_match(list(agree.NAMES[:2]), 4)
    found = []
    for n in range(200):
        move = eng.random_move(st, rng)
        assert move is not None
        before = st.copy()
        recorder = Recorder(n)
        st.use_chance(recorder)
        eng.push(st, move, log=False)
        verdict = step_agrees(eng, sym, before, move, st, recorder.drawn)
        if verdict is not None:
            found.append(verdict)
            break
    assert found and "known" in found[0], found


def test_the_draws_of_a_move_give_the_engine_cards_in_order(rules: Ruleset) -> None:
    """A move whose draws are checked against other cards than the engine's is a disagreement."""
    eng = Engine(rules)
    sym = SymEngine(rules, 3)
    rng = random.Random(2)
    st, _ = eng.new_match(list(agree.NAMES[:3]), 2)
    while True:
        move = eng.random_move(st, rng)
        assert move is not None
        before = st.copy()
        recorder = Recorder(1)
        st.use_chance(recorder)
        eng.push(st, move, log=False)
        if recorder.drawn:
            break
    assert step_agrees(eng, sym, before, move, st, recorder.drawn) is None
    wrong = [(c + 1) % len(st.known) for c in recorder.drawn]
    assert step_agrees(eng, sym, before, move, st, wrong) is not None
