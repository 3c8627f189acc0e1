"""Proofs for every reachable state: induction over the rules' transition relation, with lemmas.

A state claim P (an invariant or a lemma of the rules) holds in every reachable state when it holds
after every deal of a match (the base case: Init => P) and every move keeps it (the step: P and T
imply P after). One claim alone is rarely kept by every move: a move from some state no game reaches
breaks it. So the claims are proved together, each assuming all the others before the move (Houdini):
a claim some move can break from a state satisfying the rest is dropped, with that state as its
counterexample to induction (a CTI), and the rest are tried again until every remaining claim is kept.
The rules' lemmas exist for this: each states, in the rules' own words, a fact of the reachable states
that rules out a CTI, and is itself proved the same way.

The relation T is the engine itself running over Z3 terms (machine.py): every move of the rules, made
by any player with any arguments from their domains, when the engine's legality admits it, then the
waiting abilities settled. It starts from any state of the encoding (store.py) that satisfies the
claims and the encoding's own structure (`well_formed`); the structure, no rule failing (`err`) and no
bound exceeded (`over`) are proved like the claims. A claim is judged after a move only where no rule
failed on it: there the engine raises, and no state follows. Whether that can happen is `rules_never_fail`,
judged like the others (free cards rarely prove it: a free pile may be empty where a deal needs cards; the
engine's searches and bounded model checking look for moves the rules cannot carry out). Transition
invariants (`old(...)`) and progress are judged on one step from any state satisfying the claims proved.
A second pass tries again the claims the first dropped, but those whose CTI already satisfies the rules'
claims about every state that Z3 proves over every state of the cards (`every_state_facts`): each step now
assumes those before and after the move. They hold in every state, and they state what the cards decide and free cards
cannot (at most one round value below zero). The first pass does without them: they make Z3's queries
larger, and a claim it proves must not be lost to Z3's time.

A claim's proof is for every state of the real deck: cards are symbolic, slots unbounded, totals free.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import z3  # type: ignore[import-untyped]

from ..engine.engine import Engine
from ..engine.legality import CompiledMove
from ..language import syntax as s
from ..language.builtins import TRANSITION_NAMES
from ..language.ruleset import Ruleset
from ..language.walk import free_names
from . import terms as T
from .arguments import fresh_args, fresh_maker
from .concrete import state_of, store_of
from .distribution import prove_state
from .machine import Feasible, Path, SymEngine, explore, join
from .store import (
    EPOCHS,
    Codes,
    FreeCards,
    SymStore,
    free_state_keys,
    fresh_free_store,
    fresh_store,
    reads_cards,
    scalar_ranges,
    well_formed,
)
from .translate import FALSE, TRUE, BoolV, PlayerV, SVal, Translator, Unsupported, Z, truth

ACTOR, BY_ABILITY, SOURCE = TRANSITION_NAMES
# The encoding's own claims, proved with the rules' ones: every state is one the engine's lists can hold
# (store.well_formed), no rule asks for something impossible (the engine would raise), and no state needs
# more waiting abilities than the store keeps.
STRUCTURE, NO_FAILURE, WITHIN_BOUNDS = "well_formed", "rules_never_fail", "within_bounds"
OWN_CLAIMS = (STRUCTURE, NO_FAILURE, WITHIN_BOUNDS)


class TwoStates(Translator):
    """Expressions over a move: `old(...)` reads the state before it."""

    def __init__(self, rules: Ruleset, after: SymStore, before: SymStore) -> None:
        super().__init__(rules, after)
        self.before = Translator(rules, before)

    def old(self, node: s.Old, scope: Any) -> SVal:
        value = self.before.visit(node.expr, scope)
        self.obligations += self.before.obligations
        self.before.obligations = []
        return value


def claim(tr: Translator, decl: s.InvariantDecl, names: dict[str, SVal] | None = None) -> Z:
    """`when` implies `holds`, everything they need evaluable (a table row, a divisor other than zero)."""
    start = len(tr.obligations)
    holds = truth(tr.expr(decl.holds, names), decl.pos)
    if decl.when is not None:
        holds = T.implies(truth(tr.expr(decl.when, names), decl.pos), holds)
    return T.and_(holds, *[o.holds for o in tr.obligations[start:]])


@dataclass
class Step:
    """One move of the relation: its kind, the player and arguments (constants), when it is allowed,
    and the state after it (settled)."""

    cm: CompiledMove
    player: Z
    args: tuple[tuple[str, SVal], ...]
    allowed: Z  # the arguments lie in their domains and the engine's legality admits the move
    post: SymStore
    seconds: float
    facts: list[Z] = field(default_factory=list)  # what holds in every state, stated of the state after it


@dataclass
class Cti:
    """A counterexample to induction: a state satisfying the claims assumed, and a move from it that
    breaks the claim (or, for the base case, a deal that breaks it)."""

    claim: str
    move: str  # the move in the engine's words ("" for the base case)
    before: Any  # engine State (none for the base case)
    after: Any  # engine State


@dataclass
class Proof:
    """What induction established for one player count."""

    players: int
    proved: list[str] = field(default_factory=list)  # claims kept by every move, all together
    ctis: dict[str, Cti] = field(default_factory=dict)  # dropped claims, each with the CTI that dropped it
    transitions: dict[str, Cti | None] = field(default_factory=dict)  # transition invariants: None = proved
    progress: dict[str, Cti | None] = field(default_factory=dict)
    unsupported: dict[str, str] = field(default_factory=dict)
    beyond_facts: set[str] = field(default_factory=set)  # dropped with a CTI that satisfies every fact
    seconds: float = 0.0
    steps: int = 0


class Relation:
    """The steps of the relation from one arbitrary state of the encoding, for one player count."""

    def __init__(self, rules: Ruleset, players: int, names: list[str], free: bool = True) -> None:
        self.feasible: Feasible | None = None  # the claims the steps are built under (see `assume`)
        self.rules = rules
        self.free = free  # the cards are free values (store.FreeCards), else the precise store
        self.sym = SymEngine(rules, players, free)
        self.codes = self.sym.codes
        self.names = names
        self.pre = fresh_free_store(self.codes, "pre") if free else fresh_store(self.codes, "pre")
        self.pre.fresh = fresh_maker("step")
        self.side: list[Z] = self.pre.side
        self.facts: list[Z] = []  # the facts about every state, stated of `pre` (see `prove`)
        self.steps: list[Step] = []

    def build(self, deadline: Callable[[], None]) -> list[Step]:
        self.steps = []
        for cm in self.sym.moves.values():
            deadline()
            self.steps.append(self.step(cm))
        return self.steps

    def step(self, cm: CompiledMove) -> Step:
        """The move made by any player with any arguments: the engine's legality decides on which paths it
        is allowed, and the move is made on each of those, its decisions kept (a state where the move is
        refused has no state after it)."""
        start = time.perf_counter()
        store: Any = self.pre.copy()  # the engine's code runs on it as on a state
        player = store.fresh("player", z3.IntSort())
        actor = PlayerV(player)
        args, domain = fresh_args(self.sym, store, cm, actor, "arg")
        legal_store: Any = store.copy()
        within = [T.ge(player, 0), T.lt(player, self.codes.n), domain]
        legal = explore(legal_store, None, lambda: self.sym.admits(legal_store, cm, actor) is None
                        and self.sym.judge(legal_store, cm, actor, args) is None, outer=within, feasible=self.feasible)
        made: list[Path] = []
        for path in legal:
            if path.result is not True or path.failure is not None:
                continue
            ran = explore(store, None, lambda: self.sym.perform(store, cm, actor, args, None), known=path.asked,
                          outer=[*within, path.pc], feasible=self.feasible)
            made += [dataclasses.replace(p, pc=T.and_(path.pc, p.pc)) for p in ran]
        if made:
            join(store, None, made)
        self.side += legal_store.side[len(self.side):] if legal_store.side is not self.side else []
        allowed = T.and_(T.ge(player, 0), T.lt(player, self.codes.n), domain,
                         T.or_(FALSE, *[p.pc for p in made]))
        return Step(cm, player, args, allowed, store, time.perf_counter() - start)

    def initial(self) -> SymStore:
        """Every state a match starts in: the blank state of the rules, then the deal of the first round."""
        eng = Engine(self.rules)
        blank = eng.blank_state(list(self.names), 0)
        store: Any = store_of(self.codes, blank)
        if self.free:
            keep = {key for key, _ in free_state_keys(self.codes)}
            store = FreeCards(self.codes, {k: v for k, v in store.t.items() if k in keep}, self.side)
            for epoch in EPOCHS.values():
                store.t[epoch] = T.num(0)
        store.side = self.side
        store.fresh = fresh_maker("init")
        join(store, None, explore(store, None, lambda: self.sym.start_round(store, None)))
        dealt: SymStore = store
        return dealt

    def move_text(self, step: Step, model: Any) -> str:
        """The step's move in the engine's words, as the model chose its player and arguments."""
        from .concrete import move_of

        eng = Engine(self.rules)
        before = state_of(eng, self.codes, self.pre, model, self.names)
        move = move_of(self.codes, step, model)
        return eng.describe(before, move)


def structure(st: SymStore) -> Z:
    from .store import FreeCards

    return T.and_(TRUE, *(scalar_ranges(st) if isinstance(st, FreeCards) else well_formed(st)))


CHECK_MS = 30_000  # Z3's time for the claims after one move, and then for each claim alone
RETRY_MS = 120_000  # a claim alone Z3 gave up on is asked once more with this time; then it is not proved


def prove(rules: Ruleset, players: int, names: list[str], claims: list[s.InvariantDecl],
          transitions: list[s.InvariantDecl], progress: list[s.ProgressDecl], assumed: list[s.InvariantDecl],
          deadline: Callable[[], None], facts: Sequence[s.InvariantDecl] = ()) -> Proof:
    """Induction for one player count (see the module docstring). `assumed`: claims proved for every
    state by other means (they read no transition), assumed before every move; `facts`: claims true in
    every state (`every_state_facts`), assumed before and after every move by the second pass."""
    began = time.perf_counter()
    out = Proof(players)
    rel = Relation(rules, players, names)
    alive: dict[str, Any] = {name: None for name in OWN_CLAIMS}
    alive.update({decl.ident: decl for decl in claims})
    pre_claims = _claims(rules, rel.pre, alive)
    base = [claim(Translator(rules, rel.pre), d) for d in assumed]
    _base_case(rules, rel, rel.initial(), alive, out)
    # The steps are built once, for every state of the encoding: Houdini only weakens what it assumes.
    steps = rel.build(deadline)
    tried = dict(alive)  # the claims the deals keep
    rel.facts = [claim(Translator(rules, rel.pre), d) for d in facts]
    for step in steps:
        step.facts = [claim(Translator(rules, step.post), d) for d in facts]
    houdini(steps, alive, lambda step: _houdini_step(rules, rel, step, base, pre_claims, alive, out, False), deadline)
    if facts:
        _with_facts(rules, rel, steps, base, {name: tried[name] for name in tried
                                              if name not in alive and name not in out.beyond_facts},
                    pre_claims, alive, out, deadline)
    out.steps = len(steps)
    out.proved = sorted(alive)
    kept = [pre_claims[name] for name in alive]
    for decl in transitions:
        found = _transition(rules, rel, steps, base + kept, decl, deadline, False)
        if found is not None and facts and _transition(rules, rel, steps, base + kept, decl, deadline, True) is None:
            found = None  # kept once the facts about every state are assumed
        out.transitions[decl.ident] = found
    out.seconds = time.perf_counter() - began
    return out


def _with_facts(rules: Ruleset, rel: Relation, steps: list[Step], before: list[Z], dropped: dict[str, Any],
                pre_claims: dict[str, Z], alive: dict[str, Any], out: Proof, deadline: Callable[[], None]) -> None:
    """Houdini again over the claims the first pass dropped, but those whose CTI satisfied every fact about
    every state (`Proof.beyond_facts`: assuming the facts does not rule it out), each step now assuming the
    facts before and after it, and the claims proved before it. Only those claims are asked: the facts make Z3's queries
    larger, and a claim proved without them must not be lost to Z3's time (measured: at 5 players, the deal's
    query for match_ends_at_threshold with the facts got no answer in 120 s)."""
    if not dropped:
        return
    first = {name: out.ctis.pop(name) for name in dropped}
    again = dict(dropped)
    known = [*before, *rel.facts, *[pre_claims[name] for name in alive]]
    houdini(steps, again, lambda step: _houdini_step(rules, rel, step, known, pre_claims, again, out, True),
            deadline)
    alive.update(again)
    for name, cti in first.items():
        if name not in again and out.ctis[name].before is None:
            out.ctis[name] = cti  # Z3 gave no answer with the facts: the state that dropped it without them


def houdini(steps: list[Any], alive: dict[str, Any], check: Callable[[Any], bool],
            deadline: Callable[[], None]) -> None:
    """Check steps until every one keeps every claim alive, assuming them all before it; `check` drops the
    claims a step breaks (true when it dropped one). A step is checked again only while the claims it was
    last checked under are not those alive now: one checked after the last drop is not asked again."""
    kept_under: dict[int, frozenset[str]] = {}
    while len(kept_under) < len(steps) or any(under != frozenset(alive) for under in kept_under.values()):
        for i, step in enumerate(steps):
            deadline()
            now = frozenset(alive)
            if kept_under.get(i) == now:
                continue
            if check(step):
                kept_under.pop(i, None)  # it was checked assuming more than is alive now: again
            else:
                kept_under[i] = now


def _claims(rules: Ruleset, st: SymStore, alive: dict[str, Any]) -> dict[str, Z]:
    tr = Translator(rules, st)
    own = {STRUCTURE: structure(st), NO_FAILURE: T.not_(st[("err",)]), WITHIN_BOUNDS: T.not_(st[("over",)])}
    return {name: own[name] if name in own else claim(tr, decl) for name, decl in alive.items()}


def _base_case(rules: Ruleset, rel: Relation, init: SymStore, alive: dict[str, Any], out: Proof) -> None:
    solver = z3.Solver()
    solver.add(*rel.side)
    goals = {name: _unless_failed(name, init, g) for name, g in _claims(rules, init, alive).items()}
    for name, goal in goals.items():
        if T.check(solver, T.not_(goal)) == z3.sat:
            eng = Engine(rules)
            after = state_of(eng, rel.codes, init, solver.model(), rel.names)
            out.ctis[name] = Cti(name, "", None, after)
            alive.pop(name, None)


def _houdini_step(rules: Ruleset, rel: Relation, step: Step, base: list[Z], pre_claims: dict[str, Z],
                  alive: dict[str, Any], out: Proof, facts: bool) -> bool:
    """Check every living claim after one step, assuming all before it; drop those broken (with a CTI) or
    that Z3 cannot judge in its time. True when a claim was dropped. `facts`: the step assumes the facts
    about every state after it (the caller puts those before it in `base`); without them, a claim whose CTI
    satisfies them all is noted in `out.beyond_facts`."""
    goals = _claims(rules, step.post, alive)
    # A claim whose terms the step left as they were is kept by it (Z3's terms are shared: same is same).
    goals = {name: _unless_failed(name, step.post, g) for name, g in goals.items() if not T.same(g, pre_claims[name])}
    if not goals:
        return False
    hypotheses = [*rel.side, *base, *(step.facts if facts else []), step.allowed, T.not_(rel.pre[("err",)]),
                  *[pre_claims[name] for name in alive]]
    solver = _solver(hypotheses, CHECK_MS)
    # Every claim at once: usually the step keeps them all, and one query says so. A model breaks at least
    # one; each it breaks is dropped with it as its CTI, and the rest are asked again.
    pending, before = dict(goals), len(alive)
    while pending:
        answer = T.check(solver, T.or_(FALSE, *[T.not_(g) for g in pending.values()]))
        if answer == z3.unsat:
            break
        if answer == z3.unknown:
            _one_by_one(rules, rel, step, hypotheses, pending, alive, out)
            break
        model = solver.model()
        broken = [name for name, g in pending.items() if not z3.is_true(model.eval(g, model_completion=True))]
        if not broken:  # no claim false in the model as Z3 completes it: ask each alone
            _one_by_one(rules, rel, step, hypotheses, pending, alive, out)
            break
        cti = _cti(rules, rel, step, model)
        if not facts and z3.is_true(model.eval(T.and_(TRUE, *rel.facts, *step.facts), model_completion=True)):
            out.beyond_facts.update(broken)  # assuming the facts would not rule this CTI out
        for name in broken:
            alive.pop(name, None)
            out.ctis[name] = dataclasses.replace(cti, claim=name)
            del pending[name]
    return len(alive) < before


def _solver(hypotheses: list[Z], ms: int) -> Any:
    solver = z3.Solver()
    solver.set("timeout", ms)
    solver.add(*hypotheses)
    return solver


def _one_by_one(rules: Ruleset, rel: Relation, step: Step, hypotheses: list[Z], pending: dict[str, Z],
                alive: dict[str, Any], out: Proof) -> None:
    """The claims Z3 could not judge together, each alone: one it cannot judge in its time is dropped too.
    Each is asked of a solver of its own: one that gave up on a query is often lost on the next one (measured
    on the deal: 16 claims, each unsat in 5-22 s alone, all unknown after the joint query timed out), and a
    claim dropped for want of time takes with it every claim that needs it."""
    for name, goal in pending.items():
        for ms in (CHECK_MS, RETRY_MS):  # given up once, asked again with more time before it is dropped
            solver = _solver(hypotheses, ms)
            answer = T.check(solver, T.not_(goal))
            if answer != z3.unknown:
                break
        if answer == z3.unsat:
            continue
        alive.pop(name, None)
        if answer == z3.sat:
            out.ctis[name] = dataclasses.replace(_cti(rules, rel, step, solver.model()), claim=name)
        else:
            out.ctis[name] = Cti(name, f"{step.cm.name} (Z3 gave no answer in {RETRY_MS // 1000} s)", None, None)


def _cti(rules: Ruleset, rel: Relation, step: Step, model: Any) -> Cti:
    eng = Engine(rules)
    before = state_of(eng, rel.codes, rel.pre, model, rel.names)
    after = state_of(eng, rel.codes, step.post, model, rel.names)
    return Cti("", _describe(rel, step, model), before, after)


def _unless_failed(name: str, post: SymStore, goal: Z) -> Z:
    """A claim after a move where no rule failed: a move on which the engine raises leaves no state, so the
    states after it are no game's (that no rule fails is the claim `rules_never_fail`, judged as it is)."""
    return goal if name == NO_FAILURE else T.or_(post[("err",)], goal)


def _describe(rel: Relation, step: Step, model: Any) -> str:
    try:
        return rel.move_text(step, model)
    except Exception as e:  # a CTI's move that the engine cannot even name: still the move's kind
        return f"{step.cm.name} ({e})"


def _transition(rules: Ruleset, rel: Relation, steps: list[Step], assumed: list[Z], decl: s.InvariantDecl,
                deadline: Callable[[], None], with_facts: bool) -> Cti | None:
    """One step from any state satisfying `assumed` keeps the transition invariant (None), or the CTI;
    `with_facts`: each step also assumes the facts about every state before and after it (asked only when the
    step alone does not do: they make the queries larger)."""
    for step in steps:
        deadline()
        facts = [*rel.facts, *step.facts] if with_facts else []  # before and after the move
        names: dict[str, SVal] = {ACTOR: PlayerV(step.player), BY_ABILITY: BoolV(T.boolean(step.cm.decl.is_ability))}
        goal = _unless_failed(decl.ident, step.post, claim(TwoStates(rules, step.post, rel.pre), decl, names))
        if T.is_true(goal):
            continue
        for ms in (CHECK_MS, RETRY_MS):  # given up once, asked again with more time (as `_one_by_one` does)
            solver = _solver([*rel.side, *assumed, *facts, step.allowed, T.not_(rel.pre[("err",)])], ms)
            answer = T.check(solver, T.not_(goal))
            if answer != z3.unknown:
                break
        if answer == z3.unknown:
            return Cti(decl.ident, f"{step.cm.name} (Z3 gave no answer in {RETRY_MS // 1000} s)", None, None)
        if answer == z3.sat:
            model = solver.model()
            eng = Engine(rules)
            return Cti(decl.ident, _describe(rel, step, model), state_of(eng, rel.codes, rel.pre, model, rel.names),
                       state_of(eng, rel.codes, step.post, model, rel.names))
    return None


# ---------------------------------------------------------------- what verify asks


@dataclass
class InductionReport:
    """The properties of one player count that induction proved for every reachable state, and why the
    others were not (a CTI's move, the cards the abstraction leaves out, no answer in time)."""

    inductive: set[str] = field(default_factory=set)  # labels: "invariant NAME"
    dropped: dict[str, str] = field(default_factory=dict)  # label -> why not proved
    ctis: dict[str, list[str]] = field(default_factory=dict)  # label -> its counterexample to induction, as lines
    lemmas: list[str] = field(default_factory=list)  # the rules' lemmas proved with them
    facts: list[str] = field(default_factory=list)  # the claims about every state assumed (every_state_facts)
    bounds: str = ""  # why nothing counts as proved (the encoding's bounds were not), "" when they were
    seconds: float = 0.0
    kept: bool = False  # read from the record `verify --certify` made (certificate.py), not judged in this run


def reachable(rules: Ruleset, players: int, names: list[str], labels: set[str],
              deadline: Callable[[], None], shown: Callable[[Cti], list[str]]) -> InductionReport:
    """Induction with free cards (store.FreeCards) over the invariants named in `labels` and the rules'
    lemmas: the claims that read no card are proved together (Houdini), then each transition invariant on
    one move from every state satisfying them; what a first pass drops for want of what holds in every state
    (`every_state_facts`) is tried again assuming it. A claim that reads the cards is not tried: the
    abstraction leaves the cards out, so it could only fail (its reason says so). A round value is no such
    read: a sum over a tableau's cards that reads nothing but their facts keeps its answer while no card
    moves (store.FreeCards). `shown` writes a counterexample to induction for a person (report.cti_lines):
    the caller gives it, so that how a state is written (the scenario tables) is no part of what a proof runs."""
    began = time.perf_counter()
    report = InductionReport()
    claims, transitions, report.dropped = classify(rules, players, labels)
    facts = every_state_facts(rules, players)
    report.facts = [decl.ident for decl in facts]
    proof = prove(rules, players, names, claims, transitions, [], [], deadline, facts)
    missing = [name for name in (STRUCTURE, WITHIN_BOUNDS) if name not in proof.proved]
    if missing:
        # The relation is exact only for states within the encoding's bounds (a queue longer than it keeps
        # would be cut short): unless those bounds are proved too, induction proves nothing.
        report.bounds = "induction did not prove the encoding's own bounds (" + ", ".join(missing) + \
            "): no claim counts as proved"
        for name in missing:
            report.ctis[name] = shown(proof.ctis[name])
        for decl in [*claims, *transitions]:
            report.dropped[f"invariant {decl.ident}"] = report.bounds
        report.seconds = time.perf_counter() - began
        return report
    for name in proof.proved:
        proved = rules.invariants.get(name)
        if proved is not None:
            report.inductive.add(f"invariant {name}")  # a lemma proved is a property proved, as the others
            if proved.lemma:
                report.lemmas.append(name)
    for name, cti in proof.ctis.items():
        report.dropped[f"invariant {name}" if name in rules.invariants else name] = cti_reason(cti)
        report.ctis[f"invariant {name}" if name in rules.invariants else name] = shown(cti)
    for name, found in proof.transitions.items():
        if found is None:
            report.inductive.add(f"invariant {name}")
        else:
            report.dropped[f"invariant {name}"] = cti_reason(found)
            report.ctis[f"invariant {name}"] = shown(found)
    report.seconds = time.perf_counter() - began
    return report


def every_state_facts(rules: Ruleset, players: int) -> list[s.InvariantDecl]:
    """The rules' claims about every state (no `reachable`, no transition, no lemma) that Z3 proves over every
    state of the cards (distribution.prove_state) and that the store with free cards can state: true in every
    state, the second pass of `prove` assumes them before and after every move. What the cards decide and the
    free cards cannot, they bring back: single_negative says that at most one round value is negative."""
    probe_store = fresh_free_store(Codes(rules, players), "probe")
    probe_store.fresh = fresh_maker("probe")
    probe = Translator(rules, probe_store)
    out = []
    for decl in rules.invariants.values():
        if decl.reachable or decl.two_state or decl.lemma:
            continue
        try:
            free = reads_cards(claim(probe, decl))
        except Unsupported:
            continue
        if not free and prove_state(rules, decl, players).status == "proved":
            out.append(decl)
    return out


def classify(rules: Ruleset, players: int, labels: set[str]
             ) -> tuple[list[s.InvariantDecl], list[s.InvariantDecl], dict[str, str]]:
    """The state claims and transition invariants induction tries (those in `labels`, and every lemma),
    and those it leaves out because they read the cards (label -> why)."""
    probe_store = fresh_free_store(Codes(rules, players), "probe")
    probe_store.fresh = fresh_maker("probe")
    probe = Translator(rules, probe_store)
    moved = {ACTOR: PlayerV(T.num(0)), BY_ABILITY: BoolV(TRUE)}
    claims: list[s.InvariantDecl] = []
    transitions: list[s.InvariantDecl] = []
    left_out: dict[str, str] = {}
    for decl in rules.invariants.values():
        label = f"invariant {decl.ident}"
        if label not in labels and not decl.lemma:
            continue
        tr = TwoStates(rules, probe_store, probe_store) if decl.two_state else probe
        if decl.two_state and any(SOURCE in free_names(e) for e in (decl.when, decl.holds) if e is not None):
            left_out[label] = ("reads the cards (the card whose ability the move was), which induction over free "
                               "cards leaves out")
        elif reads_cards(claim(tr, decl, moved if decl.two_state else None)):
            left_out[label] = "reads the cards, which induction over free cards leaves out"
        elif decl.two_state:
            transitions.append(decl)
        else:
            claims.append(decl)
    return claims, transitions, left_out


def cti_reason(cti: Cti) -> str:
    if cti.before is None and cti.after is not None:
        return "a deal breaks it"
    return f"not kept by {cti.move} from a state satisfying the other claims"


__all__ = ["FALSE", "InductionReport", "Proof", "Unsupported", "prove", "reachable"]
