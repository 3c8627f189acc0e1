"""A counterexample in Apalache's Informal Trace Format (ITF, JSON), beside its scenario file.

The scenario is replayed by the engine with snapshots, and each state of the replay (the table, then the
state after every move) becomes one ITF state: every part of the engine's state, by name. ITF has no
"none": such a value is written `{"#unserializable": "none"}`; integers beyond JSON's exact range as
`{"#bigint": "..."}`. The moves are named in each state's `#meta`. Tools that read ITF (the Apalache and
Quint trace viewers, ITF readers in Rust and Python) can then show the counterexample.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..engine.engine import Engine
from ..scenarios.parser import parse_scenario_text
from ..scenarios.runner import run_scenario

ITF_DESCRIPTION = "https://apalache-mc.org/docs/adr/015adr-trace.html"
EXACT = 2**53 - 1  # JSON numbers are exact up to here
INTERNAL = ("rng",)  # the random generator's state: no part of the game a reader follows


def itf_value(value: Any) -> Any:
    if value is None:
        return {"#unserializable": "none"}
    if isinstance(value, bool | str):
        return value
    if isinstance(value, int):
        return value if -EXACT <= value <= EXACT else {"#bigint": str(value)}
    if isinstance(value, list | tuple):
        return [itf_value(v) for v in value]
    if isinstance(value, dict):
        return {str(k): itf_value(v) for k, v in value.items()}
    return {"#unserializable": str(value)}


def itf_trace(eng: Engine, scenario_text: str, source: str) -> dict[str, Any]:
    """The replay of a written counterexample as an ITF trace (the states up to the failing move)."""
    scenario = parse_scenario_text(scenario_text, source)
    result = run_scenario(scenario, eng, snapshots=True)
    entries = [e for e in result.trace if e.state is not None]
    states = []
    for index, entry in enumerate(entries):
        assert entry.state is not None
        data = {k: v for k, v in entry.state.to_json().items() if k not in INTERNAL}
        states.append({"#meta": {"index": index, "line": entry.pos.line, "step": entry.text},
                       **{k: itf_value(v) for k, v in data.items()}})
    names = sorted(k for k in states[0] if k != "#meta") if states else []
    failure = None if result.failure is None else f"{result.failure.pos}: {result.failure.message}"
    return {"#meta": {"format": "ITF", "format-description": ITF_DESCRIPTION, "source": source,
                      "description": scenario.title, "failure": failure},
            "vars": names, "states": states}


def itf_path(scenario_path: Path) -> Path:
    """Where the ITF trace of a scenario file goes: beside it, `NAME.itf.json`."""
    return scenario_path.with_name(f"{scenario_path.stem}.itf.json")
