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
import functools
import gc
import random
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator
from itertools import accumulate, chain
from typing import TYPE_CHECKING, Any, Literal

from ..language import syntax as s
from ..language.errors import EngineError, Rejection
from ..language.walk import free_names, move_phases, phase_guard
from . import sampling
from .codegen import Unit
from .compiler import Compiler
from .enumeration import Enumerator, enumerator
from .move import Move
from .protection import Protection, protection_against, tableau_of
from .runtime import Ctx, Fn, Origin, Proc
from .sampling import Guard, Level, Sampler, Sizes, WhenProtected
from .state import State, Waiting
from .verdict import Verdict, verdict

if TYPE_CHECKING:
    from ..language.ruleset import Ruleset
    from .effects import Effects
    from .state import CardFacts

SLOT_KINDS = ("slot", "own_slot", "free_slot")
# The kinds whose values depend on who moves and that no rule restates: what the argument must be, in
# words, followed by the name. (An own or a free slot is restated by the rules' requires, with the
# paragraph that says so; a held card only by its kind.)
ACTOR_KINDS = {"held_card": "a card held by"}
SAMPLING_TRIES = 64  # rejections before listing every legal move: rare at acceptance rates above a few percent
MAX_SHAPES = 4096  # tables whose argument domains random play keeps (then it forgets them and starts again)


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
    arg_kinds: list[tuple[str, int]]  # (kind, 1 if optional) per argument
    # The same guards for random play, as functions of the state and the values of `names` (the names the
    # guards see, without repeats: actor, source, a step's values, the arguments): `holds` is `by` and the
    # guards that read no argument, `sample` draws the arguments, `weight` counts the argument tuples.
    names: tuple[str, ...]
    holds: Guard
    sample: Sampler
    weight: Callable[[Sizes, int], int]
    plain: bool  # a move (no ability) whose names are actor, source and its arguments, none repeated
    by_slots: bool  # its argument domains follow from the slots alone (no held card among them)
    # Its legal moves listed by generated code, from the sampler's guards (None: listed by `moves_of`'s general
    # walk: a step, whose choices a trial run judges, or a move whose arguments repeat a name).
    listing: Enumerator | None = None
    # Whether generation would make a given move of this kind (verdict.py): lets a check skip the layers
    # that explain a refusal (None: a move whose arguments repeat a name).
    verdict: Verdict | None = None
    # A step's enumerator, for the states where no tableau is protected: its trial run refuses nothing there.
    unprotected_listing: Enumerator | None = None

    @property
    def name(self) -> str:
        return self.decl.name

    @functools.cached_property
    def blank(self) -> dict[str, Any]:
        """The names of a plain move, none of them bound yet, in the order `env_for` binds them."""
        return {"actor": None, "source": None, **self.no_args}


def compile_move(comp: Compiler, m: s.MoveDecl, window_move: bool, protections: list[Protection],
                 targets: frozenset[str]) -> CompiledMove:
    params = [p.name for p in m.params]
    names = tuple(dict.fromkeys(["actor", "source", *(f.name for f in m.formals), *params]))
    fixed, dependent, levels, drawn = _guards(comp, m, names, protections, targets)
    scope = frozenset(names)
    by = comp.expr(m.by, scope) if m.by is not None else None
    body = comp.block(m.body, scope, Origin(m.name, m.cite))
    phases = move_phases(m)
    no_args = dict.fromkeys(params)
    arg_kinds = [(p.kind, int(p.optional)) for p in m.params]
    player_guards = ((m.by,) if m.by is not None else ()) + tuple(req.cond for _, req in fixed)
    # Repeated argument names leave fewer names than arguments: drawing them fails as listing them would.
    paired = len(no_args) == len(params)
    present = never_none(m)
    sample = sampling.sampler(comp.unit, names, tuple(params), drawn, present) if paired else _unpaired
    listed = enumerator(comp.unit, m.name, names, tuple(params), drawn, present) if paired else None
    judged = verdict(comp.unit, names, tuple(params), arg_kinds, drawn, present) if paired else None
    return CompiledMove(m, by, fixed, dependent, levels, body, phases,
                        m.by is not None and _is_actor_active(m.by),
                        any(_is_window_guard(req.cond) for req in m.requires),
                        any(_is_attempt_guard(req.cond) for req in m.requires), window_move, no_args, arg_kinds,
                        names, comp.function(player_guards, names, conjunction=True), sample,
                        sampling.weight(comp.unit, arg_kinds),
                        not m.is_ability and len(names) == 2 + len(params),
                        all(p.kind != "held_card" for p in m.params), None if m.is_step else listed, judged,
                        listed if m.is_step else None)


def never_none(m: s.MoveDecl) -> frozenset[str]:
    """The names of a move that are never none where its generated guards read them: the actor (a player),
    and the arguments that are not optional (their domains hold no none). Where a name is repeated the later
    binding wins (`env_for`), so only a name all of whose bindings are never none counts."""
    optional = {p.name for p in m.params if p.optional} | {f.name for f in m.formals} | {"source"}
    return frozenset({"actor", *(p.name for p in m.params)} - optional)


Guards = tuple[list[tuple[Fn, s.Require]], list[tuple[Fn, s.Require]], list[list[Fn]], list[Level]]


def _guards(comp: Compiler, m: s.MoveDecl, names: tuple[str, ...], protections: list[Protection],
            targets: frozenset[str]) -> Guards:
    """A move's guards: those that read no argument, those that read one (with their reasons), and by
    argument the guards decided once it is chosen, as functions of a context and as the sampler takes them."""
    params = [p.name for p in m.params]
    scope = frozenset(names)
    fixed: list[tuple[Fn, s.Require]] = []
    dependent: list[tuple[Fn, s.Require]] = []
    levels: list[list[Fn]] = [[] for _ in params]
    drawn: list[Level] = [[] for _ in params]  # the same levels, for the sampler
    for req in m.requires:
        fn = comp.expr(req.cond, scope)
        read = [i for i, name in enumerate(params) if name in free_names(req.cond)]
        if read:
            dependent.append((fn, req))
            levels[max(read)].append(fn)
            drawn[max(read)].append(req.cond)
        else:
            fixed.append((fn, req))
    held = [i for i, p in enumerate(m.params) if p.kind == "held_card"]
    for i in held:
        # Held cards of one species are interchangeable: generation names them in the order held, as the
        # move notation reads them, so a move and its text stay one and the same.
        levels[i].append(_first_of_species(params, held, i))
        drawn[i].append(_first_of_species_drawn(names, params, held, i))
    for i, name in enumerate(params):
        if name in targets:
            for protection in protections:
                guard = (_unprotected(name, comp.effects), _protect_require(protection))
                dependent.append(guard)
                levels[i].append(guard[0])
                drawn[i].append(WhenProtected(_unprotected_drawn(names.index(name), protection, protections)))
    return fixed, dependent, levels, drawn


def _unpaired(*values: Any) -> tuple[tuple[str, Any], ...] | None:
    raise ValueError("zip() argument 2 is longer than argument 1")


class Legality:
    """The legality half of the engine (mixed into Engine, which provides the attributes below)."""

    rules: Ruleset
    facts: CardFacts
    moves: dict[str, CompiledMove]
    halts: list[tuple[Fn, s.HaltDecl]]
    effects: Effects  # the marks an ability's moves give (a step's trial run gives them too)
    unit: Unit  # where the engine's generated code lives (random play adds some as it meets new situations)

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
        self._halts_in: dict[Any, list[tuple[Fn, s.HaltDecl]]] = {}  # by phase, the halts that may hold in it
        # The moves others may make with no window open: while there are none, only the active player acts.
        self._others_without_window = {phase: [cm for cm in moves if not cm.needs_window]
                                       for phase, moves in self._by_phase_others.items()}
        self._unphased_without_window = [cm for cm in self._unphased_others if not cm.needs_window]
        # Moves that call on a window: they stay open to the window's players while an ability waits for it.
        self._window_moves = [cm for cm in players if cm.window_move]
        self._options_cache: dict[tuple[Any, ...], Options] = {}
        self._shapes: dict[tuple[int | tuple[bool, ...], ...], Shape] = {}

    def describe(self, st: State, move: Move) -> str:
        raise NotImplementedError

    def new_ctx(self, st: State, env: dict[str, Any], log: list[Any] | None, changed: bool = False) -> Ctx:
        raise NotImplementedError

    # ------------------------------------------------------------ checking one move
    def check(self, st: State, move: Move) -> Rejection | None:
        """Why `move` is illegal now, or None: the decisive reason first, the others after it (`others`).
        Pure: reads the state only."""
        if self.admitted(st, move):
            return None
        rejection = self._find_rejection(st, move)
        if rejection is None:
            return None
        # Only a refused move pays for every reason and the move's text: generation checks many legal moves.
        top, *others = self.ranked_reasons(st, move) or [rejection]
        text = self.describe(st, move)
        return dataclasses.replace(top, move=text, others=tuple(dataclasses.replace(r, move=text) for r in others))

    def ranked_reasons(self, st: State, move: Move) -> list[Rejection]:
        """Every reason the move is refused, ranked as a judge answers "why may I not?": a halt first (while
        it holds nothing else matters), then the move's own rules (who may make it, its requirements, its
        arguments, the protections), then the passing reason of the shared waiting rule, which is decisive
        only when it is the only one. Empty when the move or player does not exist (one reason only)."""
        cm = self.moves.get(move.name)
        if cm is None or not 0 <= move.player < len(st.names):
            return []
        halt = self.halt(st)
        first = [] if halt is None or cm.name in halt.allow else \
            [Rejection("", f"halt {halt.name}", halt.cite, halt.text)]
        own = self._own_reasons(st, cm, move)
        gate = self._waiting_gate(st, cm, move.player)
        passing = [dataclasses.replace(gate, passing=True)] if gate is not None and gate.rule != cm.name else []
        ranked: list[Rejection] = []
        for reason in [*first, *own, *passing]:
            if reason not in ranked:
                ranked.append(reason)
        return ranked

    def _own_reasons(self, st: State, cm: CompiledMove, move: Move) -> list[Rejection]:
        """The move's own rules that refuse it: its arguments' kinds, then (when they fit) who may make it,
        every requirement, the mover's domains and the protections. For an ability: whether one waits for
        this player at all."""
        kinds = self._check_args(st, cm, move)
        if kinds is not None:
            return [kinds]
        waiting: Waiting | None = None
        if cm.decl.is_ability:
            waiting = next((w for w in st.waiting if w.ability == cm.name and w.owner == move.player), None)
            if waiting is None:
                return [self.nothing_waits(st, cm, move.player)]
        env = self.env_for(st, cm, move.player, move.args, waiting)
        reasons = self._all_guards(self.new_ctx(st, env, None), cm, move.player)
        domain = self._check_domains(st, cm, move.player, move.args)
        reasons += [domain] if domain is not None else []
        if not reasons:
            decl = self.blocked_step(st, cm, env)
            if decl is not None:
                reasons.append(Rejection("", f"protect {decl.name}", decl.cite, decl.text[0].lower() + decl.text[1:]))
        return reasons

    def nothing_waits(self, st: State, cm: CompiledMove, player: int) -> Rejection:
        """An ability the player tries that waits for nobody of that name: why not, from the card's history.
        The card meant is one with this ability that something happened to in this round: first one whose
        ability was triggered this turn for this player, then one this player's own move moved or showed this
        turn, then one triggered this turn for another, else the one a rule moved or showed last (this turn
        before earlier ones). The reason says which rule did it, cites it with the
        rule that decides (the rules' `untriggered` or `no choice` declaration), and names the card only if
        the player knows it."""
        who = st.names[player]
        plain = Rejection("", cm.name, cm.decl.cite, f"no '{cm.name}' is waiting to be used by {who}")
        card = None if cm.decl.is_step else self._card_meant(st, cm.name, player)  # a step is never triggered
        if card is None:
            return plain
        came = st.came[card]
        assert came is not None
        label = self._card_words(st, card, player)
        untriggered, no_choice = self.rules.untriggered, self.rules.no_choice
        general = [] if untriggered is None else [untriggered.cite]
        if came.triggered_for is not None:
            owner = st.names[came.triggered_for]
            if came.lapsed and no_choice is not None:
                return Rejection("", cm.name, _joined(came.cite, no_choice.cite), f"no '{cm.name}' waits for {who}: "
                                 f"{came.rule} triggered the ability of {label} for {owner}; it had no legal "
                                 f"choice: {no_choice.text}")
            if came.triggered_for != player:
                still = any(w.card == card and w.owner == came.triggered_for for w in st.waiting)
                return Rejection("", cm.name, _joined(came.cite, *general), f"no '{cm.name}' waits for {who}: "
                                 f"{came.rule} triggered the ability of {label} for {owner}, who "
                                 + ("is to carry it out" if still else "has carried it out"))
            return Rejection("", cm.name, _joined(came.cite, *general), f"no '{cm.name}' waits for {who}: "
                             f"{came.rule} triggered the ability of {label} once, and it has been carried out")
        place = "there" if label.startswith("the card on") else f"to {self._place_label(st, card)}"
        how = "was shown by" if came.shown else f"came {place} by"
        why = f": {untriggered.text}" if untriggered is not None else ""
        return Rejection("", cm.name, _joined(came.cite, *general), f"no '{cm.name}' waits for {who}: {label} "
                         f"{how} {self._rule_named(came.rule)}, which starts no ability{why}")

    def _card_words(self, st: State, card: int, player: int) -> str:
        """The card as the player may hear of it: by name if they know it, else by its place only."""
        if st.known[card] >> player & 1:
            return self.facts.label(card)
        return f"the card on {self._place_label(st, card)}"

    def _rule_named(self, rule: str) -> str:
        """A move, routine or hook by its name, followed by what it does in its own words."""
        hook = rule.removeprefix("on ")
        if hook != rule and hook in self.rules.hooks:
            return f"the rules' {hook} hook ({self.rules.hooks[hook].text})"
        decl = self.rules.moves.get(rule) or self.rules.routines.get(rule)
        return f"{rule} ({decl.text})" if decl is not None and decl.text else rule

    def _place_label(self, st: State, card: int) -> str:
        where = st.locate(card)
        if isinstance(where, int):  # a pile
            return f"the {self.effects.where_label(st, self.effects.left_pile[where])}"
        return self.effects.where_label(st, where)

    def _card_meant(self, st: State, ability: str, player: int) -> int | None:
        """The card with this ability the player most likely means (see `nothing_waits`), or None."""
        best: tuple[tuple[bool, bool, bool, bool, int], int] | None = None
        for card, came in enumerate(st.came):
            if came is None or came.round != st.round or self.facts.ability[card] != ability:
                continue
            now = came.turn == st.turn
            triggered_now = came.triggered_for is not None and now
            key = (triggered_now and came.triggered_for == player, now and came.actor == player, triggered_now, now,
                   came.stamp)
            if best is None or key > best[0]:
                best = (key, card)
        return None if best is None else best[1]

    def _all_guards(self, ctx: Ctx, cm: CompiledMove, player: Any) -> list[Rejection]:
        """Every failing guard, in the rules' order. A requirement after a failed one may read what that one
        excludes (the card of an empty slot): one that cannot be judged then is no reason."""
        out: list[Rejection] = []
        if cm.by is not None and cm.decl.by is not None and not ctx.holds(cm.by, cm.decl.by):
            out.append(Rejection("", cm.name, cm.decl.by_citation,
                                 cm.decl.by_reason or f"{self.player_name(ctx.st, player)} may not make this move now"))
        for fn, req in [*cm.fixed, *cm.dependent]:
            try:
                fails = not ctx.holds(fn, req.cond)
            except Exception:  # see the docstring: only after an earlier failure
                if not out:
                    raise
                continue
            if fails:
                out.append(Rejection("", cm.name, req.cite, req.reason))
        return out

    def is_legal(self, st: State, move: Move) -> bool:
        # No reasons gathered: generation and the policies ask this often.
        quick = self.verdict(st, move)
        return quick if quick is not None else self._find_rejection(st, move) is None

    def admitted(self, st: State, move: Move) -> bool:
        """Whether generation would make `move` in `st` (then it is legal): see `verdict`."""
        return self.verdict(st, move) is True

    def legal_among(self, st: State, moves: Iterable[Move]) -> list[Move]:
        """The legal moves among `moves`, in their order (`is_legal` of each). What a verdict asks of the kind
        of move and the player alone (the waiting rule, the halts, the guards that read no argument) is asked
        once for each kind and player: a policy weighs many choices of one move."""
        starts: dict[tuple[str, int], tuple[Any, ...] | Literal[False] | None] = {}
        out = []
        for move in moves:
            key = (move.name, move.player)
            start = starts[key] if key in starts else starts.setdefault(key, self._verdict_start(st, move))
            quick = self._verdict_of(st, move, start)
            if quick if quick is not None else self._find_rejection(st, move) is None:
                out.append(move)
        return out

    def verdict(self, st: State, move: Move) -> bool | None:
        """The move's generated verdict (verdict.py): True when generation would make `move` in `st` (it is
        legal), False when a requirement of the rules refuses it (it is illegal), None when the full check
        must decide. Concrete states only (the prover's store goes the full way)."""
        return self._verdict_of(st, move, self._verdict_start(st, move))

    def _verdict_start(self, st: State, move: Move) -> tuple[Any, ...] | Literal[False] | None:
        """The verdict's part that depends on the kind of move and the player only: the values of the move's
        names before any argument (the arguments are the verdict's to judge), False when a guard that reads no
        argument refuses the move, None when the full check must decide."""
        cm = self.moves.get(move.name)
        if cm is None or cm.verdict is None or st.__class__ is not State:
            return None
        player = move.player
        if player.__class__ is not int or not 0 <= player < len(st.names) or not self._may_act(st, cm, player):
            return None
        try:
            values = self._values(st, cm, player)
            return values if cm.holds(st, *values) else False
        except EngineError:
            return None  # an error of the rules: the full check reports it, with its place

    def _verdict_of(self, st: State, move: Move, start: tuple[Any, ...] | Literal[False] | None) -> bool | None:
        if start is None or start is False:
            return start
        verdict = self.moves[move.name].verdict
        if verdict is None or len(move.args) != len(self.moves[move.name].no_args):
            return None
        try:
            return verdict(st, start, move.args)
        except EngineError:
            return None

    def _may_act(self, st: State, cm: CompiledMove, player: int) -> bool:
        """The part of `admits` generation decides by the structure of the rules: the first waiting ability
        is this player's move of this name, or it waits for the calls of an open window and this move calls
        on it (or none waits and this is no ability); no halt forbids it; a step's trial run is not needed (no
        tableau is protected). The waiting rule's last case (an owner whose ability has no choice yet) is the
        full check's."""
        if st.waiting:
            first = st.waiting[0]
            if not (first.ability == cm.name and first.owner == player) and \
                    not (first.after_window and cm.window_move and self.window_callable(st)):
                return False
        elif cm.decl.is_ability:
            return False
        if cm.decl.is_step and st.protected:
            return False
        if self._halt_candidates(st):
            halt = self.halt(st)
            return halt is None or cm.name in halt.allow
        return True

    def _find_rejection(self, st: State, move: Move) -> Rejection | None:
        cm = self.moves.get(move.name)
        if cm is None:
            return Rejection("", move.name, s.Citation("?"), f"there is no move {move.name!r} in these rules")
        if not 0 <= move.player < len(st.names):
            return Rejection("", move.name, cm.decl.cite, "no such player")
        rejection = self.admits(st, cm, move.player) or self._check_args(st, cm, move)
        if rejection is not None:
            return rejection
        return self.judge(st, cm, move.player, move.args)

    # The definition of a legal move, in two parts that the prover runs too (over Z3 terms): whether the
    # player may make this kind of move now, and whether these arguments are a legal choice. Between the
    # two, the engine checks that the arguments have their declared kinds (the prover draws them so).
    def admits(self, st: State, cm: CompiledMove, player: Any) -> Rejection | None:
        """No halt forbids the move, and the waiting abilities let the player act."""
        halt = self.halt(st)
        if halt is not None and cm.name not in halt.allow:
            return Rejection("", f"halt {halt.name}", halt.cite, halt.text)
        return self._waiting_gate(st, cm, player)

    def judge(self, st: State, cm: CompiledMove, player: Any, args: tuple[tuple[str, Any], ...]) -> Rejection | None:
        """`by`, the requires (and the protections of the arguments), the domains, a step's trial run."""
        env = self.env_for(st, cm, player, args)
        rejection = self._check_guards(self.new_ctx(st, env, None), cm, player) or \
            self._check_domains(st, cm, player, args)
        if rejection is None:
            decl = self.blocked_step(st, cm, env)
            if decl is not None:
                return Rejection("", f"protect {decl.name}", decl.cite, decl.text[0].lower() + decl.text[1:])
        return rejection

    def blocked_step(self, st: State, cm: CompiledMove, env: dict[str, Any]) -> s.ProtectDecl | None:
        """A step of an ability works with values chosen before it (two cards looked at, say): when its
        choice would change a protected tableau, a trial run on a copy says so, and the choice is refused
        as the same change chosen directly would be."""
        if not cm.decl.is_step:
            return None
        fx = self.effects
        if not fx.any_protected(self.new_ctx(st, {}, None)):
            return None
        trial = self.new_ctx(fx.copy(st), dict(env), None, changed=True)
        trial.blocked = fx.block_log()
        trial.marking = fx.ability_marks  # as the real run of an ability's body (Engine._body)
        cm.body(trial)
        return fx.blocked_by(trial)

    def halt(self, st: State) -> s.HaltDecl | None:
        """The first halt of the rules that holds now (while it holds only its allowed moves are legal)."""
        halts = self._halt_candidates(st)
        if not halts:
            return None  # a halt that names its phases cannot hold in another one
        ctx = self.new_ctx(st, {}, None)
        for when, decl in halts:
            if ctx.holds(when, decl.when):
                return decl
        return None

    def _halt_candidates(self, st: State) -> list[tuple[Fn, s.HaltDecl]]:
        halts = self._halts_in.get(st.phase)
        if halts is None:
            halts = self._halts_in[st.phase] = [(when, decl) for when, decl, phases in self._halts
                                                if phases is None or st.phase in phases]
        return halts

    def window_callable(self, st: State) -> bool:
        return self.effects.window_callable(st)

    def has_choice(self, st: State, player: Any, cm: CompiledMove) -> bool:
        """Whether the player has a legal choice of arguments for this move (waiting rule and halts aside)."""
        return self.first_legal(st, player, cm) is not None

    def deferred(self, st: State) -> bool:
        """The first waiting ability waits for an open window's calls and has no legal choice now. It is
        judged only when the window closes (a call may change what it can do), so until then it does not
        hold up its owner."""
        fx = self.effects
        if not fx.anything_waits(st):
            return False
        first = fx.head(st, None)
        return first.after_window and self.window_callable(st) and \
            not self.has_choice(st, first.owner, self.moves[first.ability])

    def _waiting_gate(self, st: State, cm: CompiledMove, player: Any) -> Rejection | None:
        """While an ability waits, only its owner may act, by using it (the rules' waiting rule); an ability
        that waits for a window's calls lets the window's players call first."""
        fx = self.effects
        if fx.anything_waits(st):
            first = fx.head(st, None)
            if cm.name == first.ability and fx.same(st, player, first.owner):
                return None
            if first.after_window and cm.window_move and self.window_callable(st):
                return None
            if fx.same(st, player, first.owner) and self.deferred(st):
                # Its ability is not judged yet and has no choice now: the owner goes on with the turn, but
                # an ability of the owner's stays one that something triggered.
                if cm.decl.is_ability:
                    return Rejection("", cm.name, cm.decl.cite, f"no '{cm.name}' is waiting to be used")
                return None
            return self._waiting_rejection(st, first)
        if cm.decl.is_ability:
            return Rejection("", cm.name, cm.decl.cite, f"no '{cm.name}' is waiting to be used")
        return None

    def _waiting_rejection(self, st: State, first: Waiting) -> Rejection:
        waiting = self.rules.waiting
        cite = waiting.cite if waiting is not None else self.rules.moves[first.ability].cite
        rule = "waiting" if waiting is not None else first.ability
        return Rejection("", rule, cite, f"{st.names[first.owner]} must first use '{first.ability}' of "
                         f"{self.facts.label(first.card)}" + (f": {waiting.text.lower()}" if waiting else ""))

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
                words = p.kind.replace("_", " ")
                return Rejection("", cm.name, cm.decl.cite,
                                 f"argument {p.name!r} must be {'an' if words[0] in 'aeiou' else 'a'} {words}")
        return None

    def _check_domains(self, st: State, cm: CompiledMove, player: int,
                       args: tuple[tuple[str, Any], ...]) -> Rejection | None:
        """The kinds that depend on the mover are part of the move's meaning, as in generation: a check
        must not accept more. Asked after the rules' own requires, whose reasons are the more precise."""
        given = dict(args)
        for p in cm.decl.params:
            value = given.get(p.name)
            if value is not None and p.kind in ACTOR_KINDS and value not in self.domain(st, p.kind, player):
                return Rejection("", cm.name, cm.decl.cite, f"argument {p.name!r} must be "
                                 f"{ACTOR_KINDS[p.kind]} {st.names[player]}")
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
            fx = self.effects
            entry = waiting or (fx.head(st, cm.name) if fx.anything_waits(st) else None)
            formals = [f.name for f in cm.decl.formals]
            if entry is not None:
                env["source"] = entry.card
                env.update(zip(formals, entry.args, strict=False))
            else:
                env.update(dict.fromkeys(formals))  # nothing waits: the move is refused, its names are none
        env.update(cm.no_args)
        env.update(args)
        return env

    def _check_guards(self, ctx: Ctx, cm: CompiledMove, player: Any) -> Rejection | None:
        if cm.by is not None and cm.decl.by is not None and not ctx.holds(cm.by, cm.decl.by):
            reason = cm.decl.by_reason or f"{self.player_name(ctx.st, player)} may not make this move now"
            return Rejection("", cm.name, cm.decl.by_citation, reason)
        for fn, req in cm.fixed:
            if not ctx.holds(fn, req.cond):
                return Rejection("", cm.name, req.cite, req.reason)
        for fn, req in cm.dependent:
            if not ctx.holds(fn, req.cond):
                return Rejection("", cm.name, req.cite, req.reason)
        return None

    @staticmethod
    def player_name(st: State, player: Any) -> str:
        return str(st.names[player])

    # ------------------------------------------------------------ generation
    def domain(self, st: State, kind: str, actor: int) -> list[Any]:
        if kind == "slot":
            rows = st.tableaux
            return [(p, i + 1) for p in range(len(st.names)) for i, c in enumerate(rows[p]) if c is not None]
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
                 cache: dict[tuple[str, int, int], list[Any]] | None = None) -> list[list[Any]]:
        """The values each argument may take; `cache` shares them between the moves of one state, or of
        every state with the same slots (`_shared_domains`), which never holds the cards in hand."""
        if cache is None:
            cache = {}
        out = []
        for kind, optional in cm.arg_kinds:
            key = (kind, actor if kind != "slot" else -1, optional)
            values = cache.get(key) if kind != "held_card" else None
            if values is None:
                values = self.domain(st, kind, actor)
                values = [None, *values] if optional else values
                if kind != "held_card":
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
        return [cm for cm in moves if cm.holds(st, *self._values(st, cm, player))]

    def moves_of(self, st: State, player: int, cm: CompiledMove) -> Iterator[Move]:
        """Every legal move of one kind for one player: arguments one at a time, each guard checked
        as soon as the arguments it reads are chosen. The definition that `listed` runs faster."""
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

    def listed(self, st: State, player: int, cm: CompiledMove) -> Iterator[Move]:
        """`moves_of`, the same moves in the same order, listed by the move's generated enumerator when it
        has one (enumeration.py: the sampler's guards in nested loops over the domains). A step's trial run
        (`blocked_step`) refuses nothing while no tableau is protected: its enumerator lists it then."""
        listing = cm.listing or (None if st.protected else cm.unprotected_listing)
        if listing is None:
            return self.moves_of(st, player, cm)
        return listing(st, (*self._values(st, cm, player), *self._domains(st, cm, player)), player)

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
        if not cm.holds(st, *self._values(st, cm, player)):
            return None
        return next(self.listed(st, player, cm), None)

    def legal_moves(self, st: State, player: int | None = None) -> Iterator[Move]:
        """Every legal move now, out-of-turn moves included, all made at the first call (`first_move` finds
        one without making the others)."""
        return iter(gathered(chain.from_iterable(self._listings(st, player))))

    def first_move(self, st: State, player: int | None = None) -> Move | None:
        """The first move `legal_moves` lists (None: nobody, or not `player`, may act), the others unmade."""
        return next(chain.from_iterable(self._listings(st, player)), None)

    def _listings(self, st: State, player: int | None) -> Iterator[Iterator[Move]]:
        """The legal moves of each kind and player, lazily, in `legal_moves`' order."""
        players = range(len(st.names)) if player is None else (player,)
        halt = self.halt(st)
        for p in players:
            for cm in self.candidates(st, p, halt):
                yield self.listed(st, p, cm)

    def movers(self, st: State) -> list[int]:
        """Who may act now (the active player and anyone with an out-of-turn move)."""
        return [p for p in range(len(st.names)) if self.first_move(st, p) is not None]

    def random_move(self, st: State, rng: random.Random, tries: int = SAMPLING_TRIES,
                    player: int | None = None) -> Move | None:
        """A legal move chosen uniformly among all legal moves now (of `player` only, when given), or None
        when nobody (that player) may act.

        Rejection sampling over the argument domains of the moves worth trying: an option whose
        player-level guards fail is dropped when first drawn (it holds no legal move), so the proposal
        stays uniform over a superset of the legal moves and an accepted sample is uniform over them.
        After `tries` rejections every legal move is listed and one is chosen (uniform as well)."""
        found = self._random_options(st, self.halt(st))
        options, starts = found.moves, found.starts
        shape = self._shape(st) if player is None else None
        if shape is not None and found.key is not None:
            weights, bounds = shape.weighed(found, st)
        else:
            weights = found.weigh(st)
            if player is not None:  # only that player's moves (a simulated player choosing its own)
                weights = [w if p == player else 0 for w, (p, _) in zip(weights, options, strict=True)]
            bounds = list(accumulate(weights))  # option i is drawn below bounds[i], from bounds[i - 1] on
        total = bounds[-1] if bounds else 0
        checked: dict[int, tuple[Any, ...]] = {}  # options that hold: their sampler's values and domains
        rejections = 0
        rnd = rng.random
        while total and rejections < tries:
            i = bisect_right(bounds, int(rnd() * total))  # below len(bounds): the number is below the total
            player, cm = options[i]
            drawn = checked.get(i)
            if drawn is None:
                values = starts[i] or self._values(st, cm, player)
                if not cm.holds(st, *values):
                    weights[i] = 0  # it holds no legal move: never drawn again
                    bounds = list(accumulate(weights))
                    total = bounds[-1]
                    continue
                drawn = checked[i] = self._drawn(st, cm, player, values, shape)
            args = cm.sample(st, drawn, rnd)
            if args is not None and not (cm.decl.is_step and st.protected and self._blocked_draw(st, cm, drawn, args)):
                return Move(player, cm.name, args)
            rejections += 1
        every = [m for i, (p, cm) in enumerate(options) if weights[i] for m in gathered(self.listed(st, p, cm))
                 if i in checked or cm.holds(st, *self._values(st, cm, p))]
        return rng.choice(every) if every else None

    def _drawn(self, st: State, cm: CompiledMove, player: int, values: tuple[Any, ...], shape: Shape | None
               ) -> tuple[Any, ...]:
        """What the sampler draws from: the values of the move's names and the domains of its arguments. For
        a plain move without held cards, both follow from the player and the slots: kept with the shape."""
        if shape is None:
            return (*values, *self._domains(st, cm, player))
        if not (cm.plain and cm.by_slots):
            return (*values, *self._domains(st, cm, player, shape.domains))
        key = (cm.name, player)
        drawn = shape.drawn.get(key)
        if drawn is None:
            drawn = shape.drawn[key] = (*values, *self._domains(st, cm, player, shape.domains))
        return drawn

    def _shape(self, st: State) -> Shape:
        """What random play keeps for every state with the same slots, occupied and free: random play meets
        few such tables. A row with no free slot is known by its length, another by which slots are free."""
        key = tuple([len(row) if None not in row else tuple([c is None for c in row]) for row in st.tableaux])
        shape = self._shapes.get(key)
        if shape is None:
            if len(self._shapes) >= MAX_SHAPES:
                self._shapes.clear()
            shape = self._shapes[key] = Shape({}, {}, {})
        return shape

    def _random_options(self, st: State, halt: s.HaltDecl | None) -> Options:
        """The moves worth trying, with their players. Only the active player can act unless an ability
        waits, a window is open or the phase gives the others moves of their own (the initial peek, say).
        Without a waiting ability the list follows from the phase, the active player, the open window
        and the halt alone: it is made once for each such combination, with the code that weighs it."""
        key = None
        if not st.waiting:
            windows = st.windows
            key = (st.phase, st.active, len(st.names), bool(windows), bool(windows) and windows[-1].attempts > 0,
                   None if halt is None else halt.name)
            known = self._options_cache.get(key)
            if known is not None:
                return known
        others = st.waiting or st.windows or self._others_without_window.get(st.phase, self._unphased_without_window)
        moves = [(p, cm) for p in (range(len(st.names)) if others else (st.active,))
                 for cm in self._options(st, p, halt)]
        starts = [(p, None, *cm.no_args.values()) if cm.plain else None for p, cm in moves]
        if key is None:
            return Options(moves, lambda now: _weights(now, moves), starts, None)
        weigh = sampling.weigher(self.unit, [(p, cm.arg_kinds) for p, cm in moves], len(st.names))
        # Weights that count held cards depend on more than the slots: they are never kept by shape.
        held = any(kind == "held_card" for _, cm in moves for kind, _ in cm.arg_kinds)
        found = self._options_cache[key] = Options(moves, weigh, starts, None if held else key)
        return found

    def _values(self, st: State, cm: CompiledMove, player: int) -> tuple[Any, ...]:
        """The values of a move's names before any argument is chosen (as `env_for` binds them)."""
        if cm.plain:
            return (player, None, *cm.no_args.values())
        env = self.env_for(st, cm, player, ())
        return tuple(env.get(name) for name in cm.names)

    def _blocked_draw(self, st: State, cm: CompiledMove, values: tuple[Any, ...],
                      args: tuple[tuple[str, Any], ...]) -> bool:
        """Whether a step's drawn arguments would change a protected tableau (see `blocked_step`); `values`
        begin with those of the move's names."""
        if not (cm.decl.is_step and st.protected):
            return False
        env = dict(zip(cm.names, values[:len(cm.names)], strict=True))
        env.update(args)
        return self.blocked_step(st, cm, env) is not None

    def random_move_by_kind(self, st: State, rng: random.Random, player: int | None = None) -> Move | None:
        """A kind of move first (a player and a move of the rules, uniformly among those with a legal
        move; `player`'s moves only, when given), then a legal move of that kind, uniformly."""
        halt = self.halt(st)
        players = range(len(st.names)) if player is None else (player,)
        kinds = [(p, cm) for p in players for cm in self.candidates(st, p, halt)]
        rng.shuffle(kinds)
        for player, cm in kinds:
            domains = self._domains(st, cm, player)
            values = self._values(st, cm, player)
            for _ in range(SAMPLING_TRIES):
                args = cm.sample(st, (*values, *domains), rng.random) if all(domains) else None
                if args is not None and not self._blocked_draw(st, cm, values, args):
                    return Move(player, cm.name, args)
            every = gathered(self.listed(st, player, cm))
            if every:
                return rng.choice(every)
        return None


def gathered(moves: Iterator[Move]) -> list[Move]:
    """The moves as a list, made while Python's cycle collector waits.

    A state may have thousands of legal moves, and each is an object the collector tracks. Collections
    that ran while they were made would visit every move made so far and promote it to an older
    generation, all for objects that reference counting frees anyway once the caller drops the list:
    the moves hold no cycle. Measured, the collections took a third of listing a 4-player state.
    The collector is left as it was found (it stays off if the caller turned it off)."""
    if not gc.isenabled():
        return list(moves)
    gc.disable()
    try:
        return list(moves)
    finally:
        gc.enable()


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


@dataclasses.dataclass(frozen=True)
class Options:
    """The moves worth trying in a state, each with its player: how to weigh them (the number of argument
    tuples of each), and for each plain move the values of its names before its arguments are drawn."""

    moves: list[tuple[int, CompiledMove]]
    weigh: Callable[[State], list[int]]
    starts: list[tuple[Any, ...] | None]
    key: tuple[Any, ...] | None  # when its weights follow from the slots alone: the key it is kept by


@dataclasses.dataclass(frozen=True)
class Shape:
    """What random play keeps for the states whose tableaux have the same slots, occupied and free: the
    argument domains (by kind, player and whether optional) and the weights of each list of options."""

    domains: dict[tuple[str, int, int], list[Any]]
    weights: dict[tuple[Any, ...], tuple[tuple[int, ...], list[int]]]
    drawn: dict[tuple[str, int], tuple[Any, ...]]  # a plain move's values and domains, by move and player

    def weighed(self, found: Options, st: State) -> tuple[list[int], list[int]]:
        """The options' weights (a list of one's own, to change) and their running sums (never changed)."""
        assert found.key is not None
        known = self.weights.get(found.key)
        if known is None:
            weights = found.weigh(st)
            known = self.weights[found.key] = (tuple(weights), list(accumulate(weights)))
        return list(known[0]), known[1]


def _weights(st: State, moves: list[tuple[int, CompiledMove]]) -> list[int]:
    sizes = Sizes(st.tableaux, st.hands, len(st.names))
    return [cm.weight(sizes, p) for p, cm in moves]


def _first_of_species_drawn(names: tuple[str, ...], params: list[str], held: list[int], i: int) -> Guard:
    """`_first_of_species` as the sampler calls it: with the values of the move's names."""
    at, actor = names.index(params[i]), names.index("actor")
    earlier = [names.index(params[j]) for j in held if j < i]

    def canonical(st: State, *values: Any) -> bool:
        card = values[at]
        if card is None:
            return True
        used = {values[e] for e in earlier}
        species = st.facts.species
        hand: list[int] = st.hands[values[actor]]
        first = next((c for c in hand if species[c] == species[card] and c not in used), None)
        return first is not None and first == card

    return canonical


def _unprotected_drawn(at: int, protection: Protection, protections: list[Protection]) -> Guard:
    """`_unprotected` as the sampler calls it (while a tableau is protected: otherwise it holds)."""
    def guard(st: State, *values: Any) -> bool:
        owner = tableau_of(values[at])
        if owner is None:
            return True
        return protection_against([protection], Ctx(st, {}, None), owner, values[0]) is None

    return guard


def _unprotected(param: str, effects: Effects) -> Fn:
    """The guard that refuses an argument naming a tableau a protection holds against the mover. It asks
    only the context and the effects' operations, so the prover runs it as it is (`generic`)."""
    def guard(ctx: Ctx) -> bool:
        owner = effects.target_owner(ctx, ctx.env[param])
        if ctx.absent(owner):
            return True
        return not effects.protected_against(ctx, owner, ctx.env.get("actor"))

    guard.generic = True  # type: ignore[attr-defined]
    return guard


def _protect_require(protection: Protection) -> s.Require:
    decl = protection.decl
    return s.Require(s.Lit(decl.pos, True), decl.text[0].lower() + decl.text[1:], decl.cite, decl.pos)


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


def _joined(*cites: s.Citation) -> s.Citation:
    """One citation of several: each section once, its paragraphs in the order first cited."""
    merged: dict[str, list[str]] = {}
    for cite in cites:
        for section, paras in cite.parts or ((cite.section, cite.paras),):
            kept = merged.setdefault(section, [])
            kept += [p for p in paras if p not in kept]
    return s.Citation.of([(section, tuple(sorted(paras, key=_para_number))) for section, paras in merged.items()])


def _para_number(para: str) -> int:
    digits = para.lstrip("P")
    return int(digits) if digits.isdigit() else 0
