"""What `baobei docs` publishes, indexed by rulebook section: rules, guards, decisions, scenarios, invariants.

A declaration, guard, scenario or invariant counts for every section its citation touches: the
section it names and the sections that hold the paragraphs it lists (a rule that cites one
section with a paragraph standing in the next also encodes that next section).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from ..language import syntax as s
from ..language.ruleset import Ruleset
from ..scenarios import syntax as sc
from ..scenarios.runner import ScenarioResult
from .book import Book, Section


@dataclass(frozen=True)
class RuleRef:
    """A declaration that cites the rulebook (move, ability, routine, hook, table, define, deck ...)."""

    kind: str
    name: str
    cite: s.Citation
    pos: s.Pos


@dataclass(frozen=True)
class GuardRef:
    """A `require` of a move: the rule it cites and the reason a rejected move names."""

    move: str
    reason: str
    cite: s.Citation
    pos: s.Pos


@dataclass(frozen=True)
class ScenarioDoc:
    """A passing scenario, its path relative to the project root (posix) and its replay."""

    path: Path
    rel: str
    scenario: sc.Scenario
    result: ScenarioResult

    @property
    def answered(self) -> bool:
        return bool(self.scenario.answers)

    @property
    def has_faq(self) -> bool:
        return bool(self.scenario.questions or self.scenario.answers)


@dataclass
class SectionEntry:
    section: Section
    rules: list[RuleRef] = field(default_factory=list)
    guards: list[GuardRef] = field(default_factory=list)
    decisions: list[s.AssumptionDecl] = field(default_factory=list)
    scenarios: list[ScenarioDoc] = field(default_factory=list)
    invariants: list[RuleRef] = field(default_factory=list)

    @property
    def encoded(self) -> bool:
        return bool(self.rules or self.guards)

    def gaps(self) -> list[str]:
        if self.section.summary:
            return []
        if not self.encoded:
            return ["not encoded"]
        out = []
        if not self.scenarios:
            out.append("no scenario")
        if not self.invariants:
            out.append("no invariant")
        return out


@dataclass(frozen=True)
class Stray:
    """A citation of a section the rulebook outline does not know (a typo or an outdated id)."""

    who: str
    cite: s.Citation


@dataclass
class Index:
    book: Book
    rules: Ruleset
    scenarios: list[ScenarioDoc]
    sections: dict[str, SectionEntry]
    strays: list[Stray]

    def encoded(self, ident: str) -> bool:
        entry = self.sections.get(ident)
        return entry is not None and entry.encoded


def natural_key(text: str) -> tuple[tuple[int, str], ...]:
    """Sort key that puts D2 before D10."""
    return tuple((int(part), "") if part.isdigit() else (-1, part) for part in re.findall(r"\d+|\D+", text))


# The kinds of declaration that state a property of the rules rather than a rule: listed as invariants.
PROPERTY_KINDS = ("invariant", "progress")


def rule_refs(rules: Ruleset) -> tuple[list[RuleRef], list[RuleRef]]:
    """(declarations, properties: invariants and progress) that cite the rulebook, in declaration order;
    a transition invariant (judged for every move) is named as such."""
    # The model keeps no position for the player count; its declaration in the files has one.
    players = next((d.pos for f in rules.files for d in f.decls if isinstance(d, s.PlayersDecl)), s.NOWHERE)
    refs = [RuleRef(_kind(rules, kind, name), name, cite, players if kind == "players" and pos == s.NOWHERE else pos)
            for kind, name, cite, pos in rules.cited_rules() if cite.section]
    properties = [r for r in refs if r.kind.split()[-1] in PROPERTY_KINDS]
    return [r for r in refs if r not in properties], properties


def _kind(rules: Ruleset, kind: str, name: str) -> str:
    inv = rules.invariants.get(name) if kind == "invariant" else None
    return "transition invariant" if inv is not None and inv.two_state else kind


def guard_refs(rules: Ruleset) -> list[GuardRef]:
    return [GuardRef(m.name, req.reason, req.cite, req.pos)
            for m in rules.moves.values() for req in m.requires if req.cite.section]


def sorted_assumptions(rules: Ruleset) -> list[s.AssumptionDecl]:
    return [rules.assumptions[k] for k in sorted(rules.assumptions, key=natural_key)]


def build_index(book: Book, rules: Ruleset, scenarios: list[ScenarioDoc]) -> Index:
    entries = {sec.ident: SectionEntry(sec) for sec in book.sections}
    strays: list[Stray] = []

    def file_under(cite: s.Citation, who: str) -> list[SectionEntry]:
        if cite.section not in entries:
            strays.append(Stray(who, cite))
        return [entries[i] for i in sorted(book.touched(cite), key=book.order) if i in entries]

    declarations, invariants = rule_refs(rules)
    for ref in declarations:
        for e in file_under(ref.cite, f"{ref.kind} {ref.name}"):
            e.rules.append(ref)
    for guard in guard_refs(rules):
        for e in file_under(guard.cite, f"guard of {guard.move}"):
            e.guards.append(guard)
    for inv in invariants:
        for e in file_under(inv.cite, f"invariant {inv.name}"):
            e.invariants.append(inv)
    for decision in sorted_assumptions(rules):
        for e in file_under(decision.cite, f"assumption {decision.ident}"):
            e.decisions.append(decision)
    for doc in scenarios:
        for cite in doc.scenario.cites:
            for e in file_under(cite, f"scenario {doc.rel}"):
                if not e.scenarios or e.scenarios[-1] is not doc:  # one entry per scenario
                    e.scenarios.append(doc)
    return Index(book, rules, scenarios, entries, strays)
