"""The engine's primitive statements, each defined once, for both value domains.

A statement's meaning is one method here (`move`, `swap`, `draw`, ...): when a part of it is left
out (a `none` card or place, a change a protection blocks), when it is an error of the rules (a card
that would cover another), which cards it marks, whose tableau it changes, what it logs. It asks its
questions of the context (`ctx.absent`, `ctx.same`, `ctx.fail`, `ctx.touch`) and changes the state
only through the place operations below (`take_out`, `put`, `learn`, `enqueue` ...).

The operations of this class work on the engine's concrete state (engine/state.py). The prover's
symbolic store (proofs/store.py) overrides exactly these operations, and its context answers the
questions with Z3 terms under a path condition, so the transition relation Z3 reasons about is
made by these very statements: there is no second implementation of a statement to drift apart.

Cards only ever change place through `take_out`/`put`, so no statement can create, lose or
duplicate a card: a card leaves exactly one place and enters exactly one.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any, Protocol

from ..language import syntax as s
from ..language.errors import EngineError
from ..language.ruleset import ALL_CARDS, DRAW_PILE, Ruleset
from ..language.words import plural
from .protection import Protection, tableau_of
from .runtime import Ctx, Event, Fn, Origin, items_of
from .state import Came, CardFacts, HandLoc, PileLoc, State, Waiting, Window, came, hand_of


class Host(Protocol):
    """What the effects need of the engine that runs them (engine.Engine provides it)."""

    rules: Ruleset
    facts: CardFacts
    pile_names: list[str]
    pile_index: dict[str, int]

    def run_hook(self, name: str, ctx: Ctx, args: tuple[Any, ...]) -> None: ...
    def start_round(self, st: State, log: list[Event] | None, players: Any = None) -> None: ...
    def check_tables(self, n: int) -> None: ...
    def slot_label(self, st: State, slot: tuple[int, int]) -> str: ...
    def format_value(self, st: State, vtype: str, value: Any) -> str: ...


# The order of card moves across a game (only compared within one game's history: later moves are larger).
_STAMPS = itertools.count(1)

def log(ctx: Ctx, origin: Origin, text: Callable[[], str], *cards: int, kind: str = "effect") -> None:
    """Log an event; `cards` are the cards its text names, kept with who knows each now."""
    if ctx.log is not None:
        st = ctx.st
        named = tuple((st.facts.label(c), st.known[c]) for c in cards)
        ctx.log.append(Event(origin.rule, origin.cite, text(), kind, named))


class Effects:
    """The primitive statements, bound to one engine: compiled blocks call these methods."""

    def __init__(self, eng: Host) -> None:
        self.eng = eng
        rules = eng.rules
        self.face_up = frozenset(i for i, p in enumerate(rules.piles.values()) if p.face_up)
        self.capacity = rules.hand.capacity if rules.hand is not None else 1
        window = rules.window
        self.window_title = window.title if window is not None else "window"
        self.attempts = window.attempts if window is not None else 1
        self.open_max = window.open_max if window is not None else 1
        self.draw_pile = list(rules.piles).index(DRAW_PILE)
        self.mark_bits = eng.facts.mark_bits
        self.protections: list[Protection] = []  # set by the engine once the rules are compiled
        self.left_pile = [PileLoc(i, "") for i in range(len(rules.piles))]  # the place a card left, by pile
        # The marks every card an ability moves, swaps or places gets, only when the change happens.
        self.ability_marks = sum(1 << eng.facts.mark_bits[m.name] for m in rules.marks.values() if m.on_ability_moves)
        # The marks a new turn keeps (-1: all): those that last a turn are cleared.
        self.turn_marks_kept = ~sum(1 << bit for name, bit in self.mark_bits.items() if rules.marks[name].until_turn)

    def mark_bit(self, mark: str) -> int:
        return 1 << self.mark_bits[mark]

    # ------------------------------------------------------------ statements
    # One method per primitive statement, given the context and the values of the statement's expressions
    # (compiler.py evaluates them first, in order). Where a statement evaluates a part only in some cases
    # (the players of a window once its card exists, the words of `say` only where they are read), that
    # part comes as a function of the context and the method decides whether to evaluate it.
    def move(self, ctx: Ctx, c: Any, where: Any, origin: Origin, pos: s.Pos) -> None:
        if ctx.absent(c) or ctx.absent(where):
            return
        st = ctx.st
        self.require_free(ctx, where, pos)  # before taking the card out: a refused move loses nothing
        # Where the card lies is looked up only when some tableau is protected: most moves need no lookup.
        if self.any_protected(ctx) and self.blocked_places(ctx, origin, (self.locate(st, c), where)):
            return
        src = self.take_out(st, c)
        self.put(st, c, where)
        self.came_by(ctx, origin, c)
        ctx.touch(src)
        ctx.touch(where)
        if ctx.marking:
            self.add_marks(st, c, ctx.marking)
        if ctx.log is not None:
            log(ctx, origin, lambda: f"{st.facts.label(c)} moves from "
                f"{self.where_label(st, src)} to {self.where_label(st, where)}", c)

    def swap(self, ctx: Ctx, a: Any, b: Any, origin: Origin, pos: s.Pos) -> None:
        if ctx.absent(a) or ctx.absent(b) or ctx.same(a, b):
            return
        st = ctx.st
        where_a, where_b = self.locate(st, a), self.locate(st, b)
        if not (self.on_slot(ctx, where_a) and self.on_slot(ctx, where_b)):
            ctx.fail(f"{pos}: only cards on slots can swap places")
        if self.blocked(ctx, origin, where_a, where_b):
            return
        self.exchange(st, a, where_a, b, where_b)
        self.came_by(ctx, origin, a, b)
        ctx.touch(where_a)
        ctx.touch(where_b)
        if ctx.marking:
            self.add_marks(st, a, ctx.marking)
            self.add_marks(st, b, ctx.marking)
        if ctx.log is not None:
            log(ctx, origin, lambda: f"the cards on {self.where_label(st, where_a)} and "
                f"{self.where_label(st, where_b)} swap places")

    def draw(self, ctx: Ctx, where: Any, bind: str | None, origin: Origin) -> None:
        st = ctx.st
        if self.pile_empty(st, self.draw_pile):
            self.eng.run_hook("draw_empty", ctx, (self.drawer(ctx),))
        if self.pile_empty(st, self.draw_pile) or ctx.absent(where) or self.blocked(ctx, origin, where):
            if ctx.log is not None:
                log(ctx, origin, lambda: "the draw is impossible and is left out")
            if bind:
                ctx.env[bind] = None
            return
        self.require_free(ctx, where, origin.rule)
        c = self.draw_top(st, self.draw_pile)
        self.put(st, c, where)
        self.came_by(ctx, origin, c)
        ctx.touch(where)
        if ctx.marking:
            self.add_marks(st, c, ctx.marking)
        if bind:
            ctx.env[bind] = c
        if ctx.log is not None:
            shown = isinstance(where, PileLoc) and where.index in self.face_up
            log(ctx, origin, lambda: f"a card is drawn to {self.where_label(st, where)}"
                + (f": {st.facts.label(c)}" if shown else ""), c, kind="draw")

    @staticmethod
    def drawer(ctx: Ctx) -> Any:
        """Who draws: the player whose move, ability or rule this is (not the card's destination)."""
        actor = ctx.env.get("actor")
        return ctx.active() if ctx.absent(actor) else actor

    def peek(self, ctx: Ctx, p: Any, c: Any, origin: Origin) -> None:
        if ctx.absent(p) or ctx.absent(c):
            return
        self.learn(ctx.st, c, p)
        if ctx.log is not None:
            log(ctx, origin, lambda: f"{ctx.st.names[p]} looks secretly at {ctx.st.facts.label(c)}", c)

    def show(self, ctx: Ctx, c: Any, origin: Origin) -> None:
        if ctx.absent(c):
            return
        self.reveal(ctx.st, c)
        self.shown_by(ctx, origin, c)
        if ctx.log is not None:
            ctx.log.append(self.shown_event(ctx.st, c, origin))

    def shown_event(self, st: State, c: int, origin: Origin) -> Event:
        """The event of a card shown, named with where it lies: a reader must see whose card it was."""
        where = self.locate(st, c)
        place = self.where_label(st, where)
        seat = where[0] if isinstance(where, tuple) else where.player if isinstance(where, HandLoc) else None
        label = st.facts.label(c)
        return Event(origin.rule, origin.cite, f"{label} ({place}) is shown to everyone", "show",
                     ((label, st.known[c]),), place, "" if seat is None else st.names[seat])

    def forget(self, ctx: Ctx, c: Any, origin: Origin) -> None:
        if ctx.absent(c):
            return
        self.unlearn(ctx.st, c)
        if ctx.log is not None:
            log(ctx, origin, lambda: f"nobody can follow {ctx.st.facts.label(c)} any more", c)

    def say(self, ctx: Ctx, text: str, args: tuple[Fn, ...], kinds: tuple[str, ...], origin: Origin) -> None:
        if ctx.log is None:
            return  # words only: nothing to do where nobody reads them
        parts = text.split("{}")
        values = [self.eng.format_value(ctx.st, kind, arg(ctx)) for arg, kind in zip(args, kinds, strict=True)]
        words = parts[0] + "".join(v + rest for v, rest in zip(values, parts[1:], strict=True))
        ctx.log.append(Event(origin.rule, origin.cite, words, "say"))

    def mark(self, ctx: Ctx, mark: str, bit: int, c: Any, origin: Origin) -> None:
        if ctx.absent(c):
            return
        self.add_marks(ctx.st, c, bit)
        if ctx.log is not None:
            log(ctx, origin, lambda: f"{ctx.st.facts.label(c)} is marked {mark}", c)

    def open_window(self, ctx: Ctx, kind: str, c: Any, players: Fn, origin: Origin) -> None:
        if ctx.absent(c):
            return
        mask = self.open(ctx.st, kind, c, players(ctx))
        if ctx.log is not None:
            names = ctx.st.names
            log(ctx, origin, lambda: f"the {self.window_title} '{kind}' opens on {ctx.st.facts.label(c)} for "
                + (", ".join(names[p] for p in range(len(names)) if mask >> p & 1) or "nobody"), c)

    def use_window(self, ctx: Ctx, origin: Origin) -> None:
        if self.window_open(ctx):
            self.use_attempt(ctx.st)
            if ctx.log is not None:
                log(ctx, origin, lambda: "an attempt on the reference is used")

    def close_window(self, ctx: Ctx, origin: Origin) -> None:
        if self.window_open(ctx):
            self.close(ctx.st)
            if ctx.log is not None:
                log(ctx, origin, lambda: f"the {self.window_title} closes")

    def trigger(self, ctx: Ctx, c: Any, p: Any, after_window: bool, origin: Origin) -> None:
        if ctx.absent(c) or ctx.absent(p):
            return
        ability = self.ability_of(ctx, c)
        if ability is None:
            return
        # A new trigger waits before those that wait for the window: what the window's calls
        # trigger is part of settling them.
        self.enqueue(ctx.st, Waiting(ability, c, p, (), after_window), first=False)
        self.triggered(ctx.st, c, p)
        if ctx.log is not None:
            facts = self.eng.facts
            log(ctx, origin, lambda: f"{facts.label(c)} triggers its ability '{ability}' for {ctx.st.names[p]}"
                + (" once the window's calls are settled" if after_window else ""), c)

    def continue_step(self, ctx: Ctx, step: str, p: Any, args: tuple[Fn, ...], origin: Origin, pos: s.Pos) -> None:
        if ctx.absent(p):
            return
        source: Any = ctx.env.get("source")
        if ctx.absent(source):
            ctx.fail(f"{pos}: {origin.rule}: `continue` goes on with an ability; this rule is no ability")
        self.enqueue(ctx.st, Waiting(step, source, p, tuple(a(ctx) for a in args)), first=True)
        if ctx.log is not None:
            log(ctx, origin, lambda: f"{ctx.st.names[p]} goes on with '{step}'")

    def shuffle(self, ctx: Ctx, sources: tuple[s.ShuffleSource, ...], into: PileLoc, origin: Origin) -> None:
        gathered = self.shuffle_into(ctx.st, sources, into)
        if ctx.log is not None:
            log(ctx, origin, lambda: f"{plural(gathered, 'card')} shuffled into the "
                f"{self.eng.pile_names[into.index].replace('_', ' ')}")

    def start_turn(self, ctx: Ctx, p: Any, origin: Origin, pos: s.Pos) -> None:
        if ctx.absent(p):
            ctx.fail(f"{pos}: {origin.rule}: no player to start the turn")
        self.begin_turn(ctx.st, p)
        if ctx.log is not None:
            log(ctx, origin, lambda: f"{ctx.st.names[p]}'s turn begins")

    def start_round(self, ctx: Ctx) -> None:
        self.eng.start_round(ctx.st, ctx.log)

    def start_round_with(self, ctx: Ctx, players: Any) -> None:
        self.eng.start_round(ctx.st, ctx.log, players)

    def pick(self, ctx: Ctx, domain: Any, kind: str) -> Any:
        """A random item of the domain (none when it is empty), from the state's generator."""
        if self.nothing_to_pick(ctx, domain):
            return None
        return self.random_item(ctx, domain, kind)

    def set_phase(self, ctx: Ctx, value: Any) -> None:
        self.store_phase(ctx.st, value)

    def set_var(self, ctx: Ctx, name: str, vtype: str, value: Any, origin: Origin) -> None:
        self.store_var(ctx.st, name, value)
        if ctx.log is not None:
            log(ctx, origin, lambda: f"{name} = {self.eng.format_value(ctx.st, vtype, value)}", kind="set")

    def set_player_var(self, ctx: Ctx, name: str, vtype: str, i: Any, value: Fn, origin: Origin) -> None:
        if ctx.absent(i):
            return
        v = value(ctx)
        self.store_player_var(ctx.st, name, i, v)
        if ctx.log is not None:
            log(ctx, origin, lambda: f"{name}[{ctx.st.names[i]}] = {self.eng.format_value(ctx.st, vtype, v)}",
                kind="set")

    # ------------------------------------------------------------ protections
    def blocked(self, ctx: Ctx, origin: Origin, *places: Any) -> bool:
        """Whether a change of these places would touch a tableau protected against the rule's actor: such
        a part of an effect is impossible and is left out (logged)."""
        return self.any_protected(ctx) and self.blocked_places(ctx, origin, places)  # none protected: no lookup

    def blocked_places(self, ctx: Ctx, origin: Origin, places: tuple[Any, ...]) -> bool:
        """`blocked`, once some tableau is known to be protected."""
        for place in places:
            owner = self.slot_owner(ctx, place)
            if ctx.absent(owner):
                continue
            decl = self.protection_against(ctx, owner, ctx.env.get("actor"))
            if decl is not None:
                if ctx.blocked is not None:
                    ctx.blocked.append(decl)
                if ctx.log is not None:
                    ctx.log.append(Event(origin.rule, decl.cite, f"{ctx.st.names[owner]}'s tableau is "
                                         f"protected ({decl.name}): this change is impossible and left out"))
                return True
        return False

    def protection_against(self, ctx: Ctx, owner: Any, by: Any) -> s.ProtectDecl | None:
        """The protection that forbids `by` to change `owner`'s tableau now, if any. The state's mask says
        which tableaux are protected since the last completed action; the declaration is looked up only
        then (the first that holds names the rule; the first of all when none holds any more)."""
        if not self.protected_against(ctx, owner, by):
            return None
        for p in self.protections:
            if self.protection_holds(ctx, p, owner):
                return p.decl
        return self.protections[0].decl if self.protections else None

    def protected_against(self, ctx: Ctx, owner: Any, by: Any) -> bool:
        """Whether `owner`'s tableau is protected against `by` now (never against the engine's own setup, nor
        against the owner)."""
        return not (ctx.absent(by) or ctx.same(by, owner)) and self.is_protected(ctx, owner)

    # ------------------------------------------------------------ the concrete state's operations
    # What the statements above ask of the state. The symbolic store (proofs/store.py) overrides each.
    def require_free(self, ctx: Ctx, where: Any, pos: s.Pos | str) -> None:
        """Refuse a destination that would cover another card (or is no place at all)."""
        st = ctx.st
        if isinstance(where, tuple):
            player, number = where
            row = st.tableaux[player]
            if not (number == len(row) + 1 or (0 < number <= len(row) and row[number - 1] is None)):
                ctx.fail(f"{pos}: slot {self.eng.slot_label(st, where)} is not free")
        elif isinstance(where, HandLoc):
            if len(st.hands[where.player]) >= self.capacity:
                ctx.fail(f"{pos}: {st.names[where.player]}'s hand holds {plural(self.capacity, 'card')} already")
        elif not isinstance(where, PileLoc):
            ctx.fail(f"{pos}: {where!r} is not a place for a card")

    @staticmethod
    def locate(st: State, card: int) -> object:
        return st.locate(card)

    def take_out(self, st: State, card: int) -> object:
        """Remove a card from wherever it is; returns the place it left (the box is None)."""
        for i, items in enumerate(st.piles):
            if items and items[-1] == card:
                items.pop()
                return self.left_pile[i]
        for p, hand in enumerate(st.hands):
            if card in hand:
                hand.remove(card)
                return hand_of(p)
        for p, row in enumerate(st.tableaux):
            if card in row:
                i = row.index(card)
                row[i] = None
                return (p, i + 1)
        for i, items in enumerate(st.piles):
            if card in items:
                items.remove(card)
                return self.left_pile[i]
        if card in st.box:
            st.box.remove(card)
            return None
        raise EngineError(f"card {card} is nowhere")

    def put(self, st: State, card: int, where: object) -> None:
        """Put a card that is in no place into `where`, already checked with `require_free`."""
        if isinstance(where, tuple):
            player, number = where
            row = st.tableaux[player]
            if number == len(row) + 1:
                row.append(card)
            else:
                row[number - 1] = card
        elif isinstance(where, HandLoc):
            st.hands[where.player].append(card)
        elif isinstance(where, PileLoc):
            st.piles[where.index].append(card)
            if where.index in self.face_up:
                st.known[card] = st.everyone  # a face-up pile shows the card to every player

    @staticmethod
    def came_by(ctx: Ctx, origin: Origin, *cards: int) -> None:
        """Remember which rule moved the cards, in whose move (a refusal of an ability says how its card
        came there)."""
        st, actor = ctx.st, ctx.env.get("actor")
        for c in cards:
            st.came[c] = came(Came, (origin.rule, origin.cite, st.round, st.turn, next(_STAMPS), actor, None, False,
                                     False))

    @staticmethod
    def triggered(st: State, c: int, p: int) -> None:
        came = st.came[c]  # shared with the copies made before: replaced, never changed in place
        if came is not None:
            st.came[c] = came.but(triggered_for=p, lapsed=False)

    @staticmethod
    def lapsed(st: State, c: int) -> None:
        came = st.came[c]
        if came is not None:
            st.came[c] = came.but(lapsed=True)

    @staticmethod
    def shown_by(ctx: Ctx, origin: Origin, c: int) -> None:
        st = ctx.st
        st.came[c] = came(Came, (origin.rule, origin.cite, st.round, st.turn, next(_STAMPS), ctx.env.get("actor"),
                                 None, True, False))

    @staticmethod
    def exchange(st: State, a: int, where_a: Any, b: int, where_b: Any) -> None:
        st.tableaux[where_a[0]][where_a[1] - 1] = b
        st.tableaux[where_b[0]][where_b[1] - 1] = a

    @staticmethod
    def on_slot(ctx: Ctx, place: Any) -> bool:
        return isinstance(place, tuple)

    @staticmethod
    def slot_owner(ctx: Ctx, place: Any) -> Any:
        """The player whose tableau the place is a slot of (none for any other place)."""
        return place[0] if isinstance(place, tuple) else None

    @staticmethod
    def pile_empty(st: State, index: int) -> bool:
        return not st.piles[index]

    @staticmethod
    def draw_top(st: State, index: int) -> int:
        pile = st.piles[index]
        chance = st.chance()
        if chance is not None:
            chance.before_draw(st, pile)  # the outcome comes from elsewhere (a referee's game log)
        return pile.pop()

    @staticmethod
    def learn(st: State, c: int, p: int) -> None:
        st.known[c] |= 1 << p

    @staticmethod
    def reveal(st: State, c: int) -> None:
        st.known[c] = st.everyone

    @staticmethod
    def unlearn(st: State, c: int) -> None:
        st.known[c] = 0

    @staticmethod
    def add_marks(st: State, c: int, bits: int) -> None:
        st.marks[c] |= bits

    def open(self, st: State, kind: str, c: int, players: Any) -> int:
        """Open a window on card c for these players; the oldest windows close when too many are open."""
        mask = 0
        for p in items_of(st, players):
            mask |= 1 << p
        windows = st.windows
        windows.append(Window(kind, c, mask, self.attempts))
        del windows[:-self.open_max]
        return mask

    @staticmethod
    def window_open(ctx: Ctx) -> bool:
        return bool(ctx.st.windows)

    @staticmethod
    def use_attempt(st: State) -> None:
        st.windows[-1].attempts -= 1

    @staticmethod
    def close(st: State) -> None:
        st.windows.clear()

    def ability_of(self, ctx: Ctx, c: int) -> str | None:
        return self.eng.facts.ability[c]

    @staticmethod
    def enqueue(st: State, entry: Waiting, first: bool) -> None:
        """Queue an ability: a step of a running one first in line; a trigger before those that wait for
        the window."""
        queue = st.waiting
        at = 0 if first else next((i for i, w in enumerate(queue) if w.after_window), len(queue))
        queue.insert(at, entry)

    def shuffle_into(self, st: State, sources: tuple[s.ShuffleSource, ...], into: PileLoc) -> int:
        """Gather the sources' cards face down into a pile and shuffle it; nobody can follow them any more."""
        gathered: list[int] = []
        for source in sources:
            gathered.extend(self._gather(st, source))
        known = st.known
        for c in gathered:
            known[c] = 0
        pile = st.piles[into.index]
        pile.extend(gathered)
        st.rng.shuffle(pile)
        return len(gathered)

    def _gather(self, st: State, source: s.ShuffleSource) -> list[int]:
        if source.pile == ALL_CARDS:
            out = [c for row in st.tableaux for c in row if c is not None]
            st.tableaux = [[] for _ in st.names]
            out += [c for hand in st.hands for c in hand]
            st.hands = [[] for _ in st.names]
            for pile in st.piles:
                out += pile
            st.piles = [[] for _ in st.piles]
            out += st.box
            st.box = []
            return out
        index = self.eng.pile_index[source.pile]
        pile = st.piles[index]
        keep = pile[-1:] if source.except_top else []
        out = pile[:-1] if source.except_top else pile
        st.piles[index] = keep
        return out

    @staticmethod
    def nothing_to_pick(ctx: Ctx, domain: Any) -> bool:
        return not items_of(ctx.st, domain)

    @staticmethod
    def random_item(ctx: Ctx, domain: Any, kind: str) -> Any:
        return ctx.st.random_choice(list(items_of(ctx.st, domain)), kind)

    def begin_turn(self, st: State, p: int) -> None:
        st.active = p
        st.turn += 1
        clear = self.turn_marks_kept
        if clear != -1 and any(st.marks):
            st.marks = [m & clear for m in st.marks]  # marks that last a turn end with it

    @staticmethod
    def store_phase(st: State, value: Any) -> None:
        st.phase = value

    @staticmethod
    def store_var(st: State, name: str, value: Any) -> None:
        st.vars[name] = value

    @staticmethod
    def store_player_var(st: State, name: str, i: int, value: Any) -> None:
        st.pvars[name][i] = value

    @staticmethod
    def any_protected(ctx: Ctx) -> bool:
        return bool(ctx.st.protected)

    @staticmethod
    def is_protected(ctx: Ctx, owner: int) -> bool:
        return bool(ctx.st.protected >> owner & 1)

    @staticmethod
    def protection_holds(ctx: Ctx, p: Protection, owner: int) -> bool:
        return bool(p.when(ctx.st, owner))

    # ------------------------------------------------------------ what the engine's steps ask of the state
    def seat(self, st: State, players: Any) -> None:
        """Seat a new round's players (a rules value listing them; every seat when None)."""
        seats = list(range(len(st.names))) if players is None else list(items_of(st, players))
        st.seat_round(seats)
        if not st.in_round:
            raise EngineError("a round needs at least one player")
        self.eng.check_tables(len(st.seats))

    @staticmethod
    def next_round(st: State) -> None:
        st.round += 1

    @staticmethod
    def reset_var(st: State, v: s.VarDecl, init: Fn, ctx: Ctx) -> None:
        if v.per_player:
            st.pvars[v.name] = [init(ctx) for _ in st.names]
        else:
            st.vars[v.name] = init(ctx)

    @staticmethod
    def clear_round(st: State) -> None:
        st.windows.clear()
        st.waiting.clear()
        st.marks = [0] * len(st.marks)

    @staticmethod
    def copy(st: State) -> State:
        return st.copy()

    @staticmethod
    def same(st: State, a: Any, b: Any) -> bool:
        return bool(a == b)

    @staticmethod
    def target_owner(ctx: Ctx, value: Any) -> Any:
        """The player whose tableau an argument names: a slot's owner, or a player (none otherwise)."""
        return tableau_of(value)

    @staticmethod
    def block_log() -> list[s.ProtectDecl]:
        """Where a trial run records the protections that made a change impossible."""
        return []

    @staticmethod
    def blocked_by(trial: Ctx) -> s.ProtectDecl | None:
        return trial.blocked[0] if trial.blocked else None

    @staticmethod
    def anything_waits(st: State) -> bool:
        return bool(st.waiting)

    @staticmethod
    def head(st: State, ability: str | None) -> Waiting:
        """The first waiting ability (the caller knows one waits; `ability`: the one it must be)."""
        return st.waiting[0]

    @staticmethod
    def dequeue(st: State) -> Waiting:
        return st.waiting.pop(0)

    @staticmethod
    def window_callable(st: State) -> bool:
        """An open window with an attempt left."""
        return bool(st.windows) and st.windows[-1].attempts > 0

    @staticmethod
    def changed_owners(ctx: Ctx) -> list[tuple[Any, Any]]:
        """The players whose tableau the rule changed, each with the condition that it did."""
        return [(owner, True) for owner in sorted(ctx.changed)] if ctx.changed else []

    @staticmethod
    def when(ctx: Ctx, cond: Any, then: Callable[[], None]) -> None:
        if cond:
            then()

    @staticmethod
    def until_settled(st: State, step: Callable[[], bool]) -> None:
        while step():
            pass

    def protect(self, st: State) -> None:
        """Which tableaux the rules' protections hold now, against every player but the owner."""
        mask = 0
        for protection in self.protections:
            if protection.only is not None and protection.rest is not None:
                p = protection.only(st)
                if p is not None and protection.rest(st, p):
                    mask |= 1 << p
                continue
            for p in st.seats:
                if protection.when(st, p):
                    mask |= 1 << p
        st.protected = mask

    def where_label(self, st: State, where: object) -> str:
        if isinstance(where, tuple):
            return self.eng.slot_label(st, where)
        if isinstance(where, HandLoc):
            return f"{st.names[where.player]}'s hand"
        if isinstance(where, PileLoc):
            return self.eng.pile_names[where.index].replace("_", " ")
        return "the box"
