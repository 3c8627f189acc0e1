"""The properties a record of induction never tried, tried by `verify --carry` with the claims it proved.

`verify --certify` runs Houdini over every claim of the rules and takes hours per player count; a property
added to the rules later is not in its record, and was only bounded until the next certification. The carry
builds every query the record rests on anyway (seal.py), so it tries such a property there: a state claim
joins the record's claims (assumed before every move, proved after the deal and after every move), a
transition invariant joins the goals of every move. That is induction over the record's set P with the new
claims N added: when the deal implies P and N and every move from a state satisfying P and N keeps them
both, P and N hold in every reachable state. A new claim a query does not prove is dropped, with the move
that Z3 found breaking it (or gave up on); when that claim was a state claim, the others assumed it, so
every move is asked again without it. The old claims are never dropped here: they were proved with fewer
hypotheses than these queries have.

A property that reads the cards is recorded as left out, as certification records it (induction runs over
free cards).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from ..language.ruleset import Ruleset
from . import terms as T
from .induction import classify
from .seal import INVARIANT, MOVE, Built, SideIndex, _digests, constants_in


@dataclass
class Untried:
    """A count's properties the record never tried: those induction tries now, those it leaves out (why)."""

    labels: list[str] = field(default_factory=list)
    left_out: dict[str, str] = field(default_factory=dict)

    def any(self) -> bool:
        return bool(self.labels or self.left_out)


def untried(rules: Ruleset, players: int, entry: dict[str, Any]) -> Untried:
    """The rules' invariants about reachable states or moves that the count's entry neither proved nor
    dropped (a lemma is always tried by certification, a claim about every state is proved without
    induction)."""
    tried = {*entry["inductive"], *entry["dropped"]}
    labels = {INVARIANT + decl.ident for decl in rules.invariants.values()
              if (decl.reachable or decl.two_state) and not decl.lemma and INVARIANT + decl.ident not in tried}
    if not labels:
        return Untried()
    claims, transitions, left_out = classify(rules, players, labels)
    return Untried(sorted(INVARIANT + decl.ident for decl in [*claims, *transitions]
                          if INVARIANT + decl.ident in labels), left_out)


def trying(entry: dict[str, Any], labels: list[str]) -> dict[str, Any]:
    """The entry with these labels among its proved claims, to build the queries that try them."""
    out = copy.deepcopy(entry)
    out["inductive"] = sorted({*entry["inductive"], *labels})
    return out


def state_claims(built: Built) -> set[str]:
    return set(built.before)


def without(built: Built, names: set[str]) -> list[str]:
    """Leave these claims out of every query of `built` and digest the queries again. The parts to ask again:
    every move's when a state claim left (the others assumed it before the move), none when only goals left
    (every other goal of a query was proved under the same hypotheses)."""
    assumed = bool(names & state_claims(built))
    for name in names:
        built.before.pop(name, None)
        built.deal.pop(name, None)
        for move in built.moves:
            move.claims.pop(name, None)
            move.transitions.pop(name, None)
    rel = built.rel
    assert rel is not None
    state = set().union(*(constants_in(T._REF, term) for term in rel.pre.t.values()))
    built.parts = _digests(built, SideIndex(rel.side, state))
    return [MOVE + move.step.cm.name for move in built.moves] if assumed else []

