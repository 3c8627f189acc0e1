"""Scenarios cover the rules: every cited paragraph and every assumption has a scenario naming it."""

from __future__ import annotations

from collections import defaultdict
from functools import cache

from baobei.language.errors import BaoError
from baobei.language.load import load_ruleset
from baobei.language.paths import default_rules_dir, default_scenarios_dir
from baobei.language.ruleset import Ruleset
from baobei.language.source import Citation
from baobei.scenarios import syntax as sc
from baobei.scenarios.parser import parse_scenario_file, scenario_files


@cache
def rules() -> Ruleset:
    return load_ruleset(default_rules_dir())


@cache
def scenarios() -> tuple[sc.Scenario, ...]:
    """Every project scenario that parses (a malformed one fails as its own pytest item)."""
    out = []
    for path in scenario_files([default_scenarios_dir()]):
        try:
            out.append(parse_scenario_file(path))
        except BaoError:
            continue
    return tuple(out)


def cited_by_scenarios() -> tuple[set[str], set[str]]:
    """(paragraphs, sections) that some scenario's `cites` line names."""
    paras: set[str] = set()
    sections: set[str] = set()
    for scenario in scenarios():
        for cite in scenario.cites:
            sections.add(cite.section)
            paras.update(cite.paras)
    return paras, sections


def test_there_are_scenarios_and_citations() -> None:
    assert scenarios()
    assert rules().cited_rules() and rules().assumptions


def uncovered(citing: list[tuple[str, Citation]]) -> str:
    """The paragraphs (or paragraph-less sections) of these citations that no scenario cites, as a report."""
    covered_paras, covered_sections = cited_by_scenarios()
    gaps: dict[str, list[str]] = defaultdict(list)
    for label, cite in citing:
        # A citation without paragraphs is covered by a scenario citing its section.
        if not cite.paras and cite.section not in covered_sections:
            gaps[f"§ {cite.section}"].append(label)
        for para in cite.paras:
            if para not in covered_paras:
                gaps[para].append(f"{label} ({cite})")
    return "\n".join(f"  {para}: cited by {', '.join(users)}" for para, users in sorted(gaps.items(), key=_order))


def test_every_cited_paragraph_has_a_scenario() -> None:
    report = uncovered([(f"{kind} {name}", cite) for kind, name, cite, _ in rules().cited_rules()])
    assert not report, f"paragraphs cited in rules/ but by no scenario:\n{report}"


def test_every_guard_citation_has_a_scenario() -> None:
    guards = [(f"{m.name} guard {i}", req.cite) for m in rules().moves.values()
              for i, req in enumerate(m.requires, 1)]
    assert guards
    report = uncovered(guards)
    assert not report, f"paragraphs cited by guards in rules/ but by no scenario:\n{report}"


def test_every_assumption_is_pinned_by_a_scenario() -> None:
    """Every decision and every assumption of the rules has a scenario that names it: none is exempt."""
    pinned = {ident for scenario in scenarios() for ident in scenario.assumes}
    missing = [a for ident, a in rules().assumptions.items() if ident not in pinned]
    report = "\n".join(f"  {a.ident} {a.title!r} ({a.cite})" for a in missing)
    assert not missing, f"{len(missing)} assumptions in no scenario's `assumes` line:\n{report}"


def test_scenarios_assume_only_declared_assumptions() -> None:
    declared = set(rules().assumptions)
    unknown = sorted({f"{s.path}: {ident}" for s in scenarios() for ident in s.assumes if ident not in declared})
    assert not unknown, "scenarios name assumptions the rules do not declare:\n" + "\n".join(unknown)


def _order(item: tuple[str, list[str]]) -> tuple[int, str]:
    key = item[0]
    return (int(key[1:]), key) if key[1:].isdigit() else (10_000, key)
