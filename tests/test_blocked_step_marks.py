"""The trial run that judges a step of an ability against a protection (legality.py `blocked_step`) gives the
cards it moves the marks the real run gives them: an ability's moves mark cards `moved` (rules/05_abilities.bao,
§ 6.11 [P153, P154], `on ability moves`), and a step that reads a mark it has just given must be judged on the
path its real run takes. Pinned with the BAO shield (§ 4.2, declared in rules/06_bao.bao as `protect shield`,
§ 4.2 [P94, P95, P99, P100] § 3.6 [P77]) and the Elster's step `decide_swap` of a rules variant: the step first
swaps two cards of carol's (no protection), then swaps alice's (the caller's, shielded) card with carol's only if
the card now on carol's slot is marked `moved` (or only if it is not). Before the fix the trial ran without
marks, so the first variant was accepted and its real run met the shield (the change left out), and the second
was refused though its real run leaves the caller's tableau as it was."""

from __future__ import annotations

import pytest
from baobei.engine.engine import Engine
from baobei.engine.notation import parse_move_text
from baobei.engine.runtime import Event
from baobei.engine.state import State
from conftest import ELSTER_VS_SHIELD, table_state, variant_engine

DEFAULT_STEP = "if swap_them { swap card_at(a) with card_at(b) }"


def step_reading_its_mark(condition: str) -> str:
    """The step's body in the variant: carol's cards 1 and b swap (marking both `moved`), then the caller's card
    a and carol's card b swap when `condition` holds of the card now on b."""
    return (f"if swap_them {{\n      swap card_at(b) with card_at(slot(owner(b), 1))\n"
            f"      if {condition} {{ swap card_at(a) with card_at(b) }}\n    }}")


def waiting_step(eng: Engine) -> State:
    """Bob has drawn and used the Elster on alice.1 (the shielded caller's) and carol.2: the step waits."""
    st = table_state(eng, ELSTER_VS_SHIELD)
    for text in ("bob draw", "bob discard", "bob look_and_swap a=alice.1 b=carol.2"):
        eng.push(st, parse_move_text(eng.rules.moves, st, text))
    assert st.protected == 1 << 0 and st.waiting and st.waiting[0].ability == "decide_swap"
    return st


def real_run(eng: Engine, st: State, text: str) -> tuple[State, list[Event]]:
    """The step run on a copy without being checked: what its effects do."""
    new = st.copy()
    return new, eng.push_checked(new, parse_move_text(eng.rules.moves, new, text))


def meets_shield(events: list[Event]) -> bool:
    return any("protected (shield)" in e.text for e in events)


@pytest.mark.parametrize(("condition", "real_run_changes_caller"), [
    ('marked(card_at(b), "moved")', True),
    ('not marked(card_at(b), "moved")', False),
])
def test_a_step_is_judged_with_the_marks_its_real_run_gives(
        tmp_path_factory: pytest.TempPathFactory, condition: str, real_run_changes_caller: bool) -> None:
    """The real run marks the card now on carol.2 `moved`; the step is refused exactly when that run would swap
    the caller's card (and meets the shield), and allowed when it leaves the caller's tableau alone."""
    eng = variant_engine(tmp_path_factory, ("05_abilities.bao", DEFAULT_STEP, step_reading_its_mark(condition)))
    st = waiting_step(eng)
    text = "bob decide_swap swap_them=true"
    after, events = real_run(eng, st, text)
    rotkehlchen = st.facts.by_label["Rotkehlchen#1"]
    assert after.is_marked(rotkehlchen, "moved") and after.tableaux[2][1] == rotkehlchen
    assert meets_shield(events) is real_run_changes_caller
    rejection = eng.check(st, parse_move_text(eng.rules.moves, st, text))
    if real_run_changes_caller:
        assert rejection is not None and rejection.rule == "protect shield"
    else:
        assert rejection is None
        pushed = st.copy()
        eng.push(pushed, parse_move_text(eng.rules.moves, pushed, text))
        assert pushed.tableaux[0] == st.tableaux[0]
    assert eng.check(st, parse_move_text(eng.rules.moves, st, "bob decide_swap swap_them=false")) is None
