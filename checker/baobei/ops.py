"""The engine's primitive effects: each moves, shows or records something and logs an event.

Cards only ever change place through `place`/`take_out`, so no primitive can create,
lose or duplicate a card: a card leaves exactly one place and enters exactly one.
A `none` card is skipped, which is how an impossible part of an effect is left out.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .builtins import pile_list
from .compiler import Ctx, Event, Fn, Origin, Proc
from .errors import EngineError
from .state import DISCARD, DRAW, UNDER, HandLoc, PileLoc, State, Window

if TYPE_CHECKING:
    from .engine import Engine
    from .syntax import Pos


def log(ctx: Ctx, origin: Origin, text: Callable[[], str]) -> None:
    if ctx.log is not None:
        ctx.log.append(Event(origin.rule, origin.cite, text()))


class Ops:
    """Builds the closures for primitive statements (bound to one engine)."""

    def __init__(self, eng: Engine) -> None:
        self.eng = eng
        self.face_up = frozenset(eng.rules.face_up)

    # ------------------------------------------------------------ card places
    def take_out(self, st: State, card: int) -> object:
        """Remove a card from wherever it is; returns the place it left."""
        hands = st.hands
        for pile, items in ((DISCARD, st.discard), (DRAW, st.draw), (UNDER, st.under)):
            if items and items[-1] == card:
                items.pop()
                return pile
        for p, c in enumerate(hands):
            if c == card:
                hands[p] = None
                return HandLoc(p)
        for p, row in enumerate(st.tableaux):
            for i, c in enumerate(row):
                if c == card:
                    row[i] = None
                    return (p, i + 1)
        for pile, items in ((DISCARD, st.discard), (DRAW, st.draw), (UNDER, st.under)):
            if card in items:
                items.remove(card)
                return pile
        if card in st.box:
            st.box.remove(card)
            return None
        raise EngineError(f"card {card} is nowhere")

    def check_free(self, st: State, where: object, pos: Pos | str) -> None:
        """Refuse a destination that would cover another card (or is no place at all)."""
        if isinstance(where, tuple):
            player, number = where
            row = st.tableaux[player]
            if not (number == len(row) + 1 or (0 < number <= len(row) and row[number - 1] is None)):
                raise EngineError(f"{pos}: slot {self.eng.slot_label(st, where)} is not free")
        elif isinstance(where, HandLoc):
            if st.hands[where.player] is not None:
                raise EngineError(f"{pos}: {st.names[where.player]} already holds a card")
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
            st.hands[where.player] = card
        elif isinstance(where, PileLoc):
            pile_list(st, where).append(card)
            if where.name in self.face_up:
                st.known[card] = st.everyone  # a face-up pile shows the card to every player

    def where_label(self, st: State, where: object) -> str:
        if isinstance(where, tuple):
            return self.eng.slot_label(st, where)
        if isinstance(where, HandLoc):
            return f"{st.names[where.player]}'s hand"
        if isinstance(where, PileLoc):
            return where.name.replace("_", " ")
        return "the box"

    # ------------------------------------------------------------ statements
    def move(self, card: Fn, to: Fn, origin: Origin, pos: Pos) -> Proc:
        def move(ctx: Ctx) -> None:
            c, where = card(ctx), to(ctx)
            if c is None or where is None:
                return
            st = ctx.st
            self.check_free(st, where, pos)  # before taking the card out: a refused move loses nothing
            src = self.take_out(st, c)
            self.put(st, c, where)
            log(ctx, origin, lambda: f"{self.eng.facts.label(c)} moves from "
                f"{self.where_label(st, src)} to {self.where_label(st, where)}")

        return move

    def draw(self, into: Fn, bind: str | None, origin: Origin) -> Proc:
        def draw(ctx: Ctx) -> None:
            where = into(ctx)
            st = ctx.st
            if not st.draw:
                self.eng.run_hook("draw_empty", ctx, (self._drawer(ctx),))
            if not st.draw or where is None:
                log(ctx, origin, lambda: "the draw is impossible and is left out")
                if bind:
                    ctx.env[bind] = None
                return
            self.check_free(st, where, origin.rule)
            c = st.draw.pop()
            self.put(st, c, where)
            if bind:
                ctx.env[bind] = c
            log(ctx, origin, lambda: f"a card is drawn to {self.where_label(st, where)}"
                + (f": {self.eng.facts.label(c)}" if where is DISCARD else ""))

        return draw

    @staticmethod
    def _drawer(ctx: Ctx) -> Any:
        """Who draws: the player whose move, ability or rule this is (not the card's destination)."""
        actor = ctx.env.get("actor")
        return ctx.st.active if actor is None else actor

    def peek(self, player: Fn, card: Fn, origin: Origin) -> Proc:
        def peek(ctx: Ctx) -> None:
            p, c = player(ctx), card(ctx)
            if p is None or c is None:
                return
            ctx.st.known[c] |= 1 << p
            log(ctx, origin, lambda: f"{ctx.st.names[p]} looks secretly at {self.eng.facts.label(c)}")

        return peek

    def show(self, card: Fn, origin: Origin) -> Proc:
        def show(ctx: Ctx) -> None:
            c = card(ctx)
            if c is None:
                return
            ctx.st.known[c] = ctx.st.everyone
            log(ctx, origin, lambda: f"{self.eng.facts.label(c)} is shown to everyone")

        return show

    def forget(self, card: Fn, origin: Origin) -> Proc:
        def forget(ctx: Ctx) -> None:
            c = card(ctx)
            if c is not None:
                ctx.st.known[c] = 0

        return forget

    def open_window(self, kind: str, card: Fn, players: Fn, origin: Origin) -> Proc:
        def open_window(ctx: Ctx) -> None:
            c = card(ctx)
            if c is None:
                return
            mask = 0
            for p in players(ctx) or ():
                mask |= 1 << p
            ctx.st.window = Window(kind, c, mask)
            log(ctx, origin, lambda: f"pluck window '{kind}' opens on {self.eng.facts.label(c)} for "
                + (", ".join(ctx.st.names[p] for p in range(len(ctx.st.names)) if mask >> p & 1) or "nobody"))

        return open_window

    def use_window(self, origin: Origin) -> Proc:
        def use_window(ctx: Ctx) -> None:
            if ctx.st.window is not None:
                ctx.st.window.used = True
                log(ctx, origin, lambda: "the reference's one attempt is used")

        return use_window

    def close_window(self, origin: Origin) -> Proc:
        def close_window(ctx: Ctx) -> None:
            if ctx.st.window is not None:
                ctx.st.window = None
                log(ctx, origin, lambda: "the pluck window closes")

        return close_window

    def trigger(self, card: Fn, player: Fn, origin: Origin) -> Proc:
        abilities = self.eng.facts.ability

        def trigger(ctx: Ctx) -> None:
            c, p = card(ctx), player(ctx)
            if c is None or p is None or abilities[c] is None:
                return
            ability: str = abilities[c]  # type: ignore[assignment]  # checked just above
            ctx.st.pending.append((ability, c, p))
            log(ctx, origin, lambda: f"{self.eng.facts.label(c)} triggers its ability '{ability}' "
                f"for {ctx.st.names[p]}")

        return trigger

    def shuffle(self, sources: tuple[str, ...], origin: Origin) -> Proc:
        def shuffle(ctx: Ctx) -> None:
            st = ctx.st
            gathered: list[int] = []
            for source in sources:
                gathered.extend(self._gather(st, source))
            for c in gathered:
                st.known[c] = 0  # shuffled face down: nobody can follow a card any more
            st.draw.extend(gathered)
            st.rng.shuffle(st.draw)
            log(ctx, origin, lambda: f"{len(gathered)} cards are shuffled into the draw pile")

        return shuffle

    @staticmethod
    def _gather(st: State, source: str) -> list[int]:
        out: list[int] = []
        if source == "all_cards":
            for row in st.tableaux:
                out.extend(c for c in row if c is not None)
            st.tableaux = [[] for _ in st.names]
            out.extend(c for c in st.hands if c is not None)
            st.hands = [None for _ in st.names]
            out.extend(st.draw + st.discard + st.under + st.box)
            st.draw, st.discard, st.under, st.box = [], [], [], []
        elif source == "discard_below_top":
            out, st.discard = st.discard[:-1], st.discard[-1:]
        elif source == "discard_pile":
            out, st.discard = st.discard, []
        elif source == "under_pile":
            out, st.under = st.under, []
        elif source == "draw_pile":
            out, st.draw = st.draw, []
        return out

    def start_turn(self, player: Fn, origin: Origin) -> Proc:
        def start_turn(ctx: Ctx) -> None:
            p = player(ctx)
            if p is None:
                raise EngineError(f"{origin.rule}: no player to start the turn")
            st = ctx.st
            st.active = p
            st.turn += 1
            log(ctx, origin, lambda: f"{st.names[p]}'s turn begins")

        return start_turn

    def set_phase(self, value: Fn, origin: Origin) -> Proc:
        def set_phase(ctx: Ctx) -> None:
            ctx.st.phase = value(ctx)

        return set_phase

    def set_var(self, name: str, index: Fn | None, value: Fn, origin: Origin) -> Proc:
        show = self.eng.format_value
        vtype = self.eng.rules.variables[name].type
        if index is None:
            def set_scalar(ctx: Ctx) -> None:
                v = ctx.st.vars[name] = value(ctx)
                log(ctx, origin, lambda: f"{name} = {show(ctx.st, vtype, v)}")

            return set_scalar

        def set_player(ctx: Ctx) -> None:
            i = index(ctx)
            if i is not None:
                v = ctx.st.pvars[name][i] = value(ctx)
                log(ctx, origin, lambda: f"{name}[{ctx.st.names[i]}] = {show(ctx.st, vtype, v)}")

        return set_player
