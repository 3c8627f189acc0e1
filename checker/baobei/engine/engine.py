"""The rules interpreter: who may act, legal moves, applying moves, rejecting illegal ones.

Everything BAO BEI-specific comes from the checked Ruleset; this module knows moves,
parameters, guards, halts, waiting abilities and hooks, nothing of the game itself.
Legality is checked completely before any effect runs, so a rejected move leaves
the state exactly as it was.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

from ..language import syntax as s
from ..language.builtins import TRANSITION_NAMES
from ..language.check import Checker
from ..language.errors import BaoError, EngineError, IllegalMove, Rejection
from ..language.ruleset import Ruleset
from ..language.walk import walk_stmts
from ..language.words import plural
from .compiler import Compiler
from .effects import Effects
from .legality import CompiledMove, Legality, compile_move
from .move import Move
from .notation import move_text
from .protection import ChangeTargets, Protection, owner_pattern
from .runtime import Ctx, Event, Fn, Origin, Proc
from .state import CardFacts, PileLoc, State, Waiting

# The one name a transition invariant has bound: the player who made the move.
TRANSITION_ACTOR, TRANSITION_ABILITY, TRANSITION_SOURCE = TRANSITION_NAMES


class Engine(Legality):
    """Compiles a ruleset once; then plays any number of states with it."""

    def __init__(self, rules: Ruleset) -> None:
        self.rules = rules
        self.facts = CardFacts(rules)
        self.pile_names = list(rules.piles)
        self.pile_index = {name: i for i, name in enumerate(self.pile_names)}
        self.pile_locs = [PileLoc(i, name) for i, name in enumerate(self.pile_names)]
        self.effects = Effects(self)
        self.define_fns: dict[str, Callable[..., Any]] = {}  # (state, *arguments) -> value
        self.routine_procs: dict[str, Proc] = {}
        self.hook_procs: dict[str, Proc] = {}
        self.moves: dict[str, CompiledMove] = {}
        self.var_inits: dict[str, Fn] = {}
        self.invariant_fns: dict[str, tuple[Fn | None, Fn]] = {}  # state invariants
        self.transition_fns: dict[str, tuple[Fn | None, Fn]] = {}  # invariants that read old(...)
        self.progress_fns: list[tuple[Fn | None, s.ProgressDecl]] = []
        self.halts: list[tuple[Fn, s.HaltDecl]] = []
        self.order_fn: Fn | None = None
        self.phases = frozenset(rules.phase_names)
        self._compile()
        changed = self.rules.hooks.get("changed")
        # The hook `_body` calls after a rule changed a tableau, with the names of its formals.
        self._changed = None if changed is None else (self.hook_procs["changed"], [f.name for f in changed.formals])
        super().__init__()

    # ------------------------------------------------------------ compilation
    def _compile(self) -> None:
        comp = Compiler(self.rules, self.effects, self.define_fns, self.routine_procs)
        self.unit = comp.unit
        none: frozenset[str] = frozenset()
        for d in self.rules.defines.values():
            self.define_fns[d.name] = comp.define(d)
        for v in self.rules.variables.values():
            self.var_inits[v.name] = comp.expr(v.init, none)
        for r in self.rules.routines.values():
            scope = frozenset(f.name for f in r.formals) | {"actor"}
            self.routine_procs[r.name] = comp.block(r.body, scope, Origin(r.name, r.cite))
        for h in self.rules.hooks.values():
            scope = frozenset(f.name for f in h.formals) | {"actor"}
            self.hook_procs[h.name] = comp.block(h.body, scope, Origin(f"on {h.name}", h.cite))
        self.protections = [self._protection(comp, p) for p in self.rules.protects.values()]
        self.effects.protections = self.protections
        targets = ChangeTargets(self.rules)
        for m in self.rules.moves.values():
            window_move = any(isinstance(st, s.UseWindow) for st in walk_stmts(m.body))
            self.moves[m.name] = compile_move(comp, m, window_move, self.protections, targets.of_move(m))
        for inv in self.rules.invariants.values():
            scope = frozenset(TRANSITION_NAMES) if inv.two_state else none
            when = comp.expr(inv.when, scope) if inv.when is not None else None
            fns = self.transition_fns if inv.two_state else self.invariant_fns
            fns[inv.ident] = (when, comp.expr(inv.holds, scope))
        self.progress_fns = [(comp.expr(p.when, none) if p.when is not None else None, p)
                             for p in self.rules.progress.values()]
        self.halts = [(comp.expr(h.when, none), h) for h in self.rules.halts.values()]
        if self.rules.simultaneous is not None:
            self.order_fn = comp.expr(self.rules.simultaneous.order, none)

    @staticmethod
    def _protection(comp: Compiler, decl: s.ProtectDecl) -> Protection:
        when = comp.function((decl.when,), (decl.owner,))
        pattern = owner_pattern(decl)
        if pattern is None:
            return Protection(decl, when)
        only, rest = pattern
        return Protection(decl, when, comp.function((only,), ()), comp.function((rest,), (decl.owner,)))

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
        if vtype in ("players", "cards") or vtype.startswith("list "):
            item = vtype.removeprefix("list ") if vtype.startswith("list ") else vtype[:-1]
            return "[" + ", ".join(self.format_value(st, item, v) for v in value) + "]"
        if isinstance(value, tuple):
            return self.slot_label(st, value)
        return str(value).lower() if isinstance(value, bool) else f"{value}"

    def describe(self, st: State, move: Move) -> str:
        """The move's canonical text, e.g. `alice pluck target=bob.2 gift=alice.1` (see notation.py)."""
        return move_text(self.rules.moves, st, move)

    # ------------------------------------------------------------ states
    def blank_state(self, names: list[str], seed: int | None) -> State:
        """A state with every variable at its initial value and every card in the box."""
        self.check_player_count(len(names))
        if len(set(names)) != len(names):
            raise BaoError(f"player names must differ: {', '.join(names)}")
        st = State(list(names), self.facts, self.pile_locs, seed)
        ctx = Ctx(st, {}, None)
        for v in self.rules.variables.values():
            if v.per_player:
                st.pvars[v.name] = [self.var_inits[v.name](ctx) for _ in names]
            else:
                st.vars[v.name] = self.var_inits[v.name](ctx)
        return st

    def check_player_count(self, n: int) -> None:
        lo, hi = self.rules.min_players, self.rules.max_players
        if not lo <= n <= hi:
            raise BaoError(f"{plural(n, 'player')}: these rules allow {lo} to {hi} players ({self.rules.players_cite})")
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

    def start_round(self, st: State, log: list[Event] | None, players: Any = None) -> None:
        """A new round among `players` (a list of seats, or a rules value listing them; every seat when None)."""
        fx = self.effects
        fx.seat(st, players)
        fx.next_round(st)
        ctx = self.new_ctx(st, {"actor": None}, log)
        for v in self.rules.variables.values():
            if not v.whole_match:
                fx.reset_var(st, v, self.var_inits[v.name], ctx)
        fx.clear_round(st)
        if log is not None:
            among = "" if players is None else " among " + ", ".join(st.names[p] for p in st.seated())
            log.append(Event("round", self.rules.hooks["round_start"].cite, f"round {st.round} begins{among}"))
        self.run_hook("round_start", ctx, ())
        self.refresh_protection(st)
        self.settle(st, log)

    def run_hook(self, name: str, ctx: Ctx, args: tuple[Any, ...]) -> None:
        hook = self.rules.hooks.get(name)
        if hook is None:
            return  # an optional hook the rules do not declare
        env: dict[str, Any] = {"actor": ctx.env.get("actor")}
        for formal, value in zip(hook.formals, args, strict=True):
            env[formal.name] = value
        self.hook_procs[name](ctx.derive(env))

    def state_to_json(self, st: State) -> str:
        return json.dumps(st.to_json(), sort_keys=True, separators=(",", ":"))

    def state_from_json(self, text: str) -> State:
        return State.from_json(json.loads(text), self.facts, self.pile_locs)

    # ------------------------------------------------------------ applying
    def push(self, st: State, move: Move, log: bool = True) -> list[Event]:
        """Apply a legal move in place and return its events; raise IllegalMove, state untouched."""
        rejection = self.check(st, move)
        if rejection is not None:
            raise IllegalMove(rejection)
        return self._run(st, move, log)

    def push_checked(self, st: State, move: Move, log: bool = True) -> list[Event]:
        """Apply a move that `check` just found legal in this very state (not checked twice)."""
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
        if events is not None:
            events.append(Event(cm.name, cm.decl.cite, self.describe(st, move)))
        self.perform(st, cm, move.player, move.args, events)
        return events or []

    def new_ctx(self, st: State, env: dict[str, Any], log: list[Event] | None, changed: bool = False) -> Ctx:
        """The context a rule runs in (the prover's engine gives its own); `changed`: record whose tableau
        the rule changes."""
        return Ctx(st, env, log, set() if changed else None)

    def perform(self, st: State, cm: CompiledMove, player: Any, args: tuple[tuple[str, Any], ...],
                log: list[Event] | None) -> None:
        """Make a move already found legal: an ability leaves the queue and starts, the body runs, then the
        waiting abilities that need no choice settle."""
        fx = self.effects
        if cm.decl.is_ability:
            env = self.env_for(st, cm, player, args)
            waiting = fx.dequeue(st)
            self._start_ability(st, waiting, log)
        elif cm.plain:  # env_for of a plain move, written out: this runs for every move
            env = cm.blank.copy()
            env["actor"] = player
            env.update(args)
        else:
            env = self.env_for(st, cm, player, args)
        if not cm.decl.is_ability and not cm.window_move and fx.anything_waits(st):
            self._judge_deferred(st, player, log)
        self._body(st, cm, env, log)
        if fx.anything_waits(st):  # most moves leave no ability waiting: nothing to settle
            self.settle(st, log)

    def _judge_deferred(self, st: State, player: Any, log: list[Event] | None) -> None:
        """The owner of an ability that waits for the window's calls, without a legal choice, goes on (ends the
        turn, calls BAO): the calls end with that step (A7), so the ability is judged now, before the step
        changes anything, and has no effect (the waiting rule let the owner go on only because it had none)."""
        fx = self.effects
        head = fx.head(st, None)
        if fx.same(st, player, head.owner) and self.deferred(st):
            fx.dequeue(st)
            self._drop(st, head, self.moves[head.ability], log)

    def _start_ability(self, st: State, waiting: Waiting, log: list[Event] | None) -> None:
        self.run_hook("ability_start", self.new_ctx(st, {"actor": waiting.owner}, log), (waiting.owner, waiting.card))

    def _body(self, st: State, cm: CompiledMove, env: dict[str, Any], log: list[Event] | None) -> None:
        """Run a move's or ability's effects, then tell the rules whose tableau they changed (`on changed`)."""
        fx = self.effects
        ctx = self.new_ctx(st, env, log, changed=True)
        if cm.decl.is_ability:
            ctx.marking = fx.ability_marks
        cm.body(ctx)
        if self._changed is not None:
            changed, formals = self._changed
            actor = env.get("actor")
            for owner, cond in fx.changed_owners(ctx):
                # As run_hook calls it, from a context of its own that records no changes.
                names = {"actor": actor}
                names.update(zip(formals, (owner, actor), strict=True))
                fx.when(ctx, cond, lambda names=names: changed(self.new_ctx(st, names, log)))  # type: ignore[misc]
        self.refresh_protection(st)

    def refresh_protection(self, st: State) -> None:
        """Evaluate the rules' protections once the action is complete (they hold from the next action on)."""
        if self.protections:
            self.effects.protect(st)

    def settle(self, st: State, log: list[Event] | None) -> None:
        """Run waiting abilities that need no choice; drop those with no legal choice (the `no choice` rule)."""
        self.effects.until_settled(st, lambda: self._settle_step(st, log))

    def _settle_step(self, st: State, log: list[Event] | None) -> bool:
        """One step of settling; false once the first waiting ability waits for a choice or a window."""
        fx = self.effects
        if not fx.anything_waits(st):
            return False
        waiting = fx.head(st, None)
        cm = self.moves[waiting.ability]
        if waiting.after_window and fx.window_callable(st):
            return False  # its owner uses it (closing the window), or it is judged once the window's calls end
        possible = self.has_choice(st, waiting.owner, cm)
        if possible and cm.decl.params:
            return False
        fx.dequeue(st)
        if not possible:
            self._drop(st, waiting, cm, log)
            return True
        if log is not None:
            log.append(Event(cm.name, cm.decl.cite,
                             f"{st.names[waiting.owner]} uses '{cm.name}' of {self.facts.label(waiting.card)}",
                             cards=((self.facts.label(waiting.card), st.known[waiting.card]),)))
        self._start_ability(st, waiting, log)
        self._body(st, cm, self.env_for(st, cm, waiting.owner, (), waiting), log)
        return True

    def _drop(self, st: State, waiting: Waiting, cm: CompiledMove, log: list[Event] | None) -> None:
        rule = self.rules.no_choice
        if rule is None:
            raise EngineError(f"the ability '{cm.name}' of {self.facts.label(waiting.card)} has no legal choice, "
                              "and the rules do not say what happens then (declare `no choice ...`)")
        self.effects.lapsed(st, waiting.card)
        if log is not None:
            log.append(Event("no choice", rule.cite, f"the ability '{cm.name}' of {self.facts.label(waiting.card)} "
                             f"has no legal choice: {rule.text[0].lower()}{rule.text[1:]}",
                             cards=((self.facts.label(waiting.card), st.known[waiting.card]),)))

    # ------------------------------------------------------------ queries
    def compile_expr(self, node: s.Expr, names: dict[str, str], two_state: bool = False) -> Fn:
        """Check and compile an expression written outside the rules (a scenario's probe); `names`
        gives the kinds of the names bound for it. `two_state`: it may read `old(...)`, and is then
        evaluated with `evaluate_move`."""
        checker = Checker(self.rules)
        checker.in_invariant = two_state
        checker.visit(node, names)
        comp = Compiler(self.rules, self.effects, self.define_fns, self.routine_procs)
        return comp.expr(node, frozenset(names))

    def evaluate(self, st: State, expr: Fn, env: dict[str, Any] | None = None) -> Any:
        return expr(Ctx(st, dict(env or {}), None))

    def evaluate_move(self, before: State, after: State, expr: Fn, env: dict[str, Any] | None = None) -> Any:
        """A two-state expression (compiled with `two_state`) over a move: `old(...)` reads `before`."""
        ctx = Ctx(after, dict(env or {}), None)
        ctx.before = Ctx(before, ctx.env, None)
        return expr(ctx)

    def define_value(self, st: State, name: str, *args: Any) -> Any:
        decl = self.rules.defines[name]
        if len(args) != len(decl.formals or ()):
            raise ValueError(f"{name!r} takes {len(decl.formals or ())} argument(s), not {len(args)}")
        return self.define_fns[name](st, *args)

    def call_order(self, st: State) -> list[int] | None:
        """The rules' order of simultaneous calls in this state (None when the rules declare none)."""
        if self.order_fn is None:
            return None
        return list(self.evaluate(st, self.order_fn) or [])

    # ------------------------------------------------------------ properties
    def broken_invariants(self, st: State) -> Iterator[s.InvariantDecl]:
        """The state invariants that do not hold in `st`, in declaration order (transition invariants
        need a move and are not among them)."""
        ctx = Ctx(st, {}, None)  # one context for all: evaluating an expression binds no name in it
        for ident, (when, holds) in self.invariant_fns.items():
            if (when is None or when(ctx)) and not holds(ctx):
                yield self.rules.invariants[ident]

    def broken_invariant(self, st: State) -> s.InvariantDecl | None:
        return next(self.broken_invariants(st), None)

    def broken_transitions(self, before: State, after: State, move: Move | None) -> Iterator[s.InvariantDecl]:
        """The transition invariants that `move` from `before` to `after` breaks (`after` as the move left
        it, every ability that needed no choice run)."""
        ctx = Ctx(after, self.transition_env(before, move), None)  # one for all: evaluating binds no name in it
        ctx.before = Ctx(before, ctx.env, None)
        for ident, (when, holds) in self.transition_fns.items():
            if (when is None or when(ctx)) and not holds(ctx):
                yield self.rules.invariants[ident]

    def transition_env(self, before: State, move: Move | None) -> dict[str, Any]:
        """The names a transition invariant reads about a move from `before` (language/builtins.py's
        TRANSITION_NAMES): who made it, whether it was an ability or a step of one, and the card whose ability
        it was, the first waiting one (none for any other move)."""
        cm = self.moves.get(move.name) if move is not None else None
        ability = cm is not None and cm.decl.is_ability
        source = self.effects.head(before, cm.name).card if cm is not None and ability and before.waiting else None
        return {TRANSITION_ACTOR: move.player if move is not None else None, TRANSITION_ABILITY: ability,
                TRANSITION_SOURCE: source}

    def transition_failure(self, before: State, after: State, move: Move | None) -> str | None:
        """The first transition invariant that `move` from `before` to `after` breaks, in words."""
        inv = next(self.broken_transitions(before, after, move), None)
        return None if inv is None else invariant_message(inv)

    def deadlocks(self, st: State, nobody_acts: Callable[[], bool] | None = None) -> Iterator[s.ProgressDecl]:
        """The progress properties that `st` breaks: the condition holds and nobody has a legal move.
        `nobody_acts`: whether nobody has a legal move in `st`, when the caller knows it more cheaply (a
        dealer that lists who may act anyway)."""
        stuck: bool | None = None  # looked up once, and only when a condition holds
        for when, decl in self.progress_fns:
            if when is not None and not self.evaluate(st, when):
                continue
            if stuck is None:
                stuck = nobody_acts() if nobody_acts is not None else self.first_move(st) is None
            if stuck:
                yield decl

    def deadlock(self, st: State) -> s.ProgressDecl | None:
        return next(self.deadlocks(st), None)


def invariant_message(inv: s.InvariantDecl) -> str:
    return f"invariant {inv.ident} ({inv.cite}) is violated: {inv.text}"


def progress_message(decl: s.ProgressDecl) -> str:
    return f"progress {decl.ident} ({decl.cite}) is violated: {decl.text}; nobody has a legal move"

