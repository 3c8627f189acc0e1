"""Every citation is precise: each paragraph it names belongs to the section it names it under."""

from __future__ import annotations

import pytest
from baobei.docs.book import load_book
from baobei.language.load import load_ruleset
from baobei.language.paths import PROJECT_ROOT, default_rules_dir, default_scenarios_dir
from baobei.language.source import Citation
from baobei.scenarios.parser import parse_scenario_file, scenario_files
from baobei.scenarios.syntax import Reject


def misplaced(cite: Citation) -> list[str]:
    """Paragraphs of the citation that lie outside the section they are cited under."""
    book = load_book(PROJECT_ROOT / "docs" / "src")
    out = []
    parts = cite.parts or ((cite.section, cite.paras),)
    for section, paras in parts:
        for para in paras:
            home = book.section_of_para(para)
            if home is None or home.ident != section:
                out.append(f"{para} is in § {home.ident if home else '?'}, not § {section}")
    return out


def rule_citations() -> list[tuple[str, Citation]]:
    rules = load_ruleset(default_rules_dir())
    out = [(f"{kind} {name}", cite) for kind, name, cite, _ in rules.cited_rules()]
    out += [(f"assumption {a.ident}", a.cite) for a in rules.assumptions.values()]
    out += [(f"{m.name} guard {i}", r.cite) for m in rules.moves.values() for i, r in enumerate(m.requires, 1)]
    return out


def scenario_citations() -> list[tuple[str, Citation]]:
    out = []
    for path in scenario_files([default_scenarios_dir()]):
        scenario = parse_scenario_file(path)
        out += [(f"{path.name} cites", c) for c in scenario.cites]
        out += [(f"{path.name}:{st.pos.line} reject", st.cite) for st in scenario.steps if isinstance(st, Reject)]
    return out


@pytest.mark.parametrize("source", ["rules", "scenarios"])
def test_every_paragraph_is_cited_under_its_own_section(source: str) -> None:
    cites = rule_citations() if source == "rules" else scenario_citations()
    assert cites
    wrong = [f"  {label}: {problem}" for label, cite in cites for problem in misplaced(cite)]
    assert not wrong, f"{len(wrong)} imprecise citations in {source}:\n" + "\n".join(wrong)


def test_a_misplaced_paragraph_is_found() -> None:
    assert misplaced(Citation("2.2", ("P19",))) == ["P19 is in § 2.1, not § 2.2"]
    assert misplaced(Citation.of([("2.1", ("P19",)), ("2.2", ("P24",))])) == []


def test_multi_section_citations_print_each_section() -> None:
    cite = Citation.of([("6.2", ("P125",)), ("6.8", ("P138",))])
    assert str(cite) == "§ 6.2 [P125]; § 6.8 [P138]"
    assert cite.section == "6.2" and cite.paras == ("P125", "P138")
    assert cite.sections == ("6.2", "6.8") and cite.paras_of("6.8") == ("P138",)


def test_rules_files_can_cite_several_sections() -> None:
    rules = load_ruleset(default_rules_dir())
    deck = rules.deck
    assert deck is not None and len(deck.cite.sections) > 1
