"""Every rule has a scenario that would fail if the rule were removed.

Each mutant drops one `require` clause of a move or ability, or one top-level
statement of a move, ability, routine or hook body, from the default rules. The
mutated rules are rebuilt from the parsed syntax (no text editing) and every
project scenario that passes with the default rules is replayed against them: at
least one must fail. A mutant that no scenario notices is a rule without a
scenario, and is reported by name.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest
from baobei.engine.engine import Engine
from baobei.language import syntax as s
from baobei.language.errors import BaoError
from baobei.language.load import build_ruleset
from baobei.language.parser import parse_rules_dir
from baobei.language.paths import default_rules_dir, default_scenarios_dir
from baobei.scenarios import syntax as sc
from baobei.scenarios.parser import parse_scenario_file, scenario_files
from baobei.scenarios.runner import run_scenario

RULES_DIR = default_rules_dir()
FILES = parse_rules_dir(RULES_DIR)


@dataclasses.dataclass(frozen=True)
class Mutant:
    ident: str  # stable and readable: "move.pluck.require3", "routine.give.stmt1"
    where: str  # file:line of the removed clause or statement, and its source text
    file_index: int
    decl_index: int
    replacement: s.Decl


def source_line(pos: s.Pos) -> str:
    lines = Path(pos.file).read_text(encoding="utf-8").splitlines()
    text = lines[pos.line - 1].strip() if 0 < pos.line <= len(lines) else ""
    return f"{Path(pos.file).name}:{pos.line}: {text}"


def _kind(decl: s.MoveDecl | s.RoutineDecl) -> str:
    if isinstance(decl, s.MoveDecl):
        return "ability" if decl.is_ability else "move"
    return "hook" if decl.is_hook else "routine"


def _mutants_of(fi: int, di: int, decl: s.Decl) -> Iterator[Mutant]:
    if not isinstance(decl, (s.MoveDecl, s.RoutineDecl)):
        return
    name = f"{_kind(decl)}.{decl.name}"
    if isinstance(decl, s.MoveDecl):
        for i, req in enumerate(decl.requires):
            rest = decl.requires[:i] + decl.requires[i + 1:]
            yield Mutant(f"{name}.require{i + 1}", source_line(req.pos), fi, di,
                         dataclasses.replace(decl, requires=rest))
    for i, stmt in enumerate(decl.body):
        rest_body = decl.body[:i] + decl.body[i + 1:]
        yield Mutant(f"{name}.stmt{i + 1}", source_line(stmt.pos), fi, di,
                     dataclasses.replace(decl, body=rest_body))


def all_mutants() -> list[Mutant]:
    return [m for fi, f in enumerate(FILES) for di, decl in enumerate(f.decls) for m in _mutants_of(fi, di, decl)]


MUTANTS = all_mutants()
BY_ID = {m.ident: m for m in MUTANTS}


def mutated_engine(m: Mutant) -> Engine:
    files = list(FILES)
    decls = list(files[m.file_index].decls)
    decls[m.decl_index] = m.replacement
    files[m.file_index] = dataclasses.replace(files[m.file_index], decls=tuple(decls))
    return Engine(build_ruleset(files, f"{RULES_DIR} without {m.ident}"))


@cache
def baseline() -> tuple[sc.Scenario, ...]:
    """The project's scenarios that pass with the default rules, parsed once.

    A scenario that is malformed or fails already fails as its own pytest item; it
    cannot tell a mutant from the original, so it takes no part here.
    """
    eng = Engine(build_ruleset(FILES, str(RULES_DIR)))
    out = []
    for path in scenario_files([default_scenarios_dir()]):
        try:
            scenario = parse_scenario_file(path)
            if run_scenario(scenario, eng).passed:
                out.append(scenario)
        except BaoError:
            continue
    return tuple(out)


def killed_by(scenario: sc.Scenario, eng: Engine) -> str | None:
    """How the scenario notices the mutant, or None when it still passes."""
    try:
        result = run_scenario(scenario, eng)
    except BaoError as err:
        return f"{scenario.path}: {type(err).__name__}: {err}"
    if result.failure is not None:
        return f"{result.failure.pos}: {result.failure.message}"
    return None


@cache
def outcome(ident: str) -> tuple[str, str]:
    """('killed', how) | ('survived', '') | ('invalid', why): the last when the compiler refuses the mutant."""
    m = BY_ID[ident]
    try:
        eng = mutated_engine(m)
    except BaoError as err:
        return ("invalid", str(err).splitlines()[0])
    order = trial_order()
    for i, scenario in enumerate(order):
        how = killed_by(scenario, eng)
        if how is not None:
            order.insert(0, order.pop(i))  # move to front: mutants of one rule fall to the same scenarios
            return ("killed", how)
    return ("survived", "")


@cache
def trial_order() -> list[sc.Scenario]:
    """The baseline in the order mutants try it: the last scenario that killed one comes first (a third of
    the time the scenarios in file order take; a survivor still tries every one)."""
    return list(baseline())


def test_there_are_mutants_of_every_kind() -> None:
    kinds = {m.ident.split(".")[0] for m in MUTANTS}
    assert kinds == {"move", "ability", "routine", "hook"}
    assert any(".require" in m.ident for m in MUTANTS)
    assert len(MUTANTS) == len(BY_ID), "mutant names must be unique"


def test_the_baseline_has_scenarios() -> None:
    assert baseline(), "no project scenario passes with the default rules"


def test_a_mutant_differs_from_the_rules() -> None:
    # Guards the machinery: the rebuilt engine really lacks the dropped guard.
    m = next(m for m in MUTANTS if ".require" in m.ident)
    original = FILES[m.file_index].decls[m.decl_index]
    assert isinstance(original, s.MoveDecl) and isinstance(m.replacement, s.MoveDecl)
    compiled = mutated_engine(m).rules.moves[original.name]
    assert compiled.requires == m.replacement.requires
    assert len(compiled.requires) == len(original.requires) - 1


@pytest.mark.parametrize("ident", [m.ident for m in MUTANTS])
def test_mutant_is_killed(ident: str) -> None:
    status, detail = outcome(ident)
    # A mutant the rules compiler refuses is caught before any scenario runs: also killed.
    assert status in ("killed", "invalid"), f"no scenario fails without {BY_ID[ident].where}"
    if status == "invalid":
        assert "unknown name" in detail, detail
