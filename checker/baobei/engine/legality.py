"""Legality and move generation, apart from applying moves.

A move is legal when no halt of the rules forbids it, the waiting abilities let
its player act, its arguments have the declared kinds and every guard holds
(`by`, then the guards that read no argument, then the others, in declaration
order: the first that fails is the rejection's rule and reason).

Generation chooses arguments one at a time and checks each guard as soon as the
arguments it reads are known, so a move with several slot arguments never
enumerates their full product. Random play samples uniformly over all legal
moves: rejection sampling over the argument domains (each accepted sample is
uniform), with full enumeration as the fallback (uniform too).
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from ..language import syntax as s
from ..language.errors import Rejection
from ..language.walk import free_names, move_phases, phase_guard
from .compiler import Compiler
from .move import Move
from .protection import Protection, protection_against, tableau_of
from .runtime import Ctx, Fn, Origin, Proc
from .state import State, Waiting

if TYPE_CHECKING:
    from ..language.ruleset import Ruleset
    from .state import CardFacts

SLOT_KINDS = ("slot", "own_slot", "free_slot")
SAMPLING_TRIES = 64  # rejections before listing every legal move: rare at acceptance rates above a few percent


@dataclasses.dataclass
class CompiledMove:
    decl: s.MoveDecl
    by: Fn | None
    fixed: list[tuple[Fn, s.Require]]  # guards that read no argument
    dependent: list[tuple[Fn, s.Require]]  # guards that read an argument, in declaration order
    levels: list[list[Fn]]  # levels[i]: the guards decided once arguments 0..i are chosen
    body: Proc
    phases: frozenset[str] | None  # the phases a `phase == "..."` guard allows (None: any)
    active_only: bool  # `by actor == active`
    needs_window: bool  # `require window_ref != none`: skipped at once while no window is open
    needs_attempt: bool  # `require not window_used`: skipped at once while the window has no attempt left
    window_move: bool  # its body uses a window: allowed while an ability waits for the window's calls
    no_args: dict[str, None]
    arg_kinds: list[tuple[str, int]] = dataclasses.field(default_factory=list)  # (kind, 1 if optional) per argument

    @property
    def name(self) -> str:
        return self.decl.name


    def player_level(self, ctx: Ctx) -> bool:
        """Whether `by` and the guards that read no argument hold."""
        by = self.by
        if by is not None and not by(ctx):
            return False
        for fn, _ in self.fixed:  # noqa: SIM110 -- a plain loop: this runs for every candidate move
            if not fn(ctx):
                return False
        return True


def compile_move(comp: Compiler, m: s.MoveDecl, window_move: bool, protections: list[Protection],
                 targets: frozenset[str]) -> CompiledMove:
    params = [p.name for p in m.params]
    scope = frozenset([*params, *(f.name for f in m.formals), "actor", "source"])
    fixed: list[tuple[Fn, s.Require]] = []
    dependent: list[tuple[Fn, s.Require]] = []
    levels: list[list[Fn]] = [[] for _ in params]
    for req in m.requires:
        fn = comp.expr(req.cond, scope)
        read = [i for i, name in enumerate(params) if name in free_names(req.cond)]
        if read:
            dependent.append((fn, req))
            levels[max(read)].append(fn)
        else:
            fixed.append((fn, req))
    held = [i for i, p in enumerate(m.params) if p.kind == "held_card"]
    for i in held:
        # Held cards of one species are interchangeable: generation names them in the order held, as the
        # move notation reads them, so a move and its text stay one and the same.
        levels[i].append(_first_of_species(params, held, i))
    for i, name in enumerate(params):
        if name in targets:
            for protection in protections:
                guard = (_unprotected(name, protection, protections), _protect_require(protection))
                dependent.append(guard)
                levels[i].append(guard[0])
    by = comp.expr(m.by, scope) if m.by is not None else None
    body = comp.block(m.body, scope, Origin(m.name, m.cite))
    phases = move_phases(m)
    return CompiledMove(m, by, fixed, dependent, levels, body, phases,
                        m.by is not None and _is_actor_active(m.by),
                        any(_is_window_guard(req.cond) for req in m.requires),
                        any(_is_attempt_guard(req.cond) for req in m.requires), window_move, dict.fromkeys(params),
                        [(p.kind, int(p.optional)) for p in m.params])


class Legality:
    """The legality half of the engine (mixed into Engine, which provides the attributes below)."""

    rules: Ruleset
    facts: CardFacts
    moves: dict[str, CompiledMove]
    halts: list[tuple[Fn, s.HaltDecl]]

    def __init__(self) -> None:
        players = [cm for cm in self.moves.values() if not cm.decl.is_ability]
        self._unphased = [cm for cm in players if cm.phases is None]
        # Per phase, the moves worth trying: those guarded by that phase, then the unguarded ones.
        self._by_phase: dict[str, list[CompiledMove]] = {}
        for cm in players:
            for phase in cm.phases or ():
                self._by_phase.setdefault(phase, []).append(cm)
        for moves in self._by_phase.values():
            moves.extend(self._unphased)
        # The same lists for a player who is not the active one: moves only the active player makes drop out.
        self._by_phase_others = {phase: [cm for cm in moves if not cm.active_only]
                                 for phase, moves in self._by_phase.items()}
        self._unphased_others = [cm for cm in self._unphased if not cm.active_only]
        self._halts = [(when, decl, phase_guard(_first_conjunct(decl.when))) for when, decl in self.halts]
        # The moves others may make with no window open: while there are none, only the active player acts.
        self._others_without_window = {phase: [cm for cm in moves if not cm.needs_window]
                                       for phase, moves in self._by_phase_others.items()}
        self._unphased_without_window = [cm for cm in self._unphased_others if not cm.needs_window]
        # Moves that call on a window: they stay open to the window's players while an ability waits for it.
        self._window_moves = [cm for cm in players if cm.window_move]

    def describe(self, st: State, move: Move) -> str:
        raise NotImplementedError

    # ------------------------------------------------------------ checking one move
    def check(self, st: State, move: Move) -> Rejection | None:
        """Why `move` is illegal now, or None. Pure: reads the state only."""
        rejection = self._find_rejection(st, move)
        if rejection is None:
            return None
        # The move's text is made only for a rejection: generation checks many legal moves.
        return dataclasses.replace(rejection, move=self.describe(st, move))

    def is_legal(self, st: State, move: Move) -> bool:
        return self.check(st, move) is None

    def _find_rejection(self, st: State, move: Move) -> Rejection | None:
        cm = self.moves.get(move.name)
        if cm is None:
            return Rejection("", move.name, s.Citation("?"), f"there is no move {move.name!r} in these rules")
        if not 0 <= move.player < len(st.names):
            return Rejection("", move.name, cm.decl.cite, "no such player")
        halt = self.halt(st)
        if halt is not None and move.name not in halt.allow:
            return Rejection("", f"halt {halt.name}", halt.cite, halt.text)
        gate = self._waiting_gate(st, cm, move.player)
        if gate is not None:
            return gate
        bad = self._check_args(st, cm, move)
        if bad is not None:
            return bad
        env = self.env_for(st, cm, move.player, move.args)
        rejection = self._check_guards(Ctx(st, env, None), cm, move.player)
        if rejection is None:
            decl = self.blocked_step(st, cm, env)
            if decl is not None:
                return Rejection("", f"protect {decl.name}", decl.cite, decl.text[0].lower() + decl.text[1:])
        return rejection

    def blocked_step(self, st: State, cm: CompiledMove, env: dict[str, Any]) -> s.ProtectDecl | None:
        """A step of an ability works with values chosen before it (two cards looked at, say): when its
        choice would change a protected tableau, a trial run on a copy says so, and the choice is refused
        as the same change chosen directly would be."""
        if not (cm.decl.is_step and st.protected):
            return None
        trial = Ctx(st.copy(), dict(env), None, set())
        trial.blocked = []
        trial.marking = 0
        cm.body(trial)
        return trial.blocked[0] if trial.blocked else None

    def halt(self, st: State) -> s.HaltDecl | None:
        """The first halt of the rules that holds now (while it holds only its allowed moves are legal)."""
        ctx: Ctx | None = None
        for when, decl, phases in self._halts:
            if phases is not None and st.phase not in phases:
                continue  # a halt that names its phases cannot hold in another one
            ctx = ctx or Ctx(st, {}, None)
            if when(ctx):
                return decl
        return None

    def window_callable(self, st: State) -> bool:
        return bool(st.windows) and st.windows[-1].attempts > 0

    def deferred(self, st: State) -> bool:
        """The first waiting ability waits for an open window's calls and has no legal choice now. It is
        judged only when the window closes (a call may change what it can do), so until then it does not
        hold up its owner."""
        if not st.waiting:
            return False
        first = st.waiting[0]
        return first.after_window and self.window_callable(st) and \
            self.first_legal(st, first.owner, self.moves[first.ability]) is None

    def _waiting_gate(self, st: State, cm: CompiledMove, player: int) -> Rejection | None:
        """While an ability waits, only its owner may act, by using it (the rules' waiting rule); an ability
        that waits for a window's calls lets the window's players call first."""
        if st.waiting:
            first = st.waiting[0]
            if cm.name == first.ability and player == first.owner:
                return None
            if first.after_window and cm.window_move and self.window_callable(st):
                return None
            if player == first.owner and self.deferred(st):
                return None  # its ability is not judged yet and has no choice now: the owner goes on
            waiting = self.rules.waiting
            cite = waiting.cite if waiting is not None else self.rules.moves[first.ability].cite
            rule = "waiting" if waiting is not None else first.ability
            return Rejection("", rule, cite, f"{st.names[first.owner]} must first use '{first.ability}' of "
                             f"{self.facts.label(first.card)}" + (f": {waiting.text.lower()}" if waiting else ""))
        if cm.decl.is_ability:
            return Rejection("", cm.name, cm.decl.cite, f"no '{cm.name}' is waiting to be used")
        return None

    def _check_args(self, st: State, cm: CompiledMove, move: Move) -> Rejection | None:
        names = {p.name for p in cm.decl.params}
        for key, _ in move.args:
            if key not in names:
                return Rejection("", cm.name, cm.decl.cite, f"{cm.name} takes no argument {key!r}"
                                 f" (it takes: {', '.join(sorted(names)) or 'none'})")
        for p in cm.decl.params:
            value = move.arg(p.name)
            if value is None:
                if not p.optional:
                    return Rejection("", cm.name, cm.decl.cite, f"{cm.name} needs its argument {p.name!r}")
                continue
            if not _kind_ok(st, p.kind, value):
                return Rejection("", cm.name, cm.decl.cite, f"argument {p.name!r} must be a {p.kind.replace('_', ' ')}")
        return None

    def env_for(self, st: State, cm: CompiledMove, player: int, args: tuple[tuple[str, Any], ...],
                waiting: Waiting | None = None) -> dict[str, Any]:
        """The names a move's guards and body see: actor, source, a step's values, the arguments."""
        if not cm.decl.is_ability:
            env = {"actor": player, "source": None, **cm.no_args}
            if args:
                env.update(args)
            return env
        env = {"actor": player, "source": None}
        if cm.decl.is_ability:
            entry = waiting or (st.waiting[0] if st.waiting else None)
            if entry is not None:
                env["source"] = entry.card
                env.update(zip((f.name for f in cm.decl.formals), entry.args, strict=False))
        env.update(cm.no_args)
        env.update(args)
        return env

    def _check_guards(self, ctx: Ctx, cm: CompiledMove, player: int) -> Rejection | None:
        if cm.by is not None and not cm.by(ctx):
            reason = cm.decl.by_reason or f"{ctx.st.names[player]} may not make this move now"
            return Rejection("", cm.name, cm.decl.cite, reason)
        for fn, req in cm.fixed:
            if not fn(ctx):
                return Rejection("", cm.name, req.cite, req.reason)
        for fn, req in cm.dependent:
            if not fn(ctx):
                return Rejection("", cm.name, req.cite, req.reason)
        return None

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
        if kind == "held_card":
            return list(st.hands[actor])
        return [False, True]

    def _domains(self, st: State, cm: CompiledMove, actor: int,
                  cache: dict[tuple[str, int, bool], list[Any]] | None = None) -> list[list[Any]]:
        """The values each argument may take; `cache` shares them between the moves of one state."""
        out = []
        for p in cm.decl.params:
            key = (p.kind, actor if p.kind != "slot" else -1, p.optional)
            values = cache.get(key) if cache is not None else None
            if values is None:
                values = self.domain(st, p.kind, actor)
                if p.optional:
                    values = [None, *values]
                if cache is not None:
                    cache[key] = values
            out.append(values)
        return out

    def candidates(self, st: State, player: int, halt: s.HaltDecl | bool | None = False) -> list[CompiledMove]:
        """Moves whose player-level guards hold (before choosing arguments); `halt` may pass the
        state's halt when the caller already knows it."""
        if halt is False:
            halt = self.halt(st)
        assert not isinstance(halt, bool)
        return self._holding(st, player, self._options(st, player, halt))

    def _options(self, st: State, player: int, halt: s.HaltDecl | None) -> list[CompiledMove]:
        """The moves worth trying for a player, from the structure of the rules alone (no guard evaluated):
        the waiting ability or the window's calls, else the moves of the phase; minus what a halt forbids."""
        if st.waiting:
            first = st.waiting[0]
            moves = [self.moves[first.ability]] if first.owner == player else []
            if first.after_window and self.window_callable(st):
                moves = moves + self._window_moves
                if first.owner == player and self.deferred(st):
                    moves = moves + self._phase_moves(st, player)
        else:
            moves = self._phase_moves(st, player)
        if not moves:
            return moves
        windows, callable_window = bool(st.windows), self.window_callable(st)
        return [cm for cm in moves if (halt is None or cm.name in halt.allow)
                and (windows or not cm.needs_window) and (callable_window or not cm.needs_attempt)]

    def _phase_moves(self, st: State, player: int) -> list[CompiledMove]:
        if player == st.active:
            return self._by_phase.get(st.phase, self._unphased)
        return self._by_phase_others.get(st.phase, self._unphased_others)

    def _holding(self, st: State, player: int, moves: list[CompiledMove]) -> list[CompiledMove]:
        out = []
        for cm in moves:
            if cm.player_level(Ctx(st, self.env_for(st, cm, player, ()), None)):
                out.append(cm)
        return out

    def moves_of(self, st: State, player: int, cm: CompiledMove) -> Iterator[Move]:
        """Every legal move of one kind for one player: arguments one at a time, each guard checked
        as soon as the arguments it reads are chosen."""
        names = [p.name for p in cm.decl.params]
        domains = self._domains(st, cm, player)
        ctx = Ctx(st, self.env_for(st, cm, player, ()), None)
        env = ctx.env

        def extend(depth: int) -> Iterator[Move]:
            if depth == len(names):
                if self.blocked_step(st, cm, env) is None:
                    yield Move(player, cm.name, tuple((n, env[n]) for n in names))
                return
            for value in domains[depth]:
                env[names[depth]] = value
                if all(fn(ctx) for fn in cm.levels[depth]):
                    yield from extend(depth + 1)
            env[names[depth]] = None

        yield from extend(0)

    def generates(self, st: State, move: Move) -> bool:
        """Whether `legal_moves` would list this move, decided without listing the others."""
        cm = self.moves.get(move.name)
        if cm is None or not 0 <= move.player < len(st.names) or cm not in self.candidates(st, move.player):
            return False
        if {k for k, _ in move.args} - set(cm.no_args):
            return False
        ctx = Ctx(st, self.env_for(st, cm, move.player, ()), None)
        for p, domain, level in zip(cm.decl.params, self._domains(st, cm, move.player), cm.levels, strict=True):
            value = move.arg(p.name)
            if value not in domain:
                return False
            ctx.env[p.name] = value
            if not all(fn(ctx) for fn in level):
                return False
        return self.blocked_step(st, cm, ctx.env) is None

    def first_legal(self, st: State, player: int, cm: CompiledMove) -> Move | None:
        if not cm.player_level(Ctx(st, self.env_for(st, cm, player, ()), None)):
            return None
        return next(self.moves_of(st, player, cm), None)

    def legal_moves(self, st: State, player: int | None = None) -> Iterator[Move]:
        """Every legal move now, lazily; out-of-turn moves included."""
        players = range(len(st.names)) if player is None else (player,)
        halt = self.halt(st)
        for p in players:
            for cm in self.candidates(st, p, halt):
                yield from self.moves_of(st, p, cm)

    def movers(self, st: State) -> list[int]:
        """Who may act now (the active player and anyone with an out-of-turn move)."""
        return [p for p in range(len(st.names)) if any(True for _ in self.legal_moves(st, p))]

    def random_move(self, st: State, rng: random.Random, tries: int = SAMPLING_TRIES,
                    player: int | None = None) -> Move | None:
        """A legal move chosen uniformly among all legal moves now (of `player` only, when given), or None
        when nobody (that player) may act.

        Rejection sampling over the argument domains of the moves worth trying: an option whose
        player-level guards fail is dropped when first drawn (it holds no legal move), so the proposal
        stays uniform over a superset of the legal moves and an accepted sample is uniform over them.
        After `tries` rejections every legal move is listed and one is chosen (uniform as well)."""
        halt = self.halt(st)
        options: list[tuple[int, CompiledMove]] = []
        weights: list[int] = []
        sizes: dict[tuple[str, int], int] = {}  # domain sizes, shared by the options of this state
        # Only the active player can act unless an ability waits, a window is open or the phase gives
        # the others moves of their own (the initial peek, say).
        others = st.waiting or st.windows or self._others_without_window.get(st.phase, self._unphased_without_window)
        for p in _seats(len(st.names), st.active, bool(others), player):
            for cm in self._options(st, p, halt):
                options.append((p, cm))
                weights.append(self._count(st, cm, p, sizes) if cm.arg_kinds else 1)
        total = sum(weights)
        checked: dict[int, list[list[Any]]] = {}  # options whose player-level guards hold: their domains
        cache: dict[tuple[str, int, bool], list[Any]] = {}
        rejections = 0
        while total and rejections < tries:
            i = _pick_weighted(int(rng.random() * total), weights)
            player, cm = options[i]
            ctx = Ctx(st, self.env_for(st, cm, player, ()), None)
            if i not in checked:
                if not cm.player_level(ctx):
                    total -= weights[i]
                    weights[i] = 0
                    continue
                checked[i] = self._domains(st, cm, player, cache)
            values = self._sample(ctx, cm, checked[i], rng)
            if values is not None:
                return Move(player, cm.name, tuple(zip(cm.no_args, values, strict=True)))
            rejections += 1
        every = [m for i, (p, cm) in enumerate(options) if weights[i] for m in self.moves_of(st, p, cm)
                 if i in checked or cm.player_level(Ctx(st, self.env_for(st, cm, p, ()), None))]
        return rng.choice(every) if every else None

    def random_move_by_kind(self, st: State, rng: random.Random, player: int | None = None) -> Move | None:
        """A kind of move first (a player and a move of the rules, uniformly among those with a legal
        move; `player`'s moves only, when given), then a legal move of that kind, uniformly."""
        halt = self.halt(st)
        players = range(len(st.names)) if player is None else (player,)
        kinds = [(p, cm) for p in players for cm in self.candidates(st, p, halt)]
        rng.shuffle(kinds)
        for player, cm in kinds:
            domains = self._domains(st, cm, player)
            ctx = Ctx(st, self.env_for(st, cm, player, ()), None)
            for _ in range(SAMPLING_TRIES):
                values = self._sample(ctx, cm, domains, rng) if all(domains) else None
                if values is not None:
                    return Move(player, cm.name, tuple(zip(cm.no_args, values, strict=True)))
            every = list(self.moves_of(st, player, cm))
            if every:
                return rng.choice(every)
        return None

    def _count(self, st: State, cm: CompiledMove, actor: int, sizes: dict[tuple[str, int], int]) -> int:
        """How many argument tuples a move's domains allow (their product)."""
        out = 1
        for kind, optional in cm.arg_kinds:
            key = (kind, actor if kind != "slot" else -1)
            size = sizes.get(key)
            if size is None:
                size = sizes[key] = self.domain_size(st, kind, actor)
            out *= size + optional
        return out

    def domain_size(self, st: State, kind: str, actor: int) -> int:
        if kind == "slot":
            return sum(len(row) - row.count(None) for row in st.tableaux)
        if kind == "own_slot":
            row = st.tableaux[actor]
            return len(row) - row.count(None)
        if kind == "free_slot":
            return st.tableaux[actor].count(None)
        return len(self.domain(st, kind, actor))

    def _sample(self, ctx: Ctx, cm: CompiledMove, domains: list[list[Any]], rng: random.Random) -> list[Any] | None:
        """One uniform draw from the argument domains, or None as soon as a guard refuses the arguments
        drawn so far (the rest is not drawn: a rejected draw is thrown away whole, so accepted draws stay
        uniform). `ctx` holds the mover's names; the drawn arguments are bound in it."""
        env = ctx.env
        values = []
        for name, domain, level in zip(cm.no_args, domains, cm.levels, strict=True):
            value = domain[int(rng.random() * len(domain))]
            env[name] = value
            values.append(value)
            for fn in level:
                if not fn(ctx):
                    return None
        if cm.decl.is_step and ctx.st.protected and self.blocked_step(ctx.st, cm, env) is not None:
            return None
        return values


def _seats(count: int, active: int, others: bool, player: int | None) -> tuple[int, ...] | range:
    """The seats whose moves random play draws from: everyone when others may act, else the active player;
    only `player` when given (and among them)."""
    if player is None:
        return range(count) if others else (active,)
    return (player,) if others or player == active else ()


def _first_of_species(params: list[str], held: list[int], i: int) -> Fn:
    earlier = [params[j] for j in held if j < i]
    name = params[i]

    def canonical(ctx: Ctx) -> bool:
        card = ctx.env[name]
        if card is None:
            return True
        used = {ctx.env[e] for e in earlier}
        species = ctx.st.facts.species
        hand: list[int] = ctx.st.hands[ctx.env["actor"]]
        first = next((c for c in hand if species[c] == species[card] and c not in used), None)
        return first is not None and first == card

    return canonical


def _unprotected(param: str, protection: Protection, protections: list[Protection]) -> Fn:
    """The guard that refuses an argument naming a tableau this protection holds against the mover."""
    def guard(ctx: Ctx) -> bool:
        owner = tableau_of(ctx.env[param])
        if owner is None:
            return True
        return protection_against([protection], ctx, owner, ctx.env.get("actor")) is None

    return guard


def _protect_require(protection: Protection) -> s.Require:
    decl = protection.decl
    return s.Require(s.Lit(decl.pos, True), decl.text[0].lower() + decl.text[1:], decl.cite, decl.pos)


def _pick_weighted(r: int, weights: list[int]) -> int:
    for i, w in enumerate(weights):
        if r < w:
            return i
        r -= w
    return len(weights) - 1


def _kind_ok(st: State, kind: str, value: Any) -> bool:
    if kind in SLOT_KINDS:
        return (isinstance(value, tuple) and len(value) == 2 and 0 <= value[0] < len(st.names)
                and isinstance(value[1], int) and value[1] >= 1)
    if kind == "player":
        return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(st.names)
    if kind == "held_card":
        return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(st.known)
    return isinstance(value, bool)


def _first_conjunct(cond: s.Expr) -> s.Expr:
    while isinstance(cond, s.Binary) and cond.op == "and":
        cond = cond.left
    return cond


def _is_window_guard(cond: s.Expr) -> bool:
    return (isinstance(cond, s.Binary) and cond.op == "!=" and isinstance(cond.left, s.Name)
            and cond.left.name == "window_ref" and isinstance(cond.right, s.Lit) and cond.right.value is None)


def _is_attempt_guard(cond: s.Expr) -> bool:
    return (isinstance(cond, s.Unary) and cond.op == "not" and isinstance(cond.operand, s.Name)
            and cond.operand.name == "window_used")


def _is_actor_active(cond: s.Expr) -> bool:
    return (isinstance(cond, s.Binary) and cond.op == "==" and isinstance(cond.left, s.Name)
            and isinstance(cond.right, s.Name) and {cond.left.name, cond.right.name} == {"actor", "active"})
