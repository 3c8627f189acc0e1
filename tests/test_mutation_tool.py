"""tools/mutation.py measures how well the tests catch engine bugs (issue 11); these tests pin the two ways in which
a run once judged mutants against fewer tests than it said: the scenarios missing from step 1, and a time budget
that left them out."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("mutation_tool", ROOT / "tools" / "mutation.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def coverage(tool: ModuleType, durations: dict[str, float]) -> object:
    return tool.Coverage(durations, {})


def test_a_budget_runs_every_scenario_and_the_first_other_tests_within_it(tool: ModuleType) -> None:
    # Step 1 times a scenario with the rules compiled under coverage (seconds); the child replays it in
    # milliseconds: a budget counting those seconds would leave most scenarios out.
    durations = {"scenarios/a.scenario::a": 9.0, "tests/t.py::fast": 4.0, "scenarios/b.scenario::b": 9.0,
                 "tests/t.py::slow": 20.0, "tests/t.py::after": 1.0, "scenarios/c.scenario::c": 9.0}
    tests = list(durations)
    chosen = tool._within(tests, coverage(tool, durations), 10.0)
    # The first test past the budget ends the others (as before); no scenario is left out.
    assert chosen == ["scenarios/a.scenario::a", "tests/t.py::fast", "scenarios/b.scenario::b",
                      "scenarios/c.scenario::c"]
    assert tool._within(tests, coverage(tool, durations), None) == tests


def test_a_budget_smaller_than_any_test_still_runs_one(tool: ModuleType) -> None:
    durations = {"tests/t.py::slow": 50.0, "tests/t.py::other": 1.0}
    assert tool._within(list(durations), coverage(tool, durations), 10.0) == ["tests/t.py::slow"]


def test_step_one_records_the_coverage_of_a_scenario_item(tmp_path: Path) -> None:
    # A scenario item has no fixtures (no `fixturenames`): asking for them once stopped step 1 at the first
    # scenario, so that no mutant was ever run against a scenario.
    out = tmp_path / "shard.json"
    scenario = "scenarios/bao/bao_closes_window.scenario"
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "mutation.py"), "_collect", str(out), "0", "1",
                           "engine/state.py", scenario, "tests/test_table_view_units.py"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    shard = json.loads(out.read_text(encoding="utf-8"))
    assert shard["rc"] == 0
    item = f"{scenario}::bao_closes_window"
    assert item in shard["durations"] and shard["uses"][item] == []
    assert shard["lines"][item]["engine/state.py"]  # the lines the replay ran
    assert any(t.startswith("tests/test_table_view_units.py::") for t in shard["durations"])


def test_code_at_import_is_judged_by_every_test_and_code_in_a_function_by_the_tests_that_run_it(
        tool: ModuleType) -> None:
    # A dataclass made unfrozen at import is seen by a test that only assigns to an instance: that test runs
    # no line of the package, so selecting by the module's lines would miss it.
    lines = {"": {"language/builtins.py": {10, 98}}, "tests/a.py::runs_it": {"language/builtins.py": {150}},
             "tests/b.py::only_assigns": {}}  # coverage saw no line of the package run
    cov = tool.Coverage({"tests/a.py::runs_it": 1.0, "tests/b.py::only_assigns": 2.0}, lines)
    at_import = tool.Mutant("language/builtins.py", 0, "bool", 98, 98, False, "True", "False")
    in_function = tool.Mutant("language/builtins.py", 1, "int", 150, 150, True, "0", "1", (149, 151))
    assert cov.tests_for(at_import, "all") == ["tests/a.py::runs_it", "tests/b.py::only_assigns"]
    assert cov.tests_for(in_function, "all") == ["tests/a.py::runs_it"]


def test_the_score_without_equivalents_leaves_out_uncovered_ones_too(tool: ModuleType) -> None:
    # An equivalent mutant on a line no test runs (unreachable code) is as unkillable as a covered one.
    ms = [tool.Mutant("engine/x.py", i, "int", 10 + i, 10 + i, True, "0", "1") for i in range(4)]
    outcomes = {ms[0].ident: tool.Outcome("killed"), ms[1].ident: tool.Outcome("killed"),
                ms[2].ident: tool.Outcome("survived"), ms[3].ident: tool.Outcome("uncovered")}
    equivalent = frozenset(tool.survivor_key(m) for m in ms[2:])
    total = tool.score_lines(ms, outcomes, equivalent)[-1].split()
    assert total[0] == "total" and total[-5:] == ["50.0", "%", "2", "100.0", "%"]
