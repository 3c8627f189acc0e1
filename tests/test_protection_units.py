"""Protections however the rules write their condition: the engine's shortcut for `OWNER == X and REST`
and the general form protect the same tableaux (engine/protection.py's contract). And rules without a
`simultaneous` declaration have no call order."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path

import pytest
from baobei.engine.engine import Engine
from baobei.engine.legality import _unprotected_drawn
from baobei.engine.protection import tableau_of
from baobei.language.load import load_ruleset
from baobei.language.paths import default_scenarios_dir
from baobei.scenarios.parser import parse_scenario_file
from baobei.scenarios.runner import run_scenario
from conftest import MakeVariant

SHIELD = 'tableau of p when p == bao_caller and shield == "active" and not final_phase'
SHIELD_SCENARIOS = sorted((default_scenarios_dir() / "shield").glob("*.scenario")) + \
    sorted((default_scenarios_dir() / "properties").glob("protected_*.scenario"))


@pytest.mark.parametrize("condition", [
    'tableau of p when shield == "active" and p == bao_caller and not final_phase',  # the owner not first
    'tableau of p when (shield == "active" and not final_phase) and bao_caller == p',
    'tableau of p when p == bao_caller and (shield == "active" and not final_phase)',  # the shortcut, nested
], ids=["owner_second", "owner_last", "nested_rest"])
def test_a_protection_written_another_way_protects_the_same(make_variant: MakeVariant, condition: str) -> None:
    eng = Engine(load_ruleset(make_variant(("06_bao.bao", SHIELD, condition))))
    assert len(SHIELD_SCENARIOS) >= 10
    failed = [p.name for p in SHIELD_SCENARIOS if not run_scenario(parse_scenario_file(p), eng).passed]
    assert failed == []


def test_a_protection_holds_from_the_next_action_on(default_engine: Engine) -> None:
    st, _ = default_engine.new_match(["ann", "ben", "cid"], 5, log=False)
    st.vars["bao_caller"] = 1
    st.vars["shield"] = "active"
    assert not st.is_protected(1)  # set by hand: the engine has not judged it yet
    default_engine.refresh_protection(st)
    assert [st.is_protected(p) for p in range(3)] == [False, True, False]
    st.vars["final_phase"] = True
    default_engine.refresh_protection(st)
    assert st.protected == 0


def test_rules_without_a_simultaneous_declaration_have_no_call_order(make_variant: MakeVariant) -> None:
    line = "simultaneous \"Calls completed at the same moment count clockwise from the active player, the active " \
        "player first\" § 3.2 [P49] order seats_from(active)\n"
    rules: Path = make_variant(("04_pluck.bao", line, ""))
    eng = Engine(load_ruleset(rules))
    st, _ = eng.new_match(["ann", "ben"], 2, log=False)
    assert eng.call_order(st) is None
    rng = random.Random(2)
    for _ in range(60):
        move = eng.random_move(st, rng)
        if move is None:
            assert st.phase == "match_over"
            break
        eng.push(st, move, log=False)


def test_the_samplers_protection_guard_passes_an_argument_left_out(default_engine: Engine) -> None:
    """The sampler's protection test of one drawn argument: an optional slot left out (none) names no tableau
    and passes; a slot of the shielded caller's tableau is refused to bob; bob's own slot passes."""
    path = default_scenarios_dir() / "shield" / "schuhschnabel_only_own_exchange.scenario"
    scenario = parse_scenario_file(path)
    at_exchange = next(i for i, step in enumerate(scenario.steps) if "decisive" in repr(step))
    result = run_scenario(dataclasses.replace(scenario, steps=scenario.steps[:at_exchange]), default_engine)
    st = result.state
    assert result.passed and st is not None and st.is_protected(0)
    guard = _unprotected_drawn(1, default_engine.protections[0], default_engine.protections)
    alice_slot = next(v for v in default_engine.domain(st, "slot", 1) if tableau_of(v) == 0)
    bob_slot = next(v for v in default_engine.domain(st, "slot", 1) if tableau_of(v) == 1)
    assert guard(st, 1, None) is True
    assert guard(st, 1, alice_slot) is False and guard(st, 1, bob_slot) is True
    assert guard(st, 0, alice_slot) is True  # the caller's own change
