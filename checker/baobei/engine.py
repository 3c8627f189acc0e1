"""The rules interpreter: who may act, legal moves, applying moves, rejecting illegal ones.

Everything BAO BEI-specific comes from the compiled Ruleset; this module knows
moves, parameters, guards, pending abilities and hooks, nothing of the game itself.
Legality is checked completely before any effect runs, so a rejected move leaves
the state exactly as it was.
"""

from __future__ import annotations

import dataclasses
import itertools
import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from . import syntax as s
from .builtins import CardFacts, make_functions
from .compiler import Compiler, Ctx, Event, Fn, Origin, Proc, free_names
from .errors import BaoError, EngineError, IllegalMove, Rejection
from .kinds import ENGINE_NAMES, formal_kinds
from .kinds import PARAM_KINDS as KIND_OF_PARAM
from .model import Ruleset
from .ops import Ops
from .state import State

SLOT_KINDS = ("slot", "own_slot", "free_slot")
PARAM_KINDS = (*SLOT_KINDS, "player", "bool")


@dataclass(frozen=True)
class Move:
    """A player's move: the rule's name and its named arguments (slots are (seat, number))."""

    player: int
    name: str
    args: tuple[tuple[str, Any], ...] = ()

    def arg(self, name: str) -> Any:
        for key, value in self.args:
            if key == name:
                return value
        return None


@dataclass
class CompiledMove:
    decl: s.MoveDecl
    by: Fn | None
    fixed_reqs: list[tuple[Fn, s.Require]]  # guards that read no parameter
    param_reqs: list[tuple[Fn, s.Require]]
    body: Proc
    # Derived from the guards, to skip hopeless candidates fast during generation:
    phases: frozenset[str] | None = None  # the phases a `phase == "..."` guard allows
    active_only: bool = False  # `by actor == active`
    needs_window: bool = False  # `require window_ref != none`
    no_args: dict[str, None] = dataclasses.field(default_factory=dict)  # every argument unset

    @property
    def name(self) -> str:
        return self.decl.name


class Engine:
    """Compiles a ruleset once; then plays any number of states with it."""

    def __init__(self, rules: Ruleset) -> None:
        self.rules = rules
        self.facts = CardFacts(rules)
        self.functions = make_functions(self.facts)
        self.ops = Ops(self)
        self.define_fns: dict[str, Fn] = {}
        self.routine_procs: dict[str, Proc] = {}
        self.hook_procs: dict[str, Proc] = {}
        self.moves: dict[str, CompiledMove] = {}
        self.var_inits: dict[str, Fn] = {}
        self.invariant_fns: dict[str, tuple[Fn | None, Fn]] = {}
        self._compile()
        self.phases = _phase_names(rules)

    # ------------------------------------------------------------ compilation
    def _compile(self) -> None:
        comp = Compiler(self)
        self._check_define_cycles()
        self._check_routine_cycles()
        for d in self.rules.defines.values():
            comp.kinds = formal_kinds(d.formals or ())
            self.define_fns[d.name] = comp.expr(d.body, frozenset(f.name for f in d.formals or ()))
        comp.kinds = {}
        for v in self.rules.variables.values():
            self.var_inits[v.name] = comp.expr(v.init, frozenset())
        for r in self.rules.routines.values():
            scope = frozenset(f.name for f in r.formals) | {"actor"}
            comp.kinds = {**ENGINE_NAMES, **formal_kinds(r.formals)}
            self.routine_procs[r.name] = comp.block(r.body, scope, Origin(r.name, r.cite))
        for h in self.rules.hooks.values():
            scope = frozenset(f.name for f in h.formals) | {"actor"}
            comp.kinds = {**ENGINE_NAMES, **formal_kinds(h.formals)}
            self.hook_procs[h.name] = comp.block(h.body, scope, Origin(f"on {h.name}", h.cite))
        for m in self.rules.moves.values():
            comp.kinds = {**ENGINE_NAMES, **{p.name: KIND_OF_PARAM[p.kind] for p in m.params}}
            self.moves[m.name] = self._compile_move(comp, m)
        comp.kinds = {}
        self._unphased = [cm for cm in self.moves.values() if not cm.decl.is_ability and cm.phases is None]
        # Per phase, the moves worth trying: those guarded by that phase, then the unguarded ones.
        self._by_phase: dict[str, list[CompiledMove]] = {}
        for cm in self.moves.values():
            for phase in cm.phases or ():
                if not cm.decl.is_ability:
                    self._by_phase.setdefault(phase, []).append(cm)
        for moves in self._by_phase.values():
            moves.extend(self._unphased)
        # The same lists for a player who is not the active one: moves only the active player makes drop out.
        self._by_phase_others = {phase: [cm for cm in moves if not cm.active_only]
                                 for phase, moves in self._by_phase.items()}
        self._unphased_others = [cm for cm in self._unphased if not cm.active_only]
        for inv in self.rules.invariants.values():
            when = comp.expr(inv.when, frozenset()) if inv.when is not None else None
            self.invariant_fns[inv.ident] = (when, comp.expr(inv.holds, frozenset()))

    def _compile_move(self, comp: Compiler, m: s.MoveDecl) -> CompiledMove:
        params = {p.name for p in m.params}
        for p in m.params:
            if p.kind not in PARAM_KINDS:
                raise BaoError(f"{m.pos}: parameter {p.name!r} has unknown kind {p.kind!r}; "
                               f"one of: {', '.join(PARAM_KINDS)}")
        scope = frozenset(params | {"actor", "source"})
        fixed: list[tuple[Fn, s.Require]] = []
        dependent: list[tuple[Fn, s.Require]] = []
        for req in m.requires:
            fn = comp.expr(req.cond, scope)
            (dependent if free_names(req.cond) & params else fixed).append((fn, req))
        by = comp.expr(m.by, scope) if m.by is not None else None
        body = comp.block(m.body, scope, Origin(m.name, m.cite))
        phases = next((ph for req in m.requires if (ph := _phase_guard(req.cond)) is not None), None)
        active_only = m.by is not None and _is_actor_active(m.by)
        needs_window = any(_is_window_guard(req.cond) for req in m.requires)
        return CompiledMove(m, by, fixed, dependent, body, phases, active_only, needs_window,
                            dict.fromkeys(params))

    def _check_define_cycles(self) -> None:
        """Definitions may not call themselves, directly or not: expressions stay total."""
        defines = self.rules.defines
        graph = {n: free_names(d.body) | _called(d.body) for n, d in defines.items()}
        state: dict[str, int] = {}

        def visit(name: str, path: list[str]) -> None:
            if state.get(name) == 2:
                return
            if state.get(name) == 1:
                from .errors import RulesError
                raise RulesError(defines[name].pos, "definitions call each other in a cycle: "
                                 + " -> ".join([*path, name]))
            state[name] = 1
            for dep in graph[name]:
                if dep in defines:
                    visit(dep, [*path, name])
            state[name] = 2

        for name in defines:
            visit(name, [])

    def _check_routine_cycles(self) -> None:
        """A routine may not run itself, directly or not: every move's effect ends."""
        routines = self.rules.routines
        graph = {name: _runs(r.body) for name, r in routines.items()}
        done: set[str] = set()

        def visit(name: str, path: list[str]) -> None:
            if name in path:
                from .errors import RulesError
                raise RulesError(routines[name].pos, "routines run each other in a cycle: "
                                 + " -> ".join([*path[path.index(name):], name]))
            if name in done:
                return
            for called in graph[name]:
                if called in routines:
                    visit(called, [*path, name])
            done.add(name)

        for name in routines:
            visit(name, [])

    # ------------------------------------------------------------ labels
    def slot_label(self, st: State, slot: tuple[int, int]) -> str:
        return f"{st.names[slot[0]]}.{slot[1]}"

    def format_value(self, st: State, vtype: str, value: Any) -> str:
        if value is None:
            return "none"
        if vtype == "player":
            return str(st.names[value])
        if vtype == "card":
            return self.facts.label(value)
        if vtype in ("players", "cards"):
            item = vtype[:-1]
            return "[" + ", ".join(self.format_value(st, item, v) for v in value) + "]"
        if isinstance(value, tuple):
            return self.slot_label(st, value)
        return str(value).lower() if isinstance(value, bool) else f"{value}"

    def describe(self, st: State, move: Move) -> str:
        parts = [st.names[move.player] if 0 <= move.player < len(st.names) else f"player {move.player}",
                 move.name]
        for key, value in move.args:
            if value is None:
                continue
            shown = self.slot_label(st, value) if isinstance(value, tuple) else (
                st.names[value] if isinstance(value, int) and not isinstance(value, bool) else str(value))
            parts.append(f"{key}={shown}")
        return " ".join(parts)

    # ------------------------------------------------------------ states
    def blank_state(self, names: list[str], seed: int | None) -> State:
        """A state with every variable at its initial value and every card in the box."""
        self.check_player_count(len(names))
        if len(set(names)) != len(names):
            raise BaoError(f"player names must differ: {', '.join(names)}")
        st = State(list(names), len(self.facts), seed)
        ctx = Ctx(st, {}, None, self)
        for v in self.rules.variables.values():
            if v.per_player:
                st.pvars[v.name] = [self.var_inits[v.name](ctx) for _ in names]
            else:
                st.vars[v.name] = self.var_inits[v.name](ctx)
        return st

    def check_player_count(self, n: int) -> None:
        lo, hi = self.rules.min_players, self.rules.max_players
        if not lo <= n <= hi:
            raise BaoError(f"{n} players: these rules allow {lo} to {hi} players ({self.rules.players_cite})")
        self.check_tables(n)

    def check_tables(self, n: int) -> None:
        """Every table has a row for a round of n players (a decision round may have fewer than the match)."""
        for name, table in self.rules.tables.items():
            if self.rules.table_value(name, n) is None:
                raise EngineError(f"table {name!r} ({table.cite}) has no row for a round of {n} players")

    def new_match(self, names: list[str], seed: int, log: bool = True) -> tuple[State, list[Event]]:
        st = self.blank_state(names, seed)
        events: list[Event] | None = [] if log else None
        self.start_round(st, events)
        return st, events or []

    def start_round(self, st: State, log: list[Event] | None, players: list[int] | None = None) -> None:
        """A new round among `players` (every seat when None)."""
        st.seat_round(list(range(len(st.names))) if players is None else players)
        if not st.in_round:
            raise EngineError("a round needs at least one player")
        self.check_tables(len(st.seats))
        st.round += 1
        ctx = Ctx(st, {"actor": None}, log, self)
        for v in self.rules.variables.values():
            if v.whole_match:
                continue
            init = self.var_inits[v.name]
            if v.per_player:
                st.pvars[v.name] = [init(ctx) for _ in st.names]
            else:
                st.vars[v.name] = init(ctx)
        st.window = None
        st.pending.clear()
        if log is not None:
            among = "" if players is None else " among " + ", ".join(st.names[p] for p in st.seated())
            log.append(Event("round", self.rules.hooks["round_start"].cite, f"round {st.round} begins{among}"))
        self.run_hook("round_start", ctx, ())
        self._settle(st, log)

    def run_hook(self, name: str, ctx: Ctx, args: tuple[Any, ...]) -> None:
        hook = self.rules.hooks[name]
        env: dict[str, Any] = {"actor": ctx.env.get("actor")}
        for formal, value in zip(hook.formals, args, strict=True):
            env[formal.name] = value
        self.hook_procs[name](ctx.derive(env))

    # ------------------------------------------------------------ legality
    def check(self, st: State, move: Move) -> Rejection | None:
        """Why `move` is illegal now, or None. Pure: reads the state only."""
        rejection = self._find_rejection(st, move)
        if rejection is None:
            return None
        # The move's text is made only for a rejection: generation checks many legal moves.
        return dataclasses.replace(rejection, move=self.describe(st, move))

    def _find_rejection(self, st: State, move: Move) -> Rejection | None:
        cm = self.moves.get(move.name)
        text = ""
        if cm is None:
            return Rejection(text, move.name, s.Citation("?"), f"there is no move {move.name!r} in these rules")
        if not 0 <= move.player < len(st.names):
            return Rejection(text, move.name, cm.decl.cite, "no such player")
        gate = self._pending_gate(st, cm, move, text)
        if gate is not None:
            return gate
        bad = self._check_args(st, cm, move, text)
        if bad is not None:
            return bad
        ctx = Ctx(st, self._env(st, cm, move), None, self)
        return self._check_guards(ctx, cm, text, move.player)

    def _pending_gate(self, st: State, cm: CompiledMove, move: Move, text: str) -> Rejection | None:
        """While an ability waits, only its owner may act, and only by using it (the rules' waiting rule)."""
        if st.pending:
            ability, card, owner = st.pending[0]
            if cm.name == ability and move.player == owner:
                return None
            waiting = self.rules.waiting
            cite = waiting.cite if waiting is not None else self.rules.moves[ability].cite
            rule = "waiting" if waiting is not None else ability
            return Rejection(text, rule, cite, f"{st.names[owner]} must first use the ability "
                             f"'{ability}' of {self.facts.label(card)}"
                             + (f": {waiting.text.lower()}" if waiting is not None else ""))
        if cm.decl.is_ability:
            return Rejection(text, cm.name, cm.decl.cite, f"no ability '{cm.name}' is waiting to be used")
        return None

    def _check_args(self, st: State, cm: CompiledMove, move: Move, text: str) -> Rejection | None:
        names = {p.name for p in cm.decl.params}
        for key, _ in move.args:
            if key not in names:
                return Rejection(text, cm.name, cm.decl.cite, f"{cm.name} takes no argument {key!r}"
                                 f" (it takes: {', '.join(sorted(names)) or 'none'})")
        for p in cm.decl.params:
            value = move.arg(p.name)
            if value is None:
                if not p.optional:
                    return Rejection(text, cm.name, cm.decl.cite, f"{cm.name} needs its argument {p.name!r}")
                continue
            if not self._kind_ok(st, p.kind, value):
                kind = p.kind.replace("_", " ")
                return Rejection(text, cm.name, cm.decl.cite, f"argument {p.name!r} must be a {kind}")
        return None

    @staticmethod
    def _kind_ok(st: State, kind: str, value: Any) -> bool:
        if kind in SLOT_KINDS:
            return (isinstance(value, tuple) and len(value) == 2 and 0 <= value[0] < len(st.names)
                    and isinstance(value[1], int) and value[1] >= 1)
        if kind == "player":
            return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(st.names)
        return isinstance(value, bool)

    def _env(self, st: State, cm: CompiledMove, move: Move) -> dict[str, Any]:
        env: dict[str, Any] = {"actor": move.player, "source": st.pending[0][1] if cm.decl.is_ability else None}
        for p in cm.decl.params:
            env[p.name] = move.arg(p.name)
        return env

    def _check_guards(self, ctx: Ctx, cm: CompiledMove, text: str, player: int) -> Rejection | None:
        if cm.by is not None and not cm.by(ctx):
            reason = cm.decl.by_reason or f"{ctx.st.names[player]} may not make this move now"
            return Rejection(text, cm.name, cm.decl.cite, reason)
        for fn, req in cm.fixed_reqs:
            if not fn(ctx):
                return Rejection(text, cm.name, req.cite, req.reason)
        for fn, req in cm.param_reqs:
            if not fn(ctx):
                return Rejection(text, cm.name, req.cite, req.reason)
        return None

    def is_legal(self, st: State, move: Move) -> bool:
        return self.check(st, move) is None

    # ------------------------------------------------------------ applying
    def push(self, st: State, move: Move, log: bool = True) -> list[Event]:
        """Apply a legal move in place and return its events; raise IllegalMove, state untouched."""
        rejection = self.check(st, move)
        if rejection is not None:
            raise IllegalMove(rejection)
        return self._run(st, move, log)

    def push_generated(self, st: State, move: Move) -> None:
        """Apply a move that `random_move` or `legal_moves` just produced for this very state,
        without logging: generation already checked every guard, so it is not checked twice."""
        self._run(st, move, False)

    def apply(self, st: State, move: Move) -> tuple[State, list[Event]] | Rejection:
        """The new state and the events, or the rejection (the given state is never changed)."""
        rejection = self.check(st, move)
        if rejection is not None:
            return rejection
        new = st.copy()
        return new, self._run(new, move, True)

    def _run(self, st: State, move: Move, log: bool) -> list[Event]:
        cm = self.moves[move.name]
        events: list[Event] | None = [] if log else None
        env = self._env(st, cm, move)
        if cm.decl.is_ability:
            st.pending.pop(0)
        if events is not None:
            events.append(Event(cm.name, cm.decl.cite, self.describe(st, move)))
        cm.body(Ctx(st, env, events, self))
        self._settle(st, events)
        return events or []

    def _settle(self, st: State, log: list[Event] | None) -> None:
        """Run waiting abilities that need no choice; drop those with no legal choice (no effect)."""
        while st.pending:
            ability, card, owner = st.pending[0]
            cm = self.moves[ability]
            possible = self._fixed_guards_hold(st, cm, owner)
            if possible and cm.decl.params and self._first_legal(st, owner, cm) is not None:
                return
            st.pending.pop(0)
            if not possible or cm.decl.params:
                if log is not None:
                    log.append(Event(ability, cm.decl.cite, f"the ability '{ability}' of {self.facts.label(card)} "
                                     "has no legal choice and has no effect"))
                continue
            env = {"actor": owner, "source": card}
            if log is not None:
                log.append(Event(ability, cm.decl.cite,
                                 f"{st.names[owner]} uses '{ability}' of {self.facts.label(card)}"))
            cm.body(Ctx(st, env, log, self))

    # ------------------------------------------------------------ generation
    def domain(self, st: State, kind: str, actor: int) -> list[Any]:
        if kind == "slot":
            return [sl for p in range(len(st.names)) for sl in st.occupied_slots(p)]
        if kind == "own_slot":
            return st.occupied_slots(actor)
        if kind == "free_slot":
            return st.free_slots(actor)
        if kind == "player":
            return list(range(len(st.names)))
        return [False, True]

    def _domains(self, st: State, cm: CompiledMove, actor: int) -> list[list[Any]]:
        out = []
        for p in cm.decl.params:
            values = self.domain(st, p.kind, actor)
            out.append(([None, *values]) if p.optional else values)
        return out

    def _candidates(self, st: State, player: int) -> list[CompiledMove]:
        """Moves whose player-level guards hold (before choosing arguments)."""
        if st.pending:
            ability, _, owner = st.pending[0]
            cm = self.moves[ability]
            return [cm] if owner == player and self._fixed_guards_hold(st, cm, player) else []
        out = []
        ctx: Ctx | None = None
        window = st.window
        if player == st.active:
            moves = self._by_phase.get(st.phase, self._unphased)
        else:
            moves = self._by_phase_others.get(st.phase, self._unphased_others)
        for cm in moves:
            if cm.needs_window and window is None:
                continue
            if ctx is None:
                ctx = Ctx(st, {"actor": player, "source": None}, None, self)
            ctx.env.update(cm.no_args)
            if cm.by is not None and not cm.by(ctx):
                continue
            for fn, _ in cm.fixed_reqs:
                if not fn(ctx):
                    break
            else:
                out.append(cm)
        return out

    def _fixed_guards_hold(self, st: State, cm: CompiledMove, player: int) -> bool:
        """The guards of a move that read no argument (its `by` included)."""
        env: dict[str, Any] = {"actor": player, "source": st.pending[0][1] if cm.decl.is_ability else None}
        env.update(cm.no_args)
        ctx = Ctx(st, env, None, self)
        return (cm.by is None or bool(cm.by(ctx))) and all(fn(ctx) for fn, _ in cm.fixed_reqs)

    def _legal_with(self, st: State, cm: CompiledMove, player: int, values: tuple[Any, ...]) -> bool:
        env: dict[str, Any] = {"actor": player, "source": st.pending[0][1] if cm.decl.is_ability else None}
        for p, v in zip(cm.decl.params, values, strict=True):
            env[p.name] = v
        ctx = Ctx(st, env, None, self)
        return all(fn(ctx) for fn, _ in cm.param_reqs)

    def _first_legal(self, st: State, player: int, cm: CompiledMove) -> Move | None:
        for move in self._moves_of(st, player, cm):
            return move
        return None

    def _moves_of(self, st: State, player: int, cm: CompiledMove) -> Iterator[Move]:
        names = [p.name for p in cm.decl.params]
        for values in itertools.product(*self._domains(st, cm, player)):
            if self._legal_with(st, cm, player, values):
                yield Move(player, cm.name, tuple(zip(names, values, strict=True)))

    def legal_moves(self, st: State, player: int | None = None) -> Iterator[Move]:
        """Every legal move now, lazily; out-of-turn moves included."""
        players = range(len(st.names)) if player is None else (player,)
        for p in players:
            for cm in self._candidates(st, p):
                yield from self._moves_of(st, p, cm)

    def movers(self, st: State) -> list[int]:
        """Who may act now (the active player and anyone with an out-of-turn move)."""
        return [p for p in range(len(st.names)) if any(True for _ in self.legal_moves(st, p))]

    def random_move(self, st: State, rng: random.Random, tries: int = 6) -> Move | None:
        """A random legal move without listing all: sample arguments, enumerate only as a fallback."""
        pairs = [(p, cm) for p in range(len(st.names)) for cm in self._candidates(st, p)]
        rng.shuffle(pairs)
        for player, cm in pairs:
            domains = self._domains(st, cm, player)
            if any(not d for d in domains):
                continue
            names = [p.name for p in cm.decl.params]
            for _ in range(tries):
                values = tuple(rng.choice(d) for d in domains)
                if self._legal_with(st, cm, player, values):
                    return Move(player, cm.name, tuple(zip(names, values, strict=True)))
            found = self._first_legal(st, player, cm)
            if found is not None:
                return found
        return None

    # ------------------------------------------------------------ queries
    def evaluate(self, st: State, expr: Fn, env: dict[str, Any] | None = None) -> Any:
        return expr(Ctx(st, dict(env or {}), None, self))

    def define_value(self, st: State, name: str, *args: Any) -> Any:
        decl = self.rules.defines[name]
        env = {f.name: a for f, a in zip(decl.formals or (), args, strict=True)}
        return self.define_fns[name](Ctx(st, env, None, self))


def _phase_guard(cond: s.Expr) -> frozenset[str] | None:
    """The phases a guard `phase == "a"` (or `... or phase == "b"`) admits; None if not of that form."""
    if isinstance(cond, s.Binary) and cond.op == "or":
        left, right = _phase_guard(cond.left), _phase_guard(cond.right)
        return left | right if left is not None and right is not None else None
    if isinstance(cond, s.Binary) and cond.op == "==" and isinstance(cond.left, s.Name) \
            and cond.left.name == "phase" and isinstance(cond.right, s.Lit) and isinstance(cond.right.value, str):
        return frozenset({cond.right.value})
    return None


def _phase_names(rules: Ruleset) -> frozenset[str]:
    """Every phase the rules name, in guards or in `set phase = ...`."""
    found: set[str] = set()
    stack: list[object] = [d for f in rules.files for d in f.decls]
    while stack:
        node = stack.pop()
        if isinstance(node, s.SetVar) and node.name == "phase":
            value = node.value
            if isinstance(value, s.Name) and value.name in rules.defines:
                value = rules.defines[value.name].body  # a named phase, like the one a turn begins in
            if isinstance(value, s.Lit):
                found.add(str(value.value))
        if isinstance(node, s.Binary) and isinstance(node.left, s.Name) and node.left.name == "phase" \
                and isinstance(node.right, s.Lit) and isinstance(node.right.value, str):
            found.add(node.right.value)
        if dataclasses.is_dataclass(node):
            for f in dataclasses.fields(node):
                value = getattr(node, f.name)
                stack.extend(value if isinstance(value, tuple) else (value,))
    return frozenset(found)


def _is_window_guard(cond: s.Expr) -> bool:
    return (isinstance(cond, s.Binary) and cond.op == "!=" and isinstance(cond.left, s.Name)
            and cond.left.name == "window_ref" and isinstance(cond.right, s.Lit) and cond.right.value is None)


def _is_actor_active(cond: s.Expr) -> bool:
    return (isinstance(cond, s.Binary) and cond.op == "==" and isinstance(cond.left, s.Name)
            and isinstance(cond.right, s.Name) and {cond.left.name, cond.right.name} == {"actor", "active"})


def _runs(body: tuple[s.Stmt, ...]) -> set[str]:
    """Routines a block runs, in any branch or loop."""
    out: set[str] = set()
    stack: list[s.Stmt] = list(body)
    while stack:
        stmt = stack.pop()
        if isinstance(stmt, s.Run):
            out.add(stmt.routine)
        elif isinstance(stmt, s.IfStmt):
            stack.extend(stmt.then + stmt.other)
        elif isinstance(stmt, (s.ForEach, s.Repeat)):
            stack.extend(stmt.body)
    return out


def _called(expr: s.Expr) -> set[str]:
    """Functions an expression calls by name."""
    out: set[str] = set()
    stack: list[object] = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, s.Call):
            out.add(node.func)
        if isinstance(node, s.Expr):
            for value in vars(node).values():
                if isinstance(value, tuple):
                    stack.extend(value)
                elif isinstance(value, s.Expr):
                    stack.append(value)
    return out
