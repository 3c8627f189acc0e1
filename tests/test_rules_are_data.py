"""Rules are data: the Python package names no species, no section and no paragraph of the rulebook."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from baobei.engine.engine import Engine
from baobei.engine.state import State
from baobei.language.builtins import STATE_NAMES
from baobei.language.paths import PROJECT_ROOT

# A citation's section as the rules language writes it (§ 3.3, § B, § K.2), and a paragraph id.
SECTION = re.compile(r"§\s*[0-9A-Z]+(\.[0-9]+)?")
PARAGRAPH = re.compile(r"\bP[0-9]+\b")


def python_sources() -> list[Path]:
    sources = sorted((PROJECT_ROOT / "checker").rglob("*.py"))
    assert sources, "no Python sources found under checker/"
    return sources


def offending_lines(pattern: re.Pattern[str]) -> list[str]:
    out = []
    for path in python_sources():
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if pattern.search(line):
                out.append(f"{path.relative_to(PROJECT_ROOT)}:{number}: {line.strip()}")
    return out


def test_the_scan_finds_the_package() -> None:
    assert any(p.name == "engine.py" for p in python_sources())


def test_the_patterns_recognise_what_they_look_for() -> None:
    assert SECTION.search("see § 6.10 for the order") and SECTION.search("§B")
    assert not SECTION.search('f"§ {section}"')  # printing a citation is not naming a section
    assert PARAGRAPH.search("[P3-P5]") and not PARAGRAPH.search(r"re.compile(r'P(\d+)')")


def test_no_species_or_family_name_in_python(default_engine: Engine) -> None:
    species = default_engine.rules.species
    names = set(species) | {sp.family for sp in species.values()}
    assert len(names) >= len(species) > 1
    pattern = re.compile(r"\b(" + "|".join(sorted(map(re.escape, names))) + r")\b")
    found = offending_lines(pattern)
    assert not found, "deck names in Python (rules are data):\n" + "\n".join(found)


@pytest.mark.parametrize("what", ["section", "paragraph"])
def test_no_rulebook_citation_in_python(what: str) -> None:
    found = offending_lines(SECTION if what == "section" else PARAGRAPH)
    assert not found, f"{what} ids in Python (rules are data):\n" + "\n".join(found)


# Names the engine itself calls the rules by: its contract with any rules directory.
CONTRACT = {"round_start", "draw_empty", "ability_start", "changed", "turn_start_phase", "draw_pile", "all_cards"}


# The engine's own vocabulary, which a rules name may happen to spell too (the phase "turn" and
# the turn counter `turn`; the move "draw" and the scenario's `draw:` pile).
ENGINE_WORDS = set(STATE_NAMES) | set(State.__slots__) | {"draw", "discard", "under"}


def rules_names(eng: Engine) -> set[str]:
    rules = eng.rules
    return (set(rules.moves) | set(rules.variables) | set(rules.routines) | set(rules.defines)
            | set(rules.tables) | set(eng.phases)) - CONTRACT - ENGINE_WORDS


def string_literals() -> list[tuple[str, int, str]]:
    out = []
    for path in python_sources():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                out.append((str(path.relative_to(PROJECT_ROOT)), node.lineno, node.value))
    return out


def test_no_move_phase_or_variable_of_the_rules_is_named_in_python(default_engine: Engine) -> None:
    names = rules_names(default_engine)
    assert {"pluck", "bao", "total", "turn_end", "end_round"} <= names  # the scan knows what to look for
    found = [f"{f}:{line}: {value!r}" for f, line, value in string_literals() if value in names]
    assert not found, "names of the rules in Python (a variant could not rename them):\n" + "\n".join(found)
