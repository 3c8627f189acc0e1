"""The engine's primitive statements: each moves, shows or records something and logs an event.

Cards only ever change place through `take_out`/`put`, so no primitive can create,
lose or duplicate a card: a card leaves exactly one place and enters exactly one.
A `none` card or place is skipped, which is how an impossible part of an effect is
left out. Every change of a slot is noted in the context (`ctx.changed`), so that the
engine can tell the rules whose tableau a move or an ability step changed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from ..language import syntax as s
from ..language.errors import EngineError
from ..language.ruleset import ALL_CARDS, Ruleset
from ..language.text import plural
from .protection import Protection, protection_against
from .runtime import Ctx, Event, Fn, Origin, items_of
from .state import CardFacts, HandLoc, PileLoc, State, Waiting, Window, hand_of


class Host(Protocol):
    """What the effects need of the engine that runs them (engine.Engine provides it)."""

    rules: Ruleset
    facts: CardFacts
    pile_names: list[str]
    pile_index: dict[str, int]

    def run_hook(self, name: str, ctx: Ctx, args: tuple[Any, ...]) -> None: ...
    def start_round(self, st: State, log: list[Event] | None, players: list[int] | None = None) -> None: ...
    def slot_label(self, st: State, slot: tuple[int, int]) -> str: ...
    def format_value(self, st: State, vtype: str, value: Any) -> str: ...


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
        self.draw_pile = list(rules.piles).index("draw_pile")
        self.mark_bits = eng.facts.mark_bits
        self.protections: list[Protection] = []  # set by the engine once the rules are compiled
        self.left_pile = [PileLoc(i, "") for i in range(len(rules.piles))]  # the place a card left, by pile
        # The marks every card an ability moves, swaps or places gets, only when the change happens.
        self.ability_marks = sum(1 << eng.facts.mark_bits[m.name] for m in rules.marks.values() if m.on_ability_moves)
        # The marks a new turn keeps (-1: all): those that last a turn are cleared.
        self.turn_marks_kept = ~sum(1 << bit for name, bit in self.mark_bits.items() if rules.marks[name].until_turn)

    # ------------------------------------------------------------ card places
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

    def check_free(self, st: State, where: object, pos: s.Pos | str) -> None:
        """Refuse a destination that would cover another card (or is no place at all)."""
        if isinstance(where, tuple):
            player, number = where
            row = st.tableaux[player]
            if not (number == len(row) + 1 or (0 < number <= len(row) and row[number - 1] is None)):
                raise EngineError(f"{pos}: slot {self.eng.slot_label(st, where)} is not free")
        elif isinstance(where, HandLoc):
            if len(st.hands[where.player]) >= self.capacity:
                raise EngineError(f"{pos}: {st.names[where.player]}'s hand holds "
                                  f"{plural(self.capacity, 'card')} already")
        elif not isinstance(where, PileLoc):
            raise EngineError(f"{pos}: {where!r} is not a place for a card")

    def put(self, st: State, card: int, where: object) -> None:
        """Put a card that is in no place into `where`, already checked with `check_free`."""
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

    def where_label(self, st: State, where: object) -> str:
        if isinstance(where, tuple):
            return self.eng.slot_label(st, where)
        if isinstance(where, HandLoc):
            return f"{st.names[where.player]}'s hand"
        if isinstance(where, PileLoc):
            return self.eng.pile_names[where.index].replace("_", " ")
        return "the box"

    def _blocked(self, ctx: Ctx, origin: Origin, *places: object) -> bool:
        """Whether a change of these places would touch a tableau protected against the rule's actor: such
        a part of an effect is impossible and is left out (logged)."""
        if not ctx.st.protected:
            return False  # no tableau is protected now: nothing to look up
        for place in places:
            if isinstance(place, tuple):
                decl = protection_against(self.protections, ctx, place[0], ctx.env.get("actor"))
                if decl is not None:
                    if ctx.blocked is not None:
                        ctx.blocked.append(decl)
                    if ctx.log is not None:
                        ctx.log.append(Event(origin.rule, decl.cite, f"{ctx.st.names[place[0]]}'s tableau is "
                                             f"protected ({decl.name}): this change is impossible and left out"))
                    return True
        return False

    @staticmethod
    def _touched(ctx: Ctx, *places: object) -> None:
        changed = ctx.changed
        if changed is None:
            return
        for place in places:
            if isinstance(place, tuple):
                changed.add(place[0])

    # ------------------------------------------------------------ statements
    # One method per primitive statement, given the context and the values of the statement's expressions
    # (compiler.py evaluates them first, in order). Where a statement evaluates a part only in some cases
    # (the players of a window once its card exists, the words of `say` only where they are read), that
    # part comes as a function of the context and the method decides whether to evaluate it.
    def move(self, ctx: Ctx, c: Any, where: Any, origin: Origin, pos: s.Pos) -> None:
        if c is None or where is None:
            return
        st = ctx.st
        self.check_free(st, where, pos)  # before taking the card out: a refused move loses nothing
        if st.protected and self._blocked(ctx, origin, st.locate(c), where):
            return
        src = self.take_out(st, c)
        self.put(st, c, where)
        self._touched(ctx, src, where)
        if ctx.marking:
            st.marks[c] |= ctx.marking
        if ctx.log is not None:
            log(ctx, origin, lambda: f"{st.facts.label(c)} moves from "
                f"{self.where_label(st, src)} to {self.where_label(st, where)}", c)

    def swap(self, ctx: Ctx, a: Any, b: Any, origin: Origin, pos: s.Pos) -> None:
        if a is None or b is None or a == b:
            return
        st = ctx.st
        where_a, where_b = st.locate(a), st.locate(b)
        if not isinstance(where_a, tuple) or not isinstance(where_b, tuple):
            raise EngineError(f"{pos}: only cards on slots can swap places")
        if self._blocked(ctx, origin, where_a, where_b):
            return
        st.tableaux[where_a[0]][where_a[1] - 1] = b
        st.tableaux[where_b[0]][where_b[1] - 1] = a
        self._touched(ctx, where_a, where_b)
        if ctx.marking:
            st.marks[a] |= ctx.marking
            st.marks[b] |= ctx.marking
        if ctx.log is not None:
            log(ctx, origin, lambda: f"the cards on {self.where_label(st, where_a)} and "
                f"{self.where_label(st, where_b)} swap places")

    def draw(self, ctx: Ctx, where: Any, bind: str | None, origin: Origin) -> None:
        st = ctx.st
        pile = st.piles[self.draw_pile]
        if not pile:
            self.eng.run_hook("draw_empty", ctx, (self._drawer(ctx),))
        if not pile or where is None or (st.protected and self._blocked(ctx, origin, where)):
            if ctx.log is not None:
                log(ctx, origin, lambda: "the draw is impossible and is left out")
            if bind:
                ctx.env[bind] = None
            return
        self.check_free(st, where, origin.rule)
        chance = st.chance()
        if chance is not None:
            chance.before_draw(st, pile)  # the outcome comes from elsewhere (a referee's game log)
        c = pile.pop()
        self.put(st, c, where)
        if ctx.changed is not None and isinstance(where, tuple):  # _touched, written out: every draw passes here
            ctx.changed.add(where[0])
        if ctx.marking:
            st.marks[c] |= ctx.marking
        if bind:
            ctx.env[bind] = c
        if ctx.log is not None:
            shown = isinstance(where, PileLoc) and where.index in self.face_up
            log(ctx, origin, lambda: f"a card is drawn to {self.where_label(st, where)}"
                + (f": {st.facts.label(c)}" if shown else ""), c, kind="draw")

    @staticmethod
    def _drawer(ctx: Ctx) -> Any:
        """Who draws: the player whose move, ability or rule this is (not the card's destination)."""
        actor = ctx.env.get("actor")
        return ctx.st.active if actor is None else actor

    @staticmethod
    def peek(ctx: Ctx, p: Any, c: Any, origin: Origin) -> None:
        if p is None or c is None:
            return
        ctx.st.known[c] |= 1 << p
        if ctx.log is not None:
            log(ctx, origin, lambda: f"{ctx.st.names[p]} looks secretly at {ctx.st.facts.label(c)}", c)

    @staticmethod
    def show(ctx: Ctx, c: Any, origin: Origin) -> None:
        if c is None:
            return
        ctx.st.known[c] = ctx.st.everyone
        if ctx.log is not None:
            log(ctx, origin, lambda: f"{ctx.st.facts.label(c)} is shown to everyone", c)

    def say(self, ctx: Ctx, text: str, args: tuple[Fn, ...], kinds: tuple[str, ...], origin: Origin) -> None:
        if ctx.log is None:
            return  # words only: nothing to do where nobody reads them
        parts = text.split("{}")
        values = [self.eng.format_value(ctx.st, kind, arg(ctx)) for arg, kind in zip(args, kinds, strict=True)]
        words = parts[0] + "".join(v + rest for v, rest in zip(values, parts[1:], strict=True))
        ctx.log.append(Event(origin.rule, origin.cite, words, "say"))

    @staticmethod
    def forget(ctx: Ctx, c: Any, origin: Origin) -> None:
        if c is not None:
            ctx.st.known[c] = 0
            if ctx.log is not None:
                log(ctx, origin, lambda: f"nobody can follow {ctx.st.facts.label(c)} any more", c)

    def mark_bit(self, mark: str) -> int:
        return 1 << self.mark_bits[mark]

    @staticmethod
    def mark(ctx: Ctx, mark: str, bit: int, c: Any, origin: Origin) -> None:
        if c is not None:
            ctx.st.marks[c] |= bit
            if ctx.log is not None:
                log(ctx, origin, lambda: f"{ctx.st.facts.label(c)} is marked {mark}", c)

    def open_window(self, ctx: Ctx, kind: str, c: Any, players: Fn, origin: Origin) -> None:
        if c is None:
            return
        mask = 0
        for p in items_of(ctx.st, players(ctx)):
            mask |= 1 << p
        windows = ctx.st.windows
        windows.append(Window(kind, c, mask, self.attempts))
        del windows[:-self.open_max]  # the oldest windows close when too many are open
        if ctx.log is not None:
            log(ctx, origin, lambda: f"the {self.window_title} '{kind}' opens on {ctx.st.facts.label(c)} for "
                + (", ".join(ctx.st.names[p] for p in range(len(ctx.st.names)) if mask >> p & 1) or "nobody"), c)

    @staticmethod
    def use_window(ctx: Ctx, origin: Origin) -> None:
        if ctx.st.windows:
            ctx.st.windows[-1].attempts -= 1
            if ctx.log is not None:
                log(ctx, origin, lambda: "an attempt on the reference is used")

    def close_window(self, ctx: Ctx, origin: Origin) -> None:
        if ctx.st.windows:
            ctx.st.windows.clear()
            if ctx.log is not None:
                log(ctx, origin, lambda: f"the {self.window_title} closes")

    def trigger(self, ctx: Ctx, c: Any, p: Any, after_window: bool, origin: Origin) -> None:
        facts = self.eng.facts
        if c is None or p is None or facts.ability[c] is None:
            return
        ability: str = facts.ability[c]  # checked just above
        queue = ctx.st.waiting
        # A new trigger waits before those that wait for the window: what the window's calls
        # trigger is part of settling them.
        at = next((i for i, w in enumerate(queue) if w.after_window), len(queue))
        queue.insert(at, Waiting(ability, c, p, (), after_window))
        if ctx.log is not None:
            log(ctx, origin, lambda: f"{facts.label(c)} triggers its ability '{ability}' for {ctx.st.names[p]}"
                + (" once the window's calls are settled" if after_window else ""), c)

    @staticmethod
    def continue_step(ctx: Ctx, step: str, p: Any, args: tuple[Fn, ...], origin: Origin) -> None:
        if p is None:
            return
        source = ctx.env.get("source")
        if source is None:
            raise EngineError(f"{origin.rule}: `continue` goes on with an ability; this rule is no ability")
        ctx.st.waiting.insert(0, Waiting(step, source, p, tuple(a(ctx) for a in args)))
        if ctx.log is not None:
            log(ctx, origin, lambda: f"{ctx.st.names[p]} goes on with '{step}'")

    def shuffle(self, ctx: Ctx, sources: tuple[s.ShuffleSource, ...], into: PileLoc, origin: Origin) -> None:
        st = ctx.st
        gathered: list[int] = []
        for source in sources:
            gathered.extend(self._gather(st, source))
        known = st.known
        for c in gathered:
            known[c] = 0  # shuffled face down: nobody can follow a card any more
        pile = st.piles[into.index]
        pile.extend(gathered)
        st.rng.shuffle(pile)
        if ctx.log is not None:
            log(ctx, origin, lambda: f"{plural(len(gathered), 'card')} shuffled into the "
                f"{self.eng.pile_names[into.index].replace('_', ' ')}")

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

    def start_turn(self, ctx: Ctx, p: Any, origin: Origin) -> None:
        if p is None:
            raise EngineError(f"{origin.rule}: no player to start the turn")
        st = ctx.st
        st.active = p
        st.turn += 1
        clear = self.turn_marks_kept
        if clear != -1 and any(st.marks):
            st.marks = [m & clear for m in st.marks]  # marks that last a turn end with it
        if ctx.log is not None:
            log(ctx, origin, lambda: f"{st.names[p]}'s turn begins")

    def start_round(self, ctx: Ctx) -> None:
        self.eng.start_round(ctx.st, ctx.log)

    def start_round_with(self, ctx: Ctx, players: Any) -> None:
        self.eng.start_round(ctx.st, ctx.log, list(items_of(ctx.st, players)))

    @staticmethod
    def set_phase(ctx: Ctx, value: Any) -> None:
        ctx.st.phase = value

    def set_var(self, ctx: Ctx, name: str, vtype: str, value: Any, origin: Origin) -> None:
        v = ctx.st.vars[name] = value
        if ctx.log is not None:
            log(ctx, origin, lambda: f"{name} = {self.eng.format_value(ctx.st, vtype, v)}", kind="set")

    def set_player_var(self, ctx: Ctx, name: str, vtype: str, i: Any, value: Fn, origin: Origin) -> None:
        if i is not None:
            v = ctx.st.pvars[name][i] = value(ctx)
            if ctx.log is not None:
                log(ctx, origin, lambda: f"{name}[{ctx.st.names[i]}] = {self.eng.format_value(ctx.st, vtype, v)}",
                    kind="set")
