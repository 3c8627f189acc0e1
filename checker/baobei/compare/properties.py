"""Properties that change: every invariant and progress property judged by the engine's search under both
versions of the rules, from the same seeded deals, at the same budget.

A property that holds in the states one version reaches and fails in those of the other is listed with
the counterexample of the side where it breaks, written as a scenario (`explore --emit-scenario` writes
the same). A property only one version declares is listed as added or removed, with its verdict there;
one declared by both in other words is listed when its verdict changed, and noted when only its
definition did. Z3 is left out: its proofs take minutes, the search seconds (`baobei verify` on each
version answers for every state).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..language.ruleset import Ruleset
from ..play.explore import Report, explore, failure_scenario, property_labels
from .changes import shape

HOLDS, VIOLATED, ABSENT = "holds", "violated", "absent"


@dataclass(frozen=True)
class Budget:
    """How far the search goes on each side."""

    players: int
    depth: int
    deals: int
    seed: int
    max_states: int


@dataclass(frozen=True)
class Verdict:
    status: str  # holds | violated | absent (the version does not declare it)
    depth: int = -1  # where it failed, or how deep it was judged completely
    message: str = ""
    scenario: str = ""  # the counterexample as a scenario (violated only)
    cite: str = ""


@dataclass(frozen=True)
class PropertyChange:
    label: str  # "invariant NAME" or "progress NAME"
    change: str  # verdict | added | removed | definition (the words changed, not the verdict)
    old: Verdict
    new: Verdict

    @property
    def breaks_in(self) -> str:
        """Which side's counterexample shows the change: old, new or none."""
        if self.new.status == VIOLATED and self.old.status != VIOLATED:
            return "new"
        if self.old.status == VIOLATED and self.new.status != VIOLATED:
            return "old"
        return ""


@dataclass
class PropertyReport:
    budget: Budget
    old_states: int = 0
    new_states: int = 0
    old_depth: int = 0  # the depth each side judged completely
    new_depth: int = 0
    changes: list[PropertyChange] = field(default_factory=list)


def compare_properties(old: Ruleset, new: Ruleset, budget: Budget) -> PropertyReport:
    a, b = search(old, budget), search(new, budget)
    report = PropertyReport(budget, a.states, b.states, a.complete, b.complete)
    labels = list(dict.fromkeys([*a.labels, *b.labels]))
    for label in labels:
        change = _change(label, old, new, a, b)
        if change is not None:
            report.changes.append(change)
    return report


def search(rules: Ruleset, budget: Budget) -> Report:
    return explore(rules, budget.players, budget.depth, budget.deals, budget.seed, False, budget.max_states)


def verdict(label: str, report: Report) -> Verdict:
    if label not in report.labels:
        return Verdict(ABSENT)
    failure = report.failures.get(label)
    if failure is None:
        return Verdict(HOLDS, report.complete)
    written = failure_scenario(failure, report.deck) if failure.table else ""
    return Verdict(VIOLATED, failure.depth, failure.message, written, failure.cite)


def _change(label: str, old: Ruleset, new: Ruleset, a: Report, b: Report) -> PropertyChange | None:
    va, vb = verdict(label, a), verdict(label, b)
    if va.status == ABSENT:
        return PropertyChange(label, "added", va, vb)
    if vb.status == ABSENT:
        return PropertyChange(label, "removed", va, vb)
    if va.status != vb.status:
        return PropertyChange(label, "verdict", va, vb)
    if shape(_declaration(old, label)) != shape(_declaration(new, label)):
        return PropertyChange(label, "definition", va, vb)
    return None


def _declaration(rules: Ruleset, label: str) -> object:
    kind, _, name = label.partition(" ")
    return rules.invariants.get(name) if kind == "invariant" else rules.progress.get(name)


__all__ = ["Budget", "PropertyChange", "PropertyReport", "compare_properties", "property_labels"]
