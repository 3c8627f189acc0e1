"""Citations checked against the rulebook's outline (docs/src/sections.toml).

Every citation (a section id, paragraph ids) in the rules and in the scenarios must name a section
of the rulebook, and each paragraph must lie in that section's range. `baobei
rules`, `check` and `docs` refuse a citation that does not, naming the file, line
and column of the declaration, step or line that carries it.
"""

from __future__ import annotations

import dataclasses
import functools
from pathlib import Path

from ..language.paths import outline_dir
from ..language.ruleset import Ruleset
from ..language.source import Citation, Pos
from ..scenarios import syntax as sc
from .book import Book, load_book, para_number

OUTLINE = outline_dir()


@functools.cache
def outline(src: Path = OUTLINE) -> Book:
    """The rulebook's outline, read once per process (check reads it for the rules and every scenario)."""
    return load_book(src)


def cited(node: object, pos: Pos) -> list[tuple[Pos, Citation]]:
    """Every citation inside a syntax node, with the position of the innermost node carrying one."""
    out: list[tuple[Pos, Citation]] = []
    _collect(node, pos, out)
    return out


# Values that hold no citation, skipped by their exact class: `check` walks every rules file and scenario,
# and most of a tree is names, numbers and positions.
_LEAVES = frozenset({str, int, float, bool, type(None), Pos})


_FIELDS: dict[type, tuple[str, ...]] = {}


def _field_names(cls: type) -> tuple[str, ...]:
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = tuple(f.name for f in dataclasses.fields(cls))
    return names


def _collect(node: object, pos: Pos, out: list[tuple[Pos, Citation]]) -> None:
    cls = node.__class__
    if cls in _LEAVES:
        return
    if isinstance(node, Citation):
        out.append((pos, node))
    elif dataclasses.is_dataclass(node) and not isinstance(node, type):
        here = getattr(node, "pos", pos)
        here = here if isinstance(here, Pos) else pos
        for name in _field_names(cls):
            _collect(getattr(node, name), here, out)
    elif isinstance(node, (tuple, list)):
        for item in node:
            _collect(item, pos, out)
    elif isinstance(node, dict):
        for item in node.values():
            _collect(item, pos, out)


def problems(book: Book, cite: Citation) -> list[str]:
    """What is wrong with a citation: an unknown section, a paragraph outside its section."""
    out: list[str] = []
    for section, paras in cite.parts or ((cite.section, cite.paras),):
        sec = book.section(section)
        if sec is None:
            out.append(f"§ {section} is no section of the rulebook")
            continue
        for para in paras:
            if not sec.first <= para_number(para) <= sec.last:
                out.append(f"[{para}] is not a paragraph of § {section} ({sec.para_range})")
    return out


def bad_in(book: Book, node: object, pos: Pos) -> list[str]:
    """Messages "file:line:col: ..." for every bad citation in a node."""
    seen: set[tuple[Pos, str]] = set()
    out: list[str] = []
    for where, cite in cited(node, pos):
        for problem in problems(book, cite):
            if (where, problem) not in seen:
                seen.add((where, problem))
                out.append(f"{where}: {problem}")
    return out


def bad_in_rules(book: Book, rules: Ruleset) -> list[str]:
    return [msg for f in rules.files for msg in bad_in(book, f.decls, Pos(f.path, 0, 0))]


def bad_in_scenario(book: Book, scenario: sc.Scenario) -> list[str]:
    """Bad citations, and none at all: a scenario answers a question of the rulebook, so it names the
    paragraphs it answers from."""
    if not any(c.paras for c in scenario.cites):  # a section cited alone names no paragraph
        return [f"{scenario.pos}: the scenario cites no paragraph of the rulebook; add a "
                "`cites` line under its title: a section and its paragraphs"]
    return bad_in(book, scenario, scenario.pos)
