"""The seal of induction's record: a digest per query to Z3 the record rests on.

Induction's result for a player count is a set P of claims, kept after every deal and by every move from
any state satisfying them, and the transition invariants proved, kept by every move from such a state. Each
of those stands on one query (`build` builds them with the current code, in the order `induction.prove`
builds its terms):

- the deal: the side constraints imply every claim of P after the deal;
- one query per move: the side constraints, the facts about every state before and after the move
  (every_state_facts), the move allowed, no rule failed before it and every claim of P before it imply
  every claim of P after it and every transition invariant proved.

(Houdini's two passes ask each move under fewer hypotheses than these: a query with more hypotheses is
unsatisfiable when one with fewer is.)

A query's digest (`QueryDigest`) is SHA-256 over its whole structure: every operator, sort and numeral,
bound variables by index. Constants are numbered in the order they are first met: a renaming that is one
to one keeps Z3's answer, and an edit that only makes one more fresh constant before a move would otherwise
rename every constant after it. Its side constraints are those linked to its terms by a constant the
relation made (a fresh value, a choice), and every one that reads the state alone (`SideIndex`). The
others constrain constants the query never mentions: the relation makes each of them to define such a
constant for any state (which the full run assumes too, as every query asserts every side constraint).

This module says what a seal means: `verify --carry` (carry.py) compares seals made by this module's code
only, byte for byte (carry.ASKERS). How Houdini found P, how a check's answer is read and how the carry
runs may change without making the seals incomparable: the queries themselves are compared.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import z3  # type: ignore[import-untyped]
from z3 import z3core

from ..language.errors import BaoError
from ..language.ruleset import Ruleset
from ..language.syntax import InvariantDecl
from . import terms as T
from .induction import (
    ACTOR,
    BY_ABILITY,
    OWN_CLAIMS,
    Relation,
    Step,
    TwoStates,
    _claims,
    _unless_failed,
    claim,
    classify,
    every_state_facts,
)
from .translate import BoolV, PlayerV, Translator, Z

INVARIANT = "invariant "
DEAL = "the deal"
MOVE = "move "




def _unchecked(wrapper: Callable[..., Any]) -> Callable[..., Any]:
    """The C function a z3core wrapper calls, without the error check the wrapper makes after it: the calls
    below read a term that exists and cannot fail, and a digest makes millions of them (the check doubled
    them). The wrapper itself where z3core is built otherwise."""
    defaults = wrapper.__defaults__ or ()
    return getattr(defaults[0], "f", wrapper) if defaults else wrapper


class _C:
    Z3_get_ast_id = staticmethod(_unchecked(z3core.Z3_get_ast_id))
    Z3_get_ast_kind = staticmethod(_unchecked(z3core.Z3_get_ast_kind))
    Z3_get_app_arg = staticmethod(_unchecked(z3core.Z3_get_app_arg))
    Z3_get_app_num_args = staticmethod(_unchecked(z3core.Z3_get_app_num_args))
    Z3_get_app_decl = staticmethod(_unchecked(z3core.Z3_get_app_decl))
    Z3_get_quantifier_body = staticmethod(_unchecked(z3core.Z3_get_quantifier_body))
    Z3_get_sort = staticmethod(_unchecked(z3core.Z3_get_sort))
    Z3_get_sort_id = staticmethod(_unchecked(z3core.Z3_get_sort_id))
    Z3_get_func_decl_id = staticmethod(_unchecked(z3core.Z3_get_func_decl_id))
    Z3_get_decl_kind = staticmethod(_unchecked(z3core.Z3_get_decl_kind))


class TermDigest:
    """SHA-256 over a sequence of labelled parts: texts and Z3 terms, each term by its whole DAG."""

    def __init__(self) -> None:
        self.out = hashlib.sha256()
        self.memo: dict[int, bytes] = {}  # AST id -> its digest
        # Every term digested, kept alive: Z3 gives a freed term's id to the next new one, and the memo would
        # answer that one with the old term's digest.
        self.alive: list[Any] = []
        self.ref = T._REF
        # The text of each operator and sort met (by Z3's id; kept alive by the terms above): a term has
        # few of them, printed once.
        self.heads: dict[int, str] = {}
        self.sorts: dict[int, str] = {}

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

    def known(self, ident: int) -> bytes | None:
        return self.memo.get(ident)

    def node(self, root: Any) -> bytes:
        """The digest of one term, its subterms first (iteratively: a term may be thousands deep). A node
        waits on the stack with its children's ids until they are digested."""
        ref, ast_id, known = self.ref, _C.Z3_get_ast_id, self.known
        todo: list[tuple[Any, list[Any] | None, list[int] | None]] = [(root, None, None)]
        while todo:
            ast, children, ids = todo.pop()
            ident = ast_id(ref, ast)
            if known(ident) is not None:
                continue
            if children is None:
                children = self.children(ast)
                ids = [ast_id(ref, child) for child in children]
                if children:
                    todo.append((ast, children, ids))
                    todo += [(child, None, None) for child, i in zip(children, ids, strict=True) if known(i) is None]
                    continue
            assert ids is not None
            self.memo[ident] = self.describe(ast, children, ids)
        found = known(ast_id(ref, root))
        assert found is not None
        return found

    def children(self, ast: Any) -> list[Any]:
        kind = _C.Z3_get_ast_kind(self.ref, ast)
        if kind == z3.Z3_APP_AST:
            arg = _C.Z3_get_app_arg
            return [arg(self.ref, ast, i) for i in range(_C.Z3_get_app_num_args(self.ref, ast))]
        if kind == z3.Z3_QUANTIFIER_AST:
            return [_C.Z3_get_quantifier_body(self.ref, ast)]
        return []

    def describe(self, ast: Any, children: list[Any], ids: list[int]) -> bytes:
        kind = _C.Z3_get_ast_kind(self.ref, ast)
        sort = self.sort(_C.Z3_get_sort(self.ref, ast)) if kind in (z3.Z3_APP_AST, z3.Z3_NUMERAL_AST, z3.Z3_VAR_AST) \
            else ""
        if kind == z3.Z3_APP_AST and children:
            head = self.head(_C.Z3_get_app_decl(self.ref, ast))
        elif kind == z3.Z3_QUANTIFIER_AST:
            bound = z3core.Z3_get_quantifier_num_bound(self.ref, ast)
            sorts = [z3core.Z3_sort_to_string(self.ref, z3core.Z3_get_quantifier_bound_sort(self.ref, ast, i))
                     for i in range(bound)]
            head = (f"quantifier {z3core.Z3_is_quantifier_forall(self.ref, ast)} {z3core.Z3_is_lambda(self.ref, ast)}"
                    f" {sorts} {z3core.Z3_get_quantifier_num_patterns(self.ref, ast)}")
        else:  # a constant, a numeral, a bound variable: its text is the whole of it
            head = self.leaf(ast, kind)
        out = hashlib.sha256(f"{head} : {sort}".encode())
        for ident in ids:
            child_digest = self.known(ident)
            assert child_digest is not None
            out.update(child_digest)
        return out.digest()

    def head(self, decl: Any) -> str:
        ident = _C.Z3_get_func_decl_id(self.ref, decl)
        found = self.heads.get(ident)
        if found is None:
            found = self.heads[ident] = (f"app {z3core.Z3_get_decl_kind(self.ref, decl)} "
                                         f"{z3core.Z3_func_decl_to_string(self.ref, decl)}")
        return found

    def sort(self, sort: Any) -> str:
        ident = _C.Z3_get_sort_id(self.ref, sort)
        found = self.sorts.get(ident)
        if found is None:
            found = self.sorts[ident] = z3core.Z3_sort_to_string(self.ref, sort)
        return found

    def leaf(self, ast: Any, kind: int) -> str:
        return f"leaf {kind} {z3core.Z3_ast_to_string(self.ref, ast)}"


def is_constant(ref: Any, ast: Any) -> bool:
    """An uninterpreted constant: a value the query leaves to Z3 (not a numeral, not true or false)."""
    if _C.Z3_get_ast_kind(ref, ast) != z3.Z3_APP_AST or _C.Z3_get_app_num_args(ref, ast):
        return False
    return bool(_C.Z3_get_decl_kind(ref, _C.Z3_get_app_decl(ref, ast)) == z3.Z3_OP_UNINTERPRETED)


class QueryDigest(TermDigest):
    """The digest of one query to Z3 up to the names of its constants: each is numbered in the order it is
    first met (a one-to-one renaming keeps every answer). `below`: the digest of the part that each query of
    a count begins with; its terms are digested once, and each query goes on from where it stopped."""

    def __init__(self, below: QueryDigest | None = None) -> None:
        super().__init__()
        self.shared: dict[int, bytes] = {}  # the digests `below` made (read only)
        self.number: dict[int, int] = {}  # constant's AST id -> its number in this query
        if below is not None:
            self.out = below.out.copy()
            self.shared = below.memo
            self.number = dict(below.number)
            self.alive = below.alive
            self.heads, self.sorts = below.heads, below.sorts

    def known(self, ident: int) -> bytes | None:
        found = self.memo.get(ident)
        return found if found is not None else self.shared.get(ident)

    def leaf(self, ast: Any, kind: int) -> str:
        if not is_constant(self.ref, ast):
            return super().leaf(ast, kind)
        ident = z3core.Z3_get_ast_id(self.ref, ast)
        return f"constant {self.number.setdefault(ident, len(self.number))}"


def constants_in(ref: Any, term: Any) -> set[int]:
    """The AST ids of the uninterpreted constants in a term."""
    found: set[int] = set()
    seen: set[int] = set()
    todo = [term.as_ast()]
    while todo:
        ast = todo.pop()
        ident = _C.Z3_get_ast_id(ref, ast)
        if ident in seen:
            continue
        seen.add(ident)
        if is_constant(ref, ast):
            found.add(ident)
            continue
        kind = _C.Z3_get_ast_kind(ref, ast)
        if kind == z3.Z3_APP_AST:
            todo += [_C.Z3_get_app_arg(ref, ast, i) for i in range(_C.Z3_get_app_num_args(ref, ast))]
        elif kind == z3.Z3_QUANTIFIER_AST:
            todo.append(_C.Z3_get_quantifier_body(ref, ast))
    return found


class SideIndex:
    """Which of the relation's side constraints a query needs: those linked to its terms through constants
    the relation made (`state`: the constants of the state before a move, which link nothing), and every one
    that reads no such constant (a bound on the state itself)."""

    def __init__(self, side: list[Z], state: set[int]) -> None:
        ref = T._REF
        self.side = list(side)
        self.reads: list[set[int]] = [constants_in(ref, term) - state for term in self.side]
        self.always = [i for i, read in enumerate(self.reads) if not read]
        self.by_constant: dict[int, list[int]] = {}
        for i, read in enumerate(self.reads):
            for ident in read:
                self.by_constant.setdefault(ident, []).append(i)

    def needed(self, met: Iterable[int]) -> list[Z]:
        """The side constraints of a query whose terms hold the constants `met`, in the relation's order."""
        chosen = set(self.always)
        todo = [ident for ident in met if ident in self.by_constant]
        seen = set(todo)
        while todo:
            for i in self.by_constant.get(todo.pop(), ()):
                if i in chosen:
                    continue
                chosen.add(i)
                fresh = self.reads[i] - seen
                seen |= fresh
                todo += fresh
        return [self.side[i] for i in sorted(chosen)]


@dataclass
class Move:
    """One move's query: the step, and what it must keep (each claim of P after it, each transition)."""

    step: Step
    claims: dict[str, Z]
    transitions: dict[str, Z]


@dataclass
class Built:
    """Every query of a count's record, built by the current code, with its digest per part."""

    rel: Relation | None = None
    before: dict[str, Z] = field(default_factory=dict)  # each claim of P before a move
    facts: list[Z] = field(default_factory=list)  # the facts about every state, before a move
    deal: dict[str, Z] = field(default_factory=dict)  # each claim of P after the deal
    moves: list[Move] = field(default_factory=list)
    facts_proved: list[str] = field(default_factory=list)  # the facts' names
    parts: dict[str, str] = field(default_factory=dict)  # DEAL or MOVE + name -> the query's digest


def tried_labels(labels: Iterable[str]) -> set[str]:
    """The invariants induction was asked about, of the labels a count's record lists (proved and dropped)."""
    return {label for label in labels if label.startswith(INVARIANT)}


def proved_claims(rules: Ruleset, players: int, entry: dict[str, Any]
                  ) -> tuple[list[str], list[InvariantDecl], list[InvariantDecl]]:
    """What a count's entry says induction proved: the encoding's own claims kept, the state claims and the
    transition invariants. A proved label that the current rules do not let induction try is refused."""
    claims, transitions, _ = classify(rules, players, tried_labels(_labels(entry)))
    inductive = set(entry["inductive"])
    state = [decl for decl in claims if INVARIANT + decl.ident in inductive]
    moved = [decl for decl in transitions if INVARIANT + decl.ident in inductive]
    lost = sorted(inductive - {INVARIANT + decl.ident for decl in [*state, *moved]})
    if lost:
        raise BaoError(f"with {players} players, the record's {lost[0]} is no claim induction tries with these rules")
    return [name for name in OWN_CLAIMS if name not in entry["dropped"]], state, moved


def build(rules: Ruleset, players: int, names: list[str], entry: dict[str, Any],
          deadline: Callable[[], None] = lambda: None) -> Built:
    """Every query that proves a count's entry, built in the order `induction.prove` builds its terms, and
    each part's digest. An entry that proves nothing (its bounds were not proved) has no query."""
    if entry["bounds"]:
        return Built()
    own, state, moved = proved_claims(rules, players, entry)
    facts = every_state_facts(rules, players)
    rel = Relation(rules, players, names)
    state_constants = set().union(*(constants_in(T._REF, term) for term in rel.pre.t.values()))
    alive: dict[str, Any] = {name: None for name in own}
    alive.update({decl.ident: decl for decl in state})
    out = Built(rel, _claims(rules, rel.pre, alive), facts_proved=[decl.ident for decl in facts])
    init = rel.initial()
    out.deal = {name: _unless_failed(name, init, goal) for name, goal in _claims(rules, init, alive).items()}
    steps = rel.build(deadline)
    out.facts = [claim(Translator(rules, rel.pre), d) for d in facts]
    for step in steps:
        step.facts = [claim(Translator(rules, step.post), d) for d in facts]
    for step in steps:
        deadline()
        after = {name: _unless_failed(name, step.post, goal) for name, goal in _claims(rules, step.post, alive).items()}
        out.moves.append(Move(step, after, {decl.ident: _transition_goal(rules, rel, step, decl) for decl in moved}))
    out.parts = _digests(out, SideIndex(rel.side, state_constants))
    return out


def _transition_goal(rules: Ruleset, rel: Relation, step: Step, decl: InvariantDecl) -> Z:
    names = {ACTOR: PlayerV(step.player), BY_ABILITY: BoolV(T.boolean(step.cm.decl.is_ability))}
    return _unless_failed(decl.ident, step.post, claim(TwoStates(rules, step.post, rel.pre), decl, names))


def _digests(built: Built, side: SideIndex) -> dict[str, str]:
    assert built.rel is not None
    below = QueryDigest()
    below.text("facts", built.facts_proved)
    below.named("claims before a move", built.before)
    below.terms("facts before a move", built.facts)
    below.terms("no rule failed before", [T.not_(built.rel.pre[("err",)])])
    parts: dict[str, str] = {}
    for move in built.moves:
        query = QueryDigest(below)
        query.text("move", move.step.cm.name)
        query.terms("allowed", [move.step.player, move.step.allowed])
        query.terms("facts after", move.step.facts)
        query.named("claims after", move.claims)
        query.named("transitions", move.transitions)
        query.terms("side constraints", side.needed(list(query.number)))
        parts[MOVE + move.step.cm.name] = query.hexdigest()
    deal = QueryDigest()
    deal.named("claims after the deal", built.deal)
    deal.terms("side constraints", side.needed(list(deal.number)))
    parts[DEAL] = deal.hexdigest()
    return parts


def _labels(entry: dict[str, Any]) -> list[str]:
    return [*entry["inductive"], *entry["dropped"]]
