"""The engine over Z3 terms: the prover's value domain for the one semantics of the rules.

The engine's own code runs here: its steps (engine.py: perform, settle, start_round), its legality
(legality.py: admits, judge) and the primitive statements (effects.py), with the rules compiled by the
engine's compiler in its symbolic flavor (`SymBlocks`: a branch runs both sides and merges them). What
differs is the value domain only:

- the state is a `SymStore` (store.py), and `SymEffects` overrides the effects' place operations
  (`take_out`, `put`, `learn` ...) to update its terms;
- a question the engine's code asks (`ctx.absent(card)`, `fx.pile_empty(...)`, a guard) is a decision:
  a constant condition answers itself; otherwise the `Oracle` of the path being run answers, and
  `explore` runs the code once per answer, from the same start, and merges the states the paths
  leave, term by term, under their path conditions (`join`);
- an error the engine would raise (`ctx.fail`, an EngineError) ends its path with `err` set;
- a random outcome (the card a draw gives, a pick) is a fresh constant, constrained to be possible.

So the transition relation is made by the statements the engine runs, not by a copy of them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import z3  # type: ignore[import-untyped]

from ..engine import codegen
from ..engine.compiler import BlockSource, Compiler, Scope
from ..engine.engine import Engine
from ..engine.legality import CompiledMove
from ..engine.protection import Protection
from ..engine.runtime import Fn, Origin, Proc
from ..engine.state import PileLoc, Waiting
from ..language import syntax as s
from ..language.errors import EngineError, Rejection
from ..language.ruleset import ALL_CARDS, Ruleset
from . import terms as T
from .alive import term_id, value_id
from .store import (
    BOX,
    INT,
    KNOWLEDGE,
    LAYOUT,
    LIMBO,
    MARKS,
    Codes,
    FreeCards,
    Key,
    SymStore,
    parts_for,
    truth_of,
    value_of,
)
from .translate import (
    FALSE,
    NONE_ID,
    TRUE,
    BoolV,
    CardV,
    IntV,
    ListV,
    NoneV,
    OpaqueV,
    PlaceV,
    PlayerV,
    SlotSetV,
    SlotV,
    StrV,
    SVal,
    Translator,
    Unsupported,
    Z,
    equal,
    is_none,
    merge,
    truth,
)

PATH_LIMIT = 4096  # decision paths of one step before the prover gives up (reported, never skipped)
SETTLE_ROUNDS = 4  # waiting abilities one move settles at most (a state needing more sets `over`)


Run = Callable[[Any], None]  # a compiled block of the symbolic flavor, run with a SymCtx


class PathEnded(Exception):
    """The engine would raise here: the path ends with `err`."""


# ---------------------------------------------------------------- decisions


class Feasible:
    """Which paths can be taken at all: Z3 with the claims the relation is built under (the states it
    starts from satisfy them), asked before a path takes an answer. A path no state can take is not
    explored, which keeps the relation small; it is exact for every state that satisfies the claims."""

    def __init__(self, background: list[Z]) -> None:
        self.solver = z3.Solver()
        self.solver.set("timeout", 2000)
        self.solver.add(*background)
        self.cache: dict[tuple[int, ...], bool] = {}

    def possible(self, conds: list[Z]) -> bool:
        key = tuple(sorted(term_id(c) for c in conds))
        known = self.cache.get(key)
        if known is None:
            self.solver.push()
            self.solver.add(*conds)
            known = self.cache[key] = T.check(self.solver) != z3.unsat  # unknown: keep the path
            self.solver.pop()
        return known


class Oracle:
    """The answers of one path: a given prefix, then true for every new question (false is left open
    for another run). A question asked twice on one path gets the same answer. With `feasible`, an
    answer no state can give (with the enclosing path's conditions, `outer`) is never taken."""

    def __init__(self, prefix: list[bool], known: dict[int, bool] | None = None, outer: list[Z] | None = None,
                 feasible: Feasible | None = None) -> None:
        self.prefix = prefix
        self.taken: list[bool] = []
        self.conds: list[Z] = []
        self.open: list[list[bool]] = []
        # The answers of the enclosing path: a nested run asking the same question answers as it did.
        self.asked: dict[int, bool] = dict(known) if known else {}
        self.outer = outer or []
        self.feasible = feasible
        self.dead = False  # no state takes this path (its prefix was possible, the rest is not)

    def decide(self, cond: Z) -> bool:
        key = term_id(cond)
        known = self.asked.get(key)
        if known is not None:
            return known
        i = len(self.taken)
        if i < len(self.prefix):
            answer = self.prefix[i]
        elif self.feasible is None:
            answer = True
            self.open.append([*self.taken, False])
        else:
            answer = self._possible_answer(cond)
        self.taken.append(answer)
        self.conds.append(cond if answer else T.not_(cond))
        self.asked[key] = answer
        return answer

    def _possible_answer(self, cond: Z) -> bool:
        assert self.feasible is not None
        sure = [*self.outer, *self.conds]
        yes = self.feasible.possible([*sure, cond])
        no = self.feasible.possible([*sure, T.not_(cond)])
        if yes and no:
            self.open.append([*self.taken, False])
        if not yes and not no:
            self.dead = True
        return yes or not no

    def pc(self) -> Z:
        return T.and_(TRUE, *self.conds)

    def path(self) -> list[Z]:
        """The conditions of the path with those of the paths around it."""
        return [*self.outer, *self.conds]


@dataclass
class Path:
    """What one path left: its condition, the terms it wrote, the names and changes it made, its result."""

    pc: Z
    terms: dict[Key, Z]
    env: dict[str, Any] | None
    changed: list[Z] | None
    blocked: Z
    result: Any
    failure: str | None
    choices: list[tuple[str, Z, Z, Z]]
    asked: dict[int, bool] = field(default_factory=dict)  # the answers the path took, by question


class BlockLog:
    """A symbolic trial run's record of a blocked change (engine: a list of the protections)."""

    def __init__(self) -> None:
        self.flag: Z = FALSE

    def append(self, decl: s.ProtectDecl) -> None:
        self.flag = TRUE


def explore(st: SymStore, ctx: SymCtx | None, fn: Callable[[], Any], known: dict[int, bool] | None = None,
            outer: list[Z] | None = None, feasible: Feasible | None = None, isolated: bool = False) -> list[Path]:
    """Run `fn` once per decision path, each from the same start on the same store; the store (and the
    context's names and changes) are left as they were at the start. `known`: answers already given
    (a move's legality decided them), which the paths keep, with their conditions `outer`; `feasible`:
    the paths no state can take are left out (a nested run asks as the enclosing path does, unless
    `isolated`: then its paths' conditions hold whatever path encloses it, so that it can be kept)."""
    base, base_dirty, base_oracle, base_choices, base_version = st.t, st.dirty, st.oracle, st.choices, st.version
    env = dict(ctx.env) if ctx is not None else None
    changed = list(ctx.changed) if ctx is not None and ctx.changed is not None else None
    blocked = ctx.blocked.flag if ctx is not None and isinstance(ctx.blocked, BlockLog) else None
    todo: list[list[bool]] = [[]]
    out: list[Path] = []
    try:
        while todo:
            enclosing = None if isolated else base_oracle
            given = known if known is not None else enclosing.asked if enclosing is not None else None
            around = outer if outer is not None else enclosing.path() if enclosing is not None else None
            check = feasible if feasible is not None else enclosing.feasible if enclosing is not None else None
            oracle = Oracle(todo.pop(), given, around, check)
            st.t, st.dirty, st.oracle, st.choices, st.version = dict(base), {}, oracle, [], base_version
            _restore(ctx, env, changed, blocked)
            failure = None
            result = None
            try:
                result = fn()
            except (PathEnded, EngineError) as e:
                failure = str(e)
            todo.extend(oracle.open)
            if oracle.dead:
                continue
            out.append(Path(oracle.pc(), {k: st.t[k] for k in st.dirty}, dict(ctx.env) if ctx else None,
                            list(ctx.changed) if ctx is not None and ctx.changed is not None else None,
                            ctx.blocked.flag if ctx is not None and isinstance(ctx.blocked, BlockLog) else FALSE,
                            result, failure, st.choices, oracle.asked))
            if len(out) > PATH_LIMIT:
                raise Unsupported(s.NOWHERE, f"more than {PATH_LIMIT} decision paths in one step")
    finally:
        st.t, st.dirty, st.oracle, st.choices, st.version = base, base_dirty, base_oracle, base_choices, base_version
        _restore(ctx, env, changed, blocked)
    return out


def _restore(ctx: SymCtx | None, env: dict[str, Any] | None, changed: list[Z] | None, blocked: Z | None) -> None:
    """Put the context's bindings, changed owners and block flag (each when given) as a path left them."""
    if ctx is None:
        return
    if env is not None:
        ctx.env.clear()
        ctx.env.update(env)
    if changed is not None and ctx.changed is not None:
        ctx.changed[:] = changed
    if blocked is not None and isinstance(ctx.blocked, BlockLog):
        ctx.blocked.flag = blocked


def join(st: SymStore, ctx: SymCtx | None, paths: list[Path]) -> Any:
    """Merge the paths into the store (and the context) in place; the merged result (an SVal or a bool
    condition for paths that returned booleans; None otherwise)."""
    if not paths:
        return None
    if len(paths) == 1 and paths[0].failure is None:
        only = paths[0]
        for key, term in only.terms.items():
            st[key] = term
        _restore(ctx, only.env, only.changed, only.blocked)
        st.choices += only.choices
        return only.result
    for p in paths:
        if p.failure is not None:
            p.terms[("err",)] = TRUE
    keys: dict[Key, None] = {}
    for p in paths:
        keys.update(dict.fromkeys(p.terms))
    for key in keys:
        term = paths[-1].terms.get(key, st.t[key])
        for p in reversed(paths[:-1]):
            term = T.ite(p.pc, p.terms.get(key, st.t[key]), term)
        st[key] = term
    for p in paths:
        st.choices += [(kind, x, T.and_(p.pc, cond), at) for kind, x, cond, at in p.choices]
    if ctx is not None:
        _restore(ctx, _merge_envs(paths), _merge_changed(paths), _merge_terms([(p.pc, p.blocked) for p in paths]))
    return _merge_results(paths)


def _merge_terms(items: list[tuple[Z, Z]]) -> Z:
    out = items[-1][1]
    for pc, term in reversed(items[:-1]):
        out = T.ite(pc, term, out)
    return out


def _merge_envs(paths: list[Path]) -> dict[str, Any] | None:
    if paths[0].env is None:
        return None
    names: dict[str, None] = {}
    for p in paths:
        names.update(dict.fromkeys(p.env or {}))
    out: dict[str, Any] = {}
    for name in names:
        values = [(p.pc, sval(p.env.get(name) if p.env else None)) for p in paths]
        merged = values[-1][1]
        for pc, v in reversed(values[:-1]):
            merged = merge(pc, v, merged, s.NOWHERE)
        out[name] = merged
    return out


def _merge_changed(paths: list[Path]) -> list[Z] | None:
    if paths[0].changed is None:
        return None
    return [_merge_terms([(p.pc, p.changed[q] if p.changed else FALSE) for p in paths])
            for q in range(len(paths[0].changed))]


def _merge_results(paths: list[Path]) -> Any:
    results = [p.result for p in paths]
    if all(r is None for r in results):
        return None
    if all(isinstance(r, bool) or r is None for r in results):
        return T.or_(FALSE, *[p.pc for p in paths if p.result is True and p.failure is None])
    values = [(p.pc, sval(p.result)) for p in paths]
    merged = values[-1][1]
    for pc, v in reversed(values[:-1]):
        merged = merge(pc, v, merged, s.NOWHERE)
    return merged


def sval(value: Any) -> SVal:
    """An engine value met in the symbolic domain: none is `NoneV`, a seat number a player."""
    if value is None:
        return NoneV()
    if isinstance(value, SVal):
        return value
    if isinstance(value, bool):
        return BoolV(T.boolean(value))
    if isinstance(value, int):
        return PlayerV(T.num(value))
    raise Unsupported(s.NOWHERE, f"the value {value!r} in the symbolic domain")


def decide_all(st: SymStore, fn: Callable[[], bool], isolated: bool = False) -> Z:
    """The condition under which `fn` (a question of the engine's code) answers true, its paths merged."""
    paths = explore(st, None, fn, isolated=isolated)
    out = join(st, None, paths)
    return out if out is not None else FALSE


# ---------------------------------------------------------------- the context


class SymCtx:
    """What compiled rules see while they run over the symbolic store: the engine's Ctx, for Z3 terms."""

    __slots__ = ("blocked", "changed", "eng", "env", "log", "marking", "st")

    def __init__(self, eng: SymEngine, st: SymStore, env: dict[str, Any], changed: list[Z] | None) -> None:
        self.eng = eng
        self.st = st
        self.env = env
        self.log: None = None
        self.changed = changed
        self.marking = 0
        self.blocked: BlockLog | None = None

    def derive(self, env: dict[str, Any]) -> SymCtx:
        ctx = SymCtx(self.eng, self.st, env, self.changed)
        ctx.marking = self.marking
        ctx.blocked = self.blocked
        return ctx

    # ------------------------------------------------------------ the questions of effects.py
    def absent(self, value: Any) -> bool:
        return self.st.decide(is_none(sval(value)))

    def same(self, a: Any, b: Any) -> bool:
        return self.st.decide(equal(sval(a), sval(b), s.NOWHERE))

    @staticmethod
    def fail(message: str) -> Any:
        raise PathEnded(message)

    def active(self) -> Any:
        return PlayerV(self.st[("active",)])

    def touch(self, place: Any) -> None:
        if self.changed is None:
            return
        codes = self.st.codes
        for q in range(codes.n):
            self.changed[q] = T.or_(self.changed[q], _slot_of(codes, place, q))

    def holds(self, fn: Fn, node: s.Expr) -> bool:
        if getattr(fn, "generic", False):
            return bool(fn(self))  # type: ignore[arg-type]  # a generic guard asks the context only
        return self.st.decide(truth(self.value(node), node.pos))

    # ------------------------------------------------------------ expressions
    def names(self) -> dict[str, SVal]:
        return {k: sval(v) for k, v in self.env.items()}

    def translator(self) -> Translator:
        """One translator per content of the store (its definitions translated once for it)."""
        tr: Translator = self.st.remember("translator", lambda: Translator(self.eng.rules, self.st))
        tr.model = self.st  # the same content, maybe in another path's store object
        tr.obligations = []
        return tr

    def value(self, node: s.Expr) -> SVal:
        """An expression's value; where the engine would fail to evaluate it (a missing table row, a zero
        divisor), the state is an error."""
        tr = self.translator()
        out = tr.expr(node, self.names())
        if tr.obligations:
            broken = T.not_(T.and_(*[o.holds for o in tr.obligations]))
            self.st[("err",)] = T.or_(self.st[("err",)], broken)
        return out

    # ------------------------------------------------------------ control flow of the symbolic flavor
    def branch(self, cond: Any, then: Run, other: Run | None) -> None:
        """Both branches of an `if`, each from the same start, merged under the condition."""
        c = truth(sval(cond), s.NOWHERE)
        if T.is_true(c):
            then(self)
            return
        if T.is_false(c):
            if other is not None:
                other(self)
            return
        sides = [(c, then), (T.not_(c), other)]
        paths: list[Path] = []
        for pc, body in sides:
            ran = explore(self.st, self, lambda body=body: body(self) if body is not None else None)  # type: ignore[misc]
            paths += [dataclasses.replace(p, pc=T.and_(pc, p.pc)) for p in ran]
        join(self.st, self, paths)

    def each(self, items: Any, var: str, body: Run) -> None:
        """A loop over a list: the body for every item that may be in it, under the condition that it is.
        Over a list the store does not keep (free cards), the body runs for some item, or not at all:
        such loops only move, show or mark cards, which the store keeps as `written` anyway."""
        value = sval(items)
        if isinstance(value, OpaqueV):
            some = value.answer(("loop", value_id(body)), value.item)
            runs = value.answer(("loop runs", value_id(body)), "bool")
            self.branch(runs, lambda ctx: _bound(ctx, var, some, body), None)
            return
        domain = self.items(value)
        if domain.orders:
            for cond, ordered in domain.orders:
                self.branch(BoolV(cond), lambda ctx, ordered=ordered: ctx.each(ordered, var, body), None)  # type: ignore[misc]
            return
        for item, present in domain.items:
            self.branch(BoolV(present), lambda ctx, item=item: _bound(ctx, var, item, body), None)  # type: ignore[misc]

    def items(self, value: SVal) -> ListV:
        if isinstance(value, ListV):
            return value
        if isinstance(value, OpaqueV) or (isinstance(value, PlaceV) and isinstance(self.st, FreeCards)):
            raise Unsupported(s.NOWHERE, "the items of a list the store does not keep")
        if isinstance(value, NoneV):
            return ListV(())
        if isinstance(value, PlaceV) and value.player is not None:
            return ListV(tuple((CardV(card), here) for card, here in self.st.hand_items(value.player)))
        if isinstance(value, PlaceV):
            code = self.st.place_code(value)
            return ListV(tuple((CardV(T.num(k)), self.st.in_place(code, k)) for k in range(self.st.codes.N)),
                         unordered=True)
        raise Unsupported(s.NOWHERE, f"a loop over a {value.kind()}")

    def repeat(self, count: Any, body: Run) -> None:
        n = sval(count)
        if isinstance(n, NoneV):
            return
        if not isinstance(n, IntV):
            raise Unsupported(s.NOWHERE, "repeat with a count that is no number")
        bound = T.largest(n.term)
        if bound is None:
            raise Unsupported(s.NOWHERE, "repeat with a count the prover cannot bound")
        for i in range(bound):
            self.branch(BoolV(T.and_(T.not_(n.none), T.lt(i, n.term))), body, None)

    def run(self, effect: Callable[..., Any], *args: Any) -> Any:
        """A primitive statement of effects.py, once per decision path, the paths merged."""
        return join(self.st, self, explore(self.st, self, lambda: effect(self, *args)))


def _bound(ctx: SymCtx, var: str, item: SVal, body: Run) -> None:
    ctx.env[var] = item
    body(ctx)


def _slot_of(codes: Codes, place: Any, q: int) -> Z:
    """The place is a slot of q's tableau."""
    if isinstance(place, SlotV):
        return T.eq(place.player, q)
    if isinstance(place, Where):
        return T.eq(place.code, codes.tab(q))
    return FALSE


# ---------------------------------------------------------------- the place operations over terms


@dataclass(frozen=True)
class Where:
    """A place a card was in (what `locate` and `take_out` give): its code and slot number."""

    code: Z
    slot: Z


@dataclass
class SymWaiting:
    """The first waiting ability, read from the store (its ability decided, when it had to be)."""

    st: SymStore
    ability: str
    card: SVal
    owner: SVal
    args: tuple[SVal, ...]
    after: Z

    @property
    def after_window(self) -> bool:
        return self.st.decide(self.after)


class SymEffects:
    """The effects' place operations over the symbolic store: a subclass of Engine's Effects made at
    runtime (see `sym_effects`), so that every statement method is the engine's own."""


def _card_term(v: Any) -> Z:
    value = sval(v)
    if isinstance(value, CardV):
        return value.term
    if isinstance(value, NoneV):
        return T.num(NONE_ID)
    raise Unsupported(s.NOWHERE, f"a {value.kind()} where a card belongs")


def _player_term(v: Any) -> Z:
    value = sval(v)
    if isinstance(value, PlayerV):
        return value.term
    if isinstance(value, NoneV):
        return T.num(NONE_ID)
    raise Unsupported(s.NOWHERE, f"a {value.kind()} where a player belongs")


def make_sym_effects(base: type, eng: SymEngine, codes: Codes, free: bool = False) -> Any:
    """The engine's Effects class with its place operations over the symbolic store (with `free`: over a
    store with free cards, see `free_card_effects`)."""

    class Ops(base):  # type: ignore[misc]
        # How a card came where it is serves the reasons of a refusal only: no legality, no claim reads it.
        @staticmethod
        def came_by(ctx: SymCtx, origin: Any, *cards: Any) -> None:
            return None

        @staticmethod
        def triggered(st: SymStore, c: Any, p: Any) -> None:
            return None

        @staticmethod
        def lapsed(st: SymStore, c: Any) -> None:
            return None

        @staticmethod
        def shown_by(ctx: SymCtx, origin: Any, c: Any) -> None:
            return None

        def free_term(self, st: SymStore, where: SVal) -> Z:
            if isinstance(where, SlotV):
                p, n = where.player, where.number
                nsl = st.nslots(p)
                taken = T.or_(*[st.at(p, n, k) for k in range(codes.N)])
                return T.or_(T.eq(n, T.add(nsl, 1)), T.and_(T.ge(n, 1), T.le(n, nsl), T.not_(taken)))
            if isinstance(where, PlaceV) and where.player is not None:
                return T.lt(st.hand_count(where.player), codes.capacity)
            if isinstance(where, PlaceV):
                return TRUE
            raise Unsupported(s.NOWHERE, f"a {where.kind()} as a place for a card")

        def require_free(self, ctx: SymCtx, where: Any, pos: Any) -> None:
            if not ctx.st.decide(self.free_term(ctx.st, sval(where))):
                ctx.fail(f"{pos}: the place is not free")

        @staticmethod
        def locate(st: SymStore, card: Any) -> Where:
            c = _card_term(card)
            return Where(st.by_card(c, lambda k: ("loc", k), T.num(LIMBO)),
                         st.by_card(c, lambda k: ("slot", k), T.num(0)))

        def take_out(self, st: SymStore, card: Any) -> Where:
            where = self.locate(st, card)
            c = _card_term(card)
            for k in range(codes.N):
                st[("loc", k)] = T.ite(T.eq(c, k), LIMBO, st[("loc", k)])
            for q in range(codes.n):
                _unhand(st, codes, c, q)
            for x in range(codes.tab0):
                st[("size", x)] = T.ite(T.eq(where.code, x), T.add(st[("size", x)], -1), st[("size", x)])
            return where

        def put(self, st: SymStore, card: Any, where: Any) -> None:
            c, w = _card_term(card), sval(where)
            hits = [T.eq(c, k) for k in range(codes.N)]
            if isinstance(w, SlotV):
                p, n = w.player, w.number
                for q in range(codes.n):
                    nsl = st[("nslots", q)]
                    st[("nslots", q)] = T.ite(T.and_(T.eq(p, q), T.eq(n, T.add(nsl, 1))), T.add(nsl, 1), nsl)
                code = codes.tab(p)
                for k in range(codes.N):
                    st[("loc", k)] = T.ite(hits[k], code, st[("loc", k)])
                    st[("slot", k)] = T.ite(hits[k], n, st[("slot", k)])
                return
            if not isinstance(w, PlaceV):
                raise Unsupported(s.NOWHERE, f"a {w.kind()} as a place for a card")
            code = st.place_code(w)
            if w.player is not None:
                for q in range(codes.n):
                    held = st[("size", 1 + codes.P + q)]
                    for i in range(codes.capacity):
                        here = T.and_(T.eq(w.player, q), T.eq(held, i))
                        st[("hand", q, i)] = T.ite(here, c, st[("hand", q, i)])
            for x in range(codes.tab0):
                st[("size", x)] = T.ite(T.eq(code, x), T.add(st[("size", x)], 1), st[("size", x)])
            clock = st[("clock",)]
            for k in range(codes.N):
                st[("loc", k)] = T.ite(hits[k], code, st[("loc", k)])
                st[("ts", k)] = T.ite(hits[k], clock, st[("ts", k)])
            st[("clock",)] = T.add(clock, 1)
            if w.player is None and codes.pile_index(w.pile) in codes.face_up:
                for q in range(codes.n):
                    for k in range(codes.N):
                        st[("known", q, k)] = T.ite(hits[k], TRUE, st[("known", q, k)])

        @staticmethod
        def exchange(st: SymStore, a: Any, where_a: Where, b: Any, where_b: Where) -> None:
            ta, tb = _card_term(a), _card_term(b)
            for k in range(codes.N):
                ha, hb = T.eq(ta, k), T.eq(tb, k)
                st[("loc", k)] = T.ite(ha, where_b.code, T.ite(hb, where_a.code, st[("loc", k)]))
                st[("slot", k)] = T.ite(ha, where_b.slot, T.ite(hb, where_a.slot, st[("slot", k)]))

        @staticmethod
        def on_slot(ctx: SymCtx, place: Any) -> bool:
            if isinstance(place, Where):
                return ctx.st.decide(T.and_(T.ge(place.code, codes.tab0), T.le(place.code, codes.last_code)))
            return isinstance(place, SlotV)

        @staticmethod
        def slot_owner(ctx: SymCtx, place: Any) -> Any:
            if isinstance(place, SlotV):
                return PlayerV(place.player)
            if isinstance(place, Where):
                inside = T.and_(T.ge(place.code, codes.tab0), T.le(place.code, codes.last_code))
                return PlayerV(T.add(place.code, -codes.tab0)) if ctx.st.decide(inside) else None
            return None

        @staticmethod
        def pile_empty(st: SymStore, index: int) -> bool:
            return st.decide(T.eq(st.count_in(codes.pile(index)), 0))

        def draw_top(self, st: SymStore, index: int) -> CardV:
            code = codes.pile(index)
            d = st.fresh("draw", INT)
            here = st.by_card(d, lambda k: ("loc", k), T.num(LIMBO))
            drawn = T.and_(T.ge(d, 0), T.lt(d, codes.N), T.eq(here, code))
            st.side.append(T.implies(T.gt(st.count_in(code), 0), drawn))
            st.choices.append(("draw", d, TRUE, st[("draws",)]))
            st[("draws",)] = T.add(st[("draws",)], 1)
            return CardV(T.non_negative(d))

        @staticmethod
        def learn(st: SymStore, c: Any, p: Any) -> None:
            ct, pt = _card_term(c), _player_term(p)
            for q in range(codes.n):
                for k in range(codes.N):
                    st[("known", q, k)] = T.ite(T.and_(T.eq(pt, q), T.eq(ct, k)), TRUE, st[("known", q, k)])

        @staticmethod
        def reveal(st: SymStore, c: Any) -> None:
            _set_known(st, codes, _card_term(c), TRUE)

        @staticmethod
        def unlearn(st: SymStore, c: Any) -> None:
            _set_known(st, codes, _card_term(c), FALSE)

        @staticmethod
        def add_marks(st: SymStore, c: Any, bits: int) -> None:
            ct = _card_term(c)
            for i in range(len(codes.marks)):
                if bits >> i & 1:
                    for k in range(codes.N):
                        st[("mark", i, k)] = T.ite(T.eq(ct, k), TRUE, st[("mark", i, k)])

        def open(self, st: SymStore, kind: str, c: Any, players: Any) -> int:
            listed = sval(players)
            if not isinstance(listed, (ListV, NoneV)):
                raise Unsupported(s.NOWHERE, "a window for something that is no list of players")
            items = listed.items if isinstance(listed, ListV) else ()
            mask = [T.or_(FALSE, *[T.and_(m, T.eq(_player_term(x), q)) for x, m in items]) for q in range(codes.n)]
            new = {"kind": T.num(codes.string(kind)), "ref": _card_term(c), "att": T.num(codes.attempts)}
            W, wn = codes.windows, st[("wn",)]
            room = T.lt(wn, W)
            old = {(i, part): st[("w", i, part)] for i in range(W) for part in ("kind", "ref", "att")}
            old_pl = {(i, q): st[("w", i, "pl", q)] for i in range(W) for q in range(codes.n)}
            for i in range(W):
                here = T.ite(room, T.eq(wn, i), T.boolean(i == W - 1))
                for part in ("kind", "ref", "att"):
                    shifted = old[(i + 1, part)] if i + 1 < W else old[(i, part)]
                    st[("w", i, part)] = T.ite(here, new[part], T.ite(room, old[(i, part)], shifted))
                for q in range(codes.n):
                    shifted = old_pl[(i + 1, q)] if i + 1 < W else old_pl[(i, q)]
                    st[("w", i, "pl", q)] = T.ite(here, mask[q], T.ite(room, old_pl[(i, q)], shifted))
            st[("wn",)] = T.ite(room, T.add(wn, 1), wn)
            return 0

        @staticmethod
        def window_open(ctx: SymCtx) -> bool:
            return ctx.st.decide(T.gt(ctx.st[("wn",)], 0))

        @staticmethod
        def use_attempt(st: SymStore) -> None:
            for i in range(codes.windows):
                att = st[("w", i, "att")]
                st[("w", i, "att")] = T.ite(T.eq(st[("wn",)], i + 1), T.add(att, -1), att)

        @staticmethod
        def close(st: SymStore) -> None:
            st[("wn",)] = T.num(0)

        @staticmethod
        def window_callable(st: SymStore) -> bool:
            wn = st[("wn",)]
            att = T.num(0)
            for i in reversed(range(codes.windows)):
                att = T.ite(T.eq(wn, i + 1), st[("w", i, "att")], att)
            return st.decide(T.and_(T.gt(wn, 0), T.gt(att, 0)))

        def ability_of(self, ctx: SymCtx, c: Any) -> str | None:
            code = ctx.st.fact_term(_card_term(c), "ability")
            for name in dict.fromkeys(r.ability for r in codes.ranges if r.ability is not None):
                if ctx.st.decide(T.eq(code, codes.ability_code(name))):
                    return name
            return None

        @staticmethod
        def enqueue(st: SymStore, entry: Waiting, first: bool) -> None:
            Q, qn = codes.queue, st[("qn",)]
            cells = _cells(codes, entry.ability, entry.args)
            new = {"ab": T.num(codes.ability_code(entry.ability)), "card": _card_term(entry.card),
                   "owner": _player_term(entry.owner), "after": T.boolean(entry.after_window), **cells}
            if first:
                at: Z = T.num(0)
            else:
                at = qn
                for i in reversed(range(Q)):
                    at = T.ite(T.and_(T.lt(i, qn), st[("q", i, "after")]), i, at)
            fields = _queue_fields(codes)
            old = {(i, f): st[("q", *f_key(i, f))] for i in range(Q) for f in fields}
            for i in range(Q):
                for f in fields:
                    below = old[(i - 1, f)] if i > 0 else old[(i, f)]
                    value = new.get(f, T.num(0))
                    st[("q", *f_key(i, f))] = T.ite(T.eq(at, i), value, T.ite(T.gt(i, at), below, old[(i, f)]))
            st[("over",)] = T.or_(st[("over",)], T.ge(qn, Q))
            st[("qn",)] = T.add(qn, 1)

        @staticmethod
        def anything_waits(st: SymStore) -> bool:
            return st.decide(T.gt(st[("qn",)], 0))

        @staticmethod
        def head(st: SymStore, ability: str | None) -> SymWaiting:
            if ability is None:
                head = st[("q", 0, "ab")]
                ability = next((a for a in codes.abilities if st.decide(T.eq(head, codes.ability_code(a)))), None)
                if ability is None:
                    raise PathEnded("a waiting entry of no ability")
            return _head(st, codes, ability)

        @staticmethod
        def dequeue(st: SymStore) -> SymWaiting:
            first = _head(st, codes, "")
            fields = _queue_fields(codes)
            for i in range(codes.queue - 1):
                for f in fields:
                    st[("q", *f_key(i, f))] = st[("q", *f_key(i + 1, f))]
            st[("qn",)] = T.add(st[("qn",)], -1)
            return first

        def shuffle_into(self, st: SymStore, sources: tuple[s.ShuffleSource, ...], into: PileLoc) -> int:
            gathered = [FALSE] * codes.N
            for source in sources:
                if source.pile == ALL_CARDS:
                    gathered = [TRUE] * codes.N
                    for q in range(codes.n):
                        st[("nslots", q)] = T.num(0)
                    continue
                code = codes.pile(codes.pile_index(source.pile))
                top = st.top_of(code) if source.except_top else None
                for k in range(codes.N):
                    inside = st.in_place(code, k)
                    if top is not None:
                        inside = T.and_(inside, T.ne(top, k))
                    gathered[k] = T.or_(gathered[k], inside)
            target = codes.pile(into.index)
            for k in range(codes.N):
                st[("loc", k)] = T.ite(gathered[k], target, st[("loc", k)])
                for q in range(codes.n):
                    st[("known", q, k)] = T.ite(gathered[k], FALSE, st[("known", q, k)])
            for x in range(codes.tab0):
                st[("size", x)] = T.count([st.in_place(x, k) for k in range(codes.N)])
            return 0

        @staticmethod
        def begin_turn(st: SymStore, p: Any) -> None:
            st[("active",)] = _player_term(p)
            st[("turn",)] = T.add(st[("turn",)], 1)
            for i in codes.until_turn:
                for k in range(codes.N):
                    st[("mark", i, k)] = FALSE

        @staticmethod
        def store_phase(st: SymStore, value: Any) -> None:
            v = sval(value)
            st[("phase",)] = v.term if isinstance(v, StrV) else T.num(0)

        @staticmethod
        def store_var(st: SymStore, name: str, value: Any) -> None:
            decl = codes.rules.variables[name]
            for part, term in parts_for(codes, decl.type, sval(value), decl.pos).items():
                st[("var", name, part)] = term

        @staticmethod
        def store_player_var(st: SymStore, name: str, i: Any, value: Any) -> None:
            decl = codes.rules.variables[name]
            p = _player_term(i)
            for part, term in parts_for(codes, decl.type, sval(value), decl.pos).items():
                for q in range(codes.n):
                    key = ("pvar", name, q, part)
                    st[key] = T.ite(T.eq(p, q), term, st[key])

        @staticmethod
        def any_protected(ctx: SymCtx) -> bool:
            return ctx.st.decide(T.or_(FALSE, *[ctx.st[("protected", q)] for q in range(codes.n)]))

        @staticmethod
        def is_protected(ctx: SymCtx, owner: Any) -> bool:
            return ctx.st.decide(ctx.st.protected_term(_player_term(owner)))

        @staticmethod
        def protection_holds(ctx: SymCtx, p: Protection, owner: Any) -> bool:
            return ctx.st.decide(protection_term(ctx, p.decl, sval(owner)))

        @staticmethod
        def copy(st: SymStore) -> SymStore:
            out = st.copy()
            out.oracle = st.oracle
            return out

        @staticmethod
        def same(st: SymStore, a: Any, b: Any) -> bool:
            return st.decide(equal(sval(a), sval(b), s.NOWHERE))

        @staticmethod
        def target_owner(ctx: SymCtx, value: Any) -> Any:
            v = sval(value)
            if isinstance(v, SlotV):
                return PlayerV(v.player)
            if isinstance(v, PlayerV):
                return v
            return None

        @staticmethod
        def block_log() -> BlockLog:
            return BlockLog()

        def blocked_by(self, trial: SymCtx) -> s.ProtectDecl | None:
            flag = trial.blocked.flag if trial.blocked is not None else FALSE
            return self.protections[0].decl if trial.st.decide(flag) and self.protections else None

        def nothing_to_pick(self, ctx: SymCtx, domain: Any) -> bool:
            items = ctx.items(sval(domain))
            return ctx.st.decide(T.not_(T.or_(FALSE, *[m for _, m in items.items])))

        @staticmethod
        def random_item(ctx: SymCtx, domain: Any, kind: str) -> SVal:
            items = ctx.items(sval(domain)).items
            x = ctx.st.fresh("pick", INT)
            if not items:
                return NoneV()
            first = items[0][0]
            terms = [(m, _card_term(v) if isinstance(v, CardV) else _player_term(v)) for v, m in items]
            ctx.st.side.append(T.implies(T.or_(FALSE, *[m for m, _ in terms]),
                                         T.or_(FALSE, *[T.and_(m, T.eq(x, t)) for m, t in terms])))
            ctx.st.choices.append(("pick", x, TRUE, T.num(-1)))
            return CardV(x) if isinstance(first, CardV) else PlayerV(x)

        # ---- the engine's steps
        def seat(self, st: SymStore, players: Any) -> None:
            if players is None:
                for q in range(codes.n):
                    st[("in", q)] = TRUE
            else:
                listed = ListV(()) if isinstance(sval(players), NoneV) else sval(players)
                if not isinstance(listed, ListV):
                    raise Unsupported(s.NOWHERE, "a round among something that is no list of players")
                for q in range(codes.n):
                    st[("in", q)] = T.or_(FALSE, *[T.and_(m, T.eq(_player_term(x), q)) for x, m in listed.items])
            if not st.decide(T.or_(*[st[("in", q)] for q in range(codes.n)])):
                raise PathEnded("a round needs at least one player")
            count = T.count([st[("in", q)] for q in range(codes.n)])
            for table in codes.rules.tables.values():
                rows = T.or_(FALSE, *[T.and_(T.ge(count, r.low), T.le(count, r.high)) for r in table.rows])
                st[("err",)] = T.or_(st[("err",)], T.not_(rows))

        @staticmethod
        def next_round(st: SymStore) -> None:
            st[("round",)] = T.add(st[("round",)], 1)

        def reset_var(self, st: SymStore, v: s.VarDecl, init: Fn, ctx: SymCtx) -> None:
            value = init(ctx)  # type: ignore[arg-type]
            if v.per_player:
                for q in range(codes.n):
                    self.store_player_var(st, v.name, PlayerV(T.num(q)), value)
            else:
                self.store_var(st, v.name, value)

        @staticmethod
        def clear_round(st: SymStore) -> None:
            st[("wn",)] = T.num(0)
            st[("qn",)] = T.num(0)
            for i in range(len(codes.marks)):
                for k in range(codes.N):
                    st[("mark", i, k)] = FALSE

        @staticmethod
        def changed_owners(ctx: SymCtx) -> list[tuple[Any, Any]]:
            if not ctx.changed:
                return []
            return [(PlayerV(T.num(q)), ctx.changed[q]) for q in range(codes.n) if not T.is_false(ctx.changed[q])]

        @staticmethod
        def when(ctx: SymCtx, cond: Any, then: Callable[[], None]) -> None:
            c = cond if not isinstance(cond, bool) else T.boolean(cond)
            if T.is_false(c):
                return
            if T.is_true(c):
                then()
                return
            ran = explore(ctx.st, ctx, then)
            skip = Path(T.not_(c), {}, dict(ctx.env), list(ctx.changed) if ctx.changed is not None else None,
                        ctx.blocked.flag if ctx.blocked is not None else FALSE, None, None, [])
            join(ctx.st, ctx, [dataclasses.replace(p, pc=T.and_(c, p.pc)) for p in ran] + [skip])

        @staticmethod
        def until_settled(st: SymStore, step: Callable[[], bool]) -> None:
            going: Z = TRUE
            for _ in range(SETTLE_ROUNDS):
                if T.is_false(going):
                    return
                more = _guarded_step(st, going, step)
                going = T.and_(going, more)
            # Beyond the bound only when something still waits: the last step may have emptied the queue.
            st[("over",)] = T.or_(st[("over",)], T.and_(going, T.gt(st[("qn",)], 0)))

        def protect(self, st: SymStore) -> None:
            ctx = eng.new_ctx(st, {}, None)
            for q in range(codes.n):
                held = T.or_(FALSE, *[protection_term(ctx, p.decl, PlayerV(T.num(q))) for p in self.protections])
                st[("protected", q)] = T.and_(st[("in", q)], held)

    return free_card_effects(Ops, codes)(eng) if free else Ops(eng)


def free_card_effects(ops: type, codes: Codes) -> type:
    """The place operations over a store with free cards (store.FreeCards): a statement that moves, shows
    or marks a card writes only that the cards changed; a question about the cards gets a fresh answer."""

    def fresh(st: Any, what: tuple[Any, ...], kind: str) -> SVal:
        value: SVal = st.answer(what, kind)
        return value

    def ask(st: Any, *what: Any) -> bool:
        answer = fresh(st, ("ask", *what), "bool")
        assert isinstance(answer, BoolV)
        return bool(st.decide(answer.term))

    class FreeOps(ops):  # type: ignore[misc]
        def require_free(self, ctx: SymCtx, where: Any, pos: Any) -> None:
            if not ask(ctx.st, "free", _key_of(sval(where))):
                ctx.fail(f"{pos}: the place is not free")

        @staticmethod
        def locate(st: Any, card: Any) -> Where:
            code = fresh(st, ("where", term_id(_card_term(card))), "int")
            slot = fresh(st, ("where slot", term_id(_card_term(card))), "int")
            assert isinstance(code, IntV) and isinstance(slot, IntV)
            return Where(code.term, slot.term)

        def take_out(self, st: Any, card: Any) -> Where:
            where = self.locate(st, card)
            st.written(LAYOUT)
            return where

        def put(self, st: Any, card: Any, where: Any) -> None:
            st.written(LAYOUT, KNOWLEDGE)

        @staticmethod
        def exchange(st: Any, a: Any, where_a: Where, b: Any, where_b: Where) -> None:
            st.written(LAYOUT)

        @staticmethod
        def pile_empty(st: Any, index: int) -> bool:
            return ask(st, "pile empty", index)

        def draw_top(self, st: Any, index: int) -> CardV:
            d = st.fresh("draw", INT)
            st.side.append(T.and_(T.ge(d, 0), T.lt(d, codes.N)))
            st.choices.append(("draw", d, TRUE, st[("draws",)]))
            st[("draws",)] = T.add(st[("draws",)], 1)
            st.written(LAYOUT)
            return CardV(T.non_negative(d))

        @staticmethod
        def learn(st: Any, c: Any, p: Any) -> None:
            st.written(KNOWLEDGE)

        @staticmethod
        def reveal(st: Any, c: Any) -> None:
            st.written(KNOWLEDGE)

        @staticmethod
        def unlearn(st: Any, c: Any) -> None:
            st.written(KNOWLEDGE)

        @staticmethod
        def add_marks(st: Any, c: Any, bits: int) -> None:
            st.written(MARKS)

        def shuffle_into(self, st: Any, sources: tuple[s.ShuffleSource, ...], into: PileLoc) -> int:
            st.written(LAYOUT, KNOWLEDGE)
            return 0

        @staticmethod
        def begin_turn(st: Any, p: Any) -> None:
            st[("active",)] = _player_term(p)
            st[("turn",)] = T.add(st[("turn",)], 1)
            st.written(MARKS)

        @staticmethod
        def clear_round(st: Any) -> None:
            st[("wn",)] = T.num(0)
            st[("qn",)] = T.num(0)
            st.written()

        def nothing_to_pick(self, ctx: SymCtx, domain: Any) -> bool:
            value = sval(domain)
            if isinstance(value, ListV):
                return bool(ctx.st.decide(T.not_(T.or_(FALSE, *[m for _, m in value.items]))))
            return ask(ctx.st, "nothing to pick", _key_of(value))

        @staticmethod
        def random_item(ctx: SymCtx, domain: Any, kind: str) -> SVal:
            value = sval(domain)
            if isinstance(value, ListV):
                base: Any = ops
                picked: SVal = base.random_item(ctx, domain, kind)
                return picked
            return fresh(ctx.st, ("pick", _key_of(value)), "card" if kind == "card" else "player")

    return FreeOps


def _key_of(v: SVal) -> tuple[Any, ...]:
    from .store import _key

    return _key(v)


def _unhand(st: SymStore, codes: Codes, c: Z, q: int) -> None:
    """Take card c out of q's hand entries, if it is there: the later entries move up."""
    held = st[("size", 1 + codes.P + q)]
    entries = [st[("hand", q, i)] for i in range(codes.capacity)]
    found: Z = FALSE  # c is at this index or before
    for i in range(codes.capacity):
        found = T.or_(found, T.and_(T.gt(held, i), T.eq(entries[i], c)))
        later = entries[i + 1] if i + 1 < codes.capacity else T.num(NONE_ID)
        st[("hand", q, i)] = T.ite(found, later, entries[i])


def _guarded_step(st: SymStore, going: Z, step: Callable[[], bool]) -> Z:
    """One settling step where `going` holds (else nothing): the condition that settling goes on."""
    paths = explore(st, None, step)
    stay = Path(T.not_(going), {}, None, None, FALSE, False, None, [])
    guarded = [dataclasses.replace(p, pc=T.and_(going, p.pc)) for p in paths] + [stay]
    out = join(st, None, guarded)
    return out if out is not None else FALSE


def protection_term(ctx: SymCtx, decl: s.ProtectDecl, owner: SVal) -> Z:
    tr = Translator(ctx.eng.rules, ctx.st)
    return truth(tr.expr(decl.when, {decl.owner: owner}), decl.pos)


def _set_known(st: SymStore, codes: Codes, c: Z, value: Z) -> None:
    for q in range(codes.n):
        for k in range(codes.N):
            st[("known", q, k)] = T.ite(T.eq(c, k), value, st[("known", q, k)])


QueueField = str | tuple[int, str]


def _queue_fields(codes: Codes) -> list[QueueField]:
    return ["ab", "card", "owner", "after", *[(j, x) for j in range(codes.cells) for x in ("a", "b", "n")]]


def f_key(i: int, f: QueueField) -> tuple[Any, ...]:
    return (i, f) if isinstance(f, str) else (i, "arg", f[0], f[1])


def _cells(codes: Codes, ability: str, args: tuple[Any, ...]) -> dict[QueueField, Z]:
    """The values a `continue` gives a step, kept in the queue's cells by the step's formal types."""
    out: dict[QueueField, Z] = {}
    for j, (vtype, value) in enumerate(zip(codes.formals.get(ability, []), args, strict=False)):
        parts = parts_for(codes, vtype, sval(value), s.NOWHERE)
        if vtype == "slot":
            out[(j, "a")], out[(j, "b")] = parts["p"], parts["n"]
        elif vtype == "bool":
            out[(j, "a")], out[(j, "n")] = T.ite(parts["v"], 1, 0), T.ite(parts["none"], 1, 0)
        elif vtype in ("int", "str"):
            out[(j, "a")], out[(j, "n")] = parts["v"], T.ite(parts["none"], 1, 0)
        else:
            out[(j, "a")] = parts["v"]
    return out


def _head(st: SymStore, codes: Codes, ability: str) -> SymWaiting:
    args: list[SVal] = []
    for j, vtype in enumerate(codes.formals.get(ability, [])):
        a, b, n = (st[("q", 0, "arg", j, x)] for x in ("a", "b", "n"))
        if vtype == "slot":
            args.append(SlotV(a, b))
        elif vtype == "bool":
            args.append(BoolV(T.eq(a, 1), T.eq(n, 1)))
        elif vtype in ("int", "str"):
            args.append((IntV if vtype == "int" else StrV)(a, T.eq(n, 1)))
        else:
            args.append(value_of(codes, vtype, lambda part, a=a: a))  # type: ignore[misc]
    return SymWaiting(st, ability, CardV(st[("q", 0, "card")]), PlayerV(st[("q", 0, "owner")]), tuple(args),
                      st[("q", 0, "after")])


# ---------------------------------------------------------------- the compiled rules, symbolic flavor


class SymBlocks(BlockSource):
    """The engine compiler's blocks in the symbolic flavor: the same statements, calling the same
    primitives; expressions go to the translator, and control flow merges instead of choosing."""

    @staticmethod
    def define(name: str, lines: list[str]) -> str:
        body = ["env = ctx.env", *lines]
        return f"def {name}(ctx):\n" + "".join(f"    {line}\n" for line in body)

    def values(self, nodes: tuple[s.Expr, ...], scope: Scope) -> tuple[list[str], list[str]]:
        temps = [self.unit.fresh("t") for _ in nodes]
        calls = [self.unit.const(self.comp.expr(node, scope)) for node in nodes]
        return [f"{t} = {fn}(ctx)" for t, fn in zip(temps, calls, strict=True)], temps

    def call(self, effect: Callable[..., None], *args: str) -> str:
        name = f"_fx_{effect.__name__}"
        self.unit.ns.setdefault(name, effect)
        return f"ctx.run({name}, {', '.join(args)})" if args else f"ctx.run({name})"

    def nested(self, stmts: tuple[s.Stmt, ...], scope: Scope, depth: int) -> list[str]:
        return [f"    {self.procedure(stmts, scope)}(ctx)"]

    def procedure(self, stmts: tuple[s.Stmt, ...], scope: Scope) -> str:
        name = self.unit.fresh("b")
        self.functions.append(self.define(name, self.block(stmts, scope, 0)))
        return name

    def branch(self, cond: str, then: tuple[s.Stmt, ...], other: tuple[s.Stmt, ...], scope: Scope,
               depth: int) -> list[str]:
        a = self.procedure(then, scope)
        b = self.procedure(other, scope) if other else "None"
        return [f"ctx.branch({cond}, {a}, {b})"]

    def loop(self, items: str, var: str, body: tuple[s.Stmt, ...], scope: Scope, depth: int) -> list[str]:
        return [f"ctx.each({items}, {var!r}, {self.procedure(body, scope)})"]

    def repeat(self, count: str, body: tuple[s.Stmt, ...], scope: Scope, depth: int) -> list[str]:
        return [f"ctx.repeat({count}, {self.procedure(body, scope)})"]


class SymCompiler(Compiler):
    """The engine's compiler with the symbolic flavor of blocks and expressions."""

    def expr(self, node: s.Expr, scope: Scope) -> Fn:
        return lambda ctx: ctx.value(node)  # type: ignore[attr-defined]

    def block(self, stmts: tuple[s.Stmt, ...], scope: Scope, origin: Origin) -> Proc:
        return SymBlocks(self, origin).function(stmts, scope)


# ---------------------------------------------------------------- the engine over terms


class SymEngine(Engine):
    """The engine's steps over the symbolic store of one ruleset and player count."""

    def __init__(self, rules: Ruleset, players: int, free: bool = False) -> None:
        super().__init__(rules)
        self.codes = Codes(rules, players)
        concrete = type(self.effects)
        self.effects = make_sym_effects(concrete, self, self.codes, free)
        self.effects.protections = self.protections
        self.sym_routines: dict[str, Proc] = {}
        comp = SymCompiler(rules, self.effects, {}, self.sym_routines)
        comp.unit.ns["_pick"] = lambda ctx, domain, kind: ctx.run(self.effects.pick, domain, kind)
        for r in rules.routines.values():
            scope = frozenset(f.name for f in r.formals) | {"actor"}
            self.sym_routines[r.name] = comp.block(r.body, scope, Origin(r.name, r.cite))
        self.hook_procs = {h.name: comp.block(h.body, frozenset(f.name for f in h.formals) | {"actor"},
                                              Origin(f"on {h.name}", h.cite)) for h in rules.hooks.values()}
        self.routine_procs = self.sym_routines
        self.var_inits = {v.name: comp.expr(v.init, frozenset()) for v in rules.variables.values()}
        self.moves = {name: dataclasses.replace(cm, body=comp.block(cm.decl.body, frozenset(cm.names),
                                                                   Origin(cm.name, cm.decl.cite)))
                      for name, cm in self.moves.items()}
        changed = rules.hooks.get("changed")
        self._changed = None if changed is None else (self.hook_procs["changed"], [f.name for f in changed.formals])

    def new_ctx(self, st: Any, env: dict[str, Any], log: Any, changed: bool = False) -> Any:
        return SymCtx(self, st, env, [FALSE] * self.codes.n if changed else None)

    def _halt_candidates(self, st: Any) -> list[tuple[Fn, s.HaltDecl]]:
        return [(when, decl) for when, decl, _ in self._halts]

    def _check_domains(self, st: Any, cm: CompiledMove, player: Any, args: Any) -> Rejection | None:
        return None  # the relation draws every argument from its domain (arguments.py)

    def _waiting_rejection(self, st: Any, first: Any) -> Rejection:
        return Rejection("", "waiting", s.Citation("?"), "an ability waits")

    @staticmethod
    def player_name(st: Any, player: Any) -> str:
        return "the player"

    def has_choice(self, st: Any, player: Any, cm: CompiledMove) -> bool:
        """Some argument tuple is a legal choice: a fresh witness from the domains (see arguments.py)."""
        from .arguments import fresh_args

        def legality() -> Z:
            args, domains = fresh_args(self, st, cm, sval(player), "choice")
            # Worked out apart from the path that asks, so that it holds for every path with this content.
            return T.and_(domains, decide_all(st, lambda: self.judge(st, cm, player, args) is None, isolated=True))

        owner = sval(player)
        key = ("choice", cm.name, term_id(owner.term) if isinstance(owner, PlayerV) else -1)
        return bool(st.decide(st.answer_once(key, legality)))

    def blocked_step(self, st: Any, cm: CompiledMove, env: dict[str, Any]) -> s.ProtectDecl | None:
        """With free cards, whether a step's choice would change a protected tableau depends on the cards
        it moves: a free answer whenever a protection holds (the trial run on the kept values says no more)."""
        if not isinstance(st, FreeCards) or not cm.decl.is_step or not self.protections:
            return super().blocked_step(st, cm, env)
        if not self.effects.any_protected(self.new_ctx(st, {}, None)):
            return None
        if st.decide(truth_of(st.answer(("blocked", cm.name), "bool"))):
            return self.protections[0].decl
        return None

    def check_tables(self, n: int) -> None:
        return None

    def slot_label(self, st: Any, slot: tuple[int, int]) -> str:
        return "a slot"


def _unused(*_: Any) -> None:
    return None


__all__ = ["BOX", "SlotSetV", "SymCtx", "SymEngine", "codegen", "explore", "field", "join", "z3"]
