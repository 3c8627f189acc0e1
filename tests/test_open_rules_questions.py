"""Rulebook situations where the rules encoded in rules/ and a careful reading of the rulebook disagree, and
the rules have not been changed yet (each change of rules/ needs a re-certification of the proof record).

Each scenario in tests/open_rules_questions/ (suffix .open-scenario, so that pytest does not run it as one of
the rules' scenarios) states what the rulebook says; it fails today at the move in dispute, an xfail that
names the disagreement. When the rules are changed it passes, the test then fails, and the
scenario moves to scenarios/ (as .scenario) with the change.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from baobei.scenarios.parser import parse_scenario_file
from baobei.scenarios.runner import run_scenario

HERE = Path(__file__).resolve().parent / "open_rules_questions"

# What each scenario's failure must say today: that it fails for the disagreement, not for a fault of its own.
FAILS_WITH = {
    "riesentukan_draw_needing_the_second_recycle_may_reach_the_caller.open-scenario": ("bob add_card victim=alice",
                                                                                      "the BAO shield is active"),
}

WHY = {
    "riesentukan_draw_needing_the_second_recycle_may_reach_the_caller.open-scenario":
        "§ 6.7 [P135] with § 7.1 [P161] and § 7.2 [P164, P167]: the Riesentukan's card is added after its draw, "
        "and a draw that needs the round's second recycle starts the final phase first, where no shield holds "
        "(the Schuhschnabel's exchange already works so: scenarios/recycle/"
        "second_recycle_inside_schuhschnabel_ends_shield.scenario). rules/ judge the victim against the shield "
        "when it is chosen, before the draw, and refuse the caller by § 4.2 [P99].",
}


@pytest.mark.parametrize("name", sorted(WHY))
def test_an_open_rules_question_still_fails_as_the_rules_stand(name: str) -> None:
    result = run_scenario(parse_scenario_file(HERE / name))
    if result.failure is not None:
        step, says = FAILS_WITH[name]
        assert result.failure.step == step and says in result.failure.message, result.failure
        pytest.xfail(WHY[name])
    pytest.fail(f"{name} passes now: move it to scenarios/ and drop it from WHY")


def test_every_open_question_has_its_reason() -> None:
    assert sorted(p.name for p in HERE.glob("*.open-scenario")) == sorted(WHY) == sorted(FAILS_WITH)
