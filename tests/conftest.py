"""Shared fixtures: copies of the default rules edited as text (rules variants), the default engine."""

from __future__ import annotations

import functools
import gc
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from baobei.engine.engine import Engine
from baobei.engine.state import State
from baobei.language.load import load_ruleset
from baobei.language.paths import default_rules_dir
from baobei.scenarios.parser import parse_scenario_text
from baobei.scenarios.runner import ScenarioResult
from baobei.scenarios.setup import build_table
from baobei.scenarios.syntax import Table
from hypothesis import settings

pytest_plugins = ["pytester"]

# Hypothesis draws the same inputs on every run (same inputs, same outcome: a CI run cannot fail by chance).
# BAOBEI_HYPOTHESIS=random draws new ones, to look further; a failure found that way prints its input.
settings.register_profile("same", derandomize=True)
settings.register_profile("random", derandomize=False)
settings.load_profile(os.environ.get("BAOBEI_HYPOTHESIS", "same"))

# (file name in rules/, exact text to find, replacement)
Edit = tuple[str, str, str]
MakeVariant = Callable[..., Path]


def edit_file(path: Path, old: str, new: str) -> None:
    """Replace one exact occurrence; an edit that finds nothing would make a test pass for nothing."""
    text = path.read_text(encoding="utf-8")
    count = text.count(old)
    assert count == 1, f"{path.name}: expected exactly one {old!r}, found {count}"
    path.write_text(text.replace(old, new), encoding="utf-8")


def edit_all(directory: Path, old: str, new: str) -> None:
    """Replace every occurrence in every rules file; at least one must exist."""
    found = 0
    for path in sorted(directory.glob("*.bao")):
        text = path.read_text(encoding="utf-8")
        found += text.count(old)
        path.write_text(text.replace(old, new), encoding="utf-8")
    assert found, f"no {old!r} in any rules file"


def variant_engine(factory: pytest.TempPathFactory, *edits: Edit, extra: str = "") -> Engine:
    """An engine of an edited copy of the default rules, with `extra` as one more rules file (98_test_moves.bao)."""
    target: Path = factory.mktemp("rules") / "rules"
    shutil.copytree(default_rules_dir(), target)
    for file, old, new in edits:
        edit_file(target / file, old, new)
    if extra:
        (target / "98_test_moves.bao").write_text(extra, encoding="utf-8")
    return Engine(load_ruleset(target))


# alice called BAO and her shield is active in bob's last turn; bob will draw the Elster (the unit tests' table).
ELSTER_VS_SHIELD = """\
scenario "elster vs shield"
table
  players alice bob carol
  alice: Spatz, Meise, Star
  bob: Flamingo, Specht, Amsel
  carol: Rotkehlchen, Kranich, Amsel
  draw: Elster, Specht, Star
  discard: Amsel
  active bob
  set bao_caller = alice
  set shield = active
  set owed[bob] = true
  set owed[carol] = true
play
"""

# bob will draw the Schuhschnabel: its exchange waits, with `held_card` arguments.
EXCHANGE = """\
scenario "a Schuhschnabel exchange waits"
table
  players alice bob carol
  alice: Spatz, Kranich, Meise
  bob: Flamingo, Specht, Amsel
  carol: Star, Rotkehlchen, Kranich
  draw: Schuhschnabel, Amsel, Flamingo, Kranich, Star
  discard: Specht
  active bob
play
"""


# The test modules that take longest (`pytest --durations=0`), longest first. Under `--dist loadscope`
# (pyproject.toml) a module runs whole in one process, and modules are handed out in collection order:
# handed out longest first, the processes end about together, not one waiting on a late long module.
# Measured on 2026-12-07 (a whole run under load, per module): compare 635 s, explore 351 s, fuzz 253 s, docs
# 192 s, machine 153 s, verify 140 s, simulate 103 s, openspiel 93 s, relation 86 s, incremental 78 s.
LONGEST_FIRST = ("test_compare.py", "test_explore.py", "test_fuzz.py", "test_docs.py", "test_machine.py",
                 "test_verify.py", "test_simulate.py", "test_openspiel.py", "test_relation.py",
                 "test_incremental_invariants.py", "test_site.py", "test_desk_browser.py", "test_mutations.py",
                 "test_random_simulation.py")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # stable: the others keep their order


def pytest_collection_finish(session: pytest.Session) -> None:
    # The collected items and the imported modules live to the end of the run: frozen, the garbage collector
    # stops walking them; a larger first threshold collects the searches' short-lived states less often
    # (about 5 % less time for test_explore.py).
    gc.collect()
    gc.freeze()
    gc.set_threshold(50_000, 50, 100)


@functools.cache
def rules_without_record() -> Path:
    """A copy of the default rules without induction's record (rules/induction.json): what bounded model
    checking and the search say on their own, whatever the record proves (tests/test_certificate.py tests
    how a record is used)."""
    target = Path(tempfile.mkdtemp()) / "rules"
    shutil.copytree(default_rules_dir(), target)
    (target / "induction.json").unlink(missing_ok=True)
    return target


def variant_rules(target: Path, edits: tuple[Edit, ...]) -> Path:
    """A copy of the default rules at `target` with the edits made (tests/variants.py)."""
    shutil.copytree(default_rules_dir(), target)
    for file, old, new in edits:
        if file == "*":
            edit_all(target, old, new)
        else:
            edit_file(target / file, old, new)
    return target


@pytest.fixture
def make_variant(tmp_path: Path) -> MakeVariant:
    """make_variant(("07_scoring.bao", "old", "new"), ...) -> a fresh edited copy of rules/."""
    made = 0

    def make(*edits: Edit) -> Path:
        nonlocal made
        made += 1
        return variant_rules(tmp_path / f"rules_variant_{made}", edits)

    return make


@pytest.fixture(scope="session")
def default_engine() -> Engine:
    return Engine(load_ruleset(default_rules_dir()))


@pytest.fixture
def dealt(default_engine: Engine) -> State:
    """A match of three players just dealt (seed 5)."""
    st, _ = default_engine.new_match(["alice", "bob", "carol"], 5, log=False)
    return st


# Nobody has a face-down card: the pelican's peek has no target.
NO_CHOICE = """\
scenario "no choice"
table
  players alice bob
  alice: _, _
  bob: _
  draw: Weisspelikan, Star
  discard: Specht
  active alice
play
"""


# A small scenario that passes; tests derive failing and malformed ones from it.
DRAW_SCENARIO = """\
scenario "A draw"
cites § 2.2 [P24]

table
  players alice bob
  alice: Spatz, Amsel
  bob: Flamingo, Specht
  draw: Kranich, Star
  discard: Ara
  active alice

play
  alice draw
  expect alice holds Kranich
  alice discard
  expect discard top is Kranich
"""


def table_state(eng: Engine, text: str, name: str = "units.scenario") -> State:
    """The state a scenario text's `table` describes (the unit tests' fixed tables)."""
    scenario = parse_scenario_text(text, name)
    assert isinstance(scenario.setup, Table)
    return build_table(eng, scenario.setup)


def around(result: ScenarioResult, line: int) -> tuple[State, State, str]:
    """(the state before the move on this line of a replay with snapshots, the state after it, its text)."""
    before = result.trace[0].state
    for entry in result.trace[1:]:
        if entry.state is None:
            continue
        if entry.pos.line == line:
            assert before is not None
            return before, entry.state, entry.text
        before = entry.state
    raise AssertionError(f"no move on line {line}")
