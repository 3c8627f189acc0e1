"""The rules' transition relation T(s, s'), built by symbolic execution of the moves (symexec.py).

One step from a settled state s: a move, chosen by a selector constant among every
(move, player) pair of the rules (abilities and their steps included), or a stutter
(nothing happens: the path ends or waits). A move is allowed when the engine would
accept it (engine/legality.py, rule for rule):

- no halt of the rules forbids it; the waiting abilities let its player act (the
  owner uses the first waiting ability; a window's players call first when it waits
  for their calls; an ability with no legal choice that waits for the window does not
  hold its owner up);
- every argument lies in the domain generation gives it (an occupied slot, an own
  one, a free one, a seat, a held card, a boolean; none when optional);
- `by`, every `require`, the protections of the arguments that name what the move
  changes, and, for a step, a trial run that no protection blocks.

After the move's body (and the `changed` hook for every tableau it changed, then the
protections), the engine settles: a waiting ability that needs no choice runs, one
without a legal choice is dropped, until the first one waits for its owner's choice or
for the window. The relation unrolls `settle` such rounds on fresh states; a state
still unsettled after them sets the `over` flag (the report names the bound).

Whether a waiting ability has a legal choice is an existential over its arguments. An
ability with a small domain has it exactly (every argument tuple); otherwise the
relation asserts a witness when it says "possible", and leaves "impossible" open: the
relation then allows more than the engine, never less, and the bounded model checker
refines it with the engine's legal choice wherever a trace relied on it (bmc.py).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import z3  # type: ignore[import-untyped]

from ..engine.protection import ChangeTargets
from ..language import syntax as s
from ..language.ruleset import Ruleset
from ..language.walk import free_names, stmt_parts, walk_stmts
from . import terms as T
from .symexec import Choice, Exec, Trail, decode_cell, refresh_protection, simple
from .symmodel import StateModel
from .symstate import Key, Layout, SymState, fresh_state, merge_states
from .translate import (
    FALSE,
    NONE_ID,
    TRUE,
    BoolV,
    CardV,
    NoneV,
    PlayerV,
    SlotV,
    SVal,
    Translator,
    Unsupported,
    Z,
    equal,
    truth,
)

EXACT_LIMIT = 24  # argument tuples up to which "has a legal choice" is expanded exactly
SLOT_KINDS = ("slot", "own_slot", "free_slot")


@dataclass
class Arg:
    """A move's argument in a step: the symbolic value and the constants a model gives it."""

    param: s.Param
    value: SVal
    consts: tuple[Z, ...]


@dataclass
class Disjunct:
    index: int  # the selector's value
    move: s.MoveDecl
    actor: int
    args: list[Arg]
    legal: Z
    post: SymState
    trail: Trail  # the random outcomes of its effect


@dataclass
class Head:
    """The first waiting ability of a state, and whether it has a legal choice (`possible`)."""

    state: SymState
    on: Z
    ability: Z
    owner: Z
    card: Z
    after: Z
    cells: list[tuple[Z, Z]]
    possible: Z


@dataclass
class Witness:
    """An open-ended "some choice is legal" (relation.exists): its flag is true only with a legal witness;
    false is left open until a model that relies on it is refined with the engine's choice."""

    state: SymState
    move: s.MoveDecl
    actor: int
    flag: Z
    head: Head
    gated: bool


@dataclass
class Settle:
    """One settling round: from `head.state`, stop, drop the first waiting ability, or run it."""

    head: Head
    stop: Z
    drop: Z
    after: SymState


@dataclass
class Step:
    pre: SymState
    post: SymState
    sel: Z
    disjuncts: list[Disjunct]
    settles: list[Settle]
    constraints: list[Z]
    trail: Trail
    actor: Z  # who moved (NONE_ID for a stutter)
    stutter: Z
    settled: Z  # the state after the step is settled (else the settle bound was too small)
    settle_choices: list[Choice]  # the random outcomes of settling (after those of the move)


class Relation:
    """T for one ruleset and player count (see the module docstring)."""

    def __init__(self, rules: Ruleset, players: int, slots: int | None = None, queue: int = 4,
                 settle: int = 2, name: str = "") -> None:
        self.rules = rules
        # Prefixed to every constant the relation makes: two relations in one solver (two versions of the
        # rules side by side, compare/) keep their constants apart.
        self.name = name
        self.layout = Layout(rules, players, slots if slots is not None else default_slots(rules, players), queue)
        self.settle_rounds = settle
        self.targets = ChangeTargets(rules)
        self.player_moves = [m for m in rules.moves.values() if not m.is_ability]
        self.abilities = [m for m in rules.moves.values() if m.is_ability]
        self.window_moves = {m.name for m in self.player_moves if any(isinstance(x, s.UseWindow)
                                                                      for x in walk_stmts(m.body))}
        self.actor_free = {m.name for m in self.player_moves if self._actor_free(m)}
        self._heads: dict[int, Head] = {}
        self.side: list[Z] = []  # constraints of the witnesses of "has a legal choice", collected per step
        self.witnesses: list[Witness] = []
        self._witnesses = 0
        self._check_supported()

    def _check_supported(self) -> None:
        hook = self.rules.hooks.get("round_start")
        if hook is not None and any(isinstance(x, (s.Trigger, s.Continue)) for x in self._stmts(hook.body)):
            raise Unsupported(hook.pos, "a round_start hook that triggers abilities (settled inside the deal)")

    def _actor_free(self, m: s.MoveDecl) -> bool:
        """Whether a move's effect is the same whoever makes it: its body names no `actor` and has no
        statement that reads the mover without naming it (a draw's drawer, a protection's "against whom");
        a new round's deal runs without a mover."""
        stmts = self._stmts(m.body)
        if any(isinstance(x, (s.Draw, s.MoveCard, s.Swap)) for x in stmts):
            return False
        names: set[str] = set()
        for x in stmts:
            for e in stmt_exprs(x):
                names |= free_names(e)
        return "actor" not in names

    def _stmts(self, body: tuple[s.Stmt, ...]) -> list[s.Stmt]:
        out: list[s.Stmt] = []
        for x in walk_stmts(body):
            out.append(x)
            if isinstance(x, s.Run) and x.routine in self.rules.routines:
                out += self._stmts(self.rules.routines[x.routine].body)
        return out

    # ------------------------------------------------------------ states
    def initial(self, prefix: str, constraints: list[Z], trail: Trail) -> SymState:
        """Every state at the start of a round: the match's variables free (totals, noted scores, the round
        number ...), every round variable at its initial value, then the rules' own deal."""
        L = self.layout
        free = fresh_state(L, prefix + "m")
        st = SymState(L, dict(free.t))
        for x in L.counted_codes():
            st[("size", x)] = T.num(L.n if x == 0 else 0)
        for c in range(L.n):
            st[("loc", c)] = T.num(0)
            st[("pos", c)] = T.num(0)
            for q in range(L.players):
                st[("known", q, c)] = FALSE
        for p in range(L.players):
            st[("nslots", p)] = T.num(0)
            st[("protected", p)] = FALSE
            for k in range(1, L.slots + 1):
                st[("slot", p, k)] = T.num(NONE_ID)
        for key in ("err", "over", "left"):
            st[(key,)] = FALSE
        st[("wopen",)] = FALSE
        # A match's first round, as a scenario table starts (round 1, turn 1 once dealt). The match's numbers
        # and players stay free, so every total, noted score and starting player is possible; its flags and
        # sets of players (a decision round, the match over) start as the rules declare them: a first round
        # with them free would be a decision round among players whose totals may differ, which none is.
        st[("active",)], st[("round",)], st[("turn",)] = T.num(0), T.num(0), T.num(0)
        ex = Exec(self.rules, st, {"actor": NoneV()}, trail)
        from .symstate import _var_range, value_parts

        for v in self.rules.variables.values():
            if not v.whole_match:
                continue
            seats = list(range(L.players)) if v.per_player else [None]
            if v.type in ("int", "player"):
                for seat in seats:
                    constraints += _var_range(st, v, seat)
                    if v.type == "int":
                        constraints.append(T.not_(st.var(v.name, "none", seat)))
                continue
            parts = value_parts(L, v.type, ex.eval(v.init), v.pos)
            for seat in seats:
                for part, term in parts.items():
                    st[("var", v.name, part) if seat is None else ("pvar", v.name, seat, part)] = term
        ex.start_round(None, s.NOWHERE)
        constraints += trail.side
        trail.side = []
        return ex.st

    # ------------------------------------------------------------ legality
    def halt_ok(self, st: SymState, name: str) -> Z:
        """No halt forbids the move: the first halt that holds must allow it."""
        tr = Translator(self.rules, StateModel(st))
        out: Z = TRUE
        for halt in reversed(list(self.rules.halts.values())):
            out = T.ite(truth(tr.expr(halt.when), halt.pos), T.boolean(name in halt.allow), out)
        return out

    def head(self, st: SymState) -> Head:
        """The first waiting ability of `st` and whether it has a legal choice (computed once per state)."""
        cached = self._heads.get(id(st))
        if cached is not None and cached.state is st:
            return cached
        L = self.layout
        cells = [(st[("q", 0, "arg", j, 0)], st[("q", 0, "arg", j, 1)]) for j in range(L.cells)]
        h = Head(st, st[("q", 0, "on")], st[("q", 0, "ab")], st[("q", 0, "owner")], st[("q", 0, "card")],
                 st[("q", 0, "after")], cells, FALSE)
        h.possible = self._possible(h)
        self._heads[id(st)] = h
        return h

    def _possible(self, h: Head) -> Z:
        """The first waiting ability has a legal choice: for each ability and owner it could be."""
        parts: list[Z] = []
        for m in self.abilities:
            code = self.layout.ability_code(m.name)
            for p in range(self.layout.players):
                is_head = T.and_(h.on, T.eq(h.ability, code), T.eq(h.owner, p))
                if not T.is_false(is_head):
                    parts.append(T.and_(is_head, self.exists(h.state, m, p, h, False)))
        return T.or_(FALSE, *parts)

    def exists(self, st: SymState, m: s.MoveDecl, actor: int, h: Head, gated: bool) -> Z:
        """Some argument tuple makes the move legal (`gated`: also no halt forbids it and the waiting rule
        lets the player act). Expanded over the domains when they are small; otherwise an open-ended
        witness (see the module docstring), recorded for refinement."""
        if gated:
            allowed = T.and_(self.halt_ok(st, m.name), self.gate(st, m, actor))
            if T.is_false(allowed):
                return FALSE
        if self._tuples(st, m, actor) <= EXACT_LIMIT:
            exact = self.any_legal(h, m, actor)
            return T.and_(allowed, exact) if gated else exact
        self._witnesses += 1
        flag = z3.Bool(f"{self.name}some{self._witnesses}.{m.name}.{actor}")
        args = self.fresh_args(m, actor, f"{self.name}w{self._witnesses}.{m.name}.{actor}", st)
        legal = self.legality(st, m, actor, {a.param.name: a.value for a in args}, h)
        needs = T.and_(legal, self._domains(st, m, actor, args), *([allowed] if gated else []))
        self.side.append(T.implies(flag, needs))
        self.witnesses.append(Witness(st, m, actor, flag, h, gated))
        return flag

    def instance(self, w: Witness, args: dict[str, object]) -> Z:
        """The open-ended witness must hold where the engine's legal choice `args` is legal in its state."""
        values = self.concrete_args(w.state, w.move, args)
        st = w.state
        parts = [self.legality(st, w.move, w.actor, values, w.head)]
        parts += [T.or_(FALSE, *[T.and_(present, equal(values[p.name], item, w.move.pos))
                                 for item, present in self.domain(st, p.kind, w.actor)])
                  for p in w.move.params if not isinstance(values[p.name], NoneV)]
        if w.gated:
            parts += [self.halt_ok(st, w.move.name), self.gate(st, w.move, w.actor)]
        return T.implies(T.and_(*parts), w.flag)

    def take_side(self) -> list[Z]:
        out, self.side = self.side, []
        return out

    def _tuples(self, st: SymState, m: s.MoveDecl, actor: int) -> int:
        count = 1
        for p in m.params:
            count *= len(self.domain(st, p.kind, actor)) + int(p.optional)
        return count

    def any_legal(self, h: Head, m: s.MoveDecl, actor: int) -> Z:
        """Some argument tuple of the domains is legal (the expanded existential)."""
        domains = [[(v, m_) for v, m_ in self.domain(h.state, p.kind, actor)] for p in m.params]
        for i, p in enumerate(m.params):
            if p.optional:
                domains[i] = [(NoneV(), TRUE), *domains[i]]
        out: list[Z] = []
        for combo in itertools.product(*domains):
            present = T.and_(TRUE, *[m_ for _, m_ in combo])
            args = {p.name: v for p, (v, _) in zip(m.params, combo, strict=True)}
            legal = simple(T.and_(present, self.legality(h.state, m, actor, args, h)))
            if z3.is_true(legal):
                return TRUE
            if not z3.is_false(legal):
                out.append(legal)
        return T.or_(FALSE, *out)

    def legality(self, st: SymState, m: s.MoveDecl, actor: int, args: dict[str, SVal], h: Head | None) -> Z:
        """`by`, the requires and the protections of the arguments; a step's trial run. (Halts, the
        waiting gate and argument domains are added by the caller.)"""
        env = self.env(m, actor, args, h)
        tr = Translator(self.rules, StateModel(st))
        parts: list[Z] = []
        if m.by is not None:
            parts.append(truth(tr.expr(m.by, env), m.pos))
        parts += [truth(tr.expr(r.cond, env), r.pos) for r in m.requires]
        parts += self._protections(st, m, actor, args)
        if m.is_step:
            parts.append(T.not_(self._trial_blocked(st, m, env)))
        return T.and_(TRUE, *parts)

    def env(self, m: s.MoveDecl, actor: int, args: dict[str, SVal], h: Head | None) -> dict[str, SVal]:
        env: dict[str, SVal] = {"actor": PlayerV(T.num(actor)), "source": NoneV()}
        if m.is_ability and h is not None:
            env["source"] = CardV(h.card)
            for f, cell in zip(m.formals, h.cells, strict=False):
                env[f.name] = decode_cell(f.type, cell, m.pos)
        env.update(args)
        return env

    def _protections(self, st: SymState, m: s.MoveDecl, actor: int, args: dict[str, SVal]) -> list[Z]:
        if not self.rules.protects:
            return []
        out = []
        for name in sorted(self.targets.of_move(m)):  # sorted: the same formula every run
            value = args.get(name)
            owner = value.player if isinstance(value, SlotV) else value.term if isinstance(value, PlayerV) else None
            if owner is None:
                continue
            held = T.or_(FALSE, *[T.and_(T.eq(owner, q), st[("protected", q)]) for q in range(self.layout.players)])
            out.append(T.not_(T.and_(T.ne(owner, actor), T.ne(owner, NONE_ID), held)))
        return out

    def _trial_blocked(self, st: SymState, m: s.MoveDecl, env: dict[str, SVal]) -> Z:
        """engine.blocked_step: the step's body run on a copy; a change a protection blocks refuses it."""
        if not any(isinstance(x, (s.MoveCard, s.Swap, s.Draw, s.Run)) for x in walk_stmts(m.body)):
            return FALSE
        trial = Exec(self.rules, st.copy(), dict(env), Trail(f"{self.name}trial"))
        trial.block(m.body)
        any_protected = T.or_(*[st[("protected", q)] for q in range(self.layout.players)])
        return T.and_(any_protected, trial.blocked)

    def gate(self, st: SymState, m: s.MoveDecl, actor: int) -> Z:
        """The waiting rule (engine: _waiting_gate)."""
        h = self.head(st)
        if m.is_ability:
            return T.and_(h.on, T.eq(h.ability, self.layout.ability_code(m.name)), T.eq(h.owner, actor))
        callable_ = T.and_(st[("wopen",)], T.gt(st[("watt",)], 0))
        deferred = T.and_(h.after, callable_, T.not_(h.possible))
        window = T.boolean(m.name in self.window_moves)
        return T.or_(T.not_(h.on), T.and_(h.after, window, callable_), T.and_(T.eq(h.owner, actor), deferred))

    # ------------------------------------------------------------ argument domains
    def domain(self, st: SymState, kind: str, actor: int) -> list[tuple[SVal, Z]]:
        """What generation lets an argument be, each item with the condition that it is there."""
        L = self.layout
        if kind in SLOT_KINDS:
            owners = range(L.players) if kind == "slot" else [actor]
            out: list[tuple[SVal, Z]] = []
            for p in owners:
                n = st[("nslots", p)]
                for k in range(1, L.slots + 1):
                    card = st.slot(p, k)
                    here = T.and_(T.le(k, n), T.eq(card, NONE_ID)) if kind == "free_slot" else T.ne(card, NONE_ID)
                    out.append((SlotV(T.num(p), T.num(k)), here))
            return out
        if kind == "player":
            return [(PlayerV(T.num(q)), TRUE) for q in range(L.players)]
        if kind == "held_card":
            held = StateModel(st).held(PlayerV(T.num(actor)), s.NOWHERE)
            return [(x, m) for x, m in held.items]  # type: ignore[attr-defined]
        if kind == "bool":
            return [(BoolV(FALSE), TRUE), (BoolV(TRUE), TRUE)]
        raise Unsupported(s.NOWHERE, f"an argument of kind {kind}")

    def fresh_args(self, m: s.MoveDecl, actor: int, prefix: str, st: SymState) -> list[Arg]:
        out = []
        for p in m.params:
            label = f"{prefix}.{p.name}"
            if p.kind in SLOT_KINDS:
                a, b = z3.Int(label + ".p"), z3.Int(label + ".n")
                out.append(Arg(p, SlotV(a, b), (a, b)))
            elif p.kind in ("player", "held_card"):
                a = z3.Int(label)
                out.append(Arg(p, PlayerV(a) if p.kind == "player" else CardV(a), (a,)))
            elif p.kind == "bool" and not p.optional:
                b = z3.Bool(label)
                out.append(Arg(p, BoolV(b), (b,)))
            else:
                raise Unsupported(m.pos, f"an optional argument of kind {p.kind}")
        return out

    def _domains(self, st: SymState, m: s.MoveDecl, actor: int, args: list[Arg]) -> Z:
        parts = []
        for arg in args:
            options = [T.and_(present, equal(arg.value, item, m.pos))
                       for item, present in self.domain(st, arg.param.kind, actor)]
            if arg.param.optional:
                none = T.and_(*[T.eq(c, NONE_ID if i == 0 else 0) for i, c in enumerate(arg.consts)])
                options.append(none)
            parts.append(T.or_(FALSE, *options))
        return T.and_(TRUE, *parts)

    def someone_moves(self, st: SymState) -> Z:
        """Somebody has a legal move now (open-ended witnesses for the moves of many argument tuples)."""
        h = self.head(st)
        return T.or_(*[self.exists(st, m, p, h, True) for m in [*self.player_moves, *self.abilities]
                       for p in range(self.layout.players)])

    def concrete_args(self, st: SymState, m: s.MoveDecl, args: dict[str, object]) -> dict[str, SVal]:
        """A move's arguments as the engine gives them, as symbolic values."""
        out: dict[str, SVal] = {}
        for p in m.params:
            value = args.get(p.name)
            if value is None:
                out[p.name] = NoneV()
            elif p.kind in SLOT_KINDS:
                assert isinstance(value, tuple)
                out[p.name] = SlotV(T.num(int(value[0])), T.num(int(value[1])))
            elif p.kind == "player":
                out[p.name] = PlayerV(T.num(int(value)))  # type: ignore[call-overload]
            elif p.kind == "held_card":
                out[p.name] = CardV(T.num(int(value)))  # type: ignore[call-overload]
            else:
                out[p.name] = BoolV(T.boolean(bool(value)))
        return out

    # ------------------------------------------------------------ one step
    def step(self, pre: SymState, i: int, only: tuple[str, int] | None = None) -> Step:
        """T(pre, post): a move (or a stutter), its settling rounds, on fresh constants for the state after.
        `only` (a move's name, its player): that move alone, for a check that knows the move made."""
        L = self.layout
        prefix = f"{self.name}s{i}"
        trail = Trail(prefix)
        sel = z3.Int(prefix + "!sel")
        constraints: list[Z] = []
        disjuncts: list[Disjunct] = []
        for m in [*self.player_moves, *self.abilities]:
            if only is not None and m.name != only[0]:
                continue
            shared: tuple[SymState, Trail] | None = None
            first = len(disjuncts) + 1
            for p in range(L.players):
                if only is not None and p != only[1]:
                    continue
                d = self._disjunct(pre, m, p, len(disjuncts) + 1, prefix, shared)
                if m.name in self.actor_free:
                    shared = (d.post, d.trail)
                else:
                    trail.absorb(d.trail, sel_is(prefix, d.index))
                constraints.append(T.implies(T.eq(sel, d.index), d.legal))
                disjuncts.append(d)
            if shared is not None:
                trail.absorb(shared[1], T.and_(T.ge(sel, first), T.le(sel, len(disjuncts))))
        constraints.append(T.and_(T.ge(sel, 0), T.le(sel, len(disjuncts))))
        mid = self._select(pre, sel, disjuncts, fresh_state(L, prefix + "m"), constraints)
        settles: list[Settle] = []
        state = mid
        settling = Trail(prefix + "settle")
        for r in range(self.settle_rounds):
            settle = self._settle(state, f"{prefix}r{r}", settling)
            after = fresh_state(L, f"{prefix}r{r}")
            constraints += [T.eq(after.t[k], settle.after.t[k]) for k in after.t]
            settle.after = after
            settles.append(settle)
            state = after
        settled = self.stop_condition(state, self.head(state))
        trail.absorb(settling, TRUE)
        constraints += trail.side + self.take_side()
        actor = T.num(NONE_ID)
        for d in reversed(disjuncts):
            actor = T.ite(T.eq(sel, d.index), T.num(d.actor), actor)
        return Step(pre, state, sel, disjuncts, settles, constraints, trail, actor, T.eq(sel, 0), settled,
                    settling.choices)

    def _disjunct(self, pre: SymState, m: s.MoveDecl, actor: int, index: int, prefix: str,
                  shared: tuple[SymState, Trail] | None) -> Disjunct:
        """One (move, player) of the step; a move whose effect does not depend on who makes it shares
        the state after it (and its random outcomes) with the same move of the other players."""
        args = self.fresh_args(m, actor, f"{prefix}.{m.name}.{actor}", pre)
        values = {a.param.name: a.value for a in args}
        h = self.head(pre) if m.is_ability else None
        legal = T.and_(self.halt_ok(pre, m.name), self.gate(pre, m, actor), self._domains(pre, m, actor, args),
                       self.legality(pre, m, actor, values, h), T.not_(pre[("left",)]))
        if shared is not None:
            return Disjunct(index, m, actor, args, legal, shared[0], shared[1])
        own = Trail(f"{prefix}.{m.name}.{actor}")
        post = self.apply(pre, m, actor, values, h, own)
        return Disjunct(index, m, actor, args, legal, post, own)

    def apply(self, pre: SymState, m: s.MoveDecl, actor: int, args: dict[str, SVal], h: Head | None,
              own: Trail) -> SymState:
        """engine._run: an ability leaves the queue and starts; the body; the `changed` hook; protections."""
        env = self.env(m, actor, args, h)
        ex = Exec(self.rules, pre.copy(), env, own)
        if m.is_ability:
            ex.pop()
            ex.env = {"actor": env["actor"]}
            ex.run_hook("ability_start", (env["actor"], env["source"]))
            ex.env = env
            ex.marking = tuple(k for k, decl in self.rules.marks.items() if decl.on_ability_moves)
        self.body(ex, m)
        if any(isinstance(x, s.StartRound) for x in self._stmts(m.body)):
            ex.put(("left",), T.or_(ex.st[("left",)], T.ne(ex.st[("round",)], pre[("round",)])))
        return ex.st

    def body(self, ex: Exec, m: s.MoveDecl) -> None:
        ex.changed = [FALSE] * self.layout.players
        ex.block(m.body)
        changed, actor = ex.changed, ex.env["actor"]
        ex.marking = ()
        for q in range(self.layout.players):
            ex.when(changed[q], lambda e, q=q: _changed_hook(e, q, actor))  # type: ignore[misc]
        refresh_protection(ex)

    def _select(self, pre: SymState, sel: Z, disjuncts: list[Disjunct], mid: SymState, out: list[Z]) -> SymState:
        """The state after the selected move: per key, the selected disjunct's term (the stutter keeps pre)."""
        changed: dict[Key, list[Disjunct]] = {}
        for d in disjuncts:
            for key in d.post.dirty:
                changed.setdefault(key, []).append(d)
        for key in mid.t:
            term = pre.t[key]
            for d in reversed(changed.get(key, [])):
                term = T.ite(T.eq(sel, d.index), d.post.t[key], term)
            out.append(T.eq(mid.t[key], term))
        return mid

    # ------------------------------------------------------------ settling
    def stop_condition(self, st: SymState, h: Head) -> Z:
        """engine.settle stops: nothing waits, the first ability waits for the window, or it needs a choice
        and has one."""
        callable_ = T.and_(st[("wopen",)], T.gt(st[("watt",)], 0))
        needs_choice = T.or_(FALSE, *[T.eq(h.ability, self.layout.ability_code(m.name)) for m in self.abilities
                                      if m.params])
        return T.or_(T.not_(h.on), T.and_(h.after, callable_), T.and_(h.possible, needs_choice))

    def _settle(self, u: SymState, prefix: str, trail: Trail) -> Settle:
        h = self.head(u)
        stop = self.stop_condition(u, h)
        drop = T.and_(T.not_(stop), T.not_(h.possible))
        popped = Exec(self.rules, u.copy(), {"actor": NoneV()}, trail)
        popped.pop()
        ran = popped.st
        for m in self.abilities:
            if m.params:
                continue
            for p in range(self.layout.players):
                is_it = T.and_(T.eq(h.ability, self.layout.ability_code(m.name)), T.eq(h.owner, p))
                own = Trail(f"{prefix}.{m.name}.{p}")
                # A waiting ability that needs no choice runs by itself (engine.settle).
                runs = self.apply(u, m, p, {}, h, own)
                trail.absorb(own, T.and_(T.not_(stop), T.not_(drop), is_it))
                ran = merge_states(is_it, runs, ran, u)
        after = merge_states(stop, u, merge_states(drop, popped.st, ran, u), u)
        return Settle(h, stop, drop, after)


def stmt_exprs(node: s.Stmt) -> tuple[s.Expr, ...]:
    return stmt_parts(node)[0]


def sel_is(prefix: str, index: int) -> Z:
    return T.eq(z3.Int(prefix + "!sel"), index)


def default_slots(rules: Ruleset, players: int) -> int:
    """Slots per tableau the relation keeps: what the deal gives one player, and two more for penalty
    cards (a bound the report names when a state would need more)."""
    from ..language.small_deck import deal_size

    dealt = deal_size(rules, players)
    return (dealt // players if dealt else 4) + 2


def _changed_hook(ex: Exec, owner: int, actor: SVal) -> None:
    saved = ex.env
    ex.env = {"actor": actor}
    ex.run_hook("changed", (PlayerV(T.num(owner)), actor))
    ex.env = saved


