"""What a blank state, the builtin registry and the division definition promise, found by mutation testing
(tools/mutation.py, issue 11): each test pins a behaviour that a surviving mutant of engine/state.py,
language/builtins.py or language/arith.py changed. A blank state has the empty phase and protects no
tableau; the registry's entries are frozen (hashable) values; the proof report quotes the one meaning of
`//` and `%` that the engine computes."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from baobei.engine.engine import Engine
from baobei.engine.state import State
from baobei.language.builtins import BUILTINS, STATE_NAMES
from baobei.language.source import Pos
from baobei.scenarios.expectations import compile_probe

HERE = Pos("state survivors", 1, 1)


def value(eng: Engine, st: State, text: str) -> Any:
    fn, _ = compile_probe(eng, st, text, HERE)
    return eng.evaluate(st, fn, {name: i for i, name in enumerate(st.names)})


def test_a_blank_state_has_the_empty_phase_and_protects_no_tableau(default_engine: Engine) -> None:
    st = default_engine.blank_state(["alice", "bob", "carol"], 7)
    assert st.phase == ""
    assert st.protected == 0
    assert [st.is_protected(p) for p in range(3)] == [False, False, False]
    assert value(default_engine, st, "phase") == ""
    assert value(default_engine, st, "count p in players: protected(p)") == 0
    again = State.from_json(st.to_json(), default_engine.facts, default_engine.pile_locs)
    assert (again.phase, again.protected) == ("", 0)


@pytest.mark.parametrize("name", ["value", "size", "max", "phase"])
def test_registry_entries_are_frozen_values(name: str) -> None:
    entry = BUILTINS.get(name) or STATE_NAMES[name]
    with pytest.raises(dataclasses.FrozenInstanceError):
        entry.none_value = 1  # type: ignore[misc]
    assert {entry: name}[entry] == name  # hashable: an entry may key a table
    assert hash(entry) == hash(dataclasses.replace(entry))


def test_the_proof_report_quotes_the_division_the_engine_computes(default_engine: Engine) -> None:
    # Imported here, so that a missing definition fails this test rather than the collection of the file.
    from baobei.language.arith import FLOOR_DIVISION_DOC
    from baobei.proofs.report import Method, methods_section

    assert FLOOR_DIVISION_DOC.startswith("a // b rounds towards negative infinity")
    assert FLOOR_DIVISION_DOC.endswith("b = 0 is an error")
    text = "\n".join(methods_section(default_engine.rules, {"p": Method("state", ["phase"])}, 0))
    assert FLOOR_DIVISION_DOC + "." in text
    st = default_engine.blank_state(["alice", "bob"], 1)
    quotients = {"(0 - 7) // 2": -4, "(0 - 7) % 2": 1, "7 // (0 - 2)": -4, "7 % (0 - 2)": -1}
    assert {expr: value(default_engine, st, expr) for expr in quotients} == quotients
