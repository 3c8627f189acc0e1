"""Carrying induction's record over an edit of the code that leaves every question to Z3 as it was.

The record's key (certificate.py) changes with any byte of the code induction runs: a renamed variable in
the engine makes the record stale, and certifying again takes hours per player count. What induction proved
does not depend on the code, though, but on the terms it built: the relation (the deal, every move from any
state, its side constraints) and the claims stated over it. Equal terms are one question to Z3, so one answer.

So each count's record carries a seal: the digest of every term induction builds for it (`questions`), of
the rules and grammar, and of the code that turns those terms into questions and answers (`ASKERS`:
Houdini's loop, how a check's answer is read, and this module). `verify --carry` builds the terms again with
the current code and compares: when, for every count the record holds, the rules, the askers and the terms
are the same, the record is carried to the current key (and says from which); otherwise it stays stale and
the run names what differs. A term's digest is exact: SHA-256 over its whole structure (every operator,
sort, constant name and numeral, bound variables by index), shared subterms digested once.

Facts about every state (`every_state_facts`) are proved again by the current code, not carried: the set
induction assumes must come out the same. A dropped claim's reason (its counterexample's move, as the
engine names it) is carried as it was written.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import z3  # type: ignore[import-untyped]
from z3 import z3core

from ..language.errors import BaoError
from ..language.ruleset import Ruleset
from ..language.syntax import InvariantDecl
from ..language.words import plural
from ..play.explore import NAMES  # the names verify gives induction
from . import certificate
from . import terms as T
from .certificate import (
    SEAL,
    add_seals,
    carry_to,
    certificate_path,
    counts_text,
    key,
    recorded,
    rules_digest,
)
from .induction import (
    ACTOR,
    BY_ABILITY,
    OWN_CLAIMS,
    Relation,
    TwoStates,
    _claims,
    _unless_failed,
    claim,
    classify,
    every_state_facts,
)
from .translate import BoolV, PlayerV, Translator

# The code that makes questions of the terms and reads Z3's answers: compared as source, byte for byte.
ASKERS = ("proofs/induction.py", "proofs/terms.py", "proofs/carry.py")
INVARIANT = "invariant "


class TermDigest:
    """SHA-256 over a sequence of labelled parts: texts and Z3 terms, each term by its whole DAG."""

    def __init__(self) -> None:
        self.out = hashlib.sha256()
        self.memo: dict[int, bytes] = {}  # AST id -> its digest
        # Every term digested, kept alive: Z3 gives a freed term's id to the next new one, and the memo would
        # answer that one with the old term's digest.
        self.alive: list[Any] = []
        self.ref = T._REF

    def text(self, label: str, value: object) -> None:
        self.out.update(b"\0" + label.encode() + b"\0" + repr(value).encode())

    def terms(self, label: str, terms: Iterable[Any]) -> None:
        listed = list(terms)
        self.text(label, len(listed))
        self.alive += listed
        for term in listed:
            self.out.update(self.node(term.as_ast()))

    def named(self, label: str, terms: dict[str, Any]) -> None:
        self.text(label, list(terms))
        self.terms(label, terms.values())

    def hexdigest(self) -> str:
        return self.out.hexdigest()

    def node(self, root: Any) -> bytes:
        """The digest of one term, its subterms first (iteratively: a term may be thousands deep)."""
        todo: list[tuple[Any, bool]] = [(root, False)]
        while todo:
            ast, ready = todo.pop()
            ident = z3core.Z3_get_ast_id(self.ref, ast)
            if ident in self.memo:
                continue
            children = self.children(ast)
            if ready or not children:
                self.memo[ident] = self.describe(ast, children)
                continue
            todo.append((ast, True))
            todo += [(child, False) for child in children
                     if z3core.Z3_get_ast_id(self.ref, child) not in self.memo]
        return self.memo[z3core.Z3_get_ast_id(self.ref, root)]

    def children(self, ast: Any) -> list[Any]:
        kind = z3core.Z3_get_ast_kind(self.ref, ast)
        if kind == z3.Z3_APP_AST:
            return [z3core.Z3_get_app_arg(self.ref, ast, i) for i in range(z3core.Z3_get_app_num_args(self.ref, ast))]
        if kind == z3.Z3_QUANTIFIER_AST:
            return [z3core.Z3_get_quantifier_body(self.ref, ast)]
        return []

    def describe(self, ast: Any, children: list[Any]) -> bytes:
        kind = z3core.Z3_get_ast_kind(self.ref, ast)
        sort = z3core.Z3_sort_to_string(self.ref, z3core.Z3_get_sort(self.ref, ast)) \
            if kind in (z3.Z3_APP_AST, z3.Z3_NUMERAL_AST, z3.Z3_VAR_AST) else ""
        if kind == z3.Z3_APP_AST and children:
            decl = z3core.Z3_get_app_decl(self.ref, ast)
            head = f"app {z3core.Z3_get_decl_kind(self.ref, decl)} {z3core.Z3_func_decl_to_string(self.ref, decl)}"
        elif kind == z3.Z3_QUANTIFIER_AST:
            bound = z3core.Z3_get_quantifier_num_bound(self.ref, ast)
            sorts = [z3core.Z3_sort_to_string(self.ref, z3core.Z3_get_quantifier_bound_sort(self.ref, ast, i))
                     for i in range(bound)]
            head = (f"quantifier {z3core.Z3_is_quantifier_forall(self.ref, ast)} {z3core.Z3_is_lambda(self.ref, ast)}"
                    f" {sorts} {z3core.Z3_get_quantifier_num_patterns(self.ref, ast)}")
        else:  # a constant, a numeral, a bound variable: its text is the whole of it
            head = f"leaf {kind} {z3core.Z3_ast_to_string(self.ref, ast)}"
        out = hashlib.sha256(f"{head} : {sort}".encode())
        for child in children:
            out.update(self.memo[z3core.Z3_get_ast_id(self.ref, child)])
        return out.digest()


def tried_labels(labels: Iterable[str]) -> set[str]:
    """The invariants induction was asked about, of the labels a count's record lists (proved and dropped)."""
    return {label for label in labels if label.startswith(INVARIANT)}


def questions(rules: Ruleset, players: int, names: list[str], labels: set[str],
              deadline: Callable[[], None] = lambda: None) -> str:
    """The digest of every term `induction.reachable` builds for these claims, built in the order `prove`
    builds them (a fresh constant's name counts the ones made before it): what it tries and the facts it
    assumes; the claims before a move; the deal and what it must keep; every move (when it is allowed and
    the state after it), with the side constraints; the facts before and after each move; the claims after
    each move, as Houdini's first round asks them; each transition invariant after each move."""
    digest = TermDigest()
    claims, transitions, left_out = classify(rules, players, labels)
    facts = every_state_facts(rules, players)
    digest.text("tried", ([d.ident for d in claims], [d.ident for d in transitions], sorted(left_out.items())))
    digest.text("facts", [d.ident for d in facts])
    rel = Relation(rules, players, names)
    alive: dict[str, Any] = {name: None for name in OWN_CLAIMS}
    alive.update({decl.ident: decl for decl in claims})
    digest.named("before a move", _claims(rules, rel.pre, alive))
    init = rel.initial()
    digest.named("after the deal", {name: _unless_failed(name, init, goal)
                                    for name, goal in _claims(rules, init, alive).items()})
    digest.text("side constraints of the deal", len(rel.side))
    steps = rel.build(deadline)
    digest.terms("side constraints", rel.side)
    digest.terms("no rule failed before", [rel.pre[("err",)]])
    for step in steps:
        digest.text("move", step.cm.name)
        digest.terms("allowed", [step.player, step.allowed])
    digest.terms("facts before a move", [claim(Translator(rules, rel.pre), d) for d in facts])
    for step in steps:
        digest.terms("facts after", [claim(Translator(rules, step.post), d) for d in facts])
    for step in steps:
        deadline()
        digest.named("claims after", {name: _unless_failed(name, step.post, g)
                                      for name, g in _claims(rules, step.post, alive).items()})
    for decl in transitions:
        digest.terms("transition " + decl.ident, [_transition_goal(rules, rel, step, decl) for step in steps])
    return digest.hexdigest()


def _transition_goal(rules: Ruleset, rel: Relation, step: Any, decl: InvariantDecl) -> Any:
    names = {ACTOR: PlayerV(step.player), BY_ABILITY: BoolV(T.boolean(step.cm.decl.is_ability))}
    return _unless_failed(decl.ident, step.post, claim(TwoStates(rules, step.post, rel.pre), decl, names))


def askers_digest() -> str:
    digest = hashlib.sha256()
    for name in ASKERS:
        digest.update(b"\0" + name.encode() + b"\0" + (certificate.PACKAGE / name).read_bytes())
    return digest.hexdigest()


@dataclass(frozen=True)
class Now:
    """What the seals compare, taken when a run begins: an edit during the run must not pass for what was
    compared (as `verify --certify` takes the key)."""

    key: str
    rules: str
    askers: str

    @staticmethod
    def of(rules_dir: Path) -> Now:
        return Now(key(rules_dir), rules_digest(rules_dir), askers_digest())

    def sealed(self, entry: dict[str, Any]) -> bool:
        """Whether a count's entry has a seal this code can compare (made with these askers, for these rules)."""
        seal = entry.get(SEAL)
        return seal is not None and seal["rules"] == self.rules and seal["askers"] == self.askers

    def seal(self, rules: Ruleset, players: int, labels: Iterable[str]) -> dict[str, str]:
        """A count's seal: the digests of the rules, of the askers and of every term induction builds."""
        return {"rules": self.rules, "askers": self.askers,
                "questions": questions(rules, players, list(NAMES[:players]), tried_labels(labels))}


def carry_record(rules: Ruleset, rules_dir: Path, selected: list[int] | None, tell: Callable[[str], None]) -> bool:
    """`verify --carry`: seal a current record's counts (those in `selected`, every one when None) that have
    no seal yet (or one made by other askers), or carry a stale one to the current key when every count's
    seal is what the current code builds. True when the record is current at the end."""
    now = Now.of(rules_dir)
    found = recorded(rules_dir)
    if found is None:
        raise BaoError(f"no record {certificate_path(rules_dir)} this code can read: `baobei verify --certify` "
                       "makes one")
    old, entries, _ = found
    if old == now.key:
        todo = [n for n in sorted(entries) if not now.sealed(entries[n]) and (selected is None or n in selected)]
        for n in todo:
            tell(f"  ... sealing {n} players: building every term induction asked Z3")
            add_seals(rules_dir, {n: now.seal(rules, n, _labels(entries[n]))}, now.key)
        sealed = sum(now.sealed(entry) for entry in entries.values()) + len(todo)
        tell(f"carry     the record is current; sealed {plural(len(todo), 'player count')} now, "
             f"{sealed} of {len(entries)} sealed")
        return True
    why = _why_not(rules, entries, now, tell)
    if why:
        tell(f"carry     not carried: {why}; `baobei verify --certify` makes the record again")
        return False
    carry_to(rules_dir, old, now.key)
    tell(f"carry     carried the record for {counts_text(sorted(entries))} to the current code: every term "
         "induction builds is the one it proved its claims with")
    return True


def _labels(entry: dict[str, Any]) -> list[str]:
    return [*entry["inductive"], *entry["dropped"]]


def _why_not(rules: Ruleset, entries: dict[int, dict[str, Any]], now: Now, tell: Callable[[str], None]) -> str:
    """Why a stale record cannot be carried ("" when it can), the cheap comparisons first."""
    unsealed = [n for n, entry in sorted(entries.items()) if SEAL not in entry]
    if unsealed:
        return f"no seal for {counts_text(unsealed)} (made before the code changed, by `verify --carry`)"
    if any(entry[SEAL]["rules"] != now.rules for entry in entries.values()):
        return "the rules or the grammar changed"
    if any(entry[SEAL]["askers"] != now.askers for entry in entries.values()):
        return "the code that asks Z3 changed (" + ", ".join(ASKERS) + ")"
    for n, entry in sorted(entries.items()):
        tell(f"  ... comparing {n} players: building every term induction asks Z3")
        if now.seal(rules, n, _labels(entry))["questions"] != entry[SEAL]["questions"]:
            return f"with {n} players, induction would ask Z3 other questions"
    return ""
