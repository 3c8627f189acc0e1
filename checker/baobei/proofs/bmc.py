"""Bounded model checking and induction over the rules' transition relation (relation.py).

BMC starts from every state at the start of a round the rules can deal (any deal of the deck,
any totals, noted scores and starting player) and unrolls the relation one move at a time. At
every depth it asks Z3 whether any property can fail there: a state invariant in the state, a
transition invariant over the move that reached it, a progress property (nobody can move), a rule
that fails (the engine would raise) or a bound of the encoding exceeded. A property that holds at
a depth is asserted there before the next depth (a lemma), which keeps each further step local.

A violation comes with a model: the deal, the moves and the cards each draw gave. The engine
replays it (trace.py) and must reach the same violation; if the engine disagrees because the
relation let an ability go without a legal choice that the engine finds (the open-ended "has a
legal choice" of relation.py), that choice is added as a fact and the depth is asked again; any
other difference is a disagreement between prover and engine, reported as such.

Induction: the state invariants that BMC did not break are assumed in an arbitrary state of the
encoding, one step is taken, and those that can fail after it are dropped until the rest hold
(Houdini): they are inductive together. Transition invariants and progress are then checked on
one step from any state satisfying them.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import z3  # type: ignore[import-untyped]

from ..engine.engine import Engine
from ..engine.move import Move
from ..language import syntax as s
from ..language.builtins import TRANSITION_NAMES
from ..language.ruleset import Ruleset
from . import terms as T
from .relation import Relation, Step, Witness
from .symexec import Trail
from .symmodel import StateModel
from .symstate import SymState
from .trace import Reader, Trace, read_trace, replay
from .translate import NONE_ID, BoolV, CardV, PlayerV, SVal, Translator, Unsupported, Z, truth

MAX_WAIT = 3_600.0  # seconds one query may take at most (z3's timeout is a finite number of milliseconds)
RULES_RUN = "rules"  # the pseudo-property of a move the engine cannot carry out
BOUNDS = "bounds"  # the pseudo-property of a state beyond the encoding's bounds


@dataclass(frozen=True)
class Prop:
    label: str  # "invariant NAME", "progress NAME", RULES_RUN or BOUNDS
    kind: str  # state | transition | progress | rules | bounds
    decl: s.InvariantDecl | s.ProgressDecl | None = None


@dataclass
class Finding:
    prop: Prop
    depth: int
    trace: Trace
    message: str
    confirmed: bool  # the engine replays it to the same failure
    rules: Ruleset  # the rules it was found with (the small deck)
    disagreement: str = ""
    texts: list[str] = field(default_factory=list)  # the trace's moves in the engine's words

    def moves_text(self) -> str:
        return " / ".join(self.texts) or "the deal"


@dataclass
class BmcReport:
    players: int
    depth: int = -1  # the deepest depth every property was judged at
    findings: dict[str, Finding] = field(default_factory=dict)
    # The properties the relation cannot state (a construct it does not follow), with why: left to the searches.
    unstated: dict[str, str] = field(default_factory=dict)
    disagreements: list[str] = field(default_factory=list)
    refinements: int = 0
    bound_reached: bool = False
    seconds: float = 0.0
    depth_seconds: list[float] = field(default_factory=list)


def properties(rules: Ruleset, skip: frozenset[str] = frozenset()) -> list[Prop]:
    """The properties the relation judges: every invariant and progress property of the rules (but those
    named in `skip`: proved over every state already), a rule that fails, a bound exceeded."""
    out = [Prop(RULES_RUN, "rules"), Prop(BOUNDS, "bounds")]
    for inv in rules.invariants.values():
        if inv.ident not in skip:
            out.append(Prop(f"invariant {inv.ident}", "transition" if inv.two_state else "state", inv))
    out += [Prop(f"progress {p.ident}", "progress", p) for p in rules.progress.values() if p.ident not in skip]
    return out


class TwoStates(Translator):
    """Expressions over a move: `old(...)` reads the state before it."""

    def __init__(self, rules: Ruleset, after: SymState, before: SymState) -> None:
        super().__init__(rules, StateModel(after))
        self.before = Translator(rules, StateModel(before))

    def old(self, node: s.Old, scope: Any) -> SVal:
        value = self.before.visit(node.expr, scope)
        self.obligations += self.before.obligations
        self.before.obligations = []
        return value


def transition_names(step: Step, rel: Relation) -> dict[str, SVal]:
    """The names a transition invariant reads about the step (language/builtins.py's TRANSITION_NAMES):
    who moved, whether the move chosen was an ability or a step of one, and then the card of the first
    waiting ability (the one an ability move uses), else none."""
    by_ability = T.or_(*[T.eq(step.sel, d.index) for d in step.disjuncts if d.move.is_ability])
    actor_name, ability_name, source_name = TRANSITION_NAMES
    source = T.ite(by_ability, rel.head(step.pre).card, T.num(NONE_ID))
    return {actor_name: PlayerV(step.actor), ability_name: BoolV(by_ability), source_name: CardV(source)}


def claim(tr: Translator, decl: s.InvariantDecl, names: dict[str, SVal]) -> Z:
    """`when` implies `holds`, everything they need evaluable (a table row, a divisor other than zero)."""
    start = len(tr.obligations)
    holds = truth(tr.expr(decl.holds, names), decl.pos)
    if decl.when is not None:
        holds = T.implies(truth(tr.expr(decl.when, names), decl.pos), holds)
    needs = [o.holds for o in tr.obligations[start:]]
    return T.and_(holds, *needs)


class Unrolling:
    """The BMC unrolling for one ruleset (its small deck, as a rule) and player count."""

    def __init__(self, rules: Ruleset, players: int, settle: int = 2, slots: int | None = None,
                 skip: frozenset[str] = frozenset()) -> None:
        self.rules = rules
        self.rel = Relation(rules, players, slots=slots, settle=settle)
        self.layout = self.rel.layout
        self.eng = Engine(rules)
        self.props = properties(rules, skip)
        self.solver = z3.Solver()
        constraints: list[Z] = []
        self.states = [self.rel.initial("init", constraints, Trail("init"))]
        self.solver.add(*constraints, *self.rel.take_side())
        self.steps: list[Step] = []
        self._instances: set[tuple[int, Any]] = set()  # refinements made (witness, arguments)

    # ------------------------------------------------------------ properties at a depth
    def ok(self, k: int) -> Z:
        st = self.states[k]
        return T.and_(T.not_(st[("err",)]), T.not_(st[("over",)]), T.not_(st[("left",)]))

    def holds(self, prop: Prop, k: int) -> Z | None:
        """The property at depth k as a formula that holds when it does (None where it says nothing)."""
        st = self.states[k]
        if prop.kind == "rules":
            return T.not_(st[("err",)]) if k > 0 else None
        if prop.kind == "bounds":
            return T.not_(st[("over",)])
        assert prop.decl is not None
        if prop.kind == "state":
            assert isinstance(prop.decl, s.InvariantDecl)
            body = claim(Translator(self.rules, StateModel(st)), prop.decl, {})
            return T.implies(self.ok(k), body)
        if prop.kind == "transition":
            if k == 0:
                return None
            assert isinstance(prop.decl, s.InvariantDecl)
            step = self.steps[k - 1]
            tr = TwoStates(self.rules, st, step.pre)
            body = claim(tr, prop.decl, transition_names(step, self.rel))
            moved = T.and_(T.not_(step.stutter), T.not_(st[("err",)]), T.not_(st[("over",)]),
                           T.not_(step.pre[("left",)]))
            return T.implies(moved, body)
        assert isinstance(prop.decl, s.ProgressDecl)
        return T.implies(T.and_(self.ok(k), self.when(prop.decl, st)), self.rel.someone_moves(st))

    def stated(self, prop: Prop, k: int, report: BmcReport) -> Z | None:
        """holds(), or None (noted in the report) for a property whose expression the relation cannot
        follow: one such property leaves the others judged."""
        try:
            return self.holds(prop, k)
        except Unsupported as err:
            report.unstated[prop.label] = f"the transition relation cannot state it: {err.what}"
            return None

    def when(self, decl: s.ProgressDecl, st: SymState) -> Z:
        if decl.when is None:
            return T.TRUE
        return truth(Translator(self.rules, StateModel(st)).expr(decl.when), decl.pos)

    # ------------------------------------------------------------ the search
    def extend(self) -> None:
        k = len(self.steps)
        step = self.rel.step(self.states[k], k)
        self.solver.add(*step.constraints)
        self.steps.append(step)
        self.states.append(step.post)

    def check_depth(self, k: int, open_props: list[Prop], report: BmcReport,
                    timeout_ms: int) -> tuple[list[Prop], bool]:
        """Ask for a violation of each open property at depth k; returns the properties that hold there
        and whether the depth was judged completely (no timeout)."""
        formulas = {p.label: f for p in open_props if (f := self.stated(p, k, report)) is not None}
        pending = dict(formulas)
        deadline = time.perf_counter() + timeout_ms / 1000  # for the whole depth, refinements included
        while pending:
            left_ms = int((deadline - time.perf_counter()) * 1000)
            if left_ms <= 0:
                return [], False
            self.solver.set("timeout", left_ms)
            answer = T.check(self.solver, T.or_(*[T.not_(f) for f in pending.values()]))
            if answer == z3.unknown:
                return [], False
            if answer == z3.unsat:
                break
            model = self.solver.model()
            broken = [label for label, f in pending.items() if z3.is_false(model.eval(f, model_completion=True))]
            if self._refine(model, report):
                continue
            for label in broken:
                prop = next(p for p in open_props if p.label == label)
                report.findings[label] = self._finding(prop, model, k, report)
                del pending[label]
        held = [p for p in open_props if p.label in formulas and p.label not in report.findings]
        for p in held:
            self.solver.add(formulas[p.label])  # a lemma for the depths after
        return held, True

    def _finding(self, prop: Prop, model: Any, k: int, report: BmcReport) -> Finding:
        trace = read_trace(self.eng, self.layout, model, self.states[:k + 1], self.steps[:k])
        replayed = replay(self.eng, trace)
        message = violation_message(prop)
        if replayed.disagreement:
            report.disagreements.append(f"{prop.label} at depth {k}: {replayed.disagreement}")
            return Finding(prop, k, trace, message, False, self.rules, replayed.disagreement, replayed.texts)
        confirmed = engine_agrees(self.eng, prop, trace, replayed.states, replayed.failure)
        if not confirmed:
            report.disagreements.append(f"{prop.label} at depth {k}: the engine replays the trace without "
                                        "this failure")
        return Finding(prop, k, trace, message, confirmed, self.rules, texts=replayed.texts)

    def _refine(self, model: Any, report: BmcReport) -> bool:
        """Where the model says no choice is legal (an open-ended witness false) but the engine finds one
        in that state, make that choice count; True when something was added (ask again)."""
        reader = Reader(self.eng, self.layout, model)
        added = False
        for i, w in enumerate(self.rel.witnesses):
            if reader.flag(w.flag):
                continue
            concrete = reader.state(w.state)
            choice = engine_choice(self.eng, concrete, w)
            if choice is None or (i, choice.args) in self._instances:
                continue
            self._instances.add((i, choice.args))
            self.solver.add(self.rel.instance(w, dict(choice.args)))
            report.refinements += 1
            added = True
        return added


def engine_choice(eng: Engine, st: Any, w: Witness) -> Move | None:
    """A legal choice the engine finds for the witness's move in a concrete state, or None."""
    cm = eng.moves[w.move.name]
    if not w.gated:
        head = st.waiting[0] if st.waiting else None
        if head is None or head.ability != w.move.name or head.owner != w.actor:
            return None  # the witness speaks of an ability that is not first in line here
        return eng.first_legal(st, w.actor, cm)
    if cm not in eng.candidates(st, w.actor):
        return None
    return next(eng.moves_of(st, w.actor, cm), None)


def violation_message(prop: Prop) -> str:
    if prop.kind == "rules":
        return "a move the rules cannot carry out (the engine fails applying it)"
    if prop.kind == "bounds":
        return "a state beyond the bounds of the encoding (slots per tableau, waiting abilities, settling)"
    assert prop.decl is not None
    kind = "progress" if prop.kind == "progress" else "invariant"
    extra = "; nobody has a legal move" if prop.kind == "progress" else ""
    return f"{kind} {prop.decl.ident} ({prop.decl.cite}) is violated: {prop.decl.text}{extra}"


def engine_agrees(eng: Engine, prop: Prop, trace: Trace, states: list[Any], failure: str) -> bool:
    """Whether the engine's replay fails the way the prover says (the last state or move breaks it)."""
    if prop.kind == "rules":
        return bool(failure)
    if prop.kind == "bounds":
        return True  # nothing for the engine to check: the encoding's limit, not the rules'
    if failure:
        return False
    last = states[-1]
    name = prop.decl.ident if prop.decl is not None else ""
    if prop.kind == "state":
        return any(i.ident == name for i in eng.broken_invariants(last))
    if prop.kind == "progress":
        return any(p.ident == name for p in eng.deadlocks(last))
    if len(states) < 2 or not trace.steps:
        return False
    before, move = states[-2], trace.steps[-1].move
    return any(i.ident == name for i in eng.broken_transitions(before, last, move))


def bmc(rules: Ruleset, players: int, depth: int, seconds: float, settle: int = 2,
        skip: frozenset[str] = frozenset(), slots: int | None = None,
        progress: Callable[[int, float], None] = lambda k, t: None) -> BmcReport:
    """Unroll up to `depth` moves or until `seconds` have passed; every property judged at every depth.
    Rules the relation cannot follow raise Unsupported, naming the construct."""
    try:
        return _bmc(rules, players, depth, seconds, settle, skip, slots, progress)
    except Unsupported as err:
        raise Unsupported(err.pos, f"the transition relation cannot follow these rules: {err.what}") from None


def _bmc(rules: Ruleset, players: int, depth: int, seconds: float, settle: int, skip: frozenset[str],
         slots: int | None, progress: Callable[[int, float], None]) -> BmcReport:
    began = time.perf_counter()
    report = BmcReport(players)
    unrolling = Unrolling(rules, players, settle=settle, skip=skip, slots=slots)
    open_props = list(unrolling.props)
    for k in range(depth + 1):
        if k > 0:
            unrolling.extend()
        left = seconds - (time.perf_counter() - began)
        started = time.perf_counter()
        _, complete = unrolling.check_depth(k, open_props, report, int(min(left, MAX_WAIT) * 1000))
        if not complete:
            break
        report.depth = k
        report.depth_seconds.append(time.perf_counter() - started)
        open_props = [p for p in open_props if p.label not in report.findings and p.label not in report.unstated]
        progress(k, time.perf_counter() - began)
        if BOUNDS in report.findings:
            report.bound_reached = True
            break
        if time.perf_counter() - began >= seconds:
            break
    report.seconds = time.perf_counter() - began
    return report


def search(rules: Ruleset, players: int, depth: int, labels: set[str], settle: int = 2) -> BmcReport:
    """One query for a violation of the named properties within `depth` moves (no proof of the depths
    before it): how a bug planted in a variant is found fast, as the model checker's own test."""
    began = time.perf_counter()
    report = BmcReport(players)
    unrolling = Unrolling(rules, players, settle=settle)
    for _ in range(depth):
        unrolling.extend()
    props = [p for p in unrolling.props if p.label in labels]
    goals = [(p, k, f) for k in range(depth + 1) for p in props if (f := unrolling.stated(p, k, report)) is not None]
    while True:
        answer = T.check(unrolling.solver, T.or_(*[T.not_(f) for _, _, f in goals]))
        if answer != z3.sat:
            break
        model = unrolling.solver.model()
        if unrolling._refine(model, report):
            continue
        p, k, _ = min(((p, k, f) for p, k, f in goals if z3.is_false(model.eval(f, model_completion=True))),
                      key=lambda g: g[1])
        report.findings[p.label] = unrolling._finding(p, model, k, report)
        break
    report.depth = depth
    report.seconds = time.perf_counter() - began
    return report
